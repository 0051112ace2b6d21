/* svg.c - inline SVG charts (see svg.h). */
#include "sim/report/svg.h"

#include <math.h>
#include <string.h>

static const char *const svg_palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                          "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
                                          "#7f7f7f", "#bcbd22"};

const char *svg_colour(int i)
{
  const int n = (int)(sizeof svg_palette / sizeof svg_palette[0]);
  return svg_palette[((i % n) + n) % n];
}

void svg_escape(FILE *out, const char *s)
{
  for (; s && *s; s++) {
    if (*s == '<')
      fputs("&lt;", out);
    else if (*s == '>')
      fputs("&gt;", out);
    else if (*s == '&')
      fputs("&amp;", out);
    else if (*s == '"')
      fputs("&quot;", out);
    else
      fputc(*s, out);
  }
}

void svg_range_add(struct svg_axis *a, double v)
{
  if (!isfinite(v) || (a->log && v <= 0))
    return;
  if (!(a->lo <= a->hi)) { /* empty: lo > hi or NaN */
    a->lo = a->hi = v;
    return;
  }
  a->lo = fmin(a->lo, v);
  a->hi = fmax(a->hi, v);
}

void svg_chart_init(struct svg_chart *c, double width_px, double height_px, double legend_px)
{
  memset(c, 0, sizeof *c);
  c->width_px = width_px;
  c->height_px = height_px;
  c->left_px = 70;
  c->top_px = 30;
  c->plot_w_px = width_px - c->left_px - 20 - legend_px;
  c->plot_h_px = height_px - c->top_px - 50;
  c->x.lo = c->y.lo = 1;
  c->x.hi = c->y.hi = 0; /* empty until svg_range_add */
}

/* Finalise an axis range: non-empty, zero-based for linear value axes,
 * whole decades for log axes. */
static void svg_axis_fix(struct svg_axis *a, int from_zero)
{
  if (a->ncat > 0) {
    a->lo = -0.5;
    a->hi = a->ncat - 0.5;
    return;
  }
  if (!(a->lo <= a->hi)) {
    a->lo = a->log ? 1 : 0;
    a->hi = a->log ? 10 : 1;
  }
  if (a->log) {
    a->lo = pow(10, floor(log10(a->lo)));
    a->hi = pow(10, ceil(log10(a->hi)));
    if (a->hi <= a->lo)
      a->hi = a->lo * 10;
    return;
  }
  if (from_zero && a->lo > 0)
    a->lo = 0;
  if (a->hi <= a->lo)
    a->hi = a->lo + (a->lo != 0 ? fabs(a->lo) : 1);
}

static double svg_axis_frac(const struct svg_axis *a, double v)
{
  if (a->log)
    return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
  return (v - a->lo) / (a->hi - a->lo);
}

double svg_chart_x(const struct svg_chart *c, double v)
{
  return c->left_px + svg_axis_frac(&c->x, v) * c->plot_w_px;
}

double svg_chart_y(const struct svg_chart *c, double v)
{
  return c->top_px + c->plot_h_px - svg_axis_frac(&c->y, v) * c->plot_h_px;
}

