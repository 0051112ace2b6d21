#include "sim/report/report.h"

#include <math.h>
#include <string.h>

#include "sim/analysis/analysis.h"

const double res_percentiles[RES_NPCT] = {0.50, 0.90, 0.99, 0.999, 0.9999};
const char *const res_percentile_names[RES_NPCT] = {"p50", "p90", "p99", "p999", "p9999"};
const double res_fio_percentiles[RES_FIO_NPCT] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                                  80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
/* fio's latency_ns, latency_us and latency_ms bucket edges (the last ms
 * bucket, ">=2000", is what lies above 2000 ms). */
const double res_fio_lat_edges_s[RES_FIO_NEDGES] = {
    2e-9,   4e-9,   10e-9,  20e-9,  50e-9,  100e-9, 250e-9, 500e-9, 750e-9, 1000e-9, 2e-6,
    4e-6,   10e-6,  20e-6,  50e-6,  100e-6, 250e-6, 500e-6, 750e-6, 1000e-6, 2e-3,   4e-3,
    10e-3,  20e-3,  50e-3,  100e-3, 250e-3, 500e-3, 750e-3, 1000e-3, 2000e-3};

void report_json_string(FILE *out, const char *s)
{
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(out, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(out, "\\u%04x", *p);
    else
      fputc(*p, out);
  }
  fputc('"', out);
}

/* Numbers: 10 significant digits, the same bytes for the same double. */
static void report_num(FILE *out, double v)
{
  if (!isfinite(v))
    fputs("null", out);
  else
    fprintf(out, "%.10g", v);
}

uint64_t report_abandoned(const struct run_result *r)
{
  return !r->failed && r->issued > r->completed ? r->issued - r->completed : 0;
}

/* key: [lo, hi] (times scale), or null when there is none, and
 * key_source: where it comes from or why there is none. */
static void report_ci_json(FILE *out, const char *key, const double ci[2], double scale, const char *source)
{
  fprintf(out, ", \"%s\": ", key);
  if (isfinite(ci[0]) && isfinite(ci[1])) {
    fputc('[', out);
    report_num(out, ci[0] * scale);
    fputs(", ", out);
    report_num(out, ci[1] * scale);
    fputc(']', out);
  } else {
    fputs("null", out);
  }
  fprintf(out, ", \"%s_source\": ", key);
  report_json_string(out, source);
}

/* abandoned < 0: not a key of this direction (the count is the run's, in
 * "all"); ci (NULL: none) the run whose interval sources apply. */
static void report_totals_json(FILE *out, const struct res_totals *t, long long abandoned,
                               const struct run_result *ci)
{
  fprintf(out, "{\"ios\": %llu, \"bytes\": ", (unsigned long long)t->ios);
  report_num(out, t->bytes);
  fputs(", \"iops\": ", out);
  report_num(out, t->iops);
  fputs(", \"MBps\": ", out);
  report_num(out, t->MBps);
  fputs(", \"iops_hw95\": ", out);
  report_num(out, t->iops_hw95_rel >= 0 ? t->iops_hw95_rel * t->iops : NAN);
  if (ci) {
    report_ci_json(out, "iops_ci90", t->ci90[RES_CI_IOPS], 1.0, ci->ci90_source[RES_CI_IOPS]);
    report_ci_json(out, "MBps_ci90", t->ci90[RES_CI_MBPS], 1.0, ci->ci90_source[RES_CI_MBPS]);
  }
  fputs(", \"latency_ms\": {\"mean\": ", out);
  report_num(out, t->lat_mean_s * 1e3);
  fputs(", \"mean_hw95\": ", out);
  report_num(out, t->lat_mean_hw95_rel >= 0 ? t->lat_mean_hw95_rel * t->lat_mean_s * 1e3 : NAN);
  if (ci)
    report_ci_json(out, "mean_ci90", t->ci90[RES_CI_LAT_MEAN], 1e3, ci->ci90_source[RES_CI_LAT_MEAN]);
  fputs(", \"stddev\": ", out);
  report_num(out, t->lat_stddev_s * 1e3);
  fputs(", \"min\": ", out);
  report_num(out, t->lat_min_s * 1e3);
  fputs(", \"max\": ", out);
  report_num(out, t->lat_max_s * 1e3);
  for (int i = 0; i < RES_NPCT; i++) {
    fprintf(out, ", \"%s\": ", res_percentile_names[i]);
    report_num(out, t->lat_pct_s[i] * 1e3);
  }
  fprintf(out, "}, \"errors\": %llu, \"dropped\": %llu", (unsigned long long)t->errors,
          (unsigned long long)t->dropped);
  if (abandoned >= 0)
    fprintf(out, ", \"abandoned\": %lld", abandoned);
  fputc('}', out);
}

