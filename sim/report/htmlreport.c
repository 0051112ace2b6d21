/* htmlreport.c - sweep and run pages as self-contained HTML (see htmlreport.h). */
#include "sim/report/htmlreport.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/datadir.h"
#include "base/file.h"
#include "base/units.h"
#include "sim/report/report.h"
#include "sim/report/svg.h"

#define HTMLREPORT_MAX_COLS 256
#define HTMLREPORT_MAX_SERIES 64
#define HTMLREPORT_LEGEND_ROWS 20

static void htmlreport_head(FILE *out, const char *title)
{
  fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", out);
  svg_escape(out, title);
  fputs("</title>\n<style>body{font-family:sans-serif;margin:2em}"
        "table{border-collapse:collapse;font-size:12px}"
        "td,th{border:1px solid #ccc;padding:2px 6px}td.n{text-align:right}"
        "td.b{font-weight:bold}svg{display:block;margin:1em 0}</style></head><body>\n<h1>",
        out);
  svg_escape(out, title);
  fputs("</h1>\n", out);
}

/* mkdir -p: the folder and any missing parent (--html out/run/a). */
static int htmlreport_mkdirs(const char *dir)
{
  char p[1100];
  if ((size_t)snprintf(p, sizeof p, "%s", dir) >= sizeof p)
    return errno = ENAMETOOLONG, -1;
  for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
    *s = '\0';
    if (mkdir(p, 0755) < 0 && errno != EEXIST)
      return -1;
    *s = '/';
  }
  return mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

int htmlreport_write(const char *dir, const char *text, size_t len, struct nw_err *err)
{
  if (htmlreport_mkdirs(dir) < 0)
    return nw_fail(err, dir, 0, 0, "html: cannot create the folder: %s", strerror(errno));
  char path[1100];
  if ((size_t)snprintf(path, sizeof path, "%s/index.html", dir) >= sizeof path)
    return nw_fail(err, dir, 0, 0, "html: folder name is too long (%zu characters)",
                   strlen(dir));
  if (file_write_atomic(path, text, len) < 0)
    return nw_fail(err, path, 0, 0, "html: cannot write: %s", strerror(errno));
  return 0;
}

/* Close the memstream and write the page. */
static int htmlreport_finish(const char *dir, FILE *out, char **buf, size_t *len,
                             struct nw_err *err)
{
  fputs("</body></html>\n", out);
  int bad = ferror(out);
  fclose(out);
  int rc = bad ? nw_fail(err, dir, 0, 0, "html: out of memory while building the page")
               : htmlreport_write(dir, *buf, *len, err);
  free(*buf);
  *buf = NULL;
  return rc;
}

/* ---- validate panels -------------------------------------------------- */

/* The band predicted = measured x (1 +- f) across [lo, hi] as a polygon. */
static void htmlreport_band(FILE *out, const struct svg_chart *c, double f, const char *fill)
{
  double lo = c->x.lo, hi = c->x.hi;
  double xs[4] = {lo, hi, hi, lo}, ys[4] = {lo * (1 + f), hi * (1 + f), hi * (1 - f), lo * (1 - f)};
  fputs("<polygon points=\"", out);
  for (int i = 0; i < 4; i++) {
    double y = fmin(fmax(ys[i], c->y.lo), c->y.hi);
    fprintf(out, "%s%.1f,%.1f", i ? " " : "", svg_chart_x(c, xs[i]), svg_chart_y(c, y));
  }
  fprintf(out, "\" fill=\"%s\" stroke=\"none\"><title>within %.0f %%</title></polygon>\n", fill, f * 100);
}

