/* calib_cv.c - leave-one-experiment-out cross-validation of the fit
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
#include <unistd.h>

#include "base/file.h"
#include "base/units.h"
#include "sim/config/ytree.h"
#include "sim/study/calib_impl.h"

/* Leave-one-experiment-out: fit on the others from the full fit (the
 * parameters only the left-out experiment reaches go back to their
 * catalogue values), predict the left-out experiment. */
/* Marquardt damping of the one-step fold (relative to diag(J^T J)) and
 * its trust region in u (tanh units): a fold changes the data by one
 * experiment, so its optimum is near the full fit's. */
#define CALIB_CV_MU 1e-2
#define CALIB_CV_MAX_DU 1.0

static int calib_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double calib_quantile(double *x, int n, double q)
{
  if (n <= 0)
    return 0;
  qsort(x, (size_t)n, sizeof *x, calib_cmp_double);
  double pos = q * (n - 1);
  int lo = (int)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
  return x[lo] + (pos - lo) * (x[hi] - x[lo]);
}

/* One damped Gauss-Newton step from the full fit for the fold that
 * leaves out the points with test[i] set: solve
 * (J_R^T J_R + mu diag(J_R^T J_R)) du = -J_R^T f_R over the kept rows R
 * with the full fit's Jacobian and residuals (c->jac, c->res; rows
 * indexed like `rows`, columns like `cols`).  Parameters with no kept row
 * (they reach only the left-out experiment) are set by the caller; their
 * du stays 0 here.  du: ncols values.  0 or -1 (out of memory). */
static int calib_cv_step(const struct calib *c, const unsigned char *left_out, int nrows, int ncols, double *du)
{
  gsl_matrix *A = gsl_matrix_calloc((size_t)ncols, (size_t)ncols);
  gsl_vector *b = gsl_vector_calloc((size_t)ncols);
  gsl_permutation *perm = gsl_permutation_alloc((size_t)ncols);
  int rc = -1;
  if (!A || !b || !perm)
    goto done;
  for (int i = 0; i < nrows; i++) {
    if (left_out[i])
      continue;
    double fi = gsl_vector_get(c->res, (size_t)i);
    for (int k = 0; k < ncols; k++) {
      double jk = gsl_matrix_get(c->jac, (size_t)i, (size_t)k);
      *gsl_vector_ptr(b, (size_t)k) -= jk * fi;
      for (int m = 0; m < ncols; m++)
        *gsl_matrix_ptr(A, (size_t)k, (size_t)m) += jk * gsl_matrix_get(c->jac, (size_t)i, (size_t)m);
    }
  }
  for (int k = 0; k < ncols; k++) {
    double d = gsl_matrix_get(A, (size_t)k, (size_t)k);
    if (d == 0.0) { /* no kept row: pin this column */
      gsl_matrix_set(A, (size_t)k, (size_t)k, 1.0);
      gsl_vector_set(b, (size_t)k, 0.0);
    } else {
      gsl_matrix_set(A, (size_t)k, (size_t)k, d * (1.0 + CALIB_CV_MU));
    }
  }
  int sign = 0;
  gsl_vector_view x = gsl_vector_view_array(du, (size_t)ncols);
  if (gsl_linalg_LU_decomp(A, perm, &sign) != GSL_SUCCESS || gsl_linalg_LU_solve(A, perm, b, &x.vector) != GSL_SUCCESS)
    goto done;
  double big = 0;
  for (int k = 0; k < ncols; k++)
    big = fmax(big, fabs(du[k]));
  for (int k = 0; big > CALIB_CV_MAX_DU && k < ncols; k++)
    du[k] *= CALIB_CV_MAX_DU / big;
  rc = 0;
done:
  gsl_matrix_free(A);
  gsl_vector_free(b);
  gsl_permutation_free(perm);
  return rc;
}

/* What a fold leaves out: point i's experiment, or its system (--cv-by system). */
static const char *calib_cv_group(const struct calib *c, int i)
{
  return c->o->cv_by_system ? c->v.pts[i].system : c->v.pts[i].experiment;
}

