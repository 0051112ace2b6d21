/* The workload generator's random offsets (sim/config/workgen.c): fio's
 * random map by default (within a pass every block once, in a random
 * order, before any repeats), draws with replacement under norandommap,
 * and the option as fio's job language spells it. */
#include <check.h>
#include "ck_run.h"
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/workgen.h"
#include "sim/config/workload.h"

#define WG_BS 4096.0

/* A random-read job of 4 KiB blocks; random_run as fio rw=randread:N. */
static struct job wg_job(int norandommap, int random_run)
{
  struct job j;
  job_defaults(&j);
  j.access = JOB_RANDOM;
  j.bs_bytes[0] = WG_BS;
  j.norandommap = norandommap;
  j.random_run = random_run;
  return j;
}

/* n I/Os of job j over a region of `slots` blocks (and a tail shorter than
 * a block, which no I/O may touch), seed `seed`: their block indices. */
static void wg_draw(const struct job *j, uint64_t slots, uint64_t n, unsigned long seed, uint64_t *blk)
{
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  struct workgen g;
  double region = (double)slots * WG_BS + 100.0;
  workgen_init(&g, j, NULL, 0.0, region);
  for (uint64_t i = 0; i < n; i++) {
    struct workgen_io io;
    workgen_next(&g, rng, &io);
    ck_assert_msg(io.offset_bytes % 4096 == 0 && io.offset_bytes + io.len_bytes <= slots * 4096,
                  "I/O %llu at %llu + %llu past %llu blocks", (unsigned long long)i,
                  (unsigned long long)io.offset_bytes, (unsigned long long)io.len_bytes,
                  (unsigned long long)slots);
    blk[i] = io.offset_bytes / 4096;
  }
  gsl_rng_free(rng);
}

/* Blocks of [0, slots) that blk[0..n) hits at least once. */
static uint64_t wg_covered(const uint64_t *blk, uint64_t n, uint64_t slots)
{
  unsigned char *seen = calloc(slots, 1);
  uint64_t k = 0;
  for (uint64_t i = 0; i < n; i++)
    k += !seen[blk[i]], seen[blk[i]] = 1;
  free(seen);
  return k;
}

/* Each pass over N blocks hits every block exactly once; the next pass
 * (a new key) hits them all again in another order. */
START_TEST(test_map_each_block_once_per_pass)
{
  static const uint64_t sizes[] = {1, 2, 7, 1000, (1u << 16) + 3};
  struct job j = wg_job(0, 0);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    uint64_t n = sizes[s], *blk = malloc(2 * n * sizeof *blk);
    wg_draw(&j, n, 2 * n, 5, blk);
    for (int pass = 0; pass < 2; pass++) {
      unsigned char *seen = calloc(n, 1);
      for (uint64_t i = 0; i < n; i++) {
        uint64_t b = blk[pass * n + i];
        ck_assert_msg(b < n && !seen[b], "N %llu pass %d: block %llu again at draw %llu", (unsigned long long)n,
                      pass, (unsigned long long)b, (unsigned long long)i);
        seen[b] = 1;
      }
      free(seen);
    }
    if (n >= 7)
      ck_assert_msg(memcmp(blk, blk + n, n * sizeof *blk) != 0, "N %llu: two passes in the same order",
                    (unsigned long long)n);
    free(blk);
  }
}
END_TEST

/* rw=randread:4 under the map: a unit is a run of 4 blocks (the last one
 * shorter), so a pass still does every block once. */
START_TEST(test_map_random_run)
{
  const uint64_t n = 1001;
  struct job j = wg_job(0, 4);
  uint64_t *blk = malloc(n * sizeof *blk);
  wg_draw(&j, n, n, 9, blk);
  ck_assert_msg(wg_covered(blk, n, n) == n, "a pass of runs covered %llu of %llu blocks",
                (unsigned long long)wg_covered(blk, n, n), (unsigned long long)n);
  int runs = 0; /* a run starts at a multiple of 4 blocks, the rest follow on */
  for (uint64_t i = 0; i < n; i++) {
    runs += blk[i] % 4 == 0;
    ck_assert_msg(blk[i] % 4 == 0 || (i > 0 && blk[i] == blk[i - 1] + 1), "I/O %llu at block %llu, after %llu",
                  (unsigned long long)i, (unsigned long long)blk[i], (unsigned long long)(i ? blk[i - 1] : 0));
  }
  ck_assert_int_eq(runs, 251);
  free(blk);
}
END_TEST

START_TEST(test_map_same_seed_same_sequence)
{
  const uint64_t n = 1000;
  struct job j = wg_job(0, 0);
  uint64_t a[3 * 1000], b[3 * 1000];
  wg_draw(&j, n, 3 * n, 17, a);
  wg_draw(&j, n, 3 * n, 17, b);
  ck_assert_msg(memcmp(a, b, sizeof a) == 0, "same seed, another sequence");
  wg_draw(&j, n, 3 * n, 18, b);
  ck_assert_msg(memcmp(a, b, sizeof a) != 0, "another seed, the same sequence");
}
END_TEST

/* norandommap: N draws over N blocks with replacement hit 1 - (1 - 1/N)^N
 * ~ 63.2 % of them; the map hits all. */
START_TEST(test_norandommap_repeats)
{
  const uint64_t n = 1u << 16;
  uint64_t *blk = malloc(n * sizeof *blk);
  struct job j = wg_job(1, 0);
  wg_draw(&j, n, n, 23, blk);
  double want = 1.0 - pow(1.0 - 1.0 / (double)n, (double)n), got = (double)wg_covered(blk, n, n) / (double)n;
  ck_assert_msg(fabs(got / want - 1.0) < 0.03, "norandommap covered %.4f of the blocks, want %.4f", got, want);
  j = wg_job(0, 0);
  wg_draw(&j, n, n, 23, blk);
  ck_assert_msg(wg_covered(blk, n, n) == n, "the map covered %llu of %llu", (unsigned long long)wg_covered(blk, n, n),
                (unsigned long long)n);
  free(blk);
}
END_TEST

