/* calib_jac.c - the fit's simulations, residuals and Jacobian (calib_impl.h).
 *
 * Simulations are cached by (task, values of the parameters that reach
 * the task), found through a hash index.  The residual vector is the fit
 * points' robust residuals followed by one prior row per free parameter.
 *
 * The Jacobian is sparse by construction: a parameter reaches only the
 * points of the scenarios that declare it (one system's SoC, one drive,
 * one protocol).  Its forward-difference column is non-zero only on those
 * rows, so parameters that reach disjoint tasks and disjoint points share
 * one perturbed vector ("colour"): a DS414slim SoC value and a DS1819+
 * drive value move in the same pass, each column is read on its own rows.
 * The simulations are exactly those of one vector per parameter (the
 * cache keys are the same), so the numbers are identical -- only the
 * scoring passes drop from one per parameter to one per colour.  After
 * the first forward-difference Jacobian of a fit, the next ones are
 * Schubert's sparse secant update from the accepted step: no simulation
 * beyond the ones the step already paid for, zeros kept where a
 * parameter does not reach. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "sim/engine/engine.h"
#include "sim/study/calib_impl.h"
#include "sim/study/val_impl.h"
#include "sim/study/runpool.h"

/* The --set list of task t at parameter vector x (parameters reaching t).
 * A declared pair the reach tests set aside keeps the value it was found
 * inert at, the start's: with --start that is not the scenario's own
 * (write_latency fitted to 363 us, the catalogue's 600 us would let the
 * die program limit bind again), so it is set; otherwise it is left out
 * as before.  A constant either way: the cache key need not hold it. */
static int calib_task_sets(const struct calib *c, int t, const double *x, struct cfg_set *sets,
                           char (*text)[2][CALIB_SET_LEN], int max)
{
  const struct scenario *s = &c->v.cfgs[c->v.tasks[t].cfg].s;
  int n = 0;
  for (int i = 0; i < s->nfits && n < max; i++) {
    char entry[96];
    const char *key;
    if (calib_entry_of_fit(s, &s->fits[i], entry, sizeof entry, &key) < 0)
      continue;
    int j = calib_find_param(c, entry, key);
    size_t tj = (size_t)t * (size_t)c->np + (size_t)j;
    if (j < 0 || (!c->reach[tj] && !(c->decl[tj] && c->xstart[j] != c->par[j].value0)))
      continue;
    snprintf(text[n][0], CALIB_SET_LEN, "%s", s->fits[i].path);
    calib_value_text(c->reach[tj] ? x[j] : c->xstart[j], c->par[j].dim, text[n][1], CALIB_SET_LEN);
    sets[n] = (struct cfg_set){.path = text[n][0], .value = text[n][1]};
    n++;
  }
  return n;
}

/* Run-pool child: reload the task's scenario with the parameters, simulate. */
static void calib_task_fn(void *ctx, int i, struct run_result *out)
{
  const struct calib_batch *b = ctx;
  const struct calib *c = b->c;
  int t = b->pend[i].task;
  struct cfg_set sets[CFG_MAX_SETS];
  char text[CFG_MAX_SETS][2][CALIB_SET_LEN];
  int n = calib_task_sets(c, t, b->pend[i].x, sets, text, CFG_MAX_SETS);
  struct scenario s;
  struct nw_err err = {0};
  memset(&s, 0, sizeof s);
  if (val_cfg_reload(&c->v, c->v.tasks[t].cfg, c->o->catalog, sets, n, &s, &err) < 0) {
    memset(out, 0, sizeof *out);
    out->failed = 1;
    snprintf(out->failure, sizeof out->failure, "calibrate: reload: %.400s", err.msg);
    cfg_free(&s);
    return;
  }
  engine_run(&s, c->v.tasks[t].step, 0, NULL, out);
  cfg_free(&s);
}

/* The resources' busy that the points of task t read (busy:PREFIX fields):
 * the highest busy under each prefix, kept under the prefix's name. */
