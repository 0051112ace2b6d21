/* SoC and protocol cost models, and the socs/protocols catalogues. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "models/net/frame.h"
#include "models/soc/proto.h"
#include "models/soc/soc.h"

static struct soc_params test_soc(void)
{
  struct soc_params p;
  params_defaults(soc_param_table, soc_param_count, &p);
  p.cores = 4;
  p.clock_hz = 1.7e9;
  p.work_per_cycle = 1.5;
  p.power_idle_W = 3;
  p.power_core_busy_W = 0.5;
  p.mem_bandwidth_bytes_per_s = 2e9;
  return p;
}

/* A memory system behind p's L2 that refills one 64 B line per 64 / rate
 * seconds (one miss in flight, 5 ns burst over a 64-bit DDR3-1600 bus). */
static void test_refill_at(struct soc_params *p, double rate)
{
  p->cache_line_bytes = 64;
  p->dram_bus_bits = 64;
  p->dram_transfer_rate = 1.6e9;
  p->misses_in_flight = 1;
  p->dram_latency_s = 64.0 / rate - 64.0 / 12.8e9;
}

static struct proto_params test_proto(enum proto_kind kind)
{
  struct proto_params p;
  params_defaults(proto_param_table, proto_param_count, &p);
  p.kind = kind;
  p.costs.cycles_per_request = 2e4;
  p.costs.cycles_per_byte = 2;
  p.costs.cycles_per_packet = 5e3;
  p.costs.file_lun_cycles_per_request = 3e4;
  p.costs.thin_cycles_per_request = 1e4;
  return p;
}

/* ---------------------------------------------------------------- soc */

START_TEST(test_soc_speed)
{
  struct soc_params p = test_soc();
  struct nw_err err = {0};
  ck_assert_int_eq(soc_check(&p, &err), 0);
  ck_assert_double_eq_tol(soc_effective_speed_cycles_per_s(&p), 2.55e9, 1e-3);
  ck_assert_double_eq_tol(soc_total_speed_cycles_per_s(&p), 1.02e10, 1e-2);
  /* Work conservation: 2.55e9 reference cycles take 1 s on one core. */
  ck_assert_double_eq_tol(soc_cycles_to_s(&p, 2.55e9), 1.0, 1e-12);
  ck_assert_double_eq_tol(soc_cycles_to_s(&p, 5.1e6), 2e-3, 1e-15);
  ck_assert_double_eq_tol(soc_power_W(&p, 0), 3.0, 1e-12);
  ck_assert_double_eq_tol(soc_power_W(&p, 2), 4.0, 1e-12);
  ck_assert_double_eq_tol(soc_power_W(&p, 9), 5.0, 1e-12); /* clamped to 4 cores */
  ck_assert_double_eq_tol(soc_mem_copy_s(&p, 1e9), 1.0, 1e-12); /* 2 GB/s given */
}
END_TEST

/* Power that follows the silicon (the AL514's catalogue figures: 3 W
 * idle incl. 4 x 0.15 W leakage, 0.8 W per busy core at 1.7 GHz and
 * 1.1 V, 0.3 V/GHz).  At the reference point: the stated figures.  At
 * 2.4 GHz: V = 1.1 + 0.3 x 0.7 = 1.31 V, a busy core 0.8 x (2.4/1.7) x
 * (1.31/1.1)^2 = 1.6017 W, idle 3 - 0.6 + 4 x 0.15 x 1.31/1.1 = 3.1145 W.
 * Equal load (work of 2 cores at 1.7 GHz) costs more at a higher clock
 * and with more cores powered, never less. */
START_TEST(test_soc_power_follows_silicon)
{
  struct soc_params p = test_soc();
  p.clock_hz = 1.7e9;
  p.power_idle_W = 3.0;
  p.power_core_busy_W = 0.8;
  p.power_ref_clock_hz = 1.7e9;
  p.power_ref_cores = 4;
  p.voltage_ref_V = 1.1;
  p.volts_per_ghz = 0.3;
  p.power_core_leak_W = 0.15;
  struct nw_err err = {0};
  ck_assert_int_eq(soc_check(&p, &err), 0);
  ck_assert_double_eq_tol(soc_power_W(&p, 0), 3.0, 1e-12);
  ck_assert_double_eq_tol(soc_power_W(&p, 2), 4.6, 1e-12);
  struct soc_params f = p;
  f.clock_hz = 2.4e9;
  ck_assert_double_eq_tol(soc_power_core_busy_W(&f), 0.8 * 2.4 / 1.7 * (1.31 / 1.1) * (1.31 / 1.1), 1e-12);
  ck_assert_double_eq_tol(soc_power_idle_W(&f), 3.0 - 0.6 + 0.6 * 1.31 / 1.1, 1e-12);
  /* Equal load: 2 cores' work at 1.7 GHz keeps 2 x 1.7/2.4 cores busy at 2.4 GHz. */
  double base = soc_power_W(&p, 2.0), fast = soc_power_W(&f, 2.0 * 1.7 / 2.4);
  ck_assert_msg(fast > base, "2.4 GHz: %.4f W, 1.7 GHz: %.4f W at equal load", fast, base);
  struct soc_params c = p;
  c.cores = 8;
  double wide = soc_power_W(&c, 2.0);
  ck_assert_msg(wide > base && fabs(wide - base - 4 * 0.15) < 1e-12, "8 cores: %.4f W, 4 cores: %.4f W", wide, base);
  struct soc_params w = f;
  w.cores = 8;
  ck_assert_msg(soc_power_W(&w, 2.0 * 1.7 / 2.4) > fast, "8 cores at 2.4 GHz cost more than 4");
  /* Leakage above the idle figure it is part of is refused. */
  p.power_core_leak_W = 1.0;
  ck_assert_int_eq(soc_check(&p, &err), -1);
  ck_assert_msg(strstr(err.msg, "power_core_leak") != NULL, "%s", err.msg);
}
END_TEST

