/* SATA SSD and NVMe: die parallelism, the channel bus, read stalls behind
 * programs, link caps, steady-state write amplification, the active
 * range. */
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

/* ---- flash ---- */

/* Random 4K reads on 8 dies (4 channels x 2): pages sit on die (page
 * index mod 8), so a closed loop of qd reads collides on dies.  IOPS rise
 * with QD but saturate gradually: the dies busy at QD32 (IOPS x die time
 * per read) stay below balls-into-bins N (1 - (1 - 1/N)^q) = 7.88 (the
 * no-queueing snapshot) and above the product-form closed network
 * N q / (N + q - 1) = 6.56 (exponential service), never the ideal 8.  One
 * die serves one read at a time: on a single die QD32 is QD1. */
START_TEST(test_ssd_parallelism)
{
  struct pbuf pb;
  int n = 6000;
  double prev = 0.0, iops = 0.0, qd1 = 0.0;
  double die_s = 80e-6 + 4096 / 4e9; /* sense + channel transfer */
  for (int qd = 1; qd <= 32; qd *= 2) {
    struct disk *d = make_flash("sata_ssd", &pb, 550e6);
    iops = n / run_qd(d, n, qd, 4096, RANDOM_READ, 0, (uint64_t)200e9, 11);
    disk_destroy(d);
    ck_assert_msg(iops >= prev * 0.999, "IOPS fell from %.0f to %.0f at QD%d", prev, iops, qd);
    if (qd == 1)
      qd1 = iops;
    prev = iops;
  }
  ck_assert_msg(fabs(qd1 * die_s - 1) < 0.1, "QD1 %.0f IOPS, one die time %.1f us", qd1, die_s * 1e6);
  double busy = iops * die_s, bins = 8 * (1 - pow(7.0 / 8.0, 32)), mva = 8.0 * 32 / 39;
  ck_assert_msg(busy < bins && busy > mva, "QD32: %.2f dies busy, want within (%.2f, %.2f)", busy, mva, bins);
  const struct disk_model *m = disk_model_find("sata_ssd");
  set_param(m, &pb, "channels", 1);
  set_param(m, &pb, "dies_per_channel", 1);
  struct disk *d = make_disk(m, &pb, 7);
  double one = n / run_qd(d, n, 32, 4096, RANDOM_READ, 0, (uint64_t)200e9, 11);
  disk_destroy(d);
  ck_assert_msg(fabs(one * die_s - 1) < 0.02, "one die at QD32: %.0f IOPS, want 1 / %.1f us", one, die_s * 1e6);
}
END_TEST

/* A channel moves one transfer at a time: 8 dies on one channel at
 * 50 MB/s cap sequential 1 MiB reads at 50 MB/s (64 pages striped over
 * the dies, sensed in parallel, all crossing the one bus); 8 channels of
 * 8 dies reach 8 x. */
START_TEST(test_ssd_channel_bus)
{
  const struct disk_model *m = disk_model_find("sata_ssd");
  struct pbuf pb;
  uint64_t len = 1 << 20;
  int n = 200;
  double rate[2];
  for (int k = 0; k < 2; k++) {
    disk_destroy(make_flash("sata_ssd", &pb, 3e9)); /* its parameters */
    set_param(m, &pb, "channels", k ? 8 : 1);
    set_param(m, &pb, "dies_per_channel", 8);
    set_param(m, &pb, "channel_rate", 50e6);
    struct disk *d = make_disk(m, &pb, 7);
    rate[k] = (double)n * len / run_qd(d, n, 4, len, SEQ_READ, 0, 0, 1);
    disk_destroy(d);
  }
  ck_assert_msg(fabs(rate[0] / 50e6 - 1) < 0.02, "one channel: %.1f MB/s, want 50", rate[0] / 1e6);
  ck_assert_msg(fabs(rate[1] / 400e6 - 1) < 0.05, "eight channels: %.1f MB/s, want 400", rate[1] / 1e6);
}
END_TEST

/* Read stalls: a read waits behind its busy die with probability
 * read_stall_fraction for an exponential time of mean read_stall_time.
 * QD1: mean service = die time + fraction x mean; one die at QD32: the
 * stall holds the die, so the same (reads behind it wait); the stream
 * repeats with the seed and changes with it; writes never stall. */