static void calib_compact_busy(const struct calib *c, int t, const struct run_result *r, struct calib_res *o)
{
  for (int i = 0; i < c->v.npoints; i++) {
    const struct val_point *p = &c->v.pts[i];
    if (strncmp(p->field, "busy:", 5))
      continue;
    int uses = 0;
    for (int k = 0; k < p->nsteps && !uses; k++)
      uses = p->tasks[k] == t;
    const char *pre = p->field + 5;
    for (int b = 0; uses && b < o->nbusy; b++)
      uses = strcmp(o->busy[b].name, pre) != 0;
    if (!uses || o->nbusy == CALIB_MAX_BUSY)
      continue;
    struct res_resource *q = &o->busy[o->nbusy++];
    memset(q, 0, sizeof *q);
    snprintf(q->name, sizeof q->name, "%s", pre);
    q->busy = val_busy_max(r, pre);
    if (isnan(q->busy))
      o->nbusy--; /* no such resource: the point fails as it would on the full result */
  }
}

static void calib_compact(const struct calib *c, int t, const struct run_result *r, struct calib_res *o)
{
  memset(o, 0, sizeof *o);
  calib_compact_busy(c, t, r, o);
  o->failed = r->failed;
  snprintf(o->step, sizeof o->step, "%s", r->step);
  snprintf(o->failure, sizeof o->failure, "%.250s", r->failure);
  o->read = r->read;
  o->write = r->write;
  o->all = r->all;
  o->nops = r->nops > 0 ? 1 : 0;
  if (r->nops > 0)
    o->op0 = r->ops[0];
}

static void calib_expand(const struct calib_res *o, struct run_result *r)
{
  r->failed = o->failed;
  snprintf(r->step, sizeof r->step, "%s", o->step);
  snprintf(r->failure, sizeof r->failure, "%s", o->failure);
  r->read = o->read;
  r->write = o->write;
  r->all = o->all;
  r->nops = o->nops;
  r->ops[0] = o->op0;
  r->nres = o->nbusy;
  for (int b = 0; b < o->nbusy; b++)
    r->res[b] = o->busy[b];
}

/* FNV-1a of the task and the bits of the values that reach it. */
uint64_t calib_key(const struct calib *c, int t, const double *x)
{
  const unsigned char *rt = &c->reach[(size_t)t * (size_t)c->np];
  uint64_t h = 1469598103934665603ull;
  for (int b = 0; b < 4; b++)
    h = (h ^ (uint64_t)(((unsigned)t >> (8 * b)) & 0xffu)) * 1099511628211ull;
  for (int j = 0; j < c->np; j++)
    if (rt[j]) {
      uint64_t bits;
      memcpy(&bits, &x[j], sizeof bits);
      for (int b = 0; b < 8; b++)
        h = (h ^ ((bits >> (8 * b)) & 0xffu)) * 1099511628211ull;
    }
  return h;
}

static int calib_same(const struct calib *c, const struct calib_cached *e, int t, const double *x)
{
  if (e->task != t)
    return 0;
  const unsigned char *rt = &c->reach[(size_t)t * (size_t)c->np];
  for (int j = 0; j < c->np; j++)
    if (rt[j] && e->vals[j] != x[j])
      return 0;
  return 1;
}

/* The cache entry of (t, x), or NULL. */
struct calib_cached *calib_find(const struct calib *c, int t, const double *x)
{
  if (!c->hcap)
    return NULL;
  uint64_t h = calib_key(c, t, x);
  for (size_t s = (size_t)h & (c->hcap - 1);; s = (s + 1) & (c->hcap - 1)) {
    int i = c->hidx[s];
    if (i < 0)
      return NULL;
    if (c->cache[i].key == h && calib_same(c, &c->cache[i], t, x))
      return &c->cache[i];
  }
}

int calib_rehash(struct calib *c, size_t cap)
{
  int *idx = malloc(cap * sizeof *idx);
  if (!idx)
    return -1;
  for (size_t s = 0; s < cap; s++)
    idx[s] = -1;
  for (int i = 0; i < c->ncache; i++) {
    size_t s = (size_t)c->cache[i].key & (cap - 1);
    while (idx[s] >= 0)
      s = (s + 1) & (cap - 1);
    idx[s] = i;
  }
  free(c->hidx);
  c->hidx = idx;
  c->hcap = cap;
  return 0;
}