/* 1 when allpts[i] is the first point of its group in allpts: the
 * point that opens the group's fold. */
static int calib_cv_opens_fold(const struct calib *c, const int *allpts, int i)
{
  for (int k = 0; k < i; k++)
    if (!strcmp(calib_cv_group(c, allpts[k]), calib_cv_group(c, allpts[i])))
      return 0;
  return 1;
}

#define CALIB_CV_BEGIN "<!-- cross-validation table, leave one %s out: written by nastwin calibrate --cv-readme; do not edit -->\n"
#define CALIB_CV_END "<!-- end of the cross-validation table, leave one %s out -->\n"

/* Replace what lies between the markers of path with the table and how
 * it was made (written whole or not at all: base/file.h).  0, or -1 with
 * err (cannot read or write it, or its markers are missing). */
static int calib_cv_readme(const struct calib *c, const char *table, struct nw_err *err)
{
  const char *path = c->o->cv_readme;
  char *text;
  size_t len;
  if (file_read_all(path, SIZE_MAX, &text, &len) != FILE_READ_OK)
    return nw_fail(err, path, 0, 0, "cannot read: %s", strerror(errno));
  const char *unit = c->o->cv_by_system ? "system" : "experiment";
  char begin[256], end[256];
  snprintf(begin, sizeof begin, CALIB_CV_BEGIN, unit);
  snprintf(end, sizeof end, CALIB_CV_END, unit);
  char *b = strstr(text, begin);
  char *e = b ? strstr(b, end) : NULL;
  struct file_atomic a;
  if (!e || file_atomic_open(&a, path, err) != 0) {
    free(text);
    return e ? -1 : nw_fail(err, path, 0, 0, "no cross-validation table markers (leave one %s out) to write between", unit);
  }
  fwrite(text, 1, (size_t)(b - text) + strlen(begin), a.f);
  fprintf(a.f, "\nFrom `%s` (%ld simulations, %.0f s wall, -j %d): leave one %s out,\n"
               "one damped Gauss-Newton step per fold from the %s fit.\n\n%s\n",
          c->o->command ? c->o->command : "nastwin calibrate --cv", c->nsims, calib_elapsed_s(c), c->o->njobs, unit,
          c->o->cv_from ? "shipped" : "full", table);
  fputs(e, a.f);
  free(text);
  return file_atomic_commit(&a, 0, err);
}

/* The intervals file of the calibration cross-validated (--cv-from FILE,
 * else the fit's --out) from the kinds' held-out errors, and the kinds'
 * intervals printed.  Only leave-one-experiment-out folds make it (the
 * intervals `run` applies); --cv-by system says so and writes none.  0,
 * or -1 with err. */
static int calib_cv_intervals(const struct calib *c, const struct calib_ci_kind kinds[VAL_NKINDS], FILE *out,
                              struct nw_err *err)
{
  const char *cal = c->o->cv_from ? c->o->cv_from : c->o->out;
  if (!cal)
    return 0;
  char path[1100];
  calib_ci_path(cal, path, sizeof path);
  if (c->o->cv_by_system) {
    fprintf(out, "\n(leave one system out: %s is not written; it holds the leave-one-experiment-out intervals)\n",
            path);
    return 0;
  }
  fprintf(out, "\n90 %% prediction intervals (split-conformal, the rank-th smallest held-out |ln(predicted/measured)|):\n"
               "  %-14s %6s %5s %10s %14s\n", "kind", "points", "rank", "q_log", "interval");
  for (int k = 0; k < VAL_NKINDS; k++) {
    const struct calib_ci_kind *x = &kinds[k];
    if (x->n == 0)
      continue;
    if (x->rank == 0)
      fprintf(out, "  %-14s %6d %5s %10s %14s\n", val_kind_names[k], x->n, "-", "-", "none (< 9 points)");
    else if (!isfinite(x->q_log))
      fprintf(out, "  %-14s %6d %5d %10s %14s\n", val_kind_names[k], x->n, x->rank, "unbounded", "none");
    else
      fprintf(out, "  %-14s %6d %5d %10.4f  x/ %.4g\n", val_kind_names[k], x->n, x->rank, x->q_log, exp(x->q_log));
  }
  if (calib_ci_write(c->o, cal, kinds, err) != 0)
    return -1;
  fprintf(out, "wrote %s\n", path);
  return 0;
}

