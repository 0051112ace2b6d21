/* SSD cache (models/storage/stack_ssd.c, the SSD part of stack_precond.c):
 * the hit ratio emerging from capacity vs working set through admission,
 * sequential bypass, mirrored writes and their metadata updates, the
 * destager above its threshold and after fallow_delay, the cache layer's
 * CPU, and determinism.  Devices are the harness's FIFO fakes. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/storage/raid.h"
#include "storage_harness.c.inc"

#define MiB (1024.0 * 1024.0)
#define GiB (1024.0 * MiB)

/* A RAID-5 of 4 fakes (5 ms, 100 MB/s) with an SSD cache of cap_bytes in
 * `mode` (1 read-only on one device, 2 read-write on a mirrored pair). */
static struct env *sc_env(struct stack_cfg *c, int mode, double cap_bytes, double passes)
{
  env_volume(c, RAID_5, (uint64_t)GiB);
  if (passes > 0)
    c->ssdcache.precond_passes = passes;
  c->ssdcache.mode = mode;
  c->ssdcache.capacity_bytes = cap_bytes;
  c->ncache_devs = mode == 2 ? 2 : 1;
  c->seed = 1;
  return env_new(c, 4, 5e-3, 100e6);
}

/* n random reads of bs bytes over [0, region), one at a time; returns
 * the read hit ratio the cache counted over them. */
static double sc_read_hit_ratio(struct env *e, uint64_t region, uint64_t bs, int n)
{
  struct stack_ssdcache_stats a, b;
  stack_ssdcache_get(e->s, &a);
  for (int i = 0; i < n; i++) {
    env_submit(e, env_rand(e) % (region / bs) * bs, bs, 0, 0);
    env_run(e, e->now_s + 10);
  }
  stack_ssdcache_get(e->s, &b);
  uint64_t h = b.read_hits - a.read_hits, m = b.read_misses - a.read_misses;
  ck_assert_msg(h + m == (uint64_t)n, "%llu hits + %llu misses for %d reads", (unsigned long long)h,
                (unsigned long long)m, n);
  return (double)h / (double)n;
}

/* Preconditioning runs the job's own random reads through admission: the
 * hit ratio follows capacity vs working set.  Block-sized (64 KiB) reads:
 * a 16 MiB cache under a 64 MiB region holds a quarter of it, ~25 % hits.
 * 4 KiB reads in 64 KiB blocks: a block takes its slot for the few sectors
 * read before it is evicted, so the same cache holds far less of the
 * working set.  Inside the capacity a pass leaves every piece valid. */
START_TEST(test_hit_ratio_emerges)
{
  struct stack_cfg c;
  struct stack_precond pc = {.offset_bytes = 0, .len_bytes = 64u << 20, .run_bytes = 65536};
  struct env *e = sc_env(&c, 1, 16 * MiB, 8);
  ck_assert_int_eq(stack_precondition(e->s, &pc, 1), 0);
  struct stack_ssdcache_stats st;
  stack_ssdcache_get(e->s, &st);
  ck_assert_msg(st.used_bytes == 16u << 20, "small cache holds %llu B, want 16 MiB", (unsigned long long)st.used_bytes);
  double small = sc_read_hit_ratio(e, 64u << 20, 65536, 2000);
  ck_assert_msg(small > 0.20 && small < 0.30, "16 MiB cache, 64 MiB working set: hit ratio %.3f, want ~0.25",
                small);
  env_free(e);
  pc.run_bytes = 4096;
  e = sc_env(&c, 1, 16 * MiB, 8);
  stack_precondition(e->s, &pc, 1);
  stack_ssdcache_get(e->s, &st);
  double sparse = sc_read_hit_ratio(e, 64u << 20, 4096, 2000);
  ck_assert_msg(st.used_bytes < 4u << 20 && sparse < 0.08,
                "4 KiB reads: %llu B valid in 16 MiB of slots, hit ratio %.3f (want < 4 MiB, < 0.08)",
                (unsigned long long)st.used_bytes, sparse);
  env_free(e);
  /* the working set inside the capacity: one pass (fio's random map
   * touches every piece once) leaves all of it valid */
  e = sc_env(&c, 1, 128 * MiB, 0);
  stack_precondition(e->s, &pc, 1);
  stack_ssdcache_get(e->s, &st);
  ck_assert_uint_eq(st.used_bytes, 64u << 20);
  double big = sc_read_hit_ratio(e, 64u << 20, 4096, 2000);
  ck_assert_msg(big == 1.0 && sum_reads(e) == 0, "128 MiB cache, 64 MiB working set: hit ratio %.4f, %llu member reads",
                big, (unsigned long long)sum_reads(e));
  env_free(e);
  /* half a pass: half the sectors */
  e = sc_env(&c, 1, 128 * MiB, 0.5);
  stack_precondition(e->s, &pc, 1);
  double half = sc_read_hit_ratio(e, 64u << 20, 4096, 2000);
  ck_assert_msg(fabs(half - 0.5) < 0.04, "half a pass: hit ratio %.3f, want ~0.5", half);
  env_free(e);
}
END_TEST