void htmlreport_scatter(FILE *out, const char *title, const char *unit, const struct htmlreport_scatter_pt *p,
                        int n, const char *const *legend, int nlegend)
{
  size_t longest = 0; /* legend labels at 11 px, ~6.5 px a character, after an 18 px swatch */
  for (int k = 0; k < nlegend; k++)
    if (strlen(legend[k]) > longest)
      longest = strlen(legend[k]);
  double legend_px = fmax(250, 40 + 6.5 * (double)longest);
  struct svg_chart c;
  svg_chart_init(&c, 450 + legend_px, 480, legend_px);
  c.x.log = c.y.log = 1;
  char xl[64], yl[64];
  snprintf(xl, sizeof xl, "measured (%s)", unit);
  snprintf(yl, sizeof yl, "predicted (%s)", unit);
  c.x.label = xl;
  c.y.label = yl;
  for (int i = 0; i < n; i++) {
    svg_range_add(&c.x, p[i].measured);
    svg_range_add(&c.x, p[i].predicted);
  }
  if (!(c.x.lo < c.x.hi) || !(c.x.lo > 0)) { /* one value, or none: a decade around it */
    double v = n > 0 && p[0].measured > 0 ? p[0].measured : 1.0;
    c.x.lo = v / 3.0, c.x.hi = v * 3.0;
  }
  c.x.lo /= 1.3, c.x.hi *= 1.3;
  c.y.lo = c.x.lo, c.y.hi = c.x.hi;
  svg_chart_begin(out, &c, title);
  htmlreport_band(out, &c, 0.25, "#e6e6e6");
  htmlreport_band(out, &c, 0.10, "#c4c4c4");
  svg_chart_line(out, &c, c.x.lo, c.y.lo, c.x.hi, c.y.hi);
  for (int i = 0; i < n; i++)
    svg_chart_point(out, &c, p[i].measured, p[i].predicted, 4, p[i].colour, p[i].opacity, p[i].tip);
  for (int k = 0; k < nlegend; k++)
    svg_chart_legend(out, &c, k, k, legend[k]);
  svg_chart_end(out);
}

/* ---- sweep page ------------------------------------------------------- */

static void htmlreport_config(FILE *out, const struct scenario *s);
static void htmlreport_calibration(FILE *out, const struct scenario *s);

/* Version, data folder and the calibration applied (s NULL: not known). */
static void htmlreport_footer(FILE *out, const struct scenario *s)
{
  fprintf(out, "<footer><p>nastwin %s; catalogue, calibration and review data from ", NASTWIN_VERSION);
  svg_escape(out, nw_data_dir());
  if (s) {
    fputs("; calibration ", out);
    htmlreport_calibration(out, s);
  }
  fputs(".</p></footer>\n", out);
}

static int htmlreport_col(char *const *hc, int nh, const char *const *names)
{
  for (int k = 0; names[k]; k++)
    for (int i = 0; i < nh; i++)
      if (!strcmp(hc[i], names[k]))
        return i;
  return -1;
}

static double htmlreport_num(const char *t)
{
  char *end;
  double v = strtod(t, &end);
  return t[0] && !*end ? v : NAN;
}

/* Label of group g's value v: zipped values joined with '/'. */
static void htmlreport_group_value(const struct sweep *sw, int g, int v, char *buf, size_t n)
{
  const struct sweep_group *gr = &sw->groups[g];
  size_t len = 0;
  buf[0] = 0;
  for (int p = 0; p < gr->npaths && len < n; p++)
    len += (size_t)snprintf(buf + len, n - len, "%s%s", p ? "/" : "",
                            gr->values[(size_t)p * (size_t)gr->nvalues + (size_t)v]);
}

static void htmlreport_group_path(const struct sweep *sw, int g, char *buf, size_t n)
{
  const struct sweep_group *gr = &sw->groups[g];
  size_t len = 0;
  buf[0] = 0;
  for (int p = 0; p < gr->npaths && len < n; p++)
    len += (size_t)snprintf(buf + len, n - len, "%s%s", p ? "/" : "", gr->path[p]);
}

struct htmlreport_sweep_data {
  const struct sweep *sw;
  int nh, nrows;
  char **hc;        /* header cells */
  char ***cells;    /* cells[row][col] */
  int *ncells;
  int c_thr, c_lat, c_bott, c_src;
  int n0;           /* values of the first axis */
  long stride;      /* points per first-axis value */
  int nseries;
  long s_rest[HTMLREPORT_MAX_SERIES];
  int s_step[HTMLREPORT_MAX_SERIES];
  char **xcat;      /* first-axis labels */
  int xnumeric;
};

static const char *htmlreport_cell(const struct htmlreport_sweep_data *d, int row, int col)
{
  return col >= 0 && col < d->ncells[row] ? d->cells[row][col] : "";
}

/* One chart of metric column col vs the first axis. */
/* Where a series' bottleneck changes from one first-axis value to the
 * next: a hollow ring around the point, its hover label naming both. */
static void htmlreport_shifts(FILE *out, const struct svg_chart *c, const struct htmlreport_sweep_data *d,
                              const double *x, const double *y, const int *row)
{
  if (d->c_bott < 0)
    return;
  int prev = -1;
  for (int v = 0; v < d->n0; v++) {
    if (row[v] < 0 || !isfinite(y[v]))
      continue;
    const char *now = htmlreport_cell(d, row[v], d->c_bott);
    if (prev >= 0) {
      const char *was = htmlreport_cell(d, row[prev], d->c_bott);
      if (strcmp(was, now) != 0) {
        fprintf(out, "<circle class=\"shift\" cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" "
                     "stroke=\"#000\" stroke-width=\"1.5\"><title>bottleneck shifts: ",
                svg_chart_x(c, x[v]), svg_chart_y(c, y[v]));
        svg_escape(out, was);
        fputs(" -&gt; ", out);
        svg_escape(out, now);
        fputs("</title></circle>\n", out);
      }
    }
    prev = v;
  }
}

