/* test_window.c - the measured window: batch means and MSER-5
 * (sim/analysis/stats.c) and, over every bench and validation scenario,
 * Little's law X R = L and the utilisation law U = X D in every step's
 * window (sim/engine/run.c: the window of a time-based closed loop opens
 * after its first round, a sized step is measured to its last
 * completion, a step with prep jobs once they end).  Runs NASTWIN_BIN. */
#include <check.h>
#include "ck_run.h"
#include <dirent.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/analysis/stats.h"
#include "cli_util.h"
#include "cli_util.c.inc"

#define TW_BINS 2000

/* Independent Poisson counts: the batch-means half-width of the rate is
 * the textbook one (t * sqrt(var / k) / mean) within sampling error, and
 * a constant series has none. */
START_TEST(test_batch_means)
{
  static double n[TW_BINS], y[TW_BINS];
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 7);
  for (int i = 0; i < TW_BINS; i++) {
    n[i] = (double)gsl_ran_poisson(rng, 50.0);
    y[i] = n[i] * 0.002 + gsl_ran_gaussian(rng, 0.001);
  }
  double rate = 0, ratio = 0;
  ck_assert_int_eq(stats_batch_means(n, y, TW_BINS, 20, &rate, &ratio), 0);
  /* batches of 100 bins: mean 5000, sd sqrt(5000); t(0.975, 19) = 2.093 */
  double expect = 2.093 * sqrt(5000.0) / sqrt(20.0) / 5000.0;
  ck_assert_msg(rate > 0.5 * expect && rate < 1.5 * expect, "rate half-width %g, expected about %g", rate, expect);
  ck_assert_msg(ratio > 0 && ratio < 0.01, "ratio half-width %g", ratio);
  for (int i = 0; i < TW_BINS; i++)
    n[i] = 10.0, y[i] = 0.5;
  ck_assert_int_eq(stats_batch_means(n, y, TW_BINS, 20, &rate, &ratio), 0);
  ck_assert_msg(fabs(rate) < 1e-12 && fabs(ratio) < 1e-12, "constant series: %g %g", rate, ratio);
  ck_assert_int_eq(stats_batch_means(n, y, 10, 1, &rate, &ratio), -1);
  ck_assert_int_eq(stats_batch_means(n, y, 3, 5, &rate, &ratio), -1);
  gsl_rng_free(rng);
}
END_TEST

/* MSER-5: a stationary series keeps (almost) everything, a series whose
 * first 30 % is a decaying transient loses about that much, a late drop
 * is the halves' drift (not MSER's), a series
 * whose transient lasts 80 % of it is truncated at the search bound (its
 * half): never settled. */