/* Take the values of a calibrated.yaml (path) as c's start point: x, xref
 * and uref of every parameter it names; chosen[j] = 1 for those.  A
 * record of a parameter that is no longer a fit parameter is noted on out
 * (tag: what the values are for).  0, or 2 with err (bad file). */
int calib_values_from(struct calib *c, const char *path, unsigned char *chosen, const char *tag, FILE *out,
                      struct nw_err *err)
{
  struct ynode *root = ytree_load_file(path, err);
  if (!root)
    return 2;
  const struct ynode *list = ytree_get(root, "parameters");
  if (!list || list->kind != YNODE_SEQ) {
    nw_fail(err, path, root->line, root->col, "calibrated file: expected a 'parameters' list");
    ytree_free(root);
    return 2;
  }
  for (int k = 0; k < list->n; k++) {
    const struct ynode *r = list->kids[k];
    const char *en = calib_scalar(r, "entry"), *key = calib_scalar(r, "key"), *val = calib_scalar(r, "value");
    int j = en && key ? calib_find_param(c, en, key) : -1;
    char msg[256];
    double x = 0;
    if (!val || (j >= 0 && units_parse(val, c->par[j].dim, &x, msg, sizeof msg) != 0)) {
      nw_fail(err, r->file, r->line, r->col, "calibrated file: a parameter needs entry, key and a value in its unit");
      ytree_free(root);
      return 2;
    }
    if (j < 0) {
      fprintf(out, "%s: %s.%s is not a fit parameter any more: left out\n", tag, en ? en : "?", key ? key : "?");
      continue;
    }
    chosen[j] = 1;
    c->par[j].in_start = 1;
    /* its record is written back as the start has it unless this fit frees
     * it (then the fit's error and the screen's sensitivity replace these) */
    double se = NAN;
    const char *st = calib_scalar(r, "stderr"), *pts = calib_scalar(r, "points"), *sens = calib_scalar(r, "sensitivity");
    if (st && units_parse(st, c->par[j].dim, &se, msg, sizeof msg) != 0)
      se = NAN;
    c->par[j].se = se;
    c->par[j].sensitivity = sens ? atof(sens) : 0.0;
    if (c->par[j].pinned)
      c->par[j].npoints = pts ? atoi(pts) : 0;
    /* x and u agree: a value the Jacobian may move that lies beyond the
     * map's clamp (at a bound) takes the clamp's x, 0.1 % of its range
     * inside, or the step from it would move x against u at an upper
     * bound (see calib_start_inside); a held one keeps the file's */
    const struct calib_param *q = &c->par[j];
    c->uref[j] = calib_u_of_x(x, q->lo, q->hi);
    if (!q->pinned && fabs(calib_t_of_x(x, q->lo, q->hi)) > CALIB_T_MAX)
      x = calib_x_of_u(c->uref[j], q->lo, q->hi);
    c->x[j] = c->xref[j] = x;
  }
  ytree_free(root);
  return 0;
}

/* What a --cv-from run still simulates, counted before it does (the
 * cache makes these upper bounds): one evaluation at the file's values,
 * one Jacobian (one simulation per free parameter and needed task it
 * reaches: colouring shares passes, not simulations), and per fold the
 * left-out group's tasks at the fold's values; the wall time at the pace
 * of the simulations so far (the catalogue evaluation). */