static void htmlreport_sweep_chart(FILE *out, const struct htmlreport_sweep_data *d, int col,
                                   const char *title)
{
  struct svg_chart c;
  svg_chart_init(&c, 1000, 420, 300);
  char xl[512];
  htmlreport_group_path(d->sw, 0, xl, sizeof xl);
  c.x.label = xl;
  c.y.label = d->hc[col];
  if (!d->xnumeric) {
    c.x.ncat = d->n0;
    c.x.cat = (const char *const *)d->xcat;
  }
  size_t nv = (size_t)d->nseries * (size_t)d->n0;
  double *y = malloc((nv + 1) * sizeof *y);
  double *x = malloc(((size_t)d->n0 + 1) * sizeof *x);
  int *brow = malloc((nv + 1) * sizeof *brow); /* the row of each point, for its bottleneck */
  if (!y || !x || !brow) {
    free(y);
    free(x);
    free(brow);
    return;
  }
  for (size_t i = 0; i < nv; i++)
    y[i] = NAN, brow[i] = -1;
  for (int v = 0; v < d->n0; v++) {
    x[v] = d->xnumeric ? htmlreport_num(d->xcat[v]) : v;
    svg_range_add(&c.x, x[v]);
  }
  for (int r = 0; r < d->nrows; r++) {
    long p;
    int st;
    char key[64];
    snprintf(key, sizeof key, "%.20s,%.20s,", htmlreport_cell(d, r, 0), htmlreport_cell(d, r, 1));
    if (sweep_row_key(key, &p, &st) < 0)
      continue;
    long rest = p % d->stride;
    int v0 = (int)(p / d->stride);
    for (int s = 0; s < d->nseries; s++)
      if (d->s_rest[s] == rest && d->s_step[s] == st && v0 < d->n0) {
        double val = htmlreport_num(htmlreport_cell(d, r, col));
        y[(size_t)s * (size_t)d->n0 + (size_t)v0] = val;
        brow[(size_t)s * (size_t)d->n0 + (size_t)v0] = r;
        svg_range_add(&c.y, val);
      }
  }
  char full[600];
  snprintf(full, sizeof full, "%s%s", title, d->c_bott >= 0 ? " (rings: the bottleneck shifts)" : "");
  svg_chart_begin(out, &c, full);
  for (int s = 0; s < d->nseries; s++) {
    char name[512];
    size_t len = 0;
    name[0] = 0;
    long rest = d->s_rest[s];
    /* the other axes' values, outermost first */
    long div = d->stride;
    for (int g = 1; g < d->sw->ngroups && len < sizeof name; g++) {
      div /= d->sw->groups[g].nvalues;
      int v = (int)((rest / div) % d->sw->groups[g].nvalues);
      char pth[256], val[256];
      htmlreport_group_path(d->sw, g, pth, sizeof pth);
      htmlreport_group_value(d->sw, g, v, val, sizeof val);
      len += (size_t)snprintf(name + len, sizeof name - len, "%s%s=%s", len ? ", " : "", pth, val);
    }
    int multi_step = 0;
    for (int k = 0; k < d->nseries; k++)
      multi_step |= d->s_step[k] != 0;
    if (multi_step && len < sizeof name)
      snprintf(name + len, sizeof name - len, "%sstep %d", len ? ", " : "", d->s_step[s]);
    if (!name[0])
      snprintf(name, sizeof name, "%s", d->hc[col]);
    svg_chart_series(out, &c, x, y + (size_t)s * (size_t)d->n0, d->n0, s, name);
    htmlreport_shifts(out, &c, d, x, y + (size_t)s * (size_t)d->n0, brow + (size_t)s * (size_t)d->n0);
    if (s < HTMLREPORT_LEGEND_ROWS)
      svg_chart_legend(out, &c, s, s, name);
    else if (s == HTMLREPORT_LEGEND_ROWS)
      svg_chart_legend(out, &c, s, s, "... (hover a line for its name)");
  }
  svg_chart_end(out);
  free(x);
  free(y);
  free(brow);
}

