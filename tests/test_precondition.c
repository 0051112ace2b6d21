/* Preconditioning (stack_precondition, the engine's step precondition):
 * the caches start in the state a long run of the step's jobs leaves.
 * Stack level (fake FIFO devices): where a sequential writer's dirty pages
 * lie and how the dirty budget is split among writers.  End to end: a
 * short preconditioned run of sequential buffered writers agrees with the
 * steady part of a long run, where a short cold run measures RAM. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/storage/raid.h"
#include "storage_harness.c.inc"
#include "scenario_run.c.inc"

#define MiB (1024.0 * 1024.0)
#define GiB (1024.0 * MiB)

/* RAID-5 of 4 fake members with a page cache of `ram` bytes (dirty limit
 * 20 % of it by default). */
static struct env *pre_env(double ram_bytes)
{
  struct stack_cfg c;
  env_defaults(&c);
  c.volume.level = 4; /* "5" */
  c.member_bytes = (uint64_t)(4 * GiB);
  c.pcache.ram_bytes = ram_bytes;
  return env_new(&c, 4, 1e-3, 150e6);
}

static double pre_limit(double ram_bytes)
{
  struct stack_cfg c;
  env_defaults(&c);
  return c.pcache.dirty_ratio * ram_bytes;
}

/* A sequential buffered writer starts at its region's start: the dirty
 * limit's worth of its pages lie just behind it (the region's end, as it
 * wrapped), one contiguous stretch whose start lies on the write-back run
 * grid (4 MiB from the region's start); write-back begins there at time 0,
 * not at the writer's position. */
START_TEST(test_seq_dirty_behind_writer)
{
  const double ram = 256 * MiB, limit = pre_limit(ram);
  struct env *e = pre_env(ram);
  const uint64_t off = (uint64_t)(1 * GiB), len = (uint64_t)(1 * GiB);
  struct stack_precond pc = {.offset_bytes = off, .len_bytes = len, .write_fraction = 1, .run_bytes = len,
                             .buffered_writes = 1};
  ck_assert_int_eq(stack_precondition(e->s, &pc, 1), 0);
  double dirty = (double)stack_dirty_bytes(e->s);
  ck_assert_msg(fabs(dirty - limit) <= 2 * MiB, "dirty %.1f MiB, limit %.1f MiB (within half a 4 MiB run)",
                dirty / MiB, limit / MiB);
  uint64_t d = stack_dirty_bytes(e->s), start = off + len - d;
  ck_assert_msg(stack_dirty_bytes_in(e->s, start, d) == d, "dirty pages outside [%.1f, %.1f) MiB of the region",
                (double)(start - off) / MiB, (double)len / MiB);
  ck_assert_msg((start - off) % (4u << 20) == 0, "stretch starts %.3f MiB into the region, off the 4 MiB grid",
                (double)(start - off) / MiB);
  ck_assert_msg(stack_next_event_s(e->s) == 0.0, "write-back must be at work from time 0 (next event %g s)",
                stack_next_event_s(e->s));
  env_run(e, 0.0); /* the flusher takes its first runs at time 0 */
  ck_assert_msg(stack_dirty_bytes_in(e->s, start, 4u << 20) == 0,
                "write-back must start with the stretch's start (%llu bytes of its first 4 MiB still dirty)",
                (unsigned long long)stack_dirty_bytes_in(e->s, start, 4u << 20));
  ck_assert_msg(stack_dirty_bytes_in(e->s, off + len - (4u << 20), 4u << 20) == 4u << 20,
                "the stretch's end (next to the writer) must be written back last");
  env_run(e, INFINITY);
  env_free(e);
}
END_TEST

/* Without buffered writes (sync/O_DIRECT) or writes at all, nothing is
 * dirty; a random writer that also reads (paced by its reads, so
 * write-back keeps up) holds the background threshold, its pages at
 * uniformly random places of its region. */
