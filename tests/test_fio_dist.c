/* fio's per-direction values (bs=R,W, bssplit=R,W, rate=R,W), its
 * random_distribution (zipf, pareto, normal, zoned, zoned_abs) and strided
 * zones (zonemode=strided): parsed into the job, then drawn by the
 * workload generator (sim/config/workgen.c) as fio 3.33 draws them. */
#include <check.h>
#include "ck_run.h"
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/workgen.h"
#include "sim/config/workload.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

static struct job fd_job(const char *text, struct workload *w)
{
  struct nw_err err;
  char *warn = NULL;
  int rc = fio_parse_string(text, "dist.fio", w, &warn, &err);
  ck_assert_msg(rc == 0, "should parse: %s:%d:%d: %s\n%s", err.file, err.line, err.col, err.msg, text);
  free(warn);
  struct job j = w->steps[0].jobs[0];
  workload_free(w);
  return j;
}

static char *fd_fail(const char *text)
{
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  ck_assert_msg(fio_parse_string(text, "dist.fio", &w, &warn, &err) == -1, "should fail:\n%s", text);
  return strdup(err.msg);
}

#define CK_NEAR(got, want, tol) \
  ck_assert_msg(fabs((double)(got) - (double)(want)) <= (tol), "%s = %.9g, want %.9g +- %g", #got, \
                (double)(got), (double)(want), (double)(tol))

START_TEST(test_per_direction_parse)
{
  struct workload w;
  struct job j = fd_job("[j]\nrw=randrw\nbs=4k,64k\nrate=1m,2m\n", &w);
  ck_assert_int_eq(j.nbs, 1);
  CK_NEAR(j.bs_bytes[0], 4 * KIB, 0);
  ck_assert_int_eq(j.nbs_w, 1);
  CK_NEAR(j.bs_bytes_w[0], 64 * KIB, 0);
  /* Reads capped at 1 MiB/s of 4 KiB (256/s), writes at 2 MiB/s of 64 KiB
   * (32/s); fio paces each direction on its own: 288/s, 256 of them reads. */
  CK_NEAR(j.rate_iops, 288.0, 1e-9);
  CK_NEAR(j.read_frac, 256.0 / 288.0, 1e-12);
  /* "bs=,8k": reads take fio's default, writes 8 KiB; the trim value is checked. */
  j = fd_job("[j]\nrw=write\nbs=,8k,16k\n", &w);
  CK_NEAR(j.bs_bytes[0], 4 * KIB, 0);
  CK_NEAR(j.bs_bytes_w[0], 8 * KIB, 0);
  /* One value: both directions, no write list. */
  j = fd_job("[j]\nbs=256k\nrate_iops=100\nrw=randread\n", &w);
  ck_assert_int_eq(j.nbs_w, 0);
  CK_NEAR(j.rate_iops, 100.0, 0);
  /* bssplit per direction. */
  j = fd_job("[j]\nrw=randrw\nbssplit=64k/40:1024k/60,1024k/100\n", &w);
  ck_assert_int_eq(j.nbs, 2);
  CK_NEAR(j.bs_weight[1], 0.6, 1e-12);
  ck_assert_int_eq(j.nbs_w, 1);
  CK_NEAR(j.bs_bytes_w[0], 1024 * KIB, 0);
  /* fio's aliases. */
  j = fd_job("[j]\nratemin=1m\nfileoffset=1m\nnr_files=2\ninvalidate=1\n", &w);
  CK_NEAR(j.offset_bytes, MIB, 0);
  char *m = fd_fail("[j]\nbs=4k,8k,16k,32k\n");
  ck_assert_msg(strstr(m, "at most READ,WRITE,TRIM"), "%s", m);
  free(m);
  m = fd_fail("[j]\nrate=1m,fast\n");
  ck_assert_msg(strstr(m, "rate: bad value 'fast'"), "%s", m);
  free(m);
}
END_TEST