static void htmlreport_sweep_heatmap(FILE *out, const struct htmlreport_sweep_data *d)
{
  const struct sweep *sw = d->sw;
  int nx = d->n0, ny = sw->groups[1].nvalues;
  double *v = malloc(((size_t)nx * (size_t)ny + 1) * sizeof *v);
  char **ycat = calloc((size_t)ny + 1, sizeof *ycat);
  if (v && ycat) {
    for (int i = 0; i < nx * ny; i++)
      v[i] = NAN;
    for (int r = 0; r < d->nrows; r++) {
      long p;
      int st;
      char key[64];
      snprintf(key, sizeof key, "%.20s,%.20s,", htmlreport_cell(d, r, 0), htmlreport_cell(d, r, 1));
      if (sweep_row_key(key, &p, &st) < 0 || st != 0 || p >= sw->npoints)
        continue;
      int ix = (int)(p / ny), iy = (int)(p % ny);
      v[iy * nx + ix] = htmlreport_num(htmlreport_cell(d, r, d->c_thr));
    }
    int ok = 1;
    for (int iy = 0; iy < ny; iy++) {
      char val[256];
      htmlreport_group_value(sw, 1, iy, val, sizeof val);
      ycat[iy] = strdup(val);
      ok &= ycat[iy] != NULL;
    }
    char xl[512], yl[512], title[1200];
    htmlreport_group_path(sw, 0, xl, sizeof xl);
    htmlreport_group_path(sw, 1, yl, sizeof yl);
    snprintf(title, sizeof title, "%s over %s x %s (first workload step)", d->hc[d->c_thr], xl,
             yl);
    if (ok)
      svg_heatmap(out, title, xl, (const char *const *)d->xcat, nx, yl,
                  (const char *const *)ycat, ny, v, d->hc[d->c_thr]);
    for (int iy = 0; iy < ny; iy++)
      free(ycat[iy]);
  }
  free(ycat);
  free(v);
}

static void htmlreport_sweep_table(FILE *out, const struct htmlreport_sweep_data *d)
{
  fputs("<h2>All points</h2>\n<table><tr>", out);
  for (int k = 0; k < d->nh; k++) {
    fputs("<th>", out);
    svg_escape(out, d->hc[k]);
    fputs("</th>", out);
  }
  fputs("</tr>\n", out);
  for (int r = 0; r < d->nrows; r++) {
    fputs("<tr>", out);
    for (int k = 0; k < d->nh; k++) {
      const char *t = htmlreport_cell(d, r, k);
      fprintf(out, "<td%s>", k == d->c_bott ? " class=\"b\"" : isfinite(htmlreport_num(t)) ? " class=\"n\"" : "");
      svg_escape(out, t);
      fputs("</td>", out);
    }
    fputs("</tr>\n", out);
  }
  fputs("</table>\n", out);
}