START_TEST(test_soc_engines_and_checks)
{
  struct soc_params p = test_soc();
  struct accel a;
  memset(&a, 0x5a, sizeof a);
  ck_assert_int_eq(soc_has_crypto_engine(&p), 0);
  ck_assert_int_eq(soc_crypto_engine_init(&p, &a), -1);
  ck_assert_int_eq(soc_parity_engine_init(&p, &a), -1);
  p.crypto_engine_rate_bytes_per_s = 5e8;
  p.crypto_engine_setup_s = 1e-5;
  ck_assert_int_eq(soc_crypto_engine_init(&p, &a), 0);
  /* 1 MB at 500 MB/s plus 10 us setup. */
  ck_assert_double_eq_tol(accel_submit(&a, 0.0, 1e6), 2.01e-3, 1e-12);
  ck_assert_int_eq(a.queues, 1); /* the catalogue's default */
  p.crypto_engine_queues = 2;
  ck_assert_int_eq(soc_crypto_engine_init(&p, &a), 0);
  ck_assert_int_eq(a.queues, 2);
  struct nw_err err = {0};
  p.irq_core = 4;
  ck_assert_int_eq(soc_check(&p, &err), -1);
  ck_assert_msg(strstr(err.msg, "irq_core 4") && strstr(err.msg, "-1 and 3"), "%s", err.msg);
  p.irq_core = -1;
  ck_assert_int_eq(soc_check(&p, &err), 0);
  /* counts are whole: the loader refuses 2.5 at the value's line (test_hostile) */
  ck_assert(params_find(soc_param_table, soc_param_count, "cores")->whole);
  ck_assert(params_find(soc_param_table, soc_param_count, "irq_core")->whole);
}
END_TEST

/* The crypto engine as eCryptfs drives it: a synchronous page-by-page
 * submitter pays the setup per page on one queue; jobs queued together
 * spread over every queue; utilization is the busiest queue's. */
START_TEST(test_accel_queues)
{
  struct accel a;
  accel_init(&a, "aes", 4096.0 / 10e-6, 10e-6); /* a page's data time = its setup */
  accel_set_queues(&a, 4);
  /* 8 pages one after another: 8 x (setup + data) on queue 1 alone */
  ck_assert_double_eq_tol(accel_submit_chain(&a, 1, 0.0, 8 * 4096.0, 4096.0), 8 * 20e-6, 1e-15);
  ck_assert_double_eq(a.busy_until_s[0], 0.0);
  ck_assert_double_eq_tol(accel_utilization(&a, 160e-6), 1.0, 1e-12);
  ck_assert_uint_eq(a.jobs, 8);
  /* 8 pages queued together at 160 us: 2 pages' data per queue, one setup each */
  ck_assert_double_eq_tol(accel_submit_spread(&a, 160e-6, 8 * 4096.0), 160e-6 + 30e-6, 1e-15);
  ck_assert_uint_eq(a.jobs, 12);
  /* one queue: a spread is one submission, as accel_submit */
  struct accel b;
  accel_init(&b, "aes", 1e9, 1e-6);
  accel_set_queues(&b, 0); /* clamped to 1 */
  ck_assert_int_eq(b.queues, 1);
  ck_assert_double_eq_tol(accel_submit_spread(&b, 0.0, 1e6), 1e-6 + 1e-3, 1e-15);
  ck_assert_double_eq_tol(accel_submit(&b, 0.0, 1e6), 2e-6 + 2e-3, 1e-15);
  ck_assert_double_eq_tol(accel_utilization(&b, 1e-3), 1.0, 1e-12); /* backlog not counted */
}
END_TEST

/* ---------------------------------------------------------------- proto */

/* The packet part of the cost scales with the frame count, i.e. ~1/MSS:
 * an 8 MiB SMB write at MTU 1500 has ceil((8 MiB + 116) / 1460) = 5746
 * data segments, 2873 ACKs and 1 response = 8620 packets; at MTU 9000
 * 937 + 469 + 1 = 1407.  Ratio 6.126 vs 8960 / 1460 = 6.137. */
START_TEST(test_proto_packets_mtu)
{
  struct proto_params p = test_proto(PROTO_SMB);
  p.gro = 0;
  struct proto_cycles c1500, c9000;
  double bytes = 8388608.0;
  proto_request_cost(&p, 1, bytes, 1500, 0, &c1500);
  proto_request_cost(&p, 1, bytes, 9000, 0, &c9000);
  ck_assert_double_eq(c1500.rx_packets, 5746.0);
  ck_assert_double_eq(c1500.tx_packets, 2874.0);
  ck_assert_double_eq(c9000.rx_packets + c9000.tx_packets, 1407.0);
  double pk1500 = c1500.tx_packet_cycles + c1500.rx_packet_cycles;
  double pk9000 = c9000.tx_packet_cycles + c9000.rx_packet_cycles;
  double ratio = pk1500 / pk9000, mss_ratio = 8960.0 / 1460.0;
  ck_assert_msg(fabs(ratio / mss_ratio - 1.0) < 0.01, "packet cycles ratio %.4f vs 1/MSS %.4f",
                ratio, mss_ratio);
  /* Per-request and per-byte parts do not depend on the MTU. */
  ck_assert_double_eq(c1500.request_cycles, c9000.request_cycles);
  ck_assert_double_eq(c1500.byte_cycles, 2.0 * bytes);
  ck_assert_msg(c1500.total_cycles > c9000.total_cycles, "1500: %g, 9000: %g",
                c1500.total_cycles, c9000.total_cycles);
  ck_assert_double_eq(proto_request_cycles(&p, 1, bytes, 1500, 0), c1500.total_cycles);
  /* The wire bytes match the framing module. */
  ck_assert_double_eq(c1500.wire_bytes_to_nas, net_wire_bytes(bytes + 116.0, 1500, 0));
  /* Reads: TSO hands 64 KiB super-segments to the NIC, fewer tx packets. */
  struct proto_cycles rd, rd_notso;
  proto_request_cost(&p, 0, bytes, 1500, 0, &rd);
  p.tso = 0;
  proto_request_cost(&p, 0, bytes, 1500, 0, &rd_notso);
  ck_assert_double_eq(rd.tx_packets, ceil((bytes + 116.0) / 65536.0));
  ck_assert_double_eq(rd_notso.tx_packets, 5746.0);
  ck_assert_double_eq(rd.csum_cycles, 0.0);
  p.checksum_offload = 0;
  proto_request_cost(&p, 0, bytes, 1500, 0, &rd_notso);
  ck_assert_double_eq(rd_notso.csum_cycles, 1.0 * (bytes + 116.0 + 116.0));
}
END_TEST

/* smbd's synchronous file calls: a request below Samba's aio size of its
 * direction pays sync_call_cycles, one at or above it does not; 0B makes
 * every call synchronous, the default 1B none; other protocols never. */