void report_calib_json(FILE *out, const char *file, const char *hash)
{
  if (!file || !file[0]) {
    fputs("\"uncalibrated\"", out);
    return;
  }
  fputs("{\"file\": ", out);
  report_json_string(out, file);
  fputs(", \"hash\": ", out);
  report_json_string(out, hash);
  fputc('}', out);
}

static void report_step_json(FILE *out, const struct scenario *s, const struct run_result *r,
                             const char *indent)
{
  fprintf(out, "%s\"scenario\": ", indent);
  report_json_string(out, r->scenario);
  fprintf(out, ",\n%s\"system\": ", indent);
  report_json_string(out, s->system_name);
  fprintf(out, ",\n%s\"calibration\": ", indent);
  report_calib_json(out, s->calib_file, s->calib_hash);
  fprintf(out, ",\n%s\"step\": ", indent);
  report_json_string(out, r->step);
  fprintf(out, ",\n%s\"metric\": ", indent);
  report_json_string(out, r->metric);
  fprintf(out, ",\n%s\"seed\": %llu,\n%s\"simulated_s\": ", indent, (unsigned long long)r->seed, indent);
  report_num(out, r->simulated_s);
  fprintf(out, ",\n%s\"window_s\": ", indent);
  report_num(out, r->window_s);
  fprintf(out, ",\n%s\"clients\": %d,\n%s\"outstanding_per_client\": %d", indent, r->clients, indent,
          r->outstanding_per_client);
  fprintf(out, ",\n%s\"protocol_requests\": %llu", indent, (unsigned long long)r->protocol_requests);
  fprintf(out, ",\n%s\"window\": {\"start_s\": ", indent);
  report_num(out, r->window_start_s);
  fputs(", \"outstanding_avg\": ", out);
  report_num(out, r->outstanding_avg);
  fprintf(out, ", \"steady_state\": %s, \"mser5_truncation_s\": ", r->steady ? "true" : "false");
  report_num(out, r->mser_s >= 0 ? r->mser_s : NAN);
  fputs(", \"absorbed_share\": ", out);
  report_num(out, r->absorbed_share);
  fprintf(out, ", \"too_few_ios\": %s}", r->few_ios ? "true" : "false");
  fprintf(out, ",\n%s\"totals\": {\"read\": ", indent);
  report_totals_json(out, &r->read, -1, r->has_ci ? r : NULL);
  fputs(", \"write\": ", out);
  report_totals_json(out, &r->write, -1, r->has_ci ? r : NULL);
  if (r->trim.ios > 0) { /* a trim job's direction (fio's trim section), only when one ran */
    fputs(", \"trim\": ", out);
    report_totals_json(out, &r->trim, -1, NULL);
  }
  fputs(", \"all\": ", out);
  report_totals_json(out, &r->all, (long long)report_abandoned(r), r->has_ci ? r : NULL);
  fprintf(out, "},\n%s\"utilization\": [", indent);
  for (int i = 0; i < r->nres; i++) {
    fprintf(out, "%s{\"resource\": ", i ? ", " : "");
    report_json_string(out, r->res[i].name);
    fputs(", \"what\": ", out);
    report_json_string(out, r->res[i].who);
    fputs(", \"busy\": ", out);
    report_num(out, r->res[i].busy);
    fputs(", \"demand_ms_per_io\": ", out);
    report_num(out, r->res[i].demand_s_per_io * 1e3);
    fputc('}', out);
  }
  fprintf(out, "],\n%s\"bottleneck\": {\"resource\": ", indent);
  report_json_string(out, r->bottleneck >= 0 ? analysis_bottleneck_name(r) : "");
  fputs(", \"reason\": ", out);
  report_json_string(out, r->bottleneck_reason);
  fputs(", \"busy\": ", out);
  report_num(out, r->bottleneck >= 0 ? r->bottleneck_util : 0.0);
  fputs(", \"bound_iops\": ", out);
  report_num(out, r->bound_iops);
  fputs(", \"bound_MBps\": ", out);
  report_num(out, r->bound_MBps);
  fprintf(out, "},\n%s\"power\": {\"avg_W\": ", indent);
  report_num(out, r->avg_power_W);
  fputs(", \"energy_J\": ", out);
  report_num(out, r->energy_J);
  fprintf(out, "},\n%s\"operations\": [", indent);
  for (int i = 0; i < r->nops; i++) {
    fprintf(out, "%s{\"kind\": ", i ? ", " : "");
    report_json_string(out, r->ops[i].kind);
    fputs(", \"duration_s\": ", out);
    report_num(out, r->ops[i].duration_s);
    fputs(", \"avg_power_W\": ", out);
    report_num(out, r->ops[i].avg_power_W);
    if (r->ops[i].stopped)
      fputs(", \"stopped\": true", out);
    fputs(", \"phases\": [", out);
    for (int k = 0; k < r->ops[i].nphases; k++) {
      fprintf(out, "%s{\"name\": ", k ? ", " : "");
      report_json_string(out, r->ops[i].phases[k].name);
      fputs(", \"duration_s\": ", out);
      report_num(out, r->ops[i].phases[k].duration_s);
      fputc('}', out);
    }
    fputs("]}", out);
  }
  fprintf(out, "],\n%s\"volume\": {\"failed\": %s, \"failed_at_s\": ", indent,
          r->volume_failed ? "true" : "false");
  report_num(out, r->volume_failed ? r->volume_failed_at_s : NAN);
  fputs(", \"lost_bytes_estimate\": ", out);
  report_num(out, r->volume_lost_bytes);
  fprintf(out, "},\n%s\"series_MBps\": [", indent);
  for (int i = 0; i < r->nseries; i++) {
    if (i)
      fputs(", ", out);
    report_num(out, r->series_MBps[i]);
  }
  fputs("]", out);
  if (r->replay.traced) {
    fprintf(out, ",\n%s\"replay\": {\"requests\": %d, \"demerit_ms\": ", indent, r->replay.requests);
    report_num(out, r->replay.demerit_s * 1e3);
    fputs(", \"traced_mean_ms\": ", out);
    report_num(out, r->replay.traced_mean_s * 1e3);
    fputs(", \"simulated_mean_ms\": ", out);
    report_num(out, r->replay.simulated_mean_s * 1e3);
    fputc('}', out);
  }
  fprintf(out, ",\n%s\"failed\": %s", indent, r->failed ? "true" : "false");
  if (r->failed) {
    fprintf(out, ",\n%s\"failure\": ", indent);
    report_json_string(out, r->failure);
  }
}

