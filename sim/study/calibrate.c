/* calibrate.c - Levenberg-Marquardt fit of the `fit:` values (see calibrate.h). */
#include "sim/study/calibrate.h"

#include <errno.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "models/soc/proto.h"
#include "sim/engine/engine.h"
#include "sim/study/runpool.h"
#include "sim/study/calib_impl.h"



double calib_x_of_u(double u, double lo, double hi) { return lo + (hi - lo) * 0.5 * (1.0 + tanh(u)); }

double calib_t_of_x(double x, double lo, double hi) { return hi > lo ? 2.0 * (x - lo) / (hi - lo) - 1.0 : 0.0; }

double calib_u_of_x(double x, double lo, double hi)
{
  return atanh(fmax(-CALIB_T_MAX, fmin(CALIB_T_MAX, calib_t_of_x(x, lo, hi))));
}

double calib_dx_du(double u, double lo, double hi)
{
  double th = tanh(u);
  return (hi - lo) * 0.5 * (1.0 - th * th);
}

double calib_elapsed_s(const struct calib *c)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - c->t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - c->t0.tv_nsec);
}

int calib_entry_of_fit(const struct scenario *s, const struct cfg_fit *f, char *entry, size_t len,
                       const char **key)
{
  const char *dot = strrchr(f->path, '.');
  if (!dot)
    return -1;
  *key = dot + 1;
  char sect[128];
  snprintf(sect, sizeof sect, "%.*s", (int)(dot - f->path), f->path);
  if (!strcmp(sect, "soc"))
    snprintf(entry, len, "socs/%s", s->soc_name);
  else if (!strcmp(sect, "chassis"))
    snprintf(entry, len, "systems/%s", s->system_name);
  else if (!strcmp(sect, "disks"))
    snprintf(entry, len, "drives/%s", s->drive.name);
  else if (!strcmp(sect, "ssd_cache.drive_params"))
    snprintf(entry, len, "drives/%s", s->cache_drive.name);
  else if (!strcmp(sect, "volume") || !strcmp(sect, "page_cache")) /* the chassis' defaults (DSM's procedure, kernel) */
    snprintf(entry, len, "systems/%.40s/%.20s", s->system_name, sect);
  else if (!strcmp(sect, "clients") && s->client_os[0])
    snprintf(entry, len, "client_os/%s", s->client_os);
  else if (!strcmp(sect, "protocol")) {
    int k = (int)s->proto.kind;
    snprintf(entry, len, "protocols/%s", k >= 0 && k <= PROTO_WEBDAV ? proto_kind_names[k] : "?");
  } else
    snprintf(entry, len, "%.40s/%.50s", sect, s->name);
  return 0;
}

int calib_find_param(const struct calib *c, const char *entry, const char *key)
{
  for (int j = 0; j < c->np; j++)
    if (!strcmp(c->par[j].entry, entry) && !strcmp(c->par[j].key, key))
      return j;
  return -1;
}

/* Does the --params item q[0..n) name (entry, key): ENTRY.KEY, ENTRY or KEY? */
static int calib_item_names(const char *q, size_t n, const char *entry, const char *key)
{
  size_t ne = strlen(entry), nk = strlen(key);
  return (ne + 1 + nk == n && !strncmp(q, entry, ne) && q[ne] == '.' && !strncmp(q + ne + 1, key, nk)) ||
         (ne == n && !strncmp(q, entry, n)) || (nk == n && !strncmp(q, key, n));
}

/* Does a --params list select parameter p? */
static int calib_selected(const char *list, const struct calib_param *p)
{
  if (!list)
    return 1;
  for (const char *q = list; *q;) {
    const char *e = strchr(q, ',');
    size_t n = e ? (size_t)(e - q) : strlen(q);
    if (calib_item_names(q, n, p->entry, p->key))
      return 1;
    if (!e)
      break;
    q = e + 1;
  }
  return 0;
}

/* Every --params item names a fit value of the selected points'
 * scenarios: one that names none (a misspelt key, an entry without its
 * `socs/` folder) would leave nothing free.  0, or -1 (err). */
static int calib_params_named(const struct calib *c, struct nw_err *err)
{
  for (const char *q = c->o->params; q && *q;) {
    const char *e = strchr(q, ',');
    size_t n = e ? (size_t)(e - q) : strlen(q);
    int found = 0;
    for (int ci = 0; ci < c->v.ncfgs && !found; ci++) {
      const struct scenario *s = &c->v.cfgs[ci].s;
      for (int i = 0; i < s->nfits && !found; i++) {
        char entry[96];
        const char *key;
        found = calib_entry_of_fit(s, &s->fits[i], entry, sizeof entry, &key) == 0 && calib_item_names(q, n, entry, key);
      }
    }
    if (!found)
      return nw_fail(err, "calibrate", 0, 0,
                     "--params '%.*s': no fit value of the selected points is named so (ENTRY.KEY, ENTRY or KEY, "
                     "e.g. socs/atom-c3538.disk_request_cycles, socs/atom-c3538 or disk_request_cycles; "
                     "`nastwin calibrate --list` lists them)",
                     (int)n, q);
    if (!e)
      break;
    q = e + 1;
  }
  return 0;
}