/* A 1-2-5 step giving about `want` intervals over [lo, hi]. */
static double svg_nice_step(double lo, double hi, int want)
{
  double raw = (hi - lo) / want;
  double mag = pow(10, floor(log10(raw)));
  double f = raw / mag;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

/* Ticks of one axis; vertical = 1 for the y axis. */
static void svg_ticks(FILE *out, const struct svg_chart *c, const struct svg_axis *a, int vertical)
{
  double x0 = c->left_px, y0 = c->top_px, w = c->plot_w_px, h = c->plot_h_px;
  double vals[64];
  const char *cats[64] = {0};
  int n = 0;
  if (a->ncat > 0) {
    int every = a->ncat > 24 ? (a->ncat + 23) / 24 : 1;
    for (int i = 0; i < a->ncat && n < 64; i += every) {
      cats[n] = a->cat[i];
      vals[n++] = i;
    }
  } else if (a->log) {
    for (double d = log10(a->lo); d <= log10(a->hi) + 1e-9 && n < 64; d += 1)
      vals[n++] = pow(10, d);
  } else {
    double st = svg_nice_step(a->lo, a->hi, vertical ? 6 : 8);
    for (double v = ceil(a->lo / st - 1e-9) * st; v <= a->hi + st * 1e-9 && n < 64; v += st)
      vals[n++] = fabs(v) < st * 1e-9 ? 0 : v;
  }
  for (int i = 0; i < n; i++) {
    char t[48];
    if (cats[i])
      t[0] = 0;
    else if (a->log)
      snprintf(t, sizeof t, "1e%g", log10(vals[i]));
    else
      snprintf(t, sizeof t, "%g", vals[i]);
    if (vertical) {
      double y = y0 + h - svg_axis_frac(a, vals[i]) * h;
      fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>", x0,
              y, x0 + w, y);
      fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">", x0 - 4,
              y + 3);
    } else {
      double x = x0 + svg_axis_frac(a, vals[i]) * w;
      fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>", x,
              y0, x, y0 + h);
      fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">", x,
              y0 + h + 14);
    }
    svg_escape(out, cats[i] ? cats[i] : t);
    fputs("</text>\n", out);
  }
}

void svg_chart_begin(FILE *out, struct svg_chart *c, const char *title)
{
  svg_axis_fix(&c->x, 0);
  svg_axis_fix(&c->y, 1);
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
          "font-family=\"sans-serif\"><title>",
          c->width_px, c->height_px);
  svg_escape(out, title);
  fputs("</title>\n<text x=\"10\" y=\"16\" font-size=\"13\" font-weight=\"bold\">", out);
  svg_escape(out, title);
  fputs("</text>\n", out);
  fprintf(out,
          "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#999\"/>\n",
          c->left_px, c->top_px, c->plot_w_px, c->plot_h_px);
  svg_ticks(out, c, &c->x, 0);
  svg_ticks(out, c, &c->y, 1);
  fprintf(out, "<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
               "text-anchor=\"middle\">",
          c->left_px + c->plot_w_px / 2, c->top_px + c->plot_h_px + 34);
  svg_escape(out, c->x.label);
  fputs("</text>\n", out);
  double ym = c->top_px + c->plot_h_px / 2;
  fprintf(out,
          "<text class=\"ylabel\" x=\"16\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
          "transform=\"rotate(-90 16 %.1f)\">",
          ym, ym);
  svg_escape(out, c->y.label);
  fputs("</text>\n", out);
}

void svg_chart_end(FILE *out)
{
  fputs("</svg>\n", out);
}

static int svg_ok(const struct svg_chart *c, double x, double y)
{
  return isfinite(x) && isfinite(y) && !(c->x.log && x <= 0) && !(c->y.log && y <= 0);
}

/* A marker of one of four shapes (circle, square, triangle, diamond) so
 * series that coincide stay apart; the open <title> is the caller's. */
static void svg_marker_open(FILE *out, int shape, double cx, double cy, double r, const char *fill)
{
  switch (shape % 4) {
  case 1:
    fprintf(out, "<rect class=\"marker\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
            cx - r, cy - r, 2 * r, 2 * r, fill);
    break;
  case 2:
    fprintf(out, "<polygon class=\"marker\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"><title>", cx,
            cy - 1.3 * r, cx - 1.2 * r, cy + r, cx + 1.2 * r, cy + r, fill);
    break;
  case 3:
    fprintf(out, "<polygon class=\"marker\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"><title>",
            cx, cy - 1.4 * r, cx + 1.4 * r, cy, cx, cy + 1.4 * r, cx - 1.4 * r, cy, fill);
    break;
  default:
    fprintf(out, "<circle class=\"marker\" cx=\"%.1f\" cy=\"%.1f\" r=\"%g\" fill=\"%s\"><title>", cx, cy, r, fill);
  }
}

static const char *const svg_marker_close[4] = {"</title></circle>\n", "</title></rect>\n",
                                                "</title></polygon>\n", "</title></polygon>\n"};

