/* Storage stack at scale: an 8 x 14 TB RAID-6 rebuild must be cheap in
 * events (windows of MiBs), and still exact in simulated time.  Same
 * FIFO fake devices as test_stack.c. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "storage_harness.c.inc"

#define GiB (1024.0 * 1024.0 * 1024.0)

/* ---- tests ------------------------------------------------------------- */

START_TEST(test_big_rebuild_events)
{
  /* 8 x 14 TB RAID-6 rebuild: windows of MiBs keep it to ~10^6 events */
  struct stack_cfg c;
  env_volume(&c, RAID_6, 14000000000000ull);
  struct accel eng;
  c.parity_engine = &eng;
  /* idle rebuild = member / min(speed_limit_max, disks, parity engine,
   * raid5d: one stripe_head per 4 KiB member row on one thread) */
  for (int cpu_bound = 0; cpu_bound < 2; cpu_bound++) {
    c.stripe_cycles = cpu_bound ? 3e4 : 8000;
    c.stripe_dev_cycles = 1500;
    accel_init(&eng, "raid6", 2e9, 0);
    struct env *e = env_new(&c, 8, 1e-3, 250e6);
    struct stack_op_report r = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_REBUILD, .failed_member = 3});
    double rate = fmin(c.volume.speed_limit_max_bytes_per_s, 250e6);
    rate = fmin(rate, 2e9 / 12); /* the engine takes P and Q over the 6 data members per member byte */
    rate = fmin(rate, 4096.0 * e->cpu_hz / (c.stripe_cycles + 8 * c.stripe_dev_cycles));
    double want = 14e12 / rate;
    ck_assert_msg(fabs((r.end_s - r.start_s) / want - 1) < 0.02, "14 TB rebuild %g s, want %g s",
                  r.end_s - r.start_s, want);
    /* the work is counted, not timed (a timed test fails under valgrind;
     * bench/ times it): the replaced member's writes stay ~10^5, not 10^8 */
    uint64_t writes = F(e->dev[3])->writes;
    ck_assert_msg(writes < 1000000, "replaced member: %llu writes for a 14 TB rebuild",
                  (unsigned long long)writes);
    env_free(e);
  }
}
END_TEST

/* A rebuild's simulation work does not grow with member capacity: md's
 * windows are sized by the throttle and the pass (STK_OP_WINDOWS_PER_PASS
 * of them), so 8 x 4 TB and 8 x 14 TB RAID-6 rebuilds cost the same count
 * of device requests within 1.3x (the work is counted, not timed), while
 * the simulated duration scales with the capacity. */
START_TEST(test_rebuild_work_flat_in_capacity)
{
  uint64_t reqs[2];
  double dur[2];
  const double cap[2] = {4e12, 14e12};
  for (int k = 0; k < 2; k++) {
    struct stack_cfg c;
    env_volume(&c, RAID_6, (uint64_t)cap[k]);
    c.stripe_cycles = 8000;
    c.stripe_dev_cycles = 1500;
    struct env *e = env_new(&c, 8, 1e-3, 250e6);
    struct stack_op_report r = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_REBUILD, .failed_member = 3});
    ck_assert_msg(r.end_s > r.start_s && !r.stopped && r.progress == 1.0, "rebuild of %g B did not end", cap[k]);
    dur[k] = r.end_s - r.start_s;
    reqs[k] = 0;
    for (int m = 0; m < 8; m++)
      reqs[k] += F(e->dev[m])->reads + F(e->dev[m])->writes;
    env_free(e);
  }
  ck_assert_msg(fabs(dur[1] / dur[0] / (cap[1] / cap[0]) - 1) < 0.02, "4 TB %g s, 14 TB %g s: not in proportion",
                dur[0], dur[1]);
  ck_assert_msg((double)reqs[1] < 1.3 * (double)reqs[0], "4 TB: %llu device requests, 14 TB: %llu",
                (unsigned long long)reqs[0], (unsigned long long)reqs[1]);
}
END_TEST

/* 8 x 14 TB RAID-5 grown 7 -> 8 disks: md moves ~10^7 stripe-cache
 * windows; identical ones are simulated as batches (stk_reshape_batch), so
 * the device requests stay ~10^5 (bench/ times the wall), while the
 * duration is still the sum over md's windows: each reads its old rows then
 * writes its new rows, paced by speed_limit_max, plus the checkpoints. */
