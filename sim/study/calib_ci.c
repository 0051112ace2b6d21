/* calib_ci.c - 90 % prediction intervals of a calibrated run from the
 * calibration's parameter uncertainty (calibrate.h).
 *
 * calibrated.yaml gives each fitted value its standard error (the fit's
 * covariance diagonal; no correlations are recorded).  For every fitted
 * parameter that reaches the scenario and has a standard error, the run is
 * repeated at value - se and value + se (clamped into its fit range, and
 * halved toward the value where the model refuses the step), same seed: the central difference per standard error is that parameter's
 * sensitivity, and the linearised standard deviation of a figure is the
 * root sum of squares over the parameters; the interval is the figure
 * +- 1.645 of it (lower end >= 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/engine.h"
#include "sim/study/calibrate.h"
#include "sim/study/runpool.h"

#define CALIB_CI_Z90 1.6448536269514722 /* two-sided 90 %: the normal's 95th percentile */
#define CALIB_CI_HALVINGS 12 /* a refused step shrinks to at most 2^-12 of se */

/* One uncertain parameter of the scenario. */
struct calib_unc {
  char path[128];
  char unit[24];
  double value, se, lo, hi;
};

/* A number and its unit suffix ("0.0005s" -> 0.0005, "s"); -1 when not a number. */
static int calib_ci_num(const char *text, double *x, char *unit, size_t len)
{
  char *end;
  if (!text)
    return -1;
  *x = strtod(text, &end);
  if (end == text || !isfinite(*x))
    return -1;
  if (unit)
    snprintf(unit, len, "%s", end);
  return 0;
}

/* The parameters of the file at path that reach s with a finite se > 0. */
static int calib_ci_params(const char *path, const struct scenario *s, struct calib_unc *u, int max,
                           struct nw_err *err)
{
  struct ynode *root = ytree_load_file(path, err);
  if (!root)
    return -1;
  const struct ynode *list = ytree_get(root, "parameters");
  int n = 0;
  for (int i = 0; i < s->nfits && n < max; i++) {
    const struct ynode *e = calib_record_of_fit(list, s, i);
    if (!e)
      continue;
    struct calib_unc q = {0};
    snprintf(q.path, sizeof q.path, "%s", s->fits[i].path);
    if (calib_ci_num(calib_scalar(e, "value"), &q.value, q.unit, sizeof q.unit) == 0 &&
        calib_ci_num(calib_scalar(e, "stderr"), &q.se, NULL, 0) == 0 &&
        calib_ci_num(calib_scalar(e, "lo"), &q.lo, NULL, 0) == 0 &&
        calib_ci_num(calib_scalar(e, "hi"), &q.hi, NULL, 0) == 0 && q.se > 0 && q.hi > q.lo)
      u[n++] = q;
  }
  ytree_free(root);
  return n;
}

struct calib_ci_ctx {
  struct scenario *sc; /* 2 per parameter: down, up */
  int nsteps;
};

static void calib_ci_task(void *vctx, int task, struct run_result *out)
{
  struct calib_ci_ctx *c = vctx;
  engine_run(&c->sc[task / c->nsteps], task % c->nsteps, 0, NULL, out);
}

/* The interval of one figure: y and its (down, up) runs per parameter. */
static void calib_ci_one(double y, const double *dn, const double *up, const double *per_se, int n, double ci[2])
{
  double var = 0;
  for (int j = 0; j < n; j++) {
    if (per_se[j] <= 0) /* no valid step either side */
      continue;
    double d = (up[j] - dn[j]) / per_se[j];
    var += d * d;
  }
  double h = CALIB_CI_Z90 * sqrt(var);
  ci[0] = fmax(0.0, y - h);
  ci[1] = y + h;
}

