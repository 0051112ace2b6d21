/* Storage stack as an event source: completions, amplification through the
 * stack, background-op timing and throttling, page cache,
 * encryption.  Devices are a test-local FIFO fake (latency + bytes/rate);
 * CPU threads are FIFO servers at a fixed clock. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/storage/raid.h"
#include "storage_harness.c.inc"

#define GiB (1024.0 * 1024.0 * 1024.0)

/* ---- tests ------------------------------------------------------------- */

START_TEST(test_completions_once)
{
  for (int withpc = 0; withpc < 2; withpc++) {
    struct stack_cfg c;
    env_volume(&c, RAID_5, (uint64_t)(1 * GiB));
    c.volume.stripe_cache_entries = 17;
    if (withpc)
      c.pcache.ram_bytes = 64.0 * 1024 * 1024;
    struct env *e = env_new(&c, 4, 5e-3, 150e6);
    for (int i = 0; i < 2000; i++) {
      uint64_t off = env_rand(e) % 20000 * 4096;
      int w = (int)(env_rand(e) % 2);
      env_submit(e, off, 4096 * (1 + env_rand(e) % 16), w, w && (i % 7 == 0));
      if (i % 50 == 49)
        env_run(e, e->now_s + 0.05);
    }
    env_run(e, INFINITY);
    ck_assert_msg(e->ndone == e->nsub, "pc=%d: %llu of %llu completed", withpc,
                  (unsigned long long)e->ndone, (unsigned long long)e->nsub);
    ck_assert(isinf(stack_next_event_s(e->s)));
    env_free(e);
  }
}
END_TEST

START_TEST(test_stack_amplification)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)GiB);
  struct env *e = env_new(&c, 5, 1e-3, 100e6);
  env_submit(e, 0, 4096, 1, 0);
  env_run(e, INFINITY);
  ck_assert_msg(sum_reads(e) == 2 && sum_writes(e) == 2, "RAID-5 small write via stack: %llu+%llu",
                (unsigned long long)sum_reads(e), (unsigned long long)sum_writes(e));
  ck_assert_msg(e->cpu_cycles[STACK_THREAD_RAID] > 0, "parity costs CPU without an engine");
  /* full stripe through the stack: no reads */
  env_submit(e, 4 * 65536, 4 * 65536, 1, 0);
  env_run(e, INFINITY);
  ck_assert_uint_eq(sum_reads(e), 2);
  ck_assert_uint_eq(sum_writes(e), 7);
  ck_assert_uint_eq(e->ndone, 2);
  env_free(e);
}
END_TEST

/* Stripe cache: a burst of contiguous small writes waiting for entries
 * coalesces into fewer, larger member writes. */
START_TEST(test_stripe_cache_coalesce)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)GiB);
  c.volume.stripe_cache_entries = 17;
  struct env *e = env_new(&c, 5, 5e-3, 100e6);
  for (int i = 0; i < 256; i++)
    env_submit(e, (uint64_t)i * 16384, 16384, 1, 0);
  env_run(e, INFINITY);
  ck_assert_uint_eq(e->ndone, 256);
  ck_assert_msg(sum_writes(e) < 256, "coalescing: %llu member writes for 256 client writes",
                (unsigned long long)sum_writes(e));
  env_free(e);
}
END_TEST

/* md's stripe cache streams a request larger than itself: 9-stripe writes
 * need 144 stripe_heads each on 8 members (7 data x 64 KiB chunks), so
 * with the default 256 entries fewer than two fit at once.  md takes the
 * entries row by row and releases each stripe when its writes are done, so
 * the parity of the next rows overlaps the writes of the previous ones and
 * the disks stay busy: with parity work comparable to the disks' the
 * throughput with 256 entries is close to that with 4096.  The entries in
 * use never exceed the cache: no member ever has more write rows queued
 * than there are entries.  Returns the time to write 16 of them at depth 4. */
static double stream_time(double entries, uint64_t *max_rows)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)GiB);
  c.volume.stripe_cache_entries = entries;
  c.volume.parity_cycles_per_byte = 0.5; /* 1 GHz: 2.1 ms of XOR per 4 MiB, a member 3 ms */
  c.stripe_cycles = 0;
  c.stripe_dev_cycles = 0;
  struct env *e = env_new(&c, 8, 1e-5, 200e6);
  const uint64_t req = 9 * 7 * 65536, n = 16; /* 9 full stripes, 144 rows */
  uint64_t next = 0;
  for (;;) {
    while (next < n && e->nsub - e->ndone < 4)
      env_submit(e, req * next++, req, 1, 1);
    double tc = INFINITY;
    for (int i = 0; i < e->ncpu; i++)
      tc = e->cpu_t[i] < tc ? e->cpu_t[i] : tc;
    double ts = stack_next_event_s(e->s), t = ts < tc ? ts : tc;
    if (!(t < INFINITY))
      break;
    env_run(e, t);
  }
  ck_assert_uint_eq(e->ndone, n);
  *max_rows = 0;
  for (int i = 0; i < e->ndev; i++) {
    uint64_t rows = F(e->dev[i])->max_inflight_write_bytes / RAID_PAGE_BYTES;
    *max_rows = rows > *max_rows ? rows : *max_rows;
  }
  double t = e->now_s;
  env_free(e);
  return t;
}

START_TEST(test_stripe_cache_streams)
{
  uint64_t rows_small, rows_big;
  double t_small = stream_time(256, &rows_small);
  double t_big = stream_time(4096, &rows_big);
  ck_assert_msg(t_small < 1.1 * t_big, "63 MiB in 3.9 MiB writes: %.4f s with 256 entries, %.4f s with 4096",
                t_small, t_big);
  ck_assert_msg(rows_small <= 256, "a member had %llu write rows queued with 256 entries",
                (unsigned long long)rows_small);
  ck_assert_msg(rows_big <= 4096, "a member had %llu write rows queued with 4096 entries",
                (unsigned long long)rows_big);
  /* the small cache is full most of the time: at least one 4 MiB request's rows */
  ck_assert_msg(rows_small > 128, "only %llu write rows queued on a member with 256 entries",
                (unsigned long long)rows_small);
}
END_TEST

static double rebuild_time(double max_rate, struct accel *engine)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)(16 * GiB));
  if (max_rate > 0)
    c.volume.speed_limit_max_bytes_per_s = max_rate;
  c.parity_engine = engine;
  struct env *e = env_new(&c, 4, 1e-3, 150e6);
  struct stack_op_report r = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_REBUILD, .failed_member = 2});
  ck_assert_msg(r.end_s > 0 && r.progress == 1.0, "rebuild did not end (%g)", r.progress);
  ck_assert_uint_eq(F(e->dev[2])->write_bytes, c.member_bytes);
  env_free(e);
  return r.end_s - r.start_s;
}