START_TEST(test_mser5)
{
  static double x[TW_BINS];
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 11);
  for (int i = 0; i < TW_BINS; i++)
    x[i] = 100.0 + gsl_ran_gaussian(rng, 5.0);
  int d = stats_mser5(x, TW_BINS);
  ck_assert_msg(d >= 0 && d < TW_BINS / 10, "stationary: truncation %d bins", d);
  for (int i = 0; i < TW_BINS * 3 / 10; i++)
    x[i] += 200.0 * (1.0 - (double)i / (TW_BINS * 3 / 10));
  d = stats_mser5(x, TW_BINS);
  ck_assert_msg(d > TW_BINS / 5 && d < TW_BINS * 4 / 10, "transient of 600 bins: truncation %d", d);
  ck_assert_msg(!stats_drifts(x, d, TW_BINS, 0.01), "stationary: no drift");
  for (int i = 0; i < TW_BINS; i++) /* a cache absorbing writes, full at 70 %: */
    x[i] = (i < TW_BINS * 7 / 10 ? 400.0 : 100.0) + gsl_ran_gaussian(rng, 5.0);
  d = stats_mser5(x, TW_BINS); /* MSER sees no initial bias, the halves differ */
  ck_assert_msg(!STATS_MSER5_UNSETTLED(d, TW_BINS) && stats_drifts(x, d, TW_BINS, 0.01), "late drop: d %d", d);
  ck_assert_msg(!stats_drifts(x, d, TW_BINS, 0.5), "a drop within the noise (half-width 50 %%) is no drift");
  ck_assert_msg(!stats_drifts(x, 0, 19, 0.0), "too short to tell");
  for (int i = 0; i < TW_BINS; i++) /* a transient over 80 % of the series */
    x[i] = 100.0 + (i < TW_BINS * 8 / 10 ? 300.0 * (1.0 - i / (TW_BINS * 0.8)) : 0.0) + gsl_ran_gaussian(rng, 5.0);
  d = stats_mser5(x, TW_BINS);
  ck_assert_msg(STATS_MSER5_UNSETTLED(d, TW_BINS), "no steady state: truncation %d", d);
  ck_assert_msg(!STATS_MSER5_UNSETTLED(TW_BINS / 5, TW_BINS), "a fifth is settled");
  ck_assert_int_eq(stats_mser5(x, 49), -1);
  struct stats_series s;
  stats_series_init(&s, 0.5);
  for (int i = 0; i < 5; i++)
    stats_series_add(&s, i * 0.5, i + 1.0);
  stats_series_fold(&s);
  ck_assert(s.nbins == 3 && s.bin_s == 1.0 && s.values[0] == 3.0 && s.values[1] == 7.0 && s.values[2] == 5.0);
  stats_series_free(&s);
  gsl_rng_free(rng);
}
END_TEST

/* Every step's X R / L of a scenario run (JSON): checked within 2 % plus
 * the count's own sampling noise, 1 / sqrt(ios): in a short window the
 * completions of a saturated serial server are a renewal count (relative
 * spread cv / sqrt(n), cv <= 1 for these services) while each one's R is
 * the sum of the L services ahead of it, nearly constant (a blocking
 * smbd with 256 outstanding: R 1.8 s, ~55 reads in 0.4 s); returns the
 * steps checked. */
/* A step whose mean response time is longer than its window is not
 * checked at the short --time this test runs: Little's law over a
 * window holds up to the edge terms of the I/Os that cross its ends, of
 * order R / T, and the completions of an elevator-ordered disk queue come
 * in batches, not as a renewal count (the DS1819+ 16 x 16 SMB read, R 1.75
 * s: 53 or 67 completions in 0.4 s as a calibration moves, X R / L 0.89 or
 * 1.15).  Such a file must be one a test runs at its own length. */
#define TW_R_OVER_T 1.0
static const char *const tw_full_length[] = {"ds1819plus_cifs_4k_16t16q.yaml", NULL}; /* test_little_16t16q */

