/* fiojson.c - results in the JSON shape fio 3.33 writes (--output-format=json
 * and json+), so tools that read fio's output read nastwin's.
 *
 * One fio job per workload step (the step's jobs reported together, as
 * fio's group_reporting does).  Every key fio writes at the top, job and
 * read/write/trim level is present (disk_util aside: there is no local
 * disk).  Values come from the simulation where it has them: bytes, I/Os,
 * rates, the latency histogram (fio's 17 default percentiles, its
 * latency_ns/us/ms buckets, json+ bins), and RES_SAMPLE_S slices of the
 * measured window for bw/iops min/max/mean/dev (fio's default 500 ms
 * bwavgtime/iopsavgtime).  What is not modelled is written as 0 and named
 * in the man page: slat (submission is not separated, lat_ns = clat_ns),
 * the client's usr/sys CPU, context switches and page faults, short I/Os,
 * the sync section; drop_ios is the UDP datagrams lost (fio counts them
 * from the gaps in a reader's sequence numbers, engines/net.c).  No wall time: timestamp 0. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/report/report.h"

static void fj_num(FILE *out, double v)
{
  if (!isfinite(v))
    fputs("0", out);
  else
    fprintf(out, "%.6f", v);
}

/* {"min": .., "max": .., "mean": .., "stddev": .., "N": ..} (open: no '}'). */
static void fj_lat_open(FILE *out, const char *key, const struct res_totals *t, int have)
{
  fprintf(out, "\"%s\": {\"min\": %.0f, \"max\": %.0f, \"mean\": ", key, have ? t->lat_min_s * 1e9 : 0.0,
          have ? t->lat_max_s * 1e9 : 0.0);
  fj_num(out, have ? t->lat_mean_s * 1e9 : 0.0);
  fputs(", \"stddev\": ", out);
  fj_num(out, have ? t->lat_stddev_s * 1e9 : 0.0);
  fprintf(out, ", \"N\": %llu", have ? (unsigned long long)t->ios : 0ULL);
}

static void fj_clat(FILE *out, const struct res_totals *t, int plus)
{
  int have = t->ios > 0;
  fj_lat_open(out, "clat_ns", t, have);
  if (have) {
    fputs(", \"percentile\": {", out);
    for (int i = 0; i < RES_FIO_NPCT; i++)
      fprintf(out, "%s\"%f\": %.0f", i ? ", " : "", res_fio_percentiles[i], t->fio_pct_s[i] * 1e9);
    fputc('}', out);
  }
  if (have && plus) {
    /* Keys are whole nanoseconds: bins that round to the same one add up. */
    fputs(", \"bins\": {", out);
    int first = 1;
    for (int i = 0; i < t->nbins;) {
      double ns = round(t->bin_s[i] * 1e9);
      unsigned long long c = 0;
      while (i < t->nbins && round(t->bin_s[i] * 1e9) == ns)
        c += t->bin_count[i++];
      fprintf(out, "%s\"%.0f\": %llu", first ? "" : ", ", ns, c);
      first = 0;
    }
    fputc('}', out);
  }
  fputc('}', out);
}

/* min, max, mean, sample stddev (n - 1, as fio) of v[0..n). */
static void fj_stats(const double *v, int n, double *mn, double *mx, double *mean, double *dev)
{
  *mn = *mx = *mean = *dev = 0.0;
  if (n <= 0)
    return;
  *mn = *mx = v[0];
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    *mn = v[i] < *mn ? v[i] : *mn;
    *mx = v[i] > *mx ? v[i] : *mx;
    sum += v[i];
  }
  *mean = sum / n;
  double ss = 0.0;
  for (int i = 0; i < n; i++)
    ss += (v[i] - *mean) * (v[i] - *mean);
  *dev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
}