/* A new entry for (t, x), result not yet known (pending = 1); its index or -1. */
int calib_add(struct calib *c, int t, const double *x)
{
  if (c->ncache == c->capcache) {
    int cap = c->capcache ? 2 * c->capcache : 256;
    struct calib_cached *nc = realloc(c->cache, (size_t)cap * sizeof *nc);
    if (!nc)
      return -1;
    c->cache = nc;
    c->capcache = cap;
  }
  if ((size_t)(c->ncache + 1) * 2 > c->hcap && calib_rehash(c, c->hcap ? 2 * c->hcap : 1024) < 0)
    return -1;
  struct calib_cached *e = &c->cache[c->ncache];
  memset(e, 0, sizeof *e);
  e->vals = malloc((size_t)(c->np > 0 ? c->np : 1) * sizeof *e->vals);
  if (!e->vals)
    return -1;
  memcpy(e->vals, x, (size_t)c->np * sizeof *x);
  e->task = t;
  e->key = calib_key(c, t, x);
  e->pending = 1;
  size_t s = (size_t)e->key & (c->hcap - 1);
  while (c->hidx[s] >= 0)
    s = (s + 1) & (c->hcap - 1);
  c->hidx[s] = c->ncache;
  return c->ncache++;
}

/* After the reach changed: every entry's key again (its values are whole;
 * a dropped entry, task -1, keeps its key and is found no more), the
 * index rebuilt. */
int calib_rekey(struct calib *c)
{
  for (int i = 0; i < c->ncache; i++)
    if (c->cache[i].task >= 0)
      c->cache[i].key = calib_key(c, c->cache[i].task, c->cache[i].vals);
  return c->hcap ? calib_rehash(c, c->hcap) : 0;
}

/* Point p needs task t? (the tasks of the listed points) */
int calib_pts_need(const struct calib *c, const int *pts, int npts, unsigned char *need)
{
  memset(need, 0, (size_t)(c->v.ntasks > 0 ? c->v.ntasks : 1));
  int n = 0;
  for (int i = 0; i < npts; i++) {
    const struct val_point *p = &c->v.pts[pts[i]];
    for (int k = 0; k < p->nsteps; k++)
      if (!need[p->tasks[k]]) {
        need[p->tasks[k]] = 1;
        n++;
      }
  }
  return n;
}

/* Run the pending entries idx[0..n) in chunks of the run pool. */
int calib_run_pending(struct calib *c, const int *idx, int n)
{
  struct calib_pend *pend = malloc((size_t)(n > 0 ? n : 1) * sizeof *pend);
  if (!pend)
    return -1;
  for (int i = 0; i < n; i++)
    pend[i] = (struct calib_pend){.task = c->cache[idx[i]].task, .x = c->cache[idx[i]].vals};
  int rc = 0;
  for (int start = 0; start < n && rc == 0; start += CALIB_CHUNK) {
    int m = n - start < CALIB_CHUNK ? n - start : CALIB_CHUNK;
    struct run_result *res = calloc((size_t)m, sizeof *res);
    if (!res) {
      rc = -1;
      break;
    }
    struct calib_batch b = {.c = c, .pend = pend + start};
    runpool_run(m, c->o->njobs, 300.0, calib_task_fn, &b, res, c->o->quiet ? runpool_no_progress : NULL);
    for (int i = 0; i < m; i++) {
      calib_compact(c, c->cache[idx[start + i]].task, &res[i], &c->cache[idx[start + i]].r);
      c->cache[idx[start + i]].pending = 0;
    }
    free(res);
    c->nsims += m;
  }
  free(pend);
  return rc;
}

/* Make sure every task of the points is cached at each of the nvec
 * vectors: all missing simulations run as one batch.  0 or -1. */