static void calib_cv_plan(const struct calib *c, const int *allpts, int nall, FILE *out)
{
  const int nt = c->v.ntasks;
  unsigned char *need = malloc((size_t)(nt > 0 ? nt : 1));
  int *grp = malloc((size_t)(nall > 0 ? nall : 1) * sizeof *grp);
  if (!need || !grp) {
    free(need);
    free(grp);
    return;
  }
  long eval = calib_pts_need(c, allpts, nall, need), jac = 0, folds = 0;
  for (int j = 0; j < c->np; j++)
    for (int t = 0; c->par[j].free_ && t < nt; t++)
      jac += need[t] && c->reach[(size_t)t * (size_t)c->np + (size_t)j];
  int nfolds = 0;
  for (int i = 0; i < nall; i++) {
    if (!calib_cv_opens_fold(c, allpts, i))
      continue;
    int n = 0;
    for (int k = 0; k < nall; k++)
      if (!strcmp(calib_cv_group(c, allpts[k]), calib_cv_group(c, allpts[i])))
        grp[n++] = allpts[k];
    folds += calib_pts_need(c, grp, n, need);
    nfolds++;
  }
  long total = eval + jac + folds;
  double per_sim_s = c->nsims > 0 ? calib_elapsed_s(c) / (double)c->nsims : 0.0;
  fprintf(out, "cv-from plan: at most %ld simulations: %ld at the file's values, %ld for its Jacobian, %ld in %d "
               "folds; at %.2f s wall per simulation so far (%ld in %.0f s), about %.0f s (%.0f min) more\n",
          total, eval, jac, folds, nfolds, per_sim_s, c->nsims, calib_elapsed_s(c), per_sim_s * (double)total,
          per_sim_s * (double)total / 60.0);
  free(need);
  free(grp);
}

int calib_cv_from(struct calib *c, int *allpts, int nall, FILE *out, struct nw_err *err)
{
  const char *path = c->o->cv_from;
  unsigned char chosen[CALIB_MAX_PARAMS] = {0};
  int rc0 = calib_values_from(c, path, chosen, "cv-from", out, err);
  if (rc0 != 0)
    return rc0;
  c->nfree = 0;
  for (int j = 0; j < c->np; j++) {
    c->par[j].free_ = c->par[j].free_ && chosen[j];
    if (c->par[j].free_)
      c->freep[c->nfree++] = j;
  }
  fprintf(out, "cross-validating %s: %d of its parameters free, one Jacobian at its values\n", path, c->nfree);
  calib_cv_plan(c, allpts, nall, out);
  fflush(out);
  struct calib_fitres fr;
  if (calib_fit(c, 0, &fr) < 0 || !c->jac) {
    nw_fail(err, "calibrate", 0, 0, "the Jacobian at %s failed: %s", path, fr.stop);
    return 1;
  }
  double *xfull = malloc((size_t)c->np * sizeof *xfull), *ufull = malloc((size_t)c->np * sizeof *ufull);
  int rc = xfull && ufull ? 0 : 1;
  for (int j = 0; rc == 0 && j < c->np; j++)
    xfull[j] = c->x[j], ufull[j] = c->uref[j];
  if (rc == 0 && calib_cv(c, xfull, ufull, allpts, nall, out) != 0)
    rc = 1;
  free(xfull);
  free(ufull);
  return rc;
}

/* The working state of a cross-validation: the full fit the folds start
 * from, its Jacobian's rows and columns (the one-step folds reuse them),
 * the current fold's points, and what the folds found per review point
 * (arrays of v->npoints, indexed like v->pts). */
struct calib_cv_run {
  const double *xfull, *ufull; /* the full fit's values, in x and in u (per parameter) */
  int onestep;                 /* one damped step per fold (--cv-iter 0), else a refit */
  int nrows, ncols;            /* the full fit's fit points and free parameters ... */
  int *rows, *cols;            /* ... their indices (into v->pts, into c->par) */
  unsigned char *left_out;     /* per row: in the current fold's left-out group */
  double *du;                  /* the current one-step fold's step in u, per column */
  int *test;                   /* the current fold's left-out points */
  double *cverr, *fullerr;     /* relative error held out, and at the full fit */
  double *cvlog;               /* |ln(predicted/measured)| held out; +inf: failed */
  int *has;                    /* cverr is set: the point simulated */
  unsigned char *held;         /* a review point predicted by a fold (constraints are not) */
  double *e;                   /* scratch: one kind's errors */
};

