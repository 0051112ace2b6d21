/* Latency histogram (percentile error bound, exact moments, merge) and
 * per-second series. */
#include <check.h>
#include "ck_run.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/analysis/stats.h"

#define NSAMPLES 100000

static int stats_test_cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Exact q-quantile of sorted samples, with the histogram's rank rule ceil(q n). */
static double stats_test_exact_quantile(const double *sorted, size_t n, double q)
{
  size_t rank = (size_t)ceil(q * (double)n);
  if (rank < 1)
    rank = 1;
  return sorted[rank - 1];
}

static void stats_test_check_quantiles(struct stats_hist *h, double *v, size_t n, const char *what)
{
  static const double qs[] = {0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999};
  qsort(v, n, sizeof v[0], stats_test_cmp);
  double bound = stats_hist_rel_error();
  for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
    double exact = stats_test_exact_quantile(v, n, qs[i]);
    double got = stats_hist_quantile(h, qs[i]);
    double rel = fabs(got - exact) / exact;
    ck_assert_msg(rel <= bound, "%s: q=%g exact %.9g got %.9g rel err %.3g > %.3g", what, qs[i],
                  exact, got, rel, bound);
  }
  ck_assert_msg(stats_hist_quantile(h, 0.0) == v[0], "%s: q=0 is the min", what);
  ck_assert_msg(stats_hist_quantile(h, 1.0) == v[n - 1], "%s: q=1 is the max", what);
}

static void stats_test_check_moments(struct stats_hist *h, const double *v, size_t n, const char *what)
{
  double sum = 0.0, mn = v[0], mx = v[0];
  for (size_t i = 0; i < n; i++) {
    sum += v[i];
    mn = v[i] < mn ? v[i] : mn;
    mx = v[i] > mx ? v[i] : mx;
  }
  double mean = sum / (double)n, ss = 0.0;
  for (size_t i = 0; i < n; i++)
    ss += (v[i] - mean) * (v[i] - mean);
  double sd = sqrt(ss / (double)n);
  ck_assert_msg(stats_hist_count(h) == n, "%s: count %llu != %zu", what,
                (unsigned long long)stats_hist_count(h), n);
  ck_assert_msg(fabs(stats_hist_mean(h) - mean) <= 1e-12 * mean, "%s: mean %.15g != %.15g", what,
                stats_hist_mean(h), mean);
  ck_assert_msg(fabs(stats_hist_stddev(h) - sd) <= 1e-9 * sd, "%s: stddev %.15g != %.15g", what,
                stats_hist_stddev(h), sd);
  ck_assert_msg(stats_hist_min(h) == mn && stats_hist_max(h) == mx, "%s: min/max %g %g vs %g %g",
                what, stats_hist_min(h), stats_hist_max(h), mn, mx);
}

START_TEST(test_uniform)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 42);
  double *v = malloc(NSAMPLES * sizeof *v);
  struct stats_hist *h = stats_hist_create();
  for (size_t i = 0; i < NSAMPLES; i++) {
    v[i] = gsl_ran_flat(r, 100e-6, 20e-3); /* 100 us .. 20 ms */
    stats_hist_add(h, v[i]);
  }
  stats_test_check_moments(h, v, NSAMPLES, "uniform");
  stats_test_check_quantiles(h, v, NSAMPLES, "uniform");
  stats_hist_destroy(h);
  free(v);
  gsl_rng_free(r);
}
END_TEST

START_TEST(test_exponential)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 7);
  double *v = malloc(NSAMPLES * sizeof *v);
  struct stats_hist *h = stats_hist_create();
  for (size_t i = 0; i < NSAMPLES; i++) {
    v[i] = gsl_ran_exponential(r, 5e-3); /* mean 5 ms, spans ns .. tens of ms */
    stats_hist_add(h, v[i]);
  }
  stats_test_check_moments(h, v, NSAMPLES, "exponential");
  stats_test_check_quantiles(h, v, NSAMPLES, "exponential");
  stats_hist_destroy(h);
  free(v);
  gsl_rng_free(r);
}
END_TEST

START_TEST(test_wide_range_and_edges)
{
  /* Log-uniform over 1 us .. 1000 s: every octave in use. */
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 3);
  double *v = malloc(NSAMPLES * sizeof *v);
  struct stats_hist *h = stats_hist_create();
  for (size_t i = 0; i < NSAMPLES; i++) {
    v[i] = pow(10.0, gsl_ran_flat(r, -6.0, 3.0));
    stats_hist_add(h, v[i]);
  }
  stats_test_check_quantiles(h, v, NSAMPLES, "log-uniform");
  stats_hist_destroy(h);
  free(v);
  gsl_rng_free(r);

  struct stats_hist *e = stats_hist_create();
  ck_assert_msg(stats_hist_count(e) == 0 && stats_hist_mean(e) == 0.0 &&
                    stats_hist_quantile(e, 0.5) == 0.0 && stats_hist_stddev(e) == 0.0,
                "empty histogram reports zeros");
  stats_hist_add(e, 2.5e-3);
  ck_assert_msg(stats_hist_quantile(e, 0.5) == 2.5e-3, "one sample: median %g != 2.5e-3",
                stats_hist_quantile(e, 0.5));
  ck_assert_msg(stats_hist_stddev(e) == 0.0, "one sample: stddev 0");
  stats_hist_add(e, 0.0);    /* below range: clamped into the first bucket */
  stats_hist_add(e, 1e6);    /* above range: clamped into the last bucket */
  stats_hist_add(e, NAN);    /* ignored */
  ck_assert_msg(stats_hist_count(e) == 3, "count %llu != 3", (unsigned long long)stats_hist_count(e));
  ck_assert_msg(stats_hist_min(e) == 0.0 && stats_hist_max(e) == 1e6, "exact min/max kept");
  ck_assert_msg(stats_hist_quantile(e, 1.0) == 1e6, "q=1 is max");
  stats_hist_destroy(e);
  stats_hist_destroy(NULL);
  ck_assert_double_eq(stats_hist_rel_error(), 1.0 / 128.0);
}
END_TEST