START_TEST(test_rebuild_idle_duration)
{
  double member = 16 * GiB;
  /* disks (150 MB/s) slower than speed_limit_max (200000 KiB/s) */
  double t = rebuild_time(0, NULL);
  double want = member / 150e6;
  ck_assert_msg(fabs(t / want - 1) < 0.02, "rebuild %g s, expected %g s (disk bound)", t, want);
  /* speed_limit_max below the disks */
  t = rebuild_time(50e6, NULL);
  want = member / 50e6;
  ck_assert_msg(fabs(t / want - 1) < 0.02, "rebuild %g s, expected %g s (speed_limit_max)", t,
                want);
  /* parity engine slower than the disks: engine bound (3 data bytes per member byte) */
  struct accel eng;
  accel_init(&eng, "xor", 300e6, 0);
  t = rebuild_time(0, &eng);
  want = member * 3 / 300e6;
  ck_assert_msg(fabs(t / want - 1) < 0.02, "rebuild %g s, expected %g s (engine bound)", t, want);
}
END_TEST

START_TEST(test_rebuild_under_load)
{
  double min_rate = 20e6;
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)(1 * GiB));
  c.volume.speed_limit_min_bytes_per_s = min_rate;
  struct env *e = env_new(&c, 4, 4e-3, 150e6);
  e->qd_target = 8;
  e->fg_span_bytes = 3 * (uint64_t)GiB;
  struct stack_op_cfg op = {.kind = STACK_OP_REBUILD, .failed_member = 1};
  struct nw_err err;
  ck_assert_int_eq(stack_start_op(e->s, 0.0, &op, &err), 0);
  env_submit(e, 0, 4096, 0, 0);
  env_run(e, INFINITY);
  struct stack_op_report r;
  stack_op_get(e->s, 0, &r);
  double rate = (double)c.member_bytes / (r.end_s - r.start_s);
  ck_assert_msg(rate < 0.5 * 150e6, "foreground load should slow the rebuild: %g B/s", rate);
  ck_assert_msg(rate >= 0.98 * min_rate, "rebuild %g B/s below speed_limit_min %g", rate,
                min_rate);
  ck_assert_msg(e->ndone == e->nsub && e->nsub > 1000, "foreground %llu/%llu",
                (unsigned long long)e->ndone, (unsigned long long)e->nsub);
  env_free(e);
}
END_TEST


START_TEST(test_reshape_and_migration)
{
  struct nw_err err;
  struct stack_op_report r;
  /* RAID-5 4 -> 5 */
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)(2 * GiB));
  struct env *e = env_new(&c, 4, 1e-3, 150e6);
  uint64_t cap0 = stack_capacity_bytes(e->s);
  struct stack_op_cfg op = {.kind = STACK_OP_RESHAPE, .new_members = 5};
  ck_assert_int_eq(stack_start_op(e->s, 0.0, &op, &err), 0);
  env_submit(e, 0, 4096, 1, 1); /* foreground during the reshape */
  env_run(e, INFINITY);
  stack_op_get(e->s, 0, &r);
  ck_assert(r.end_s > 0);
  ck_assert_uint_eq(stack_capacity_bytes(e->s), cap0 / 3 * 4);
  ck_assert_msg(F(e->spare[0])->write_bytes > 0, "new member written");
  ck_assert_uint_eq(e->ndone, 1);
  env_free(e);
  /* single -> RAID-1 (copy), then RAID-1 -> RAID-5 on 3 disks */
  env_volume(&c, RAID_SINGLE, (uint64_t)(4 * GiB));
  e = env_new(&c, 1, 1e-3, 150e6);
  r = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_MIGRATE, .target_level = RAID_1, .new_members = 2});
  double want = 4 * GiB / 150e6;
  ck_assert_msg(fabs((r.end_s - r.start_s) / want - 1) < 0.03, "copy %g s want %g s",
                r.end_s - r.start_s, want);
  ck_assert_uint_eq(F(e->spare[0])->write_bytes, 4 * (uint64_t)GiB);
  ck_assert_uint_eq(stack_capacity_bytes(e->s), 4 * (uint64_t)GiB);
  r = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_MIGRATE, .target_level = RAID_5, .new_members = 3});
  ck_assert_int_eq(stack_op_count(e->s), 2);
  ck_assert(r.end_s > 0);
  ck_assert_uint_eq(stack_capacity_bytes(e->s), 8 * (uint64_t)GiB);
  op = (struct stack_op_cfg){.kind = STACK_OP_MIGRATE, .target_level = RAID_6, .new_members = 9};
  ck_assert_int_eq(stack_start_op(e->s, e->now_s, &op, &err), -1);
  env_free(e);
}
END_TEST

/* An idle md reshape, all else free (no CPU, no throttle, FIFO devices of
 * latency L and rate R): windows of the stripe cache, whose reads of the
 * old rows and writes of the new rows go to the members together (an old
 * member serves its read, then its write; the added member only writes);
 * superblock checkpoints cost a 4 KiB write plus the flush.  The duration
 * follows analytically. */
static double reshape_expect(uint64_t M, uint64_t w, int od, int nd, uint64_t chunk, double L, double R,
                             int checkpoints, double flush_s)
{
  uint64_t cap = M * (uint64_t)od, crit = chunk * (uint64_t)od * (uint64_t)nd;
  double t = 0;
  for (uint64_t p = 0; p < M; p += w) {
    uint64_t len = M - p < w ? M - p : w;
    uint64_t l0 = p * (uint64_t)nd, l1 = (p + len) * (uint64_t)nd;
    uint64_t rd = l0 < cap ? (l1 < cap ? l1 : cap) / (uint64_t)od - l0 / (uint64_t)od : 0;
    double tr = rd > 0 ? L + (double)rd / R : 0, tw = L + (double)len / R, tnew = tw;
    if (p == 0) /* critical-section backup: its reads are the first window's own (one extent),
                   its copy one more write on the last new member */
      tnew += L + (double)crit / R;
    t += tr + tw > tnew ? tr + tw : tnew;
  }
  return t + checkpoints * (L + 4096.0 / R + flush_s);
}