/* Live admission: a read miss is promoted (its sectors written to the
 * cache device), so the second pass over a working set inside the cache
 * hits; a sequential stream beyond seq_bypass is left out. */
START_TEST(test_promotion_and_bypass)
{
  struct stack_cfg c;
  struct env *e = sc_env(&c, 1, 64 * MiB, 0);
  for (int pass = 0; pass < 2; pass++) {
    uint64_t before = sum_reads(e);
    e->rng = 7;
    for (int i = 0; i < 256; i++) {
      env_submit(e, env_rand(e) % 4096 * 65536 * 2, 65536, 0, 0);
      env_run(e, INFINITY);
    }
    if (pass == 1)
      ck_assert_msg(sum_reads(e) - before < 10, "pass 2 should hit the SSD: %llu member reads",
                    (unsigned long long)(sum_reads(e) - before));
  }
  struct stack_ssdcache_stats st;
  stack_ssdcache_get(e->s, &st);
  ck_assert_msg(st.promotions >= 240 && F(e->cdev[0])->writes == st.promotions,
                "promotions %llu, cache device writes %llu", (unsigned long long)st.promotions,
                (unsigned long long)F(e->cdev[0])->writes);
  uint64_t cw = F(e->cdev[0])->writes;
  for (int i = 0; i < 64; i++) {
    env_submit(e, 512ull * 1024 * 1024 + (uint64_t)i * 262144, 262144, 0, 0);
    env_run(e, INFINITY);
  }
  stack_ssdcache_get(e->s, &st);
  ck_assert_msg(F(e->cdev[0])->writes - cw <= 5 && st.bypassed >= 59, "sequential bypass: %llu fills, %llu bypassed",
                (unsigned long long)(F(e->cdev[0])->writes - cw), (unsigned long long)st.bypassed);
  /* a read-only cache has no dirty data and writes no metadata */
  ck_assert_uint_eq(st.metadata_writes, 0);
  env_free(e);
}
END_TEST

/* Read-write: a write is mirrored on both devices and, when it turns a
 * block dirty, followed by one metadata update on each before it
 * completes; a rewrite of a dirty block writes data only.  Cleaning
 * (after fallow_delay, the array idle) writes each run to the array and
 * one metadata update per run. */
