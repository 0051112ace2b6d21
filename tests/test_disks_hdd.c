/* HDD mechanics: parameter checks, seek + rotation at QD1, zones, the
 * segment cache and read-ahead streams, NCQ, the write cache at steady
 * state, energy. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "models/disks/disk.h"
#include "models/disks/iface.h"
#include "disks_harness.c.inc"

START_TEST(test_hdd_check_messages)
{
  const struct disk_model *m = disk_model_find("hdd");
  struct pbuf pb;
  struct disk *d = make_hdd(&pb, 150e6, 150e6, 1);
  disk_destroy(d);
  char msg[256] = "";
  set_param(m, &pb, "seek_avg", 15e-3); /* above 1 + 15 x 8/15 = 9 ms */
  ck_assert_int_eq(m->check(pb.v, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "seek_avg 15 ms must be between") != NULL, "message: %s", msg);
  set_param(m, &pb, "seek_avg", 8.5e-3);
  set_param(m, &pb, "rate_inner", 200e6);
  ck_assert_int_eq(m->check(pb.v, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "rate_inner 200 MB/s must be <= rate_outer 150 MB/s") != NULL,
                "message: %s", msg);
}
END_TEST

/* ---- HDD ---- */

START_TEST(test_hdd_random_qd1)
{
  struct pbuf pb;
  struct disk *d = make_hdd(&pb, 150e6, 150e6, 1);
  int n = 2000;
  double t = run_qd(d, n, 1, 4096, RANDOM_READ, 0, (uint64_t)2e12, 99);
  double iops = n / t;
  /* mean seek + half a revolution + media transfer */
  double want = 1.0 / (8.5e-3 + 0.5 * 60.0 / 7200 + 4096 / 150e6);
  ck_assert_msg(fabs(iops / want - 1.0) < 0.05, "QD1 random read %.1f IOPS, want %.1f +- 5 %%",
                iops, want);
  disk_destroy(d);
}
END_TEST

START_TEST(test_hdd_zones_sequential)
{
  struct pbuf pb;
  struct disk *d = make_hdd(&pb, 200e6, 100e6, 32);
  uint64_t len = 1 << 20, total = 200ULL << 20;
  int n = (int)(total / len);
  double t_outer = run_qd(d, n, 1, len, SEQ_READ, 0, 0, 1);
  double outer = (double)total / t_outer;
  ck_assert_msg(fabs(outer / 200e6 - 1.0) < 0.02, "outer sequential %.1f MB/s, want 200 +- 2 %%",
                outer / 1e6);
  disk_destroy(d);
  d = make_hdd(&pb, 200e6, 100e6, 32);
  double t_inner = run_qd(d, n, 1, len, SEQ_READ, (uint64_t)2e12 - total, 0, 1);
  double inner = (double)total / t_inner;
  ck_assert_msg(fabs(inner / 100e6 - 1.0) < 0.02, "inner sequential %.1f MB/s, want 100 +- 2 %%",
                inner / 1e6);
  ck_assert_msg(outer > inner, "outer %.1f <= inner %.1f MB/s", outer / 1e6, inner / 1e6);
  disk_destroy(d);
}
END_TEST

START_TEST(test_hdd_sequential_no_seek)
{
  /* Sequential writes through the write-back cache stream at media rate:
   * the destage scheduler picks the contiguous extent, which costs no
   * seek and no rotation.  1 GiB with a 64 MiB cache: the run takes the
   * media time of the bytes beyond the cache, no more (2 %). */
  struct pbuf pb;
  struct disk *d = make_hdd(&pb, 150e6, 150e6, 32);
  uint64_t len = 256 << 10, total = 1ULL << 30;
  int n = (int)(total / len);
  double t = run_qd(d, n, 4, len, SEQ_WRITE, 0, 0, 1);
  double media = (double)(total - (64ULL << 20)) / 150e6;
  ck_assert_msg(t < media * 1.02 && t > media * 0.9, "1 GiB sequential write took %.3f s, media time %.3f s",
                t, media);
  disk_destroy(d);
}
END_TEST

/* Interleaved sequential readers (up to depth outstanding 64 KiB reads
 * each, regions 10 GB apart), as md hands a RAID member, each reading at
 * most rate bytes/s (0: as fast as the disk serves it): time for n reads;
 * the longest a read of the last 7/8 took in *max_lat_s (NULL: not
 * wanted). */