START_TEST(test_proto_smb_sync_call)
{
  struct proto_params p = test_proto(PROTO_SMB);
  p.costs.sync_call_cycles = 1e5;
  double rd4 = proto_request_cycles(&p, 0, 4096, 1500, 0), wr4 = proto_request_cycles(&p, 1, 4096, 1500, 0);
  double rd128 = proto_request_cycles(&p, 0, 131072, 1500, 0);
  p.smb_aio_read_size_bytes = 16384;
  p.smb_aio_write_size_bytes = 16384;
  ck_assert_double_eq_tol(proto_request_cycles(&p, 0, 4096, 1500, 0) - rd4, 1e5, 1e-6);
  ck_assert_double_eq_tol(proto_request_cycles(&p, 1, 4096, 1500, 0) - wr4, 1e5, 1e-6);
  ck_assert_double_eq(proto_request_cycles(&p, 0, 131072, 1500, 0), rd128);
  struct proto_params q = p; /* a read of exactly the threshold is asynchronous */
  q.smb_aio_read_size_bytes = 1;
  ck_assert_double_eq(proto_request_cycles(&p, 0, 16384, 1500, 0), proto_request_cycles(&q, 0, 16384, 1500, 0));
  struct proto_cycles c;
  proto_request_cost(&p, 1, 4096, 1500, 0, &c);
  ck_assert_double_eq_tol(c.request_cycles, 2e4 + 1e5, 1e-6);
  struct proto_params z = p; /* a request without data (CREATE, CLOSE) is no call */
  z.costs.sync_call_cycles = 0;
  ck_assert_double_eq(proto_request_cycles(&p, 0, 0, 1500, 0), proto_request_cycles(&z, 0, 0, 1500, 0));
  p.smb_aio_write_size_bytes = 0; /* no aio: every write is smbd's own pwrite() */
  proto_request_cost(&p, 1, 1048576, 1500, 0, &c);
  ck_assert_double_eq_tol(c.request_cycles, 2e4 + 1e5, 1e-6);
  p.smb_aio_read_size_bytes = 16384; /* reads: still by the read threshold */
  proto_request_cost(&p, 0, 1048576, 1500, 0, &c);
  ck_assert_double_eq_tol(c.request_cycles, 2e4, 1e-6);
  struct proto_params n = test_proto(PROTO_NFS);
  n.costs.sync_call_cycles = 1e5;
  n.smb_aio_read_size_bytes = 0;
  n.smb_aio_write_size_bytes = 0;
  proto_request_cost(&n, 1, 4096, 1500, 0, &c);
  ck_assert_double_eq_tol(c.request_cycles, 2e4, 1e-6);
}
END_TEST

START_TEST(test_proto_lun)
{
  struct proto_params p = test_proto(PROTO_ISCSI);
  double block = proto_request_cycles(&p, 0, 4096, 1500, 0);
  p.iscsi_lun = PROTO_LUN_FILE;
  double file = proto_request_cycles(&p, 0, 4096, 1500, 0);
  p.iscsi_lun = PROTO_LUN_THIN;
  double thin = proto_request_cycles(&p, 1, 4096, 1500, 0);
  double thin_rd = proto_request_cycles(&p, 0, 4096, 1500, 0);
  ck_assert_msg(file > block, "file LUN %g <= block LUN %g", file, block);
  ck_assert_double_eq_tol(file - block, 3e4, 1e-6);
  ck_assert_double_eq_tol(thin_rd - block, 4e4, 1e-6);
  ck_assert_double_eq(proto_lun_extra_cycles(&p, 1), 4e4);
  ck_assert_msg(thin > block, "thin %g", thin);
  /* iSCSI data PDUs: 256 KiB read with 64 KiB segments = 4 Data-In headers. */
  struct proto_cycles c;
  p.iscsi_lun = PROTO_LUN_BLOCK;
  proto_request_cost(&p, 0, 262144, 9000, 0, &c);
  ck_assert_double_eq(c.wire_bytes_from_nas, net_wire_bytes(262144 + 4 * 48, 9000, 0));
  /* The LUN extras only apply to iSCSI. */
  struct proto_params s = test_proto(PROTO_SMB);
  s.iscsi_lun = PROTO_LUN_FILE;
  ck_assert_double_eq(proto_lun_extra_cycles(&s, 0), 0.0);
  /* local: the NAS is not involved. */
  struct proto_params l = test_proto(PROTO_LOCAL);
  ck_assert_double_eq(proto_request_cycles(&l, 1, 1e6, 1500, 0), 0.0);
  /* Work conservation: a 4 KiB block-LUN read on one core of the test SoC. */
  struct soc_params soc = test_soc();
  double t = soc_cycles_to_s(&soc, block);
  ck_assert_double_eq_tol(t * soc_effective_speed_cycles_per_s(&soc), block, 1e-6);
}
END_TEST

/* The TCP-layer share of received segments: the write data's segments
 * (not ACKs, not the response) times tcp_rx_share times the per-packet
 * cost; it is part of rx_packet_cycles, never extra. */
START_TEST(test_proto_rx_tcp_share)
{
  struct proto_params p = test_proto(PROTO_ISCSI);
  p.gro = 0;
  p.costs.tcp_rx_share = 0.4;
  struct proto_cycles w, r;
  proto_request_cost(&p, 1, 1048576, 9000, 0, &w);
  double frames = net_frames(1048576 + 48 * (1048576 / 8192) + 48, 9000, 0);
  ck_assert_double_eq_tol(w.rx_msg_tcp_cycles, 0.4 * 5e3 * frames, 1e-6);
  ck_assert_double_eq_tol(w.rx_packet_cycles, 5e3 * frames, 1e-6);
  ck_assert_msg(w.rx_msg_tcp_cycles < w.rx_packet_cycles, "TCP share %g >= all receive %g",
                w.rx_msg_tcp_cycles, w.rx_packet_cycles);
  /* A read receives the command (one segment) and ACKs: only the command counts. */
  proto_request_cost(&p, 0, 1048576, 9000, 0, &r);
  ck_assert_double_eq_tol(r.rx_msg_tcp_cycles, 0.4 * 5e3, 1e-6);
  ck_assert_msg(r.rx_packet_cycles > r.rx_msg_tcp_cycles, "read: ACKs %g", r.rx_packet_cycles);
  /* The total does not change with the share: it only says where work runs. */
  double total = w.total_cycles;
  p.costs.tcp_rx_share = 0.0;
  proto_request_cost(&p, 1, 1048576, 9000, 0, &w);
  ck_assert_double_eq(w.rx_msg_tcp_cycles, 0.0);
  ck_assert_double_eq_tol(w.total_cycles, total, 1e-6);
}
END_TEST

