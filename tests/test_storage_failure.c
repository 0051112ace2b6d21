/* Volume failure: failures beyond a level's redundancy fail the volume (every
 * client I/O errs from then on, a rebuild stops), failures within it only
 * degrade it.  Every level against every set of failed members (as md's
 * raid6 test fails every pair of disks), and failure times before, during
 * and after a rebuild.  The expectations are written from md's rules, not
 * from raid.c: RAID-0/linear/single lose data with any member, RAID-1 with
 * all, RAID-5 with two, RAID-6 with three, RAID-10 near-2 with both copies
 * of a chunk (an adjacent pair, cyclically, for n odd; a mirror pair 2k,
 * 2k+1 for n even). */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_run.c.inc"
#include "storage_harness.c.inc"

#define MiB (1024.0 * 1024.0)

static int popcount(uint64_t m)
{
  int n = 0;
  for (; m; m &= m - 1)
    n++;
  return n;
}

/* Share of the volume's data no member holds with `mask` failed (md's
 * rules, see the file comment); 0 when the volume survives. */
static double expected_lost_share(int level, int n, uint64_t mask)
{
  int k = popcount(mask);
  switch (level) {
  case RAID_SINGLE:
  case RAID_JBOD:
  case RAID_0:
    return (double)k / n; /* linear: the failed members' parts; striped: their chunks */
  case RAID_1:
    return k == n ? 1.0 : 0.0;
  case RAID_5:
    return k > 1 ? (double)k / n : 0.0; /* every data chunk on a failed member */
  case RAID_6:
    return k > 2 ? (double)k / n : 0.0;
  case RAID_10: {
    int pairs = 0;
    if (n % 2 == 0) {
      for (int m = 0; m < n; m += 2)
        pairs += ((mask >> m) & 3u) == 3u;
      return (double)pairs / (n / 2);
    }
    for (int m = 0; m < n; m++) /* near-2, n odd: chunk c on 2c and 2c+1 mod n */
      pairs += ((mask >> m) & 1u) && ((mask >> ((m + 1) % n)) & 1u);
    return (double)pairs / n;
  }
  default:
    return -1;
  }
}

static const struct {
  int level, lo, hi;
} levels[] = {{RAID_SINGLE, 1, 1}, {RAID_JBOD, 1, 4}, {RAID_0, 2, 5}, {RAID_1, 2, 4},
              {RAID_5, 3, 6},      {RAID_6, 4, 7},   {RAID_10, 2, 7}};
#define NLEVELS (int)(sizeof levels / sizeof levels[0])

/* raid_lost_bytes against md's rules, for every level, member count and
 * set of failed members. */
START_TEST(test_lost_every_mask)
{
  for (int l = 0; l < NLEVELS; l++)
    for (int n = levels[l].lo; n <= levels[l].hi; n++)
      for (uint64_t mask = 0; mask < (1ull << n); mask++) {
        struct raid_geom g;
        struct nw_err err;
        ck_assert_int_eq(raid_geom_init(&g, levels[l].level, RAID_LEFT_SYMMETRIC, n, 64 * 1024,
                                        (uint64_t)(64 * MiB), &err), 0);
        g.failed_mask = mask;
        double want = expected_lost_share(levels[l].level, n, mask) * (double)raid_capacity_bytes(&g);
        double got = (double)raid_lost_bytes(&g);
        if (fabs(got - want) > 1.0)
          ck_abort_msg("level %s, %d members, failed mask 0x%llx: %g bytes lost, want %g",
                       raid_ops_of(levels[l].level)->name, n, (unsigned long long)mask, got, want);
      }
}
END_TEST

/* A stack of `level` on n members (64 MiB each) with a closed-loop random
 * 64 KiB read/write foreground at QD8 until t_fg. */
static struct env *fail_env(int level, int n, double t_fg)
{
  struct stack_cfg c;
  env_volume(&c, level, (uint64_t)(64 * MiB));
  struct env *e = env_new(&c, n, 100e-6, 500e6);
  e->qd_target = 8;
  e->fg_span_bytes = stack_capacity_bytes(e->s);
  e->fg_bs_bytes = 64 * 1024;
  e->fg_mix = 1;
  e->fg_until_s = t_fg;
  for (int i = 0; t_fg > 0 && i < e->qd_target; i++) /* env_run keeps the loop full */
    env_submit(e, (uint64_t)i * e->fg_bs_bytes, e->fg_bs_bytes, i & 1, 0);
  return e;
}