START_TEST(test_reshape_window_analytic)
{
  double L = 0.5e-3, R = 200e6, flush = 2e-3, d[2];
  uint64_t M = 256u << 20;
  for (int k = 0; k < 2; k++) {
    struct stack_cfg c;
    env_volume(&c, RAID_5, M);
    c.volume.stripe_cache_entries = k == 0 ? 256 : 1024;
    c.stripe_cycles = 0;
    c.stripe_dev_cycles = 0;
    c.volume.parity_cycles_per_byte = 0;
    c.volume.speed_limit_max_bytes_per_s = 10 * GiB;
    c.volume.superblock_flush_s = flush;
    struct env *e = env_new(&c, 3, L, R);
    struct stack_op_report r = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_RESHAPE, .new_members = 4});
    d[k] = r.end_s - r.start_s;
    /* 3 -> 4: D 2 -> 3, (1 + 3/2) stripe_heads per new row; whole 64 KiB chunks */
    uint64_t rows = (uint64_t)(c.volume.stripe_cache_entries / 2.5);
    rows -= rows % 16;
    double want = reshape_expect(M, rows * 4096, 2, 3, 65536, L, R, r.checkpoints, flush);
    ck_assert_msg(r.checkpoints >= 5, "stripe cache %g: %d checkpoints: the safety rule must force some",
                  c.volume.stripe_cache_entries, r.checkpoints);
    ck_assert_msg(fabs(d[k] / want - 1) < 1e-6, "stripe cache %g: reshape %.6f s, analytic %.6f s",
                  c.volume.stripe_cache_entries, d[k], want);
    /* every new member written over its whole range: md zero-fills beyond the old data */
    ck_assert_uint_eq(F(e->spare[0])->write_bytes, M + 6 * 65536u + r.checkpoints * 4096u); /* + backup */
    env_free(e);
  }
  ck_assert_msg(d[1] < 0.9 * d[0], "a 4x stripe cache must cut the per-window latencies: %g s vs %g s", d[1],
                d[0]);
}
END_TEST

START_TEST(test_lru_hand_count)
{
  /* 3 blocks of 4 KiB; stream of block numbers */
  struct pcache *pc = pcache_create(3 * 4096, 4096);
  int stream[] = {1, 2, 3, 1, 4, 2, 5, 1, 2, 3, 4, 5};
  /* hand count (LRU, 3 entries):
   * 1m 2m 3m 1h 4m(evict 2) 2m(evict 3) 5m(evict 1) 1m(evict 4) 2h 3m(evict 5) 4m(evict 1) 5m(evict 2)
   * => 2 hits, 10 misses */
  for (size_t i = 0; i < sizeof stream / sizeof stream[0]; i++) {
    uint64_t h, t;
    pcache_lookup(pc, (uint64_t)stream[i] * 4096, 4096, 1, &h, &t);
    if (h == 0)
      pcache_insert(pc, (uint64_t)stream[i] * 4096, 4096, 0, 0);
  }
  ck_assert_msg(pcache_hit_blocks(pc) == 2 && pcache_miss_blocks(pc) == 10, "hits %llu misses %llu",
                (unsigned long long)pcache_hit_blocks(pc), (unsigned long long)pcache_miss_blocks(pc));
  /* dirty blocks are not evicted; take_dirty returns the oldest run */
  pcache_insert(pc, 100 * 4096, 2 * 4096, 1, 1.0);
  ck_assert_uint_eq(pcache_insert(pc, 200 * 4096, 2 * 4096, 1, 2.0), 1);
  ck_assert_uint_eq(pcache_dirty_bytes(pc), 3 * 4096);
  ck_assert_double_eq(pcache_oldest_dirty_s(pc), 1.0);
  uint64_t off, len;
  ck_assert(pcache_take_dirty(pc, 1 << 20, &off, &len));
  ck_assert_uint_eq(off, 100 * 4096);
  ck_assert_uint_eq(len, 2 * 4096);
  pcache_destroy(pc);
}
END_TEST

/* pcache_present_run_end/start stop where a walk one page at a time
 * (pcache_lookup of each page) stops, over random caches with evictions,
 * invalidations and partly present blocks; 16 and 64 pages a block. */
static uint64_t walk_up(struct pcache *pc, uint64_t x, uint64_t limit)
{
  uint64_t pg = pcache_unit_bytes(pc), hit, total;
  while (x < limit) {
    pcache_lookup(pc, x - x % pg, pg, 0, &hit, &total);
    if (hit != total)
      break;
    x = x - x % pg + pg;
  }
  return x;
}

static uint64_t walk_down(struct pcache *pc, uint64_t y, uint64_t limit)
{
  uint64_t pg = pcache_unit_bytes(pc), hit, total;
  while (limit < y) {
    pcache_lookup(pc, (y - 1) - (y - 1) % pg, pg, 0, &hit, &total);
    if (hit != total)
      break;
    y = (y - 1) - (y - 1) % pg;
  }
  return y;
}

START_TEST(test_present_runs)
{
  uint64_t seed = 12345;
  for (int layout = 0; layout < 2; layout++) {
    uint64_t block = layout ? 65536 * 4 : 65536, pg = 4096, span = 64 * block;
    struct pcache *pc = pcache_create(24 * block, block);
    ck_assert_int_eq(pcache_set_unit(pc, pg), 0);
    for (int round = 0; round < 3000; round++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      uint64_t r = seed >> 11, off = r % span, len = 1 + (r >> 20) % (3 * block);
      if (r % 7 == 0)
        pcache_invalidate(pc, off, len);
      else
        pcache_insert(pc, off, len, (int)(r % 3 == 0), 1.0);
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      uint64_t a = (seed >> 11) % span, b = a + (seed >> 40) % (4 * block);
      ck_assert_msg(pcache_present_run_end(pc, a, b) == walk_up(pc, a, b), "up from %llu to %llu: %llu vs %llu",
                    (unsigned long long)a, (unsigned long long)b,
                    (unsigned long long)pcache_present_run_end(pc, a, b), (unsigned long long)walk_up(pc, a, b));
      ck_assert_msg(pcache_present_run_start(pc, b, a) == walk_down(pc, b, a),
                    "down from %llu to %llu: %llu vs %llu", (unsigned long long)b, (unsigned long long)a,
                    (unsigned long long)pcache_present_run_start(pc, b, a), (unsigned long long)walk_down(pc, b, a));
    }
    pcache_destroy(pc);
  }
}
END_TEST

