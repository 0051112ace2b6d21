/* calib_impl.h - the fit's state, shared by calibrate.c (setup,
 * simulations, screening, the fit, calib_main), calib_report.c (printing,
 * writing calibrated.yaml) and calib_cv.c (cross-validation).  Private to
 * sim/study/calib*.c. */
#ifndef NASTWIN_CALIB_IMPL_H
#define NASTWIN_CALIB_IMPL_H

#include <stdint.h>
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
/* busy:PREFIX quantities kept per simulation (constraints of one task). */
#define CALIB_MAX_BUSY 4

/* The part of a run result the points read. */
struct calib_res {
  int failed;
  char step[64];
  char failure[256];
  struct res_totals read, write, all;
  int nops;
  struct res_op op0;
  int nbusy; /* the busy:PREFIX quantities the task's constraints read (name = PREFIX) */
  struct res_resource busy[CALIB_MAX_BUSY];
};

struct calib_cached {
  int task;
  int pending;  /* 1: queued in calib_simulate, no result yet */
  uint64_t key; /* calib_jac.c's hash of (task, values reaching it) */
  double *vals; /* np values (only those reaching the task compared) */
  struct calib_res r;
};

struct calib {
  const struct calib_opts *o;
  struct val_set v;
  int np;
  struct calib_param par[CALIB_MAX_PARAMS];
  unsigned char *reach;   /* ntasks x np: parameter j reaches task t */
  unsigned char *decl;    /* ntasks x np: the declared reach (before the reach tests) */
  double *w;              /* weight per point (0: excluded) */
  int *fitpts, nfit;      /* points of the current fit */
  int *freep, nfree;      /* parameters of the current fit */
  double *x;              /* full parameter vector (canonical units) */
  double *xstart;         /* where the fit started: the catalogue, or --start's values */
  double *uref, *xref;    /* u <-> x pairs taken exactly (the start point):
                           * atanh/tanh do not round-trip to the last bit,
                           * and the cache compares values exactly */
  struct calib_cached *cache;
  int ncache, capcache;
  int *hidx;              /* open-addressing index of cache (-1: empty), hcap a power of 2 */
  size_t hcap;
  int njac;               /* Jacobians of the current fit (0: the next is by differences) */
  gsl_matrix *jprev;      /* the last Jacobian (calib_nrows x nfree), its u and residuals */
  gsl_vector *uprev, *fprev;
  long nsims;
  int evals;
  int rescreens;          /* re-screens after a fit (calib_reach_retest) */
  int rescreen_freed;     /* parameters they freed */
  int rescreen_pairs;     /* set-aside pairs they put back into the reach */
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
  double sumsq0, sumsq1; /* the objective: robust residuals and prior rows */
  double raw0, raw1;     /* sum of squares of the raw w*log(predicted/measured) */
  char stop[64];
};

/* Seconds since the run started. */
double calib_elapsed_s(const struct calib *c);
/* CPU seconds of the process and its finished children (calib_report.c). */
double calib_cpu_s(void);
/* Simulate the tasks of points pts at nvec parameter vectors (cached). 0 or -1. */
int calib_simulate(struct calib *c, int nvec, const double *const *xs, const int *pts, int npts);
/* calib_jac.c's cache: the hash of (task, values reaching it), the entry
 * of (t, x) or NULL, a new pending entry (its index or -1), the index
 * rebuilt (cap a power of 2), every key again after the reach changed,
 * the pending entries idx[0..n) simulated; need[t] = 1 for the tasks of
 * points pts (returns how many). */
uint64_t calib_key(const struct calib *c, int t, const double *x);
struct calib_cached *calib_find(const struct calib *c, int t, const double *x);
int calib_add(struct calib *c, int t, const double *x);
int calib_rehash(struct calib *c, size_t cap);
int calib_rekey(struct calib *c);
int calib_run_pending(struct calib *c, const int *idx, int n);
int calib_pts_need(const struct calib *c, const int *pts, int npts, unsigned char *need);
/* calib_reach.c: group tests of which free parameters move which of the
 * fit's simulations; c->reach loses the pairs that do not.  0, 1 (out of
 * memory) or 2 (a bad reach record), err filled. */