int calib_simulate(struct calib *c, int nvec, const double *const *xs, const int *pts, int npts)
{
  unsigned char *need = malloc((size_t)(c->v.ntasks > 0 ? c->v.ntasks : 1));
  int *idx = NULL, n = 0, cap = 0, rc = 0;
  if (!need)
    return -1;
  calib_pts_need(c, pts, npts, need);
  for (int k = 0; k < nvec && rc == 0; k++)
    for (int t = 0; t < c->v.ntasks; t++) {
      if (!need[t] || calib_find(c, t, xs[k]))
        continue;
      if (n == cap) {
        cap = cap ? 2 * cap : 64;
        int *ni = realloc(idx, (size_t)cap * sizeof *ni);
        if (!ni) {
          rc = -1;
          break;
        }
        idx = ni;
      }
      int e = calib_add(c, t, xs[k]);
      if (e < 0) {
        rc = -1;
        break;
      }
      idx[n++] = e;
    }
  if (rc == 0 && n > 0 && !c->o->quiet)
    fprintf(stderr, "calibrate: %d simulations to run (%ld so far, %.0f s, %.0f s CPU)\n", n, c->nsims,
            calib_elapsed_s(c), calib_cpu_s());
  if (rc == 0)
    rc = calib_run_pending(c, idx, n);
  /* out of memory half way: what did not run is a failed result, not a hole */
  for (int i = 0; i < n; i++)
    if (c->cache[idx[i]].pending) {
      c->cache[idx[i]].pending = 0;
      c->cache[idx[i]].r.failed = 1;
      snprintf(c->cache[idx[i]].r.failure, sizeof c->cache[idx[i]].r.failure, "not simulated (out of memory)");
    }
  free(idx);
  free(need);
  return rc;
}

/* Fill v.results from the cache at x for the points' tasks and score. */
void calib_score_at(struct calib *c, const double *x, const int *pts, int npts)
{
  unsigned char *need = malloc((size_t)(c->v.ntasks > 0 ? c->v.ntasks : 1));
  if (!need)
    return;
  calib_pts_need(c, pts, npts, need);
  for (int t = 0; t < c->v.ntasks; t++) {
    const struct calib_cached *e = need[t] ? calib_find(c, t, x) : NULL;
    memset(&c->v.results[t], 0, sizeof c->v.results[t]);
    if (e && !e->pending)
      calib_expand(&e->r, &c->v.results[t]);
    else {
      c->v.results[t].failed = 1;
      snprintf(c->v.results[t].failure, sizeof c->v.results[t].failure, "not simulated");
    }
  }
  free(need);
  val_score(&c->v);
}

/* Cauchy pseudo-residual: rho(r) = s^2 log(1 + (r/s)^2) / 2 as a square.
 * Linear for |r| << s; a point a missing mechanism puts far off pulls
 * less than one at |r| = s instead of dragging every parameter along. */
double calib_robust(double r, double s)
{
  if (!(s > 0))
    return r;
  double a = s * sqrt(log1p((r / s) * (r / s)));
  return r < 0 ? -a : a;
}

/* Rows of the residual vector: the fit points, then one prior row per
 * free parameter (none when o->prior is 0). */
int calib_nrows(const struct calib *c) { return c->nfit + (c->o->prior > 0 ? c->nfree : 0); }

/* The prior row of free parameter k at x: W (u - u0), u = atanh(t) the
 * value's place on the fit's own map (calib_x_of_u) and u0 the catalogue
 * value's.  A Gaussian prior on u: near the middle of the range it is the
 * plain W t, but it grows without end towards a bound (a bound is the edge
 * of the plausible range) and its slope in u never fades.  A prior on x
 * had the slope W (1 - tanh^2 u), which vanishes at a bound as the data's
 * does there: a parameter the points hardly determine, pushed by the
 * noise of its differences onto the flat tail of tanh, had nothing to
 * bring it back and stayed at the bound (R27: 23 values, several with no
 * measurable effect on any point).  A value the data pull hard still goes
 * to its bound: that still names a missing mechanism. */
static double calib_prior_row(const struct calib *c, int k, const double *x)
{
  const struct calib_param *q = &c->par[c->freep[k]];
  double t = calib_t_of_x(x[c->freep[k]], q->lo, q->hi);
  t = fmax(-CALIB_PRIOR_T_MAX, fmin(CALIB_PRIOR_T_MAX, t)); /* |u| <= 14: x of such u is the bound in double */
  return c->o->prior * (atanh(t) - calib_u_of_x(q->value0, q->lo, q->hi));
}