#define CALIB_MIN_GAIN 1e-4
#define CALIB_MIN_INDEP 0.01

int calib_forward_select(const gsl_matrix *J, const gsl_vector *f, const int *skip, int max_pick, int *pick,
                         double *gain)
{
  size_t n = J->size1, p = J->size2;
  gsl_matrix *A = gsl_matrix_alloc(n, p);
  gsl_vector *r = gsl_vector_alloc(n);
  double *norm0 = malloc(p * sizeof *norm0);
  int npick = 0;
  for (size_t k = 0; k < p; k++)
    pick[k] = 0, gain[k] = 0;
  if (!A || !r || !norm0) {
    npick = -1;
    goto done;
  }
  gsl_matrix_memcpy(A, J);
  gsl_vector_memcpy(r, f);
  double ss0 = 0;
  for (size_t i = 0; i < n; i++)
    ss0 += gsl_vector_get(f, i) * gsl_vector_get(f, i);
  for (size_t k = 0; k < p; k++) {
    double aa = 0;
    for (size_t i = 0; i < n; i++)
      aa += gsl_matrix_get(J, i, k) * gsl_matrix_get(J, i, k);
    norm0[k] = sqrt(aa);
  }
  while (max_pick <= 0 || npick < max_pick) {
    double best = 0;
    size_t kb = p;
    for (size_t k = 0; k < p; k++) {
      if (pick[k] || (skip && skip[k]) || norm0[k] == 0)
        continue;
      double aa = 0, ar = 0;
      for (size_t i = 0; i < n; i++) {
        double a = gsl_matrix_get(A, i, k);
        aa += a * a;
        ar += a * gsl_vector_get(r, i);
      }
      if (sqrt(aa) < CALIB_MIN_INDEP * norm0[k])
        continue; /* collinear with the columns already chosen */
      double g = ar * ar / aa;
      if (g > best) /* ties: the lower index */
        best = g, kb = k;
    }
    if (kb == p || best < CALIB_MIN_GAIN * ss0)
      break;
    pick[kb] = ++npick;
    gain[kb] = best;
    /* project the chosen direction out of the residual and the other columns */
    double nb = 0;
    for (size_t i = 0; i < n; i++)
      nb += gsl_matrix_get(A, i, kb) * gsl_matrix_get(A, i, kb);
    nb = sqrt(nb);
    for (size_t m = 0; m <= p; m++) { /* m == p: the residual */
      if (m < p && pick[m])
        continue;
      double dot = 0;
      for (size_t i = 0; i < n; i++)
        dot += gsl_matrix_get(A, i, kb) / nb * (m < p ? gsl_matrix_get(A, i, m) : gsl_vector_get(r, i));
      for (size_t i = 0; i < n; i++) {
        double d = dot * gsl_matrix_get(A, i, kb) / nb;
        if (m < p)
          gsl_matrix_set(A, i, m, gsl_matrix_get(A, i, m) - d);
        else
          gsl_vector_set(r, i, gsl_vector_get(r, i) - d);
      }
    }
  }
done:
  free(norm0);
  gsl_vector_free(r);
  gsl_matrix_free(A);
  return npick;
}

/* Which screened parameters to free (calib_forward_select on the
 * screening Jacobian J and residuals f, at most max_free); the others are
 * marked weak and keep their catalogue value. */
static void calib_select(struct calib *c, const gsl_matrix *J, const gsl_vector *f)
{
  size_t p = (size_t)c->nfree;
  int *skip = calloc(p ? p : 1, sizeof *skip), *pick = calloc(p ? p : 1, sizeof *pick);
  double *gain = malloc(p * sizeof *gain);
  c->sumsq_screen = calib_sumsq(f);
  if (skip && pick && gain) {
    for (size_t k = 0; k < p; k++)
      skip[k] = c->par[c->freep[k]].no_effect;
    if (calib_forward_select(J, f, skip, c->o->max_free, pick, gain) < 0)
      for (size_t k = 0; k < p; k++) /* out of memory: free everything that moves */
        pick[k] = !skip[k], gain[k] = 0;
    for (size_t k = 0; k < p; k++) {
      struct calib_param *q = &c->par[c->freep[k]];
      q->pick = pick[k];
      q->gain = gain[k];
      q->weak = !q->no_effect && !pick[k];
    }
  }
  free(skip);
  free(pick);
  free(gain);
}

/* One forward-difference Jacobian at c->x; parameters whose column is
 * exactly zero (the simulations do not change at all) are marked
 * no_effect and leave the fit.  Exact, not an approximation: a zero
 * column is a zero column at every point of a deterministic simulator
 * only if the mechanism ignores the value, which is what it means here.
 * Its simulations stay cached for the fit's first Jacobian. */