/* GRO: a write's received data reaches IP/TCP in 64 KiB aggregates, each
 * ACKed; the driver still handles every frame.  Receive work per MiB
 * written drops, more at MTU 1500 (more frames per aggregate) than at
 * 9000, and reads (received ACKs and commands) do not change. */
START_TEST(test_proto_gro)
{
  struct proto_params p = test_proto(PROTO_SMB);
  p.costs.tcp_rx_share = 0.5;
  double bytes = 1048576.0, msg = bytes + 116.0, aggs = ceil(msg / 65536.0);
  double saved[2];
  const double mtus[2] = {1500, 9000};
  for (int i = 0; i < 2; i++) {
    struct proto_cycles on, off, rd_on, rd_off;
    p.gro = 1;
    proto_request_cost(&p, 1, bytes, mtus[i], 0, &on);
    proto_request_cost(&p, 0, bytes, mtus[i], 0, &rd_on);
    p.gro = 0;
    proto_request_cost(&p, 1, bytes, mtus[i], 0, &off);
    proto_request_cost(&p, 0, bytes, mtus[i], 0, &rd_off);
    double frames = net_frames(msg, mtus[i], 0);
    ck_assert_double_eq(on.rx_packets, frames);
    ck_assert_double_eq(on.tx_packets, 1.0 + aggs);
    ck_assert_double_eq(off.tx_packets, 1.0 + ceil(frames / 2.0));
    ck_assert_double_eq_tol(on.rx_msg_tcp_cycles, 0.5 * 5e3 * aggs, 1e-6);
    ck_assert_double_eq_tol(on.rx_packet_cycles, 5e3 * (0.5 * frames + 0.5 * aggs), 1e-6);
    ck_assert_double_eq_tol(off.rx_packet_cycles, 5e3 * frames, 1e-6);
    ck_assert_double_eq(rd_on.total_cycles, rd_off.total_cycles);
    double work_on = on.rx_packet_cycles + on.tx_packet_cycles;
    double work_off = off.rx_packet_cycles + off.tx_packet_cycles;
    ck_assert_msg(work_on < work_off, "MTU %g: GRO %g vs %g cycles/MiB", mtus[i], work_on, work_off);
    saved[i] = work_off - work_on;
  }
  ck_assert_msg(saved[0] > saved[1], "saved 1500 %g <= 9000 %g", saved[0], saved[1]);
}
END_TEST

/* SMB streams a message's data in stream_segment pieces (64 KiB: the
 * GSO/GRO size); the others, and stream_segment 0, move whole messages. */
START_TEST(test_proto_stream_segments)
{
  struct proto_params p = test_proto(PROTO_SMB);
  p.stream_segment_bytes = 65536;
  ck_assert_uint_eq(proto_stream_segments(&p, 0, 1048576), 16);
  ck_assert_uint_eq(proto_stream_segments(&p, 1, 1048576), 16);
  ck_assert_uint_eq(proto_stream_segments(&p, 0, 1048577), 17);
  ck_assert_uint_eq(proto_stream_segments(&p, 0, 65536), 1);
  ck_assert_uint_eq(proto_stream_segments(&p, 1, 4096), 1);
  p.stream_segment_bytes = 0;
  ck_assert_uint_eq(proto_stream_segments(&p, 0, 1048576), 1);
  enum proto_kind whole[] = {PROTO_NFS, PROTO_LOCAL};
  for (int i = 0; i < 2; i++) {
    p = test_proto(whole[i]);
    p.stream_segment_bytes = 65536;
    ck_assert_uint_eq(proto_stream_segments(&p, 0, 1048576), 1);
    ck_assert_uint_eq(proto_stream_segments(&p, 1, 1048576), 1);
  }
  /* LIO: iscsi_trx takes a write's Data-Out PDUs as they arrive; the
   * Data-In of a read leave as one message */
  p = test_proto(PROTO_ISCSI);
  p.stream_segment_bytes = 65536;
  ck_assert_uint_eq(proto_stream_segments(&p, 1, 1048576), 16);
  ck_assert_uint_eq(proto_stream_segments(&p, 0, 1048576), 1);
}
END_TEST

START_TEST(test_proto_split_outstanding)
{
  double chunk;
  struct proto_params p = test_proto(PROTO_SMB);
  ck_assert_uint_eq(proto_split(&p, 0, 4194304, &chunk), 4);
  ck_assert_double_eq(chunk, 1048576.0);
  ck_assert_uint_eq(proto_split(&p, 0, 4096, &chunk), 1);
  ck_assert_double_eq(chunk, 4096.0);
  ck_assert_uint_eq(proto_split(&p, 1, 1048577, &chunk), 2);
  /* 8192 credits, 1 MiB requests cost 16 credits each: 512 outstanding. */
  ck_assert_int_eq(proto_max_outstanding(&p, 1048576), 512);
  ck_assert_int_eq(proto_max_outstanding(&p, 4096), 8192);
  p = test_proto(PROTO_NFS);
  p.nfs_rsize_bytes = 32768;
  p.nfs_wsize_bytes = 65536;
  ck_assert_uint_eq(proto_split(&p, 0, 131072, &chunk), 4);
  ck_assert_uint_eq(proto_split(&p, 1, 131072, &chunk), 2);
  ck_assert_int_eq(proto_max_outstanding(&p, 4096), 8);
  p = test_proto(PROTO_ISCSI);
  ck_assert_uint_eq(proto_split(&p, 1, 1048576, &chunk), 4);
  ck_assert_double_eq(chunk, 262144.0);
  ck_assert_int_eq(proto_max_outstanding(&p, 4096), 64); /* default: LIO's default_cmdsn_depth */
  p.iscsi_cmdsn_depth = 0;
  ck_assert_int_eq(proto_max_outstanding(&p, 4096), PROTO_UNBOUNDED); /* 0: no window */
  p = test_proto(PROTO_LOCAL);
  ck_assert_uint_eq(proto_split(&p, 1, 8388608, &chunk), 1);
  ck_assert_int_eq(proto_max_outstanding(&p, 4096), PROTO_UNBOUNDED);
  /* File opens: SMB and NFS pay, iSCSI and local do not. */
  p = test_proto(PROTO_SMB);
  ck_assert_double_eq(proto_open_cycles(&p), p.costs.cycles_per_open);
  p = test_proto(PROTO_ISCSI);
  ck_assert_double_eq(proto_open_cycles(&p), 0.0);
  /* knfsd max block size: 4 GiB -> 1 MiB, 512 MiB -> 128 KiB, 32 MiB -> 8 KiB. */
  ck_assert_double_eq(nfs_server_max_blksize_bytes(4294967296.0), 1048576.0);
  ck_assert_double_eq(nfs_server_max_blksize_bytes(536870912.0), 131072.0);
  ck_assert_double_eq(nfs_server_max_blksize_bytes(33554432.0), 8192.0);
}
END_TEST