START_TEST(test_ssd_read_stalls)
{
  const struct disk_model *m = disk_model_find("sata_ssd");
  struct pbuf pb;
  int n = 20000;
  double die_s = 80e-6 + 4096 / 4e9, want = die_s + 0.05 * 2e-3;
  double t[5];
  for (int k = 0; k < 5; k++) {
    disk_destroy(make_flash("sata_ssd", &pb, 550e6));
    set_param(m, &pb, "read_stall_fraction", k == 4 ? 0.0 : 0.05);
    set_param(m, &pb, "read_stall_time", 2e-3);
    if (k == 1)
      set_param(m, &pb, "channels", 1), set_param(m, &pb, "dies_per_channel", 1);
    struct disk *d = make_disk(m, &pb, k == 3 ? 8 : 7);
    int qd = k == 1 ? 32 : 1;
    t[k] = k == 4 ? 0.0 : run_qd(d, n, qd, 4096, RANDOM_READ, 0, (uint64_t)200e9, 11);
    disk_destroy(d);
  }
  ck_assert_msg(fabs(t[0] / n / want - 1) < 0.06, "QD1: %.1f us per read, want %.1f", t[0] / n * 1e6, want * 1e6);
  ck_assert_msg(fabs(t[1] / n / want - 1) < 0.06, "one die, QD32: %.1f us per read, want %.1f", t[1] / n * 1e6,
                want * 1e6);
  set_param(m, &pb, "read_stall_fraction", 0.05); /* k = 0 again: its parameters and seed */
  struct disk *d = make_disk(m, &pb, 7);
  t[2] = run_qd(d, n, 1, 4096, RANDOM_READ, 0, (uint64_t)200e9, 11);
  disk_destroy(d);
  ck_assert_msg(t[2] == t[0], "same seed, other run: %.9g s vs %.9g s", t[2], t[0]);
  ck_assert_msg(t[3] != t[0], "another seed draws other stalls");
  double w[2];
  for (int k = 0; k < 2; k++) {
    set_param(m, &pb, "read_stall_fraction", k ? 0.05 : 0.0);
    d = make_disk(m, &pb, 7);
    w[k] = run_qd(d, 2000, 4, 4096, RANDOM_WRITE, 0, (uint64_t)200e9, 11);
    disk_destroy(d);
  }
  ck_assert_msg(w[0] == w[1], "writes stalled: %.9g s vs %.9g s", w[1], w[0]);
}
END_TEST

/* Write stalls (foreground garbage collection): a write waits, holding its
 * die, with probability write_stall_fraction for an exponential time of
 * mean write_stall_time.  One die at QD1: the mean write takes fraction x
 * mean longer than without; the same seed repeats; reads draw nothing
 * from it (their stalls and times are unchanged). */
START_TEST(test_ssd_write_stalls)
{
  const struct disk_model *m = disk_model_find("sata_ssd");
  struct pbuf pb;
  int n = 20000;
  double w[3], r[2];
  for (int k = 0; k < 3; k++) {
    disk_destroy(make_flash("sata_ssd", &pb, 550e6));
    set_param(m, &pb, "channels", 1), set_param(m, &pb, "dies_per_channel", 1);
    set_param(m, &pb, "write_stall_fraction", k ? 0.05 : 0.0);
    set_param(m, &pb, "write_stall_time", 2e-3);
    struct disk *d = make_disk(m, &pb, 7);
    w[k] = run_qd(d, n, 1, 4096, RANDOM_WRITE, 0, (uint64_t)200e9, 11);
    disk_destroy(d);
    if (k < 2) {
      set_param(m, &pb, "read_stall_fraction", 0.05);
      d = make_disk(m, &pb, 7);
      r[k] = run_qd(d, n, 4, 4096, RANDOM_READ, 0, (uint64_t)200e9, 11);
      disk_destroy(d);
    }
  }
  double extra = (w[1] - w[0]) / n, want = 0.05 * 2e-3;
  ck_assert_msg(fabs(extra / want - 1) < 0.1, "a write stalls %.1f us on average, want %.1f", extra * 1e6, want * 1e6);
  ck_assert_msg(w[2] == w[1], "same seed, other run: %.9g s vs %.9g s", w[2], w[1]);
  ck_assert_msg(r[0] == r[1], "write stalls changed the reads: %.9g s vs %.9g s", r[1], r[0]);
}
END_TEST

