/* stats.c - log-linear latency histogram and per-second series.
 *
 * Bucket layout: octave e holds [2^e, 2^(e+1)) split into
 * STATS_SUB_BUCKETS equal sub-buckets of width 2^e / STATS_SUB_BUCKETS,
 * so a bucket is at most 1/STATS_SUB_BUCKETS of its lower bound wide.
 * Octaves run from 2^STATS_EXP_MIN (< 1 ns) to 2^STATS_EXP_MAX (> 10^4 s);
 * values outside are clamped into the first/last bucket (min and max stay
 * exact).  A quantile is the midpoint of the bucket holding the sample of
 * rank ceil(q n), clamped to [min, max]: its relative error is at most
 * 1/(2 STATS_SUB_BUCKETS), within the stated 1/STATS_SUB_BUCKETS. */
#include "sim/analysis/stats.h"

#include <gsl/gsl_cdf.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STATS_EXP_MIN (-30) /* 2^-30 s = 0.93 ns */
#define STATS_EXP_MAX 14    /* 2^14 s = 16384 s */
#define STATS_NOCTAVES (STATS_EXP_MAX - STATS_EXP_MIN)
#define STATS_NBUCKETS (STATS_NOCTAVES * STATS_SUB_BUCKETS)
#define STATS_SERIES_MAX_BINS (1 << 26) /* refuse absurd times (a bug upstream) */

struct stats_hist {
  uint64_t count;
  double mean_s;
  double m2_s2; /* Welford: sum of squared deviations */
  double min_s, max_s;
  uint64_t buckets[STATS_NBUCKETS];
};

struct stats_hist *stats_hist_create(void)
{
  return calloc(1, sizeof(struct stats_hist));
}

void stats_hist_destroy(struct stats_hist *h)
{
  free(h);
}

/* Bucket index of a value (clamped into range). */
static int stats_bucket_of(double value_s)
{
  if (!(value_s >= ldexp(1.0, STATS_EXP_MIN)))
    return 0;
  if (value_s >= ldexp(1.0, STATS_EXP_MAX))
    return STATS_NBUCKETS - 1;
  int e2 = 0;
  double frac = frexp(value_s, &e2); /* value = frac * 2^e2, frac in [0.5, 1) */
  int octave = (e2 - 1) - STATS_EXP_MIN;
  int sub = (int)((frac * 2.0 - 1.0) * STATS_SUB_BUCKETS);
  if (sub >= STATS_SUB_BUCKETS)
    sub = STATS_SUB_BUCKETS - 1;
  return octave * STATS_SUB_BUCKETS + sub;
}

/* Lower bound and width (seconds) of bucket i. */
static void stats_bucket_bounds(int i, double *lo_s, double *width_s)
{
  int octave = i / STATS_SUB_BUCKETS, sub = i % STATS_SUB_BUCKETS;
  double base_s = ldexp(1.0, octave + STATS_EXP_MIN);
  *width_s = base_s / STATS_SUB_BUCKETS;
  *lo_s = base_s + sub * *width_s;
}

void stats_hist_add(struct stats_hist *h, double value_s)
{
  if (!h || isnan(value_s))
    return;
  h->count++;
  if (h->count == 1) {
    h->min_s = h->max_s = value_s;
  } else {
    if (value_s < h->min_s)
      h->min_s = value_s;
    if (value_s > h->max_s)
      h->max_s = value_s;
  }
  double delta_s = value_s - h->mean_s;
  h->mean_s += delta_s / (double)h->count;
  h->m2_s2 += delta_s * (value_s - h->mean_s);
  h->buckets[stats_bucket_of(value_s)]++;
}