/* Dirty bits per 4 KiB unit inside 64 KiB blocks, checked by hand. */
START_TEST(test_dirty_units)
{
  struct pcache *pc = pcache_create(4 * 65536, 65536);
  ck_assert_int_eq(pcache_set_unit(pc, 3000), -1); /* does not divide the block */
  ck_assert_int_eq(pcache_set_unit(pc, 512), -1);  /* 128 units > 64 */
  ck_assert_int_eq(pcache_set_unit(pc, 4096), 0);
  pcache_insert(pc, 5 * 4096, 4096, 1, 1.0);          /* block 0, unit 5 */
  pcache_insert(pc, 5 * 4096 + 100, 10, 1, 2.0);      /* same page: nothing new */
  pcache_insert(pc, 65536 - 4096, 8192, 1, 3.0);      /* block 0 unit 15 + block 1 unit 0 */
  pcache_insert(pc, 3 * 65536 + 8192, 100, 1, 4.0);   /* block 3, unit 2 */
  ck_assert_uint_eq(pcache_dirty_bytes(pc), 4 * 4096);
  ck_assert_uint_eq(pcache_capacity_bytes(pc), 4 * 65536);
  /* dirty bytes of a range: units overlapping it */
  ck_assert_uint_eq(pcache_dirty_bytes_in(pc, 0, 65536), 2 * 4096);         /* units 5, 15 of block 0 */
  ck_assert_uint_eq(pcache_dirty_bytes_in(pc, 5 * 4096 + 100, 1), 4096);    /* inside unit 5 */
  ck_assert_uint_eq(pcache_dirty_bytes_in(pc, 6 * 4096, 9 * 4096), 0);       /* units 6..14 */
  ck_assert_uint_eq(pcache_dirty_bytes_in(pc, 65536 - 4096, 8192), 2 * 4096); /* across blocks 0-1 */
  ck_assert_uint_eq(pcache_dirty_bytes_in(pc, 0, 1 << 20), 4 * 4096);
  ck_assert_uint_eq(pcache_dirty_bytes_in(pc, 0, 0), 0);
  ck_assert_double_eq(pcache_oldest_dirty_s(pc), 1.0);
  uint64_t off, len;
  /* oldest block 0: first run is unit 5 alone */
  ck_assert(pcache_take_dirty(pc, 1 << 20, &off, &len));
  ck_assert_uint_eq(off, 5 * 4096);
  ck_assert_uint_eq(len, 4096);
  ck_assert_double_eq(pcache_oldest_dirty_s(pc), 1.0); /* block 0 still has unit 15 */
  /* then unit 15, continued into block 1's unit 0 */
  ck_assert(pcache_take_dirty(pc, 1 << 20, &off, &len));
  ck_assert_uint_eq(off, 65536 - 4096);
  ck_assert_uint_eq(len, 8192);
  ck_assert(pcache_take_dirty(pc, 1 << 20, &off, &len));
  ck_assert_uint_eq(off, 3 * 65536 + 8192);
  ck_assert_uint_eq(len, 4096);
  ck_assert_uint_eq(pcache_dirty_bytes(pc), 0);
  ck_assert(!pcache_take_dirty(pc, 1 << 20, &off, &len));
  /* RAM is counted in pages: 64 blocks with one dirty page each fill the
   * 4 x 64 KiB (the clean pages left by write-back are evicted for them),
   * where whole blocks would have stopped at 4 */
  for (uint64_t b = 10; b < 74; b++)
    ck_assert_uint_eq(pcache_insert(pc, b * 65536, 4096, 1, 5.0), 0);
  ck_assert_uint_eq(pcache_dirty_bytes(pc), 64 * 4096);
  ck_assert_uint_eq(pcache_used_bytes(pc), 4 * 65536);
  ck_assert_uint_eq(pcache_insert(pc, 80 * 65536, 4096, 1, 5.0), 1); /* full of dirty pages */
  ck_assert_uint_eq(pcache_insert(pc, 10 * 65536 + 4096, 4096, 1, 5.0), 1); /* a new page of a block too */
  pcache_invalidate(pc, 10 * 65536, 65536);
  ck_assert_uint_eq(pcache_dirty_bytes(pc), 63 * 4096);
  ck_assert_uint_eq(pcache_used_bytes(pc), 63 * 4096);
  pcache_destroy(pc);
}
END_TEST

/* Present units: a 4 KiB read miss caches that page only, a write makes
 * its pages present, a lookup hits only where every requested page is
 * present; invalidating part of a block keeps its other pages. */
START_TEST(test_present_units)
{
  struct pcache *pc = pcache_create(4 * 65536, 65536);
  ck_assert_int_eq(pcache_set_unit(pc, 4096), 0);
  uint64_t h, t;
  pcache_insert(pc, 5 * 4096, 4096, 0, 0.0); /* read from the disks: page 5 */
  ck_assert_uint_eq(pcache_used_bytes(pc), 4096);
  pcache_lookup(pc, 5 * 4096, 4096, 1, &h, &t);
  ck_assert(h == 1 && t == 1);
  pcache_lookup(pc, 6 * 4096, 4096, 1, &h, &t); /* same block, never read */
  ck_assert(h == 0 && t == 1);
  pcache_lookup(pc, 0, 65536, 1, &h, &t); /* the whole block: partly present, a miss */
  ck_assert(h == 0 && t == 1);
  ck_assert_uint_eq(pcache_hit_blocks(pc), 1);
  ck_assert_uint_eq(pcache_miss_blocks(pc), 2);
  pcache_insert(pc, 6 * 4096 + 100, 50, 1, 1.0); /* a write makes page 6 present and dirty */
  pcache_lookup(pc, 5 * 4096, 8192, 0, &h, &t);
  ck_assert(h == 1 && t == 1);
  ck_assert_uint_eq(pcache_used_bytes(pc), 2 * 4096);
  ck_assert_uint_eq(pcache_dirty_bytes(pc), 4096);
  pcache_invalidate(pc, 5 * 4096, 4096); /* page 5 only: dirty page 6 stays */
  ck_assert_uint_eq(pcache_used_bytes(pc), 4096);
  ck_assert_uint_eq(pcache_dirty_bytes(pc), 4096);
  pcache_lookup(pc, 6 * 4096, 4096, 0, &h, &t);
  ck_assert_uint_eq(h, 1);
  pcache_invalidate(pc, 6 * 4096, 4096); /* the last page: the block goes */
  ck_assert_uint_eq(pcache_used_bytes(pc), 0);
  ck_assert_uint_eq(pcache_dirty_bytes(pc), 0);
  ck_assert_int_eq(pcache_set_unit(pc, 8192), 0); /* empty again: the unit may change */
  pcache_destroy(pc);
}
END_TEST

/* Eviction by present bytes: 64 single pages in 64 blocks fill 4 x 64 KiB;
 * a whole block read then evicts the 16 least recently used of them, not
 * 16 blocks' worth of RAM that was never used. */