START_TEST(test_big_reshape_events)
{
  const double L = 4e-3, R = 250e6;
  struct stack_cfg c;
  env_volume(&c, RAID_5, 14000000000000ull - 14000000000000ull % 65536);
  c.stripe_cycles = 0;
  c.stripe_dev_cycles = 0;
  c.volume.parity_cycles_per_byte = 0;
  struct env *e = env_new(&c, 7, L, R);
  struct stack_op_report r = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_RESHAPE, .new_members = 8});
  ck_assert_msg(r.end_s > 0 && r.progress == 1.0, "reshape did not end (%g)", r.progress);
  /* md's windows one by one: 7 -> 8 is D 6 -> 7, (1 + 7/6) stripe_heads per new row */
  uint64_t M = c.member_bytes, rows = (uint64_t)(c.volume.stripe_cache_entries / (1 + 7.0 / 6.0));
  rows -= rows % 16;
  uint64_t w = rows * 4096, cap = M * 6;
  double want = 0, rate = c.volume.speed_limit_max_bytes_per_s;
  for (uint64_t p = 0; p < M; p += w) {
    uint64_t len = M - p < w ? M - p : w, l0 = p * 7, l1 = (p + len) * 7;
    uint64_t rd = l0 < cap ? (l1 < cap ? l1 : cap) / 6 - l0 / 6 : 0;
    double d = (rd > 0 ? L + (double)rd / R : 0) + L + (double)len / R;
    want += d > (double)len / rate ? d : (double)len / rate;
  }
  want += r.checkpoints * (L + 4096.0 / R + c.volume.superblock_flush_s);
  ck_assert_msg(fabs((r.end_s - r.start_s) / want - 1) < 0.01, "14 TB reshape %g s, md's windows %g s",
                r.end_s - r.start_s, want);
  uint64_t nwin = M / w, ops = F(e->spare[0])->writes;
  /* batches alone leave ~1.4e5 (a lone window after each of ~6e4
   * checkpoints); steady checkpoint periods as spans ~9e3 */
  ck_assert_msg(ops < nwin / 1000, "new member: %llu writes for %llu md windows: not batched",
                (unsigned long long)ops, (unsigned long long)nwin);
  env_free(e);
}
END_TEST

/* Run one op on n members (fast fake disks, no throttle, parity free on
 * the CPU) and return its duration; *raid_cycles = raid5d's cycles. */
static double sr_op_s(enum raid_level level, int n, const struct stack_op_cfg *op, double sc, double sdc,
                      uint64_t member_bytes, double *raid_cycles)
{
  struct stack_cfg c;
  env_volume(&c, level, member_bytes);
  c.stripe_cycles = sc;
  c.stripe_dev_cycles = sdc;
  c.volume.parity_cycles_per_byte = 0;
  c.volume.speed_limit_max_bytes_per_s = 1e12;
  struct env *e = env_new(&c, n, 1e-6, 1e12);
  struct stack_op_report r = env_run_op(e, op);
  ck_assert_msg(r.end_s > 0 && r.progress == 1.0, "op did not end (%g)", r.progress);
  *raid_cycles = e->cpu_cycles[STACK_THREAD_RAID];
  env_free(e);
  return r.end_s - r.start_s;
}

/* md raid5d handles every 4 KiB stripe_head on one thread.  A rebuild is
 * one stripe_head per member row; a reshape (mdadm --grow) one destination
 * stripe_head per new row plus the source stripe_heads of the old rows it
 * consumes: all old rows once, so 2 per member row whatever the disk count
 * (md's reshape_request zero-fills the new rows beyond the old data without
 * source stripes).  When raid5d is the limit the reshape takes twice the
 * rebuild's stripe_heads, at the old geometry's per-device cost, and an
 * expansion step is flat in disk count. */