START_TEST(test_ssd_link_caps)
{
  struct pbuf pb;
  uint64_t len = 1 << 20;
  int n = 400;
  struct disk *d = make_flash("sata_ssd", &pb, 3e9);
  double rate = (double)n * len / run_qd(d, n, 32, len, SEQ_READ, 0, 0, 1);
  disk_destroy(d);
  double sata = 6e9 / 8 * 0.8; /* 6 Gbit/s, 8b/10b */
  ck_assert_msg(rate <= sata * 1.0001 && rate > 0.95 * sata, "SATA read %.1f MB/s, cap %.1f",
                rate / 1e6, sata / 1e6);
  d = make_flash("nvme", &pb, 8e9);
  rate = (double)n * len / run_qd(d, n, 64, len, SEQ_READ, 0, 0, 1);
  disk_destroy(d);
  double pcie = 4 * 8e9 * 128 / 130 / 8; /* gen3 x4 */
  ck_assert_msg(rate <= pcie * 1.0001 && rate > 0.9 * pcie, "NVMe read %.1f MB/s, cap %.1f",
                rate / 1e6, pcie / 1e6);
}
END_TEST

START_TEST(test_ssd_steady_state)
{
  const struct disk_model *m = disk_model_find("sata_ssd");
  struct pbuf pb;
  int n = 6000;
  struct disk *d = make_flash("sata_ssd", &pb, 550e6);
  double steady = n / run_qd(d, n, 32, 4096, RANDOM_WRITE, 0, (uint64_t)256e9, 3);
  disk_destroy(d);
  set_param(m, &pb, "preconditioned", 0);
  d = make_disk(m, &pb, 7);
  double fresh = n / run_qd(d, n, 32, 4096, RANDOM_WRITE, 0, (uint64_t)256e9, 3);
  disk_destroy(d);
  /* fresh: 8 units x 4 pages-per-16KiB / 400 us = 80k; steady: / 3 */
  ck_assert_msg(fabs(fresh / 80e3 - 1.0) < 0.05, "fresh random write %.0f IOPS, want 80k", fresh);
  ck_assert_msg(fabs(steady * 3 / fresh - 1.0) < 0.05, "steady %.0f vs fresh %.0f IOPS, want 1/3",
                steady, fresh);
}
END_TEST

/* Steady state depends on the active range.  Factor 8 for random writes
 * over the whole drive means a = 1.068 (LRW cleaning: victim valid share x =
 * exp(-a (1 - x)), WA = 1 / (1 - x); reached here by fixed point, the model
 * bisects).  Writes in 1 % of a preconditioned drive have the spare area to
 * themselves: fresh rate; half of it: 1 / WA at a_f = 1 + (a - 1) / 0.5; a
 * drive preconditioned over all of it (disk_precondition) runs a burst in
 * 1 % at the whole-drive factor. */
START_TEST(test_ssd_active_range)
{
  const struct disk_model *m = disk_model_find("sata_ssd");
  struct pbuf pb;
  int n = 6000;
  double r[4], share[4] = {0.01, 0.5, 1.0, 0.01}, a = -log(1.0 - 1.0 / 8) / (1.0 / 8), x = 0;
  for (int i = 0; i < 20000; i++)
    x = exp(-(1.0 + (a - 1.0) / 0.5) * (1.0 - x));
  double want[4] = {1, 1 / (1 - x), 8, 8};
  for (int k = 0; k < 4; k++) {
    disk_destroy(make_flash("sata_ssd", &pb, 550e6));
    set_param(m, &pb, "steady_state_write_factor", 8);
    struct disk *d = make_disk(m, &pb, 7);
    struct disk_precond pc = {.len_bytes = (uint64_t)256e9, .run_bytes = 4096, .write_fraction = 1};
    if (k == 3)
      disk_precondition(d, &pc);
    r[k] = n / run_qd(d, n, 32, 4096, RANDOM_WRITE, 0, (uint64_t)(share[k] * 256e9), 3);
    disk_destroy(d);
    ck_assert_msg(fabs(r[k] * want[k] / 80e3 - 1) < 0.05,
                  "case %d (%g of the drive): %.0f IOPS, want 80k / %.2f", k, share[k], r[k], want[k]);
  }
}
END_TEST