START_TEST(test_present_eviction)
{
  struct pcache *pc = pcache_create(4 * 65536, 65536);
  ck_assert_int_eq(pcache_set_unit(pc, 4096), 0);
  for (uint64_t b = 0; b < 64; b++)
    ck_assert_uint_eq(pcache_insert(pc, b * 65536 + 4096, 4096, 0, 0.0), 0);
  ck_assert_uint_eq(pcache_used_bytes(pc), 4 * 65536);
  uint64_t h, t;
  pcache_lookup(pc, 0 * 65536 + 4096, 4096, 1, &h, &t); /* block 0 becomes most recently used */
  ck_assert_uint_eq(h, 1);
  ck_assert_uint_eq(pcache_insert(pc, 100 * 65536, 65536, 0, 0.0), 0);
  ck_assert_uint_eq(pcache_used_bytes(pc), 4 * 65536);
  for (uint64_t b = 0; b < 64; b++) {
    pcache_lookup(pc, b * 65536 + 4096, 4096, 0, &h, &t);
    int evicted = b >= 1 && b <= 16; /* the 16 coldest (block 0 was touched) */
    ck_assert_msg(h == (uint64_t)!evicted, "block %llu: hit %llu", (unsigned long long)b, (unsigned long long)h);
  }
  /* growing a clean block that is itself the coldest: it is not evicted
   * for its own new pages */
  struct pcache *q = pcache_create(2 * 65536, 65536);
  ck_assert_int_eq(pcache_set_unit(q, 4096), 0);
  pcache_insert(q, 0, 4096, 0, 0.0);          /* block 0: 1 page, coldest */
  pcache_insert(q, 65536, 65536, 0, 0.0);     /* block 1: 16 pages */
  pcache_insert(q, 2 * 65536, 10 * 4096, 0, 0.0); /* block 2: 10 pages; 27 of 32 */
  ck_assert_uint_eq(pcache_insert(q, 4096, 15 * 4096, 0, 0.0), 0);
  pcache_lookup(q, 0, 65536, 0, &h, &t);
  ck_assert_uint_eq(h, 1);
  ck_assert_uint_eq(pcache_used_bytes(q), 26 * 4096);
  pcache_lookup(q, 65536, 4096, 0, &h, &t); /* block 1 gave way */
  ck_assert_uint_eq(h, 0);
  pcache_lookup(q, 2 * 65536, 10 * 4096, 0, &h, &t);
  ck_assert_uint_eq(h, 1);
  pcache_destroy(q);
  pcache_destroy(pc);
}
END_TEST

/* One unit a block (the SSD-cache directory): any byte of a block caches
 * and hits it whole, RAM in whole blocks, as before units existed. */
START_TEST(test_unit_is_block)
{
  struct pcache *pc = pcache_create(2 * 65536, 65536);
  ck_assert_uint_eq(pcache_unit_bytes(pc), 65536);
  uint64_t h, t;
  pcache_insert(pc, 100, 10, 0, 0.0);
  ck_assert_uint_eq(pcache_used_bytes(pc), 65536);
  pcache_lookup(pc, 60000, 5000, 1, &h, &t);
  ck_assert(h == 1 && t == 1);
  pcache_insert(pc, 65536 + 5, 1, 1, 1.0);
  ck_assert_uint_eq(pcache_dirty_bytes(pc), 65536);
  pcache_insert(pc, 3 * 65536, 1, 0, 0.0); /* evicts clean block 0 */
  pcache_lookup(pc, 0, 1, 0, &h, &t);
  ck_assert_uint_eq(h, 0);
  ck_assert_uint_eq(pcache_insert(pc, 4 * 65536, 1, 1, 2.0), 0); /* evicts clean block 3 */
  ck_assert_uint_eq(pcache_insert(pc, 5 * 65536, 1, 1, 2.0), 1); /* all dirty */
  pcache_invalidate(pc, 65536 + 7, 1); /* any byte drops the whole block */
  ck_assert_uint_eq(pcache_dirty_bytes(pc), 65536);
  ck_assert_uint_eq(pcache_used_bytes(pc), 65536);
  pcache_destroy(pc);
}
END_TEST

/* Write-back sweeps a file's dirty pages in ascending order from a cursor
 * and wraps (write_cache_pages, range_cyclic), whatever order they were
 * dirtied in; pages dirtied behind the cursor wait for the next pass. */
START_TEST(test_dirty_sweep_order)
{
  struct pcache *pc = pcache_create(64 * 65536, 65536);
  ck_assert_int_eq(pcache_set_unit(pc, 4096), 0);
  static const uint64_t dirtied[] = {7, 2, 9, 4}; /* blocks, in dirtying order */
  for (int i = 0; i < 4; i++)
    pcache_insert(pc, dirtied[i] * 65536, 4096, 1, (double)i);
  uint64_t off, len;
  ck_assert(pcache_take_dirty_sweep(pc, 1 << 20, &off, &len));
  ck_assert_uint_eq(off, 2 * 65536);
  ck_assert(pcache_take_dirty_sweep(pc, 1 << 20, &off, &len));
  ck_assert_uint_eq(off, 4 * 65536);
  /* dirtied during the pass: block 3 behind the cursor, block 20 ahead of
   * it; the pass goes on with what was dirty when it began (7, 9) */
  pcache_insert(pc, 3 * 65536, 4096, 1, 10.0);
  pcache_insert(pc, 20 * 65536, 4096, 1, 11.0);
  ck_assert(pcache_take_dirty_sweep(pc, 1 << 20, &off, &len));
  ck_assert_uint_eq(off, 7 * 65536);
  ck_assert(pcache_take_dirty_sweep(pc, 1 << 20, &off, &len));
  ck_assert_uint_eq(off, 9 * 65536);
  /* next pass from the cursor (after block 9): 20, then wrap to 3 */
  ck_assert(pcache_take_dirty_sweep(pc, 1 << 20, &off, &len));
  ck_assert_uint_eq(off, 20 * 65536);
  ck_assert(pcache_take_dirty_sweep(pc, 1 << 20, &off, &len));
  ck_assert_uint_eq(off, 3 * 65536);
  ck_assert(!pcache_take_dirty_sweep(pc, 1 << 20, &off, &len));
  ck_assert_uint_eq(pcache_dirty_bytes(pc), 0);
  pcache_destroy(pc);
}
END_TEST

/* A file's close writes back that file's dirty pages only, in runs in
 * ascending order cut at a clean page and at max_bytes (filemap_flush over
 * the file's range), from inside a block and across blocks; the pages
 * outside the range stay dirty for the flusher. */
START_TEST(test_dirty_take_in_range)
{
  struct pcache *pc = pcache_create(64 * 65536, 65536);
  ck_assert_int_eq(pcache_set_unit(pc, 4096), 0);
  pcache_insert(pc, 0, 65536, 1, 0.0);              /* block 0: another file */
  pcache_insert(pc, 65536 + 8192, 120 * 1024, 1, 1.0); /* the file: block 1 from page 2 into block 2 */
  pcache_insert(pc, 65536 + 200 * 1024, 4096, 1, 2.0); /* ... and a page after a clean gap */
  uint64_t off, len;
  ck_assert(pcache_take_dirty_in(pc, 65536, 4 * 65536, 1 << 20, &off, &len));
  ck_assert_msg(off == 65536 + 8192 && len == 120 * 1024, "run %llu+%llu, want %d+%d", (unsigned long long)off,
                (unsigned long long)len, 65536 + 8192, 120 * 1024);
  ck_assert(pcache_take_dirty_in(pc, 65536, 4 * 65536, 8192, &off, &len)); /* at most one page here */
  ck_assert_msg(off == 65536 + 200 * 1024 && len == 4096, "run %llu+%llu", (unsigned long long)off,
                (unsigned long long)len);
  ck_assert(!pcache_take_dirty_in(pc, 65536, 4 * 65536, 1 << 20, &off, &len));
  ck_assert_uint_eq(pcache_dirty_bytes(pc), 65536); /* the other file's block */
  ck_assert_uint_eq(pcache_dirty_bytes_in(pc, 0, 65536), 65536);
  ck_assert(!pcache_take_dirty_in(pc, 65536, 0, 1 << 20, &off, &len));
  pcache_destroy(pc);
}
END_TEST