static void calib_cv_free(struct calib_cv_run *r)
{
  free(r->cvlog);
  free(r->held);
  free(r->e);
  free(r->rows);
  free(r->cols);
  free(r->left_out);
  free(r->du);
  free(r->cverr);
  free(r->fullerr);
  free(r->has);
  free(r->test);
}

/* Allocate r's arrays for c's full fit (its nfit rows and nfree
 * columns) and nall points.  0, or -1 (out of memory; calib_cv_free
 * frees what was allocated). */
static int calib_cv_alloc(const struct calib *c, int nall, struct calib_cv_run *r)
{
  size_t np1 = (size_t)(c->v.npoints > 0 ? c->v.npoints : 1);
  int nrows = r->nrows = c->nfit, ncols = r->ncols = c->nfree;
  r->cverr = calloc(np1, sizeof *r->cverr);
  r->fullerr = calloc(np1, sizeof *r->fullerr);
  r->e = malloc(np1 * sizeof *r->e);
  r->cvlog = malloc(np1 * sizeof *r->cvlog);
  r->has = calloc(np1, sizeof *r->has);
  r->test = malloc((size_t)(nall > 0 ? nall : 1) * sizeof *r->test);
  r->held = calloc(np1, 1);
  r->rows = malloc((size_t)(nrows > 0 ? nrows : 1) * sizeof *r->rows);
  r->cols = malloc((size_t)(ncols > 0 ? ncols : 1) * sizeof *r->cols);
  r->left_out = calloc((size_t)(nrows > 0 ? nrows : 1), 1);
  r->du = calloc((size_t)(ncols > 0 ? ncols : 1), sizeof *r->du);
  return r->cverr && r->fullerr && r->e && r->cvlog && r->has && r->held && r->test && r->rows && r->cols &&
                 r->left_out && r->du
             ? 0
             : -1;
}

/* The heading of the folds' table: how a fold's values are found. */
static void calib_cv_heading(const struct calib *c, int onestep, FILE *out)
{
  if (onestep)
    fprintf(out, "\nleave-one-%s-out, one step: for each %s, one damped Gauss-Newton step from the\n"
                 "full fit over the other rows of its Jacobian (no new Jacobian), then the left-out\n"
                 "one simulated at those values; parameters reaching only it return to their catalogue values:\n",
            c->o->cv_by_system ? "system" : "experiment", c->o->cv_by_system ? "system" : "experiment");
  else
    fprintf(out, "\nleave-one-experiment-out (each fit starts from the full fit, at most %d iterations;\n"
                 "parameters reaching only the left-out experiment return to their catalogue values):\n",
            c->o->cv_iter);
  fprintf(out, "  %-40s %6s %5s %14s %14s  %s\n", "left out", "points", "free", "full-fit |err|", "CV |err|", "stop");
}

/* A one-step fold's values in c->x: one damped Gauss-Newton step from
 * the full fit over the rows not in group (calib_cv_step).  The fold
 * keeps the full fit's free set; a parameter none of the kept points
 * (c->fitpts) reaches goes back to its catalogue value.  fr->stop says
 * whether the step was solved. */
static void calib_cv_step_values(struct calib *c, struct calib_cv_run *r, const char *group, struct calib_fitres *fr)
{
  for (int i = 0; i < r->nrows; i++)
    r->left_out[i] = !strcmp(calib_cv_group(c, r->rows[i]), group);
  for (int j = 0; j < c->np; j++)
    c->x[j] = r->xfull[j];
  if (calib_cv_step(c, r->left_out, r->nrows, r->ncols, r->du) < 0) {
    snprintf(fr->stop, sizeof fr->stop, "step failed");
  } else {
    snprintf(fr->stop, sizeof fr->stop, "one step");
    for (int k = 0; k < r->ncols; k++) {
      int j = r->cols[k], kept = 0;
      for (int i = 0; i < c->nfit && !kept; i++)
        kept = calib_reaches(c, j, c->fitpts[i]);
      const struct calib_param *q = &c->par[j];
      c->x[j] = kept ? calib_x_of_u(r->ufull[j] + r->du[k], q->lo, q->hi) : q->value0;
    }
  }
  c->nfree = r->ncols;
}