/* Raw w*log(predicted/measured) of fit row i after calib_score_at (penalty when no prediction). */
static double calib_raw_row(const struct calib *c, int i)
{
  const struct val_point *p = &c->v.pts[c->fitpts[i]];
  double wi = c->w[c->fitpts[i]];
  if (p->status == VAL_OK && p->predicted > 0 && isfinite(p->predicted))
    return wi * (p->bound ? log1p(p->error) /* its violation: 0 while it holds */ : log(p->predicted / p->measured));
  return wi * CALIB_PENALTY;
}

/* Residual rows (calib_nrows) at x (after calib_simulate). */
static void calib_residuals_at(struct calib *c, const double *x, double *r)
{
  calib_score_at(c, x, c->fitpts, c->nfit);
  for (int i = 0; i < c->nfit; i++) /* a constraint is kept whole: no robust down-weighting */
    r[i] = c->v.pts[c->fitpts[i]].bound ? calib_raw_row(c, i) : calib_robust(calib_raw_row(c, i), c->o->robust);
  for (int k = c->nfit; k < calib_nrows(c); k++)
    r[k] = calib_prior_row(c, k - c->nfit, x);
}

/* Sum of squares of the raw w*log(predicted/measured) of the fit points at x (cached). */
double calib_raw_sumsq(struct calib *c, const double *x)
{
  const double *xs[1] = {x};
  if (calib_simulate(c, 1, xs, c->fitpts, c->nfit) < 0)
    return NAN;
  calib_score_at(c, x, c->fitpts, c->nfit);
  double s = 0;
  for (int i = 0; i < c->nfit; i++)
    s += calib_raw_row(c, i) * calib_raw_row(c, i);
  return s;
}

/* Full vector from the free u's. */
void calib_x_from_u(const struct calib *c, const gsl_vector *u, double *x)
{
  for (int k = 0; k < c->nfree; k++) {
    const struct calib_param *p = &c->par[c->freep[k]];
    double uk = gsl_vector_get(u, (size_t)k);
    int j = c->freep[k];
    x[j] = uk == c->uref[j] ? c->xref[j] : calib_x_of_u(uk, p->lo, p->hi);
  }
}

/* The indices of the `top` largest of key[0..n), largest first (the lower
 * index first among equal keys); returns how many (at most n). */
static int calib_top(const double *key, int n, int top, int *pick)
{
  int m = 0;
  for (; m < top && m < n; m++) {
    int best = -1;
    for (int i = 0; i < n; i++) {
      int taken = 0;
      for (int q = 0; q < m && !taken; q++)
        taken = pick[q] == i;
      if (!taken && (best < 0 || key[i] > key[best]))
        best = i;
    }
    pick[m] = best;
  }
  return m;
}

/* A trial the linear model got wrong: the sum of squares at u rose over
 * the one at the last Jacobian's point (a step the trust region will
 * reject).  Prints the fit rows whose change the Jacobian mispredicted
 * most and the values that moved most, in u: where the fit's model of
 * the simulations does not hold (a threshold, a window too short for
 * its figure, a mechanism that steps). */