/* After the volume failed at t_fail: every I/O completed from then on
 * errs, none before; the I/Os submitted afterwards (buffered and sync
 * writes, reads) all err at once; every tag is answered once. */
static void check_failed(struct env *e, double t_fail, const char *what)
{
  struct stack_volume_state v;
  stack_volume_get(e->s, &v);
  ck_assert_msg(v.failed && v.failed_at_s == t_fail, "%s: failed %d at %g, want at %g", what, v.failed,
                v.failed_at_s, t_fail);
  ck_assert_msg(v.lost_bytes_estimate > 0, "%s: nothing lost", what);
  uint64_t before = e->nsub;
  for (int i = 0; i < 6; i++)
    env_submit(e, (uint64_t)i * 1048576, 65536, i % 3 != 0, i % 3 == 2);
  env_run(e, INFINITY);
  ck_assert_msg(e->ndone == e->nsub, "%s: %llu of %llu answered", what, (unsigned long long)e->ndone,
                (unsigned long long)e->nsub);
  for (uint64_t t = 0; t < e->nsub; t++) {
    int late = t >= before || e->done_s[t] >= t_fail;
    if (e->err[t] != late)
      ck_abort_msg("%s: I/O %llu (submitted %g, done %g) error %d", what, (unsigned long long)t,
                   e->submit_s[t], e->done_s[t], e->err[t]);
  }
}

static void check_survived(struct env *e, const char *what)
{
  struct stack_volume_state v;
  stack_volume_get(e->s, &v);
  ck_assert_msg(!v.failed && v.failed_at_s < 0 && v.lost_bytes_estimate == 0, "%s: failed", what);
  for (int i = 0; i < 6; i++)
    env_submit(e, (uint64_t)i * 1048576, 65536, i % 2, 0);
  env_run(e, INFINITY);
  ck_assert_msg(e->nerr == 0 && e->ndone == e->nsub, "%s: %llu errors, %llu of %llu answered", what,
                (unsigned long long)e->nerr, (unsigned long long)e->ndone, (unsigned long long)e->nsub);
}

/* Fail `mask` at once under load: failed exactly when md's rules say. */
static void run_mask(int level, int n, uint64_t mask)
{
  const double t_fail = 0.02;
  struct env *e = fail_env(level, n, t_fail);
  env_run(e, t_fail);
  e->now_s = t_fail;
  uint64_t ios_before = e->ndone;
  for (int m = 0; m < n; m++)
    if ((mask >> m) & 1u)
      stack_fail_member(e->s, t_fail, m);
  char what[96];
  snprintf(what, sizeof what, "level %s, %d members, failed 0x%llx", raid_ops_of(level)->name, n,
           (unsigned long long)mask);
  ck_assert_msg(ios_before > 50, "%s: only %llu I/Os before the failure", what, (unsigned long long)ios_before);
  if (expected_lost_share(level, n, mask) > 0)
    check_failed(e, t_fail, what);
  else
    check_survived(e, what);
  env_free(e);
}

/* Every level, every set of failed members, failed at one time under load. */
START_TEST(test_fail_every_mask_under_load)
{
  for (int l = 0; l < NLEVELS; l++) {
    int n = levels[l].lo + (levels[l].hi > levels[l].lo); /* 1, 2, 3, 3, 4, 5, 3 members */
    if (levels[l].level == RAID_10)
      n = 4;
    for (uint64_t mask = 0; mask < (1ull << n); mask++)
      run_mask(levels[l].level, n, mask);
  }
}
END_TEST

/* Rebuild of member T (the last) from t = 0, and failures of members i then
 * j at times t1 <= t2 taken before the rebuild (i: the array is degraded
 * when the rebuild starts), during it, and after it: the volume fails at
 * the first moment the missing set (T while the rebuild runs, plus the
 * failures) goes beyond redundancy; then the rebuild stops there.  i == T
 * during the rebuild: the replacement fails, the rebuild stops, the array
 * stays degraded. */
