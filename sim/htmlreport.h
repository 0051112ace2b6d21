/* htmlreport.h - a self-contained HTML page (inline SVG) for a sweep. */
#ifndef NASTWIN_HTMLREPORT_H
#define NASTWIN_HTMLREPORT_H

#include "sim/err.h"
#include "sim/sweep.h"

/* Write DIR/index.html atomically: throughput and latency vs the first
 * axis (one series per combination of the other axes) and, for a 2-axis
 * sweep, a heatmap.  header/rows: the sweep's CSV lines.  0 or -1. */
int htmlreport_sweep(const char *dir, const struct sweep *sw, const char *header, char **rows,
                     int nrows, struct nw_err *err);

#endif