static void fj_dir(FILE *out, const struct res_totals *t, double window_s, int plus)
{
  int have = t->ios > 0;
  double bw_Bps = have ? t->MBps * 1e6 : 0.0;
  fprintf(out, "{\"io_bytes\": %.0f, \"io_kbytes\": %.0f, \"bw_bytes\": %.0f, \"bw\": %.0f, \"iops\": ",
          t->bytes, floor(t->bytes / 1024.0), bw_Bps, floor(bw_Bps / 1024.0));
  fj_num(out, have ? t->iops : 0.0);
  fprintf(out, ", \"runtime\": %.0f, \"total_ios\": %llu, \"short_ios\": 0, \"drop_ios\": %llu,\n        ",
          have ? window_s * 1e3 : 0.0, (unsigned long long)t->ios, (unsigned long long)t->dropped);
  fputs("\"slat_ns\": {\"min\": 0, \"max\": 0, \"mean\": 0.000000, \"stddev\": 0.000000, \"N\": 0},\n        ", out);
  fj_clat(out, t, plus);
  fputs(",\n        ", out);
  fj_lat_open(out, "lat_ns", t, have);
  fputs("},\n        ", out);
  /* Slices in KiB/s and I/Os per second; a window shorter than one slice
   * is one sample of the window's mean, as fio logs one at exit. */
  double bw[RES_MAX_SAMPLES], io[RES_MAX_SAMPLES];
  bw[0] = io[0] = 0.0; /* n may be 0: fj_stats reads none, gcc -O2 cannot tell */
  int n = have ? t->nsamples : 0;
  for (int i = 0; i < n; i++) {
    bw[i] = t->sample_bytes[i] / RES_SAMPLE_S / 1024.0;
    io[i] = t->sample_ios[i] / RES_SAMPLE_S;
  }
  if (have && n == 0) {
    bw[0] = bw_Bps / 1024.0, io[0] = t->iops;
    n = 1;
  }
  double mn, mx, mean, dev;
  fj_stats(bw, n, &mn, &mx, &mean, &dev);
  fprintf(out, "\"bw_min\": %.0f, \"bw_max\": %.0f, \"bw_agg\": ", floor(mn), floor(mx));
  fj_num(out, have ? 100.0 : 0.0);
  fputs(", \"bw_mean\": ", out);
  fj_num(out, mean);
  fputs(", \"bw_dev\": ", out);
  fj_num(out, dev);
  fprintf(out, ", \"bw_samples\": %d,\n        ", n);
  fj_stats(io, n, &mn, &mx, &mean, &dev);
  fprintf(out, "\"iops_min\": %.0f, \"iops_max\": %.0f, \"iops_mean\": ", floor(mn), floor(mx));
  fj_num(out, mean);
  fputs(", \"iops_stddev\": ", out);
  fj_num(out, dev);
  fprintf(out, ", \"iops_samples\": %d}", n);
}

/* fio's percentages of I/Os per latency bucket: latency_ns, _us, _ms. */
static void fj_lat_buckets(FILE *out, const struct res_totals *t)
{
  static const char *const keys[RES_FIO_NEDGES] = {
      "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2", "4", "10", "20", "50", "100",
      "250", "500", "750", "1000", "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000"};
  double n = (double)t->ios;
  uint64_t below = 0;
  for (int i = 0; i < RES_FIO_NEDGES; i++) {
    int start = i == 0 || i == 10 || i == 20;
    if (start)
      fprintf(out, "%s\"latency_%s\": {", i ? "},\n     " : "", i == 0 ? "ns" : i == 10 ? "us" : "ms");
    uint64_t le = t->fio_lat_le[i];
    fprintf(out, "%s\"%s\": ", start ? "" : ", ", keys[i]);
    fj_num(out, n > 0 ? 100.0 * (double)(le - below) / n : 0.0);
    below = le;
  }
  fputs(", \">=2000\": ", out);
  fj_num(out, n > 0 ? 100.0 * (double)(t->ios - below) / n : 0.0);
  fputc('}', out);
}

/* The step's options in fio spelling (its first job: the jobs of a step
 * share the [global] section), as fio lists a job's own options. */
static void fj_job_options(FILE *out, const struct workload_step *st)
{
  fputs("\"job options\": {", out);
  if (st && st->njobs > 0) {
    const struct job *j = &st->jobs[0];
    static const char *const rw[2][3] = {{"write", "randwrite", "rw"}, {"read", "randread", "rw"}};
    const char *mode = j->rw_mixed ? (j->access == JOB_RANDOM ? "randrw" : "rw")
                                   : rw[j->read_frac > 0.5][j->access == JOB_RANDOM ? 1 : 0];
    fprintf(out, "\"name\": ");
    report_json_string(out, j->name);
    char bs[64];
    if (j->nbs_w > 0) /* fio's READ,WRITE spelling */
      snprintf(bs, sizeof bs, "%.0f,%.0f", j->bs_bytes[0], j->bs_bytes_w[0]);
    else
      snprintf(bs, sizeof bs, "%.0f", j->bs_bytes[0]);
    fprintf(out, ", \"rw\": \"%s\", \"bs\": \"%s\", \"iodepth\": \"%d\", \"numjobs\": \"%d\"", mode, bs,
            j->iodepth, j->numjobs);
    if (j->rw_mixed)
      fprintf(out, ", \"rwmixread\": \"%.0f\"", j->read_frac * 100.0);
    if (j->size_bytes > 0)
      fprintf(out, ", \"size\": \"%.0f\"", j->size_bytes);
    if (j->runtime_s > 0)
      fprintf(out, ", \"runtime\": \"%g\"", j->runtime_s);
    if (j->time_based)
      fputs(", \"time_based\": \"1\"", out);
    fprintf(out, ", \"direct\": \"%d\"", j->direct);
    if (j->rate_iops > 0)
      fprintf(out, ", \"rate_iops\": \"%.0f\"", j->rate_iops);
  }
  fputc('}', out);
}

