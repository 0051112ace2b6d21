/* Device models: fixed FIFO golden times, HDD mechanics (seek + rotation,
 * zones, NCQ), SSD/NVMe parallelism and link caps, shared links, random
 * request streams, and the drive catalogue against the param tables. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "models/disks/disk.h"
#include "models/disks/iface.h"

/* ---- helpers ---- */

struct pbuf {
  double v[64];
};

static void set_param(const struct disk_model *m, struct pbuf *pb, const char *key, double v)
{
  const struct param_desc *d = params_find(m->params, m->nparams, key);
  ck_assert_msg(d != NULL, "model %s has no param '%s'", m->name, key);
  *(double *)((char *)pb->v + d->offset) = v;
}

static void init_params(const struct disk_model *m, struct pbuf *pb)
{
  ck_assert_msg(m->params_size <= sizeof pb->v, "params_size %zu too big", m->params_size);
  memset(pb, 0, sizeof *pb);
  params_defaults(m->params, m->nparams, pb->v);
}

static struct disk *make_disk(const struct disk_model *m, struct pbuf *pb, uint64_t seed)
{
  char msg[256] = "";
  int rc = m->check(pb->v, msg, sizeof msg);
  ck_assert_msg(rc == 0, "check failed for %s: %s", m->name, msg);
  struct disk *d = disk_create(m, pb->v, "d0", seed);
  ck_assert_ptr_nonnull(d);
  return d;
}

/* A 2 TB 7200 rpm drive with a flat zone table (uniform LBA = uniform cylinder). */
static struct disk *make_hdd(struct pbuf *pb, double rate_outer, double rate_inner, double ncq)
{
  const struct disk_model *m = disk_model_find("hdd");
  init_params(m, pb);
  set_param(m, pb, "capacity", 2e12);
  set_param(m, pb, "rpm", 7200);
  set_param(m, pb, "seek_track", 1e-3);
  set_param(m, pb, "seek_avg", 8.5e-3);
  set_param(m, pb, "seek_full", 16e-3);
  set_param(m, pb, "rate_outer", rate_outer);
  set_param(m, pb, "rate_inner", rate_inner);
  set_param(m, pb, "ncq_depth", ncq);
  set_param(m, pb, "power_active", 8.0);
  set_param(m, pb, "power_idle", 5.0);
  return make_disk(m, pb, 42);
}

static struct disk *make_flash(const char *model, struct pbuf *pb, double read_rate)
{
  const struct disk_model *m = disk_model_find(model);
  init_params(m, pb);
  set_param(m, pb, "capacity", 256e9);
  set_param(m, pb, "read_latency", 80e-6);
  set_param(m, pb, "write_latency", 400e-6);
  set_param(m, pb, "channels", 4);
  set_param(m, pb, "dies_per_channel", 2);
  set_param(m, pb, "read_rate", read_rate);
  set_param(m, pb, "channel_rate", 4e9);
  set_param(m, pb, "write_rate", 400e6);
  set_param(m, pb, "power_active", 3.0);
  set_param(m, pb, "power_idle", 0.5);
  if (strcmp(model, "nvme") == 0) { /* 8 x 4 units: 32 x 16 KiB / 80 us = 6.5 GB/s */
    set_param(m, pb, "dies_per_channel", 4);
    set_param(m, pb, "channels", 8);
    set_param(m, pb, "pcie_gen", 3);
    set_param(m, pb, "pcie_lanes", 4);
  }
  return make_disk(m, pb, 7);
}