START_TEST(test_dirty_only_for_buffered_writers)
{
  struct stack_cfg c;
  env_defaults(&c);
  const double ram = 256 * MiB, limit = c.pcache.dirty_background_ratio * ram;
  struct env *e = pre_env(ram);
  struct stack_precond pc[3] = {
      {.offset_bytes = 0, .len_bytes = (uint64_t)GiB, .write_fraction = 1, .run_bytes = (uint64_t)GiB},
      {.offset_bytes = (uint64_t)GiB, .len_bytes = (uint64_t)GiB, .write_fraction = 0, .run_bytes = (uint64_t)GiB,
       .buffered_writes = 1},
      {.offset_bytes = (uint64_t)(2 * GiB), .len_bytes = (uint64_t)GiB, .write_fraction = 0.5, .run_bytes = 65536,
       .buffered_writes = 1}};
  ck_assert_int_eq(stack_precondition(e->s, pc, 3), 0);
  double d2 = (double)stack_dirty_bytes_in(e->s, pc[2].offset_bytes, pc[2].len_bytes);
  ck_assert_msg(stack_dirty_bytes(e->s) == (uint64_t)d2, "only the buffered writer may hold dirty pages");
  ck_assert_msg(fabs(d2 - limit) <= 65536, "mixed random writer: %.2f MiB dirty, background threshold %.2f MiB",
                d2 / MiB, limit / MiB);
  /* uniformly random: each eighth of its region holds an eighth of its
   * n runs of 64 KiB, within 4 standard deviations of the binomial
   * (sqrt(n/8 x 7/8) runs), and the runs are not one evenly spaced comb
   * (gaps between dirty runs vary) */
  double n = d2 / 65536, sd = sqrt(n / 8 * 7 / 8) * 65536;
  for (int k = 0; k < 8; k++) {
    double part = (double)stack_dirty_bytes_in(e->s, pc[2].offset_bytes + (uint64_t)k * (pc[2].len_bytes / 8),
                                               pc[2].len_bytes / 8);
    ck_assert_msg(fabs(part - d2 / 8) <= 4 * sd, "eighth %d holds %.2f MiB of %.2f", k, part / MiB, d2 / MiB);
  }
  uint64_t gap_min = UINT64_MAX, gap_max = 0, last = UINT64_MAX;
  for (uint64_t b = 0; b < pc[2].len_bytes / 65536; b++) {
    uint64_t at = pc[2].offset_bytes + b * 65536;
    if (stack_dirty_bytes_in(e->s, at, 65536) == 0)
      continue;
    if (last != UINT64_MAX) {
      gap_min = b - last < gap_min ? b - last : gap_min;
      gap_max = b - last > gap_max ? b - last : gap_max;
    }
    last = b;
  }
  ck_assert_msg(gap_max > 2 * gap_min, "dirty runs evenly spaced (gaps %llu..%llu blocks)",
                (unsigned long long)gap_min, (unsigned long long)gap_max);
  env_run(e, INFINITY);
  env_free(e);
}
END_TEST

/* The dirty budget goes to the writers in proportion to their write rates
 * (write_weight), not to the first job: equal writers equal shares, 3:1
 * weights 3:1 shares; a writer whose region is smaller than its share
 * keeps its region and the others share the rest (the total stays at the
 * limit).  Each case with sequential and random writers. */