static int tw_little(const char *file, const char *json)
{
  int steps = 0;
  for (const char *ws = strstr(json, "\"window_s\": "); ws; ws = strstr(ws + 1, "\"window_s\": ")) {
    double T = atof(ws + strlen("\"window_s\": "));
    const char *w = strstr(ws, "\"window\": {");
    ck_assert_msg(w != NULL, "%s: no window after a window_s", file);
    double L = cli_json_number(w, NULL, "outstanding_avg");
    const char *all = strstr(w, "\"all\": {");
    ck_assert_msg(all != NULL, "%s: no totals after a window", file);
    double ios = cli_json_number(all, NULL, "ios"), X = cli_json_number(all, NULL, "iops");
    double R = cli_json_number(strstr(all, "\"latency_ms\""), NULL, "mean") / 1e3;
    if (!(ios > 0))
      continue; /* a background operation alone: no client I/O */
    if (R > TW_R_OVER_T * T) {
      int covered = 0;
      for (int k = 0; tw_full_length[k]; k++)
        covered |= !strcmp(file, tw_full_length[k]);
      ck_assert_msg(covered, "%s step %d: R %g s against a %g s window, and no test runs it at its own length",
                    file, steps, R, T);
      continue;
    }
    ck_assert_msg(L > 0 && fabs(X * R / L - 1.0) <= 0.02 + 1.0 / sqrt(ios),
                  "%s step %d: X R / L = %.4f (X %g, R %g s, L %g, %g I/Os)",
                  file, steps, X * R / L, X, R, L, ios);
    /* The utilisation law U = X D in the same window: each resource's busy
     * share is its demand per I/O times the throughput, so a busy time
     * counted outside the window (a thread's work while a prep job laid
     * the file out) shows as X D > 1 where busy is capped at 1.  A drive's
     * union of service intervals is metered at the window's ends while
     * services already scheduled lie ahead: the meter takes all of the
     * time up to the last scheduled end as not served yet, an idle gap
     * in it included (models/disks disk_busy_at), so a gap ahead of the
     * window's start shows as busy inside it: up to 0.1 % of the window
     * seen (DS1819+ WD Red, 128K read), 0.5 % allowed.  The
     * soc.coreN rows are not measured: they pack the threads' busy times
     * onto the cores longest first (analysis_cores), and a packing of 12
     * smbd processes on 4 cores can put more than a window on one. */
    const char *u = strstr(w, "\"utilization\": ["), *uend = u ? strchr(u, ']') : NULL;
    ck_assert_msg(u && uend, "%s step %d: no utilization after a window", file, steps);
    for (const char *q = strstr(u, "{\"resource\": "); q && q < uend; q = strstr(q + 1, "{\"resource\": ")) {
      static const char core[] = "{\"resource\": \"soc.core";
      if (!strncmp(q, core, sizeof core - 1))
        continue;
      double busy = cli_json_number(q, NULL, "busy"), D = cli_json_number(q, NULL, "demand_ms_per_io") / 1e3;
      ck_assert_msg(X * D <= 1.005 && fabs(fmin(X * D, 1.0) - busy) <= 1e-6, "%s step %d: %.40s busy %g but X D = %g",
                    file, steps, q + 13, busy, X * D);
    }
    steps++;
  }
  return steps;
}

static void tw_dir(const char *rel, int *files, int *steps)
{
  char dir[1024], path[2048];
  cli_source_path(rel, dir, sizeof dir);
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "%s", dir);
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t n = strlen(de->d_name);
    if (n < 6 || strcmp(de->d_name + n - 5, ".yaml"))
      continue;
    /* md operations without client I/O (minutes of simulated rebuild),
     * and the StorageReview preset (22 steps, 2-4 min on a loaded box) */
    if (strstr(de->d_name, "rebuild_") || strstr(de->d_name, "reshape_") || !strcmp(de->d_name, "ds1819plus-sr.yaml"))
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    const char *args[] = {"run", path, "--json", "--no-ci", "--time", "0.4s", NULL};
    struct cli_out r;
    cli_exec(NULL, args, &r);
    ck_assert_msg(r.status == 0, "%s: exit %d\n%s", path, r.status, r.err);
    *steps += tw_little(de->d_name, r.out);
    (*files)++;
    cli_out_free(&r);
  }
  closedir(d);
}

START_TEST(test_little_every_scenario)
{
  int files = 0, steps = 0;
  tw_dir("bench/scenarios", &files, &steps);
  tw_dir("validation/scenarios", &files, &steps);
  ck_assert_msg(files >= 20 && steps >= files, "%d files, %d steps checked", files, steps);
}
END_TEST

/* The overloaded DS1819+ 16 x 16 SMB read at its own length: the 256
 * I/Os in flight are the clients' window, X R / N = 1 within 2 % (0.90
 * when the window included the fill), and the window opened after it. */