/* Random 4 KiB writes through the page cache: the flusher writes back
 * each scattered page as its own request, so its CPU is exactly
 * pages x (per request + 4096 x per byte). */
START_TEST(test_flush_per_page_cost)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)GiB);
  c.pcache.ram_bytes = 64.0 * 1024 * 1024;
  c.pcache.flush_cycles_per_request = 3e4;
  c.pcache.flush_cycles_per_byte = 0.5;
  struct env *e = env_new(&c, 4, 1e-4, 200e6);
  int pages = 300;
  for (int i = 0; i < pages; i++) /* one page in every other 64 KiB block: never adjacent */
    env_submit(e, (uint64_t)i * 2 * 65536 + (uint64_t)(i % 16) * 4096, 4096, 1, 0);
  env_run(e, INFINITY); /* dirty_expire writes them back */
  ck_assert_uint_eq(stack_dirty_bytes(e->s), 0);
  double want = pages * (3e4 + 4096 * 0.5);
  ck_assert_msg(fabs(e->cpu_cycles[STACK_THREAD_FLUSH] - want) < 1e-6 * want,
                "flusher cycles %.0f, expected %.0f (%d pages, one request each)",
                e->cpu_cycles[STACK_THREAD_FLUSH], want, pages);
  env_free(e);
}
END_TEST

/* fsync of a file's range (stack_fsync, an NFSv3 COMMIT): it completes
 * once the range's dirty pages are on the disks and the journal's commit
 * block after them, leaving the pages outside the range dirty; a range
 * with nothing dirty completes at once, with no disk I/O. */
START_TEST(test_fsync_range)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)GiB);
  c.pcache.ram_bytes = 256.0 * 1024 * 1024;
  struct env *e = env_new(&c, 4, 1e-3, 100e6);
  const uint64_t file = 8u << 20, other = 64u << 20;
  for (uint64_t off = 0; off < file; off += 1 << 20) /* the file, then another's pages */
    env_submit(e, off, 1 << 20, 1, 0);
  env_submit(e, other, 1 << 20, 1, 0);
  env_run(e, e->now_s + 1e-3); /* all absorbed, below the background limit */
  ck_assert_uint_eq(e->ndone, e->nsub);
  ck_assert_uint_eq(stack_dirty_bytes(e->s), file + (1 << 20));
  uint64_t tag = e->nsub++, w0 = 0;
  for (int d = 0; d < e->ndev; d++)
    w0 += ((struct fake *)e->dev[d]->priv)->write_bytes;
  e->submit_s[tag] = e->now_s;
  stack_fsync(e->s, e->now_s, 0, file, tag);
  env_run(e, e->now_s + 5.0); /* well before the dirty pages expire */
  ck_assert_msg(e->done[tag] == 1, "the fsync completed %d times", e->done[tag]);
  uint64_t w1 = 0;
  for (int d = 0; d < e->ndev; d++)
    w1 += ((struct fake *)e->dev[d]->priv)->write_bytes;
  /* RAID-5 on 4 members: the file and its parity (4/3), and the journal
   * block with its parity (a read-modify-write: 2 blocks written) */
  double want = (double)file * 4.0 / 3.0 + 2 * 4096.0;
  ck_assert_msg(fabs((double)(w1 - w0) - want) < 0.01 * want, "fsync wrote %llu bytes to the members, want %.0f",
                (unsigned long long)(w1 - w0), want);
  /* the file's 8 MiB at 3 x 100 MB/s of data members at least */
  double took = e->done_s[tag] - e->submit_s[tag];
  ck_assert_msg(took > (double)file / 300e6, "fsync took %.2f ms", took * 1e3);
  ck_assert_uint_eq(stack_dirty_bytes(e->s), 1 << 20); /* the other file's page stays dirty */
  tag = e->nsub++;
  e->submit_s[tag] = e->now_s;
  stack_fsync(e->s, e->now_s, 0, file, tag); /* nothing dirty left in the range */
  env_run(e, e->now_s + 1e-3);
  ck_assert_msg(e->done[tag] == 1 && e->done_s[tag] - e->submit_s[tag] < 1e-3,
                "a clean range's fsync: done %d after %.3f ms", e->done[tag], (e->done_s[tag] - e->submit_s[tag]) * 1e3);
  env_free(e);
}
END_TEST

START_TEST(test_dirty_threshold)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)(4 * GiB));
  c.pcache.ram_bytes = 256.0 * 1024 * 1024;
  struct env *e = env_new(&c, 4, 2e-3, 50e6);
  uint64_t limit = (uint64_t)(c.pcache.dirty_ratio * c.pcache.ram_bytes), maxd = 0;
  /* a writer far faster than the disks: 1 GiB in 1 MiB writes, 2 in flight */
  uint64_t off = 0;
  while (off < (uint64_t)GiB || e->ndone < e->nsub) {
    while (off < (uint64_t)GiB && e->nsub - e->ndone < 2) {
      env_submit(e, off, 1 << 20, 1, 0);
      off += 1 << 20;
    }
    uint64_t d = stack_dirty_bytes(e->s);
    maxd = d > maxd ? d : maxd;
    double t = stack_next_event_s(e->s);
    if (e->ncpu > 0) {
      env_run(e, t); /* lets CPU jobs run too */
      continue;
    }
    e->now_s = t;
    stack_advance(e->s, t);
  }
  ck_assert_msg(maxd <= limit, "dirty %llu above dirty_ratio limit %llu",
                (unsigned long long)maxd, (unsigned long long)limit);
  ck_assert_msg(maxd > limit / 2, "the writer should reach the limit (max dirty %llu)",
                (unsigned long long)maxd);
  ck_assert(e->cpu_cycles[STACK_THREAD_FLUSH] > 0);
  env_run(e, INFINITY);
  ck_assert_uint_eq(stack_dirty_bytes(e->s), 0);
  env_free(e);
}
END_TEST

