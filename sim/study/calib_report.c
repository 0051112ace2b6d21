/* calib_report.c - printing the fit and writing calibrated.yaml
 * (calibrate.h, calib_impl.h). */
#include <errno.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/file.h"
#include "sim/study/calib_impl.h"

/* Canonical unit text of a dimension ("" for numbers). */
const char *calib_unit(enum units_dim d)
{
  switch (d) {
  case UNITS_TIME:
    return "s";
  case UNITS_BYTES:
    return "B";
  case UNITS_RATE:
    return "B/s";
  case UNITS_FREQ:
    return "Hz";
  case UNITS_POWER:
    return "W";
  case UNITS_ENERGY:
    return "J";
  case UNITS_ROTATION:
    return "rpm";
  default:
    return "";
  }
}

/* Exact value text with its canonical unit ("1.5e-05s"). */
void calib_value_text(double x, enum units_dim d, char *buf, size_t len)
{
  snprintf(buf, len, "%.10g%s", x, calib_unit(d));
}

void calib_print_kinds(const struct val_set *v, const char *title, FILE *out)
{
  fprintf(out, "%s\n  %-14s %6s %10s %10s\n", title, "kind", "points", "median", "p90");
  for (int k = 0; k < VAL_NKINDS; k++) {
    double med, p90;
    int n = val_summary(v, (enum val_kind)k, &med, &p90);
    if (n > 0)
      fprintf(out, "  %-14s %6d %9.1f%% %9.1f%%\n", val_kind_names[k], n, 100 * med, 100 * p90);
  }
}

/* CPU seconds (user + system) of this process and its finished
 * simulations: what the fit cost whatever else the machine was doing. */
double calib_cpu_s(void)
{
  struct rusage a, b;
  if (getrusage(RUSAGE_SELF, &a) < 0 || getrusage(RUSAGE_CHILDREN, &b) < 0)
    return NAN;
  return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) +
         1e-6 * (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec);
}

/* Is p off by more than CALIB_MISSING x (or without a prediction)? */
int calib_is_missing(const struct val_point *p)
{
  return !(p->status == VAL_OK && p->predicted > 0 && isfinite(p->predicted)) ||
         fabs(p->bound ? log1p(p->error) : log(p->predicted / p->measured)) > log(CALIB_MISSING);
}

void calib_print_constraints(const struct calib *c, const double *before, FILE *out)
{
  int n = 0, held = 0;
  for (int i = 0; i < c->v.npoints; i++) {
    const struct val_point *p = &c->v.pts[i];
    if (!p->bound)
      continue;
    if (n++ == 0)
      fprintf(out, "observations' constraints (points.yaml observations):\n  %-32s %-44s %10s %10s  %s\n",
              "observation", "constraint", "before", "after", "");
    int ok = p->status == VAL_OK && (p->bound > 0 ? p->predicted >= p->measured : p->predicted <= p->measured);
    held += ok;
    char b[32] = "-";
    if (before)
      snprintf(b, sizeof b, "%.4g", before[i]);
    fprintf(out, "  %-32s %-44.44s %10s %10.4g  %s%s%s\n", p->experiment, p->metric, b, p->predicted,
            ok ? "holds" : "VIOLATED", p->kase[0] ? " " : "", p->kase);
  }
  if (n)
    fprintf(out, "  %d of %d hold\n", held, n);
}

/* Fit points still off by more than CALIB_MISSING x after the fit
 * (v->pts scored at the fitted values): no value in range explains them,
 * a mechanism is missing.  As a YAML list in the written file (yaml) or
 * as lines after the fit. */
static void calib_missing(const struct calib *c, FILE *f, int yaml)
{
  int n = 0;
  for (int i = 0; i < c->nfit; i++) {
    const struct val_point *p = &c->v.pts[c->fitpts[i]];
    if (!calib_is_missing(p))
      continue;
    if (!n++)
      fprintf(f, yaml ? "mechanism_missing: # points off by more than %gx at the fitted values\n"
                      : "mechanism missing (off by more than %gx at the fitted values; the robust loss keeps them "
                        "from dragging the fit):\n",
              CALIB_MISSING);
    char label[256];
    val_label(p, label, sizeof label);
    if (yaml)
      fprintf(f, "  - {experiment: %s, metric: %s, case: \"%s\", measured: %.6g, predicted: %.6g}\n", p->experiment,
              p->metric, label, p->measured, p->predicted);
    else
      fprintf(f, "  %s %s [%s]: measured %.4g, predicted %.4g (%+.0f %%)\n", p->experiment, p->metric, label,
              p->measured, p->predicted, 100 * (p->predicted / p->measured - 1));
  }
}

void calib_print_missing(const struct calib *c, FILE *out)
{
  calib_missing(c, out, 0);
}