void report_json(FILE *out, const struct scenario *s, const struct run_result *r, int n)
{
  fputs("{\n", out);
  if (n > 0)
    report_step_json(out, s, &r[0], "  ");
  fputs(",\n  \"steps\": [", out);
  for (int i = 0; i < n; i++) {
    fputs(i ? ",\n    {\n" : "\n    {\n", out);
    report_step_json(out, s, &r[i], "      ");
    fputs("\n    }", out);
  }
  fputs("]\n}\n", out);
}

/* A direction's "90 % interval" line (ci: the run, NULL: none asked for). */
static void report_ci_text(FILE *out, const struct res_totals *t, const struct run_result *ci)
{
  if (!ci)
    return;
  if (!ci->ci90_from_cv) {
    fputs("    90 % interval: none available (no cross-validation for this calibration)\n", out);
    return;
  }
  static const char *const label[RES_NCI] = {"IOPS", "BW", "avg lat"};
  static const char *const unit[RES_NCI] = {"", "MB/s", " ms"};
  static const double scale[RES_NCI] = {1.0, 1.0, 1e3};
  fputs("    90 % interval:", out);
  for (int m = 0; m < RES_NCI; m++) {
    if (isfinite(t->ci90[m][0]) && isfinite(t->ci90[m][1]))
      fprintf(out, "%s %s %.6g..%.6g%s", m ? "," : "", label[m], t->ci90[m][0] * scale[m], t->ci90[m][1] * scale[m],
              unit[m]);
    else
      fprintf(out, "%s %s none available", m ? "," : "", label[m]);
  }
  fputc('\n', out);
}