int htmlreport_sweep(const char *dir, const struct sweep *sw, const struct scenario *first, const char *header,
                     char **rows, int nrows, struct nw_err *err)
{
  struct htmlreport_sweep_data d = {.sw = sw, .nrows = nrows};
  char *hcopy = strdup(header);
  d.hc = calloc(HTMLREPORT_MAX_COLS, sizeof *d.hc);
  d.cells = calloc((size_t)nrows + 1, sizeof *d.cells);
  d.ncells = calloc((size_t)nrows + 1, sizeof *d.ncells);
  d.n0 = sw->ngroups > 0 ? sw->groups[0].nvalues : 0;
  d.xcat = calloc((size_t)d.n0 + 1, sizeof *d.xcat);
  char *buf = NULL;
  size_t len = 0;
  int rc = -1;
  if (!hcopy || !d.hc || !d.cells || !d.ncells || !d.xcat || d.n0 < 1) {
    nw_fail(err, dir, 0, 0, "html: out of memory (or a sweep without axes)");
    goto done;
  }
  hcopy[strcspn(hcopy, "\n")] = 0;
  d.nh = sweep_csv_split(hcopy, d.hc, HTMLREPORT_MAX_COLS);
  if (d.nh < 3) {
    nw_fail(err, dir, 0, 0, "html: the CSV header has %d columns (more than %d, or not a sweep's)",
            d.nh, HTMLREPORT_MAX_COLS);
    goto done;
  }
  for (int r = 0; r < nrows; r++) {
    d.cells[r] = calloc(HTMLREPORT_MAX_COLS, sizeof *d.cells[r]);
    char *line = strdup(rows[r]);
    if (!d.cells[r] || !line) {
      free(line);
      nw_fail(err, dir, 0, 0, "html: out of memory");
      goto done;
    }
    line[strcspn(line, "\n")] = 0;
    d.cells[r][HTMLREPORT_MAX_COLS - 1] = NULL;
    d.ncells[r] = sweep_csv_split(line, d.cells[r], HTMLREPORT_MAX_COLS - 1);
    if (d.ncells[r] < 0)
      d.ncells[r] = 0;
    d.cells[r][HTMLREPORT_MAX_COLS - 1] = line; /* owned copy, freed below */
  }
  static const char *const thr[] = {"all_MBps", "read_MBps", "write_MBps", "iops", "read_iops",
                                    "write_iops", NULL};
  static const char *const lat[] = {"lat_mean_ms", "p99_ms", "p50_ms", "read_lat_mean_ms",
                                    "write_lat_mean_ms", "p999_ms", NULL};
  static const char *const bott[] = {"bottleneck", NULL};
  static const char *const src[] = {"source", NULL};
  d.c_thr = htmlreport_col(d.hc, d.nh, thr);
  d.c_lat = htmlreport_col(d.hc, d.nh, lat);
  d.c_bott = htmlreport_col(d.hc, d.nh, bott);
  d.c_src = htmlreport_col(d.hc, d.nh, src);
  d.stride = sw->npoints / d.n0;
  d.xnumeric = 1;
  for (int v = 0; v < d.n0; v++) {
    char val[256];
    htmlreport_group_value(sw, 0, v, val, sizeof val);
    d.xcat[v] = strdup(val);
    if (!d.xcat[v]) {
      nw_fail(err, dir, 0, 0, "html: out of memory");
      goto done;
    }
    d.xnumeric &= sw->groups[0].npaths == 1 && isfinite(htmlreport_num(val));
  }
  /* series: (other axes, step) in order of first appearance */
  for (int r = 0; r < nrows && d.nseries < HTMLREPORT_MAX_SERIES; r++) {
    long p;
    int st;
    char key[64];
    snprintf(key, sizeof key, "%.20s,%.20s,", htmlreport_cell(&d, r, 0), htmlreport_cell(&d, r, 1));
    if (sweep_row_key(key, &p, &st) < 0)
      continue;
    long rest = p % d.stride;
    int s;
    for (s = 0; s < d.nseries; s++)
      if (d.s_rest[s] == rest && d.s_step[s] == st)
        break;
    if (s == d.nseries) {
      d.s_rest[d.nseries] = rest;
      d.s_step[d.nseries++] = st;
    }
  }
  FILE *out = open_memstream(&buf, &len);
  if (!out) {
    nw_fail(err, dir, 0, 0, "html: out of memory");
    goto done;
  }
  char title[1200];
  snprintf(title, sizeof title, "nastwin sweep: %s", sw->file);
  htmlreport_head(out, title);
  fprintf(out, "<p>%ld point(s), %d row(s); base scenario ", sw->npoints, nrows);
  svg_escape(out, sw->base);
  for (int i = 0; i < sw->nsets; i++) {
    fputs(i ? ", " : "; fixed: ", out);
    svg_escape(out, sw->set_path[i]);
    fputs("=", out);
    svg_escape(out, sw->set_value[i]);
  }
  fputs(".", out);
  if (d.c_src >= 0)
    fputs(" The <b>source</b> column says whether a row was simulated or predicted by MVA "
          "(see sweep --help).",
          out);
  fputs("</p>\n", out);
  char xl[512];
  htmlreport_group_path(sw, 0, xl, sizeof xl);
  if (d.c_thr >= 0) {
    snprintf(title, sizeof title, "Throughput: %s vs %s", d.hc[d.c_thr], xl);
    htmlreport_sweep_chart(out, &d, d.c_thr, title);
  }
  if (d.c_lat >= 0) {
    snprintf(title, sizeof title, "Latency: %s vs %s", d.hc[d.c_lat], xl);
    htmlreport_sweep_chart(out, &d, d.c_lat, title);
  }
  if (d.c_thr < 0 && d.c_lat < 0)
    fputs("<p>No throughput or latency metric in this sweep's metrics: table only.</p>\n", out);
  if (sw->ngroups == 2 && d.c_thr >= 0)
    htmlreport_sweep_heatmap(out, &d);
  if (first) {
    htmlreport_config(out, first);
    fputs("<p>The configuration of point 0; the other points change the axes above.</p>\n", out);
  }
  htmlreport_sweep_table(out, &d);
  htmlreport_footer(out, first);
  rc = htmlreport_finish(dir, out, &buf, &len, err);
done:
  for (int r = 0; d.cells && r < nrows; r++) {
    if (d.cells[r])
      free(d.cells[r][HTMLREPORT_MAX_COLS - 1]);
    free(d.cells[r]);
  }
  for (int v = 0; d.xcat && v < d.n0; v++)
    free(d.xcat[v]);
  free(d.xcat);
  free(d.cells);
  free(d.ncells);
  free(d.hc);
  free(hcopy);
  return rc;
}