/* fio's submission-depth distribution: every I/O of a job copy is issued
 * with iodepth outstanding (closed loop), in fio's 1,2,4,...,>=64 bins. */
static void fj_depths(FILE *out, const struct workload_step *st, const struct run_result *r)
{
  int depth = st && st->njobs > 0 ? st->jobs[0].iodepth : 1;
  static const char *const lvl[] = {"1", "2", "4", "8", "16", "32", ">=64"};
  int at = depth >= 64 ? 6 : depth >= 32 ? 5 : depth >= 16 ? 4 : depth >= 8 ? 3 : depth >= 4 ? 2 : depth >= 2 ? 1 : 0;
  fputs("\"iodepth_level\": {", out);
  for (int i = 0; i < 7; i++)
    fprintf(out, "%s\"%s\": %s", i ? ", " : "", lvl[i], i == at ? "100.000000" : "0.000000");
  /* One I/O per submission and per completion: fio's 1..4 bin. */
  static const char *const sub[] = {"0", "4", "8", "16", "32", "64", ">=64"};
  for (int k = 0; k < 2; k++) {
    fprintf(out, "},\n     \"iodepth_%s\": {", k ? "complete" : "submit");
    for (int i = 0; i < 7; i++)
      fprintf(out, "%s\"%s\": %s", i ? ", " : "", sub[i], i == 1 ? "100.000000" : "0.000000");
  }
  /* fio latency_target: the depth its search settled at, the target in ns,
   * the window in us (fio's units) */
  const struct job *j0 = st && st->njobs > 0 ? &st->jobs[0] : NULL;
  int on = j0 && j0->lat_target_s > 0 && r->latency_depth > 0;
  fprintf(out, "},\n     \"latency_depth\": %d, \"latency_target\": %.0f, \"latency_percentile\": %f, "
               "\"latency_window\": %.0f",
          on ? r->latency_depth : depth, on ? j0->lat_target_s * 1e9 : 0.0, on ? j0->lat_pct : 100.0,
          on ? j0->lat_window_s * 1e6 : 0.0);
}

static void fj_job(FILE *out, const struct scenario *s, const struct run_result *r, int i, int plus)
{
  const struct workload_step *st = i < s->workload.nsteps ? &s->workload.steps[i] : NULL;
  fputs("\n    {\"jobname\": ", out);
  report_json_string(out, r->step);
  fprintf(out, ", \"groupid\": %d, \"error\": %d, \"eta\": 0, \"elapsed\": %.0f,\n     ", i, r->failed,
          ceil(r->simulated_s));
  fj_job_options(out, st);
  fputs(",\n     \"read\": ", out);
  fj_dir(out, &r->read, r->window_s, plus);
  fputs(",\n     \"write\": ", out);
  fj_dir(out, &r->write, r->window_s, plus);
  struct res_totals none;
  memset(&none, 0, sizeof none);
  fputs(",\n     \"trim\": ", out);
  fj_dir(out, &r->trim, r->window_s, plus);
  fputs(",\n     \"sync\": {\"total_ios\": 0, ", out);
  fj_lat_open(out, "lat_ns", &none, 0);
  fprintf(out, "}},\n     \"job_runtime\": %.0f, \"usr_cpu\": 0.000000, \"sys_cpu\": 0.000000, \"ctx\": 0, "
               "\"majf\": 0, \"minf\": 0,\n     ",
          r->window_s * 1e3);
  fj_depths(out, st, r);
  fputs(",\n     ", out);
  fj_lat_buckets(out, &r->all);
  fputc('}', out);
}

void report_fio_json(FILE *out, const struct scenario *s, const struct run_result *r, int n, int plus)
{
  fprintf(out,
          "{\n  \"fio version\": \"nastwin-%s\",\n  \"timestamp\": 0,\n  \"timestamp_ms\": 0,\n"
          "  \"time\": \"Thu Jan  1 00:00:00 1970\",\n  \"global options\": {\"scenario\": ",
          NASTWIN_VERSION);
  report_json_string(out, s->name);
  fputs("},\n  \"jobs\": [", out);
  for (int i = 0; i < n; i++) {
    if (i)
      fputc(',', out);
    fj_job(out, s, &r[i], i, plus);
  }
  fputs("\n  ]\n}\n", out);
}