/* A refit fold's values in c->x: the free set picked again for the kept
 * points (c->fitpts), then at most --cv-iter iterations from the full
 * fit's values (a parameter neither free nor pinned starts at its
 * catalogue value).  fr: how the fit stopped. */
static void calib_cv_refit_values(struct calib *c, const struct calib_cv_run *r, struct calib_fitres *fr)
{
  calib_pick_free(c);
  for (int j = 0; j < c->np; j++) {
    int keep = c->par[j].free_ || c->par[j].pinned; /* a pinned value is the start's, in every fold */
    c->x[j] = c->xref[j] = keep ? r->xfull[j] : c->par[j].value0;
    c->uref[j] = keep ? r->ufull[j] : calib_u_of_x(c->par[j].value0, c->par[j].lo, c->par[j].hi);
  }
  calib_fit(c, c->o->cv_iter, fr);
}

/* Simulate the fold's left-out points (r->test, ntest of them) at c->x,
 * record their held-out errors in r, and print the fold's row: the
 * median |err| of its points at the full fit and held out (stop: how
 * the fold's values were found). */
static void calib_cv_score_fold(struct calib *c, struct calib_cv_run *r, int ntest, const char *group,
                                const char *stop, FILE *out)
{
  const int *test = r->test;
  const double *xs[1] = {c->x};
  calib_simulate(c, 1, xs, test, ntest);
  calib_score_at(c, c->x, test, ntest);
  double *a = malloc((size_t)ntest * 2 * sizeof *a);
  int na = 0;
  for (int k = 0; k < ntest; k++) {
    const struct val_point *p = &c->v.pts[test[k]];
    r->held[test[k]] = !p->bound;
    r->cvlog[test[k]] = p->status == VAL_OK && p->predicted > 0 && isfinite(p->predicted)
                            ? fabs(log(p->predicted / p->measured))
                            : INFINITY;
    if (p->status == VAL_OK) {
      r->cverr[test[k]] = p->error;
      r->has[test[k]] = 1;
      if (a) {
        a[na] = fabs(p->error);
        a[ntest + na] = fabs(r->fullerr[test[k]]);
        na++;
      }
    }
  }
  double mcv = a ? calib_quantile(a, na, 0.5) : 0, mfull = a ? calib_quantile(a + ntest, na, 0.5) : 0;
  fprintf(out, "  %-40s %6d %5d %13.1f%% %13.1f%%  %s\n", group, ntest, c->nfree, 100 * mfull, 100 * mcv, stop);
  free(a);
}

/* The fold that leaves out group: its points in r->test, the others
 * kept in c->fitpts; its values found (one step or a refit), then its
 * left-out points scored and its row printed. */
static void calib_cv_fold(struct calib *c, struct calib_cv_run *r, const int *allpts, int nall, const char *group,
                          FILE *out)
{
  int ntest = 0;
  c->nfit = 0;
  for (int k = 0; k < nall; k++) {
    if (!strcmp(calib_cv_group(c, allpts[k]), group))
      r->test[ntest++] = allpts[k];
    else
      c->fitpts[c->nfit++] = allpts[k];
  }
  struct calib_fitres fr;
  memset(&fr, 0, sizeof fr);
  if (r->onestep)
    calib_cv_step_values(c, r, group, &fr);
  else
    calib_cv_refit_values(c, r, &fr);
  calib_cv_score_fold(c, r, ntest, group, fr.stop, out);
}

/* Per metric kind, from the folds' held-out review points: the median
 * and p90 |err| printed and as a row of the README's markdown table
 * (table, table_len bytes), and kinds[k], the split-conformal quantile
 * of their |ln(predicted/measured)| (calib_ci_quantile). */