static void run_rebuild_pair(int level, int n, int i, int j, double t1, double t2)
{
  const int T = n - 1;
  char what[128];
  snprintf(what, sizeof what, "level %s, %d members, rebuild %d, fail %d at %g and %d at %g",
           raid_ops_of(level)->name, n, T, i, t1, j, t2);
  struct env *e = fail_env(level, n, 0.0);
  e->qd_target = 0;
  double t_start = 0.01;
  uint64_t missing = 0;
  double t_fail = -1;
  int stopped = 0;
  double times[2] = {t1, t2};
  int who[2] = {i, j};
  int started = 0, have_op = 0, rebuilt = 0;
  struct nw_err err;
  for (int k = 0; k <= 2; k++) {
    double t = k < 2 ? times[k] : INFINITY;
    if (!started && t > t_start) {
      env_run(e, t_start);
      e->now_s = t_start;
      int rc = stack_start_op(e->s, t_start, &(struct stack_op_cfg){.kind = STACK_OP_REBUILD, .failed_member = T}, &err);
      started = 1;
      if (t_fail >= 0) { /* md cannot rebuild a failed array */
        ck_assert_msg(rc != 0, "%s: rebuild of a failed volume accepted", what);
      } else {
        ck_assert_msg(rc == 0, "%s: %s", what, err.msg);
        have_op = 1;
        missing |= 1ull << T;
        if (expected_lost_share(level, n, missing) > 0) {
          t_fail = t_start;
          stopped = 1;
        }
      }
    }
    if (k == 2)
      break;
    env_run(e, t);
    e->now_s = t;
    struct stack_op_report r;
    stack_op_get(e->s, 0, &r);
    int rebuilding = have_op && r.end_s < 0;
    if (have_op && !rebuilding && !r.stopped && !rebuilt) { /* T holds its data again */
      missing &= ~(1ull << T);
      rebuilt = 1;
    }
    if (who[k] == T && rebuilding && t_fail < 0)
      stopped = 1; /* the replacement itself fails */
    stack_fail_member(e->s, t, who[k]);
    missing |= 1ull << who[k];
    if (t_fail < 0 && expected_lost_share(level, n, missing) > 0) {
      t_fail = t;
      stopped |= rebuilding;
    }
  }
  env_run(e, INFINITY);
  struct stack_op_report r;
  stack_op_get(e->s, 0, &r);
  ck_assert_msg(stack_op_count(e->s) == have_op, "%s: %d operations", what, stack_op_count(e->s));
  ck_assert_msg(r.stopped == stopped, "%s: rebuild stopped %d, want %d", what, r.stopped, stopped);
  if (t_fail >= 0) {
    check_failed(e, t_fail, what);
    ck_assert_msg(!stopped || r.end_s == t_fail || who[0] == T || who[1] == T, "%s: rebuild ended at %g, failure at %g",
                  what, r.end_s, t_fail);
  } else {
    check_survived(e, what);
    ck_assert_msg(!have_op || stopped || r.progress == 1.0, "%s: rebuild at %g", what, r.progress);
  }
  env_free(e);
}

/* Every level with redundancy, every ordered pair of members (the rebuilt
 * one included), every pair of times among before / during (twice) / after
 * the rebuild (64 MiB members at 200 MiB/s: ~0.33 s). */
START_TEST(test_fail_pairs_around_rebuild)
{
  static const struct {
    int level, n;
  } cases[] = {{RAID_1, 2}, {RAID_1, 3}, {RAID_5, 4}, {RAID_6, 5}, {RAID_10, 4}, {RAID_10, 5}};
  static const double times[] = {0.0, 0.05, 0.15, 1.0}; /* before, during, during, after */
  int nfailed = 0, nsurvived = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int i = 0; i < cases[c].n; i++)
      for (int j = 0; j < cases[c].n; j++)
        for (int a = 0; a < 4; a++)
          for (int b = a; b < 4; b++) {
            if (i == j)
              continue;
            run_rebuild_pair(cases[c].level, cases[c].n, i, j, times[a], times[b]);
            uint64_t mask = (1ull << i) | (1ull << j);
            nfailed += expected_lost_share(cases[c].level, cases[c].n, mask) > 0;
            nsurvived += expected_lost_share(cases[c].level, cases[c].n, mask) == 0;
          }
  ck_assert(nfailed > 0 && nsurvived > 0);
}
END_TEST

/* The lost estimate of a RAID-5 failing during its rebuild: the rows the
 * rebuild had rewritten on the replacement still hold their data. */