static int calib_screen(struct calib *c)
{
  size_t nr = (size_t)(calib_nrows(c) > 0 ? calib_nrows(c) : 1), p = (size_t)(c->nfree > 0 ? c->nfree : 1);
  gsl_vector *u = gsl_vector_alloc(p);
  gsl_matrix *J = gsl_matrix_alloc(nr, p);
  gsl_vector *f = gsl_vector_alloc(nr);
  int rc = -1;
  c->njac = 0;
  if (u && J && f && c->nfree > 0 && c->nfit > 0) {
    for (int k = 0; k < c->nfree; k++)
      gsl_vector_set(u, (size_t)k, c->uref[c->freep[k]]);
    if (calib_gsl_df(u, c, J) == GSL_SUCCESS) {
      for (int k = 0; k < c->nfree; k++) {
        double ss = 0;
        for (int i = 0; i < c->nfit; i++)
          ss += gsl_matrix_get(J, (size_t)i, (size_t)k) * gsl_matrix_get(J, (size_t)i, (size_t)k);
        struct calib_param *q = &c->par[c->freep[k]];
        q->sensitivity = sqrt(ss);
        q->no_effect = ss == 0.0;
      }
      if (calib_gsl_f(u, c, f) != GSL_SUCCESS) /* the screening's own base point: cached */
        goto out;
      /* forward selection only under a slot cap (--max-free N); by default every parameter that moves is free */
      if (c->o->max_free > 0) {
        gsl_matrix_const_view Jd = gsl_matrix_const_submatrix(J, 0, 0, (size_t)c->nfit, (size_t)c->nfree);
        gsl_vector_const_view fd = gsl_vector_const_subvector(f, 0, (size_t)c->nfit);
        calib_select(c, &Jd.matrix, &fd.vector);
      }
      calib_pick_free(c);
      rc = 0;
    }
  }
out:
  gsl_vector_free(u);
  gsl_vector_free(f);
  gsl_matrix_free(J);
  return rc;
}

/* Fit the free parameters (c->freep) to the fit points, starting at c->x;
 * c->x gets the result, par[].se the standard errors.  0 or -1. */
int calib_fit(struct calib *c, int max_iter, struct calib_fitres *fr)
{
  size_t n = (size_t)calib_nrows(c), p = (size_t)c->nfree;
  memset(fr, 0, sizeof *fr);
  c->njac = 0;
  if (p == 0 || n < p) {
    snprintf(fr->stop, sizeof fr->stop, p == 0 ? "no free parameter" : "fewer residuals than parameters");
    return p == 0 ? 0 : -1;
  }
  gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
  fp.trs = gsl_multifit_nlinear_trs_lm;
  fp.solver = gsl_multifit_nlinear_solver_svd;
  /* With prior rows, the damping weighs every value's step in u alike
   * (Levenberg's identity scaling: u is already dimensionless, the tanh
   * map of each range).  Moré's scaling by the Jacobian's column norms let
   * a value the points barely see, whose column is its prior row's W
   * alone, take its whole way to the catalogue in one step, far past
   * where the forward differences said anything about the data: every
   * trial failed and the region shrank until the step was nothing (R31,
   * session 23).  Without a prior (a box's own fio results, every column
   * the data's) Moré's scaling stays. */
  if (c->o->prior > 0)
    fp.scale = gsl_multifit_nlinear_scale_levenberg;
  gsl_multifit_nlinear_fdf fdf = {.f = calib_gsl_f, .df = calib_gsl_df, .fvv = NULL, .n = n, .p = p, .params = c};
  gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, p);
  gsl_vector *u0 = gsl_vector_alloc(p);
  gsl_matrix *cov = gsl_matrix_alloc(p, p);
  if (!w || !u0 || !cov) {
    gsl_multifit_nlinear_free(w);
    gsl_vector_free(u0);
    gsl_matrix_free(cov);
    return -1;
  }
  for (size_t k = 0; k < p; k++)
    gsl_vector_set(u0, k, c->uref[c->freep[k]]);
  int rc = 0;
  fr->raw0 = calib_raw_sumsq(c, c->x);
  snprintf(fr->stop, sizeof fr->stop, "iteration limit");
  if (gsl_multifit_nlinear_init(u0, &fdf, w) != GSL_SUCCESS) {
    rc = -1;
    snprintf(fr->stop, sizeof fr->stop, "initial evaluation failed");
  }
  fr->sumsq0 = calib_sumsq(gsl_multifit_nlinear_residual(w));
  for (int it = 0; rc == 0 && it < max_iter; it++) {
    int st = gsl_multifit_nlinear_iterate(w);
    fr->iterations = it + 1;
    if (!c->o->quiet)
      fprintf(stderr, "calibrate: iteration %d: sum of squares %.6g (%ld simulations, %.0f s)\n", it + 1,
              calib_sumsq(gsl_multifit_nlinear_residual(w)), c->nsims, calib_elapsed_s(c));
    if (st == GSL_ENOPROG) {
      snprintf(fr->stop, sizeof fr->stop, "no further progress");
      break;
    }
    if (st != GSL_SUCCESS) {
      snprintf(fr->stop, sizeof fr->stop, "solver: %s", gsl_strerror(st));
      break;
    }
    int info = 0;
    if (gsl_multifit_nlinear_test(1e-3, 1e-6, 1e-6, &info, w) == GSL_SUCCESS) {
      snprintf(fr->stop, sizeof fr->stop, "converged (%s)", info == 1 ? "small step" : "small gradient");
      break;
    }
  }
  const gsl_vector *u = gsl_multifit_nlinear_position(w);
  fr->sumsq1 = calib_sumsq(gsl_multifit_nlinear_residual(w));
  calib_x_from_u(c, u, c->x);
  for (size_t k = 0; k < p; k++) {
    c->uref[c->freep[k]] = gsl_vector_get(u, k);
    c->xref[c->freep[k]] = c->x[c->freep[k]];
  }
  fr->raw1 = calib_raw_sumsq(c, c->x);
  /* the data rows (the prior rows are analytic): the one-step cross-validation reuses them */
  size_t nd = (size_t)c->nfit;
  gsl_matrix_free(c->jac);
  gsl_vector_free(c->res);
  c->jac = nd ? gsl_matrix_alloc(nd, p) : NULL;
  c->res = nd ? gsl_vector_alloc(nd) : NULL;
  if (c->jac && c->res) {
    gsl_matrix_const_view jd = gsl_matrix_const_submatrix(gsl_multifit_nlinear_jac(w), 0, 0, nd, p);
    gsl_vector_const_view rd = gsl_vector_const_subvector(gsl_multifit_nlinear_residual(w), 0, nd);
    gsl_matrix_memcpy(c->jac, &jd.matrix);
    gsl_vector_memcpy(c->res, &rd.vector);
  }
  gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
  /* with prior rows the covariance is the posterior's, scaled by the data's residual variance */
  double dof = c->o->prior > 0 ? (double)c->nfit : (double)n - (double)p;
  double scale = dof > 0 ? fr->sumsq1 / dof : 0.0;
  for (size_t k = 0; k < p; k++) {
    struct calib_param *q = &c->par[c->freep[k]];
    double uk = gsl_vector_get(u, k);
    q->se = dof > 0 ? fabs(calib_dx_du(uk, q->lo, q->hi)) * sqrt(fmax(0.0, gsl_matrix_get(cov, k, k)) * scale) : NAN;
  }
  gsl_multifit_nlinear_free(w);
  gsl_vector_free(u0);
  gsl_matrix_free(cov);
  return rc;
}

