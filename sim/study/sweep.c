/* sweep.c - sweep files, grid expansion, CSV rows, atomic writes, merge. */
#include "sim/study/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "sim/analysis/analysis.h"

/* ---- metrics ---------------------------------------------------------- */

enum sweep_metric_id {
  SM_READ_MBPS, SM_WRITE_MBPS, SM_ALL_MBPS, SM_READ_IOPS, SM_WRITE_IOPS, SM_IOPS,
  SM_LAT_MEAN_MS, SM_READ_LAT_MEAN_MS, SM_WRITE_LAT_MEAN_MS, SM_P50_MS, SM_P99_MS, SM_P999_MS,
  SM_BOTTLENECK, SM_BOTTLENECK_BUSY, SM_BOUND_IOPS, SM_BOUND_MBPS, SM_AVG_POWER_W, SM_ENERGY_J,
  SM_WINDOW_S, SM_OUTSTANDING, SM_COUNT
};

static const char *const sweep_metric_names[SM_COUNT] = {
    [SM_READ_MBPS] = "read_MBps", [SM_WRITE_MBPS] = "write_MBps", [SM_ALL_MBPS] = "all_MBps",
    [SM_READ_IOPS] = "read_iops", [SM_WRITE_IOPS] = "write_iops", [SM_IOPS] = "iops",
    [SM_LAT_MEAN_MS] = "lat_mean_ms", [SM_READ_LAT_MEAN_MS] = "read_lat_mean_ms",
    [SM_WRITE_LAT_MEAN_MS] = "write_lat_mean_ms", [SM_P50_MS] = "p50_ms", [SM_P99_MS] = "p99_ms",
    [SM_P999_MS] = "p999_ms", [SM_BOTTLENECK] = "bottleneck",
    [SM_BOTTLENECK_BUSY] = "bottleneck_busy", [SM_BOUND_IOPS] = "bound_iops",
    [SM_BOUND_MBPS] = "bound_MBps", [SM_AVG_POWER_W] = "avg_power_W", [SM_ENERGY_J] = "energy_J",
    [SM_WINDOW_S] = "window_s", [SM_OUTSTANDING] = "outstanding",
};

const char *const sweep_default_metrics[] = {"read_MBps", "write_MBps", "all_MBps", "iops",
                                             "lat_mean_ms", "p99_ms", "bottleneck", "avg_power_W",
                                             NULL};

int sweep_metric_find(const char *name)
{
  for (int m = 0; m < SM_COUNT; m++)
    if (!strcmp(sweep_metric_names[m], name))
      return m;
  return -1;
}

const char *sweep_metric_name(int m)
{
  return m >= 0 && m < SM_COUNT ? sweep_metric_names[m] : "?";
}

int sweep_metric_count(void)
{
  return SM_COUNT;
}

void sweep_metric_list(char *buf, size_t n)
{
  size_t len = 0;
  buf[0] = 0;
  for (int m = 0; m < SM_COUNT && len < n; m++)
    len += (size_t)snprintf(buf + len, n - len, "%s%s", m ? ", " : "", sweep_metric_names[m]);
}

double sweep_metric_value(int m, const struct run_result *r)
{
  switch ((enum sweep_metric_id)m) {
  case SM_READ_MBPS: return r->read.MBps;
  case SM_WRITE_MBPS: return r->write.MBps;
  case SM_ALL_MBPS: return r->all.MBps;
  case SM_READ_IOPS: return r->read.iops;
  case SM_WRITE_IOPS: return r->write.iops;
  case SM_IOPS: return r->all.iops;
  case SM_LAT_MEAN_MS: return r->all.lat_mean_s * 1e3;
  case SM_READ_LAT_MEAN_MS: return r->read.lat_mean_s * 1e3;
  case SM_WRITE_LAT_MEAN_MS: return r->write.lat_mean_s * 1e3;
  case SM_P50_MS: return r->all.lat_pct_s[0] * 1e3;
  case SM_P99_MS: return r->all.lat_pct_s[2] * 1e3;
  case SM_P999_MS: return r->all.lat_pct_s[3] * 1e3;
  case SM_BOTTLENECK_BUSY:
    return r->bottleneck >= 0 && r->bottleneck < r->nres ? r->bottleneck_util : 0.0;
  case SM_BOUND_IOPS: return r->bound_iops;
  case SM_BOUND_MBPS: return r->bound_MBps;
  case SM_AVG_POWER_W: return r->avg_power_W;
  case SM_ENERGY_J: return r->energy_J;
  case SM_WINDOW_S: return r->window_s;
  case SM_OUTSTANDING: return (double)r->clients * r->outstanding_per_client;
  case SM_BOTTLENECK:
  case SM_COUNT: break;
  }
  return NAN;
}