START_TEST(test_raid5d_bound_ops)
{
  const double hz = 1e9, sc = 3e4, sdc = 1500;
  const uint64_t M = 64ull << 20, rows = M / 4096;
  double cy;
  struct stack_op_cfg rb = {.kind = STACK_OP_REBUILD, .failed_member = 2};
  double t_rb = sr_op_s(RAID_5, 8, &rb, sc, sdc, M, &cy);
  double want_rb = (double)rows * (sc + 8 * sdc) / hz;
  ck_assert_msg(fabs(cy / hz / want_rb - 1) < 1e-9, "rebuild: raid5d %g s of cycles, want %g s",
                cy / hz, want_rb);
  ck_assert_msg(t_rb >= want_rb && t_rb < 1.05 * want_rb, "rebuild %g s, raid5d bound %g s", t_rb,
                want_rb);
  double t_grow[2];
  const int from[2] = {3, 7};
  for (int k = 0; k < 2; k++) {
    struct stack_op_cfg g = {.kind = STACK_OP_RESHAPE, .new_members = from[k] + 1};
    t_grow[k] = sr_op_s(RAID_5, from[k], &g, sc, sdc, M, &cy);
    double want = 2.0 * (double)rows * (sc + from[k] * sdc) / hz;
    ck_assert_msg(fabs(cy / hz / want - 1) < 0.01, "reshape %d->%d: raid5d %g s of cycles, want %g s",
                  from[k], from[k] + 1, cy / hz, want);
    ck_assert_msg(t_grow[k] >= want && t_grow[k] < 1.1 * want,
                  "reshape %d->%d %g s, raid5d bound %g s", from[k], from[k] + 1, t_grow[k], want);
    ck_assert_msg(t_grow[k] > 1.3 * t_rb, "reshape %d->%d %g s not slower than the rebuild %g s",
                  from[k], from[k] + 1, t_grow[k], t_rb);
  }
  /* flat: only the per-device part grows with the disk count */
  ck_assert_msg(t_grow[1] < 1.3 * t_grow[0], "3->4 %g s, 7->8 %g s: not flat", t_grow[0],
                t_grow[1]);
  /* and without raid5d's cost the same disks do it much faster */
  double t0 = sr_op_s(RAID_5, 3, &(struct stack_op_cfg){.kind = STACK_OP_RESHAPE, .new_members = 4}, 0, 0,
                      M, &cy);
  ck_assert_msg(t0 < 0.5 * t_grow[0], "reshape without raid5d cost %g s vs %g s", t0, t_grow[0]);
}
END_TEST

/* Rebuild of member 3 of a 6 x 128 MiB array (HDD-like FIFO members, 5 ms
 * + 150 MB/s) under a closed-loop random 4K read foreground of depth qd
 * for the whole rebuild (0: idle); speed_limit_min 8 MiB/s. */
static double fg_rebuild_s(int level, int qd, struct accel *engine)
{
  struct stack_cfg c;
  env_volume(&c, level, 128ull << 20);
  c.volume.speed_limit_min_bytes_per_s = 8.0 * 1048576;
  c.parity_engine = engine;
  struct env *e = env_new(&c, 6, 5e-3, 150e6);
  e->qd_target = qd;
  e->fg_span_bytes = stack_capacity_bytes(e->s);
  e->fg_until_s = 0.1; /* the foreground runs before the rebuild starts, and all along it */
  for (int i = 0; i < qd; i++)
    env_submit(e, (uint64_t)i * 4096 * 977, 4096, 0, 0);
  env_run(e, 0.1);
  e->now_s = 0.1;
  struct stack_op_report r = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_REBUILD, .failed_member = 3});
  ck_assert_msg(r.end_s > r.start_s && !r.stopped, "rebuild did not finish");
  env_free(e);
  return r.end_s - r.start_s;
}

/* md's throttle (md_do_sync): above speed_limit_min a rebuild sleeps 500 ms
 * whenever the array is not idle (is_mddev_idle: the members did I/O md
 * did not issue for the sync), so it is never shorter under heavier
 * foreground load; idle it runs up to speed_limit_max. */
START_TEST(test_rebuild_vs_foreground_load)
{
  double t0 = fg_rebuild_s(RAID_5, 0, NULL), t1 = fg_rebuild_s(RAID_5, 1, NULL);
  double t4 = fg_rebuild_s(RAID_5, 4, NULL), t16 = fg_rebuild_s(RAID_5, 16, NULL);
  ck_assert_msg(t0 < t1 && t1 <= t4 && t4 <= t16, "rebuild idle %g s, QD1 %g s, QD4 %g s, QD16 %g s", t0, t1, t4, t16);
  /* under load it is held near speed_limit_min (128 MiB at 8 MiB/s: 16 s) */
  ck_assert_msg(t1 > 0.8 * 16.0, "QD1 rebuild %g s, below speed_limit_min's pace", t1);
}
END_TEST