START_TEST(test_little_16t16q)
{
  char path[1024];
  cli_source_path("bench/scenarios/ds1819plus_cifs_4k_16t16q.yaml", path, sizeof path);
  const char *args[] = {"run", path, "--json", "--no-ci", NULL};
  struct cli_out r;
  cli_exec(NULL, args, &r);
  ck_assert_msg(r.status == 0, "exit %d\n%s", r.status, r.err);
  const char *all = strstr(r.out, "\"all\": {");
  ck_assert(all != NULL);
  double X = cli_json_number(all, NULL, "iops"), R = cli_json_number(all, NULL, "mean") / 1e3;
  double N = cli_json_number(r.out, NULL, "clients") * cli_json_number(r.out, NULL, "outstanding_per_client");
  double start = cli_json_number(r.out, "\"window\"", "start_s");
  ck_assert_msg(fabs(X * R / N - 1.0) <= 0.02, "X R / N = %.4f (X %g, R %g, N %g)", X * R / N, X, R, N);
  ck_assert_msg(start >= 0.5 * R, "window from %g s, one round is %g s", start, R);
  double hw = cli_json_number(all, NULL, "iops_hw95");
  ck_assert_msg(hw > 0 && hw < 0.2 * X, "IOPS half-width %g of %g", hw, X);
  cli_out_free(&r);
}
END_TEST

/* A run of 50 ms holds a few hundred I/Os: the warning, in the text
 * report and as too_few_ios in the JSON. */
START_TEST(test_few_ios_warns)
{
  char path[1024];
  cli_source_path("bench/scenarios/ds1819plus_cifs_4k_16t16q.yaml", path, sizeof path);
  const char *args[] = {"run", path, "--no-ci", "--time", "1s", NULL};
  struct cli_out r;
  cli_exec(NULL, args, &r);
  ck_assert_msg(r.status == 0 && strstr(r.out, "too few I/Os for a stable figure"), "exit %d\n%s%s", r.status,
                r.out, r.err);
  cli_out_free(&r);
  const char *jargs[] = {"run", path, "--no-ci", "--json", NULL};
  cli_exec(NULL, jargs, &r);
  ck_assert_msg(r.status == 0 && strstr(r.out, "\"too_few_ios\": false"), "exit %d\n%s", r.status, r.out);
  cli_out_free(&r);
}
END_TEST

/* Random 4K writes to the DS1819+'s RAID 5 for 1 s: the page cache takes
 * them all (dirty pages grow by the bytes written): no steady state, said
 * in the JSON and the text; the read of the same bench is steady. */
START_TEST(test_cache_absorbing_is_not_steady)
{
  char path[1024];
  cli_source_path("bench/scenarios/ds1819plus_cifs_4k_16t16q.yaml", path, sizeof path);
  const char *args[] = {"run", path, "--no-ci", "--json", "--set", "workload.rw=randwrite", "--time", "1s", NULL};
  struct cli_out r;
  cli_exec(NULL, args, &r);
  double share = cli_json_number(r.out, "\"window\"", "absorbed_share");
  ck_assert_msg(r.status == 0 && strstr(r.out, "\"steady_state\": false") && share > 0.5 && share < 1.05,
                "exit %d, absorbed share %g\n%s", r.status, share, r.out);
  cli_out_free(&r);
  const char *targs[] = {"run", path, "--no-ci", "--set", "workload.rw=randwrite", "--time", "1s", NULL};
  cli_exec(NULL, targs, &r);
  ck_assert_msg(r.status == 0 && strstr(r.out, "WARNING: no steady state in the window (the page cache absorbed"),
                "exit %d\n%s", r.status, r.out);
  cli_out_free(&r);
  const char *rargs[] = {"run", path, "--no-ci", "--json", "--time", "4s", NULL};
  cli_exec(NULL, rargs, &r);
  ck_assert_msg(r.status == 0 && strstr(r.out, "\"steady_state\": true"), "exit %d\n%s", r.status, r.out);
  cli_out_free(&r);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("window");
  TCase *t = tcase_create("stats");
  tcase_add_test(t, test_batch_means);
  tcase_add_test(t, test_mser5);
  suite_add_tcase(s, t);
  t = tcase_create("little");
  tcase_set_timeout(t, 240);
  tcase_add_test(t, test_little_16t16q);
  tcase_add_test(t, test_few_ios_warns);
  tcase_add_test(t, test_cache_absorbing_is_not_steady);
  tcase_add_test(t, test_little_every_scenario);
  suite_add_tcase(s, t);
  return ck_run(s);
}