void sweep_metric_text(int m, const struct run_result *r, char *buf, size_t n)
{
  if (m == SM_BOTTLENECK) {
    snprintf(buf, n, "%s", analysis_bottleneck_name(r));
    return;
  }
  double v = sweep_metric_value(m, r);
  if (v == 0.0)
    v = 0.0; /* no "-0" */
  snprintf(buf, n, "%.6g", v);
}

/* ---- parsing ------------------------------------------------------------ */

static int sweep_fail(struct nw_err *err, const struct ynode *n, const char *fmt, const char *a,
                      const char *b)
{
  return nw_fail(err, n ? n->file : NULL, n ? n->line : 0, n ? n->col : 0, fmt, a, b);
}

static int sweep_add_set(struct sweep *s, const char *path, const struct ynode *v,
                         struct nw_err *err)
{
  if (v->kind == YNODE_MAP) {
    for (int i = 0; i < v->n; i++) {
      char sub[SWEEP_MAX_TEXT];
      if ((size_t)snprintf(sub, sizeof sub, "%s.%s", path, v->keys[i]) >= sizeof sub)
        return sweep_fail(err, v, "sets: path '%s.%s' is too long", path, v->keys[i]);
      if (sweep_add_set(s, sub, v->kids[i], err) < 0)
        return -1;
    }
    return 0;
  }
  if (v->kind != YNODE_SCALAR)
    return sweep_fail(err, v, "sets: '%s' must be a scalar or a map, not %s", path,
                      ytree_kind_name(v));
  if (s->nsets == SWEEP_MAX_SETS)
    return sweep_fail(err, v, "sets: more than %s overrides (at '%s')", "32", path);
  if (strlen(path) >= SWEEP_MAX_TEXT || strlen(v->scalar) >= SWEEP_MAX_TEXT)
    return sweep_fail(err, v, "sets: '%s: %s' is too long", path, v->scalar);
  snprintf(s->set_path[s->nsets], SWEEP_MAX_TEXT, "%s", path);
  snprintf(s->set_value[s->nsets], SWEEP_MAX_TEXT, "%s", v->scalar);
  s->nsets++;
  return 0;
}

/* Values of one {path, values|range} item into a temporary list. */
static int sweep_axis_values(const struct ynode *item, char ***vals, int *nvals, struct nw_err *err)
{
  const struct ynode *v = ytree_get(item, "values");
  const struct ynode *r = ytree_get(item, "range");
  *vals = NULL;
  *nvals = 0;
  if (!!v == !!r)
    return sweep_fail(err, item, "axes: an axis needs exactly one of 'values' or 'range'%s%s", "",
                      "");
  if (v) {
    if (v->kind != YNODE_SEQ || v->n < 1)
      return sweep_fail(err, v, "axes: 'values' must be a non-empty list, not %s%s",
                        v->kind == YNODE_SEQ ? "an empty list" : ytree_kind_name(v), "");
    *vals = calloc((size_t)v->n, sizeof **vals);
    if (!*vals)
      return sweep_fail(err, v, "out of memory%s%s", "", "");
    for (int i = 0; i < v->n; i++) {
      if (v->kids[i]->kind != YNODE_SCALAR || strlen(v->kids[i]->scalar) >= SWEEP_MAX_TEXT)
        return sweep_fail(err, v->kids[i], "axes: each value must be a short scalar, not %s%s",
                          ytree_kind_name(v->kids[i]), "");
      (*vals)[i] = strdup(v->kids[i]->scalar);
      (*nvals)++;
      if (!(*vals)[i])
        return sweep_fail(err, v, "out of memory%s%s", "", "");
    }
    return 0;
  }
  if (r->kind != YNODE_SEQ || r->n != 3)
    return sweep_fail(err, r, "axes: 'range' must be [from, to, step]%s%s", "", "");
  double x[3];
  for (int i = 0; i < 3; i++) {
    char *end = NULL;
    const char *t = r->kids[i]->kind == YNODE_SCALAR ? r->kids[i]->scalar : "";
    x[i] = strtod(t, &end);
    if (!*t || *end || !isfinite(x[i]))
      return sweep_fail(err, r->kids[i],
                        "axes: range value '%s' must be a plain number (units go in 'values')%s",
                        t, "");
  }
  if (!(x[2] > 0) || x[1] < x[0])
    return sweep_fail(err, r, "axes: range needs step > 0 and from <= to%s%s", "", "");
  double cnt = floor((x[1] - x[0]) / x[2] + 1e-9) + 1;
  if (cnt > 100000)
    return sweep_fail(err, r, "axes: range has more than %s values%s", "100000", "");
  *vals = calloc((size_t)cnt, sizeof **vals);
  if (!*vals)
    return sweep_fail(err, r, "out of memory%s%s", "", "");
  for (int i = 0; i < (int)cnt; i++) {
    char t[64];
    snprintf(t, sizeof t, "%.10g", x[0] + i * x[2]);
    (*vals)[i] = strdup(t);
    (*nvals)++;
    if (!(*vals)[i])
      return sweep_fail(err, r, "out of memory%s%s", "", "");
  }
  return 0;
}