START_TEST(test_metadata_io)
{
  struct stack_cfg c;
  struct env *e = sc_env(&c, 2, 64 * MiB, 0);
  for (int i = 0; i < 16; i++)
    env_submit(e, (uint64_t)i * 10 * 65536, 4096, 1, 1);
  env_run(e, 10.0);
  struct stack_ssdcache_stats st;
  stack_ssdcache_get(e->s, &st);
  ck_assert_uint_eq(e->ndone, 16);
  ck_assert_uint_eq(st.write_allocs, 16);
  ck_assert_uint_eq(st.metadata_writes, 16);
  for (int d = 0; d < 2; d++)
    ck_assert_msg(F(e->cdev[d])->writes == 32, "cache device %d: %llu writes, want 16 data + 16 metadata", d,
                  (unsigned long long)F(e->cdev[d])->writes);
  ck_assert_msg(sum_writes(e) == 0, "below the threshold nothing is destaged before fallow_delay: %llu",
                (unsigned long long)sum_writes(e));
  /* the metadata update follows the data write: a write takes two device
   * times (50 us + 4 KiB at 500 MB/s each on the fakes) */
  double lat = e->done_s[0] - e->submit_s[0];
  ck_assert_msg(lat > 2 * 50e-6, "write with its metadata update took %g s", lat);
  for (int i = 0; i < 16; i++) /* rewrites of dirty blocks */
    env_submit(e, (uint64_t)i * 10 * 65536 + 4096, 4096, 1, 1);
  env_run(e, 20.0);
  stack_ssdcache_get(e->s, &st);
  ck_assert_uint_eq(st.write_hits, 16);
  ck_assert_uint_eq(st.metadata_writes, 16);
  ck_assert_uint_eq(F(e->cdev[0])->writes, 48);
  env_run(e, INFINITY); /* fallow_delay (900 s): cleaned */
  stack_ssdcache_get(e->s, &st);
  ck_assert_msg(st.dirty_bytes == 0 && st.destages > 0, "dirty %llu B after fallow, %llu destages",
                (unsigned long long)st.dirty_bytes, (unsigned long long)st.destages);
  ck_assert_msg(e->now_s >= c.ssdcache.fallow_s, "cleaned at %g s, before fallow_delay", e->now_s);
  ck_assert_uint_eq(st.metadata_writes, 16 + st.destages);
  ck_assert_msg(sum_writes(e) >= 16, "destaged to the array: %llu member writes", (unsigned long long)sum_writes(e));
  ck_assert_uint_eq(st.destaged_bytes, 32 * 4096);
  env_free(e);
}
END_TEST

/* Above dirty_thresh the destager runs under load, competing with the
 * writes: the dirty level stays near the threshold, the array is written
 * long before fallow_delay. */
START_TEST(test_destage_under_load)
{
  struct stack_cfg c;
  struct env *e = sc_env(&c, 2, 8 * MiB, 0);
  for (int i = 0; i < 400; i++) {
    env_submit(e, (uint64_t)(env_rand(e) % 16384) * 65536, 65536, 1, 1);
    env_run(e, e->now_s + 0.01);
  }
  env_run(e, e->now_s + 1.0);
  struct stack_ssdcache_stats st;
  stack_ssdcache_get(e->s, &st);
  ck_assert_msg(e->now_s < 100, "took %g s", e->now_s);
  ck_assert_msg(st.destages > 100, "destages %llu under load", (unsigned long long)st.destages);
  ck_assert_msg(sum_writes(e) > 100, "array writes %llu", (unsigned long long)sum_writes(e));
  double lim = c.ssdcache.dirty_thresh * 8 * MiB;
  ck_assert_msg((double)st.dirty_bytes <= lim + 65536, "dirty %llu B, threshold %g B",
                (unsigned long long)st.dirty_bytes, lim);
  ck_assert_uint_eq(st.metadata_writes, st.write_allocs + st.destages);
  ck_assert_uint_eq(e->ndone, 400);
  env_free(e);
}
END_TEST

/* Every I/O the cache layer handles pays ssdcache_io_cycles on its thread:
 * client requests (hits and misses), promotions, destage runs, and each
 * cache-device job's completion (kcached) once more. */