/* The map's order looks random to a seek model: the mean |distance|
 * between consecutive offsets is (N + 1) / 3 blocks, as between uniform
 * random picks ((N^2 - 1) / 3N), and consecutive offsets are uncorrelated
 * (a fixed stride would show in either). */
START_TEST(test_map_seek_distance)
{
  const uint64_t n = 100003;
  uint64_t *blk = malloc(n * sizeof *blk);
  for (int nomap = 0; nomap < 2; nomap++) {
    struct job j = wg_job(nomap, 0);
    wg_draw(&j, n, n, 31, blk);
    double sum = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0;
    for (uint64_t i = 1; i < n; i++) {
      double x = (double)blk[i - 1], y = (double)blk[i];
      sum += fabs(y - x);
      sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
    }
    double m = (double)(n - 1), mean = sum / m, want = ((double)n + 1.0) / 3.0;
    double r = (sxy / m - sx / m * sy / m) / sqrt((sxx / m - sx * sx / (m * m)) * (syy / m - sy * sy / (m * m)));
    ck_assert_msg(fabs(mean / want - 1.0) < 0.05, "norandommap %d: mean |distance| %.1f blocks, want %.1f", nomap,
                  mean, want);
    ck_assert_msg(fabs(r) < 0.02, "norandommap %d: consecutive offsets correlate, r = %.4f", nomap, r);
  }
  free(blk);
}
END_TEST

static struct job wg_parse(const char *text)
{
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  int rc = fio_parse_string(text, "map.fio", &w, &warn, &err);
  ck_assert_msg(rc == 0, "should parse: %s:%d:%d: %s\n%s", err.file, err.line, err.col, err.msg, text);
  ck_assert_msg(strstr(warn, "randommap") == NULL, "warned: %s", warn);
  free(warn);
  struct job j = w.steps[0].jobs[0];
  workload_free(&w);
  return j;
}

/* fio's spelling: the bare flag or 0/1 (fio FIO_OPT_STR_SET); default off
 * (the map); softrandommap changes nothing (the map always fits). */
START_TEST(test_norandommap_parse)
{
  ck_assert_int_eq(wg_parse("[j]\nrw=randread\n").norandommap, 0);
  ck_assert_int_eq(wg_parse("[j]\nrw=randread\nnorandommap\n").norandommap, 1);
  ck_assert_int_eq(wg_parse("[j]\nrw=randread\nnorandommap=1\n").norandommap, 1);
  ck_assert_int_eq(wg_parse("[j]\nrw=randread\nnorandommap=0\n").norandommap, 0);
  ck_assert_int_eq(wg_parse("[global]\nnorandommap\n[j]\nrw=randread\n").norandommap, 1);
  ck_assert_int_eq(wg_parse("[j]\nrw=randread\nsoftrandommap=1\n").norandommap, 0);
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  ck_assert_int_eq(fio_parse_string("[j]\nrw=randread\nnorandommap=maybe\n", "map.fio", &w, &warn, &err), -1);
  ck_assert_msg(err.line == 3 && strstr(err.msg, "norandommap: bad value 'maybe'") && strstr(err.msg, "0 or 1"),
                "%d: %s", err.line, err.msg);
  free(warn);
}
END_TEST

/* IOZone's random tests do every record once per pass, as fio's map (the
 * storagereview preset runs fio); IOMeter (the iometer preset, and inside
 * vmware-io-analyzer's VMs) and CrystalDiskMark draw afresh: presets.c. */
START_TEST(test_presets_random_map)
{
  static const struct {
    const char *preset;
    int norandommap;
  } want[] = {{"iozone", 0}, {"storagereview", 0}, {"crystaldiskmark", 1}, {"iometer", 1},
              {"vmware-io-analyzer", 1}};
  for (size_t p = 0; p < sizeof want / sizeof want[0]; p++) {
    struct workload w;
    char msg[600];
    ck_assert_msg(workload_preset(want[p].preset, NULL, NULL, 0, &w, msg, sizeof msg) == 0, "%s", msg);
    int random = 0;
    for (int s = 0; s < w.nsteps; s++)
      for (int k = 0; k < w.steps[s].njobs; k++) {
        const struct job *j = &w.steps[s].jobs[k];
        if (j->access != JOB_RANDOM)
          continue;
        random++;
        ck_assert_msg(j->norandommap == want[p].norandommap && j->nbs == 1 && j->dist == JOB_DIST_UNIFORM,
                      "%s %s: norandommap %d, want %d", want[p].preset, w.steps[s].name, j->norandommap,
                      want[p].norandommap);
      }
    ck_assert_msg(random > 0, "no random %s job", want[p].preset);
    workload_free(&w);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("workgen");
  TCase *map = tcase_create("random_map");
  tcase_add_test(map, test_map_each_block_once_per_pass);
  tcase_add_test(map, test_map_random_run);
  tcase_add_test(map, test_map_same_seed_same_sequence);
  tcase_add_test(map, test_norandommap_repeats);
  tcase_add_test(map, test_map_seek_distance);
  tcase_add_test(map, test_presets_random_map);
  suite_add_tcase(s, map);
  TCase *parse = tcase_create("norandommap_option");
  tcase_add_test(parse, test_norandommap_parse);
  suite_add_tcase(s, parse);
  return ck_run(s);
}