int calib_write(const struct calib *c, const struct calib_fitres *fr, int nexcl, struct nw_err *err)
{
  const struct calib_opts *o = c->o;
  struct file_atomic a;
  if (file_atomic_open(&a, o->out, err) != 0)
    return -1;
  FILE *f = a.f;
  const char *data = o->data ? o->data : "validation/reviews.yaml";
  const char *points = o->points ? o->points : "validation/points.yaml";
  fprintf(f, "# calibrated.yaml - written by `nastwin calibrate`; do not edit by hand.\n"
             "# Fitted values of the catalogue's `fit:` parameters, keyed by catalogue\n"
             "# entry and key; applied with `nastwin validate --calibrated FILE` (and\n"
             "# calib_load() for other commands).  Values are in canonical units.\n"
             "version: 1\n"
             "provenance:\n");
  fprintf(f, "  date: \"%s\"\n", o->date ? o->date : "unspecified");
  fprintf(f, "  data: \"%s\"\n  data_fnv1a64: \"%016llx\"\n", o->data ? o->data : "validation/reviews.yaml",
          (unsigned long long)calib_fnv_file(o->data ? o->data : val_default_data()));
  fprintf(f, "  points: \"%s\"\n  points_fnv1a64: \"%016llx\"\n", o->points ? o->points : "validation/points.yaml",
          (unsigned long long)calib_fnv_file(o->points ? o->points : val_default_points()));
  (void)data;
  (void)points;
  if (o->source)
    fprintf(f, "  source: \"%s\"\n", o->source);
  fprintf(f, "  only: \"%s\"\n  params: \"%s\"\n", o->only ? o->only : "all", o->params ? o->params : "all");
  fprintf(f, "  residuals: %d\n  excluded_points: %d\n  free_parameters: %d\n", c->nfit, nexcl, c->nfree);
  fprintf(f, "  rescreens: %d\n  freed_by_rescreen: %d\n  pairs_restored_by_rescreen: %d\n", c->rescreens,
          c->rescreen_freed, c->rescreen_pairs);
  fprintf(f, "  prior_weight: %g\n  robust_scale: %g\n", o->prior, o->robust);
  fprintf(f, "  objective_before: %.6g\n  objective_after: %.6g\n", fr->sumsq0, fr->sumsq1);
  fprintf(f, "  sum_of_squares_before: %.6g\n  sum_of_squares_after: %.6g\n", fr->raw0, fr->raw1);
  fprintf(f, "  rms_log_error_before: %.6g\n  rms_log_error_after: %.6g\n",
          c->nfit ? sqrt(fr->raw0 / c->nfit) : 0.0, c->nfit ? sqrt(fr->raw1 / c->nfit) : 0.0);
  int nbound = 0;
  for (int j = 0; j < c->np; j++)
    nbound += c->par[j].at_bound;
  fprintf(f, "  at_bound: %d\n", nbound);
  fprintf(f, "  iterations: %d\n  max_iterations: %d\n  stop: \"%s\"\n", fr->iterations, o->max_iter, fr->stop);
  /* How it ran: the only lines that differ between -j values and machines. */
  if (o->command) {
    fputs("  command: \"", f);
    for (const char *p = o->command; *p; p++)
      fprintf(f, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
    fputs("\"\n", f);
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  fprintf(f, "  cores: %ld\n  jobs: %ld\n  wall_s: %.1f\n  cpu_s: %.1f\n", cores, o->njobs > 0 ? (long)o->njobs : cores,
          calib_elapsed_s(c), calib_cpu_s());
  calib_missing(c, f, 1);
  fprintf(f, "parameters:\n");
  for (int j = 0; j < c->np; j++) {
    const struct calib_param *q = &c->par[j];
    /* one --start named and this fit left alone (outside --params, or
     * changing no prediction here) keeps the start's value */
    if (!q->free_ && !(q->discrete && q->npoints > 0) && !q->in_start)
      continue;
    char v[64], v0[64], lo[64], hi[64], se[64], rd[64];
    calib_value_text(q->value, q->dim, v, sizeof v);
    calib_value_text(q->value0, q->dim, v0, sizeof v0);
    calib_value_text(q->lo, q->dim, lo, sizeof lo);
    calib_value_text(q->hi, q->dim, hi, sizeof hi);
    if (q->discrete)
      snprintf(se, sizeof se, "none (a count, profiled over whole values)");
    else if (isfinite(q->se))
      calib_value_text(q->se, q->dim, se, sizeof se);
    else
      snprintf(se, sizeof se, "undetermined (no degree of freedom)");
    units_format(q->value, q->dim, rd, sizeof rd);
    fprintf(f,
            "  - {entry: \"%s\", key: %s, value: \"%s\", readable: \"%s\", catalogue: \"%s\", lo: \"%s\", hi: \"%s\", "
            "stderr: \"%s\", at_bound: %s, points: %d, sensitivity: %.4g}\n",
            q->entry, q->key, v, rd, v0, lo, hi, se, q->at_bound ? "true" : "false", q->npoints, q->sensitivity);
  }
  return file_atomic_commit(&a, 0, err);
}

/* The free parameters and their reach (calibrate --list). */
void calib_print_list(const struct calib *c, FILE *out)
{
  fprintf(out, "%-48s %12s %12s %12s %7s %7s\n", "parameter", "catalogue", "lo", "hi", "tasks", "points");
  for (int j = 0; j < c->np; j++) {
    const struct calib_param *q = &c->par[j];
    char name[192], a[32], b[32], d[32];
    snprintf(name, sizeof name, "%s.%s", q->entry, q->key);
    units_format(q->value0, q->dim, a, sizeof a);
    units_format(q->lo, q->dim, b, sizeof b);
    units_format(q->hi, q->dim, d, sizeof d);
    fprintf(out, "%-48s %12s %12s %12s %7d %7d%s\n", name, a, b, d, q->ntasks, q->npoints, q->free_ ? "" : "  (not free)");
  }
}

/* The screening Jacobian's verdict and the forward selection's picks. */
void calib_print_screen(const struct calib *c, int nscreen, FILE *out)
{
  int nnone = 0;
  for (int j = 0; j < c->np; j++)
    nnone += c->par[j].no_effect;
  fprintf(out, "screening Jacobian: %d of %d parameters change no prediction and stay at their %s value "
               "(%ld simulations, %.0f s):\n",
          nnone, nscreen, c->o->start ? "--start" : "catalogue", c->nsims, calib_elapsed_s(c));
  for (int j = 0; j < c->np; j++)
    if (c->par[j].no_effect)
      fprintf(out, "  %s.%s\n", c->par[j].entry, c->par[j].key);
  if (c->o->max_free <= 0) {
    fprintf(out, "no slot cap: every parameter that changes a prediction is free\n");
    return;
  }
  fprintf(out, "forward selection (at most %d): freed, in order, with the share of the sum of squares each "
               "removes on its own axis:\n",
          c->o->max_free);
  for (int pick = 1;; pick++) {
    int j = 0;
    while (j < c->np && c->par[j].pick != pick)
      j++;
    if (j == c->np)
      break;
    fprintf(out, "  %2d %s.%s  %.1f %%\n", pick, c->par[j].entry, c->par[j].key,
            100.0 * c->par[j].gain / fmax(c->sumsq_screen, 1e-300));
  }
  fprintf(out, "not chosen (little left to explain, or collinear with those freed), kept at the catalogue value:\n");
  for (int j = 0; j < c->np; j++)
    if (c->par[j].weak)
      fprintf(out, "  %s.%s  |dr/du| %.3g\n", c->par[j].entry, c->par[j].key, c->par[j].sensitivity);
}

/* The fitted values, the fit's summary and the parameters at a bound. */
void calib_print_fit(const struct calib *c, const struct calib_fitres *fr, FILE *out)
{
  fprintf(out, "\n%-48s %12s %12s %12s %12s %12s\n", "parameter", "catalogue", "fitted", "std error", "lo", "hi");
  for (int j = 0; j < c->np; j++) {
    const struct calib_param *q = &c->par[j];
    if (!q->free_)
      continue;
    char name[192], a[32], b[32], d[32], e[32], g[32];
    snprintf(name, sizeof name, "%s.%s", q->entry, q->key);
    units_format(q->value0, q->dim, a, sizeof a);
    units_format(q->value, q->dim, b, sizeof b);
    if (isfinite(q->se))
      units_format(q->se, q->dim, d, sizeof d);
    else
      snprintf(d, sizeof d, "-");
    units_format(q->lo, q->dim, e, sizeof e);
    units_format(q->hi, q->dim, g, sizeof g);
    fprintf(out, "%-48s %12s %12s %12s %12s %12s%s\n", name, a, b, d, e, g, q->at_bound ? "  AT BOUND" : "");
  }
  fprintf(out,
          "\n%d iterations (%s); objective (robust residuals + prior) %.4g -> %.4g; sum of squares of "
          "w*log(pred/meas) %.4g -> %.4g (rms %.3g -> %.3g); %ld simulations, %.0f s\n",
          fr->iterations, fr->stop, fr->sumsq0, fr->sumsq1, fr->raw0, fr->raw1,
          c->nfit ? sqrt(fr->raw0 / c->nfit) : 0.0, c->nfit ? sqrt(fr->raw1 / c->nfit) : 0.0, c->nsims,
          calib_elapsed_s(c));
  int nb = 0;
  for (int j = 0; j < c->np; j++)
    if (c->par[j].at_bound) {
      if (!nb++)
        fprintf(out, "at bound (a wrong or missing mechanism, not a range to widen):\n");
      fprintf(out, "  %s.%s\n", c->par[j].entry, c->par[j].key);
    }
}