/* A write's pages go to the dies free first, lowest index on ties (the
 * FTL's dynamic allocation; a tournament over the dies since session 16):
 * on 3 dies (3 channels x 1: the tournament padded to 4 leaves) three
 * pages of an idle drive program in parallel; then four pages: the
 * fourth waits for die 0 again; then one page takes die 1, free before
 * die 0 (all submitted at 0). */
START_TEST(test_ssd_write_dies)
{
  const struct disk_model *m = disk_model_find("sata_ssd");
  struct pbuf pb;
  disk_destroy(make_flash("sata_ssd", &pb, 550e6));
  set_param(m, &pb, "channels", 3);
  set_param(m, &pb, "dies_per_channel", 1);
  set_param(m, &pb, "preconditioned", 0);
  double page_s = 16384 / 4e9 + 400e-6; /* channel transfer, then the program */
  uint64_t pages[3] = {3, 4, 1};
  double want[3] = {page_s, 3 * page_s, 3 * page_s};
  struct disk *d = make_disk(m, &pb, 7);
  for (int k = 0; k < 3; k++) {
    struct disk_io io = {.offset_bytes = (uint64_t)k << 30, .len_bytes = pages[k] * 16384, .write = 1};
    disk_submit(d, 0.0, &io);
    double t = disk_next_completion_s(d);
    struct disk_io done;
    ck_assert_int_eq(disk_pop_completion(d, t, &done), 1);
    ck_assert_msg(fabs(t / want[k] - 1) < 1e-9, "write %d (%d pages): done at %.3f us, want %.3f",
                  k, (int)pages[k], t * 1e6, want[k] * 1e6);
  }
  disk_destroy(d);
  /* ties: 2 channels x 2 dies (0 and 2 on channel 0), 1 ms transfers; a
   * read of die 2 holds channel 0 from its sense (80 us) to 1.08 ms; dies
   * 0, 1, 3 tie at 0 and the write takes die 0, so it waits for channel 0
   * (die 3, on the idle channel 1, would end at 1.4 ms) */
  set_param(m, &pb, "channels", 2);
  set_param(m, &pb, "dies_per_channel", 2);
  set_param(m, &pb, "channel_rate", 16384 / 1e-3);
  d = make_disk(m, &pb, 7);
  struct disk_io rd = {.offset_bytes = 2 * 16384, .len_bytes = 16384}, wr = {.len_bytes = 16384, .write = 1, .tag = 1};
  disk_submit(d, 0.0, &rd);
  disk_submit(d, 0.0, &wr);
  struct disk_io done;
  double t = 0.0;
  while (disk_pop_completion(d, t = disk_next_completion_s(d), &done) == 1 && done.tag != 1)
    ;
  ck_assert_int_eq((int)done.tag, 1);
  ck_assert_msg(fabs(t / 2.48e-3 - 1) < 1e-9, "write on tied dies: done at %.3f us, want 2480 (die 0)", t * 1e6);
  disk_destroy(d);
}
END_TEST

/* Mixed traffic: with mixed_flush a write that finds a read in the device
 * goes to the dies as flushes of mixed_flush bytes, each after the one
 * before has programmed and after the reads in the device.  8 dies (4
 * channels x 2), fresh (WA 1), 32 KiB flushes: a 256 KiB read, then a
 * 256 KiB write at 0; the write's 8 flushes of 2 pages (on two dies at
 * once) follow the read's end one after the other, each a page's channel
 * transfer and a program: the write ends 8 x (4.096 + 400) us after the
 * read.  Without mixed_flush its 16 pages take the 8 dies two each. */