START_TEST(test_cache_layer_cpu)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)GiB);
  c.ssdcache.mode = 1;
  c.ssdcache.capacity_bytes = 64 * MiB;
  c.ncache_devs = 1;
  c.ssdcache_io_cycles = 2e4;
  struct env *e = env_new(&c, 4, 5e-3, 100e6);
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < 10; i++) {
      env_submit(e, (uint64_t)i * 65536, 4096, 0, 0);
      env_run(e, INFINITY);
    }
  struct stack_ssdcache_stats st;
  stack_ssdcache_get(e->s, &st);
  ck_assert_uint_eq(st.read_misses, 10);
  ck_assert_uint_eq(st.read_hits, 10);
  /* 20 client reads' look-ups + 10 promotions + the 10 hits' completions */
  ck_assert_msg(fabs(e->cpu_cycles[STACK_THREAD_SSDCACHE] - 40 * 2e4) < 1, "cache-layer cycles %g, want %g",
                e->cpu_cycles[STACK_THREAD_SSDCACHE], 40 * 2e4);
  /* a hit waits for the look-up, then the cache device: 20 us (2e4 cycles
   * at 1 GHz) + 50 us + 4 KiB at 500 MB/s, plus the block layer's share */
  uint64_t last = e->nsub - 1;
  double hit_s = e->done_s[last] - e->submit_s[last];
  ck_assert_msg(hit_s >= 20e-6 + 50e-6 + 4096 / 500e6 - 1e-12, "a hit took %g s: the look-up must precede the device I/O",
                hit_s);
  env_free(e);
}
END_TEST

/* flashcache completes every cache-device job through kcached, the cache
 * layer's one thread: a write that turns a block dirty waits for that pass
 * (its metadata write is issued from there), a rewrite of a dirty block
 * does not (the pass runs detached): the first takes the rewrite's time
 * plus a pass and the metadata write. */
START_TEST(test_kcached_completion_pass)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)GiB);
  c.ssdcache.mode = 2; /* read-write, mirrored */
  c.ssdcache.capacity_bytes = 64 * MiB;
  c.ncache_devs = 2;
  c.ssdcache_io_cycles = 2e4; /* 20 us a pass at the harness's 1 GHz */
  struct env *e = env_new(&c, 4, 5e-3, 100e6);
  env_submit(e, 0, 4096, 1, 1); /* dirtying */
  env_run(e, 1.0);
  env_submit(e, 4096, 4096, 1, 1); /* a rewrite of the now dirty block */
  env_run(e, 2.0);
  struct stack_ssdcache_stats st;
  stack_ssdcache_get(e->s, &st);
  ck_assert_uint_eq(st.write_allocs, 1);
  ck_assert_uint_eq(st.write_hits, 1);
  double dirtying = e->done_s[0] - e->submit_s[0], rewrite = e->done_s[1] - e->submit_s[1];
  double dev = 50e-6 + 4096 / 500e6, pass = 20e-6;
  ck_assert_msg(dirtying >= rewrite + pass + dev - 1e-9, "dirtying write %g s, rewrite %g s: the pass and the metadata write",
                dirtying, rewrite);
  ck_assert_msg(rewrite < pass + dev + pass, "rewrite %g s: waited for its completion pass", rewrite);
  /* two passes per write (map + completion) */
  ck_assert_msg(fabs(e->cpu_cycles[STACK_THREAD_SSDCACHE] - 4 * 2e4) < 1, "cache-layer cycles %g, want %g",
                e->cpu_cycles[STACK_THREAD_SSDCACHE], 4 * 2e4);
  env_free(e);
}
END_TEST

/* One preconditioned mixed run: its counts and completion times. */
struct sc_trace {
  struct stack_ssdcache_stats st;
  double done_sum_s;
  uint64_t member_reads;
};

static struct sc_trace sc_mixed_run(uint64_t seed)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)GiB);
  c.ssdcache.mode = 2;
  c.ssdcache.capacity_bytes = 16 * MiB;
  c.ncache_devs = 2;
  c.seed = seed;
  struct env *e = env_new(&c, 4, 5e-3, 100e6);
  struct stack_precond pc = {.offset_bytes = 0, .len_bytes = 64u << 20, .run_bytes = 4096, .write_fraction = 0.3};
  stack_precondition(e->s, &pc, 1);
  e->qd_target = 16;
  e->fg_span_bytes = 64u << 20;
  e->fg_until_s = 0.5;
  e->fg_mix = 1;
  for (int i = 0; i < e->qd_target; i++)
    env_submit(e, env_rand(e) % (e->fg_span_bytes / 4096) * 4096, 4096, i & 1, 0);
  env_run(e, 0.5);
  env_run(e, INFINITY);
  struct sc_trace tr = {.member_reads = sum_reads(e)};
  stack_ssdcache_get(e->s, &tr.st);
  for (uint64_t i = 0; i < e->nsub; i++)
    tr.done_sum_s += e->done_s[i];
  env_free(e);
  return tr;
}

