/* stats.h - latency histograms and per-second time series.
 *
 * The histogram is log-linear (HdrHistogram-like): values in seconds from
 * 1 ns to 10^4 s, buckets whose width is at most 1/STATS_SUB_BUCKETS of
 * their lower bound, so any percentile is reported within a relative error
 * of 1/STATS_SUB_BUCKETS (stated in the report).  Mean, stddev, min and
 * max are exact (Welford).  Histograms merge by adding counts. */
#ifndef NASTWIN_STATS_H
#define NASTWIN_STATS_H

#include <stdint.h>

#define STATS_SUB_BUCKETS 128 /* => percentile relative error <= 1/128 = 0.78 % */

struct stats_hist;

struct stats_hist *stats_hist_create(void);
void stats_hist_destroy(struct stats_hist *h); /* accepts NULL */
void stats_hist_add(struct stats_hist *h, double value_s);
void stats_hist_merge(struct stats_hist *into, const struct stats_hist *from);
uint64_t stats_hist_count(const struct stats_hist *h);
double stats_hist_mean(const struct stats_hist *h);
double stats_hist_stddev(const struct stats_hist *h); /* population stddev */
double stats_hist_min(const struct stats_hist *h);
double stats_hist_max(const struct stats_hist *h);
/* q in [0, 1]: value below which a fraction q of the samples lie. */
double stats_hist_quantile(const struct stats_hist *h, double q);
/* Samples in the buckets whose midpoint is <= x_s. */
uint64_t stats_hist_count_le(const struct stats_hist *h, double x_s);
/* The non-empty buckets in order: value_s[k] the count-weighted midpoint,
 * count[k] the samples; past max buckets, runs of consecutive non-empty
 * buckets are merged so at most max come out.  Returns how many. */
int stats_hist_bins(const struct stats_hist *h, double *value_s, uint64_t *count, int max);
/* Relative error bound of stats_hist_quantile. */
double stats_hist_rel_error(void);

/* Per-second series of a quantity (bytes completed, I/Os completed). */
struct stats_series {
  double bin_s;
  int nbins;
  double *values; /* owned */
};
void stats_series_init(struct stats_series *s, double bin_s);
void stats_series_add(struct stats_series *s, double t_s, double value);
void stats_series_free(struct stats_series *s);
/* Halve the resolution: merge bins pairwise, bin_s doubles. */
void stats_series_fold(struct stats_series *s);

/* Batch means over bins [0, nbins) of per-bin counts n and sums y (e.g.
 * I/Os completed and the sum of their latencies), grouped into k equal
 * batches of nbins / k bins (the trailing remainder is left out).  The
 * 95 % half-widths (Student t, k - 1 degrees of freedom), relative to
 * the figure: *rate_rel of the count per bin (a rate such as IOPS),
 * *ratio_rel of sum y / sum n (a mean such as the mean latency, the
 * ratio estimator's batch variance).  Returns 0, or -1 (k < 2, fewer
 * than k bins or no count: no half-width). */
int stats_batch_means(const double *n, const double *y, int nbins, int k, double *rate_rel,
                      double *ratio_rel);
/* MSER-5 warm-up truncation of a series x of nbins bins: m batches of 5
 * bins, d minimising the MSER statistic sum_{j>d} (z_j - mean_d)^2 /
 * (m - d)^2 over d <= m / 2 (White 1997; Hoad, Robinson, Davies 2008:
 * only the first half is searched; past it a deterministic model's
 * steady tail of identical batches has a zero statistic and would win).
 * Returns d in bins (a multiple of 5), or -1 with fewer than 10 batches.
 * STATS_MSER5_UNSETTLED(d, nbins): the minimum is at the search bound,
 * the series never settled. */
#define STATS_MSER5_UNSETTLED(d, nbins) ((d) >= 5 * ((nbins) / 5 / 2))
/* A late change MSER does not see (a cache that fills, a flusher that
 * starts): the rates of the two halves of x[from, nbins) differ by more
 * than 5 % and by more than 2.5 times hw_rel, the 95 % half-width of the
 * mean rate relative to it (the two halves' difference has about twice
 * the spread of the mean).  1: drifts; 0: does not, or under 20 bins. */
int stats_drifts(const double *x, int from, int nbins, double hw_rel);
int stats_mser5(const double *x, int nbins);

#endif