static void report_dir_text(FILE *out, const char *name, const struct res_totals *t, const struct run_result *ci)
{
  if (t->errors > 0)
    fprintf(out, "  %-5s: %llu I/O ERRORS (failed volume; not in the figures below)\n", name,
            (unsigned long long)t->errors);
  if (t->dropped > 0)
    fprintf(out, "  %-5s: %llu UDP DATAGRAMS LOST at a full receive buffer (not in a reader's I/Os; a "
            "sender counts them as written)\n", name, (unsigned long long)t->dropped);
  if (t->ios == 0)
    return;
  fprintf(out, "  %-5s: IOPS=%.6g, BW=%.6gMB/s (%.6gMiB/s), %llu I/Os, %.6g MB\n", name, t->iops,
          t->MBps, t->MBps * 1e6 / 1048576.0, (unsigned long long)t->ios, t->bytes / 1e6);
  fprintf(out, "    lat (ms): min=%.4g, max=%.4g, avg=%.4g, stdev=%.4g\n", t->lat_min_s * 1e3,
          t->lat_max_s * 1e3, t->lat_mean_s * 1e3, t->lat_stddev_s * 1e3);
  if (t->iops_hw95_rel >= 0)
    fprintf(out, "    95 %% half-width (batch means): IOPS +-%.2g %%, avg lat +-%.2g %%\n", t->iops_hw95_rel * 100.0,
            t->lat_mean_hw95_rel * 100.0);
  else
    fprintf(out, "    95 %% half-width (batch means): none, the window holds fewer than two rounds of requests\n");
  report_ci_text(out, t, ci);
  fprintf(out, "    percentiles (ms):");
  for (int i = 0; i < RES_NPCT; i++)
    fprintf(out, " %s=%.4g", res_percentile_names[i], t->lat_pct_s[i] * 1e3);
  fputc('\n', out);
}

/* A large thread pool (Apache's hundreds of workers) in two lines: when
 * more than REPORT_POOL_ROWS rows of the same kind and `who` follow row i
 * (printed), they are one row of their mean busy share and demand.
 * Returns the last row taken.  (knfsd's 8 threads stay one row each.) */
#define REPORT_POOL_ROWS 16
static int report_fold_pool(FILE *out, const struct run_result *r, int i)
{
  const struct res_resource *x = &r->res[i];
  int end = i + 1;
  while (end < r->nres && r->res[end].kind == x->kind && !strcmp(r->res[end].who, x->who))
    end++;
  if (end - i <= REPORT_POOL_ROWS)
    return i;
  double busy = 0.0, demand = 0.0;
  for (int k = i + 1; k < end; k++)
    busy += r->res[k].busy, demand += r->res[k].demand_s_per_io;
  int n = end - i - 1;
  char name[160];
  snprintf(name, sizeof name, "... %d more to %s", n, r->res[end - 1].name);
  fprintf(out, "    %-26s %6.1f%% %9.4g ms  %s (busy and demand: their mean)\n", name, busy / n * 100.0,
          demand / n * 1e3, x->who);
  return end - 1;
}