/* Re-screens after the fit: at most this many, each followed by a refit
 * when it changed the free set or the reach. */
#define CALIB_RESCREENS 2

/* The screen and the reach tests judge "inert" at the start: a parameter
 * whose mechanism a limit hid there (the PM810's write_rate behind the die
 * program limit) is never freed, though the fit may lift that limit.
 * After the fit, the pairs set aside are tested again at the fitted
 * values (calib_reach_retest); what moves now joins the fit, which goes on
 * from where it stopped.  fr keeps the first fit's starting sums and
 * counts every iteration.  0, or -1 (err filled). */
static int calib_rescreen_fit(struct calib *c, int max_iter, struct calib_fitres *fr, FILE *out, struct nw_err *err)
{
  unsigned char was_inert[CALIB_MAX_PARAMS];
  for (int r = 0; r < CALIB_RESCREENS && max_iter > 0; r++) {
    for (int j = 0; j < c->np; j++)
      was_inert[j] = (unsigned char)c->par[j].no_effect;
    int restored = 0, nfreed = calib_reach_retest(c, &restored, out);
    if (nfreed < 0)
      return nw_fail(err, "calibrate", 0, 0, "re-screen failed (out of memory)");
    c->rescreens++;
    c->rescreen_freed += nfreed;
    c->rescreen_pairs += restored;
    if (nfreed == 0 && restored == 0)
      break;
    calib_pick_free(c);
    struct calib_fitres more;
    if (calib_fit(c, max_iter, &more) < 0)
      return nw_fail(err, "calibrate", 0, 0, "fit after the re-screen failed: %s (%d residuals, %d parameters)",
                     more.stop, c->nfit, c->nfree);
    fprintf(out, "refit with %d free parameters: %d iterations (%s), objective %.4g -> %.4g\n", c->nfree,
            more.iterations, more.stop, more.sumsq0, more.sumsq1);
    /* a freed parameter's sensitivity: its |column| in the refit's Jacobian (the screen's was 0) */
    for (int k = 0; c->jac && k < c->nfree; k++)
      if (was_inert[c->freep[k]]) {
        gsl_vector_const_view col = gsl_matrix_const_column(c->jac, (size_t)k);
        c->par[c->freep[k]].sensitivity = gsl_blas_dnrm2(&col.vector);
      }
    more.iterations += fr->iterations;
    more.sumsq0 = fr->sumsq0;
    more.raw0 = fr->raw0;
    *fr = more;
  }
  return 0;
}