START_TEST(test_same_seed_identical)
{
  struct sc_trace a = sc_mixed_run(3), b = sc_mixed_run(3), d = sc_mixed_run(4);
  ck_assert_msg(memcmp(&a.st, &b.st, sizeof a.st) == 0 && a.done_sum_s == b.done_sum_s &&
                    a.member_reads == b.member_reads,
                "same seed, different runs: hits %llu/%llu, completion sum %.17g/%.17g",
                (unsigned long long)a.st.read_hits, (unsigned long long)b.st.read_hits, a.done_sum_s, b.done_sum_s);
  ck_assert_msg(a.st.read_hits + a.st.read_misses > 100, "the run did %llu reads",
                (unsigned long long)(a.st.read_hits + a.st.read_misses));
  /* the preconditioned content is drawn from the seed */
  ck_assert_msg(memcmp(&a.st, &d.st, sizeof a.st) != 0 || a.done_sum_s != d.done_sum_s,
                "seeds 3 and 4 gave the same run");
}
END_TEST

/* A sequential job the bypass refuses leaves nothing; without a cache
 * preconditioning is a no-op. */
START_TEST(test_precondition_sequential_and_none)
{
  struct stack_cfg c;
  struct env *e = sc_env(&c, 1, 64 * MiB, 0);
  struct stack_precond pc = {.offset_bytes = 32u << 20, .len_bytes = 16u << 20, .run_bytes = 16u << 20};
  stack_precondition(e->s, &pc, 1);
  struct stack_ssdcache_stats st;
  stack_ssdcache_get(e->s, &st);
  ck_assert_uint_eq(st.used_bytes, 0);
  env_free(e);
  env_volume(&c, RAID_5, (uint64_t)GiB);
  e = env_new(&c, 4, 5e-3, 100e6);
  stack_precondition(e->s, &pc, 1);
  stack_precondition(NULL, &pc, 1);
  ck_assert(isinf(stack_next_event_s(e->s)));
  env_free(e);
}
END_TEST

/* One parameter of a device model's table, by key (the value is a double
 * at the row's offset). */
static void sc_set(const struct disk_model *m, void *params, const char *key, double v)
{
  for (size_t i = 0; i < m->nparams; i++)
    if (strcmp(m->params[i].key, key) == 0) {
      *(double *)((char *)params + m->params[i].offset) = v;
      return;
    }
  ck_abort_msg("no parameter %s in model %s", key, m->name);
}

/* The hit path does not serialise the cache devices (session 10 asked
 * whether the cache is served one I/O at a time: the DS1819+ cache pair
 * showed "100 % busy" at 40k IOPS each).  Two NVMe devices with the
 * SNV3400's catalogue values (8 x 4 dies, 70 us sense, 667 MB/s channels)
 * as a read-write cache, every read a hit, no CPU cost: at QD1 a hit takes
 * one die time (sense + 4 KiB over the channel, the stack adds no serial
 * stage); at QD256 the pair does what its 64 dies allow (balls into bins:
 * 128 reads per device over 32 dies keep ~31.4 busy), ~10 x the 40k a
 * device did in the DS1819+ run, so that ceiling lies above the stack. */