START_TEST(test_dirty_budget_split)
{
  const double ram = 256 * MiB, limit = pre_limit(ram);
  const uint64_t reg = (uint64_t)GiB;
  for (int seq = 0; seq < 2; seq++) {
    uint64_t run = seq ? reg : 65536; /* random: 64K writes */
    double tol = seq ? 2 * MiB : 65536; /* the stretch start on the 4 MiB grid; one write */
    /* equal */
    struct env *e = pre_env(ram);
    struct stack_precond pc[3];
    for (int i = 0; i < 3; i++)
      pc[i] = (struct stack_precond){.offset_bytes = (uint64_t)i * reg, .len_bytes = reg, .write_fraction = 1,
                                     .run_bytes = run, .buffered_writes = 1, .write_weight = 2e6};
    ck_assert_int_eq(stack_precondition(e->s, pc, 2), 0);
    double a = (double)stack_dirty_bytes_in(e->s, 0, reg), b = (double)stack_dirty_bytes_in(e->s, reg, reg);
    ck_assert_msg(fabs(a - limit / 2) <= tol && fabs(b - limit / 2) <= tol,
                  "seq=%d equal writers: %.2f and %.2f MiB, expected %.2f each", seq, a / MiB, b / MiB,
                  limit / 2 / MiB);
    env_run(e, INFINITY);
    env_free(e);
    /* 3:1 */
    e = pre_env(ram);
    pc[0].write_weight = 3;
    pc[1].write_weight = 1;
    ck_assert_int_eq(stack_precondition(e->s, pc, 2), 0);
    a = (double)stack_dirty_bytes_in(e->s, 0, reg);
    b = (double)stack_dirty_bytes_in(e->s, reg, reg);
    ck_assert_msg(fabs(a - 0.75 * limit) <= tol && fabs(b - 0.25 * limit) <= tol,
                  "seq=%d 3:1 writers: %.2f and %.2f MiB, expected %.2f and %.2f", seq, a / MiB, b / MiB,
                  0.75 * limit / MiB, 0.25 * limit / MiB);
    env_run(e, INFINITY);
    env_free(e);
    /* a 4 MiB region between two equal writers: it is dirty in full, the
     * two others split the rest */
    e = pre_env(ram);
    for (int i = 0; i < 3; i++)
      pc[i].write_weight = 1;
    pc[1].len_bytes = 4u << 20;
    pc[1].run_bytes = seq ? pc[1].len_bytes : 65536;
    ck_assert_int_eq(stack_precondition(e->s, pc, 3), 0);
    a = (double)stack_dirty_bytes_in(e->s, 0, reg);
    b = (double)stack_dirty_bytes_in(e->s, reg, reg);
    double c = (double)stack_dirty_bytes_in(e->s, 2 * reg, reg);
    ck_assert_msg(b == 4 * MiB, "seq=%d small region: %.2f MiB dirty, expected all 4", seq, b / MiB);
    ck_assert_msg(fabs(a - (limit - b) / 2) <= tol && fabs(c - (limit - b) / 2) <= tol,
                  "seq=%d the others: %.2f and %.2f MiB, expected %.2f each", seq, a / MiB, c / MiB,
                  (limit - b) / 2 / MiB);
    env_run(e, INFINITY);
    env_free(e);
  }
}
END_TEST

/* Two writers on one region (fio numjobs on one file) dirty the same
 * pages: the region holds both their parts (2/3 of the limit beside an
 * equal writer elsewhere), not one part laid twice over the same pages. */
START_TEST(test_shared_region)
{
  const double ram = 256 * MiB, limit = pre_limit(ram);
  const uint64_t reg = (uint64_t)GiB;
  for (int seq = 0; seq < 2; seq++) {
    struct env *e = pre_env(ram);
    struct stack_precond pc[3];
    for (int i = 0; i < 3; i++)
      pc[i] = (struct stack_precond){.offset_bytes = i == 2 ? reg : 0, .len_bytes = reg, .write_fraction = 1,
                                     .run_bytes = seq ? reg : 65536, .buffered_writes = 1};
    ck_assert_int_eq(stack_precondition(e->s, pc, 3), 0);
    double a = (double)stack_dirty_bytes_in(e->s, 0, reg), b = (double)stack_dirty_bytes_in(e->s, reg, reg);
    double tol = seq ? 2 * MiB : 65536;
    ck_assert_msg(fabs(a - 2 * limit / 3) <= tol && fabs(b - limit / 3) <= tol,
                  "seq=%d shared region %.2f MiB, other %.2f MiB; expected %.2f and %.2f", seq, a / MiB, b / MiB,
                  2 * limit / 3 / MiB, limit / 3 / MiB);
    env_run(e, INFINITY);
    env_free(e);
  }
}
END_TEST