static double hdd_streams(struct disk *d, int streams, int depth, int n, double rate,
                          double *max_lat_s)
{
  enum { S = 16, Q = 8 };
  uint64_t next[S];
  double sub[S * Q], due[S]; /* a slot's submit time; a stream's next read may go at */
  int idle[S * Q], nidle = 0;
  ck_assert(streams <= S && depth <= Q);
  for (int k = 0; k < streams; k++) {
    next[k] = (uint64_t)k * 10000000000ull;
    due[k] = 0.0;
  }
  for (int q = depth - 1; q >= 0; q--)
    for (int k = streams - 1; k >= 0; k--)
      idle[nidle++] = k * depth + q;
  double now = 0.0, worst = 0.0, gap = rate > 0.0 ? 65536 / rate : 0.0;
  int submitted = 0, completed = 0;
  while (completed < n) {
    /* submit every idle slot whose stream is due */
    for (int i = nidle - 1; i >= 0 && submitted < n; i--) {
      int tag = idle[i], k = tag / depth;
      if (due[k] > now)
        continue;
      struct disk_io io = {.offset_bytes = next[k], .len_bytes = 65536, .tag = (uint64_t)tag};
      next[k] += 65536;
      due[k] = fmax(due[k] + gap, now);
      sub[tag] = now;
      idle[i] = idle[--nidle];
      disk_submit(d, now, &io);
      submitted++;
      i = nidle; /* rescan: order kept by slot */
    }
    double t = disk_next_completion_s(d);
    for (int i = 0; i < nidle && submitted < n; i++)
      t = fmin(t, fmax(due[idle[i] / depth], now));
    ck_assert_msg(isfinite(t), "nothing pending");
    now = t;
    struct disk_io done;
    while (disk_pop_completion(d, now, &done)) {
      completed++;
      if (completed > n / 8) /* past the start (every stream's first look-ahead) */
        worst = fmax(worst, now - sub[done.tag]);
      idle[nidle++] = (int)done.tag;
    }
  }
  if (max_lat_s != NULL)
    *max_lat_s = worst;
  return now;
}

static struct disk *hdd_segmented(struct pbuf *pb, double cache_bytes, double segments,
                                  double prefetch_bytes, double zlr)
{
  struct disk *d = make_hdd(pb, 150e6, 150e6, 32);
  const struct disk_model *m = disk_model_find("hdd");
  set_param(m, pb, "cache", cache_bytes);
  set_param(m, pb, "cache_segments", segments);
  set_param(m, pb, "stream_prefetch", prefetch_bytes);
  set_param(m, pb, "zero_latency_read", zlr);
  disk_destroy(d);
  return make_disk(m, pb, 42);
}

static double hdd_interleaved(double segments, double prefetch_bytes, double zlr, int streams, int n)
{
  struct pbuf pb;
  struct disk *d = hdd_segmented(&pb, 64 << 20, segments, prefetch_bytes, zlr);
  double t = hdd_streams(d, streams, 1, n, 0.0, NULL);
  disk_destroy(d);
  return t;
}

START_TEST(test_hdd_segments_streams)
{
  /* 8 streams: a single buffer is evicted by every other stream, so each
   * read pays a seek and a rotation; one segment per stream with a 2 MiB
   * look-ahead serves 31 of every 32 reads from the buffer */
  int n = 2048;
  double one = hdd_interleaved(1, 2 << 20, 0, 8, n);
  double seg = hdd_interleaved(8, 2 << 20, 0, 8, n);
  ck_assert_msg(seg * 3 < one, "8 interleaved streams: 1 segment %.3f s, 8 segments %.3f s", one, seg);
  /* zero-latency read: the 2 MiB + 64 KiB transfer spans more than a
   * track (150 MB/s x 8.3 ms = 1.25 MB), so it never waits for rotation */
  double zlr = hdd_interleaved(8, 2 << 20, 1, 8, n);
  ck_assert_msg(zlr < seg, "zero-latency read %.3f s not faster than %.3f s", zlr, seg);
  double media = (double)n * 65536 / 150e6;
  ck_assert_msg(zlr > media, "%.3f s is less than the media time %.3f s", zlr, media);
}
END_TEST

/* 16 sequential streams, 4 reads of 64 KiB outstanding each (a RAID-6
 * member under 16 readers at LIO's 64-command window), 16 MiB segments
 * with a 4 MiB look-ahead: the streams start together, so each reaches
 * its segment's end with the others.  Were a stream's look-ahead read
 * only when its reader misses, every reader would wait for up to 16
 * look-aheads (16 x 28 ms: 450 ms, 113.9 MB/s); the drive keeps each
 * look-ahead going while the reader still has a look-ahead's worth
 * buffered, so the readers stream near the media rate and no read waits
 * for more than a few look-aheads (33 ms, 118.0 MB/s). */