/* md's RAID-6 recovery checks the stripe's P and Q syndromes over all its
 * data (handle_parity_checks6), RAID-5's only P: on one parity engine a
 * RAID-6 rebuild is never faster than RAID-5 on the same drives. */
START_TEST(test_raid6_rebuild_pq)
{
  struct accel eng;
  accel_init(&eng, "xor", 400e6, 0);
  double r5 = fg_rebuild_s(RAID_5, 0, &eng);
  accel_init(&eng, "xor", 400e6, 0);
  double r6 = fg_rebuild_s(RAID_6, 0, &eng);
  /* engine-bound: RAID-5 feeds 5 B per member byte, RAID-6 4 (P) + 4 (Q)
   * (with Q only for the 1/n of stripes where the target held Q, RAID-6
   * took 2.02 s against RAID-5's 2.14 s) */
  ck_assert_msg(r6 >= 1.3 * r5, "rebuild RAID-5 %g s, RAID-6 %g s", r5, r6);
}
END_TEST

/* DSM's procedure around md's work: the system arrays (RAID-1 over every
 * disk, before the data partition) sync onto the joining disk first, then
 * the data array, then the fixed steps; each a phase of the report.  A
 * 2 x 64 MiB RAID-1 rebuild with 16 MiB of system partitions and 5 s of
 * procedure: the recovery of member 1 copies 16 + 48 MiB at 200 MB/s. */
START_TEST(test_dsm_procedure_phases)
{
  struct stack_cfg c;
  env_volume(&c, RAID_1, 64ull << 20);
  struct env *e = env_new(&c, 2, 1e-4, 1e9);
  struct stack_op_report plain = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_REBUILD, .failed_member = 1});
  env_free(e);
  env_volume(&c, RAID_1, 64ull << 20);
  c.volume.system_partition_bytes = 16ull << 20;
  c.volume.procedure_s = 5.0;
  e = env_new(&c, 2, 1e-4, 1e9);
  ck_assert_msg(stack_capacity_bytes(e->s) == (48ull << 20), "data partition %llu",
                (unsigned long long)stack_capacity_bytes(e->s));
  struct stack_op_report r = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_REBUILD, .failed_member = 1});
  const struct fake *f1 = e->dev[1]->priv;
  ck_assert_msg(f1->write_bytes == (64ull << 20), "member 1 written %llu B: system + data partitions",
                (unsigned long long)f1->write_bytes);
  env_free(e);
  ck_assert_int_eq(r.nphases, 3);
  ck_assert_str_eq(r.phases[0].name, "system arrays");
  ck_assert_str_eq(r.phases[1].name, "recovery");
  ck_assert_str_eq(r.phases[2].name, "procedure");
  for (int i = 0; i < 3; i++)
    ck_assert_msg(r.phases[i].end_s >= r.phases[i].start_s && (i == 0 || r.phases[i].start_s == r.phases[i - 1].end_s),
                  "phase %d [%g, %g]", i, r.phases[i].start_s, r.phases[i].end_s);
  double sys_s = r.phases[0].end_s - r.phases[0].start_s, data_s = r.phases[1].end_s - r.phases[1].start_s;
  /* each stage at least reads then writes its bytes (1 GB/s members), at
   * most that plus md's pacing (speed_limit_max 200,000 KiB/s) */
  double pace = 1.0 / (200000.0 * 1024), dev = 2.0 / 1e9, mib = 1048576.0;
  ck_assert_msg(sys_s >= 16 * mib * dev && sys_s <= 16 * mib * (dev + pace) + 1e-3 &&
                    data_s >= 48 * mib * dev && data_s <= 48 * mib * (dev + pace) + 1e-3,
                "system %g s, data %g s", sys_s, data_s);
  ck_assert_msg(fabs(r.phases[2].end_s - r.phases[2].start_s - 5.0) < 1e-9 && r.end_s == r.phases[2].end_s,
                "procedure [%g, %g], end %g", r.phases[2].start_s, r.phases[2].end_s, r.end_s);
  /* the disk work of the rebuild without the layout (64 MiB copied) plus
   * the fixed steps, within one window's device time */
  double extra = (r.end_s - r.start_s) - (plain.end_s - plain.start_s) - 5.0;
  ck_assert_msg(extra > -1e-3 && extra < 32 * mib * dev, "with layout %g s, without %g s",
                r.end_s - r.start_s, plain.end_s - plain.start_s);
  ck_assert_int_eq(plain.nphases, 1);
}
END_TEST