/* 4K random writers spread their pages one per 64 KiB block: the page
 * cache holds pages, so RAM (16 MiB) is taken page by page and the
 * writers reach the dirty limit (3.2 MiB = 819 pages, over 256 blocks'
 * worth of RAM), split equally.  Fails if a dirty page took its whole
 * 64 KiB block of RAM (then 256 pages in all, 0.5 MiB each). */
START_TEST(test_scattered_pages_reach_limit)
{
  const double ram = 16 * MiB, limit = pre_limit(ram);
  struct env *e = pre_env(ram);
  const uint64_t reg = (uint64_t)GiB;
  struct stack_precond pc[2];
  for (int i = 0; i < 2; i++)
    pc[i] = (struct stack_precond){.offset_bytes = (uint64_t)i * reg, .len_bytes = reg, .write_fraction = 1,
                                   .run_bytes = 4096, .buffered_writes = 1};
  ck_assert_int_eq(stack_precondition(e->s, pc, 2), 0);
  double a = (double)stack_dirty_bytes_in(e->s, 0, reg), b = (double)stack_dirty_bytes_in(e->s, reg, reg);
  ck_assert_msg(fabs(a - limit / 2) <= 2 * 4096 && fabs(b - limit / 2) <= 2 * 4096,
                "scattered pages: %.0f and %.0f KiB dirty, expected %.0f KiB each (the dirty limit)", a / 1024,
                b / 1024, limit / 2 / 1024);
  env_run(e, INFINITY);
  env_free(e);
}
END_TEST

/* End to end: 4 sequential 128K buffered writers (iSCSI, 4 x HDD RAID-5,
 * 4 GiB of RAM: ~0.8 GiB dirty limit, about 2 s of the disks' write-back).
 * A 2 s preconditioned run agrees with the steady part of a 16 s run;
 * the same 2 s from cold is absorbed by RAM and far faster.  Fails if
 * preconditioning leaves sequential writers' page cache clean (the short
 * run then measures RAM too). */
static const char pre_seq[] =
    "name: pre-seq\nsystem: ds1819plus\ndisks: {count: 4, drive: wd-red-14tb}\nvolume: {level: 5}\n"
    "network: {mode: single, nas_links: 1, nas_link_rate: 10Gbit/s, client_nics: 1, client_link_rate: 10Gbit/s}\n"
    "protocol: {kind: iscsi}\nclients: {count: 1}\n"
    "workload: {rw: write, bs: 128k, iodepth: 16, numjobs: 4, size: 4g, time_based: 1, runtime: %s, ramp_time: %s,"
    " precondition: %d}\n"
    "time: %s\nseed: 1\n";

static double pre_write_MBps(const char *runtime, const char *ramp, int precondition)
{
  char y[1024];
  snprintf(y, sizeof y, pre_seq, runtime, ramp, precondition, runtime);
  sr_run_text(y, NULL);
  return sr_num("\"write\"", "MBps");
}

START_TEST(test_seq_write_short_equals_long)
{
  double longrun = pre_write_MBps("16s", "6s", 1);
  char bn[96];
  sr_bottleneck(bn, sizeof bn);
  double pre = pre_write_MBps("2s", "0.5s", 1);
  double cold = pre_write_MBps("2s", "0.5s", 0);
  /* a 1.5 s window of four interleaved streams varies by a few % with the
   * seed; the cold run is off by tens of % */
  ck_assert_msg(fabs(pre / longrun - 1) <= 0.08,
                "preconditioned 2 s run %.1f MB/s vs 16 s run %.1f MB/s (expected within 8 %%)", pre, longrun);
  ck_assert_msg(cold > 1.3 * longrun, "cold 2 s run %.1f MB/s vs 16 s run %.1f MB/s: expected RAM to absorb it", cold,
                longrun);
  ck_assert_msg(strncmp(bn, "disk", 4) == 0, "steady sequential write: bottleneck %s, expected a member disk", bn);
}
END_TEST