/* A parameter of the power model only: it turns busy times into watts
 * after the run (models/soc/soc.c's voltage scaling, the PSU efficiency
 * in sim/engine/run.c) and changes no timing, so it reaches only the
 * simulations of power points. */
static int calib_power_only(const struct calib_param *q)
{
  return q->dim == UNITS_POWER || !strncmp(q->key, "power_", 6) || !strcmp(q->key, "voltage_ref") ||
         !strcmp(q->key, "volts_per_ghz");
}

/* How far inside its range a --start value near a bound starts, as |t|
 * (calib_t_of_x). */
#define CALIB_START_EDGE 0.9
/* A value "at its bound": within this share of its range of either bound.
 * A --start value at a bound starts 5 % inside it (CALIB_START_EDGE), so
 * the band is that inset and 1 % more: a value the start rule moved off
 * its bound and the fit left there (or pushed back) is still at its
 * bound.  Until session 24 the band was 1 %, and a refit that stalled
 * near its start (R33) reported no value at a bound while 45 sat at the
 * inset, 5 % from one. */
#define CALIB_AT_BOUND 0.06

/* A previous fit's value at a bound was a trap for the next one.  The
 * fit moves u, x = lo + (hi - lo)(1 + tanh u)/2; a value exactly at a
 * bound has no finite u, and calib_u_of_x gave it the u of the clamp
 * (CALIB_T_MAX) while x stayed at the bound, so the Jacobian's step moved
 * an upper-bound value down while u went up: a difference of the wrong
 * sign that pushed it back (the PM810's read_rate started at its upper
 * 280 MB/s stayed there with the reviews at 262-266).  calib_values_from
 * now makes x and u agree; but at |t| = CALIB_T_MAX dx/du is 0.4 % of its
 * mid-range value and the step (CALIB_DU) still moves x by only 0.01 % of
 * the range (session 22: six of R27's values at a bound moved no point by
 * more than 2.4 % across their whole range).  A fit parameter whose start
 * is within 5 % of its range from a bound starts 5 % inside it (|t| =
 * 0.9, dx/du 19 % of mid-range: the step moves it by 0.5 % of the range);
 * when the points still want the bound, the fit takes it back there.
 * Held values (outside --params) and counts (profiled, not differenced)
 * keep the start's. */
static void calib_start_inside(struct calib *c, FILE *out)
{
  int n = 0;
  for (int j = 0; j < c->np; j++) {
    struct calib_param *q = &c->par[j];
    double t = calib_t_of_x(c->x[j], q->lo, q->hi);
    if (q->pinned || q->discrete || !q->in_start || fabs(t) <= CALIB_START_EDGE)
      continue;
    t = t > 0 ? CALIB_START_EDGE : -CALIB_START_EDGE;
    c->x[j] = c->xref[j] = q->lo + (q->hi - q->lo) * 0.5 * (1.0 + t);
    c->uref[j] = atanh(t);
    n++;
  }
  if (n > 0)
    fprintf(out, "%d start values within 5 %% of a bound start 5 %% of their range inside it (a value at a bound does "
                 "not move under the Jacobian's step)\n",
            n);
}

