/* Network models: framing arithmetic, bond hashing, MPIO selectors, TCP caps. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/net/frame.h"
#include "models/net/lacp.h"
#include "models/net/mpio.h"
#include "models/net/net.h"

/* ---------------------------------------------------------------- framing */

START_TEST(test_frame_sizes)
{
  ck_assert_double_eq(net_payload_per_frame(1500, 0), 1460.0);
  ck_assert_double_eq(net_payload_per_frame(1500, 1), 1448.0);
  ck_assert_double_eq(net_payload_per_frame(9000, 0), 8960.0);
  ck_assert_double_eq(net_wire_bytes_per_frame(1500), 1538.0);
  ck_assert_double_eq(net_wire_bytes_per_frame(9000), 9038.0);
  ck_assert_double_eq(net_frames(1460, 1500, 0), 1.0);
  ck_assert_double_eq(net_frames(1461, 1500, 0), 2.0);
  ck_assert_double_eq(net_frames(0, 1500, 0), 1.0);
  ck_assert_double_eq(net_frames(65536, 9000, 0), 8.0); /* 65536 / 8960 = 7.3 */
  /* Full frames: exactly n * (mtu + 38). */
  ck_assert_double_eq(net_wire_bytes(1460.0 * 10, 1500, 0), 15380.0);
  /* 1461 B: one full frame + 1 B in a padded minimum frame (64 + 8 + 12). */
  ck_assert_double_eq(net_wire_bytes(1461, 1500, 0), 1538.0 + 84.0);
  /* A pure ACK is one minimum frame on the wire. */
  ck_assert_double_eq(net_wire_bytes(0, 1500, 0), 84.0);
  /* A 100 B segment: 18 + 40 + 100 = 158 B frame + 20 B preamble/IFG. */
  ck_assert_double_eq(net_wire_bytes(100, 1500, 0), 178.0);
  double e1500 = net_payload_efficiency(1500, 0), e9000 = net_payload_efficiency(9000, 0);
  ck_assert_msg(fabs(e1500 - 0.9493) < 1e-4, "MTU 1500 efficiency %.5f", e1500);
  ck_assert_msg(fabs(e9000 - 0.9914) < 1e-4, "MTU 9000 efficiency %.5f", e9000);
  double ets = net_payload_efficiency(1500, 1);
  ck_assert_msg(fabs(ets - 1448.0 / 1538.0) < 1e-12, "with timestamps %.5f", ets);
}
END_TEST

START_TEST(test_frame_mtu_ratio)
{
  const double gbe_bytes_per_s = 1.25e8;
  const double expect = (8960.0 / 9038.0) / (1460.0 / 1538.0);
  double r = net_payload_rate_bytes_per_s(gbe_bytes_per_s, 9000, 0) /
             net_payload_rate_bytes_per_s(gbe_bytes_per_s, 1500, 0);
  ck_assert_msg(fabs(r / expect - 1.0) < 1e-3, "rate ratio %.6f, framing says %.6f", r, expect);
  /* The same through a long transfer's wire bytes (1 GiB). */
  double payload = 1073741824.0;
  double t1500 = net_wire_bytes(payload, 1500, 0) / gbe_bytes_per_s;
  double t9000 = net_wire_bytes(payload, 9000, 0) / gbe_bytes_per_s;
  double r2 = t1500 / t9000;
  ck_assert_msg(fabs(r2 / expect - 1.0) < 1e-3, "transfer-time ratio %.6f, framing says %.6f",
                r2, expect);
  /* 1GbE payload rates (hardware.md: ~118.7 MB/s at 1500, ~123.9 at 9000). */
  double p1500 = net_payload_rate_bytes_per_s(gbe_bytes_per_s, 1500, 0);
  ck_assert_msg(fabs(p1500 - 1.25e8 * 1460.0 / 1538.0) < 1e-3, "1GbE at 1500: %.1f", p1500);
}
END_TEST

/* ---------------------------------------------------------------- params */