static void calib_cv_kinds(const struct calib *c, const struct calib_cv_run *r, struct calib_ci_kind kinds[VAL_NKINDS],
                           char *table, size_t table_len, FILE *out)
{
  const struct val_set *v = &c->v;
  double *e = r->e;
  fprintf(out, "\ncross-validated |predicted/measured - 1| per metric kind:\n  %-14s %6s %10s %10s\n", "kind", "points",
          "median", "p90");
  int used = snprintf(table, table_len, "| kind | points | median CV error | p90 CV error |\n|------|-------:|-------:|-------:|\n");
  memset(kinds, 0, VAL_NKINDS * sizeof *kinds);
  for (int k = 0; k < VAL_NKINDS; k++) {
    /* the split-conformal quantile of the kind's held-out review points */
    struct calib_ci_kind *x = &kinds[k];
    for (int i = 0; i < v->npoints; i++)
      if (r->held[i] && v->pts[i].kind == (enum val_kind)k)
        e[x->n++] = r->cvlog[i];
    x->q_log = NAN;
    x->rank = calib_ci_quantile(e, x->n, &x->q_log);
    int n = 0;
    for (int i = 0; i < v->npoints; i++)
      if (r->has[i] && r->held[i] && v->pts[i].kind == (enum val_kind)k)
        e[n++] = fabs(r->cverr[i]);
    if (n == 0)
      continue;
    double med = calib_quantile(e, n, 0.5), p90 = calib_quantile(e, n, 0.9);
    fprintf(out, "  %-14s %6d %9.1f%% %9.1f%%\n", val_kind_names[k], n, 100 * med, 100 * p90);
    if (used < (int)table_len)
      used += snprintf(table + used, table_len - (size_t)used, "| %s | %d | %.1f %% | %.1f %% |\n", val_kind_names[k], n,
                       100 * med, 100 * p90);
  }
}

/* What the cross-validation writes: the table into --cv-readme's file
 * (when given), then the intervals file.  Both are tried; 0, or -1 with
 * each error printed on stderr. */
static int calib_cv_write(const struct calib *c, const char *table, const struct calib_ci_kind kinds[VAL_NKINDS],
                          FILE *out)
{
  int rc = 0;
  struct nw_err werr = {0};
  if (c->o->cv_readme && calib_cv_readme(c, table, &werr) != 0) {
    nw_err_print(&werr, stderr);
    rc = -1;
  }
  if (calib_cv_intervals(c, kinds, out, &werr) != 0) {
    nw_err_print(&werr, stderr);
    rc = -1;
  }
  return rc;
}

int calib_cv(struct calib *c, const double *xfull, const double *ufull, int *allpts, int nall, FILE *out)
{
  struct calib_cv_run r = {.xfull = xfull, .ufull = ufull, .onestep = c->o->cv_iter == 0};
  int rc = -1;
  if (calib_cv_alloc(c, nall, &r) != 0 || (r.onestep && (!c->jac || !c->res)))
    goto out;
  calib_score_at(c, xfull, allpts, nall);
  for (int i = 0; i < nall; i++)
    r.fullerr[allpts[i]] = c->v.pts[allpts[i]].error;
  memcpy(r.rows, c->fitpts, (size_t)r.nrows * sizeof *r.rows);
  memcpy(r.cols, c->freep, (size_t)r.ncols * sizeof *r.cols);
  calib_cv_heading(c, r.onestep, out);
  for (int i = 0; i < nall; i++)
    if (calib_cv_opens_fold(c, allpts, i))
      calib_cv_fold(c, &r, allpts, nall, calib_cv_group(c, allpts[i]), out);
  char table[4096];
  struct calib_ci_kind kinds[VAL_NKINDS];
  calib_cv_kinds(c, &r, kinds, table, sizeof table, out);
  rc = calib_cv_write(c, table, kinds, out);
out:
  calib_cv_free(&r);
  return rc;
}