/* Collect the free parameters, their reach and the residual weights. */
static int calib_setup(struct calib *c, struct nw_err *err)
{
  struct val_set *v = &c->v;
  if (calib_params_named(c, err) < 0)
    return -1;
  for (int ci = 0; ci < v->ncfgs; ci++) {
    const struct scenario *s = &v->cfgs[ci].s;
    for (int i = 0; i < s->nfits; i++) {
      char entry[96];
      const char *key;
      if (calib_entry_of_fit(s, &s->fits[i], entry, sizeof entry, &key) < 0 || calib_find_param(c, entry, key) >= 0)
        continue;
      /* Counts (channels, dies) and the flash page are discrete: the model
       * steps between whole values, so finite differences see jumps, not
       * slopes.  They are not fitted by gradient; with o->counts the
       * counts are profiled (calib_counts), the page never. */
      const struct cfg_fit *ft = &s->fits[i];
      int count = ft->dim == UNITS_NUMBER && ft->value == floor(ft->value) && ft->lo == floor(ft->lo) &&
                  ft->hi == floor(ft->hi) && ft->hi - ft->lo <= 64;
      if ((count && !c->o->counts) || !strcmp(key, "page"))
        continue;
      struct calib_param q = {.discrete = count};
      snprintf(q.entry, sizeof q.entry, "%.95s", entry);
      snprintf(q.key, sizeof q.key, "%s", key);
      /* Outside --params: with --start, held at the start's value and
       * written back as the start recorded it (a partial refit of a
       * shipped calibration keeps the rest of it); otherwise left out. */
      if (!calib_selected(c->o->params, &q)) {
        if (!c->o->start)
          continue;
        q.pinned = 1;
        q.discrete = 0; /* not profiled either */
      }
      if (c->np == CALIB_MAX_PARAMS)
        return nw_fail(err, s->path, 0, 0, "more than %d free parameters; use --params", CALIB_MAX_PARAMS);
      q.dim = s->fits[i].dim;
      q.value0 = q.value = s->fits[i].value;
      q.lo = s->fits[i].lo;
      q.hi = s->fits[i].hi;
      c->par[c->np++] = q;
    }
  }
  /* Sort by entry then key: the output order does not depend on the points order. */
  for (int a = 1; a < c->np; a++)
    for (int b = a; b > 0; b--) {
      struct calib_param *l = &c->par[b - 1], *r = &c->par[b];
      int cmp = strcmp(l->entry, r->entry);
      if (cmp < 0 || (cmp == 0 && strcmp(l->key, r->key) <= 0))
        break;
      struct calib_param t = *l;
      *l = *r;
      *r = t;
    }
  c->w = calloc((size_t)(v->npoints > 0 ? v->npoints : 1), sizeof *c->w);
  c->reach = calloc((size_t)(v->ntasks > 0 ? v->ntasks : 1) * (size_t)(c->np > 0 ? c->np : 1), 1);
  c->x = malloc((size_t)(c->np > 0 ? c->np : 1) * sizeof *c->x);
  c->uref = malloc((size_t)(c->np > 0 ? c->np : 1) * sizeof *c->uref);
  c->xref = malloc((size_t)(c->np > 0 ? c->np : 1) * sizeof *c->xref);
  c->xstart = malloc((size_t)(c->np > 0 ? c->np : 1) * sizeof *c->xstart);
  c->fitpts = malloc((size_t)(v->npoints > 0 ? v->npoints : 1) * sizeof *c->fitpts);
  c->freep = malloc((size_t)(c->np > 0 ? c->np : 1) * sizeof *c->freep);
  v->results = calloc((size_t)(v->ntasks > 0 ? v->ntasks : 1), sizeof *v->results);
  if (!c->w || !c->reach || !c->x || !c->uref || !c->xref || !c->xstart || !c->fitpts || !c->freep || !v->results)
    return nw_fail(err, "calibrate", 0, 0, "out of memory");
  for (int j = 0; j < c->np; j++) {
    c->x[j] = c->xref[j] = c->xstart[j] = c->par[j].value0;
    c->uref[j] = calib_u_of_x(c->par[j].value0, c->par[j].lo, c->par[j].hi);
  }
  /* A task feeds a power point? Power parameters reach only those: the
   * power model reads busy times, it does not change them. */
  unsigned char *power = calloc((size_t)(v->ntasks > 0 ? v->ntasks : 1), 1);
  if (!power)
    return nw_fail(err, "calibrate", 0, 0, "out of memory");
  for (int i = 0; i < v->npoints; i++)
    if (v->pts[i].status == VAL_OK && v->pts[i].kind == VAL_POWER)
      for (int k = 0; k < v->pts[i].nsteps; k++)
        power[v->pts[i].tasks[k]] = 1;
  for (int t = 0; t < v->ntasks; t++) {
    const struct scenario *s = &v->cfgs[v->tasks[t].cfg].s;
    for (int i = 0; i < s->nfits; i++) {
      char entry[96];
      const char *key;
      if (calib_entry_of_fit(s, &s->fits[i], entry, sizeof entry, &key) < 0)
        continue;
      int j = calib_find_param(c, entry, key);
      /* a RAID operation without client I/O: no request reaches the protocol */
      int no_io = s->op != STACK_OP_NONE && !s->op_with_workload;
      /* DSM's fixed procedure time is part of a RAID operation's duration only */
      int op_only = !strcmp(key, "procedure_time") && s->op == STACK_OP_NONE;
      if (j >= 0 && (!calib_power_only(&c->par[j]) || power[t]) && !(no_io && !strncmp(entry, "protocols/", 10)) &&
          !op_only)
        c->reach[(size_t)t * (size_t)c->np + (size_t)j] = 1;
    }
  }
  free(power);
  c->decl = malloc((size_t)(v->ntasks > 0 ? v->ntasks : 1) * (size_t)(c->np > 0 ? c->np : 1));
  if (!c->decl)
    return nw_fail(err, "calibrate", 0, 0, "out of memory");
  memcpy(c->decl, c->reach, (size_t)v->ntasks * (size_t)c->np);
  for (int i = 0; i < v->npoints; i++) {
    const struct val_point *p = &v->pts[i];
    /* A max or stddev of latency is set by rare events over the review's
     * whole run (its length unknown for every tail point): fitted, it drags
     * the device stall parameters to whatever makes a 2 s window's extreme
     * match (session 15: read_stall_fraction to its bound 0.3, the DS1819+
     * cache-on 4K reads -81 %).  validate still reports them. */
    if (p->status == VAL_OK && !p->skewed[0] && p->measured > 0 && p->kind != VAL_LAT_TAIL)
      c->w[i] = p->bound ? p->weight : p->approx ? 1.0 / sqrt(2.0) : 1.0;
  }
  return 0;
}