START_TEST(test_hdd_lookahead_kept_up)
{
  struct pbuf pb;
  struct disk *d = hdd_segmented(&pb, 256 << 20, 16, 4 << 20, 1);
  int n = 16 * 2048; /* 2 GiB: 32 look-aheads a stream */
  double worst;
  double want = 0.8 * 150e6; /* together 80 % of the media rate */
  double t = hdd_streams(d, 16, 4, n, want / 16, &worst);
  double rate = (double)n * 65536 / t;
  double la_s = (4 << 20) / 150e6; /* one look-ahead's media time */
  ck_assert_msg(rate > 0.97 * want, "16 streams x 4 at %.0f MB/s: %.1f MB/s", want / 1e6,
                rate / 1e6);
  ck_assert_msg(worst < 4 * la_s, "16 streams x 4: a read waited %.1f ms (a look-ahead %.1f ms)",
                worst * 1e3, la_s * 1e3);
  disk_destroy(d);
}
END_TEST

START_TEST(test_hdd_ncq)
{
  struct pbuf pb;
  int n = 2000;
  struct disk *d = make_hdd(&pb, 150e6, 150e6, 32);
  double iops1 = n / run_qd(d, n, 1, 4096, RANDOM_READ, 0, (uint64_t)2e12, 5);
  disk_destroy(d);
  d = make_hdd(&pb, 150e6, 150e6, 32);
  double iops32 = n / run_qd(d, n, 32, 4096, RANDOM_READ, 0, (uint64_t)2e12, 5);
  disk_destroy(d);
  /* Every random command needs at least a track-to-track seek (or a head
   * switch, 1 ms by default, equal here) plus its media transfer: the
   * positioning limit no scheduler can beat. */
  double bound = 1.0 / (1e-3 + 4096 / 150e6);
  ck_assert_msg(iops32 > 1.5 * iops1, "QD32 %.1f IOPS not above 1.5 x QD1 %.1f", iops32, iops1);
  ck_assert_msg(iops32 < bound, "QD32 %.1f IOPS above the positioning bound %.1f", iops32, bound);
}
END_TEST

/* The drive with a write cache of 256 dirty extents (4 MiB buffer). */
static struct disk *make_hdd_wcache(struct pbuf *pb)
{
  struct disk *d = make_hdd(pb, 150e6, 150e6, 32);
  disk_destroy(d);
  const struct disk_model *m = disk_model_find("hdd");
  set_param(m, pb, "cache", 4.0 * 1048576);
  set_param(m, pb, "write_cache_extents", 256);
  return make_disk(m, pb, 42);
}

/* Random 4K writes at QD32 over 1 GiB: a cold drive acknowledges its
 * first 256 writes from the buffer, then runs at the destage rate.  A
 * preconditioned drive (buffer full of scattered dirty extents) runs at
 * that rate from the start: its short run agrees with the cold run's
 * steady part, where a cold short run measures the buffer's absorption.
 * Fails if hdd_precondition leaves the buffer empty. */
START_TEST(test_hdd_write_cache_steady_state)
{
  struct pbuf pb;
  const uint64_t span = 1ull << 30, bs = 4096;
  const int n_short = 400;
  struct disk *d = make_hdd_wcache(&pb);
  double t_fill = run_qd(d, 2000, 32, bs, RANDOM_WRITE, 0, span, 11);
  double t_end = run_qd_from(d, t_fill, 2000, 32, bs, RANDOM_WRITE, 0, span, 12);
  double steady = 2000 / (t_end - t_fill);
  disk_destroy(d);
  d = make_hdd_wcache(&pb);
  double cold_short = n_short / run_qd(d, n_short, 32, bs, RANDOM_WRITE, 0, span, 13);
  disk_destroy(d);
  d = make_hdd_wcache(&pb);
  struct disk_precond pc = {.offset_bytes = 0, .len_bytes = span, .run_bytes = bs,
                            .write_fraction = 1.0};
  disk_precondition(d, &pc);
  double pre_short = n_short / run_qd(d, n_short, 32, bs, RANDOM_WRITE, 0, span, 13);
  disk_destroy(d);
  ck_assert_msg(fabs(pre_short / steady - 1.0) < 0.2,
                "preconditioned short run %.0f IOPS vs cold steady state %.0f (expected within 20 %%)",
                pre_short, steady);
  ck_assert_msg(cold_short > 1.5 * steady,
                "cold short run %.0f IOPS vs steady %.0f: expected the buffer to absorb it",
                cold_short, steady);
}
END_TEST

/* One sequential stream of 64K writes at QD32: a cold drive takes its
 * first 4 MiB into the buffer at link speed; after a long run the buffer
 * is full of the stream's own recent writes and every write waits for the
 * media.  A drive preconditioned with the stretch just behind the stream
 * runs at the media rate from the start (its held extents continue into
 * the stream); a cold short run is much faster.  Fails if hdd_precondition
 * leaves the buffer empty for sequential writers. */