START_TEST(test_net_table)
{
  struct net_params p;
  params_defaults(net_param_table, net_param_count, &p);
  for (size_t i = 0; i < net_param_count; i++) {
    const struct param_desc *d = &net_param_table[i];
    double v = *(const double *)((const char *)&p + d->offset);
    ck_assert_msg(d->optional, "%s should have a default", d->key);
    ck_assert_msg(v >= d->min && v <= d->max, "%s default %g outside [%g, %g]", d->key, v, d->min,
                  d->max);
    for (size_t j = i + 1; j < net_param_count; j++)
      ck_assert_msg(strcmp(d->key, net_param_table[j].key) != 0, "duplicate key %s", d->key);
    if (d->choices) {
      size_t n = 0;
      while (d->choices[n])
        n++;
      ck_assert_msg(d->max == (double)(n - 1), "%s: max %g but %zu choices", d->key, d->max, n);
    }
  }
  ck_assert_double_eq(p.mtu_bytes, 1500.0);
  ck_assert_double_eq(p.nas_link_rate_bytes_per_s, 1.25e8);
  ck_assert_int_eq((int)p.mode, NET_MODE_SINGLE);
  struct nw_err err = {0};
  ck_assert_int_eq(net_check(&p, &err), 0);
  ck_assert_int_eq(net_mpio_paths(&p), 1);
  /* RTT: 2 cable hops of 10 us + 1 switch of 5 us, both ways = 50 us. */
  ck_assert_msg(fabs(net_rtt_s(&p) - 50e-6) < 1e-12, "rtt %g", net_rtt_s(&p));

  ck_assert(params_find(net_param_table, net_param_count, "nas_links")->whole);
  ck_assert(params_find(net_param_table, net_param_count, "mtu")->whole);
  p.nas_links = 2;
  p.client_nics = 2;
  ck_assert_int_eq(net_check(&p, &err), -1);
  ck_assert_msg(strstr(err.msg, "client_nics 2"), "msg: %s", err.msg);
  p.mode = NET_MODE_MPIO;
  ck_assert_int_eq(net_check(&p, &err), 0);
  ck_assert_int_eq(net_mpio_paths(&p), 2);
  p.switch_hops = 0;
  p.nas_links = 4;
  ck_assert_int_eq(net_check(&p, &err), -1);
  ck_assert_msg(strstr(err.msg, "direct cables"), "msg: %s", err.msg);
}
END_TEST

/* ---------------------------------------------------------------- lacp */

START_TEST(test_lacp_addresses)
{
  struct lacp_addr a;
  lacp_addr_for(0, 0, 0, &a); /* client 0 NIC 0: 02:43:4c:00:00:01, 10.1.0.1 */
  const uint8_t c0[6] = {0x02, 0x43, 0x4c, 0x00, 0x00, 0x01};
  ck_assert_int_eq(memcmp(a.mac, c0, 6), 0);
  ck_assert_uint_eq(a.ip, 0x0a010001u);
  lacp_addr_for(0, 299, 1, &a); /* id 300 = 0x12c: 10.2.1.44 */
  ck_assert_uint_eq(a.ip, 0x0a02012cu);
  ck_assert_uint_eq(a.mac[4], 0x01);
  ck_assert_uint_eq(a.mac[5], 0x2c);
  lacp_addr_for(1, 0, 0, &a); /* NAS 0: 02:4e:41:00:ff:01, 10.1.255.1 */
  const uint8_t n0[6] = {0x02, 0x4e, 0x41, 0x00, 0xff, 0x01};
  ck_assert_int_eq(memcmp(a.mac, n0, 6), 0);
  ck_assert_uint_eq(a.ip, 0x0a01ff01u);
  struct lacp_flow f, r, rr;
  lacp_flow_for(3, 0, 2, 0, 0, LACP_PORT_SMB, &f);
  ck_assert_uint_eq(f.src_port, 32770);
  ck_assert_uint_eq(f.dst_port, 445);
  lacp_flow_reverse(&f, &r);
  ck_assert_uint_eq(r.src_port, 445);
  ck_assert_uint_eq(r.dst_ip, f.src_ip);
  lacp_flow_reverse(&r, &rr);
  ck_assert_int_eq(memcmp(&rr, &f, sizeof f), 0);
}
END_TEST

