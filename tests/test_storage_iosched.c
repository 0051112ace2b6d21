/* The members' I/O scheduler (models/storage/stack_iosched.c): under cfq
 * a client read waits behind at most the write-back requests already at
 * the disk and what is left of the async slice, not behind the whole
 * write-back queue as under noop; write-back still gets its slices while
 * a reader keeps the disk busy; cfq with one queue busy changes nothing. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/storage/raid.h"
#include "storage_harness.c.inc"

#define MiB (1024.0 * 1024.0)
#define DEV_LAT 5e-3 /* one request of the fake FIFO disk */

/* One member, 64 MiB of RAM (dirty limit 12.8 MiB, background 6.4 MiB):
 * 2000 scattered 4 KiB buffered writes (7.8 MiB dirty) start the flusher,
 * which queues the pages above the background threshold (~400 requests,
 * ~2 s of the disk) at once.  Returns the latency of one client read
 * submitted 10 ms later. */
static double read_behind_writeback(int cfq, uint64_t *pages_left)
{
  struct stack_cfg c;
  env_volume(&c, RAID_SINGLE, (uint64_t)(4096 * MiB));
  c.pcache.ram_bytes = 64 * MiB;
  c.volume.iosched = cfq;
  struct env *e = env_new(&c, 1, DEV_LAT, 1e12);
  for (int i = 0; i < 2000; i++) /* one page per 64 KiB block: never adjacent */
    env_submit(e, (uint64_t)i * 65536 * 7, 4096, 1, 0);
  env_run(e, 0.010);
  uint64_t tag = e->nsub;
  env_submit(e, (uint64_t)(3000 * MiB), 4096, 0, 0);
  while (e->done[tag] == 0)
    env_run(e, stack_next_event_s(e->s));
  double lat = e->done_s[tag] - e->submit_s[tag];
  *pages_left = stack_dirty_bytes(e->s) / 4096;
  env_run(e, INFINITY);
  ck_assert_uint_eq(stack_dirty_bytes(e->s), 0);
  env_free(e);
  return lat;
}

START_TEST(test_read_ahead_of_writeback)
{
  uint64_t left_noop, left_cfq;
  double noop = read_behind_writeback(0, &left_noop);
  double cfq = read_behind_writeback(1, &left_cfq);
  /* noop: FIFO behind every queued write-back request (~400 x 5 ms) */
  ck_assert_msg(noop > 1.5, "noop read latency %.3f s: expected it behind ~2 s of write-back", noop);
  /* cfq: the async slice (40 ms) began at ~0, so at most its rest, then
   * the async requests already at the disk (quantum 8) and the read */
  double bound = 0.040 + (32 + 1) * DEV_LAT; /* cfq_slice_async, queue_depth */
  ck_assert_msg(cfq <= bound, "cfq read latency %.3f s, expected <= %.3f s", cfq, bound);
  /* the read jumped the queue: write-back was still under way */
  ck_assert_msg(left_cfq > 100, "cfq: %llu dirty pages left when the read completed, expected write-back still going",
                (unsigned long long)left_cfq);
  (void)left_noop;
}
END_TEST

/* A closed-loop reader (QD 4, random 4 KiB over 4 GiB) for 2 s: with one
 * queue busy cfq dispatches as noop does, so every completion is the same. */
static void reader_times(int cfq, double *out, int n)
{
  struct stack_cfg c;
  env_volume(&c, RAID_0, (uint64_t)(4096 * MiB));
  c.volume.iosched = cfq;
  struct env *e = env_new(&c, 2, DEV_LAT, 1e12);
  e->qd_target = 4;
  e->fg_span_bytes = (uint64_t)(8000 * MiB);
  e->fg_until_s = 2.0;
  env_submit(e, 0, 4096, 0, 0); /* the first; the loop keeps 4 */
  env_run(e, INFINITY);
  ck_assert_uint_ge(e->ndone, (uint64_t)n);
  for (int i = 0; i < n; i++)
    out[i] = e->done_s[i];
  env_free(e);
}

START_TEST(test_one_queue_unchanged)
{
  enum { N = 500 };
  double a[N], b[N];
  reader_times(0, a, N);
  reader_times(1, b, N);
  for (int i = 0; i < N; i++)
    ck_assert_msg(a[i] == b[i], "read %d: noop %.9f s, cfq %.9f s", i, a[i], b[i]);
}
END_TEST

/* A reader keeping the disk busy does not starve write-back: the async
 * queue gets its slice every round (cfq_slice_async of each
 * cfq_slice_sync + cfq_slice_async), so ~400 pages above the background
 * threshold are written back within 10 s (5 ms each: 2 s of the disk at a
 * ~30 % share) while the reader runs. */
START_TEST(test_writeback_not_starved)
{
  struct stack_cfg c;
  env_volume(&c, RAID_SINGLE, (uint64_t)(4096 * MiB));
  c.pcache.ram_bytes = 64 * MiB;
  c.volume.iosched = 1;
  struct env *e = env_new(&c, 1, DEV_LAT, 1e12);
  for (int i = 0; i < 2000; i++)
    env_submit(e, (uint64_t)i * 65536 * 7, 4096, 1, 0);
  uint64_t bg = (uint64_t)(c.pcache.dirty_background_ratio * c.pcache.ram_bytes);
  e->qd_target = 4; /* the writes above complete at once (absorbed) */
  e->fg_span_bytes = (uint64_t)(4000 * MiB);
  e->fg_until_s = 10.0;
  env_run(e, 10.0);
  ck_assert_msg(stack_dirty_bytes(e->s) <= bg, "dirty %llu B after 10 s, background threshold %llu B",
                (unsigned long long)stack_dirty_bytes(e->s), (unsigned long long)bg);
  ck_assert_msg(e->nsub > 2000 + 500, "the reader completed only %llu reads", (unsigned long long)(e->nsub - 2000));
  env_run(e, INFINITY);
  env_free(e);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("storage_iosched");
  TCase *tc = tcase_create("cfq");
  tcase_add_test(tc, test_read_ahead_of_writeback);
  tcase_add_test(tc, test_one_queue_unchanged);
  tcase_add_test(tc, test_writeback_not_starved);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