START_TEST(test_ssd_mixed_flush)
{
  const struct disk_model *m = disk_model_find("sata_ssd");
  struct pbuf pb;
  double page_s = 16384 / 4e9 + 400e-6;
  for (int k = 0; k < 2; k++) {
    disk_destroy(make_flash("sata_ssd", &pb, 550e6));
    set_param(m, &pb, "preconditioned", 0);
    set_param(m, &pb, "mixed_flush", k ? 32768 : 0);
    struct disk *d = make_disk(m, &pb, 7);
    struct disk_io rd = {.offset_bytes = 1ull << 30, .len_bytes = 256 << 10, .tag = 0};
    struct disk_io wr = {.offset_bytes = 8ull << 30, .len_bytes = 256 << 10, .write = 1, .tag = 1};
    disk_submit(d, 0.0, &rd);
    disk_submit(d, 0.0, &wr);
    double t_end[2] = {0.0, 0.0};
    struct disk_io done;
    for (int n = 0; n < 2; n++) {
      double t = disk_next_completion_s(d);
      ck_assert_int_eq(disk_pop_completion(d, t, &done), 1);
      t_end[done.tag] = t;
    }
    disk_destroy(d);
    if (k)
      ck_assert_msg(fabs((t_end[1] - t_end[0]) / (8 * page_s) - 1) < 1e-9,
                    "mixed write ends %.3f us after the read, want 8 flushes x %.3f us",
                    (t_end[1] - t_end[0]) * 1e6, page_s * 1e6);
    else
      ck_assert_msg(t_end[1] < 3 * page_s, "lone-striped write ends at %.3f us, want two pages a die",
                    t_end[1] * 1e6);
  }
}
END_TEST

/* Interleaved streams (alternate 128 KiB reads and writes, two regions,
 * QD8) cost a drive with mixed_flush more than a lone reader and a lone
 * writer of the same bytes one after the other; without it, less (the
 * dies share the work).  A lone sequential writer and a lone sequential
 * reader are the same to the bit either way. */
static double run_interleaved(struct disk *d, int n, int qd, uint64_t len)
{
  uint64_t rpos = 1ull << 30, wpos = 64ull << 30;
  int submitted = 0, completed = 0, outstanding = 0;
  double now = 0.0;
  while (completed < n) {
    while (outstanding < qd && submitted < n) {
      struct disk_io io = {.len_bytes = len, .write = submitted & 1, .tag = (uint64_t)submitted};
      io.offset_bytes = io.write ? wpos : rpos;
      *(io.write ? &wpos : &rpos) += len;
      disk_submit(d, now, &io);
      submitted++;
      outstanding++;
    }
    now = disk_next_completion_s(d);
    struct disk_io done;
    while (disk_pop_completion(d, now, &done)) {
      completed++;
      outstanding--;
    }
  }
  return now;
}

START_TEST(test_ssd_mixed_streams)
{
  const struct disk_model *m = disk_model_find("sata_ssd");
  struct pbuf pb;
  int n = 400;
  uint64_t len = 128 << 10;
  double lone_w[2], lone_r[2], mixed[2];
  for (int k = 0; k < 2; k++) {
    disk_destroy(make_flash("sata_ssd", &pb, 550e6));
    set_param(m, &pb, "mixed_flush", k ? 32768 : 0);
    struct disk *d = make_disk(m, &pb, 7);
    lone_w[k] = run_qd(d, n / 2, 8, len, SEQ_WRITE, 64ull << 30, 0, 1);
    disk_destroy(d);
    d = make_disk(m, &pb, 7);
    lone_r[k] = run_qd(d, n / 2, 8, len, SEQ_READ, 1ull << 30, 0, 1);
    disk_destroy(d);
    d = make_disk(m, &pb, 7);
    mixed[k] = run_interleaved(d, n, 8, len);
    disk_destroy(d);
  }
  ck_assert_msg(lone_w[1] == lone_w[0], "lone writer %.6f s with mixed_flush, %.6f without", lone_w[1], lone_w[0]);
  ck_assert_msg(lone_r[1] == lone_r[0], "lone reader %.6f s with mixed_flush, %.6f without", lone_r[1], lone_r[0]);
  double sum = lone_w[0] + lone_r[0];
  ck_assert_msg(mixed[0] < sum, "without mixed_flush: interleaved %.4f s, lone ones %.4f s together", mixed[0], sum);
  ck_assert_msg(mixed[1] > 1.5 * sum, "with mixed_flush: interleaved %.4f s, want well over the lone ones' %.4f s",
                mixed[1], sum);
}
END_TEST