/* ---- run page ---------------------------------------------------------- */

static int htmlreport_busy_cmp(const void *a, const void *b)
{
  const struct res_resource *x = *(const struct res_resource *const *)a;
  const struct res_resource *y = *(const struct res_resource *const *)b;
  if (x->busy != y->busy)
    return x->busy < y->busy ? 1 : -1;
  return strcmp(x->name, y->name);
}

/* Which calibration the numbers carry: the file and its hash, or none. */
static void htmlreport_calibration(FILE *out, const struct scenario *s)
{
  if (s->calib_file[0]) {
    svg_escape(out, s->calib_file);
    fprintf(out, " (fnv1a64 %s)", s->calib_hash);
  } else
    fputs("none: catalogue values (--uncalibrated, or no calibration file)", out);
  fprintf(out, "; %d of this configuration's catalogue parameters are fitted ones (fit: in the catalogue)", s->nfits);
}

/* One row per job: its step, what it does, block size, depth and copies. */
static void htmlreport_config_jobs(FILE *out, const struct scenario *s)
{
  enum { MAX_ROWS = 16 };
  int shown = 0, total = 0;
  for (int i = 0; i < s->workload.nsteps; i++) {
    const struct workload_step *st = &s->workload.steps[i];
    for (int k = 0; k < st->njobs; k++, total++) {
      if (shown == MAX_ROWS)
        continue;
      const struct job *j = &st->jobs[k];
      char bs[32];
      fputs("<tr><th>job</th><td>", out);
      svg_escape(out, j->name);
      fputs(" (step ", out);
      svg_escape(out, st->name);
      fprintf(out, "): %s %s, bs %s%s, iodepth %d x %d job(s)%s%s</td></tr>\n",
              j->rw_mixed ? "mixed" : j->read_frac >= 1.0 ? "read" : j->read_frac <= 0.0 ? "write" : "mixed",
              j->access == JOB_RANDOM ? "random" : "sequential",
              units_format(j->bs_bytes[0], UNITS_BYTES, bs, sizeof bs), j->nbs > 1 ? " and others (bssplit)" : "",
              j->iodepth, j->numjobs, j->direct ? ", direct" : "", j->rate_iops > 0 ? ", rate-capped" : "");
      shown++;
    }
  }
  if (total > shown)
    fprintf(out, "<tr><th>job</th><td>and %d more</td></tr>\n", total - shown);
}

/* The configuration the run simulated, as a table. */
static void htmlreport_config(FILE *out, const struct scenario *s)
{
  char clk[32], rate[32];
  fputs("<h2>Configuration</h2>\n<table>\n", out);
  const char *rows[][2] = {
      {"system", s->system_name},
      {"SoC", s->soc_name},
      {"drives", s->drive.name},
      {"RAID level", raid_level_names[(int)s->volume.level]},
      {"protocol", proto_kind_names[(int)s->proto.kind]},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    fputs("<tr><th>", out);
    svg_escape(out, rows[i][0]);
    fputs("</th><td>", out);
    svg_escape(out, rows[i][1]);
    fputs("</td></tr>\n", out);
  }
  fprintf(out, "<tr><th>cores</th><td>%g at %s</td></tr>\n", s->soc.cores,
          units_format(s->soc.clock_hz, UNITS_FREQ, clk, sizeof clk));
  fprintf(out, "<tr><th>disks</th><td>%d</td></tr>\n", s->ndisks);
  fprintf(out, "<tr><th>NAS links</th><td>%g x %s, MTU %g</td></tr>\n", s->net.nas_links,
          units_format(s->net.nas_link_rate_bytes_per_s, UNITS_RATE, rate, sizeof rate), s->net.mtu_bytes);
  fprintf(out, "<tr><th>clients</th><td>%d</td></tr>\n", s->nclients);
  htmlreport_config_jobs(out, s);
  fputs("<tr><th>calibration</th><td>", out);
  htmlreport_calibration(out, s);
  fputs("</td></tr>\n</table>\n", out);
}

/* Latency distribution of reads and writes from the histogram's bins: the
 * CDF, and the share of I/Os per log-spaced bin (20 per decade).  Colours
 * as the percentile bars: read 1, write 2. */