START_TEST(test_distribution_parse)
{
  struct workload w;
  struct job j = fd_job("[j]\nrw=randread\nrandom_distribution=zipf:1.2\n", &w);
  ck_assert_int_eq(j.dist, JOB_DIST_ZIPF);
  CK_NEAR(j.dist_param, 1.2, 0);
  CK_NEAR(j.dist_center, -1.0, 0);
  j = fd_job("[j]\nrw=randread\nrandom_distribution=pareto:0.9:0.25\n", &w);
  ck_assert_int_eq(j.dist, JOB_DIST_PARETO);
  CK_NEAR(j.dist_center, 0.25, 0);
  j = fd_job("[j]\nrw=randread\nrandom_distribution=gauss:5\n", &w);
  ck_assert_int_eq(j.dist, JOB_DIST_NORMAL);
  /* An empty size takes what is left (fio zone_split_ddir). */
  j = fd_job("[j]\nrw=randread\nrandom_distribution=zoned:50/5:30/15:20/\n", &w);
  ck_assert_int_eq(j.dist, JOB_DIST_ZONED);
  ck_assert_int_eq(j.nzones, 3);
  CK_NEAR(j.zone_span[2], 0.80, 1e-12);
  CK_NEAR(j.zone_access[0], 0.50, 1e-12);
  j = fd_job("[j]\nrw=randread\nrandom_distribution=zoned_abs:60/1m:40/3m\n", &w);
  ck_assert_int_eq(j.zone_abs, 1);
  CK_NEAR(j.zone_span[1], 3 * MIB, 0);
  static const char *const bad[] = {"zipf:1", "zipf:0", "pareto:1.5", "normal:101", "zoned:50/5:30/15",
                                    "zipf:1.2:2", "lognormal:3", "zipf:1.2,zipf:0.8"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[128];
    snprintf(text, sizeof text, "[j]\nrw=randread\nrandom_distribution=%s\n", bad[i]);
    char *m = fd_fail(text);
    ck_assert_msg(strstr(m, "random_distribution:") && strstr(m, bad[i]), "%s: %s", bad[i], m);
    free(m);
  }
}
END_TEST

/* n I/Os of job j over a region of region bytes; offsets in off[]. */
static void fd_draw(const struct job *j, double region, int n, double *off, int *write, double *len,
                    unsigned long seed)
{
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  struct workgen g;
  workgen_init(&g, j, NULL, 0.0, region);
  for (int i = 0; i < n; i++) {
    struct workgen_io io;
    workgen_next(&g, rng, &io);
    off[i] = (double)io.offset_bytes;
    if (write)
      write[i] = io.write;
    if (len)
      len[i] = (double)io.len_bytes;
    ck_assert_msg(io.offset_bytes + io.len_bytes <= (uint64_t)region, "I/O %d at %g past the region", i, off[i]);
  }
  gsl_rng_free(rng);
}

static int fd_cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int fd_cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

/* Share of the n draws that fall on the most drawn 1 % of the ranges hit. */
static double fd_top_share(double *off, int n, double ranges)
{
  qsort(off, (size_t)n, sizeof *off, fd_cmp);
  int *counts = calloc((size_t)n, sizeof *counts), k = 0;
  for (int i = 0; i < n; i++) {
    if (i > 0 && off[i] == off[i - 1])
      counts[k - 1]++;
    else
      counts[k++] = 1;
  }
  qsort(counts, (size_t)k, sizeof *counts, fd_cmp_int);
  int top = (int)(ranges / 100.0), sum = 0;
  for (int i = 0; i < top && i < k; i++)
    sum += counts[k - 1 - i];
  free(counts);
  return (double)sum / n;
}

#define FD_N 40000

START_TEST(test_distribution_draws)
{
  struct workload w;
  const double region = 64 * MIB, ranges = region / (4 * KIB);
  double *off = malloc(FD_N * sizeof *off), *again = malloc(FD_N * sizeof *again);
  /* zipf:1.2: the top 1 % of the ranks hold zeta(163) / zeta(16384) of the I/Os. */
  struct job j = fd_job("[j]\nrw=randread\nrandom_distribution=zipf:1.2\n", &w);
  fd_draw(&j, region, FD_N, off, NULL, NULL, 7);
  fd_draw(&j, region, FD_N, again, NULL, NULL, 7);
  ck_assert_msg(memcmp(off, again, FD_N * sizeof *off) == 0, "same seed, other offsets");
  double zs = 0.0, zn = 0.0;
  for (double k = 1; k <= ranges; k++) {
    zn += pow(k, -1.2);
    if (k <= floor(ranges / 100.0))
      zs += pow(k, -1.2);
  }
  CK_NEAR(fd_top_share(off, FD_N, ranges), zs / zn, 0.03);
  /* pareto:0.9: x = u^(log 0.9 / log 0.1); the top 1 % of values take 1 - 0.99^(1/p). */
  j = fd_job("[j]\nrw=randread\nrandom_distribution=pareto:0.9\n", &w);
  fd_draw(&j, region, FD_N, off, NULL, NULL, 7);
  CK_NEAR(fd_top_share(off, FD_N, ranges), 1.0 - pow(0.99, log(0.1) / log(0.9)), 0.02);
  /* Uniform for contrast: no hot ranges. */
  j = fd_job("[j]\nrw=randread\n", &w);
  fd_draw(&j, region, FD_N, off, NULL, NULL, 7);
  ck_assert_double_lt(fd_top_share(off, FD_N, ranges), 0.05);
  /* zoned: half the I/Os in the first 5 %, 30 % in the next 15 %. */
  j = fd_job("[j]\nrw=randread\nrandom_distribution=zoned:50/5:30/15:20/\n", &w);
  fd_draw(&j, region, FD_N, off, NULL, NULL, 7);
  int z0 = 0, z1 = 0;
  for (int i = 0; i < FD_N; i++)
    z0 += off[i] < 0.05 * region, z1 += off[i] >= 0.05 * region && off[i] < 0.20 * region;
  CK_NEAR((double)z0 / FD_N, 0.50, 0.015);
  CK_NEAR((double)z1 / FD_N, 0.30, 0.015);
  /* normal: fio's mean of 12 draws, hashed; offsets stay aligned and in the region. */
  j = fd_job("[j]\nrw=randread\nbs=8k\nrandom_distribution=normal:10:0.5\n", &w);
  fd_draw(&j, region, FD_N, off, NULL, NULL, 7);
  for (int i = 0; i < FD_N; i++)
    ck_assert_msg(fmod(off[i], 8 * KIB) == 0.0, "offset %g not aligned", off[i]);
  free(off);
  free(again);
}
END_TEST