void svg_chart_series(FILE *out, const struct svg_chart *c, const double *x, const double *y,
                      int n, int colour, const char *name)
{
  int started = 0;
  /* Series i: colour i, dash pattern and marker shape cycling apart from
   * the colours, so coinciding lines stay distinguishable. */
  static const char *const dash[3] = {"", " stroke-dasharray=\"7 4\"", " stroke-dasharray=\"2 3\""};
  fprintf(out, "<path class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s d=\"",
          svg_colour(colour), dash[colour % 3]);
  for (int i = 0; i < n; i++) {
    if (!svg_ok(c, x[i], y[i]))
      continue;
    fprintf(out, "%s%.1f %.1f", started ? " L" : "M", svg_chart_x(c, x[i]), svg_chart_y(c, y[i]));
    started = 1;
  }
  fputs("\"><title>", out);
  svg_escape(out, name);
  fputs("</title></path>\n", out);
  for (int i = 0; i < n; i++) {
    if (!svg_ok(c, x[i], y[i]))
      continue;
    char tip[512];
    const char *xt = c->x.ncat > 0 && x[i] >= 0 && x[i] < c->x.ncat ? c->x.cat[(int)x[i]] : NULL;
    if (xt)
      snprintf(tip, sizeof tip, "%s: %s, %.5g", name, xt, y[i]);
    else
      snprintf(tip, sizeof tip, "%s: %.5g, %.5g", name, x[i], y[i]);
    svg_marker_open(out, colour, svg_chart_x(c, x[i]), svg_chart_y(c, y[i]), 3.5, svg_colour(colour));
    svg_escape(out, tip);
    fputs(svg_marker_close[colour % 4], out);
  }
}

void svg_chart_point(FILE *out, const struct svg_chart *c, double x, double y, double r_px,
                     int colour, double opacity, const char *tip)
{
  if (!svg_ok(c, x, y))
    return;
  fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%g\" fill=\"%s\" fill-opacity=\"%g\"><title>",
          svg_chart_x(c, x), svg_chart_y(c, y), r_px, svg_colour(colour), opacity);
  svg_escape(out, tip);
  fputs("</title></circle>\n", out);
}

void svg_chart_line(FILE *out, const struct svg_chart *c, double x0, double y0, double x1,
                    double y1)
{
  fprintf(out,
          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
          "stroke-dasharray=\"4\"/>\n",
          svg_chart_x(c, x0), svg_chart_y(c, y0), svg_chart_x(c, x1), svg_chart_y(c, y1));
}

void svg_chart_legend(FILE *out, const struct svg_chart *c, int row, int colour,
                      const char *label)
{
  double x = c->left_px + c->plot_w_px + 20, y = c->top_px + 10 + 18 * row;
  fprintf(out,
          "<rect class=\"legend\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"4\" fill=\"%s\"/>"
          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">",
          x, y - 3, svg_colour(colour), x + 18, y + 2);
  svg_escape(out, label);
  fputs("</text>\n", out);
}

void svg_hbars(FILE *out, const char *title, const char *const *labels, const double *values,
               const char *const *notes, int n, double max_value, const char *unit, int colour)
{
  const double label_w = 260, bar_w = 400, row_h = 20;
  if (!(max_value > 0))
    max_value = 1;
  size_t longest = 0; /* the value and note after the longest bar: ~6.5 px a character at 11 px */
  for (int i = 0; notes && i < n; i++)
    if (notes[i] && strlen(notes[i]) > longest)
      longest = strlen(notes[i]);
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
          "font-family=\"sans-serif\"><title>",
          label_w + bar_w + fmax(260, 80 + 6.5 * (double)longest), row_h * n + 40);
  svg_escape(out, title);
  fputs("</title>\n<text x=\"10\" y=\"16\" font-size=\"13\" font-weight=\"bold\">", out);
  svg_escape(out, title);
  fputs("</text>\n", out);
  for (int i = 0; i < n; i++) {
    double v = isfinite(values[i]) && values[i] > 0 ? values[i] : 0;
    double len = fmin(v, max_value) / max_value * bar_w;
    double y = 28 + row_h * i;
    fprintf(out, "<text x=\"%g\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">",
            label_w - 10, y + 12);
    svg_escape(out, labels[i]);
    fprintf(out,
            "</text><rect class=\"bar\" x=\"%g\" y=\"%.1f\" width=\"%.1f\" height=\"14\" "
            "fill=\"%s\"><title>",
            label_w, y, len, svg_colour(colour));
    svg_escape(out, labels[i]);
    fprintf(out, ": %.5g %s</title></rect><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%.4g ",
            values[i], unit, label_w + len + 5, y + 12, values[i]);
    svg_escape(out, unit);
    if (notes && notes[i] && notes[i][0]) {
      fputs(" ", out);
      svg_escape(out, notes[i]);
    }
    fputs("</text>\n", out);
  }
  fputs("</svg>\n", out);
}