static void report_step_text(FILE *out, const struct run_result *r)
{
  fprintf(out, "\nstep %s (%s): %.4g s simulated, measured window %.4g s, %d client(s) x %d outstanding\n",
          r->step, r->metric, r->simulated_s, r->window_s, r->clients, r->outstanding_per_client);
  if (r->failed)
    fprintf(out, "  FAILED: %s\n", r->failure);
  fprintf(out, "  window from %.4g s, %.4g client I/Os in flight on average (Little's L)\n", r->window_start_s,
          r->outstanding_avg);
  if (!r->steady && r->window_s > 0)
    fprintf(out, "  WARNING: no steady state in the window (%s): the figures are a transient's\n",
            r->absorbed_share > 0.1 ? "the page cache absorbed the writes: dirty pages grew all along"
            : r->mser_s < 0 ? "the first round of requests never ended"
                            : "MSER-5 truncates half of it, or its halves' rates differ");
  if (r->few_ios)
    fprintf(out, "  WARNING: too few I/Os for a stable figure (%llu I/Os, window %.4g s, one round %.4g s)\n",
            (unsigned long long)r->all.ios, r->window_s, r->all.lat_mean_s);
  if (report_abandoned(r) > 0)
    fprintf(out, "  %llu client I/Os abandoned: outstanding at the window's end, where the run stops "
            "(not lost; not in the figures below)\n", (unsigned long long)report_abandoned(r));
  const struct run_result *ci = r->has_ci ? r : NULL;
  report_dir_text(out, "read", &r->read, ci);
  report_dir_text(out, "write", &r->write, ci);
  if (r->trim.ios)
    report_dir_text(out, "trim", &r->trim, NULL);
  if ((r->read.ios > 0) + (r->write.ios > 0) + (r->trim.ios > 0) > 1)
    report_dir_text(out, "all", &r->all, ci);
  fprintf(out, "  utilization (busy share of the window; demand = busy time per client I/O):\n");
  fprintf(out, "    %-26s %7s %12s  %s\n", "resource", "busy", "demand/IO", "what");
  for (int i = 0; i < r->nres; i++) {
    const struct res_resource *x = &r->res[i];
    if (x->busy < 0.001 && x->kind != RES_CORE && x->kind != RES_DISK && x->kind != RES_CPU)
      continue;
    fprintf(out, "    %-26s %6.1f%% %9.4g ms  %s\n", x->name, x->busy * 100.0, x->demand_s_per_io * 1e3, x->who);
    i = report_fold_pool(out, r, i);
  }
  fprintf(out, "  bottleneck: %s\n", r->bottleneck_reason);
  if (r->bound_iops > 0)
    fprintf(out, "  operational bound: X <= 1/D_max = %.6g IOPS (%.6g MB/s); simulated %.6g IOPS (%.6g MB/s)\n",
            r->bound_iops, r->bound_MBps, r->all.iops, r->all.MBps);
  fprintf(out, "  power: %.4g W average, %.6g J\n", r->avg_power_W, r->energy_J);
  if (r->replay.traced)
    fprintf(out, "  replay: %d requests, mean response %.4g ms simulated vs %.4g ms traced, "
            "demerit %.4g ms (Ruemmler-Wilkes)\n", r->replay.requests,
            r->replay.simulated_mean_s * 1e3, r->replay.traced_mean_s * 1e3, r->replay.demerit_s * 1e3);
  for (int i = 0; i < r->nops; i++) {
    fprintf(out, "  operation %s: %.6g s (%.4g min), %.4g W average%s\n", r->ops[i].kind,
            r->ops[i].duration_s, r->ops[i].duration_s / 60.0, r->ops[i].avg_power_W,
            r->ops[i].stopped ? "; STOPPED unfinished" : "");
    for (int k = 0; k < r->ops[i].nphases; k++)
      fprintf(out, "    phase %s: %.6g s\n", r->ops[i].phases[k].name, r->ops[i].phases[k].duration_s);
  }
}

void report_text(FILE *out, const struct scenario *s, const struct run_result *r, int n)
{
  char clk[32], rate[32];
  for (int i = 0; i < n; i++)
    if (r[i].volume_failed)
      fprintf(out,
              "################################################################\n"
              "# VOLUME FAILED at %.4g s (step %s): more disks failed than the\n"
              "# RAID level survives. Every I/O after that ended with an error\n"
              "# (%llu in the window); about %.4g GB of data are lost.\n"
              "################################################################\n",
              r[i].volume_failed_at_s, r[i].step, (unsigned long long)r[i].all.errors,
              r[i].volume_lost_bytes / 1e9);
  fprintf(out, "nastwin %s: scenario %s (seed %llu)\n", NASTWIN_VERSION, s->name,
          (unsigned long long)s->seed);
  fprintf(out, "  system %s: %s, %g cores at %s; %d x %s; volume %s; %s over %g x %s (MTU %g); %d client(s)\n",
          s->system_name, s->soc_name, s->soc.cores, units_format(s->soc.clock_hz, UNITS_FREQ, clk, sizeof clk),
          s->ndisks, s->drive.name, raid_level_names[(int)s->volume.level], proto_kind_names[(int)s->proto.kind],
          s->net.nas_links, units_format(s->net.nas_link_rate_bytes_per_s, UNITS_RATE, rate, sizeof rate),
          s->net.mtu_bytes, s->nclients);
  if (s->calib_file[0])
    fprintf(out, "  calibration %s (fnv1a64 %s)\n", s->calib_file, s->calib_hash);
  if (s->calib_file[0] && n > 0 && r[0].has_ci && !r[0].ci90_from_cv) /* the same for every step */
    fprintf(out, "  90 %% intervals: %s\n", r[0].ci90_source[RES_CI_IOPS]);
  else if (s->calib_file[0] && n > 0 && r[0].has_ci)
    fprintf(out, "  90 %% intervals from the calibration's cross-validation:\n    IOPS: %s\n    MB/s: %s\n"
                 "    mean latency: %s\n", r[0].ci90_source[RES_CI_IOPS], r[0].ci90_source[RES_CI_MBPS],
            r[0].ci90_source[RES_CI_LAT_MEAN]);
  if (!s->calib_file[0])
    fputs("  uncalibrated: catalogue values\n", out);
  for (int i = 0; i < n; i++)
    report_step_text(out, &r[i]);
}
