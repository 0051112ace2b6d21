/* calib_count.c - counts fitted by a profile: a drive's channels and dies
 * per channel take whole values, so the model steps between them and a
 * finite-difference Jacobian sees jumps, not slopes.  After the gradient
 * fit, each count that reaches the fit points is walked over whole values
 * (geometric steps up and down while the sum of squares falls, then +-1),
 * the free parameters refitted at every value from the best point so far;
 * the best value stays.  With only random 4K reads at QD1 and QD32 this is
 * what separates the latency of a die (QD1) from how many dies the reads
 * collide on (QD32). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/calib_impl.h"

/* A fit's state: the parameter vector, its exact u <-> x pairs, the
 * standard errors and the fit summary. */
struct calib_state {
  double *x, *uref, *xref, *se;
  struct calib_fitres fr;
};

static int calib_state_alloc(struct calib_state *s, int np)
{
  size_t n = (size_t)(np > 0 ? np : 1);
  s->x = malloc(n * sizeof *s->x);
  s->uref = malloc(n * sizeof *s->uref);
  s->xref = malloc(n * sizeof *s->xref);
  s->se = malloc(n * sizeof *s->se);
  return s->x && s->uref && s->xref && s->se ? 0 : -1;
}

static void calib_state_free(struct calib_state *s)
{
  free(s->x);
  free(s->uref);
  free(s->xref);
  free(s->se);
}

static void calib_state_save(const struct calib *c, const struct calib_fitres *fr, struct calib_state *s)
{
  size_t n = (size_t)c->np * sizeof(double);
  memcpy(s->x, c->x, n);
  memcpy(s->uref, c->uref, n);
  memcpy(s->xref, c->xref, n);
  for (int j = 0; j < c->np; j++)
    s->se[j] = c->par[j].se;
  s->fr = *fr;
}

static void calib_state_load(struct calib *c, const struct calib_state *s)
{
  size_t n = (size_t)c->np * sizeof(double);
  memcpy(c->x, s->x, n);
  memcpy(c->uref, s->uref, n);
  memcpy(c->xref, s->xref, n);
  for (int j = 0; j < c->np; j++)
    c->par[j].se = s->se[j];
}

/* Refit with count j at v, from best; the result in trial.  Its sum of
 * squares (INFINITY when the fit fails). */
static double calib_count_try(struct calib *c, int j, double v, int max_iter, const struct calib_state *best,
                              struct calib_state *trial)
{
  calib_state_load(c, best);
  c->x[j] = v;
  struct calib_fitres fr;
  int rc = c->nfree > 0 ? calib_fit(c, max_iter, &fr) : 0;
  if (c->nfree == 0) { /* nothing to refit: the residuals at v */
    const double *xs[1] = {c->x};
    memset(&fr, 0, sizeof fr);
    rc = calib_simulate(c, 1, xs, c->fitpts, c->nfit);
    calib_score_at(c, c->x, c->fitpts, c->nfit);
    for (int i = 0; rc == 0 && i < c->nfit; i++) {
      const struct val_point *p = &c->v.pts[c->fitpts[i]];
      double w = c->w[c->fitpts[i]];
      double r = p->status != VAL_OK || !(p->predicted > 0) ? w * CALIB_PENALTY
                 : p->bound                                 ? w * log1p(p->error) /* a constraint's violation */
                                                            : w * log(p->predicted / p->measured);
      fr.sumsq1 += r * r;
    }
    snprintf(fr.stop, sizeof fr.stop, "no free parameter");
  }
  calib_state_save(c, &fr, trial);
  return rc == 0 && isfinite(fr.sumsq1) ? fr.sumsq1 : INFINITY;
}

/* The next whole value from v going up (dir 1) or down (-1) by geometric
 * steps (x 1.5, at least 1) or by one (geometric 0), inside [lo, hi]; v
 * itself when there is none. */
static double calib_count_step(double v, int dir, int geometric, double lo, double hi)
{
  double n = dir > 0 ? (geometric ? fmax(v + 1, round(v * 1.5)) : v + 1)
                     : (geometric ? fmin(v - 1, round(v / 1.5)) : v - 1);
  return n < lo || n > hi ? v : n;
}

/* Profile count j: returns 0 or -1 (out of memory); best holds the result. */
static int calib_count_one(struct calib *c, int j, int max_iter, struct calib_state *best, double *best_ss,
                           FILE *out)
{
  struct calib_state trial;
  if (calib_state_alloc(&trial, c->np) < 0) {
    calib_state_free(&trial);
    return -1;
  }
  const struct calib_param *q = &c->par[j];
  double tried[64];
  int ntried = 0;
  tried[ntried++] = best->x[j];
  for (int geometric = 1; geometric >= 0; geometric--)
    for (int dir = 1; dir >= -1; dir -= 2)
      for (;;) {
        double v = calib_count_step(best->x[j], dir, geometric, q->lo, q->hi);
        int seen = 0;
        for (int k = 0; k < ntried; k++)
          seen |= tried[k] == v;
        if (seen || ntried == 64)
          break;
        tried[ntried++] = v;
        double ss = calib_count_try(c, j, v, max_iter, best, &trial);
        if (!c->o->quiet)
          fprintf(stderr, "calibrate: count %s.%s = %g: sum of squares %.6g\n", q->entry, q->key, v, ss);
        if (!(ss < *best_ss))
          break;
        *best_ss = ss;
        struct calib_state t = *best;
        *best = trial;
        trial = t;
      }
  fprintf(out, "count %s.%s: %g (catalogue %g; %d values tried, sum of squares %.6g)\n", q->entry, q->key,
          best->x[j], q->value0, ntried, *best_ss);
  calib_state_free(&trial);
  return 0;
}

int calib_counts(struct calib *c, int max_iter, struct calib_fitres *fr, FILE *out)
{
  int any = 0;
  for (int j = 0; j < c->np; j++)
    any |= c->par[j].discrete && c->par[j].npoints > 0;
  if (!any)
    return 0;
  struct calib_state best;
  int rc = calib_state_alloc(&best, c->np);
  if (rc == 0) {
    calib_state_save(c, fr, &best);
    double ss = fr->sumsq1;
    fprintf(out, "\ncounts (whole values, profiled: the free parameters refitted at each):\n");
    for (int j = 0; rc == 0 && j < c->np; j++)
      if (c->par[j].discrete && c->par[j].npoints > 0)
        rc = calib_count_one(c, j, max_iter, &best, &ss, out);
    if (rc == 0) {
      /* Leave the fit at the best: refit there (its simulations are
       * cached) so the Jacobian, residuals and errors are its own. */
      calib_state_load(c, &best);
      double sumsq0 = fr->sumsq0;
      if (c->nfree > 0 && calib_fit(c, max_iter, fr) == 0)
        fr->sumsq0 = sumsq0;
      else
        *fr = best.fr, fr->sumsq0 = sumsq0;
    }
  }
  calib_state_free(&best);
  return rc;
}
