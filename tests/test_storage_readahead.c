/* Linux's on-demand read-ahead in the page cache (models/storage/stack_ra.c):
 * the window's ramp, the next window issued a whole window ahead of a
 * reader that waits for each read, and windows landing bio by bio.
 * Devices are the FIFO fake of storage_harness.c.inc (latency + bytes/rate). */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/storage/raid.h"
#include "storage_harness.c.inc"

#define KiB 1024u
#define MiB (1024u * 1024u)

/* A 1 GiB RAID-0 over ndev fake disks (latency_s + bytes/rate), 256 MiB of
 * page cache, read-ahead windows up to ra_bytes, no block-layer CPU. */
static struct env *ra_env(double ra_bytes, int ndev, double latency_s, double rate)
{
  struct stack_cfg c;
  env_volume(&c, RAID_0, (uint64_t)1 << 30);
  c.pcache.ram_bytes = 256.0 * MiB;
  c.pcache.readahead_bytes = ra_bytes;
  c.disk_request_cycles = 0;
  return env_new(&c, ndev, latency_s, rate);
}

/* Run until request `tag` has completed, in steps of dt (the reader's clock). */
static void run_until_done(struct env *e, uint64_t tag, double dt)
{
  while (!e->done[tag]) {
    double t = e->now_s + dt;
    env_run(e, t);
    e->now_s = t;
  }
}

/* One reader, 128 KiB sequential reads one at a time with 1.5 ms between a
 * completion and the next read, on RAID-0 of 4 fake disks (5 ms + 100 MB/s:
 * a 1 MiB window, 256 KiB per member, lands 7.6 ms after it is issued), a
 * 1 MiB maximum window.  Reading a window's half takes 4 x 1.5 = 6 ms, a
 * whole window 12 ms.  Linux issues the next window when the reader reaches
 * the first page of the current one, a whole window (12 ms) before it needs
 * it, so after the ramp no read waits for the disks; a read-ahead issued
 * half a window ahead (6 ms < 7.6 ms) would make every eighth read wait. */
START_TEST(test_async_window_ahead_of_a_blocking_reader)
{
  struct env *e = ra_env(1.0 * MiB, 4, 5e-3, 100e6);
  const uint64_t n = 256, bs = 128 * KiB; /* 32 MiB, 32 windows */
  int waited = 0, waited_ramp = 0;
  for (uint64_t i = 0; i < n; i++) {
    env_submit(e, i * bs, bs, 0, 0);
    run_until_done(e, i, 1e-5);
    double lat = e->done_s[i] - e->submit_s[i];
    if (lat > 1e-4)
      i < 16 ? waited_ramp++ : waited++;
    double t = e->now_s + 1.5e-3; /* think */
    env_run(e, t);
    e->now_s = t;
  }
  env_run(e, INFINITY);
  ck_assert_uint_eq(e->ndone, n);
  ck_assert_msg(waited_ramp > 0, "the first reads wait for the disks (cold cache)");
  ck_assert_msg(waited == 0, "%d reads after the ramp waited for the disks", waited);
  /* every byte read once, at most two windows past the reader */
  uint64_t disk_bytes = 0;
  for (int i = 0; i < e->ndev; i++)
    disk_bytes += F(e->dev[i])->read_bytes;
  ck_assert_msg(disk_bytes >= n * bs && disk_bytes <= n * bs + 2 * MiB, "%llu bytes read for %llu",
                (unsigned long long)disk_bytes, (unsigned long long)(n * bs));
  env_free(e);
}
END_TEST

/* The window ramp (get_init_ra_size / get_next_ra_size of 4.4): a reader
 * of 16 KiB pieces at a 1 MiB maximum starts with 64 KiB (x4 of a request
 * at most max/32), then doubles (x4 only below max/16) up to the maximum:
 * 64, 128, 256, 512 KiB, then 1 MiB windows, each issued when the reader
 * reaches the previous one's first page.  Seen as the bytes read from the
 * disk: it grows by exactly one window at those reads and at no other. */
START_TEST(test_window_ramp)
{
  struct env *e = ra_env(1.0 * MiB, 2, 1e-3, 1e9);
  const uint64_t bs = 16 * KiB, want[] = {64, 128, 256, 512, 1024, 1024, 1024};
  const uint64_t at[] = {0, 16, 64, 192, 448, 960, 1984}; /* KiB: where each window is issued */
  uint64_t before = 0;
  int k = 0;
  for (uint64_t off = 0; off < 3008 * KiB; off += bs) { /* up to the last window's mark */
    env_submit(e, off, bs, 0, 0);
    env_run(e, INFINITY);
    uint64_t grew = F(e->dev[0])->read_bytes + F(e->dev[1])->read_bytes - before;
    before += grew;
    if (grew == 0)
      continue;
    ck_assert_msg(k < 7 && off == at[k] * KiB && grew == want[k] * KiB,
                  "window %d: %llu KiB read at %llu KiB, want %llu KiB at %llu KiB", k,
                  (unsigned long long)(grew / KiB), (unsigned long long)(off / KiB),
                  (unsigned long long)(k < 7 ? want[k] : 0), (unsigned long long)(k < 7 ? at[k] : 0));
    k++;
  }
  ck_assert_int_eq(k, 7);
  env_free(e);
}
END_TEST

/* A window goes down in bios of at most 1 MiB (BIO_MAX_PAGES), each page
 * up to date when its own bio lands: behind a 4 MiB read (initial window
 * 2 x 4 MiB, the second half read ahead in four bios) a read of the
 * window's first 128 KiB completes with the first bio, one of its last
 * 128 KiB with the fourth, 3 bios' service (3 x 3.6 ms) later. */
START_TEST(test_window_lands_bio_by_bio)
{
  struct env *e = ra_env(4.0 * MiB, 4, 1e-3, 100e6);
  env_submit(e, 0, 4 * MiB, 0, 0);           /* tag 0 */
  env_submit(e, 4 * MiB, 128 * KiB, 0, 0);   /* tag 1: in the first read-ahead bio */
  env_submit(e, 7 * MiB, 128 * KiB, 0, 0);   /* tag 2: in the fourth */
  env_run(e, INFINITY);
  ck_assert_uint_eq(e->ndone, 3);
  double bio_s = 1e-3 + 256.0 * KiB / 100e6; /* one 1 MiB bio: 256 KiB per member */
  double gap = e->done_s[2] - e->done_s[1];
  ck_assert_msg(fabs(gap - 3 * bio_s) < 1e-6, "the last bio lands %g s after the first, want %g", gap,
                3 * bio_s);
  ck_assert_msg(e->done_s[1] > e->done_s[0], "the window is read after the 4 MiB read");
  /* nothing was read twice: 4 MiB, the window's 4 MiB, and the next window */
  uint64_t disk_bytes = 0;
  for (int i = 0; i < e->ndev; i++)
    disk_bytes += F(e->dev[i])->read_bytes;
  ck_assert_msg(disk_bytes == 12 * MiB, "%llu bytes read", (unsigned long long)disk_bytes);
  env_free(e);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("readahead");
  TCase *tc = tcase_create("ondemand");
  tcase_add_test(tc, test_async_window_ahead_of_a_blocking_reader);
  tcase_add_test(tc, test_window_ramp);
  tcase_add_test(tc, test_window_lands_bio_by_bio);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