static void calib_trial_report(const struct calib *c, const gsl_vector *u, const gsl_vector *f)
{
  size_t nr = (size_t)calib_nrows(c), p = (size_t)c->nfree;
  if (c->o->quiet || !c->jprev || !c->uprev || !c->fprev || c->jprev->size1 != nr || c->jprev->size2 != p ||
      c->uprev->size != p || f->size != nr || calib_sumsq(f) <= calib_sumsq(c->fprev))
    return;
  enum { TOP = 4 };
  size_t nf = (size_t)(c->nfit > 0 ? c->nfit : 1);
  double *pred = malloc(nf * sizeof *pred), *got = malloc(nf * sizeof *got), *miss = malloc(nf * sizeof *miss);
  double *du = malloc((p > 0 ? p : 1) * sizeof *du), *adu = malloc((p > 0 ? p : 1) * sizeof *adu);
  if (pred && got && miss && du && adu) {
    for (size_t k = 0; k < p; k++) {
      du[k] = gsl_vector_get(u, k) - gsl_vector_get(c->uprev, k);
      adu[k] = fabs(du[k]);
    }
    for (size_t i = 0; i < (size_t)c->nfit; i++) {
      pred[i] = 0;
      for (size_t k = 0; k < p; k++)
        pred[i] += gsl_matrix_get(c->jprev, i, k) * du[k];
      got[i] = gsl_vector_get(f, i) - gsl_vector_get(c->fprev, i);
      miss[i] = fabs(got[i] - pred[i]);
    }
    int row[TOP], par[TOP];
    int nrow = calib_top(miss, c->nfit, TOP, row), npar = calib_top(adu, (int)p, TOP, par);
    fprintf(stderr, "calibrate: trial %.6g over %.6g; rows the Jacobian mispredicted most:\n", calib_sumsq(f),
            calib_sumsq(c->fprev));
    for (int n = 0; n < nrow; n++) {
      const struct val_point *q = &c->v.pts[c->fitpts[row[n]]];
      fprintf(stderr, "  %s %s [%s]: residual change predicted %+.4f, simulated %+.4f\n", q->experiment, q->metric,
              q->kase, pred[row[n]], got[row[n]]);
    }
    fprintf(stderr, "  largest steps in u:");
    for (int n = 0; n < npar; n++)
      fprintf(stderr, " %s.%s %+.3f", c->par[c->freep[par[n]]].entry, c->par[c->freep[par[n]]].key, du[par[n]]);
    fprintf(stderr, "\n");
  }
  free(pred);
  free(got);
  free(miss);
  free(du);
  free(adu);
}

int calib_gsl_f(const gsl_vector *u, void *ctx, gsl_vector *f)
{
  struct calib *c = ctx;
  double *x = malloc((size_t)c->np * sizeof *x);
  double *r = malloc((size_t)(calib_nrows(c) > 0 ? calib_nrows(c) : 1) * sizeof *r);
  if (!x || !r) {
    free(x);
    free(r);
    return GSL_ENOMEM;
  }
  memcpy(x, c->x, (size_t)c->np * sizeof *x);
  calib_x_from_u(c, u, x);
  const double *xs[1] = {x};
  int rc = calib_simulate(c, 1, xs, c->fitpts, c->nfit);
  if (rc == 0) {
    calib_residuals_at(c, x, r);
    for (int i = 0; i < calib_nrows(c); i++)
      gsl_vector_set(f, (size_t)i, r[i]);
    calib_trial_report(c, u, f);
  }
  c->evals++;
  free(x);
  free(r);
  return rc == 0 ? GSL_SUCCESS : GSL_ENOMEM;
}

/* rows[i * nfree + k]: free parameter k reaches fit row i. */
static unsigned char *calib_row_reach(const struct calib *c)
{
  unsigned char *m = calloc((size_t)(c->nfit > 0 ? c->nfit : 1) * (size_t)(c->nfree > 0 ? c->nfree : 1), 1);
  for (int i = 0; m && i < c->nfit; i++)
    for (int k = 0; k < c->nfree; k++)
      m[(size_t)i * (size_t)c->nfree + (size_t)k] = (unsigned char)calib_reaches(c, c->freep[k], c->fitpts[i]);
  return m;
}

/* Greedy colouring of the free parameters (in order): a parameter joins
 * the first colour none of whose members shares a task or a fit point
 * with it.  colour[k]; returns the number of colours (-1 out of memory).
 * With o->jac_dense every parameter has its own colour (the reference). */
