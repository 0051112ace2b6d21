/* UDP framing (models/net/frame.c): datagram headers, IP fragmentation
 * over IPv4 and IPv6, wire bytes, the payload rate of a link, and the
 * datagrams a full socket buffer drops. */
#include <check.h>
#include "ck_run.h"
#include <math.h>

#include "models/net/frame.h"

START_TEST(test_udp_one_frame)
{
  /* 64 B over IPv4: 20 + 8 + 64 = 92 B packet, 110 B frame, + 20 B preamble/IFG. */
  ck_assert_double_eq(net_udp_frames(64, 1500, 0), 1.0);
  ck_assert_double_eq(net_udp_wire_bytes(64, 1500, 0), 130.0);
  /* An empty datagram is a padded minimum frame: 64 + 20. */
  ck_assert_double_eq(net_udp_wire_bytes(0, 1500, 0), 84.0);
  /* The largest that fits: 1500 - 28 over IPv4, 1500 - 48 over IPv6: one full frame. */
  ck_assert_double_eq(net_udp_frames(1472, 1500, 0), 1.0);
  ck_assert_double_eq(net_udp_wire_bytes(1472, 1500, 0), 1538.0);
  ck_assert_double_eq(net_udp_frames(1452, 1500, 1), 1.0);
  ck_assert_double_eq(net_udp_wire_bytes(1452, 1500, 1), 1538.0);
  /* IPv6 costs 20 B more per datagram than IPv4. */
  ck_assert_double_eq(net_udp_wire_bytes(1000, 1500, 1) - net_udp_wire_bytes(1000, 1500, 0), 20.0);
}
END_TEST

START_TEST(test_udp_fragments)
{
  /* 1473 B over IPv4: 1481 datagram bytes, fragments of 1480: one full
   * frame and a 1-byte fragment in a padded minimum frame. */
  ck_assert_double_eq(net_udp_frames(1473, 1500, 0), 2.0);
  ck_assert_double_eq(net_udp_wire_bytes(1473, 1500, 0), 1538.0 + 84.0);
  /* fio's bs=4k: 4104 datagram bytes = 1480 + 1480 + 1144. */
  ck_assert_double_eq(net_udp_frames(4096, 1500, 0), 3.0);
  ck_assert_double_eq(net_udp_wire_bytes(4096, 1500, 0), 2 * 1538.0 + 18 + 20 + 1144 + 20);
  /* IPv6: each fragment has the 8 B Fragment header, 1448 datagram bytes
   * per fragment (1452 rounded down to 8): 1453 B = 1448 + 13. */
  ck_assert_double_eq(net_udp_frames(1453, 1500, 1), 2.0);
  ck_assert_double_eq(net_udp_wire_bytes(1453, 1500, 1), (48 + 1448 + 38.0) + (18 + 48 + 13 + 20.0));
  /* Jumbo frames: 64 KiB - 29 B in 8 fragments of 8976 over IPv4 (65515 / 8976 = 7.3). */
  ck_assert_double_eq(net_udp_frames(65507, 9000, 0), 8.0);
  ck_assert_double_eq(net_udp_max_payload(0), 65507.0);
  ck_assert_double_eq(net_udp_max_payload(1), 65527.0);
  /* Wire bytes grow with the payload, never below it. */
  for (double p = 0; p <= 65507; p += 997) {
    ck_assert_msg(net_udp_wire_bytes(p, 1500, 0) > p, "%g", p);
    ck_assert_msg(net_udp_wire_bytes(p + 1, 1500, 0) >= net_udp_wire_bytes(p, 1500, 0), "%g", p);
  }
}
END_TEST

START_TEST(test_udp_rate)
{
  const double gbe = 1.25e8; /* bytes/s */
  double r = net_udp_payload_rate_bytes_per_s(gbe, 1472, 1500, 0);
  ck_assert_msg(fabs(r - gbe * 1472.0 / 1538.0) < 1e-6, "%g", r);
  /* Small datagrams waste the wire: 64 B payload per 130 B. */
  ck_assert_msg(fabs(net_udp_payload_rate_bytes_per_s(gbe, 64, 1500, 0) - gbe * 64.0 / 130.0) < 1e-6, "small");
  ck_assert_double_eq(net_udp_payload_rate_bytes_per_s(gbe, 0, 1500, 0), 0.0);
}
END_TEST

START_TEST(test_udp_lost)
{
  /* 1000 datagrams/s into a receiver taking 600/s with room for 100: 300 lost in 1 s. */
  ck_assert_double_eq(net_udp_lost(1000, 600, 100, 1.0), 300.0);
  /* A receiver that keeps up loses nothing; the buffer absorbs a short excess. */
  ck_assert_double_eq(net_udp_lost(600, 1000, 100, 1.0), 0.0);
  ck_assert_double_eq(net_udp_lost(1000, 950, 100, 1.0), 0.0);
  /* Never more than were sent. */
  ck_assert_double_eq(net_udp_lost(1000, 0, 0, 2.0), 2000.0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("udp");
  TCase *tc = tcase_create("frame");
  tcase_add_test(tc, test_udp_one_frame);
  tcase_add_test(tc, test_udp_fragments);
  tcase_add_test(tc, test_udp_rate);
  tcase_add_test(tc, test_udp_lost);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