void stats_hist_merge(struct stats_hist *into, const struct stats_hist *from)
{
  if (!into || !from || from->count == 0)
    return;
  if (into->count == 0) {
    memcpy(into, from, sizeof *into);
    return;
  }
  /* Chan et al.: combine two Welford accumulators. */
  double na = (double)into->count, nb = (double)from->count, n = na + nb;
  double delta_s = from->mean_s - into->mean_s;
  into->mean_s += delta_s * nb / n;
  into->m2_s2 += from->m2_s2 + delta_s * delta_s * na * nb / n;
  into->count += from->count;
  if (from->min_s < into->min_s)
    into->min_s = from->min_s;
  if (from->max_s > into->max_s)
    into->max_s = from->max_s;
  for (int i = 0; i < STATS_NBUCKETS; i++)
    into->buckets[i] += from->buckets[i];
}

uint64_t stats_hist_count(const struct stats_hist *h)
{
  return h ? h->count : 0;
}

double stats_hist_mean(const struct stats_hist *h)
{
  return h && h->count ? h->mean_s : 0.0;
}

double stats_hist_stddev(const struct stats_hist *h)
{
  if (!h || h->count == 0)
    return 0.0;
  double var_s2 = h->m2_s2 / (double)h->count;
  return var_s2 > 0.0 ? sqrt(var_s2) : 0.0;
}

double stats_hist_min(const struct stats_hist *h)
{
  return h && h->count ? h->min_s : 0.0;
}

double stats_hist_max(const struct stats_hist *h)
{
  return h && h->count ? h->max_s : 0.0;
}

double stats_hist_quantile(const struct stats_hist *h, double q)
{
  if (!h || h->count == 0 || isnan(q))
    return 0.0;
  if (q <= 0.0)
    return h->min_s;
  if (q >= 1.0)
    return h->max_s;
  uint64_t rank = (uint64_t)ceil(q * (double)h->count);
  if (rank < 1)
    rank = 1;
  uint64_t seen = 0;
  for (int i = 0; i < STATS_NBUCKETS; i++) {
    seen += h->buckets[i];
    if (seen >= rank) {
      double lo_s = 0.0, width_s = 0.0;
      stats_bucket_bounds(i, &lo_s, &width_s);
      double v_s = lo_s + 0.5 * width_s;
      if (v_s < h->min_s)
        v_s = h->min_s;
      if (v_s > h->max_s)
        v_s = h->max_s;
      return v_s;
    }
  }
  return h->max_s;
}

uint64_t stats_hist_count_le(const struct stats_hist *h, double x_s)
{
  if (!h || h->count == 0)
    return 0;
  uint64_t n = 0;
  for (int i = 0; i < STATS_NBUCKETS; i++) {
    double lo_s = 0.0, width_s = 0.0;
    stats_bucket_bounds(i, &lo_s, &width_s);
    if (lo_s + 0.5 * width_s > x_s)
      break;
    n += h->buckets[i];
  }
  return n;
}

int stats_hist_bins(const struct stats_hist *h, double *value_s, uint64_t *count, int max)
{
  if (!h || h->count == 0 || max < 1)
    return 0;
  int nonempty = 0;
  for (int i = 0; i < STATS_NBUCKETS; i++)
    nonempty += h->buckets[i] != 0;
  int per = (nonempty + max - 1) / max; /* non-empty buckets merged into one bin */
  int n = 0, in_bin = 0;
  double sum_s = 0.0;
  uint64_t c = 0;
  for (int i = 0; i < STATS_NBUCKETS; i++) {
    if (!h->buckets[i])
      continue;
    double lo_s = 0.0, width_s = 0.0;
    stats_bucket_bounds(i, &lo_s, &width_s);
    sum_s += (lo_s + 0.5 * width_s) * (double)h->buckets[i];
    c += h->buckets[i];
    if (++in_bin == per) {
      value_s[n] = sum_s / (double)c, count[n++] = c;
      in_bin = 0, sum_s = 0.0, c = 0;
    }
  }
  if (c)
    value_s[n] = sum_s / (double)c, count[n++] = c;
  return n;
}

double stats_hist_rel_error(void)
{
  return 1.0 / STATS_SUB_BUCKETS;
}

void stats_series_init(struct stats_series *s, double bin_s)
{
  s->bin_s = bin_s > 0.0 && isfinite(bin_s) ? bin_s : 1.0;
  s->nbins = 0;
  s->values = NULL;
}