START_TEST(test_proto_tables)
{
  struct proto_params p;
  params_defaults(proto_param_table, proto_param_count, &p);
  struct nw_err err = {0};
  ck_assert_int_eq(proto_check(&p, &err), 0);
  for (size_t i = 0; i < proto_param_count; i++) {
    const struct param_desc *d = &proto_param_table[i];
    double v = *(const double *)((const char *)&p + d->offset);
    ck_assert_msg(v >= d->min && v <= d->max, "%s default %g outside [%g, %g]", d->key, v, d->min,
                  d->max);
    for (size_t j = i + 1; j < proto_param_count; j++)
      ck_assert_msg(strcmp(d->key, proto_param_table[j].key) != 0, "duplicate %s", d->key);
  }
  /* Every cost key is in the scenario table, at the nested offset. */
  for (size_t i = 0; i < proto_cost_count; i++) {
    const struct param_desc *d = params_find(proto_param_table, proto_param_count,
                                             proto_cost_table[i].key);
    ck_assert_msg(d != NULL, "%s missing", proto_cost_table[i].key);
    ck_assert_uint_eq(d->offset, offsetof(struct proto_params, costs) + proto_cost_table[i].offset);
  }
  p.tso = 1;
  p.checksum_offload = 0;
  ck_assert_int_eq(proto_check(&p, &err), -1);
  ck_assert_msg(strstr(err.msg, "checksum_offload"), "%s", err.msg);
  p.checksum_offload = 1;
  ck_assert(params_find(proto_param_table, proto_param_count, "nfs_threads")->whole);
  ck_assert(params_find(proto_param_table, proto_param_count, "open_requests")->whole);
  ck_assert(!params_find(proto_param_table, proto_param_count, "cycles_per_request")->whole);
}
END_TEST

/* ---------------------------------------------------------------- catalogues */

static yaml_node_t *cat_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
  if (!map || map->type != YAML_MAPPING_NODE)
    return NULL;
  for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
       pr++) {
    yaml_node_t *k = yaml_document_get_node(doc, pr->key);
    if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
      return yaml_document_get_node(doc, pr->value);
  }
  return NULL;
}

