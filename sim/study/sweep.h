/* sweep.h - what-if grids: a sweep file expanded into points, one CSV row
 * per (point, workload step), journal and merge.
 *
 * Sweep YAML:
 *   base: ../default.yaml            # scenario, relative to the sweep file
 *   sets: {time: 2s, network.mtu: 9000}   # fixed overrides (nested maps flatten to dots)
 *   axes:                            # cartesian product, first axis outermost
 *     - {path: clients.count, values: [1, 2, 4]}
 *     - {path: clients.count, range: [1, 25, 1]}           # from, to, step (plain numbers)
 *     - {zip: [{path: volume.level, values: [5, 6]},       # zipped lists, equal lengths
 *              {path: disks.count, values: [5, 6]}]}
 *   metrics: [read_MBps, p99_ms, bottleneck]               # default: sweep_default_metrics
 * Point p's overrides: sets, then each axis's value (later wins).
 * CSV: point,step,step_name,<axis paths>,<metrics>,status; numbers with
 * %.6g; rows sorted by (point, step), so output never depends on -j,
 * shards or resumption. */
#ifndef NASTWIN_SWEEP_H
#define NASTWIN_SWEEP_H

#include <stddef.h>
#include <stdio.h>

#include "sim/config/config.h"
#include "base/err.h"
#include "sim/report/result.h"
#include "sim/config/ytree.h"

#define SWEEP_MAX_GROUPS 16
#define SWEEP_MAX_ZIP 8
#define SWEEP_MAX_SETS 32
#define SWEEP_MAX_METRICS 32
#define SWEEP_MAX_POINTS 1000000L
#define SWEEP_MAX_TEXT 128

/* One axis item: a single path, or several zipped paths of equal length. */
struct sweep_group {
  int npaths;
  char path[SWEEP_MAX_ZIP][SWEEP_MAX_TEXT];
  int nvalues;
  char **values; /* values[path * nvalues + v], owned */
};

struct sweep {
  char file[512];
  char base[1024]; /* scenario path resolved against the sweep file's folder */
  int ngroups;
  struct sweep_group groups[SWEEP_MAX_GROUPS];
  int nsets;
  char set_path[SWEEP_MAX_SETS][SWEEP_MAX_TEXT];
  char set_value[SWEEP_MAX_SETS][SWEEP_MAX_TEXT];
  int nmetrics;
  int metrics[SWEEP_MAX_METRICS]; /* indexes into the metric table */
  long npoints;
};

/* Parse a sweep file.  0, or -1 with err (file:line:col, key and value). */
int sweep_load(const char *path, struct sweep *out, struct nw_err *err);
/* Parse a sweep from a tree; dir = folder that `base` is relative to. */
int sweep_parse(const struct ynode *root, const char *dir, struct sweep *out, struct nw_err *err);
void sweep_free(struct sweep *s); /* accepts zeroed */

/* Axis columns (each zipped path is a column). */
int sweep_ncols(const struct sweep *s);

/* Index of group gi's value at point `point`: the last axis varies fastest. */
int sweep_digit(const struct sweep *s, long point, int gi);
const char *sweep_col_path(const struct sweep *s, int col);
/* Value (text) of column col at point p. */
const char *sweep_value(const struct sweep *s, long point, int col);
/* Overrides for point p (sets then axis values) into out[max]; count or -1. */
int sweep_point_sets(const struct sweep *s, long point, struct cfg_set *out, int max);
/* Print every point as "point N: path=value ..." (the expansion, for goldens and --list). */
void sweep_print_points(FILE *out, const struct sweep *s);

/* Metrics: name -> index (-1 unknown); name; numeric value (NAN for text). */
int sweep_metric_find(const char *name);
const char *sweep_metric_name(int m);
int sweep_metric_count(void);
double sweep_metric_value(int m, const struct run_result *r);
/* Metric as CSV text (%.6g, or the bottleneck's name). */
void sweep_metric_text(int m, const struct run_result *r, char *buf, size_t n);
/* Allowed metric names, comma separated, for messages. */
void sweep_metric_list(char *buf, size_t n);
extern const char *const sweep_default_metrics[];

/* Append CSV cell `text` to buf (n bytes, len of them used), after a comma
 * unless first, quoted when it holds , " or a newline.  Returns the new
 * length (>= n once the buffer is full: later calls append nothing). */
size_t sweep_csv_cell(char *buf, size_t n, size_t len, const char *text, int first);
/* CSV header line (with '\n'). */
void sweep_csv_header(const struct sweep *s, char *buf, size_t n);
/* One CSV row (with '\n') for (point, step).  Length, or -1 if too long. */
int sweep_csv_row(const struct sweep *s, long point, int step, const struct run_result *r,
                  char *buf, size_t n);
/* Read the leading "point,step," of a row.  0, or -1 when malformed. */
int sweep_row_key(const char *row, long *point, int *step);

/* Split a CSV line in place into cells (handles quotes); count, or -1 if more than max. */
int sweep_csv_split(char *line, char **cells, int max);

/* nastwin merge OUT.csv IN.csv...: rows of shards, deduplicated and sorted. */
int sweep_merge(const char *out_path, int nin, char **in_paths, struct nw_err *err);

#endif