START_TEST(test_merge)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 11);
  struct stats_hist *a = stats_hist_create(), *b = stats_hist_create(), *all = stats_hist_create();
  struct stats_hist *empty = stats_hist_create();
  for (int i = 0; i < 20000; i++) {
    double x = gsl_ran_exponential(r, 1e-3);
    double y = 0.05 + gsl_ran_exponential(r, 10e-3);
    stats_hist_add(a, x);
    stats_hist_add(b, y);
    stats_hist_add(all, x);
    stats_hist_add(all, y);
  }
  stats_hist_merge(a, empty); /* no-op */
  stats_hist_merge(empty, b); /* into empty = copy */
  stats_hist_merge(a, b);
  ck_assert_msg(stats_hist_count(a) == stats_hist_count(all), "merged count");
  ck_assert_msg(fabs(stats_hist_mean(a) - stats_hist_mean(all)) <= 1e-12 * stats_hist_mean(all),
                "merged mean %.15g vs %.15g", stats_hist_mean(a), stats_hist_mean(all));
  ck_assert_msg(fabs(stats_hist_stddev(a) - stats_hist_stddev(all)) <= 1e-9 * stats_hist_stddev(all),
                "merged stddev %.15g vs %.15g", stats_hist_stddev(a), stats_hist_stddev(all));
  ck_assert_msg(stats_hist_min(a) == stats_hist_min(all) && stats_hist_max(a) == stats_hist_max(all),
                "merged min/max");
  for (double q = 0.0; q <= 1.0; q += 0.01)
    ck_assert_msg(stats_hist_quantile(a, q) == stats_hist_quantile(all, q),
                  "merged q=%g: %.9g vs %.9g", q, stats_hist_quantile(a, q),
                  stats_hist_quantile(all, q));
  ck_assert_msg(stats_hist_count(empty) == stats_hist_count(b) &&
                    stats_hist_quantile(empty, 0.9) == stats_hist_quantile(b, 0.9),
                "merge into empty copies");
  stats_hist_destroy(a);
  stats_hist_destroy(b);
  stats_hist_destroy(all);
  stats_hist_destroy(empty);
  gsl_rng_free(r);
}
END_TEST

START_TEST(test_series)
{
  struct stats_series s;
  stats_series_init(&s, 1.0);
  ck_assert_msg(s.nbins == 0 && s.values == NULL, "empty series");
  stats_series_add(&s, 0.0, 4096.0);
  stats_series_add(&s, 0.999, 4096.0);
  stats_series_add(&s, 1.0, 100.0);
  stats_series_add(&s, 3.5, 7.0);
  stats_series_add(&s, -1.0, 1e9); /* before the start: ignored */
  stats_series_add(&s, NAN, 1e9);  /* ignored */
  ck_assert_msg(s.nbins == 4, "nbins %d != 4", s.nbins);
  ck_assert_msg(s.values[0] == 8192.0 && s.values[1] == 100.0 && s.values[2] == 0.0 &&
                    s.values[3] == 7.0,
                "bins %g %g %g %g", s.values[0], s.values[1], s.values[2], s.values[3]);
  double total = 0.0;
  for (int i = 0; i < 1000; i++)
    stats_series_add(&s, i * 0.01, 1.0); /* 100 per second over 10 s */
  for (int i = 0; i < s.nbins; i++)
    total += s.values[i];
  ck_assert_msg(total == 8192.0 + 107.0 + 1000.0, "total %g", total);
  ck_assert_msg(s.nbins == 10, "nbins %d != 10", s.nbins);
  ck_assert_msg(s.values[5] == 100.0, "bin 5 = %g", s.values[5]);
  stats_series_free(&s);
  ck_assert_msg(s.values == NULL && s.nbins == 0, "freed");

  struct stats_series ms;
  stats_series_init(&ms, 0.5);
  stats_series_add(&ms, 0.75, 2.0);
  ck_assert_msg(ms.nbins == 2 && ms.values[1] == 2.0, "0.5 s bins");
  stats_series_free(&ms);
  stats_series_init(&ms, 0.0); /* invalid bin: falls back to 1 s */
  ck_assert_double_eq(ms.bin_s, 1.0);
  stats_series_free(&ms);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("stats");
  TCase *tc = tcase_create("histogram");
  tcase_add_test(tc, test_uniform);
  tcase_add_test(tc, test_exponential);
  tcase_add_test(tc, test_wide_range_and_edges);
  suite_add_tcase(s, tc);
  TCase *tm = tcase_create("merge");
  tcase_add_test(tm, test_merge);
  suite_add_tcase(s, tm);
  TCase *ts = tcase_create("series");
  tcase_add_test(ts, test_series);
  suite_add_tcase(s, ts);
  return ck_run(s);
}