/* Hand-computed hashes for client 0 -> NAS 0, connection 0, SMB:
 *   src MAC ..:01, dst MAC ..:01, src 10.1.0.1, dst 10.1.255.1,
 *   sport 32768 (0x8000), dport 445 (0x01bd).
 * layer2:   0x01 ^ 0x01 ^ 0x0800 = 0x800.
 * layer2+3: IPs as loaded LE: 10.1.0.1 -> 0x0100010a, 10.1.255.1 -> 0x01ff010a;
 *           xor = 0x00ff0000; h = 0x800 ^ 0x00ff0000 = 0x00ff0800;
 *           h ^= h>>16 (0xff) -> 0x00ff08ff; h ^= h>>8 (0x00ff08) -> 0x00fff7f7.
 * layer3+4: ports as loaded = 0x80 | 0x00<<8 | 0x01<<16 | 0xbd<<24 = 0xbd010080;
 *           ^ 0x00ff0000 = 0xbdfe0080; ^ (>>16 = 0xbdfe) -> 0xbdfebd7e;
 *           ^ (>>8 = 0xbdfebd) -> 0xbd4343c3; >>1 -> 0x5ea1a1e1. */
START_TEST(test_lacp_hash_values)
{
  struct lacp_flow f;
  lacp_flow_for(0, 0, 0, 0, 0, LACP_PORT_SMB, &f);
  ck_assert_uint_eq(lacp_hash(LACP_LAYER2, &f), 0x800u);
  ck_assert_uint_eq(lacp_hash(LACP_LAYER23, &f), 0x00fff7f7u);
  ck_assert_uint_eq(lacp_hash(LACP_LAYER34, &f), 0x5ea1a1e1u);
  /* Linux 3.2: layer2 = 0x01 ^ 0x01 = 0; layer2+3 = (0x0a010001 ^ 0x0a01ff01) & 0xffff ^ 0
   * = 0xff00; layer3+4 = (0x8000 ^ 0x01bd) ^ 0xff00 = 0x81bd ^ 0xff00 = 0x7ebd. */
  ck_assert_uint_eq(lacp_hash_kernel(LACP_KERNEL_3_2, LACP_LAYER2, &f), 0u);
  ck_assert_uint_eq(lacp_hash_kernel(LACP_KERNEL_3_2, LACP_LAYER23, &f), 0xff00u);
  ck_assert_uint_eq(lacp_hash_kernel(LACP_KERNEL_3_2, LACP_LAYER34, &f), 0x7ebdu);
}
END_TEST

START_TEST(test_lacp_one_flow_one_member)
{
  struct lacp_flow f;
  lacp_flow_for(7, 0, 3, 0, 0, LACP_PORT_ISCSI, &f);
  for (int pol = LACP_LAYER2; pol <= LACP_LAYER34; pol++) {
    int m0 = lacp_member((enum lacp_policy)pol, &f, 2);
    ck_assert_msg(m0 == 0 || m0 == 1, "policy %d member %d", pol, m0);
    for (int k = 0; k < 100; k++)
      ck_assert_int_eq(lacp_member((enum lacp_policy)pol, &f, 2), m0);
  }
  ck_assert_int_eq(lacp_member(LACP_LAYER34, &f, 1), 0);
}
END_TEST

/* 25 clients (index c = 0..24, id = c+1, MAC last byte = id), one SMB
 * connection each, to NAS 0 (MAC last byte 0x01) on a 2-member bond.
 * layer2 hash = id ^ 0x01 ^ 0x0800; mod 2 only bit 0 counts: member =
 * (id ^ 1) & 1, i.e. odd ids (c even) -> member 0, even ids -> member 1.
 * ids 1..25 hold 13 odd and 12 even: 13 flows on member 0, 12 on member 1.
 * The NAS->client direction hashes the same bytes (xor is symmetric).
 * With 3 members the EtherType counts: hash = 0x800 + (id ^ 1) and
 * 0x800 = 2048 = 2 (mod 3), so member = (2 + (id ^ 1)) % 3:
 *   x = id^1 in {0,3,2,5,4,7,6,9,8,...,25,24}: member 0 for x in
 *   {4,7,10,13,16,19,22,25} (8), member 1 for {2,5,8,11,14,17,20,23} (8),
 *   member 2 for {0,3,6,9,12,15,18,21,24} (9).  Linux 3.2 (no EtherType)
 *   gives x % 3: member 0 gets 9, members 1 and 2 get 8 each. */