static uint64_t rng_next(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
  return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

enum pattern { RANDOM_READ, RANDOM_WRITE, SEQ_READ, SEQ_WRITE };

/* Closed loop at queue depth qd: n requests of len bytes; returns the
 * elapsed time (s).  Offsets random (aligned to len) over [base, base +
 * span) or sequential from base. */
static double run_qd_from(struct disk *d, double now, int n, int qd, uint64_t len,
                          enum pattern pat, uint64_t base, uint64_t span, uint64_t seed)
{
  uint64_t rs = seed, next_seq = base;
  int submitted = 0, completed = 0, outstanding = 0, loops = 0;
  while (completed < n) {
    while (outstanding < qd && submitted < n) {
      struct disk_io io = {.len_bytes = len, .write = pat == RANDOM_WRITE || pat == SEQ_WRITE,
                           .tag = (uint64_t)submitted};
      if (pat == SEQ_READ || pat == SEQ_WRITE) {
        io.offset_bytes = next_seq;
        next_seq += len;
      } else {
        io.offset_bytes = base + (rng_next(&rs) % (span / len)) * len;
      }
      disk_submit(d, now, &io);
      submitted++;
      outstanding++;
    }
    double t = disk_next_completion_s(d);
    ck_assert_msg(isfinite(t) && t >= now, "next completion %g at now %g", t, now);
    now = t;
    struct disk_io done;
    while (disk_pop_completion(d, now, &done)) {
      completed++;
      outstanding--;
    }
    ck_assert_msg(++loops < 100 * n + 1000, "driver loop does not progress");
  }
  return now;
}

/* run_qd_from at time 0. */
static double run_qd(struct disk *d, int n, int qd, uint64_t len, enum pattern pat, uint64_t base,
                     uint64_t span, uint64_t seed)
{
  return run_qd_from(d, 0.0, n, qd, len, pat, base, span, seed);
}

/* ---- fixed ---- */

START_TEST(test_fixed_golden)
{
  const struct disk_model *m = disk_model_find("fixed");
  struct pbuf pb;
  init_params(m, &pb);
  set_param(m, &pb, "capacity", 1e12);
  set_param(m, &pb, "latency", 1e-3);
  set_param(m, &pb, "read_rate", 100e6);
  set_param(m, &pb, "write_rate", 50e6);
  set_param(m, &pb, "power_idle", 2.0);
  set_param(m, &pb, "power_active", 5.0);
  struct disk *d = make_disk(m, &pb, 1);
  struct disk_io a = {.offset_bytes = 0, .len_bytes = 1000000, .write = 0, .tag = 1};
  struct disk_io b = {.offset_bytes = 0, .len_bytes = 1000000, .write = 0, .tag = 2};
  struct disk_io c = {.offset_bytes = 0, .len_bytes = 500000, .write = 1, .tag = 3};
  disk_submit(d, 0.5, &a); /* idle: 0.5 + 0.001 + 1e6 / 100e6 = 0.511 */
  disk_submit(d, 0.5, &b); /* FIFO: 0.511 + 0.011 = 0.522 */
  disk_submit(d, 0.5, &c); /* 0.522 + 0.001 + 5e5 / 50e6 = 0.533 */
  const double want[3] = {0.511, 0.522, 0.533};
  for (int i = 0; i < 3; i++) {
    double t = disk_next_completion_s(d);
    ck_assert_msg(fabs(t - want[i]) < 1e-12, "completion %d at %.9f, want %.9f", i, t, want[i]);
    struct disk_io done;
    ck_assert_int_eq(disk_pop_completion(d, t - 1e-9, &done), 0);
    ck_assert_int_eq(disk_pop_completion(d, t, &done), 1);
    ck_assert_msg(done.tag == (uint64_t)i + 1, "popped tag %llu, want %d",
                  (unsigned long long)done.tag, i + 1);
  }
  ck_assert(isinf(disk_next_completion_s(d)));
  struct disk_stats st;
  disk_stats(d, 1.0, &st);
  ck_assert_msg(fabs(st.busy_s - 0.033) < 1e-12, "busy %.9f s, want 0.033", st.busy_s);
  double e = 2.0 * 1.0 + 3.0 * 0.033; /* idle power x time + (active - idle) x busy */
  ck_assert_msg(fabs(st.energy_J - e) < 1e-9, "energy %.9f J, want %.9f", st.energy_J, e);
  ck_assert(st.reads == 2 && st.writes == 1 && st.read_bytes == 2000000 && st.write_bytes == 500000);
  disk_destroy(d);
}
END_TEST

START_TEST(test_registry)
{
  const char *names[] = {"hdd", "sata_ssd", "nvme", "fixed"};
  for (int i = 0; i < 4; i++) {
    const struct disk_model *m = disk_model_find(names[i]);
    ck_assert_msg(m != NULL && strcmp(m->name, names[i]) == 0, "model %s not found", names[i]);
    ck_assert_msg(strstr(disk_model_names(), names[i]) != NULL, "%s missing from names", names[i]);
    for (size_t k = 0; k < m->nparams; k++) {
      const struct param_desc *p = &m->params[k];
      ck_assert_msg(p->min <= p->max, "%s.%s min > max", m->name, p->key);
      ck_assert_msg(!p->optional || p->choices || (p->def >= p->min && p->def <= p->max),
                    "%s.%s default %g outside [%g, %g]", m->name, p->key, p->def, p->min, p->max);
      ck_assert_msg(p->offset + sizeof(double) <= m->params_size, "%s.%s offset", m->name, p->key);
    }
  }
  ck_assert_ptr_null(disk_model_find("tape"));
  ck_assert_ptr_null(disk_model_find(NULL));
  disk_destroy(NULL);
}
END_TEST

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

/* Interleaved sequential readers (one outstanding 64 KiB read each,
 * regions 10 GB apart), as md hands a RAID member: time for n reads. */
static double hdd_interleaved(double segments, double prefetch_bytes, double zlr, int streams, int n)
{
  struct pbuf pb;
  struct disk *d = make_hdd(&pb, 150e6, 150e6, 32);
  const struct disk_model *m = disk_model_find("hdd");
  set_param(m, &pb, "cache_segments", segments);
  set_param(m, &pb, "stream_prefetch", prefetch_bytes);
  set_param(m, &pb, "zero_latency_read", zlr);
  disk_destroy(d);
  d = make_disk(m, &pb, 42);
  uint64_t next[16];
  for (int k = 0; k < streams; k++)
    next[k] = (uint64_t)k * 10000000000ull;
  double now = 0.0;
  int submitted = 0, completed = 0;
  for (int k = 0; k < streams; k++, submitted++) {
    struct disk_io io = {.offset_bytes = next[k], .len_bytes = 65536, .tag = (uint64_t)k};
    next[k] += 65536;
    disk_submit(d, now, &io);
  }
  while (completed < n) {
    now = disk_next_completion_s(d);
    ck_assert_msg(isfinite(now), "no completion pending");
    struct disk_io done;
    while (disk_pop_completion(d, now, &done)) {
      completed++;
      if (submitted < n) {
        int k = (int)done.tag;
        struct disk_io io = {.offset_bytes = next[k], .len_bytes = 65536, .tag = (uint64_t)k};
        next[k] += 65536;
        disk_submit(d, now, &io);
        submitted++;
      }
    }
  }
  disk_destroy(d);
  return now;
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

/* ---- shared link ---- */

START_TEST(test_iface_shared_link)
{
  ck_assert_ptr_null(iface_link_create("bad", 1e9, 1e9));
  ck_assert_ptr_null(iface_link_create("bad", 0, 0));
  char msg[160];
  ck_assert_int_eq(iface_link_check(1e9, 2e9, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "reserved") != NULL, "message: %s", msg);
  double gen3x4 = 4 * iface_pcie_lane_rate(3), nic = 10e9 / 8;
  struct iface_link *l = iface_link_create("e10m20", gen3x4, nic);
  ck_assert_ptr_nonnull(l);
  struct pbuf pa, pb2;
  struct disk *a = make_flash("nvme", &pa, 3.5e9), *b = make_flash("nvme", &pb2, 3.5e9);
  a->model->attach_link(a->priv, l);
  b->model->attach_link(b->priv, l);
  uint64_t len = 1 << 20, off_a = 0, off_b = 0;
  double now = 0.0;
  int out_a = 0, out_b = 0, done = 0, n = 800;
  int sub = 0;
  while (done < n) {
    while (sub < n && (out_a < 16 || out_b < 16)) {
      struct disk_io io = {.len_bytes = len};
      if (out_a <= out_b) {
        io.offset_bytes = off_a;
        off_a += len;
        disk_submit(a, now, &io);
        out_a++;
      } else {
        io.offset_bytes = off_b;
        off_b += len;
        disk_submit(b, now, &io);
        out_b++;
      }
      sub++;
    }
    double ta = disk_next_completion_s(a), tb = disk_next_completion_s(b);
    now = ta < tb ? ta : tb;
    struct disk_io io;
    while (disk_pop_completion(a, now, &io)) {
      out_a--;
      done++;
    }
    while (disk_pop_completion(b, now, &io)) {
      out_b--;
      done++;
    }
  }
  double rate = (double)n * len / now, cap = gen3x4 - nic;
  ck_assert_msg(rate <= cap * 1.0001 + len / now, "two NVMe %.1f MB/s above link share %.1f",
                rate / 1e6, cap / 1e6);
  ck_assert_msg(rate > 0.9 * cap, "two NVMe %.1f MB/s well below link share %.1f", rate / 1e6,
                cap / 1e6);
  disk_destroy(a);
  disk_destroy(b);
  iface_link_destroy(l);
  iface_link_destroy(NULL);
}
END_TEST

/* ---- random streams ---- */

static void random_stream(struct disk *d, double min_fixed_lat, double min_rate, int fifo,
                          uint64_t seed)
{
  enum { N = 1500 };
  static double submit_at[N];
  static int popped[N];
  memset(popped, 0, sizeof popped);
  uint64_t rs = seed, lens[N];
  double now = 0.0, next_arrival = 0.0, last_done = 0.0;
  int sub = 0, done = 0, loops = 0;
  while (done < N) {
    double tc = disk_next_completion_s(d);
    ck_assert_msg(tc >= now, "next completion %.9f before now %.9f", tc, now);
    if (sub < N && next_arrival <= tc) {
      now = next_arrival;
      lens[sub] = 512ULL << (rng_next(&rs) % 10);
      struct disk_io io = {.offset_bytes = (rng_next(&rs) % 1000000) * 4096,
                           .len_bytes = lens[sub],
                           .write = rng_unit(&rs) < 0.3,
                           .tag = (uint64_t)sub};
      if (rng_unit(&rs) < 0.3 && sub > 0) /* some sequential runs */
        io.offset_bytes = (uint64_t)sub * 65536;
      submit_at[sub] = now;
      disk_submit(d, now, &io);
      sub++;
      next_arrival = now + (rng_unit(&rs) < 0.5 ? 0.0 : rng_unit(&rs) * 4e-3);
    } else {
      now = tc;
      struct disk_io io;
      while (disk_pop_completion(d, now, &io)) {
        ck_assert_msg(io.tag < (uint64_t)sub && !popped[io.tag], "tag %llu popped twice",
                      (unsigned long long)io.tag);
        popped[io.tag] = 1;
        double min_s = min_fixed_lat + (double)lens[io.tag] / min_rate;
        ck_assert_msg(now >= submit_at[io.tag] + min_s - 1e-12,
                      "tag %llu done at %.9f, submitted %.9f, min service %.9f",
                      (unsigned long long)io.tag, now, submit_at[io.tag], min_s);
        if (fifo) {
          ck_assert_msg(now >= last_done, "FIFO completion %.9f before %.9f", now, last_done);
          ck_assert_msg(io.tag == (uint64_t)done, "FIFO popped %llu, want %d",
                        (unsigned long long)io.tag, done);
        }
        last_done = now;
        done++;
      }
    }
    ck_assert_msg(++loops < 20 * N, "stream does not progress");
  }
  ck_assert(isinf(disk_next_completion_s(d)));
}

START_TEST(test_random_streams)
{
  struct pbuf pb;
  const struct disk_model *m = disk_model_find("fixed");
  init_params(m, &pb);
  set_param(m, &pb, "capacity", 1e12);
  set_param(m, &pb, "latency", 2e-4);
  set_param(m, &pb, "read_rate", 200e6);
  set_param(m, &pb, "write_rate", 200e6);
  struct disk *d = make_disk(m, &pb, 1);
  random_stream(d, 2e-4, 200e6, 1, 1);
  disk_destroy(d);
  for (uint64_t seed = 1; seed <= 3; seed++) {
    /* any model: never faster than its host link */
    d = make_hdd(&pb, 150e6, 80e6, 32);
    random_stream(d, 0.0, 600e6, 0, seed);
    disk_destroy(d);
    d = make_flash("sata_ssd", &pb, 550e6);
    random_stream(d, 0.0, 600e6, 0, seed);
    disk_destroy(d);
    d = make_flash("nvme", &pb, 3e9);
    random_stream(d, 0.0, 4 * 8e9 * 128 / 130 / 8, 0, seed);
    disk_destroy(d);
  }
}
END_TEST

/* ---- catalogue ---- */

/* Parse catalog/drives.yaml into a small tree walk: drives -> entry ->
 * model / params -> key -> {value, source, fit: [lo, hi]}. */
struct cat_ctx {
  yaml_parser_t parser;
  int entries;
};

static int cat_next(yaml_parser_t *p, yaml_event_t *ev)
{
  ck_assert_msg(yaml_parser_parse(p, ev), "YAML error in drives.yaml: %s (line %zu)",
                p->problem ? p->problem : "?", p->problem_mark.line + 1);
  return ev->type;
}

/* Read a scalar event (asserting its type). */
static void cat_scalar(yaml_parser_t *p, char *out, size_t len)
{
  yaml_event_t ev;
  cat_next(p, &ev);
  ck_assert_msg(ev.type == YAML_SCALAR_EVENT, "expected a scalar at line %zu",
                ev.start_mark.line + 1);
  snprintf(out, len, "%s", (const char *)ev.data.scalar.value);
  yaml_event_delete(&ev);
}

static double cat_value(const struct param_desc *d, const char *text, const char *where)
{
  double v = 0.0;
  if (d->choices != NULL) {
    for (int i = 0; d->choices[i]; i++)
      if (strcmp(d->choices[i], text) == 0)
        return i;
    ck_abort_msg("%s: '%s' is not a choice", where, text);
  }
  char msg[256];
  ck_assert_msg(units_parse(text, d->dim, &v, msg, sizeof msg) == 0, "%s: %s", where, msg);
  ck_assert_msg(v >= d->min && v <= d->max, "%s: %s outside [%g, %g]", where, text, d->min,
                d->max);
  return v;
}

/* One param mapping {value, source, fit}. */
static void cat_param(yaml_parser_t *p, const struct disk_model *m, struct pbuf *pb,
                      const char *entry, const char *key, int *seen)
{
  char where[256];
  snprintf(where, sizeof where, "%s.%s", entry, key);
  const struct param_desc *d = params_find(m->params, m->nparams, key);
  ck_assert_msg(d != NULL, "%s: not a param of model %s", where, m->name);
  seen[d - m->params] = 1;
  yaml_event_t ev;
  cat_next(p, &ev);
  ck_assert_msg(ev.type == YAML_MAPPING_START_EVENT, "%s: expected {value, source}", where);
  yaml_event_delete(&ev);
  int has_value = 0, has_source = 0, has_fit = 0;
  double v = 0, lo = 0, hi = 0;
  for (;;) {
    cat_next(p, &ev);
    if (ev.type == YAML_MAPPING_END_EVENT) {
      yaml_event_delete(&ev);
      break;
    }
    char k[64];
    snprintf(k, sizeof k, "%s", (const char *)ev.data.scalar.value);
    yaml_event_delete(&ev);
    char text[512];
    if (strcmp(k, "fit") == 0) {
      cat_next(p, &ev);
      ck_assert_msg(ev.type == YAML_SEQUENCE_START_EVENT, "%s: fit must be [lo, hi]", where);
      yaml_event_delete(&ev);
      cat_scalar(p, text, sizeof text);
      lo = cat_value(d, text, where);
      cat_scalar(p, text, sizeof text);
      hi = cat_value(d, text, where);
      cat_next(p, &ev);
      ck_assert_msg(ev.type == YAML_SEQUENCE_END_EVENT, "%s: fit must be [lo, hi]", where);
      yaml_event_delete(&ev);
      has_fit = 1;
    } else {
      cat_scalar(p, text, sizeof text);
      if (strcmp(k, "value") == 0) {
        v = cat_value(d, text, where);
        has_value = 1;
      } else if (strcmp(k, "source") == 0) {
        has_source = strlen(text) > 5;
      } else {
        ck_abort_msg("%s: unknown field '%s'", where, k);
      }
    }
  }
  ck_assert_msg(has_value && has_source, "%s: needs value and source", where);
  if (has_fit)
    ck_assert_msg(lo <= v && v <= hi, "%s: value %g outside fit [%g, %g]", where, v, lo, hi);
  *(double *)((char *)pb->v + d->offset) = v;
}

START_TEST(test_catalog)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/catalog/drives.yaml", NASTWIN_SOURCE_DIR);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  yaml_parser_t p;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_file(&p, f);
  yaml_event_t ev;
  /* stream, document, mapping, "drives", mapping */
  for (int i = 0; i < 3; i++) {
    cat_next(&p, &ev);
    yaml_event_delete(&ev);
  }
  char text[256];
  cat_scalar(&p, text, sizeof text);
  ck_assert_str_eq(text, "drives");
  cat_next(&p, &ev);
  yaml_event_delete(&ev);
  const char *expect[] = {"ocz-vector-120", "sandisk-ultra-plus-256", "hitachi-7k3000-3tb",
                          "hitachi-a7k2000-2tb", "wd-red-14tb", "synology-snv3400-400g",
                          "samsung-pm810-256", "wd-re-4tb", "teaching-fixed"};
  int found[9] = {0};
  for (;;) {
    cat_next(&p, &ev);
    if (ev.type == YAML_MAPPING_END_EVENT) {
      yaml_event_delete(&ev);
      break;
    }
    char entry[128];
    snprintf(entry, sizeof entry, "%s", (const char *)ev.data.scalar.value);
    yaml_event_delete(&ev);
    for (int i = 0; i < 9; i++)
      if (strcmp(entry, expect[i]) == 0)
        found[i] = 1;
    cat_next(&p, &ev);
    yaml_event_delete(&ev); /* entry mapping */
    const struct disk_model *m = NULL;
    struct pbuf pb;
    int seen[64] = {0};
    for (;;) {
      cat_next(&p, &ev);
      if (ev.type == YAML_MAPPING_END_EVENT) {
        yaml_event_delete(&ev);
        break;
      }
      char k[64];
      snprintf(k, sizeof k, "%s", (const char *)ev.data.scalar.value);
      yaml_event_delete(&ev);
      if (strcmp(k, "model") == 0) {
        cat_scalar(&p, text, sizeof text);
        m = disk_model_find(text);
        ck_assert_msg(m != NULL, "%s: unknown model %s", entry, text);
        init_params(m, &pb);
      } else if (strcmp(k, "description") == 0 || strcmp(k, "source") == 0) {
        cat_scalar(&p, text, sizeof text);
      } else if (strcmp(k, "seek_curve") == 0 || strcmp(k, "zones") == 0) {
        int depth = 0; /* the measured layout: checked by the config loader (test_disksim) */
        do {
          cat_next(&p, &ev);
          depth += ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT;
          depth -= ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT;
          yaml_event_delete(&ev);
        } while (depth > 0);
      } else {
        ck_assert_msg(strcmp(k, "params") == 0 && m != NULL, "%s: unexpected '%s'", entry, k);
        cat_next(&p, &ev);
        yaml_event_delete(&ev);
        for (;;) {
          cat_next(&p, &ev);
          if (ev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&ev);
            break;
          }
          char key[64];
          snprintf(key, sizeof key, "%s", (const char *)ev.data.scalar.value);
          yaml_event_delete(&ev);
          cat_param(&p, m, &pb, entry, key, seen);
        }
      }
    }
    ck_assert_msg(m != NULL, "%s: no model", entry);
    for (size_t i = 0; i < m->nparams; i++)
      ck_assert_msg(m->params[i].optional || seen[i], "%s: required param %s missing", entry,
                    m->params[i].key);
    char msg[256] = "";
    ck_assert_msg(m->check(pb.v, msg, sizeof msg) == 0, "%s: %s", entry, msg);
    struct disk *d = disk_create(m, pb.v, entry, 1);
    ck_assert_ptr_nonnull(d);
    run_qd(d, 50, 4, 65536, RANDOM_READ, 0, (uint64_t)(m->capacity_bytes(pb.v) / 2), 1);
    disk_destroy(d);
  }
  for (int i = 0; i < 9; i++)
    ck_assert_msg(found[i], "catalogue lacks %s", expect[i]);
  yaml_parser_delete(&p);
  fclose(f);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("disks");
  TCase *tc = tcase_create("fixed");
  tcase_add_test(tc, test_fixed_golden);
  tcase_add_test(tc, test_registry);
  suite_add_tcase(s, tc);
  tc = tcase_create("hdd");
  tcase_add_test(tc, test_hdd_check_messages);
  tcase_add_test(tc, test_hdd_random_qd1);
  tcase_add_test(tc, test_hdd_zones_sequential);
  tcase_add_test(tc, test_hdd_sequential_no_seek);
  tcase_add_test(tc, test_hdd_ncq);
  tcase_add_test(tc, test_hdd_segments_streams);
  tcase_add_test(tc, test_hdd_energy);
  tcase_add_test(tc, test_hdd_write_cache_steady_state);
  tcase_add_test(tc, test_hdd_write_cache_sequential_steady_state);
  tcase_add_test(tc, test_hdd_write_cache_share);
  suite_add_tcase(s, tc);
  tc = tcase_create("flash");
  tcase_add_test(tc, test_ssd_parallelism);
  tcase_add_test(tc, test_ssd_channel_bus);
  tcase_add_test(tc, test_ssd_link_caps);
  tcase_add_test(tc, test_ssd_read_stalls);
  tcase_add_test(tc, test_ssd_steady_state);
  tcase_add_test(tc, test_ssd_active_range);
  suite_add_tcase(s, tc);
  tc = tcase_create("iface");
  tcase_add_test(tc, test_iface_shared_link);
  suite_add_tcase(s, tc);
  tc = tcase_create("streams");
  tcase_add_test(tc, test_random_streams);
  suite_add_tcase(s, tc);
  tc = tcase_create("catalog");
  tcase_add_test(tc, test_catalog);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