void svg_heatmap(FILE *out, const char *title, const char *xlabel, const char *const *xcat,
                 int nx, const char *ylabel, const char *const *ycat, int ny, const double *v,
                 const char *unit)
{
  const double left = 140, top = 40;
  double cw = nx > 0 ? fmax(18, fmin(80, 720.0 / nx)) : 80;
  double ch = ny > 0 ? fmax(14, fmin(36, 480.0 / ny)) : 36;
  /* rows tall enough for the rotated y label (~6.5 px a character at 12 px) */
  if (ny > 0)
    ch = fmax(ch, fmin(80, (6.5 * (double)strlen(ylabel) + 10) / ny));
  double lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < nx * ny; i++)
    if (isfinite(v[i])) {
      lo = fmin(lo, v[i]);
      hi = fmax(hi, v[i]);
    }
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
          "font-family=\"sans-serif\"><title>",
          fmax(left + cw * nx + 40, 20 + 7.5 * (double)strlen(title)), top + ch * ny + 60);
  svg_escape(out, title);
  fputs("</title>\n<text x=\"10\" y=\"16\" font-size=\"13\" font-weight=\"bold\">", out);
  svg_escape(out, title);
  fputs("</text>\n", out);
  for (int iy = 0; iy < ny; iy++) {
    double y = top + ch * (ny - 1 - iy);
    fprintf(out, "<text x=\"%g\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">", left - 4,
            y + ch / 2 + 3);
    svg_escape(out, ycat[iy]);
    fputs("</text>\n", out);
    for (int ix = 0; ix < nx; ix++) {
      double val = v[iy * nx + ix];
      double f = isfinite(val) && hi > lo ? (val - lo) / (hi - lo) : isfinite(val) ? 1 : -1;
      char fill[16];
      if (f < 0)
        snprintf(fill, sizeof fill, "#ffffff");
      else /* white-ish to dark blue */
        snprintf(fill, sizeof fill, "#%02x%02x%02x", (int)(235 - 205 * f), (int)(243 - 153 * f),
                 (int)(255 - 75 * f));
      double x = left + cw * ix;
      fprintf(out,
              "<rect class=\"cell\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
              "fill=\"%s\" stroke=\"#fff\"><title>",
              x, y, cw, ch, fill);
      svg_escape(out, xcat[ix]);
      fputs(", ", out);
      svg_escape(out, ycat[iy]);
      fprintf(out, ": %.5g ", val);
      svg_escape(out, unit);
      fputs("</title></rect>", out);
      if (isfinite(val) && cw >= 34)
        fprintf(out,
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" text-anchor=\"middle\" "
                "fill=\"%s\">%.4g</text>",
                x + cw / 2, y + ch / 2 + 3, f > 0.55 ? "#fff" : "#000", val);
      fputc('\n', out);
    }
  }
  int every = nx > 24 ? (nx + 23) / 24 : 1;
  for (int ix = 0; ix < nx; ix += every) {
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">",
            left + cw * ix + cw / 2, top + ch * ny + 14);
    svg_escape(out, xcat[ix]);
    fputs("</text>\n", out);
  }
  fprintf(out, "<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
               "text-anchor=\"middle\">",
          left + cw * nx / 2, top + ch * ny + 34);
  svg_escape(out, xlabel);
  fputs("</text>\n", out);
  double ym = top + ch * ny / 2;
  fprintf(out,
          "<text class=\"ylabel\" x=\"14\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
          "transform=\"rotate(-90 14 %.1f)\">",
          ym, ym);
  svg_escape(out, ylabel);
  fputs("</text>\n</svg>\n", out);
}