void stats_series_add(struct stats_series *s, double t_s, double value)
{
  if (!s || !(t_s >= 0.0))
    return;
  double idx = floor(t_s / s->bin_s);
  if (!(idx < (double)STATS_SERIES_MAX_BINS))
    return;
  int bin = (int)idx;
  if (bin >= s->nbins) {
    int n = bin + 1; /* nbins is exactly the last bin touched + 1 */
    double *grown = realloc(s->values, (size_t)n * sizeof *grown);
    if (!grown)
      return; /* out of memory: the sample is dropped */
    memset(grown + s->nbins, 0, (size_t)(n - s->nbins) * sizeof *grown);
    s->values = grown;
    s->nbins = n;
  }
  s->values[bin] += value;
}

void stats_series_free(struct stats_series *s)
{
  if (!s)
    return;
  free(s->values);
  s->values = NULL;
  s->nbins = 0;
}

void stats_series_fold(struct stats_series *s)
{
  if (!s)
    return;
  int n = (s->nbins + 1) / 2;
  for (int i = 0; i < n; i++)
    s->values[i] = s->values[2 * i] + (2 * i + 1 < s->nbins ? s->values[2 * i + 1] : 0.0);
  s->nbins = n;
  s->bin_s *= 2.0;
}

int stats_batch_means(const double *n, const double *y, int nbins, int k, double *rate_rel,
                      double *ratio_rel)
{
  if (k < 2 || nbins < k)
    return -1;
  int per = nbins / k;
  double sn = 0.0, sy = 0.0;
  for (int i = 0; i < k * per; i++)
    sn += n[i], sy += y[i];
  if (!(sn > 0.0))
    return -1;
  double ratio = sy / sn, nbar = sn / k, ss_rate = 0.0, ss_ratio = 0.0;
  for (int b = 0; b < k; b++) {
    double bn = 0.0, by = 0.0;
    for (int i = b * per; i < (b + 1) * per; i++)
      bn += n[i], by += y[i];
    ss_rate += (bn - nbar) * (bn - nbar);
    ss_ratio += (by - ratio * bn) * (by - ratio * bn);
  }
  double t = gsl_cdf_tdist_Pinv(0.975, (double)(k - 1));
  *rate_rel = t * sqrt(ss_rate / (k - 1) / k) / nbar;
  *ratio_rel = ratio > 0.0 ? t * sqrt(ss_ratio / (k - 1) / k) / nbar / ratio : 0.0;
  return 0;
}

int stats_mser5(const double *x, int nbins)
{
  int m = nbins / 5;
  if (m < 10)
    return -1;
  double *z = malloc((size_t)m * sizeof *z);
  if (!z)
    return -1;
  for (int j = 0; j < m; j++) {
    z[j] = 0.0;
    for (int i = 0; i < 5; i++)
      z[j] += x[5 * j + i] / 5.0;
  }
  /* Suffix sums: the statistic of every d in one pass from the end. */
  int best = 0;
  double best_v = INFINITY, s1 = 0.0, s2 = 0.0;
  for (int d = m - 1; d >= 0; d--) {
    s1 += z[d], s2 += z[d] * z[d];
    int left = m - d;
    if (d > m / 2)
      continue;
    double ss = s2 - s1 * s1 / left;
    double v = (ss > 0.0 ? ss : 0.0) / ((double)left * left);
    if (v <= best_v)
      best_v = v, best = d;
  }
  free(z);
  return 5 * best;
}

int stats_drifts(const double *x, int from, int nbins, double hw_rel)
{
  int half = (nbins - from) / 2;
  if (from < 0 || half < 10)
    return 0;
  double a = 0.0, b = 0.0;
  for (int i = 0; i < half; i++)
    a += x[from + i], b += x[from + half + i];
  double mean = (a + b) / 2.0;
  if (!(mean > 0.0))
    return 0;
  double rel = fabs(b - a) / mean;
  return rel > 0.05 && rel > 2.5 * (hw_rel > 0.0 ? hw_rel : 0.0);
}