static void htmlreport_latency_dist(FILE *out, const struct run_result *r)
{
  const struct res_totals *t[2] = {&r->read, &r->write};
  const char *name[2] = {"read", "write"};
  if (r->read.nbins == 0 && r->write.nbins == 0)
    return;
  for (int kind = 0; kind < 2; kind++) {
    struct svg_chart c;
    svg_chart_init(&c, 900, 320, 120);
    c.x.log = 1;
    c.x.label = "latency (ms)";
    c.y.label = kind == 0 ? "share of I/Os at or below" : "% of I/Os per bin (20 per decade)";
    static double x[2][RES_MAX_BINS], y[2][RES_MAX_BINS];
    int n[2] = {0, 0};
    for (int d = 0; d < 2; d++) {
      double total = (double)t[d]->ios, acc = 0.0;
      for (int i = 0; i < t[d]->nbins && total > 0; i++) {
        double ms = t[d]->bin_s[i] * 1e3;
        acc += (double)t[d]->bin_count[i];
        if (kind == 0) {
          x[d][n[d]] = ms, y[d][n[d]++] = acc / total;
          continue;
        }
        double b = floor(log10(ms) * 20.0); /* a twentieth of a decade */
        double mid = pow(10.0, (b + 0.5) / 20.0);
        if (n[d] > 0 && x[d][n[d] - 1] == mid)
          y[d][n[d] - 1] += 100.0 * (double)t[d]->bin_count[i] / total;
        else
          x[d][n[d]] = mid, y[d][n[d]++] = 100.0 * (double)t[d]->bin_count[i] / total;
      }
      for (int i = 0; i < n[d]; i++) {
        svg_range_add(&c.x, x[d][i]);
        svg_range_add(&c.y, y[d][i]);
      }
    }
    svg_range_add(&c.y, 0.0);
    char title[160];
    snprintf(title, sizeof title, "Latency %s, read and write, step %s",
             kind == 0 ? "CDF" : "histogram", r->step);
    svg_chart_begin(out, &c, title);
    int row = 0;
    for (int d = 0; d < 2; d++) {
      if (n[d] == 0)
        continue;
      svg_chart_series(out, &c, x[d], y[d], n[d], d + 1, name[d]);
      svg_chart_legend(out, &c, row++, d + 1, name[d]);
    }
    svg_chart_end(out);
  }
}

/* The per-second throughput: bin i is already the rate over the part of
 * [i, i+1) s the window covers (the engine divides a partial first or last
 * second by what it covers); each point sits at the end of the time it
 * covers, and the seconds outside the window are left out. */
static int htmlreport_series(const struct run_result *r, double *x, double *y)
{
  int ns = r->nseries < RES_MAX_SERIES ? r->nseries : RES_MAX_SERIES, n = 0;
  double start = r->window_start_s, end = r->window_start_s + r->window_s;
  for (int i = 0; i < ns; i++) {
    double lo = fmax((double)i, start), hi = fmin((double)(i + 1), end);
    if (hi - lo < 1e-3)
      continue;
    x[n] = hi;
    y[n++] = r->series_MBps[i];
  }
  return n;
}