START_TEST(test_hit_path_parallel)
{
  const struct disk_model *m = disk_model_find("nvme");
  ck_assert_ptr_nonnull(m);
  double pb[64];
  ck_assert_uint_le(m->params_size, sizeof pb);
  params_defaults(m->params, m->nparams, pb);
  const char *keys[] = {"capacity", "read_latency", "write_latency", "channels", "dies_per_channel",
                        "channel_rate", "read_rate", "write_rate", "pcie_gen", "pcie_lanes",
                        "power_active", "power_idle"};
  const double vals[] = {400e9, 70e-6, 1e-3, 8, 4, 667e6, 3e9, 750e6, 3, 4, 5, 1};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    sc_set(m, pb, keys[i], vals[i]);
  double die_s = 70e-6 + 4096 / 667e6;
  double iops[2];
  for (int k = 0; k < 2; k++) {
    struct stack_cfg c;
    env_volume(&c, RAID_5, (uint64_t)GiB);
    c.ssdcache.mode = 2;
    c.ssdcache.capacity_bytes = 64 * MiB;
    c.ncache_devs = 2;
    c.seed = 1;
    struct env *e = env_new(&c, 4, 5e-3, 100e6);
    struct disk *fakes[2] = {e->cdev[0], e->cdev[1]};
    for (int d = 0; d < 2; d++)
      e->cdev[d] = disk_create(m, pb, "cache", 500u + (uint64_t)d);
    struct stack_precond pc = {.offset_bytes = 0, .len_bytes = 32u << 20, .run_bytes = 4096};
    ck_assert_int_eq(stack_precondition(e->s, &pc, 1), 0);
    e->qd_target = k ? 256 : 1;
    e->fg_span_bytes = 32u << 20;
    e->fg_until_s = k ? 0.05 : 0.01;
    for (int i = 0; i < e->qd_target; i++)
      env_submit(e, env_rand(e) % (e->fg_span_bytes / 4096) * 4096, 4096, 0, 0);
    env_run(e, e->fg_until_s + 0.01);
    double last_s = 0;
    for (uint64_t i = 0; i < e->nsub; i++)
      last_s = e->done_s[i] > last_s ? e->done_s[i] : last_s;
    struct stack_ssdcache_stats st;
    stack_ssdcache_get(e->s, &st);
    ck_assert_msg(e->ndone == e->nsub, "%llu of %llu done", (unsigned long long)e->ndone, (unsigned long long)e->nsub);
    ck_assert_msg(st.read_misses == 0 && st.read_hits == e->ndone, "%llu hits, %llu misses, %llu done",
                  (unsigned long long)st.read_hits, (unsigned long long)st.read_misses,
                  (unsigned long long)e->ndone);
    iops[k] = (double)e->ndone / last_s;
    for (int d = 0; d < 2; d++) {
      disk_destroy(e->cdev[d]);
      e->cdev[d] = fakes[d];
    }
    env_free(e);
  }
  ck_assert_msg(fabs(iops[0] * die_s - 1) < 0.05, "QD1: %.0f IOPS, one die time %.1f us", iops[0], die_s * 1e6);
  double bins = 32 * (1 - pow(31.0 / 32.0, 128));
  ck_assert_msg(iops[1] > 0.85 * 2 * bins / die_s, "QD256 on the pair: %.0f IOPS, want > %.0f (dies keep busy; a die waits for its shared channel at times)",
                iops[1], 0.85 * 2 * bins / die_s);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("ssdcache");
  TCase *tc = tcase_create("admission");
  tcase_add_test(tc, test_hit_ratio_emerges);
  tcase_add_test(tc, test_kcached_completion_pass);
  tcase_add_test(tc, test_promotion_and_bypass);
  tcase_add_test(tc, test_precondition_sequential_and_none);
  suite_add_tcase(s, tc);
  tc = tcase_create("write-back");
  tcase_add_test(tc, test_metadata_io);
  tcase_add_test(tc, test_destage_under_load);
  suite_add_tcase(s, tc);
  tc = tcase_create("cost");
  tcase_add_test(tc, test_cache_layer_cpu);
  tcase_add_test(tc, test_same_seed_identical);
  tcase_add_test(tc, test_hit_path_parallel);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