static void calib_ci_fill(struct run_result *res, int nsteps, const struct run_result *pert, const double *per_se,
                          int n)
{
  double *dn = malloc((size_t)(n > 0 ? n : 1) * 2 * sizeof *dn), *up = dn + (n > 0 ? n : 1);
  if (!dn)
    return;
  for (int i = 0; i < nsteps; i++) {
    struct res_totals *t[3] = {&res[i].read, &res[i].write, &res[i].all};
    for (int d = 0; d < 3; d++) {
      const size_t off = (size_t)((const char *)t[d] - (const char *)&res[i]);
      for (int m = 0; m < 3; m++) {
        for (int j = 0; j < n; j++) {
          const struct res_totals *a = (const void *)((const char *)&pert[(2 * j) * nsteps + i] + off);
          const struct res_totals *b = (const void *)((const char *)&pert[(2 * j + 1) * nsteps + i] + off);
          dn[j] = m == 0 ? a->iops : m == 1 ? a->MBps : a->lat_mean_s;
          up[j] = m == 0 ? b->iops : m == 1 ? b->MBps : b->lat_mean_s;
        }
        double y = m == 0 ? t[d]->iops : m == 1 ? t[d]->MBps : t[d]->lat_mean_s;
        calib_ci_one(y, dn, up, per_se, n, m == 0 ? t[d]->iops_ci90 : m == 1 ? t[d]->MBps_ci90 : t[d]->lat_mean_ci90_s);
      }
      t[d]->has_ci = 1;
    }
  }
  free(dn);
}

int calib_ci_run(const struct calib_which *w, const char *path, const char *catalog, const struct cfg_set *sets,
                 int nsets, const char *fio, int nsteps, int njobs, struct run_result *res,
                 struct nw_err *err)
{
  if (!w->path[0])
    return 0;
  /* the fit records of the scenario as the catalogue has them (a set
   * value, the calibration's included, drops its record) */
  struct scenario raw;
  if (cfg_load(path, catalog, sets, nsets, fio, &raw, err) < 0)
    return -1;
  static struct calib_unc u[CALIB_MAX_PARAMS];
  int n = calib_ci_params(w->path, &raw, u, CALIB_MAX_PARAMS, err);
  cfg_free(&raw);
  if (n < 0)
    return -1;
  if (nsets + 1 > CFG_MAX_SETS)
    return nw_fail(err, w->path, 0, 0, "prediction intervals: more than %d overrides", CFG_MAX_SETS);
  struct calib_ci_ctx c = {.sc = calloc((size_t)(2 * n > 0 ? 2 * n : 1), sizeof *c.sc), .nsteps = nsteps};
  struct run_result *pert = calloc((size_t)(2 * n * nsteps > 0 ? 2 * n * nsteps : 1), sizeof *pert);
  double *per_se = malloc((size_t)(n > 0 ? n : 1) * sizeof *per_se);
  struct cfg_set all[CFG_MAX_SETS];
  char val[2][64];
  int rc = c.sc && pert && per_se ? 0 : nw_fail(err, w->path, 0, 0, "out of memory");
  int loaded = 0;
  for (int j = 0; rc == 0 && j < n; j++) {
    double x[2] = {fmax(u[j].lo, u[j].value - u[j].se), fmin(u[j].hi, u[j].value + u[j].se)};
    for (int k = 0; k < 2 && rc == 0; k++) {
      /* A step the model refuses (a drive's seek_full so short that its
       * seek_avg no longer fits the curve) is halved toward the fitted
       * value, which loads: the interval uses the valid part of +- se. */
      for (int tries = 0;; tries++) {
        memcpy(all, sets, (size_t)nsets * sizeof *all);
        snprintf(val[k], sizeof val[k], "%.10g%s", x[k], u[j].unit);
        all[nsets] = (struct cfg_set){.path = u[j].path, .value = val[k]};
        rc = calib_cfg_load(w, path, catalog, all, nsets + 1, fio, &c.sc[2 * j + k], err);
        if (rc == 0 || tries == CALIB_CI_HALVINGS)
          break;
        memset(err, 0, sizeof *err);
        x[k] = u[j].value + 0.5 * (x[k] - u[j].value);
      }
      loaded += rc == 0;
    }
    per_se[j] = (x[1] - x[0]) / u[j].se;
  }
  if (rc == 0 && n > 0 && runpool_run(2 * n * nsteps, njobs, 0.0, calib_ci_task, &c, pert, NULL) != 0)
    rc = nw_fail(err, w->path, 0, 0, "prediction intervals: a perturbed simulation failed");
  if (rc == 0)
    calib_ci_fill(res, nsteps, pert, per_se, n);
  for (int j = 0; j < loaded; j++)
    cfg_free(&c.sc[j]);
  free(c.sc);
  free(pert);
  free(per_se);
  return rc;
}
