/* svg.h - the one place that draws SVG charts for the HTML reports
 * (sweep, run, validate).  Every chart is a complete inline <svg> whose
 * first child is a <title>; no scripts, fonts or external resources.
 * Coordinates are in px; data values in the caller's units. */
#ifndef NASTWIN_SVG_H
#define NASTWIN_SVG_H

#include <stdio.h>

/* One axis: value range, log10 scale or linear, label, or categories
 * (ncat > 0: values are category indexes 0..ncat-1, cat[] their labels). */
struct svg_axis {
  double lo, hi;
  int log;
  const char *label;
  int ncat;
  const char *const *cat;
};

/* An x/y chart: total size and plot box in px, and the two axes. */
struct svg_chart {
  double width_px, height_px;
  double left_px, top_px, plot_w_px, plot_h_px;
  struct svg_axis x, y;
};

/* Colour of series i (a fixed palette, cycled). */
const char *svg_colour(int i);
/* XML-escape s into out. */
void svg_escape(FILE *out, const char *s);
/* Widen [lo, hi] to include v (skips NaN/inf, and v <= 0 when log). */
void svg_range_add(struct svg_axis *a, double v);
/* Default geometry: width x height px with margins for labels and a legend
 * column of legend_px on the right. */
void svg_chart_init(struct svg_chart *c, double width_px, double height_px, double legend_px);
/* Open the <svg>, its <title>, frame, grid, ticks and axis labels. */
void svg_chart_begin(FILE *out, struct svg_chart *c, const char *title);
/* Close the <svg>. */
void svg_chart_end(FILE *out);
/* Data value -> px. */
double svg_chart_x(const struct svg_chart *c, double v);
double svg_chart_y(const struct svg_chart *c, double v);
/* One series: a <path class="series"> through the finite points and a
 * marker per point with a <title> "name: x, y"; series `colour` i gets
 * dash pattern i % 3 and marker shape i % 4 (circle, square, triangle,
 * diamond), so coinciding series stay visible. */
void svg_chart_series(FILE *out, const struct svg_chart *c, const double *x, const double *y,
                      int n, int colour, const char *name);
/* One marker with a tooltip (opacity 0..1). */
void svg_chart_point(FILE *out, const struct svg_chart *c, double x, double y, double r_px,
                     int colour, double opacity, const char *tip);
/* A dashed line between two data points. */
void svg_chart_line(FILE *out, const struct svg_chart *c, double x0, double y0, double x1,
                    double y1);
/* Legend entry `row` in the right-hand column. */
void svg_chart_legend(FILE *out, const struct svg_chart *c, int row, int colour,
                      const char *label);

/* A complete horizontal bar chart: label, bar (length value / max_value),
 * value text "%.4g unit" and an optional note after it. notes may be NULL. */
void svg_hbars(FILE *out, const char *title, const char *const *labels, const double *values,
               const char *const *notes, int n, double max_value, const char *unit, int colour);

/* A complete heatmap: nx x ny cells, v[iy * nx + ix] (NaN = no data),
 * colour from light (min) to dark (max), value printed in each cell. */
void svg_heatmap(FILE *out, const char *title, const char *xlabel, const char *const *xcat,
                 int nx, const char *ylabel, const char *const *ycat, int ny, const double *v,
                 const char *unit);

#endif