START_TEST(test_lacp_25_clients)
{
  int count2[2] = {0, 0}, count3[3] = {0, 0, 0}, count3_old[3] = {0, 0, 0};
  for (int c = 0; c < 25; c++) {
    struct lacp_flow f, r;
    lacp_flow_for(c, 0, 0, 0, 0, LACP_PORT_SMB, &f);
    lacp_flow_reverse(&f, &r);
    int m = lacp_member(LACP_LAYER2, &f, 2);
    ck_assert_msg(m == ((c % 2 == 0) ? 0 : 1), "client %d on member %d", c, m);
    ck_assert_int_eq(lacp_member(LACP_LAYER2, &r, 2), m);
    count2[m]++;
    int x = (c + 1) ^ 1;
    int m3 = lacp_member(LACP_LAYER2, &f, 3);
    ck_assert_msg(m3 == (2 + x) % 3, "client %d: 3-member %d, hand %d", c, m3, (2 + x) % 3);
    count3[m3]++;
    count3_old[lacp_member_kernel(LACP_KERNEL_3_2, LACP_LAYER2, &f, 3)]++;
  }
  ck_assert_msg(count2[0] == 13 && count2[1] == 12, "2 members: %d/%d", count2[0], count2[1]);
  ck_assert_msg(count3[0] == 8 && count3[1] == 8 && count3[2] == 9, "3 members: %d/%d/%d",
                count3[0], count3[1], count3[2]);
  ck_assert_msg(count3_old[0] == 9 && count3_old[1] == 8 && count3_old[2] == 8,
                "3 members, 3.2: %d/%d/%d", count3_old[0], count3_old[1], count3_old[2]);
}
END_TEST

/* layer2 / layer2+3 ignore ports: one host pair stays on one member.
 * layer3+4: with sport 32768 + j, byte j lands in hash bits 8..15; after
 * the fold and >> 1, bit 0 of the result includes bit 9 of the input,
 * i.e. bit 1 of j, so connections j and j ^ 2 use different members. */
START_TEST(test_lacp_ports)
{
  for (int c = 0; c < 5; c++) {
    struct lacp_flow f0;
    lacp_flow_for(c, 0, 0, 0, 0, LACP_PORT_SMB, &f0);
    int m2 = lacp_member(LACP_LAYER2, &f0, 2), m23 = lacp_member(LACP_LAYER23, &f0, 2);
    int used34[2] = {0, 0};
    for (int j = 0; j < 16; j++) {
      struct lacp_flow f;
      lacp_flow_for(c, 0, j, 0, 0, j % 2 ? LACP_PORT_SMB : LACP_PORT_ISCSI, &f);
      ck_assert_int_eq(lacp_member(LACP_LAYER2, &f, 2), m2);
      ck_assert_int_eq(lacp_member(LACP_LAYER23, &f, 2), m23);
      used34[lacp_member(LACP_LAYER34, &f, 2)]++;
      struct lacp_flow g;
      lacp_flow_for(c, 0, j ^ 2, 0, 0, f.dst_port, &g);
      ck_assert_msg(lacp_member(LACP_LAYER34, &f, 2) != lacp_member(LACP_LAYER34, &g, 2),
                    "client %d conns %d and %d on one member", c, j, j ^ 2);
    }
    ck_assert_msg(used34[0] > 0 && used34[1] > 0, "layer3+4 used %d/%d", used34[0], used34[1]);
  }
}
END_TEST

/* ---------------------------------------------------------------- mpio */

START_TEST(test_mpio_round_robin)
{
  struct nw_err err = {0};
  struct mpio *m = mpio_create("round-robin", 2, 1, &err);
  ck_assert_msg(m != NULL, "create: %s", err.msg);
  for (int i = 0; i < 10; i++)
    ck_assert_int_eq(mpio_select_path(m, 65536), i % 2);
  mpio_destroy(m);
  m = mpio_create("round-robin", 3, 2, &err); /* 0 0 1 1 2 2 0 0 ... */
  ck_assert_ptr_nonnull(m);
  for (int i = 0; i < 12; i++)
    ck_assert_int_eq(mpio_select_path(m, 4096), (i / 2) % 3);
  mpio_fail_path(m, 1);
  for (int i = 0; i < 20; i++)
    ck_assert_int_ne(mpio_select_path(m, 4096), 1);
  ck_assert_int_eq(mpio_reinstate_path(m, 1), 0);
  ck_assert_int_eq(mpio_reinstate_path(m, 1), -1);
  int seen1 = 0;
  for (int i = 0; i < 6; i++)
    seen1 += mpio_select_path(m, 4096) == 1;
  ck_assert_int_eq(seen1, 2);
  mpio_fail_path(m, 0);
  mpio_fail_path(m, 1);
  mpio_fail_path(m, 2);
  ck_assert_int_eq(mpio_select_path(m, 4096), -1);
  ck_assert_int_eq(mpio_reinstate_path(m, 2), 0);
  ck_assert_int_eq(mpio_select_path(m, 4096), 2);
  mpio_destroy(m);
  mpio_destroy(NULL);
}
END_TEST