/* Creating a 3-disk RAID-5 volume with system partitions: the new system
 * arrays' resync reads their first member only (raid1 sync_request reads
 * read_disk) and writes the others, then the data array's resync reads
 * every member (16 MiB system + 48 MiB data per 64 MiB member). */
START_TEST(test_dsm_system_arrays_resync)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, 64ull << 20);
  c.volume.system_partition_bytes = 16ull << 20;
  struct env *e = env_new(&c, 3, 1e-4, 1e9);
  struct stack_op_report r = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_RESYNC});
  ck_assert_msg(r.end_s > r.start_s && !r.stopped, "creation did not finish");
  ck_assert_str_eq(r.phases[0].name, "system arrays");
  uint64_t mib = 1ull << 20;
  ck_assert_uint_eq(F(e->dev[0])->read_bytes, 64 * mib);
  for (int m = 1; m < 3; m++) {
    ck_assert_uint_eq(F(e->dev[m])->read_bytes, 48 * mib);
    ck_assert_uint_ge(F(e->dev[m])->write_bytes, 16 * mib);
  }
  env_free(e);
}
END_TEST

/* A vendor's single -> RAID-1 conversion that resyncs the pair after md's
 * recovery (volume.migrate_raid1 = recovery-resync, DSM): the phases
 * takeover, recovery, resync; the resync reads member 0 and writes the
 * added disk again, so the disk work doubles and the operation takes twice
 * md's recovery (2 x 64 MiB at 200 MB/s members, paced at speed_limit_max). */
START_TEST(test_migrate_raid1_resync)
{
  double t[2];
  for (int mode = 0; mode < 2; mode++) {
    struct stack_cfg c;
    env_volume(&c, RAID_SINGLE, 64ull << 20);
    c.volume.migrate_raid1 = mode;
    struct env *e = env_new(&c, 1, 1e-4, 200e6);
    struct stack_op_report r = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_MIGRATE, .target_level = RAID_1, .new_members = 2});
    ck_assert_msg(r.end_s > r.start_s && !r.stopped, "migration did not finish");
    t[mode] = r.end_s - r.start_s;
    ck_assert_uint_eq(F(e->spare[0])->write_bytes, (uint64_t)(mode + 1) * (64ull << 20));
    ck_assert_uint_eq(F(e->dev[0])->write_bytes, 0);
    ck_assert_int_eq(r.nphases, 2 + mode);
    ck_assert_str_eq(r.phases[0].name, "takeover");
    ck_assert_str_eq(r.phases[1].name, "recovery");
    if (mode == 1) {
      ck_assert_str_eq(r.phases[2].name, "resync");
      double rec = r.phases[1].end_s - r.phases[1].start_s, res = r.phases[2].end_s - r.phases[2].start_s;
      ck_assert_msg(r.phases[2].start_s == r.phases[1].end_s && fabs(res / rec - 1) < 0.02,
                    "recovery %g s, resync %g s", rec, res);
    }
    ck_assert_uint_eq(stack_capacity_bytes(e->s), 64ull << 20);
    env_free(e);
  }
  ck_assert_msg(fabs(t[1] / t[0] - 2) < 0.03, "recovery only %g s, with the resync %g s", t[0], t[1]);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("storage_rebuild");
  TCase *tc = tcase_create("scale");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_big_rebuild_events);
  tcase_add_test(tc, test_big_reshape_events);
  tcase_add_test(tc, test_rebuild_work_flat_in_capacity);
  tcase_add_test(tc, test_raid5d_bound_ops);
  tcase_add_test(tc, test_rebuild_vs_foreground_load);
  tcase_add_test(tc, test_raid6_rebuild_pq);
  tcase_add_test(tc, test_dsm_procedure_phases);
  tcase_add_test(tc, test_migrate_raid1_resync);
  tcase_add_test(tc, test_dsm_system_arrays_resync);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