START_TEST(test_direction_and_zone_draws)
{
  struct workload w;
  double off[64], len[64];
  int wr[64];
  struct job j = fd_job("[j]\nrw=randrw\nbs=4k,64k\n", &w);
  fd_draw(&j, 64 * MIB, 64, off, wr, len, 3);
  int nw = 0;
  for (int i = 0; i < 64; i++) {
    ck_assert_msg(len[i] == (wr[i] ? 64 * KIB : 4 * KIB), "I/O %d: write %d of %g B", i, wr[i], len[i]);
    nw += wr[i];
  }
  ck_assert_msg(nw > 10 && nw < 54, "%d writes of 64", nw);
  /* zonemode=strided: 1 MiB in a zone, then 3 MiB skipped; 16 MiB region:
   * 4 zones of 4 x 256 KiB, the skipped bytes counted as done (fio). */
  j = fd_job("[j]\nrw=read\nbs=256k\nzonemode=strided\nzonesize=1m\nzoneskip=3m\n", &w);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  struct workgen g;
  workgen_init(&g, &j, NULL, 0.0, 16 * MIB);
  int n = 0;
  while (workgen_more(&g) && n < 64) {
    struct workgen_io io;
    workgen_next(&g, rng, &io);
    double want = floor(n / 4) * 4 * MIB + (n % 4) * 256 * KIB;
    ck_assert_msg((double)io.offset_bytes == want, "I/O %d at %g, want %g", n, (double)io.offset_bytes, want);
    n++;
  }
  ck_assert_int_eq(n, 16);
  /* zonesize without zonemode is strided (fio init.c); zonemode=none ignores it. */
  j = fd_job("[j]\nzonesize=1m\n", &w);
  CK_NEAR(j.zone_size_bytes, MIB, 0);
  j = fd_job("[j]\nzonemode=none\nzonesize=1m\n", &w);
  CK_NEAR(j.zone_size_bytes, 0, 0);
  gsl_rng_free(rng);
}
END_TEST

/* zonemode=zbd as fio emulates it on a target that is not zoned: random
 * writes go to the write pointer of one of at most max_open_zones open
 * zones (sequential inside each), a full zone closes and a new one opens
 * empty; sizes in zones; reads need read_beyond_wp. */