/* Does parameter j reach point i? */
int calib_reaches(const struct calib *c, int j, int i)
{
  const struct val_point *p = &c->v.pts[i];
  for (int k = 0; k < p->nsteps; k++)
    if (c->reach[(size_t)p->tasks[k] * (size_t)c->np + (size_t)j])
      return 1;
  return 0;
}

/* Free = selected parameters reaching at least one fit point. */
void calib_pick_free(struct calib *c)
{
  c->nfree = 0;
  for (int j = 0; j < c->np; j++) {
    int n = 0;
    for (int i = 0; i < c->nfit; i++)
      n += calib_reaches(c, j, c->fitpts[i]);
    c->par[j].free_ = n > 0 && !c->par[j].no_effect && !c->par[j].weak && !c->par[j].discrete && !c->par[j].pinned;
    if (c->par[j].free_)
      c->freep[c->nfree++] = j;
  }
}

void calib_release(struct calib *c)
{
  for (int i = 0; i < c->ncache; i++)
    free(c->cache[i].vals);
  free(c->cache);
  free(c->hidx);
  gsl_matrix_free(c->jprev);
  gsl_vector_free(c->uprev);
  gsl_vector_free(c->fprev);
  free(c->reach);
  free(c->decl);
  free(c->w);
  free(c->fitpts);
  free(c->freep);
  free(c->x);
  free(c->uref);
  free(c->xref);
  free(c->xstart);
  gsl_matrix_free(c->jac);
  gsl_vector_free(c->res);
  val_free(&c->v);
}

/* The summary where the fit started (the catalogue, or --start's values:
 * simulated already; c->x is left there) and at the fit (xfull; NULL: out
 * of memory), the observations' constraints at both, and the points a
 * mechanism misses. */
static void calib_print_before_after(struct calib *c, const double *xfull, const int *cand, int ncand, FILE *out)
{
  struct val_set *v = &c->v;
  memcpy(c->x, c->xstart, (size_t)c->np * sizeof *c->x);
  calib_score_at(c, c->x, cand, ncand);
  calib_print_kinds(v, c->o->start ? "\nbefore (the --start values), |predicted/measured - 1|:"
                                   : "\nbefore (catalogue values), |predicted/measured - 1|:", out);
  double *before = malloc((size_t)(v->npoints > 0 ? v->npoints : 1) * sizeof *before);
  for (int i = 0; before && i < v->npoints; i++)
    before[i] = v->pts[i].predicted;
  calib_score_at(c, xfull ? xfull : c->x, cand, ncand);
  calib_print_kinds(v, "after (fitted values):", out);
  calib_print_constraints(c, before, out);
  free(before);
  calib_print_missing(c, out);
}