static const char *cat_scalar(yaml_node_t *n)
{
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static double cat_value(const struct param_desc *d, const char *text, const char *where)
{
  double v = NAN;
  if (d->choices) {
    for (int i = 0; d->choices[i]; i++)
      if (strcmp(d->choices[i], text) == 0)
        v = i;
    ck_assert_msg(!isnan(v), "%s: '%s' is not a choice", where, text);
    return v;
  }
  char msg[256] = "";
  ck_assert_msg(units_parse(text, d->dim, &v, msg, sizeof msg) == 0, "%s: %s", where, msg);
  ck_assert_msg(v >= d->min && v <= d->max, "%s: %s outside the table range [%g, %g]", where, text,
                d->min, d->max);
  return v;
}

/* Check every entry of a catalogue against its table; fill each entry's
 * params struct (defaults + values) and run `check` on it.  Returns the
 * number of entries. */
static int cat_check_file(const char *file, const char *section, const struct param_desc *table,
                          size_t n, size_t size, int (*check)(const void *, struct nw_err *))
{
  char path[1024];
  const char *dir = getenv("NASTWIN_SOURCE_DIR");
  snprintf(path, sizeof path, "%s/catalog/%s", dir ? dir : NASTWIN_SOURCE_DIR, file);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  yaml_parser_t parser;
  yaml_document_t doc;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_file(&parser, f);
  ck_assert_msg(yaml_parser_load(&parser, &doc), "%s: YAML error %s", path,
                parser.problem ? parser.problem : "");
  yaml_node_t *sec = cat_get(&doc, yaml_document_get_root_node(&doc), section);
  ck_assert_msg(sec && sec->type == YAML_MAPPING_NODE, "%s: no section %s", path, section);
  int entries = 0;
  double *vals = calloc(1, size);
  for (yaml_node_pair_t *e = sec->data.mapping.pairs.start; e < sec->data.mapping.pairs.top; e++) {
    const char *name = cat_scalar(yaml_document_get_node(&doc, e->key));
    yaml_node_t *params = cat_get(&doc, yaml_document_get_node(&doc, e->value), "params");
    ck_assert_msg(params && params->type == YAML_MAPPING_NODE, "%s: %s has no params", file, name);
    params_defaults(table, n, vals);
    for (yaml_node_pair_t *pr = params->data.mapping.pairs.start;
         pr < params->data.mapping.pairs.top; pr++) {
      const char *key = cat_scalar(yaml_document_get_node(&doc, pr->key));
      char where[256];
      snprintf(where, sizeof where, "%s: %s.%s", file, name, key);
      const struct param_desc *d = params_find(table, n, key);
      ck_assert_msg(d != NULL, "%s: unknown key", where);
      yaml_node_t *spec = yaml_document_get_node(&doc, pr->value);
      const char *value = cat_scalar(cat_get(&doc, spec, "value"));
      ck_assert_msg(value != NULL, "%s: no value", where);
      ck_assert_msg(cat_scalar(cat_get(&doc, spec, "source")) != NULL, "%s: no source", where);
      double v = cat_value(d, value, where);
      *(double *)((char *)vals + d->offset) = v;
      yaml_node_t *fit = cat_get(&doc, spec, "fit");
      if (fit) {
        ck_assert_msg(fit->type == YAML_SEQUENCE_NODE &&
                          fit->data.sequence.items.top - fit->data.sequence.items.start == 2,
                      "%s: fit must be [lo, hi]", where);
        double lo = cat_value(d, cat_scalar(yaml_document_get_node(&doc, fit->data.sequence.items.start[0])), where);
        double hi = cat_value(d, cat_scalar(yaml_document_get_node(&doc, fit->data.sequence.items.start[1])), where);
        ck_assert_msg(lo <= v && v <= hi, "%s: value %s outside fit [%g, %g]", where, value, lo, hi);
      }
    }
    for (size_t i = 0; i < n; i++)
      ck_assert_msg(table[i].optional || params_find(table, n, table[i].key) == NULL ||
                        cat_get(&doc, params, table[i].key) != NULL,
                    "%s: %s lacks required key %s", file, name, table[i].key);
    if (check) {
      struct nw_err err = {0};
      ck_assert_msg(check(vals, &err) == 0, "%s: %s: %s", file, name, err.msg);
    }
    entries++;
  }
  free(vals);
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  fclose(f);
  return entries;
}

static int test_soc_check_cb(const void *p, struct nw_err *err)
{
  return soc_check(p, err);
}

START_TEST(test_catalog_socs)
{
  int n = cat_check_file("socs.yaml", "socs", soc_param_table, soc_param_count,
                         sizeof(struct soc_params), test_soc_check_cb);
  ck_assert_int_eq(n, 5);
}
END_TEST

/* WebDAV: one HTTP request per object (never split), HTTP headers on
 * both messages, the pool's workers as the outstanding cap, and with
 * http_api s3 the SigV4 verification on top of the request's cycles. */
START_TEST(test_proto_webdav)
{
  struct proto_params p = test_proto(PROTO_WEBDAV);
  p.webdav_threads = 25;
  double chunk;
  ck_assert_uint_eq(proto_split(&p, 1, 8388608.0, &chunk), 1);
  ck_assert_double_eq(chunk, 8388608.0);
  ck_assert_int_eq(proto_max_outstanding(&p, 65536), 25);
  ck_assert_int_eq(proto_ops_of(&p)->pool_threads(&p), 25);
  ck_assert(proto_ops_of(&p)->shape == PROTO_SHAPE_POOL && proto_ops_of(&p)->opens_files);
  struct proto_cycles dav, nfs, s3;
  proto_request_cost(&p, 1, 65536, 9000, 0, &dav);
  struct proto_params n = test_proto(PROTO_NFS);
  proto_request_cost(&n, 1, 65536, 9000, 0, &nfs);
  /* the same payload, 400 B of HTTP headers instead of NFS's 148 per message */
  ck_assert_double_eq_tol(dav.wire_bytes_to_nas - nfs.wire_bytes_to_nas,
                          PROTO_HTTP_HEADER_BYTES - PROTO_NFS_HEADER_BYTES, 1e-9);
  ck_assert_double_eq(dav.request_cycles, p.costs.cycles_per_request);
  p.costs.sign_cycles_per_request = 3e4;
  p.costs.sign_cycles_per_byte = 15;
  proto_request_cost(&p, 1, 65536, 9000, 0, &s3);
  ck_assert_double_eq(s3.total_cycles, dav.total_cycles); /* http_api webdav: no signing */
  p.http_api = PROTO_HTTP_S3;
  proto_request_cost(&p, 1, 65536, 9000, 0, &s3);
  ck_assert_double_eq_tol(s3.request_cycles - dav.request_cycles, 3e4 + 15 * 65536.0, 1e-6);
  ck_assert_double_eq_tol(s3.total_cycles - dav.total_cycles, 3e4 + 15 * 65536.0, 1e-6);
}
END_TEST

START_TEST(test_catalog_protocols)
{
  /* The loader fills an entry's params with the whole protocol table
   * (costs and switches such as smb_aio_read). */
  int n = cat_check_file("protocols.yaml", "protocols", proto_param_table, proto_param_count,
                         sizeof(struct proto_params), NULL);
  /* One entry per kind, local included (the loader has no special case). */
  int kinds = 0;
  while (proto_kind_names[kinds])
    kinds++;
  ck_assert_int_eq(kinds, 5);
  ck_assert_int_eq(n, kinds);
}
END_TEST

/* Working-set refill: nothing while the working sets of the processes
 * that ran since this one (and its own) fit in the L2; beyond, the share
 * of a process's lines still cached is L2 / (sharing * working set), the
 * rest refilled at cache_refill_rate. */
START_TEST(test_soc_cache_refill)
{
  struct soc_params p = test_soc();
  double ws_bytes = 256.0 * 1024;
  ck_assert_double_eq(soc_cache_refill_s(&p, ws_bytes, 64), 0.0); /* l2_cache 0: not modelled */
  p.l2_cache_bytes = 1024.0 * 1024;
  test_refill_at(&p, 1e9);
  ck_assert_double_eq(soc_cache_refill_s(&p, 0.0, 64), 0.0);      /* no working set */
  ck_assert_double_eq(soc_cache_refill_s(&p, ws_bytes, 1), 0.0);
  ck_assert_double_eq(soc_cache_refill_s(&p, ws_bytes, 4), 0.0);  /* 4 x 256 KiB = 1 MiB fits */
  double r8 = soc_cache_refill_s(&p, ws_bytes, 8);                /* half its lines survive */
  ck_assert_msg(fabs(r8 - 0.5 * ws_bytes / 1e9) < 1e-12, "8 sharing: refill %g s, expected %g s", r8,
                0.5 * ws_bytes / 1e9);
  double r16 = soc_cache_refill_s(&p, ws_bytes, 16);
  ck_assert_msg(fabs(r16 - 0.75 * ws_bytes / 1e9) < 1e-12, "16 sharing: refill %g s", r16);
  /* a larger cache holds more processes' working sets */
  p.l2_cache_bytes = 2048.0 * 1024;
  ck_assert_double_eq(soc_cache_refill_s(&p, ws_bytes, 8), 0.0);
  ck_assert_msg(soc_cache_refill_s(&p, ws_bytes, 16) < r16, "a 2 MiB L2 refills no less than 1 MiB");
}
END_TEST

/* The kernel-path stall: a work item refills what the items since its
 * path last ran evicted (each touching kernel_working_set of its own):
 * nothing while they all fit in L2, then the evicted share; the same
 * item on a core with a larger L2 stalls less. */
START_TEST(test_soc_kernel_stall)
{
  struct soc_params p = test_soc();
  p.l2_cache_bytes = 256.0 * 1024;
  test_refill_at(&p, 3e8);
  ck_assert_double_eq(soc_kernel_stall_s(&p, 10), 0.0); /* kernel_working_set 0: not modelled */
  p.kernel_working_set_bytes = 64.0 * 1024;
  ck_assert_double_eq(soc_kernel_stall_s(&p, 0), 0.0); /* its own lines are still there */
  ck_assert_double_eq(soc_kernel_stall_s(&p, 3), 0.0); /* 4 x 64 KiB = the L2 */
  double s7 = soc_kernel_stall_s(&p, 7);                /* 8 x 64 KiB: half survives */
  ck_assert_msg(fabs(s7 - 0.5 * 65536 / 3e8) < 1e-12, "7 items since: %g s", s7);
  double s_far = soc_kernel_stall_s(&p, 1e9);           /* never ran: all of it */
  ck_assert_msg(s_far > s7 && s_far <= 65536 / 3e8 * (1 + 1e-9), "long ago: %g s", s_far);
  p.l2_cache_bytes = 1024.0 * 1024;
  ck_assert_double_eq(soc_kernel_stall_s(&p, 7), 0.0); /* a 1 MiB L2 holds all eight */
}
END_TEST

/* The Armada 370's memory system (catalog/socs.yaml): 256 KiB 4-way
 * Aurora L2 with 32 B lines behind a 16-bit DDR3-1333 bus at ~110 ns. */
static struct soc_params test_armada(void)
{
  struct soc_params p = test_soc();
  p.cores = 1;
  p.clock_hz = 1.2e9;
  p.l2_cache_bytes = 256.0 * 1024;
  p.l2_ways = 4;
  p.cache_line_bytes = 32;
  p.dram_latency_s = 110e-9;
  p.dram_bus_bits = 16;
  p.dram_transfer_rate = 1.333e9;
  p.mem_bandwidth_bytes_per_s = 0; /* from the DRAM figures */
  p.dram_efficiency = 0.7;
  p.kernel_working_set_bytes = 64.0 * 1024;
  return p;
}

/* The refill rate from the memory system: one 32 B line per (latency +
 * burst over the 16-bit bus), ~0.26 GB/s, not a fitted figure; a 64 B
 * line over a 64-bit bus moves more per miss; many misses in flight end
 * at the sustained bandwidth, which is dram_efficiency x the bus's peak
 * and is also the copy bandwidth (mem_bandwidth): one set of memory
 * figures gives both. */
/* soc_check refuses w, naming every word of `words` (NULL-terminated). */
static void soc_refuses(const struct soc_params *w, const char *const *words)
{
  struct nw_err err = {0};
  ck_assert_int_eq(soc_check(w, &err), -1);
  for (int k = 0; words[k]; k++)
    ck_assert_msg(strstr(err.msg, words[k]) != NULL, "%s", err.msg);
}

START_TEST(test_soc_refill_rate_from_dram)
{
  struct soc_params p = test_armada();
  double line_s = 110e-9 + 32.0 / (2.0 * 1.333e9); /* 12 ns burst: 16 beats of 2 B */
  ck_assert_msg(fabs(soc_cache_refill_rate(&p) - 32.0 / line_s) < 1.0, "%g B/s", soc_cache_refill_rate(&p));
  ck_assert_msg(soc_cache_refill_rate(&p) > 2.6e8 && soc_cache_refill_rate(&p) < 2.7e8, "Armada 370: %g B/s",
                soc_cache_refill_rate(&p));
  ck_assert_double_eq(soc_mem_bandwidth(&p), 0.7 * 2.0 * 1.333e9);
  ck_assert_double_eq_tol(soc_mem_copy_s(&p, 1e9), 2e9 / (0.7 * 2.666e9), 1e-12);
  struct soc_params w = p;
  w.cache_line_bytes = 64;
  w.dram_bus_bits = 64;
  ck_assert_msg(soc_cache_refill_rate(&w) > 1.9 * soc_cache_refill_rate(&p), "64 B lines, 64-bit bus: %g B/s",
                soc_cache_refill_rate(&w));
  ck_assert_double_eq(soc_mem_bandwidth(&w), 4.0 * soc_mem_bandwidth(&p)); /* four times the bus */
  w = p;
  w.misses_in_flight = 16;
  ck_assert_double_eq(soc_cache_refill_rate(&w), soc_mem_bandwidth(&p)); /* the sustained bandwidth */
  w.dram_efficiency = 0.5;
  ck_assert_double_eq(soc_cache_refill_rate(&w), 0.5 * 2.0 * 1.333e9);
  w = p;
  w.dram_latency_s = 220e-9; /* twice the latency: about half the rate, the copy bandwidth unchanged */
  ck_assert_msg(fabs(soc_cache_refill_rate(&w) / soc_cache_refill_rate(&p) - line_s / (line_s + 110e-9)) < 1e-12,
                "220 ns: %g B/s", soc_cache_refill_rate(&w));
  ck_assert_double_eq(soc_mem_bandwidth(&w), soc_mem_bandwidth(&p));
  w = p;
  w.misses_in_flight = 2;
  ck_assert_double_eq_tol(soc_cache_refill_rate(&w), 2.0 * soc_cache_refill_rate(&p), 1e-3);
  /* An L2 without its line or the DRAM figures, a bandwidth given twice
   * or not at all, or a fractional way count, is refused. */
  struct nw_err err = {0};
  ck_assert_int_eq(soc_check(&p, &err), 0);
  w = p;
  w.dram_latency_s = 0;
  soc_refuses(&w, (const char *[]){"dram_latency", NULL});
  w = p;
  w.cache_line_bytes = 0;
  soc_refuses(&w, (const char *[]){"cache_line", NULL});
  w = p;
  w.mem_bandwidth_bytes_per_s = 1e9;
  soc_refuses(&w, (const char *[]){"mem_bandwidth", "dram_efficiency", NULL});
  w = p;
  w.dram_efficiency = 0;
  soc_refuses(&w, (const char *[]){"not both or neither", NULL});
  ck_assert(params_find(soc_param_table, soc_param_count, "l2_ways")->whole);
}
END_TEST

/* Share of lines in sets beyond their A ways, summed over k ~ Poisson
 * directly (the model sums the complement below A). */
static double test_overflow_share(int ways, double lambda)
{
  double pk = exp(-lambda), sum = 0.0;
  for (int k = 1; k < 400; k++) {
    pk *= lambda / k;
    if (k > ways)
      sum += (k - ways) * pk;
  }
  return sum / lambda;
}

/* Competing kernel paths on the Armada 370: every path (softirq, nfsd,
 * block layer, flusher, md) brings its 64 KiB into the 4-way L2, so the
 * next one refills the lines that landed in overflowing sets: 3 paths
 * (a 4K read) ~27 us per item, 5 (a 4K write behind the flusher) ~72 us,
 * 2 already a little (a fully associative L2 would hold both).  The same
 * work on a 1 MiB 16-way L2 pays almost nothing; alone, nothing. */
START_TEST(test_soc_kernel_stall_paths_share_l2)
{
  struct soc_params p = test_armada();
  double rate = soc_cache_refill_rate(&p), ws = 65536;
  ck_assert_double_eq(soc_kernel_stall_s(&p, 0), 0.0);
  double two = soc_kernel_stall_s(&p, 1), three = soc_kernel_stall_s(&p, 2), five = soc_kernel_stall_s(&p, 4);
  ck_assert_msg(fabs(three - ws * test_overflow_share(4, 3.0) / rate) < 1e-12, "3 paths: %g s", three);
  ck_assert_msg(fabs(five - ws * test_overflow_share(4, 5.0) / rate) < 1e-12, "5 paths: %g s", five);
  ck_assert_msg(three > 20e-6 && three < 35e-6, "3 paths: %g us per item", three * 1e6);
  ck_assert_msg(five > 60e-6 && five < 85e-6, "5 paths: %g us per item", five * 1e6);
  ck_assert_msg(two > 0 && two < three, "2 paths: %g us", two * 1e6);
  struct soc_params fa = p;
  fa.l2_ways = 0;
  ck_assert_double_eq(soc_kernel_stall_s(&fa, 1), 0.0); /* 128 KiB fits a fully associative 256 KiB */
  /* Far beyond the L2 the set model tends to the fully associative share. */
  double far = soc_kernel_stall_s(&p, 1023), far_fa = soc_kernel_stall_s(&fa, 1023);
  ck_assert_msg(fabs(far - far_fa) < 0.01 * far_fa, "1024 paths: %g vs %g s", far, far_fa);
  struct soc_params big = p;
  big.l2_cache_bytes = 1048576;
  big.l2_ways = 16;
  ck_assert_msg(soc_kernel_stall_s(&big, 4) < 1e-3 * five, "1 MiB 16-way: %g s", soc_kernel_stall_s(&big, 4));
  /* Twice the clock does not shorten a stall: the DRAM sets it. */
  struct soc_params fast = p;
  fast.clock_hz = 2.4e9;
  ck_assert_double_eq(soc_kernel_stall_s(&fast, 4), five);
  fast.dram_latency_s = 55e-9;
  ck_assert_msg(soc_kernel_stall_s(&fast, 4) < 0.6 * five, "halved DRAM latency: %g s", soc_kernel_stall_s(&fast, 4));
}
END_TEST

/* A work item's compulsory misses (kernel_cold_bytes: its request's
 * structures, fresh from DMA or another path) cost their refill at the
 * memory system's rate on every item, alone too, on top of what the other
 * paths evicted: 8 KiB on the Armada 370 (~0.26 GB/s) is ~31 us.  A core
 * whose memory system refills faster (64-bit bus, four misses in flight)
 * pays less; the clock changes nothing. */
START_TEST(test_soc_kernel_cold_lines)
{
  struct soc_params p = test_armada();
  double rate = soc_cache_refill_rate(&p), evicted = soc_kernel_stall_s(&p, 2);
  p.kernel_cold_bytes = 8192;
  double alone = soc_kernel_stall_s(&p, 0);
  ck_assert_msg(fabs(alone - 8192 / rate) < 1e-12 && alone > 25e-6 && alone < 40e-6,
                "alone: %g us per item", alone * 1e6);
  ck_assert_msg(fabs(soc_kernel_stall_s(&p, 2) - (evicted + alone)) < 1e-12, "3 paths: %g s, want %g + %g",
                soc_kernel_stall_s(&p, 2), evicted, alone);
  struct soc_params wide = p;
  wide.dram_bus_bits = 64;
  wide.misses_in_flight = 4;
  ck_assert_msg(soc_kernel_stall_s(&wide, 0) < 0.3 * alone, "wide memory: %g us", soc_kernel_stall_s(&wide, 0) * 1e6);
  struct soc_params fast = p;
  fast.clock_hz = 2.4e9;
  ck_assert_double_eq(soc_kernel_stall_s(&fast, 0), alone);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("soc");
  TCase *tc;
  tc = tcase_create("soc");
  tcase_add_test(tc, test_soc_speed);
  tcase_add_test(tc, test_soc_power_follows_silicon);
  tcase_add_test(tc, test_soc_engines_and_checks);
  tcase_add_test(tc, test_accel_queues);
  tcase_add_test(tc, test_soc_cache_refill);
  tcase_add_test(tc, test_soc_refill_rate_from_dram);
  tcase_add_test(tc, test_soc_kernel_stall_paths_share_l2);
  tcase_add_test(tc, test_soc_kernel_stall);
  tcase_add_test(tc, test_soc_kernel_cold_lines);
  suite_add_tcase(s, tc);
  tc = tcase_create("proto");
  tcase_add_test(tc, test_proto_packets_mtu);
  tcase_add_test(tc, test_proto_gro);
  tcase_add_test(tc, test_proto_lun);
  tcase_add_test(tc, test_proto_smb_sync_call);
  tcase_add_test(tc, test_proto_rx_tcp_share);
  tcase_add_test(tc, test_proto_split_outstanding);
  tcase_add_test(tc, test_proto_stream_segments);
  tcase_add_test(tc, test_proto_tables);
  suite_add_tcase(s, tc);
  tc = tcase_create("catalog");
  tcase_add_test(tc, test_catalog_socs);
  tcase_add_test(tc, test_catalog_protocols);
  tcase_add_test(tc, test_proto_webdav);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