static void htmlreport_run_step(FILE *out, const struct run_result *r)
{
  fputs("<h2>Step ", out);
  svg_escape(out, r->step);
  fputs("</h2>\n<p>", out);
  if (r->failed) {
    fputs("<b>FAILED</b>: ", out);
    svg_escape(out, r->failure);
    fputs("<br>", out);
  }
  fprintf(out,
          "%d client(s) x %d outstanding; window %.4g s; %.6g I/O per s, %.6g MB/s "
          "(read %.6g, write %.6g); mean latency %.4g ms; %.4g W average.",
          r->clients, r->outstanding_per_client, r->window_s, r->all.iops, r->all.MBps,
          r->read.MBps, r->write.MBps, r->all.lat_mean_s * 1e3, r->avg_power_W);
  if (report_abandoned(r) > 0)
    fprintf(out, "<br>%llu client I/Os abandoned: outstanding at the window's end, where the run "
            "stops (not lost; not in the figures).", (unsigned long long)report_abandoned(r));
  if (r->bottleneck >= 0 && r->bottleneck < r->nres) {
    fputs("<br>Bottleneck: <b>", out);
    svg_escape(out, r->res[r->bottleneck].name);
    fputs("</b>: ", out);
    svg_escape(out, r->bottleneck_reason);
  }
  fputs("</p>\n", out);
  /* latency percentiles of all I/O (and read / write when both are present) */
  const struct res_totals *tot[3] = {&r->all, &r->read, &r->write};
  const char *const tname[3] = {"all", "read", "write"};
  for (int t = 0; t < 3; t++) {
    if (t > 0 && !(r->read.ios > 0 && r->write.ios > 0))
      break;
    if (tot[t]->ios == 0)
      continue;
    const char *labels[RES_NPCT + 1];
    double v[RES_NPCT + 1], mx = 0;
    labels[0] = "mean";
    v[0] = tot[t]->lat_mean_s * 1e3;
    for (int k = 0; k < RES_NPCT; k++) {
      labels[k + 1] = res_percentile_names[k];
      v[k + 1] = tot[t]->lat_pct_s[k] * 1e3;
    }
    for (int k = 0; k <= RES_NPCT; k++)
      mx = fmax(mx, v[k]);
    char title[160];
    snprintf(title, sizeof title, "Latency percentiles, %s I/O (ms), step %s", tname[t], r->step);
    svg_hbars(out, title, labels, v, NULL, RES_NPCT + 1, mx, "ms", t);
  }
  htmlreport_latency_dist(out, r);
  /* utilisation of the busy resources, busiest first */
  const struct res_resource *busy[RES_MAX_RESOURCES];
  int nb = 0;
  for (int i = 0; i < r->nres && i < RES_MAX_RESOURCES; i++)
    if (r->res[i].busy > 0)
      busy[nb++] = &r->res[i];
  qsort(busy, (size_t)nb, sizeof *busy, htmlreport_busy_cmp);
  if (nb > 40)
    nb = 40;
  if (nb > 0) {
    const char *labels[40], *notes[40];
    double v[40];
    char note[40][140];
    for (int i = 0; i < nb; i++) {
      labels[i] = busy[i]->name;
      v[i] = busy[i]->busy * 100.0;
      int is_b = r->bottleneck >= 0 && busy[i] == &r->res[r->bottleneck];
      snprintf(note[i], sizeof note[i], "%s%s", busy[i]->who, is_b ? " (bottleneck)" : "");
      notes[i] = note[i];
    }
    char title[160];
    snprintf(title, sizeof title, "Utilisation per resource (%% busy), step %s", r->step);
    svg_hbars(out, title, labels, v, notes, nb, 100.0, "%", 2);
  }
  /* per-second throughput */
  if (r->nseries > 0) {
    struct svg_chart c;
    svg_chart_init(&c, 900, 320, 0);
    c.x.label = "time (s)";
    c.y.label = "MB/s";
    double x[RES_MAX_SERIES], y[RES_MAX_SERIES];
    int ns = htmlreport_series(r, x, y);
    for (int i = 0; i < ns; i++) {
      svg_range_add(&c.x, x[i]);
      svg_range_add(&c.y, y[i]);
    }
    svg_range_add(&c.x, 0);
    char title[160];
    snprintf(title, sizeof title, "Throughput per second (MB/s), step %s", r->step);
    svg_chart_begin(out, &c, title);
    svg_chart_series(out, &c, x, y, ns, 0, "MB/s of all I/O");
    svg_chart_end(out);
  }
  /* RAID operations */
  if (r->nops > 0) {
    const char *labels[RES_MAX_OPS], *notes[RES_MAX_OPS];
    double v[RES_MAX_OPS], mx = 0;
    char note[RES_MAX_OPS][64];
    int no = r->nops < RES_MAX_OPS ? r->nops : RES_MAX_OPS;
    for (int i = 0; i < no; i++) {
      labels[i] = r->ops[i].kind;
      v[i] = r->ops[i].duration_s;
      mx = fmax(mx, v[i]);
      snprintf(note[i], sizeof note[i], "at %.4g W average", r->ops[i].avg_power_W);
      notes[i] = note[i];
    }
    char title[160];
    snprintf(title, sizeof title, "RAID operations: duration (s), step %s", r->step);
    svg_hbars(out, title, labels, v, notes, no, mx, "s", 4);
  }
}

int htmlreport_run(const char *dir, const struct scenario *s, const struct run_result *r, int n,
                   struct nw_err *err)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  if (!out)
    return nw_fail(err, dir, 0, 0, "html: out of memory");
  char title[256];
  snprintf(title, sizeof title, "nastwin run: %s", s && s->name[0] ? s->name
                                                     : n > 0       ? r[0].scenario
                                                                   : "?");
  htmlreport_head(out, title);
  if (n > 0)
    fprintf(out, "<p>Seed %llu, %d workload step(s).</p>\n", (unsigned long long)r[0].seed, n);
  if (s)
    htmlreport_config(out, s);
  for (int i = 0; i < n; i++)
    htmlreport_run_step(out, &r[i]);
  htmlreport_footer(out, s);
  return htmlreport_finish(dir, out, &buf, &len, err);
}