START_TEST(test_hdd_write_cache_sequential_steady_state)
{
  struct pbuf pb;
  const uint64_t bs = 65536, base = 1ull << 30;
  const int n_short = 100;
  struct disk *d = make_hdd_wcache(&pb);
  double t_fill = run_qd(d, 400, 32, bs, SEQ_WRITE, base, 0, 1);
  double t_end = run_qd_from(d, t_fill, 400, 32, bs, SEQ_WRITE, base + 400 * bs, 0, 1);
  double steady = 400 / (t_end - t_fill);
  disk_destroy(d);
  d = make_hdd_wcache(&pb);
  double cold_short = n_short / run_qd(d, n_short, 32, bs, SEQ_WRITE, base, 0, 1);
  disk_destroy(d);
  d = make_hdd_wcache(&pb);
  struct disk_precond pc = {.offset_bytes = base - (64u << 20), .len_bytes = 64u << 20, .run_bytes = bs,
                            .sequential = 1, .write_fraction = 1.0};
  disk_precondition(d, &pc);
  double pre_short = n_short / run_qd(d, n_short, 32, bs, SEQ_WRITE, base, 0, 1);
  disk_destroy(d);
  ck_assert_msg(fabs(pre_short / steady - 1.0) < 0.15,
                "preconditioned short run %.0f IOPS vs cold steady state %.0f (expected within 15 %%)",
                pre_short, steady);
  ck_assert_msg(cold_short > 1.4 * steady, "cold short run %.0f IOPS vs steady %.0f: expected the buffer to absorb it",
                cold_short, steady);
}
END_TEST

/* Two writers sharing the buffer (cache_share 1/2 each) fill it together
 * as one writer alone does; one of them alone holds half: counted as the
 * new writes acknowledged within 4 ms (the link takes ~36 of them; the
 * media far fewer). */
START_TEST(test_hdd_write_cache_share)
{
  struct pbuf pb;
  const uint64_t bs = 65536;
  struct disk_precond pc = {.len_bytes = 1ull << 30, .run_bytes = bs, .write_fraction = 1.0, .cache_share = 0.5};
  int taken[3];
  for (int k = 0; k < 3; k++) { /* half, two halves, whole (share 0 = all) */
    struct disk *d = make_hdd_wcache(&pb);
    if (k == 2)
      pc.cache_share = 0;
    disk_precondition(d, &pc);
    if (k == 1) {
      pc.offset_bytes = 1ull << 31;
      disk_precondition(d, &pc);
      pc.offset_bytes = 0;
    }
    for (int i = 0; i < 64; i++) {
      struct disk_io io = {.offset_bytes = (3ull << 30) + (uint64_t)i * 8 * bs, .len_bytes = bs, .write = 1};
      disk_submit(d, 0.0, &io);
    }
    taken[k] = 0;
    struct disk_io done;
    for (double t = disk_next_completion_s(d); t <= 4e-3; t = disk_next_completion_s(d))
      while (disk_pop_completion(d, t, &done))
        taken[k]++;
    disk_destroy(d);
  }
  /* 4 MiB buffer = 64 writes of 64K */
  ck_assert_msg(taken[0] >= 30 && taken[0] <= 36, "half the buffer held: %d of 64 new writes taken at once, expected ~32",
                taken[0]);
  ck_assert_msg(taken[1] <= 8 && taken[2] <= 8, "full buffer: %d (two halves) and %d (whole) taken at once, expected a few",
                taken[1], taken[2]);
}
END_TEST

START_TEST(test_hdd_energy)
{
  struct pbuf pb;
  struct disk *d = make_hdd(&pb, 150e6, 150e6, 1);
  run_qd(d, 100, 1, 4096, RANDOM_READ, 0, (uint64_t)2e12, 3);
  struct disk_stats st;
  disk_stats(d, 10.0, &st);
  double want = 5.0 * 10.0 + 3.0 * st.busy_s;
  ck_assert_msg(st.busy_s > 0.5 && st.busy_s < 2.0, "busy %.3f s for 100 random reads", st.busy_s);
  ck_assert_msg(fabs(st.energy_J - want) < 1e-6, "energy %.6f J, want %.6f", st.energy_J, want);
  ck_assert(st.reads == 100);
  disk_destroy(d);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("disks_hdd");
  TCase *tc;
  tc = tcase_create("hdd");
  tcase_add_test(tc, test_hdd_check_messages);
  tcase_add_test(tc, test_hdd_random_qd1);
  tcase_add_test(tc, test_hdd_zones_sequential);
  tcase_add_test(tc, test_hdd_sequential_no_seek);
  tcase_add_test(tc, test_hdd_ncq);
  tcase_add_test(tc, test_hdd_segments_streams);
  tcase_add_test(tc, test_hdd_lookahead_kept_up);
  tcase_add_test(tc, test_hdd_energy);
  tcase_add_test(tc, test_hdd_write_cache_steady_state);
  tcase_add_test(tc, test_hdd_write_cache_sequential_steady_state);
  tcase_add_test(tc, test_hdd_write_cache_share);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