START_TEST(test_readahead_hits)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)GiB);
  c.pcache.ram_bytes = 64.0 * 1024 * 1024;
  struct env *e = env_new(&c, 4, 2e-3, 100e6);
  for (int i = 0; i < 256; i++) { /* sequential 4 KiB reads, QD 1 */
    env_submit(e, (uint64_t)i * 4096, 4096, 0, 0);
    env_run(e, INFINITY);
  }
  uint64_t r = sum_reads(e);
  ck_assert_msg(r < 64, "read-ahead: %llu member reads for 256 sequential 4 KiB reads",
                (unsigned long long)r);
  ck_assert_uint_eq(e->ndone, 256);
  env_free(e);
}
END_TEST


START_TEST(test_encryption_cost)
{
  struct stack_cfg c;
  env_volume(&c, RAID_1, (uint64_t)GiB);
  c.crypt.enabled = 1;
  c.crypt.cpu_cycles_per_byte = 20;
  struct env *e = env_new(&c, 2, 1e-3, 100e6);
  env_submit(e, 0, 65536, 1, 1);
  env_run(e, INFINITY);
  ck_assert_double_eq(e->cpu_cycles[STACK_THREAD_CRYPT], 65536.0 * 20);
  env_submit(e, 0, 65536, 0, 0);
  env_run(e, INFINITY);
  ck_assert_double_eq(e->cpu_cycles[STACK_THREAD_CRYPT], 2 * 65536.0 * 20);
  env_free(e);
  /* with an engine: no CPU, the engine's clock moves */
  env_volume(&c, RAID_1, (uint64_t)GiB);
  c.crypt.enabled = 1;
  struct accel eng;
  accel_init(&eng, "aes", 100e6, 0);
  c.crypto_engine = &eng;
  e = env_new(&c, 2, 1e-3, 100e6);
  env_submit(e, 0, 65536, 1, 1);
  env_run(e, INFINITY);
  ck_assert_double_eq(e->cpu_cycles[STACK_THREAD_CRYPT], 0);
  ck_assert_double_eq(eng.bytes, 65536.0);
  env_free(e);
}
END_TEST



START_TEST(test_decrypt_cost)
{
  /* CPU: reads use the decryption cost, writes the encryption cost */
  struct stack_cfg c;
  env_volume(&c, RAID_1, (uint64_t)GiB);
  c.crypt.enabled = 1;
  c.crypt.cpu_cycles_per_byte = 20;
  c.crypt.cpu_decrypt_cycles_per_byte = 5;
  struct env *e = env_new(&c, 2, 1e-3, 100e6);
  env_submit(e, 0, 65536, 1, 1);
  env_run(e, INFINITY);
  env_submit(e, 0, 65536, 0, 0);
  env_run(e, INFINITY);
  ck_assert_msg(e->cpu_cycles[STACK_THREAD_CRYPT] == 65536.0 * 25, "crypt cycles %g, expected %g",
                e->cpu_cycles[STACK_THREAD_CRYPT], 65536.0 * 25);
  env_free(e);
  /* engine: a decryption job occupies it 1/speedup of an encryption job */
  env_volume(&c, RAID_1, (uint64_t)GiB);
  c.crypt.enabled = 1;
  struct accel eng;
  accel_init(&eng, "aes", 100e6, 0);
  c.crypto_engine = &eng;
  c.crypto_engine_decrypt_speedup = 4;
  e = env_new(&c, 2, 1e-3, 100e6);
  env_submit(e, 0, 65536, 0, 0);
  env_run(e, INFINITY);
  ck_assert_msg(fabs(eng.busy_s - 65536.0 / 4 / 100e6) < 1e-12, "engine busy %g s for a 64 KiB decrypt",
                eng.busy_s);
  env_submit(e, 0, 65536, 1, 1);
  env_run(e, INFINITY);
  ck_assert_msg(fabs(eng.busy_s - 65536.0 * 1.25 / 100e6) < 1e-12, "engine busy %g s after the encrypt",
                eng.busy_s);
  env_free(e);
}
END_TEST


/* eCryptfs keeps decrypted pages in the page cache: a sequential reader
 * whose requests are larger than the read-ahead window (1 MiB reads at
 * QD 4, md's 384 KiB window) reads every byte from the disks once and
 * decrypts it once; a request overlapping a read-ahead in flight waits
 * for it and reads only the rest. */
START_TEST(test_decrypt_once)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)GiB); /* of 4: no parity reads when not degraded */
  c.pcache.ram_bytes = 256.0 * 1024 * 1024;
  c.crypt.enabled = 1;
  c.crypt.cpu_cycles_per_byte = 10;
  struct env *e = env_new(&c, 4, 1e-4, 200e6);
  const uint64_t req = 1u << 20, n = 64;
  while (e->ndone < n) {
    while (e->nsub < n && e->nsub - e->ndone < 4)
      env_submit(e, e->nsub * req, req, 0, 0);
    double step_s = e->now_s + 1e-4;
    env_run(e, step_s);
    e->now_s = step_s;
  }
  env_run(e, INFINITY);
  uint64_t disk_bytes = 0;
  for (int i = 0; i < e->ndev; i++)
    disk_bytes += F(e->dev[i])->read_bytes;
  double dec_bytes = e->cpu_cycles[STACK_THREAD_CRYPT] / 10.0;
  double client_bytes = (double)(n * req);
  ck_assert_msg(dec_bytes == (double)disk_bytes, "decrypted %g B, read from the disks %llu B", dec_bytes,
                (unsigned long long)disk_bytes);
  /* at most two read-ahead windows (384 KiB each here) beyond the last
   * request: the current window's asynchronous part and the next */
  ck_assert_msg(dec_bytes <= client_bytes + 2 * 384.0 * 1024, "decrypted %g B for %g B read by the client",
                dec_bytes, client_bytes);
  ck_assert_msg(dec_bytes >= client_bytes, "decrypted %g B < %g B read", dec_bytes, client_bytes);
  ck_assert_uint_eq(e->ndone, n);
  env_free(e);
}
END_TEST

/* Every request sent to a disk costs disk_request_cycles on the block
 * thread, whatever sent it: a RAID-5 read-modify-write of one 4 KiB page
 * is 4 member I/Os (read old data and parity, write both), a full-stripe
 * write one per member, a read one per member touched. */