/* A flush ends on its byte budget (the bytes of a straddling page carry
 * over), so the interleaved streams' time moves with mixed_flush between
 * multiples of the page as well as across them: the fit's forward
 * difference sees a slope, not a step (a flush of whole pages up to the
 * budget made 40 KiB time as 32 KiB). */
START_TEST(test_ssd_mixed_flush_budget)
{
  const struct disk_model *m = disk_model_find("sata_ssd");
  struct pbuf pb;
  const double budget[4] = {32768, 36864, 40960, 49152};
  double t[4];
  for (int k = 0; k < 4; k++) {
    disk_destroy(make_flash("sata_ssd", &pb, 550e6));
    set_param(m, &pb, "mixed_flush", budget[k]);
    set_param(m, &pb, "page", 16384);
    struct disk *d = make_disk(m, &pb, 7);
    t[k] = run_interleaved(d, 400, 8, 128 << 10);
    disk_destroy(d);
  }
  for (int k = 1; k < 4; k++)
    ck_assert_msg(t[k] < t[k - 1], "mixed_flush %.0f B: %.6f s, %.0f B: %.6f s (want faster with larger flushes)",
                  budget[k], t[k], budget[k - 1], t[k - 1]);
}
END_TEST

/* iface_sched_reserve's shortcut (a reservation at or past the last end)
 * gives what the general iface_sched_reserve_any gives, bit for bit, and
 * leaves the same schedule: 20,000 reservations mixing runs of contiguous
 * and spaced pages, gap fills, zero durations and a moving now. */
START_TEST(test_iface_sched_shortcut)
{
  struct iface_sched a, b;
  iface_sched_init(&a);
  iface_sched_init(&b);
  uint64_t rng = 23;
  double now = 0.0, last_end = 0.0;
  for (int k = 0; k < 20000; k++) {
    double u = rng_unit(&rng), dur = rng_unit(&rng) < 0.02 ? 0.0 : 1e-6 + 1e-4 * rng_unit(&rng);
    double back = 1e-3 * rng_unit(&rng);
    if (rng_unit(&rng) < 0.02 && last_end - back > now)
      now = last_end - back; /* forget some: compactions */
    double ready = u < 0.4 ? last_end : u < 0.7 ? last_end + 1e-5 * rng_unit(&rng) : now + 5e-3 * rng_unit(&rng);
    double ta = iface_sched_reserve(&a, now, ready, dur);
    double tb = iface_sched_reserve_any(&b, now, ready, dur);
    ck_assert_msg(ta == tb, "reservation %d: %.17g vs %.17g", k, ta, tb);
    if (ta + dur > last_end)
      last_end = ta + dur;
  }
  ck_assert(a.head == b.head && a.n == b.n && a.cap == b.cap);
  for (size_t i = a.head; i < a.n; i++)
    ck_assert(a.start_s[i] == b.start_s[i] && a.end_s[i] == b.end_s[i]);
  ck_assert_msg(a.n - a.head > 10, "only %zu live intervals: no gaps exercised", a.n - a.head);
  iface_sched_free(&a);
  iface_sched_free(&b);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("disks_flash");
  TCase *tc;
  tc = tcase_create("flash");
  tcase_add_test(tc, test_ssd_parallelism);
  tcase_add_test(tc, test_ssd_channel_bus);
  tcase_add_test(tc, test_ssd_link_caps);
  tcase_add_test(tc, test_ssd_read_stalls);
  tcase_add_test(tc, test_ssd_write_stalls);
  tcase_add_test(tc, test_ssd_steady_state);
  tcase_add_test(tc, test_ssd_active_range);
  tcase_add_test(tc, test_ssd_write_dies);
  tcase_add_test(tc, test_ssd_mixed_flush);
  tcase_add_test(tc, test_ssd_mixed_streams);
  tcase_add_test(tc, test_ssd_mixed_flush_budget);
  tcase_add_test(tc, test_iface_sched_shortcut);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