int calib_colour(const struct calib *c, const unsigned char *rows, int *colour)
{
  int nt = c->v.ntasks, ncol = 0;
  unsigned char *used_t = calloc((size_t)(nt > 0 ? nt : 1) * (size_t)(c->nfree > 0 ? c->nfree : 1), 1);
  unsigned char *used_r = calloc((size_t)(c->nfit > 0 ? c->nfit : 1) * (size_t)(c->nfree > 0 ? c->nfree : 1), 1);
  if (!used_t || !used_r) {
    free(used_t);
    free(used_r);
    return -1;
  }
  for (int k = 0; k < c->nfree; k++) {
    int j = c->freep[k], col = c->o->jac_dense ? ncol : 0;
    for (;; col++) {
      int clash = 0;
      for (int t = 0; t < nt && !clash && col < ncol; t++)
        clash = c->reach[(size_t)t * (size_t)c->np + (size_t)j] && used_t[(size_t)col * (size_t)nt + (size_t)t];
      for (int i = 0; i < c->nfit && !clash && col < ncol; i++)
        clash = rows[(size_t)i * (size_t)c->nfree + (size_t)k] && used_r[(size_t)col * (size_t)c->nfit + (size_t)i];
      if (!clash)
        break;
    }
    if (col == ncol)
      ncol++;
    colour[k] = col;
    for (int t = 0; t < nt; t++)
      if (c->reach[(size_t)t * (size_t)c->np + (size_t)j])
        used_t[(size_t)col * (size_t)nt + (size_t)t] = 1;
    for (int i = 0; i < c->nfit; i++)
      if (rows[(size_t)i * (size_t)c->nfree + (size_t)k])
        used_r[(size_t)col * (size_t)c->nfit + (size_t)i] = 1;
  }
  free(used_t);
  free(used_r);
  return ncol;
}

/* Analytic prior rows of J at u: d/du_k [W (u_k - u0_k)] = W. */
static void calib_prior_jac(const struct calib *c, gsl_matrix *J)
{
  if (!(c->o->prior > 0))
    return;
  for (int k = 0; k < c->nfree; k++)
    for (int m = 0; m < c->nfree; m++)
      gsl_matrix_set(J, (size_t)(c->nfit + k), (size_t)m, m == k ? c->o->prior : 0.0);
}

/* Forward differences at u, one perturbed vector per colour; column k read on the rows k reaches. */
static int calib_jac_fd(struct calib *c, const gsl_vector *u, gsl_matrix *J, const unsigned char *rows)
{
  int *colour = malloc((size_t)(c->nfree > 0 ? c->nfree : 1) * sizeof *colour);
  int ncol = colour ? calib_colour(c, rows, colour) : -1;
  int nv = ncol + 1, nr = calib_nrows(c), rc = GSL_ENOMEM;
  double *xs_store = ncol >= 0 ? malloc((size_t)nv * (size_t)c->np * sizeof *xs_store) : NULL;
  const double **xs = malloc((size_t)(nv > 0 ? nv : 1) * sizeof *xs);
  double *r0 = malloc((size_t)(nr > 0 ? nr : 1) * sizeof *r0);
  double *r1 = malloc((size_t)(nr > 0 ? nr : 1) * sizeof *r1);
  gsl_vector *uu = gsl_vector_alloc(u->size);
  if (!xs_store || !xs || !r0 || !r1 || !uu)
    goto done;
  for (int v = 0; v < nv; v++) {
    double *x = xs_store + (size_t)v * (size_t)c->np;
    memcpy(x, c->x, (size_t)c->np * sizeof *x);
    gsl_vector_memcpy(uu, u);
    for (int k = 0; v > 0 && k < c->nfree; k++)
      if (colour[k] == v - 1)
        gsl_vector_set(uu, (size_t)k, gsl_vector_get(u, (size_t)k) + CALIB_DU);
    calib_x_from_u(c, uu, x);
    xs[v] = x;
  }
  if (calib_simulate(c, nv, xs, c->fitpts, c->nfit) < 0)
    goto done;
  calib_residuals_at(c, xs[0], r0);
  gsl_matrix_set_zero(J);
  for (int v = 1; v < nv; v++) {
    calib_residuals_at(c, xs[v], r1);
    for (int k = 0; k < c->nfree; k++)
      if (colour[k] == v - 1)
        for (int i = 0; i < c->nfit; i++)
          if (rows[(size_t)i * (size_t)c->nfree + (size_t)k])
            gsl_matrix_set(J, (size_t)i, (size_t)k, (r1[i] - r0[i]) / CALIB_DU);
  }
  calib_prior_jac(c, J);
  rc = GSL_SUCCESS;
done:
  free(colour);
  free(xs_store);
  free(xs);
  free(r0);
  free(r1);
  gsl_vector_free(uu);
  return rc;
}