START_TEST(test_zbd_emulated)
{
  struct workload w;
  struct job j = fd_job("[j]\nrw=randwrite\nbs=64k\nzonemode=zbd\nzonesize=1m\nmax_open_zones=2\n"
                        "size=16z\noffset=2z\n", &w);
  CK_NEAR(j.zbd_zone_bytes, MIB, 0);
  CK_NEAR(j.zone_size_bytes, 0, 0); /* not strided */
  CK_NEAR(j.size_bytes, 16 * MIB, 0);
  CK_NEAR(j.offset_bytes, 2 * MIB, 0);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  struct workgen g;
  workgen_init(&g, &j, NULL, 0.0, 16 * MIB);
  double written[16] = {0};
  int closed = 0;
  for (int n = 0; n < 512; n++) {
    struct workgen_io io;
    workgen_next(&g, rng, &io);
    int z = (int)(io.offset_bytes / (uint64_t)MIB);
    ck_assert_msg(io.write && io.len_bytes == 64 * 1024, "a 64 KiB write");
    if (written[z] >= MIB && (double)io.offset_bytes == z * MIB)
      written[z] = 0.0, closed++; /* a full zone opened again: empty */
    ck_assert_msg((double)io.offset_bytes == z * MIB + written[z], "I/O %d at %g: zone %d's pointer is %g", n,
                  (double)io.offset_bytes, z, z * MIB + written[z]);
    written[z] += 64 * KIB;
    int open = 0;
    for (int k = 0; k < 16; k++)
      open += written[k] > 0 && written[k] < MIB;
    ck_assert_msg(open <= 2, "I/O %d: %d zones open, max_open_zones=2", n, open);
  }
  ck_assert_msg(closed > 0, "full zones open again");
  gsl_rng_free(rng);
  /* No zonesize: fio takes the zoned device's; nastwin assumes a host-managed
   * SMR drive's 256 MiB zones and says so by name. */
  struct nw_err err;
  char *warn = NULL;
  ck_assert_int_eq(fio_parse_string("[j]\nrw=write\nzonemode=zbd\nsize=3z\n", "dist.fio", &w, &warn, &err), 0);
  CK_NEAR(w.steps[0].jobs[0].zbd_zone_bytes, 256 * MIB, 0);
  CK_NEAR(w.steps[0].jobs[0].size_bytes, 3 * 256 * MIB, 0);
  ck_assert_msg(warn && strstr(warn, "dist.fio:1: warning: job 'j': zonemode=zbd without zonesize") &&
                    strstr(warn, "assumes 256 MiB zones"), "%s", warn ? warn : "(none)");
  workload_free(&w);
  free(warn);
  warn = NULL;
  ck_assert_int_eq(fio_parse_string("[j]\nrw=write\nzonemode=zbd\nzonesize=1m\n", "dist.fio", &w, &warn, &err), 0);
  ck_assert_msg(!warn || !strstr(warn, "zonesize"), "no assumption with zonesize: %s", warn);
  workload_free(&w);
  free(warn);
  char *m = fd_fail("[j]\nzonemode=zbd\nzonesize=511\n");
  ck_assert_msg(strstr(m, "zonesize 511 B is too small (allowed: at least 512 B"), "%s", m);
  free(m);
  m = fd_fail("[j]\nrw=randrw\nzonemode=zbd\nzonesize=256m\n");
  ck_assert_msg(strstr(m, "give read_beyond_wp=1"), "%s", m);
  free(m);
  m = fd_fail("[j]\nsize=8z\n");
  ck_assert_msg(strstr(m, "size or offset in zones ('Nz') needs zonemode=zbd"), "%s", m);
  free(m);
  j = fd_job("[j]\nrw=randrw\nzonemode=zbd\nzonesize=256m\nread_beyond_wp=1\nzone_reset_threshold=0.7\n", &w);
  CK_NEAR(j.zbd_zone_bytes, 256 * MIB, 0);
}
END_TEST

/* A runtime past the scenario's time, or a size-bound job, is said once,
 * however often the scenario is loaded (twice in a calibrated run). */
START_TEST(test_time_cap_note)
{
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  ck_assert_int_eq(fio_parse_string("[long]\ntime_based\nruntime=900\n[sized]\nstonewall\nsize=1g\n"
                                    "[short]\nstonewall\nruntime=2\n", "cap.fio", &w, &warn, &err), 0);
  free(warn);
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  fio_note_time_cap(mem, "cap.fio", &w, 5.0);
  fio_note_time_cap(mem, "cap.fio", &w, 5.0);
  fclose(mem);
  ck_assert_msg(strstr(text, "cap.fio: note: 1 job(s) ('long') have a runtime up to 900 s; nastwin simulates at "
                             "most 5 s of each") && strstr(text, "--time 900s"), "%s", text);
  ck_assert_msg(strstr(text, "1 job(s) ('sized') have no runtime"), "%s", text);
  ck_assert_msg(!strstr(text, "'short'"), "%s", text);
  int lines = 0;
  for (const char *p = text; (p = strchr(p, '\n')); p++)
    lines++;
  ck_assert_int_eq(lines, 2);
  free(text);
  workload_free(&w);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("fio_dist");
  TCase *tc = tcase_create("dist");
  tcase_add_test(tc, test_zbd_emulated);
  tcase_add_test(tc, test_per_direction_parse);
  tcase_add_test(tc, test_distribution_parse);
  tcase_add_test(tc, test_distribution_draws);
  tcase_add_test(tc, test_direction_and_zone_draws);
  tcase_add_test(tc, test_time_cap_note);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