/* The steady-state equivalence: random 4K / 8K reads, random
 * writes and 70/30 mixes on RAID-6 HDDs (iSCSI, 6 x WD Red, two jobs of
 * QD 8 on 4 GiB regions, 4 MiB of RAM so a cold run's page cache settles
 * within a second), SSD cache off and on (16 MiB, read-write): a
 * preconditioned 2 s run equals the second half of a 16 s cold run within
 * 10 %.  Fails if preconditioning leaves a state the run is not in
 * (evenly spaced dirty pages aliasing with the stripe period: -22 %; the
 * mixed jobs' page cache at the dirty limit instead of the background
 * threshold: a write-back transient longer than the run), or if the long
 * run drifts into a state the short one never reaches (the drives'
 * write caches destaging ahead of md's read-modify-write reads until the
 * oldest read ages out and the drive serves its queue in arrival order:
 * random 4K writes 455 IOPS for 5 s, then 145; a 2 s run measured the
 * 455, +236 %). */
static const char pre_mix[] =
    "name: pre-mix\nsystem: ds1819plus\ndisks: {count: 6, drive: wd-red-14tb}\nvolume: {level: 6}\n"
    "page_cache: {ram: 4MiB}\n"
    "network: {mode: single, nas_links: 1, nas_link_rate: 10Gbit/s, client_nics: 1, client_link_rate: 10Gbit/s}\n"
    "protocol: {kind: iscsi}\n"
    "ssd_cache: {mode: %s, count: 2, drive: synology-snv3400-400g, capacity: 16MiB}\n"
    "clients: {count: 1}\n"
    "workload: {rw: %s, rwmixread: %d, bs: %s, iodepth: 8, numjobs: 2, size: 4g, time_based: 1, runtime: %s,"
    " ramp_time: %s, precondition: %d}\n"
    "time: %s\nseed: 1\n";

static double pre_mix_iops(const char *cache, const char *rw, int mixread, const char *bs, int precondition)
{
  char y[1536];
  const char *rt = precondition ? "2s" : "16s", *ramp = precondition ? "0.5s" : "8s";
  snprintf(y, sizeof y, pre_mix, cache, rw, mixread, bs, rt, ramp, precondition, rt);
  sr_run_text(y, NULL);
  return sr_num("\"all\": {", "iops");
}

START_TEST(test_random_short_equals_long)
{
  static const struct {
    const char *rw;
    int mixread;
  } w[] = {{"randread", 100}, {"randwrite", 0}, {"randrw", 70}};
  static const char *const cache[] = {"none", "read-write"}, *const bs[] = {"4k", "8k"};
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < 3; i++)
      for (int b = 0; b < 2; b++) {
        double longrun = pre_mix_iops(cache[c], w[i].rw, w[i].mixread, bs[b], 0);
        double pre = pre_mix_iops(cache[c], w[i].rw, w[i].mixread, bs[b], 1);
        ck_assert_msg(fabs(pre / longrun - 1) <= 0.10,
                      "%s %s %d/%d, SSD cache %s: preconditioned 2 s run %.1f IOPS vs second half of a 16 s cold "
                      "run %.1f IOPS (expected within 10 %%)",
                      w[i].rw, bs[b], w[i].mixread, 100 - w[i].mixread, cache[c], pre, longrun);
      }
}
END_TEST

static Suite *pre_suite(void)
{
  Suite *s = suite_create("precondition");
  TCase *tc = tcase_create("page-cache-layout");
  tcase_add_test(tc, test_seq_dirty_behind_writer);
  tcase_add_test(tc, test_dirty_only_for_buffered_writers);
  tcase_add_test(tc, test_dirty_budget_split);
  tcase_add_test(tc, test_shared_region);
  tcase_add_test(tc, test_scattered_pages_reach_limit);
  suite_add_tcase(s, tc);
  tc = tcase_create("steady-state");
  tcase_set_timeout(tc, 180);
  tcase_add_test(tc, test_seq_write_short_equals_long);
  tcase_add_test(tc, test_random_short_equals_long);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return ck_run(pre_suite());
}