static void sweep_free_list(char **v, int n)
{
  if (!v)
    return;
  for (int i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

static int sweep_add_path(struct sweep_group *g, const struct ynode *item, struct nw_err *err)
{
  if (item->kind != YNODE_MAP)
    return sweep_fail(err, item, "axes: an axis must be a map {path, values}, not %s%s",
                      ytree_kind_name(item), "");
  for (int i = 0; i < item->n; i++)
    if (strcmp(item->keys[i], "path") && strcmp(item->keys[i], "values") &&
        strcmp(item->keys[i], "range"))
      return nw_fail(err, item->file, item->key_line[i], item->key_col[i],
                     "axes: unknown key '%s'; allowed: path, values, range (or zip)",
                     item->keys[i]);
  const struct ynode *p = ytree_get(item, "path");
  if (!p || p->kind != YNODE_SCALAR || !p->scalar[0] || strlen(p->scalar) >= SWEEP_MAX_TEXT)
    return sweep_fail(err, item, "axes: an axis needs 'path: section.key' (e.g. clients.count)%s%s",
                      "", "");
  if (g->npaths == SWEEP_MAX_ZIP)
    return sweep_fail(err, item, "axes: more than %s zipped paths%s", "8", "");
  char **vals;
  int nvals;
  if (sweep_axis_values(item, &vals, &nvals, err) < 0) {
    sweep_free_list(vals, nvals);
    return -1;
  }
  if (g->npaths > 0 && nvals != g->nvalues) {
    char a[32], b[32];
    snprintf(a, sizeof a, "%d", nvals);
    snprintf(b, sizeof b, "%d", g->nvalues);
    sweep_free_list(vals, nvals);
    return sweep_fail(err, item, "axes: zipped lists must have equal lengths: %s values here, %s in the first",
                      a, b);
  }
  /* grow the group's value table: values[path * nvalues + v] */
  char **nv = realloc(g->values, sizeof *nv * (size_t)(g->npaths + 1) * (size_t)nvals);
  if (!nv) {
    sweep_free_list(vals, nvals);
    return sweep_fail(err, item, "out of memory%s%s", "", "");
  }
  g->values = nv;
  memcpy(g->values + (size_t)g->npaths * (size_t)nvals, vals, sizeof *vals * (size_t)nvals);
  free(vals);
  g->nvalues = nvals;
  snprintf(g->path[g->npaths++], SWEEP_MAX_TEXT, "%s", p->scalar);
  return 0;
}

int sweep_parse(const struct ynode *root, const char *dir, struct sweep *out, struct nw_err *err)
{
  memset(out, 0, sizeof *out);
  if (!root || root->kind != YNODE_MAP)
    return sweep_fail(err, root, "sweep: the file must be a map with base, axes%s%s", "", "");
  snprintf(out->file, sizeof out->file, "%s", root->file ? root->file : "");
  static const char *const keys[] = {"base", "axes", "sets", "metrics", "name", NULL};
  for (int i = 0; i < root->n; i++) {
    int ok = 0;
    for (int k = 0; keys[k]; k++)
      ok |= !strcmp(keys[k], root->keys[i]);
    if (!ok)
      return nw_fail(err, root->file, root->key_line[i], root->key_col[i],
                     "sweep: unknown key '%s'; allowed: base, axes, sets, metrics, name",
                     root->keys[i]);
  }
  const struct ynode *b = ytree_get(root, "base");
  if (!b || b->kind != YNODE_SCALAR || !b->scalar[0])
    return sweep_fail(err, b ? b : root, "sweep: 'base: SCENARIO.yaml' is required%s%s", "", "");
  if (b->scalar[0] == '/' || !dir || !dir[0])
    snprintf(out->base, sizeof out->base, "%s", b->scalar);
  else
    snprintf(out->base, sizeof out->base, "%s/%s", dir, b->scalar);
  const struct ynode *sets = ytree_get(root, "sets");
  if (sets) {
    if (sets->kind != YNODE_MAP)
      return sweep_fail(err, sets, "sweep: 'sets' must be a map of path: value, not %s%s",
                        ytree_kind_name(sets), "");
    for (int i = 0; i < sets->n; i++)
      if (sweep_add_set(out, sets->keys[i], sets->kids[i], err) < 0)
        goto fail;
  }
  const struct ynode *axes = ytree_get(root, "axes");
  if (!axes || axes->kind != YNODE_SEQ || axes->n < 1) {
    sweep_fail(err, axes ? axes : root, "sweep: 'axes' must be a non-empty list%s%s", "", "");
    goto fail;
  }
  if (axes->n > SWEEP_MAX_GROUPS) {
    sweep_fail(err, axes, "sweep: more than %s axes%s", "16", "");
    goto fail;
  }
  out->npoints = 1;
  for (int i = 0; i < axes->n; i++) {
    const struct ynode *item = axes->kids[i];
    struct sweep_group *g = &out->groups[out->ngroups++];
    const struct ynode *zip = ytree_get(item, "zip");
    if (zip) {
      if (item->n != 1 || zip->kind != YNODE_SEQ || zip->n < 1) {
        sweep_fail(err, item, "axes: 'zip' must be the only key, a list of {path, values}%s%s", "",
                   "");
        goto fail;
      }
      for (int k = 0; k < zip->n; k++)
        if (sweep_add_path(g, zip->kids[k], err) < 0)
          goto fail;
    } else if (sweep_add_path(g, item, err) < 0)
      goto fail;
    out->npoints *= g->nvalues;
    if (out->npoints > SWEEP_MAX_POINTS) {
      sweep_fail(err, item, "sweep: more than %s points%s", "1000000", "");
      goto fail;
    }
  }
  const struct ynode *mets = ytree_get(root, "metrics");
  if (mets) {
    if (mets->kind != YNODE_SEQ || mets->n < 1 || mets->n > SWEEP_MAX_METRICS) {
      sweep_fail(err, mets, "sweep: 'metrics' must be a list of 1 to 32 names%s%s", "", "");
      goto fail;
    }
    for (int i = 0; i < mets->n; i++) {
      const char *name = mets->kids[i]->kind == YNODE_SCALAR ? mets->kids[i]->scalar : "";
      int m = sweep_metric_find(name);
      if (m < 0) {
        char list[1024];
        sweep_metric_list(list, sizeof list);
        sweep_fail(err, mets->kids[i], "sweep: unknown metric '%s'; allowed: %s", name, list);
        goto fail;
      }
      out->metrics[out->nmetrics++] = m;
    }
  } else
    for (int i = 0; sweep_default_metrics[i]; i++)
      out->metrics[out->nmetrics++] = sweep_metric_find(sweep_default_metrics[i]);
  return 0;
fail:
  sweep_free(out);
  return -1;
}

int sweep_load(const char *path, struct sweep *out, struct nw_err *err)
{
  memset(out, 0, sizeof *out);
  struct ynode *root = ytree_load_file(path, err);
  if (!root)
    return -1;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = 0;
  else
    snprintf(dir, sizeof dir, ".");
  int rc = sweep_parse(root, dir, out, err);
  ytree_free(root);
  if (rc == 0)
    snprintf(out->file, sizeof out->file, "%s", path);
  return rc;
}

void sweep_free(struct sweep *s)
{
  if (!s)
    return;
  for (int i = 0; i < s->ngroups; i++) {
    struct sweep_group *g = &s->groups[i];
    sweep_free_list(g->values, g->npaths * g->nvalues);
    g->values = NULL;
  }
  s->ngroups = 0;
}

/* ---- expansion ---------------------------------------------------------- */

int sweep_ncols(const struct sweep *s)
{
  int n = 0;
  for (int i = 0; i < s->ngroups; i++)
    n += s->groups[i].npaths;
  return n;
}

int sweep_digit(const struct sweep *s, long point, int gi)
{
  long div = 1;
  for (int i = s->ngroups - 1; i > gi; i--)
    div *= s->groups[i].nvalues;
  return (int)((point / div) % s->groups[gi].nvalues);
}

static int sweep_col_group(const struct sweep *s, int col, int *pi)
{
  for (int i = 0; i < s->ngroups; i++) {
    if (col < s->groups[i].npaths) {
      *pi = col;
      return i;
    }
    col -= s->groups[i].npaths;
  }
  *pi = 0;
  return -1;
}

const char *sweep_col_path(const struct sweep *s, int col)
{
  int pi;
  int gi = sweep_col_group(s, col, &pi);
  return gi < 0 ? "" : s->groups[gi].path[pi];
}

const char *sweep_value(const struct sweep *s, long point, int col)
{
  int pi;
  int gi = sweep_col_group(s, col, &pi);
  if (gi < 0)
    return "";
  const struct sweep_group *g = &s->groups[gi];
  return g->values[(size_t)pi * (size_t)g->nvalues + (size_t)sweep_digit(s, point, gi)];
}

int sweep_point_sets(const struct sweep *s, long point, struct cfg_set *out, int max)
{
  int n = 0;
  for (int i = 0; i < s->nsets; i++) {
    if (n == max)
      return -1;
    out[n++] = (struct cfg_set){.path = s->set_path[i], .value = s->set_value[i]};
  }
  for (int c = 0; c < sweep_ncols(s); c++) {
    if (n == max)
      return -1;
    out[n++] = (struct cfg_set){.path = sweep_col_path(s, c), .value = sweep_value(s, point, c)};
  }
  return n;
}

void sweep_print_points(FILE *out, const struct sweep *s)
{
  fprintf(out, "base %s, %ld point(s)\n", s->base, s->npoints);
  for (int i = 0; i < s->nsets; i++)
    fprintf(out, "set %s=%s\n", s->set_path[i], s->set_value[i]);
  for (long p = 0; p < s->npoints; p++) {
    fprintf(out, "point %ld:", p);
    for (int c = 0; c < sweep_ncols(s); c++)
      fprintf(out, " %s=%s", sweep_col_path(s, c), sweep_value(s, p, c));
    fputc('\n', out);
  }
}

/* ---- CSV ---------------------------------------------------------------- */

size_t sweep_csv_cell(char *buf, size_t n, size_t len, const char *text, int first)
{
  if (len >= n)
    return len;
  if (!first)
    len += (size_t)snprintf(buf + len, n - len, ",");
  if (!strpbrk(text, ",\"\n")) {
    if (len < n)
      len += (size_t)snprintf(buf + len, n - len, "%s", text);
    return len;
  }
  if (len < n)
    len += (size_t)snprintf(buf + len, n - len, "\"");
  for (const char *c = text; *c && len < n; c++)
    len += (size_t)snprintf(buf + len, n - len, *c == '"' ? "\"\"" : "%c", *c);
  if (len < n)
    len += (size_t)snprintf(buf + len, n - len, "\"");
  return len;
}

void sweep_csv_header(const struct sweep *s, char *buf, size_t n)
{
  size_t len = 0;
  len = sweep_csv_cell(buf, n, len, "point", 1);
  len = sweep_csv_cell(buf, n, len, "step", 0);
  len = sweep_csv_cell(buf, n, len, "step_name", 0);
  for (int c = 0; c < sweep_ncols(s); c++)
    len = sweep_csv_cell(buf, n, len, sweep_col_path(s, c), 0);
  for (int m = 0; m < s->nmetrics; m++)
    len = sweep_csv_cell(buf, n, len, sweep_metric_name(s->metrics[m]), 0);
  len = sweep_csv_cell(buf, n, len, "status", 0);
  if (len + 1 < n)
    snprintf(buf + len, n - len, "\n");
}

int sweep_csv_row(const struct sweep *s, long point, int step, const struct run_result *r,
                  char *buf, size_t n)
{
  size_t len = (size_t)snprintf(buf, n, "%ld,%d", point, step);
  len = sweep_csv_cell(buf, n, len, r->step, 0);
  for (int c = 0; c < sweep_ncols(s); c++)
    len = sweep_csv_cell(buf, n, len, sweep_value(s, point, c), 0);
  for (int m = 0; m < s->nmetrics; m++) {
    char t[128];
    sweep_metric_text(s->metrics[m], r, t, sizeof t);
    len = sweep_csv_cell(buf, n, len, t, 0);
  }
  len = sweep_csv_cell(buf, n, len, r->failed ? "failed" : "ok", 0);
  if (len + 2 > n)
    return -1;
  len += (size_t)snprintf(buf + len, n - len, "\n");
  return (int)len;
}

int sweep_row_key(const char *row, long *point, int *step)
{
  char *end;
  errno = 0;
  long p = strtol(row, &end, 10);
  if (end == row || *end != ',' || p < 0 || errno)
    return -1;
  const char *q = end + 1;
  long st = strtol(q, &end, 10);
  if (end == q || *end != ',' || st < 0 || st > 1000000)
    return -1;
  *point = p;
  *step = (int)st;
  return 0;
}

int sweep_csv_split(char *line, char **cells, int max)
{
  int n = 0;
  char *r = line, *w = line;
  for (;;) {
    if (n == max)
      return -1;
    cells[n++] = w;
    if (*r == '"') {
      r++;
      while (*r) {
        if (*r == '"' && r[1] == '"') {
          *w++ = '"';
          r += 2;
        } else if (*r == '"') {
          r++;
          break;
        } else
          *w++ = *r++;
      }
    } else
      while (*r && *r != ',' && *r != '\n')
        *w++ = *r++;
    if (*r != ',') {
      *w = 0;
      return n;
    }
    r++;
    *w++ = 0;
  }
}

/* ---- files -------------------------------------------------------------- */

struct sweep_row {
  long point;
  int step;
  int order; /* input order, for a stable choice among duplicates */
  char *text;
};

static int sweep_row_cmp(const void *a, const void *b)
{
  const struct sweep_row *x = a, *y = b;
  if (x->point != y->point)
    return x->point < y->point ? -1 : 1;
  if (x->step != y->step)
    return x->step < y->step ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

int sweep_merge(const char *out_path, int nin, char **in_paths, struct nw_err *err)
{
  char *header = NULL;
  struct sweep_row *rows = NULL;
  size_t nrows = 0, cap = 0;
  char **bufs = calloc((size_t)(nin > 0 ? nin : 1), sizeof *bufs);
  int rc = -1;
  if (!bufs)
    return nw_fail(err, NULL, 0, 0, "merge: out of memory");
  for (int i = 0; i < nin; i++) {
    size_t len;
    if (file_read_all(in_paths[i], SIZE_MAX, &bufs[i], &len) != FILE_READ_OK) {
      nw_fail(err, in_paths[i], 0, 0, "merge: cannot read: %s", strerror(errno));
      goto done;
    }
    char *save = NULL;
    int lineno = 0;
    for (char *line = strtok_r(bufs[i], "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
      lineno++;
      if (lineno == 1) {
        if (!header)
          header = line;
        else if (strcmp(header, line)) {
          nw_fail(err, in_paths[i], 1, 1,
                  "merge: header differs from %s's: the files come from different sweeps",
                  in_paths[0]);
          goto done;
        }
        continue;
      }
      if (nrows == cap) {
        cap = cap ? cap * 2 : 256;
        struct sweep_row *nr = realloc(rows, cap * sizeof *nr);
        if (!nr) {
          nw_fail(err, NULL, 0, 0, "merge: out of memory");
          goto done;
        }
        rows = nr;
      }
      struct sweep_row *r = &rows[nrows];
      if (sweep_row_key(line, &r->point, &r->step) < 0) {
        nw_fail(err, in_paths[i], lineno, 1, "merge: row does not start with point,step: '%.40s'",
                line);
        goto done;
      }
      r->order = (int)nrows;
      r->text = line;
      nrows++;
    }
  }
  if (!header) {
    nw_fail(err, NULL, 0, 0, "merge: no input rows (give at least one CSV from nastwin sweep)");
    goto done;
  }
  qsort(rows, nrows, sizeof *rows, sweep_row_cmp);
  size_t total = strlen(header) + 2;
  for (size_t i = 0; i < nrows; i++)
    total += strlen(rows[i].text) + 1;
  char *text = malloc(total);
  if (!text) {
    nw_fail(err, NULL, 0, 0, "merge: out of memory");
    goto done;
  }
  size_t len = (size_t)sprintf(text, "%s\n", header);
  for (size_t i = 0; i < nrows; i++) {
    if (i && rows[i].point == rows[i - 1].point && rows[i].step == rows[i - 1].step)
      continue; /* the same point from two shards or a resumed journal */
    len += (size_t)sprintf(text + len, "%s\n", rows[i].text);
  }
  if (file_write_atomic(out_path, text, len) < 0)
    nw_fail(err, out_path, 0, 0, "merge: cannot write: %s", strerror(errno));
  else
    rc = 0;
  free(text);
done:
  for (int i = 0; i < nin; i++)
    free(bufs[i]);
  free(bufs);
  free(rows);
  return rc;
}