START_TEST(test_disk_request_cycles)
{
  struct stack_cfg c;
  env_volume(&c, RAID_5, (uint64_t)GiB); /* 4 members */
  c.disk_request_cycles = 7000;
  struct env *e = env_new(&c, 4, 1e-4, 200e6);
  env_submit(e, 0, 4096, 1, 1); /* sync: no page cache anyway */
  env_run(e, INFINITY);
  ck_assert_msg(sum_reads(e) == 2 && sum_writes(e) == 2, "RMW: %llu reads, %llu writes",
                (unsigned long long)sum_reads(e), (unsigned long long)sum_writes(e));
  ck_assert_msg(e->cpu_cycles[STACK_THREAD_BLOCK] == 4 * 7000.0, "RMW: %g block cycles, want 4 x 7000",
                e->cpu_cycles[STACK_THREAD_BLOCK]);
  /* full stripe (3 data chunks): 4 writes, no reads; then a chunk read */
  uint64_t stripe = 3 * (uint64_t)c.volume.chunk_bytes;
  env_submit(e, stripe, stripe, 1, 1);
  env_run(e, INFINITY);
  env_submit(e, 2 * stripe, (uint64_t)c.volume.chunk_bytes, 0, 0);
  env_run(e, INFINITY);
  uint64_t n = sum_reads(e) + sum_writes(e);
  ck_assert_msg(n == 4 + 4 + 1, "%llu member I/Os, want 9", (unsigned long long)n);
  ck_assert_msg(e->cpu_cycles[STACK_THREAD_BLOCK] == (double)n * 7000.0,
                "%g block cycles for %llu member I/Os x 7000", e->cpu_cycles[STACK_THREAD_BLOCK],
                (unsigned long long)n);
  /* no other thread is charged for them */
  ck_assert_msg(e->cpu_cycles[STACK_THREAD_CRYPT] == 0 && e->cpu_cycles[STACK_THREAD_FLUSH] == 0,
                "crypt %g flush %g", e->cpu_cycles[STACK_THREAD_CRYPT], e->cpu_cycles[STACK_THREAD_FLUSH]);
  ck_assert_uint_eq(e->ndone, 3);
  env_free(e);
}
END_TEST

START_TEST(test_volume_init_and_stripe_cpu)
{
  struct stack_cfg c;
  /* single-disk "resync" = mke2fs: the journal, and with full inode-table
   * init the inode tables, written, not 0 s; lazy leaves the tables to
   * ext4lazyinit after mount */
  struct env *e;
  struct stack_op_report r;
  for (int full = 0; full < 2; full++) {
    env_volume(&c, RAID_SINGLE, (uint64_t)(4 * GiB));
    c.volume.mkfs_inode_ratio_bytes = 16384;
    c.volume.mkfs_inode_bytes = 256;
    c.volume.mkfs_itable_init = full;
    e = env_new(&c, 1, 1e-3, 100e6);
    r = env_run_op(e, &(struct stack_op_cfg){.kind = STACK_OP_RESYNC});
    double want_bytes = (full ? 4 * GiB / 64 : 0) + 16384.0 * 4096; /* 4 GiB: 1M blocks -> 64 MiB journal */
    ck_assert_msg(fabs((double)F(e->dev[0])->write_bytes / want_bytes - 1) < 0.01,
                  "mkfs (%s) wrote %llu B, expected %g B", full ? "full" : "lazy",
                  (unsigned long long)F(e->dev[0])->write_bytes, want_bytes);
    ck_assert_msg(r.end_s > 0 && r.end_s - r.start_s > 0.5 * want_bytes / 100e6, "init took %g s", r.end_s - r.start_s);
    env_free(e);
  }
  /* raid5d: a reshape handles 2 stripe_heads per member row (each new row, each old row once), a rebuild 1 */
  double cyc[2];
  for (int k = 0; k < 2; k++) {
    env_volume(&c, RAID_5, (uint64_t)(256 << 20));
    c.stripe_cycles = 1000;
    c.stripe_dev_cycles = 0;
    c.volume.parity_cycles_per_byte = 0; /* count only the stripe_head walk */
    c.volume.q_cycles_per_byte = 0;
    e = env_new(&c, 4, 1e-3, 150e6);
    env_run_op(e, k == 0 ? &(struct stack_op_cfg){.kind = STACK_OP_REBUILD, .failed_member = 1}
                         : &(struct stack_op_cfg){.kind = STACK_OP_RESHAPE, .new_members = 5});
    cyc[k] = e->cpu_cycles[STACK_THREAD_RAID];
    env_free(e);
  }
  double rows = (double)(256 << 20) / 4096;
  ck_assert_msg(fabs(cyc[0] / (rows * 1000) - 1) < 0.01, "rebuild raid5d cycles %g, expected %g", cyc[0], rows * 1000);
  /* 4 -> 5: md reshapes every new row (the tail beyond the old data is
   * zero-filled) and reads every old row once: rows + rows */
  ck_assert_msg(fabs(cyc[1] / (rows * 2 * 1000) - 1) < 0.01, "reshape raid5d cycles %g, expected ~%g", cyc[1],
                rows * 2 * 1000);
}
END_TEST

START_TEST(test_check_rejections)
{
  struct stack_cfg c;
  env_volume(&c, RAID_6, (uint64_t)GiB);
  struct disk *d[4] = {0};
  c.members = d;
  c.volume.members = 3;
  struct nw_err err;
  ck_assert_int_eq(stack_check(&c, &err), -1);
  ck_assert_msg(strstr(err.msg, "got 3") != NULL, "%s", err.msg);
  c.volume.members = 4;
  c.ssdcache.mode = 2;
  c.ssdcache.capacity_bytes = GiB;
  c.ncache_devs = 1;
  c.cache_devs = d;
  ck_assert_int_eq(stack_check(&c, &err), -1);
  ck_assert_msg(strstr(err.msg, "mirrored") != NULL, "%s", err.msg);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("stack");
  TCase *tc = tcase_create("io");
  tcase_add_test(tc, test_completions_once);
  tcase_add_test(tc, test_stack_amplification);
  tcase_add_test(tc, test_stripe_cache_coalesce);
  tcase_add_test(tc, test_stripe_cache_streams);
  tcase_add_test(tc, test_check_rejections);
  suite_add_tcase(s, tc);
  tc = tcase_create("background");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_rebuild_idle_duration);
  tcase_add_test(tc, test_rebuild_under_load);
  tcase_add_test(tc, test_reshape_and_migration);
  tcase_add_test(tc, test_reshape_window_analytic);
  tcase_add_test(tc, test_volume_init_and_stripe_cpu);
  suite_add_tcase(s, tc);
  tc = tcase_create("caches");
  tcase_add_test(tc, test_lru_hand_count);
  tcase_add_test(tc, test_dirty_units);
  tcase_add_test(tc, test_present_units);
  tcase_add_test(tc, test_present_eviction);
  tcase_add_test(tc, test_present_runs);
  tcase_add_test(tc, test_unit_is_block);
  tcase_add_test(tc, test_dirty_sweep_order);
  tcase_add_test(tc, test_dirty_take_in_range);
  tcase_add_test(tc, test_flush_per_page_cost);
  tcase_add_test(tc, test_dirty_threshold);
  tcase_add_test(tc, test_fsync_range);
  tcase_add_test(tc, test_readahead_hits);
  tcase_add_test(tc, test_encryption_cost);
  tcase_add_test(tc, test_decrypt_cost);
  tcase_add_test(tc, test_decrypt_once);
  tcase_add_test(tc, test_disk_request_cycles);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