START_TEST(test_mpio_least_queue_depth)
{
  struct nw_err err = {0};
  struct mpio *m = mpio_create("least-queue-depth", 3, 1, &err);
  ck_assert_msg(m != NULL, "create: %s", err.msg);
  /* Load path 0 with 3, path 1 with 1, path 2 with 2 in flight. */
  for (int i = 0; i < 3; i++)
    mpio_start_io(m, 0, 4096);
  mpio_start_io(m, 1, 4096);
  mpio_start_io(m, 2, 4096);
  mpio_start_io(m, 2, 4096);
  ck_assert_int_eq(mpio_select_path(m, 4096), 1);
  mpio_start_io(m, 1, 4096); /* 3 / 2 / 2: first of the least after rotation */
  int p = mpio_select_path(m, 4096);
  ck_assert_msg(p == 1 || p == 2, "picked %d with depths 3/2/2", p);
  mpio_end_io(m, 0, 4096);
  mpio_end_io(m, 0, 4096);
  mpio_end_io(m, 0, 4096); /* 0 / 2 / 2 */
  ck_assert_int_eq(mpio_queue_depth(m, 0), 0);
  ck_assert_int_eq(mpio_select_path(m, 4096), 0);
  mpio_fail_path(m, 0);
  for (int i = 0; i < 10; i++)
    ck_assert_int_ne(mpio_select_path(m, 4096), 0);
  ck_assert_int_eq(mpio_reinstate_path(m, 0), 0);
  ck_assert_int_eq(mpio_select_path(m, 4096), 0);
  /* Closed loop of 2 per path: ties rotate, load stays balanced. */
  mpio_destroy(m);
  m = mpio_create("least-queue-depth", 2, 1, &err);
  int used[2] = {0, 0};
  for (int i = 0; i < 8; i++) {
    int q = mpio_select_path(m, 4096);
    mpio_start_io(m, q, 4096);
    used[q]++;
  }
  ck_assert_msg(used[0] == 4 && used[1] == 4, "balanced %d/%d", used[0], used[1]);
  mpio_destroy(m);
}
END_TEST

START_TEST(test_mpio_errors)
{
  struct nw_err err = {0};
  ck_assert_ptr_null(mpio_create("fastest", 2, 1, &err));
  ck_assert_msg(strstr(err.msg, "'fastest'") && strstr(err.msg, "least-queue-depth"), "%s",
                err.msg);
  ck_assert_ptr_null(mpio_create("round-robin", 0, 1, &err));
  ck_assert_msg(strstr(err.msg, "got 0"), "%s", err.msg);
  ck_assert_ptr_null(mpio_create("round-robin", 2, 0, &err));
  ck_assert_msg(strstr(err.msg, "mpio_rr_repeat"), "%s", err.msg);
  ck_assert_ptr_nonnull(mpio_selector_find("least-queue-depth"));
  /* Every policy name of the network table has a selector. */
  for (int i = 0; mpio_policy_names[i]; i++)
    ck_assert_msg(mpio_selector_find(mpio_policy_names[i]) != NULL, "%s", mpio_policy_names[i]);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("net");
  TCase *tc;
  tc = tcase_create("frame");
  tcase_add_test(tc, test_frame_sizes);
  tcase_add_test(tc, test_frame_mtu_ratio);
  suite_add_tcase(s, tc);
  tc = tcase_create("params");
  tcase_add_test(tc, test_net_table);
  suite_add_tcase(s, tc);
  tc = tcase_create("lacp");
  tcase_add_test(tc, test_lacp_addresses);
  tcase_add_test(tc, test_lacp_hash_values);
  tcase_add_test(tc, test_lacp_one_flow_one_member);
  tcase_add_test(tc, test_lacp_25_clients);
  tcase_add_test(tc, test_lacp_ports);
  suite_add_tcase(s, tc);
  tc = tcase_create("mpio");
  tcase_add_test(tc, test_mpio_round_robin);
  tcase_add_test(tc, test_mpio_least_queue_depth);
  tcase_add_test(tc, test_mpio_errors);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
