/* htmlreport.h - self-contained HTML pages (inline SVG via sim/report/svg.h, no
 * external resources), written atomically as DIR/index.html (DIR is
 * created when missing; the page is written to a temporary file in DIR
 * and renamed into place). */
#ifndef NASTWIN_HTMLREPORT_H
#define NASTWIN_HTMLREPORT_H

#include "sim/config/config.h"
#include "base/err.h"
#include "sim/report/result.h"
#include "sim/study/sweep.h"

/* Sweep page: throughput and latency vs the first axis (one series per
 * combination of the other axes and workload step), a heatmap of the
 * throughput for a 2-axis sweep, and a table of every row with its
 * bottleneck.  header/rows: the sweep's CSV lines (with or without '\n';
 * columns found by name: all_MBps|read_MBps|write_MBps|iops for
 * throughput, lat_mean_ms|p99_ms|... for latency, bottleneck, source).
 * first: point 0's scenario, for the configuration table and the
 * calibration in the footer (NULL: neither).  0, or -1 with err. */
int htmlreport_sweep(const char *dir, const struct sweep *sw, const struct scenario *first, const char *header,
                     char **rows, int nrows, struct nw_err *err);

/* Run page for n workload steps r[0..n-1] of scenario s: the
 * configuration table, then per step the latency percentiles (ms), the
 * latency CDF and histogram with reads and writes apart, utilisation per
 * busy resource (bars), the per-second throughput (MB/s) and, when
 * present, the RAID operations' durations (s); a footer with the version
 * and the data folder.  0, or -1 with err. */
int htmlreport_run(const char *dir, const struct scenario *s, const struct run_result *r, int n,
                   struct nw_err *err);

/* One point of a predicted-vs-measured panel: a marker with its hover label. */
struct htmlreport_scatter_pt {
  double measured, predicted;
  int colour;
  double opacity;
  const char *tip;
};

/* One predicted-vs-measured panel, log-log with equal axes in `unit`: the
 * diagonal, the +-10 % and +-25 % bands shaded, a marker per point, and
 * the legend (colour i = legend[i]). */
void htmlreport_scatter(FILE *out, const char *title, const char *unit, const struct htmlreport_scatter_pt *p,
                        int n, const char *const *legend, int nlegend);

/* Write a finished page (text, len bytes) as DIR/index.html atomically.
 * 0, or -1 with err naming the path. */
int htmlreport_write(const char *dir, const char *text, size_t len, struct nw_err *err);

#endif