/* Schubert's sparse secant update of the last Jacobian from step s = u - u_prev,
 * y = f(u) - f_prev: row i moves along s restricted to the columns reaching it. */
static int calib_jac_secant(struct calib *c, const gsl_vector *u, gsl_matrix *J, const unsigned char *rows)
{
  size_t nr = (size_t)calib_nrows(c), p = (size_t)c->nfree;
  gsl_vector *f = gsl_vector_alloc(nr);
  if (!f)
    return GSL_ENOMEM;
  int rc = calib_gsl_f(u, c, f); /* the accepted trial point: cached */
  if (rc == GSL_SUCCESS) {
    gsl_matrix_memcpy(J, c->jprev);
    for (size_t i = 0; i < (size_t)c->nfit; i++) {
      double js = 0, ss = 0;
      for (size_t k = 0; k < p; k++) {
        double sk = gsl_vector_get(u, k) - gsl_vector_get(c->uprev, k);
        js += gsl_matrix_get(J, i, k) * sk;
        if (rows[i * p + k])
          ss += sk * sk;
      }
      if (ss == 0)
        continue;
      double g = (gsl_vector_get(f, i) - gsl_vector_get(c->fprev, i) - js) / ss;
      for (size_t k = 0; k < p; k++)
        if (rows[i * p + k])
          *gsl_matrix_ptr(J, i, k) += g * (gsl_vector_get(u, k) - gsl_vector_get(c->uprev, k));
    }
    calib_prior_jac(c, J);
    gsl_vector_memcpy(c->fprev, f);
  }
  gsl_vector_free(f);
  return rc;
}

/* The Jacobian of the fit at u: forward differences on the first call of
 * a fit (c->njac == 0) and every o->jac_every-th call, the sparse secant
 * update otherwise.  Keeps (u, f, J) for the next update. */
int calib_gsl_df(const gsl_vector *u, void *ctx, gsl_matrix *J)
{
  struct calib *c = ctx;
  size_t nr = (size_t)calib_nrows(c), p = (size_t)c->nfree;
  unsigned char *rows = calib_row_reach(c);
  if (!rows)
    return GSL_ENOMEM;
  int fd = c->njac == 0 || !c->jprev || c->jprev->size1 != nr || c->jprev->size2 != p ||
           (c->o->jac_every > 0 && c->njac % c->o->jac_every == 0);
  int rc;
  if (fd) {
    gsl_matrix_free(c->jprev);
    gsl_vector_free(c->uprev);
    gsl_vector_free(c->fprev);
    c->jprev = gsl_matrix_alloc(nr, p);
    c->uprev = gsl_vector_alloc(p);
    c->fprev = gsl_vector_alloc(nr);
    rc = c->jprev && c->uprev && c->fprev ? calib_jac_fd(c, u, J, rows) : GSL_ENOMEM;
    if (rc == GSL_SUCCESS)
      rc = calib_gsl_f(u, c, c->fprev); /* cached: the base vector of the differences */
  } else
    rc = calib_jac_secant(c, u, J, rows);
  if (rc == GSL_SUCCESS) {
    gsl_matrix_memcpy(c->jprev, J);
    gsl_vector_memcpy(c->uprev, u);
    c->njac++;
  }
  free(rows);
  return rc;
}

double calib_sumsq(const gsl_vector *f)
{
  double s = 0;
  for (size_t i = 0; i < f->size; i++)
    s += gsl_vector_get(f, i) * gsl_vector_get(f, i);
  return s;
}

/* Perturbed vectors of a forward-difference Jacobian of the current free set (-1 out of memory). */
int calib_ncolours(const struct calib *c)
{
  unsigned char *rows = calib_row_reach(c);
  int *colour = malloc((size_t)(c->nfree > 0 ? c->nfree : 1) * sizeof *colour);
  int n = rows && colour ? calib_colour(c, rows, colour) : -1;
  free(rows);
  free(colour);
  return n;
}