START_TEST(test_lost_estimate_during_rebuild)
{
  struct env *e = fail_env(RAID_5, 4, 0.0);
  e->qd_target = 0;
  struct nw_err err;
  ck_assert_int_eq(stack_start_op(e->s, 0.0, &(struct stack_op_cfg){.kind = STACK_OP_REBUILD, .failed_member = 3}, &err), 0);
  env_run(e, 0.2);
  e->now_s = 0.2;
  struct stack_op_report r;
  stack_op_get(e->s, 0, &r);
  ck_assert(r.progress > 0.2 && r.progress < 0.9);
  stack_fail_member(e->s, 0.2, 0);
  struct stack_volume_state v;
  stack_volume_get(e->s, &v);
  double cap = (double)stack_capacity_bytes(e->s);
  /* members 0 and 3 missing: 2/4 of the data; below the rebuild's progress
   * only member 0: nothing lost there (one missing of RAID-5) */
  double want = (1.0 - r.progress) * 0.5 * cap;
  ck_assert_msg(v.failed && fabs(v.lost_bytes_estimate / want - 1) < 1e-9, "lost %g, want %g (progress %g)",
                v.lost_bytes_estimate, want, r.progress);
  ck_assert_int_ne(stack_start_op(e->s, 0.3, &(struct stack_op_cfg){.kind = STACK_OP_REBUILD, .failed_member = 0}, &err), 0);
  env_free(e);
}
END_TEST

/* Buffered writes waiting for page-cache room err when the volume fails,
 * and its dirty pages count as lost. */
START_TEST(test_dirty_pages_lost)
{
  /* 40 writes stay below the flusher's threshold (all dirty); 100 make
   * writers wait for write-back */
  for (int nw = 40; nw <= 100; nw += 60) {
    struct stack_cfg c;
    env_volume(&c, RAID_0, (uint64_t)(64 * MiB));
    c.pcache.ram_bytes = 16 * MiB;
    c.pcache.dirty_background_ratio = 0.2;
    struct env *e = env_new(&c, 2, 1e-3, 20e6);
    for (int i = 0; i < nw; i++)
      env_submit(e, (uint64_t)i * 65536, 65536, 1, 0);
    env_run(e, 0.01);
    e->now_s = 0.01;
    uint64_t dirty = stack_dirty_bytes(e->s);
    if (nw == 40)
      ck_assert_msg(dirty == 40 * 65536 && e->ndone == 40, "dirty %llu", (unsigned long long)dirty);
    else
      ck_assert_msg(e->ndone < e->nsub, "no writer waits");
    stack_fail_member(e->s, 0.01, 1);
    struct stack_volume_state v;
    stack_volume_get(e->s, &v);
    double want = 0.5 * (double)stack_capacity_bytes(e->s) + (double)dirty;
    ck_assert_msg(fabs(v.lost_bytes_estimate - want) < 1, "lost %g, want %g", v.lost_bytes_estimate, want);
    check_failed(e, 0.01, "raid0 buffered");
    env_free(e);
  }
}
END_TEST

/* End to end (the binary, JSON): the DS2015xs with 8 SSDs under iSCSI
 * random 64K read/write, members failing at 0.3 s of a 1 s run: RAID-5
 * with two failed fails (volume.failed, errors counted, a loud text
 * banner), with one it serves degraded without errors. */
static const char e2e_yaml[] =
    "name: e2e-fail\nsystem: ds2015xs\ndisks: {count: 8, drive: ocz-vector-120}\nvolume: {level: 5}\n"
    "network: {mode: lacp, nas_links: 2, nas_link_rate: 10Gbit/s, client_nics: 2, client_link_rate: 10Gbit/s, mtu: 9000}\n"
    "protocol: {kind: iscsi}\nclients: {count: 1}\n"
    "workload: {rw: randrw, bs: 64k, iodepth: 16, size: 4g, time_based: 1, runtime: 1s}\n"
    "faults: [{kind: disk_fail, target: 1, at: 0.3s}%s]\ntime: 1s\nseed: 1\n";

START_TEST(test_e2e_raid5)
{
  char y[1024];
  for (int two = 0; two < 2; two++) {
    snprintf(y, sizeof y, e2e_yaml, two ? ", {kind: disk_fail, target: 2, at: 0.3s}" : "");
    sr_run_text(y, NULL);
    double errors = sr_num("\"all\": {\"ios\"", "errors"), ios = sr_num("\"all\": {\"ios\"", "ios");
    int failed = strstr(sr_out, "\"volume\": {\"failed\": true, \"failed_at_s\": 0.3,") != NULL;
    ck_assert_msg(failed == two && (errors > 0) == two && ios > 1000,
                  "RAID-5, %d failed: volume failed %d, %g errors, %g I/Os", 1 + two, failed, errors, ios);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("storage_failure");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_lost_every_mask);
  tcase_add_test(tc, test_fail_every_mask_under_load);
  tcase_add_test(tc, test_fail_pairs_around_rebuild);
  tcase_add_test(tc, test_lost_estimate_during_rebuild);
  tcase_add_test(tc, test_dirty_pages_lost);
  tcase_add_test(tc, test_e2e_raid5);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
