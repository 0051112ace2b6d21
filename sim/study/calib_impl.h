/* calib_impl.h - the fit's state, shared by calibrate.c (setup,
 * simulations, screening, the fit, calib_main), calib_report.c (printing,
 * writing calibrated.yaml) and calib_cv.c (cross-validation).  Private to
 * sim/study/calib*.c. */
#ifndef NASTWIN_CALIB_IMPL_H
#define NASTWIN_CALIB_IMPL_H

#include <time.h>

#include "sim/study/calibrate.h"

/* Forward-difference step in u (at mid-range: 2.5 % of the range). */
#define CALIB_DU 0.05
/* Residual of a point whose prediction failed or is <= 0 at a trial point
 * (weight times this): large, so the trust region rejects the step. */
#define CALIB_PENALTY 10.0
/* Simulations per run-pool call (bounds the result buffer). */
#define CALIB_CHUNK 256
#define CALIB_SET_LEN 160

/* The part of a run result the points read. */
struct calib_res {
  int failed;
  char step[64];
  char failure[256];
  struct res_totals read, write, all;
  int nops;
  struct res_op op0;
};

struct calib_cached {
  int task;
  double *vals; /* np values (only those reaching the task compared) */
  struct calib_res r;
};

struct calib {
  const struct calib_opts *o;
  struct val_set v;
  int np;
  struct calib_param par[CALIB_MAX_PARAMS];
  unsigned char *reach;   /* ntasks x np: parameter j reaches task t */
  double *w;              /* weight per point (0: excluded) */
  int *fitpts, nfit;      /* points of the current fit */
  int *freep, nfree;      /* parameters of the current fit */
  double *x;              /* full parameter vector (canonical units) */
  double *uref, *xref;    /* u <-> x pairs taken exactly (the start point):
                           * atanh/tanh do not round-trip to the last bit,
                           * and the cache compares values exactly */
  struct calib_cached *cache;
  int ncache, capcache;
  long nsims;
  int evals;
  double sumsq_screen;    /* sum of squares at the screening point */
  struct timespec t0;
  /* The last fit's Jacobian (nfit x nfree, row i = fitpts[i], column k =
   * freep[k], d residual / d u) and residuals at its solution: the one-step
   * cross-validation reuses them instead of paying a Jacobian per fold. */
  gsl_matrix *jac;
  gsl_vector *res;
};

/* A pending simulation of a batch. */
struct calib_pend {
  int task;
  const double *x;
};

struct calib_batch {
  const struct calib *c;
  const struct calib_pend *pend;
};

struct calib_fitres {
  int iterations;
  double sumsq0, sumsq1;
  char stop[64];
};

/* Seconds since the run started. */
double calib_elapsed_s(const struct calib *c);
/* Simulate the tasks of points pts at nvec parameter vectors (cached). 0 or -1. */
int calib_simulate(struct calib *c, int nvec, const double *const *xs, const int *pts, int npts);
/* Score points pts from the cache at x (v->pts[].predicted, error). */
void calib_score_at(struct calib *c, const double *x, const int *pts, int npts);
/* Fit the free parameters to the fit points from c->x (see calibrate.c). 0 or -1. */
int calib_fit(struct calib *c, int max_iter, struct calib_fitres *fr);
/* Free = selected parameters reaching at least one fit point. */
void calib_pick_free(struct calib *c);
/* Does parameter j reach point i? */
int calib_reaches(const struct calib *c, int j, int i);
/* Free everything c holds (not c). */
void calib_release(struct calib *c);
/* Index of (entry, key) among c->par, or -1. */
int calib_find_param(const struct calib *c, const char *entry, const char *key);

/* calib_count.c: after the fit, profile each count (par[].discrete)
 * reaching the fit points over whole values, refitting the free
 * parameters at each; c is left at the best.  0 or -1. */
int calib_counts(struct calib *c, int max_iter, struct calib_fitres *fr, FILE *out);

/* calib_report.c */
const char *calib_unit(enum units_dim d);
void calib_value_text(double x, enum units_dim d, char *buf, size_t len);
void calib_print_kinds(const struct val_set *v, const char *title, FILE *out);
int calib_write(const struct calib *c, const struct calib_fitres *fr, int nexcl, struct nw_err *err);
void calib_print_list(const struct calib *c, FILE *out);
void calib_print_screen(const struct calib *c, int nscreen, FILE *out);
void calib_print_fit(const struct calib *c, const struct calib_fitres *fr, FILE *out);

/* calib_cv.c: leave-one-experiment-out after the full fit (xfull, ufull). */
int calib_cv(struct calib *c, const double *xfull, const double *ufull, int *allpts, int nall, FILE *out);
/* calib_cv.c: the cross-validation of a shipped fit (o->cv_from): its
 * values, its free parameters (those still free), one Jacobian there,
 * then calib_cv's one-step folds.  0, 1 (the fit's Jacobian failed) or 2
 * (bad file, with err). */
int calib_cv_from(struct calib *c, int *allpts, int nall, FILE *out, struct nw_err *err);

#endif