int calib_main(const struct calib_opts *o, FILE *out, struct nw_err *err)
{
  struct calib *c = calloc(1, sizeof *c);
  if (!c)
    return nw_fail(err, "calibrate", 0, 0, "out of memory"), 2;
  c->o = o;
  clock_gettime(CLOCK_MONOTONIC, &c->t0);
  FILE *sf = o->start ? fopen(o->start, "r") : NULL;
  if (o->start && !sf) { /* bad input before any simulation */
    nw_fail(err, o->start, 0, 0, "--start: cannot open: %s", strerror(errno));
    free(c);
    return 2;
  }
  if (sf)
    fclose(sf);
  int rc = 0;
  /* the observations' constraints join a fit of the whole data (not one restricted by --only) */
  if (val_load(o->data, o->points, o->only, o->catalog, NULL, 0, &c->v, err) < 0 ||
      (!o->only && val_load_observations(&c->v, o->points, o->catalog, err) < 0) || calib_setup(c, err) < 0) {
    calib_release(c);
    free(c);
    return 2;
  }
  struct val_set *v = &c->v;
  /* Candidate points: OK mapping, not skewed, measured > 0. */
  int *cand = malloc((size_t)(v->npoints > 0 ? v->npoints : 1) * sizeof *cand);
  int ncand = 0;
  for (int i = 0; cand && i < v->npoints; i++)
    if (c->w[i] > 0)
      cand[ncand++] = i;
  int nexcl = v->npoints - ncand;
  /* Evaluate at the catalogue values; drop points that fail or predict <= 0. */
  const double *x0s[1] = {c->x};
  if (!cand || calib_simulate(c, 1, x0s, cand, ncand) < 0) {
    free(cand);
    calib_release(c);
    free(c);
    return nw_fail(err, "calibrate", 0, 0, "out of memory"), 2;
  }
  calib_score_at(c, c->x, cand, ncand);
  double t_eval0 = calib_elapsed_s(c);
  c->nfit = 0;
  for (int k = 0; k < ncand; k++) {
    const struct val_point *p = &v->pts[cand[k]];
    if (p->status == VAL_OK && p->predicted > 0 && isfinite(p->predicted))
      c->fitpts[c->nfit++] = cand[k];
    else {
      fprintf(out, "excluded: %s %s: %s\n", p->experiment, p->metric,
              p->status == VAL_OK ? "prediction <= 0" : p->note);
      nexcl++;
    }
  }
  int nall = c->nfit;
  int *allpts = malloc((size_t)(nall > 0 ? nall : 1) * sizeof *allpts);
  if (allpts)
    memcpy(allpts, c->fitpts, (size_t)nall * sizeof *allpts);
  calib_pick_free(c);
  for (int j = 0; j < c->np; j++) {
    c->par[j].npoints = 0;
    c->par[j].ntasks = 0;
    for (int i = 0; i < c->nfit; i++)
      c->par[j].npoints += calib_reaches(c, j, c->fitpts[i]);
    for (int t = 0; t < v->ntasks; t++)
      c->par[j].ntasks += c->reach[(size_t)t * (size_t)c->np + (size_t)j];
  }
  long jac_sims = 0;
  for (int j = 0; j < c->np; j++)
    jac_sims += c->par[j].free_ ? c->par[j].ntasks : 0;
  fprintf(out, "calibrate: %d residuals (%d points excluded), %d free parameters, %d simulations per evaluation "
               "(%.1f s), at most %ld per Jacobian\n",
          c->nfit, nexcl, c->nfree, v->ntasks, t_eval0, jac_sims);
  if (o->cv_from) { /* cross-validate a shipped fit: no screen, no refit */
    rc = calib_cv_from(c, allpts, nall, out, err);
    fprintf(out, "(total %ld simulations, %.0f s)\n", c->nsims, calib_elapsed_s(c));
    goto done;
  }
  if (o->list) {
    calib_print_list(c, out);
    goto done;
  }
  if (o->start) { /* warm start: a previous fit's values (the prior still pulls towards the catalogue) */
    unsigned char *chosen = calloc((size_t)(c->np > 0 ? c->np : 1), 1);
    rc = chosen ? calib_values_from(c, o->start, chosen, "start", out, err) : 2;
    free(chosen);
    if (rc != 0)
      goto done;
    fprintf(out, "starting from the values of %s\n", o->start);
    calib_start_inside(c, out);
    memcpy(c->xstart, c->x, (size_t)c->np * sizeof *c->x);
  }
  int nscreen = c->nfree;
  if (o->reach != CALIB_REACH_DECLARED && (rc = calib_reach_refine(c, out, err)) != 0)
    goto done;
  if (calib_screen(c) < 0) {
    nw_fail(err, "calibrate", 0, 0, "screening Jacobian failed (out of memory)");
    rc = 1;
    goto done;
  }
  calib_print_screen(c, nscreen, out);
  fprintf(out, "Jacobian: %d free parameters, %d perturbed vectors (%s), then sparse secant updates%s\n", c->nfree,
          calib_ncolours(c), o->jac_dense ? "one per parameter" : "coloured: disjoint reach shares a vector",
          o->jac_every > 0 ? " between fresh ones" : "");
  struct calib_fitres fr;
  if (calib_fit(c, o->max_iter, &fr) < 0) {
    nw_fail(err, "calibrate", 0, 0, "fit failed: %s (%d residuals, %d parameters); restrict with --params",
            fr.stop, c->nfit, c->nfree);
    rc = 1;
    goto done;
  }
  if (calib_rescreen_fit(c, o->max_iter, &fr, out, err) < 0) {
    rc = 1;
    goto done;
  }
  if (calib_counts(c, o->max_iter, &fr, out) < 0) {
    nw_fail(err, "calibrate", 0, 0, "count profile failed (out of memory)");
    rc = 1;
    goto done;
  }
  double *xfull = malloc((size_t)(c->np > 0 ? c->np : 1) * sizeof *xfull);
  double *ufull = malloc((size_t)(c->np > 0 ? c->np : 1) * sizeof *ufull);
  for (int j = 0; j < c->np; j++) {
    struct calib_param *q = &c->par[j];
    q->value = c->x[j];
    q->at_bound = (q->free_ || q->discrete || q->in_start) && (q->value - q->lo < CALIB_AT_BOUND * (q->hi - q->lo) ||
                                                                q->hi - q->value < CALIB_AT_BOUND * (q->hi - q->lo));
    if (xfull)
      xfull[j] = c->x[j];
    if (ufull)
      ufull[j] = c->uref[j];
  }
  calib_print_fit(c, &fr, out);
  calib_print_before_after(c, xfull, cand, ncand, out);
  if (o->out && calib_write(c, &fr, nexcl, err) < 0)
    rc = 2;
  if (rc == 0 && o->cv && xfull && ufull && allpts) {
    struct calib_param saved[CALIB_MAX_PARAMS];
    memcpy(saved, c->par, sizeof saved);
    if (calib_cv(c, xfull, ufull, allpts, nall, out) != 0)
      rc = 1; /* said on stderr (the table or the intervals not written) */
    memcpy(c->par, saved, sizeof saved);
    fprintf(out, "(total %ld simulations, %.0f s)\n", c->nsims, calib_elapsed_s(c));
  }
  free(xfull);
  free(ufull);
done:
  free(cand);
  free(allpts);
  calib_release(c);
  free(c);
  return rc;
}