int calib_reach_refine(struct calib *c, FILE *out, struct nw_err *err);
/* calib_reach.c: after a fit, the pairs set aside at the start (out of
 * the reach, or a parameter's the screen found without effect) tested
 * again at c->x as groups; those that move join the reach (*nrestored:
 * how many were out of it), and a parameter without effect whose
 * perturbation now moves a fit point is freed (no_effect cleared).  The
 * number freed, or -1 out of memory.  Its summary goes to out. */
int calib_reach_retest(struct calib *c, int *nrestored, FILE *out);
/* calib_reachrec.c: the recorded reach beside o->out.  Its path (-1: no
 * output); write the pairs of the needed tasks that are free, declared
 * (decl) and out of c->reach (0 or -1 with err); read a record: rec[t] = 1
 * for the tasks it names, hyp (ntasks x np) their inert pairs, *ntasks
 * how many (0: no file; -1 with err: a bad file). */
int calib_reach_record_path(const struct calib *c, char *buf, size_t len);
int calib_reach_record_write(const struct calib *c, const unsigned char *decl, const unsigned char *need,
                             struct nw_err *err);
int calib_reach_record_read(const struct calib *c, unsigned char *hyp, unsigned char *rec, int *ntasks,
                            struct nw_err *err);
/* Score points pts from the cache at x (v->pts[].predicted, error). */
void calib_score_at(struct calib *c, const double *x, const int *pts, int npts);
/* calib_jac.c: residual rows (fit points, then a prior row per free
 * parameter when o->prior > 0), the robust pseudo-residual, the GSL
 * callbacks (df: coloured forward differences, then sparse secant
 * updates), the colouring of the free parameters, sums of squares. */
int calib_nrows(const struct calib *c);
double calib_robust(double r, double s);
double calib_raw_sumsq(struct calib *c, const double *x);
void calib_x_from_u(const struct calib *c, const gsl_vector *u, double *x);
int calib_gsl_f(const gsl_vector *u, void *ctx, gsl_vector *f);
int calib_gsl_df(const gsl_vector *u, void *ctx, gsl_matrix *J);
int calib_colour(const struct calib *c, const unsigned char *rows, int *colour);
int calib_ncolours(const struct calib *c);
double calib_sumsq(const gsl_vector *f);
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
/* A fit point off by more than this factor after the fit: "mechanism missing". */
#define CALIB_MISSING 2.0
int calib_is_missing(const struct val_point *p);
void calib_print_missing(const struct calib *c, FILE *out);
const char *calib_unit(enum units_dim d);
void calib_value_text(double x, enum units_dim d, char *buf, size_t len);
void calib_print_kinds(const struct val_set *v, const char *title, FILE *out);
int calib_write(const struct calib *c, const struct calib_fitres *fr, int nexcl, struct nw_err *err);
void calib_print_list(const struct calib *c, FILE *out);
void calib_print_screen(const struct calib *c, int nscreen, FILE *out);
void calib_print_fit(const struct calib *c, const struct calib_fitres *fr, FILE *out);
/* The observations' constraints: before (predicted values, NULL: none) and now. */
void calib_print_constraints(const struct calib *c, const double *before, FILE *out);

/* calib_cv.c: leave-one-experiment-out after the full fit (xfull, ufull). */
int calib_cv(struct calib *c, const double *xfull, const double *ufull, int *allpts, int nall, FILE *out);
/* calib_cv.c: start from a calibrated.yaml's values (chosen[j] = 1 for
 * those it names).  0, or 2 with err. */
int calib_values_from(struct calib *c, const char *path, unsigned char *chosen, const char *tag, FILE *out,
                      struct nw_err *err);
/* calib_cv.c: the cross-validation of a shipped fit (o->cv_from): its
 * values, its free parameters (those still free), one Jacobian there,
 * then calib_cv's one-step folds.  0, 1 (the fit's Jacobian failed) or 2
 * (bad file, with err). */
int calib_cv_from(struct calib *c, int *allpts, int nall, FILE *out, struct nw_err *err);

#endif
