/* calibrate.h - fit the catalogue's `fit:` values to the review data.
 *
 * A free parameter is one catalogue value marked `fit: [lo, hi]`, keyed by
 * (catalogue entry, key): "socs/alpine-al514" + "work_per_cycle".  The
 * entry is the one the scenario section uses: soc -> socs/<soc_name>,
 * disks -> drives/<drive.name>, ssd_cache -> drives/<cache_drive.name>,
 * system -> systems/<system_name>, protocol -> protocols/<kind>; a fit
 * declared in another section is private to the scenario
 * (<section>/<scenario name>).  A fitted value is applied to a scenario
 * as `--set <that scenario's fit path>=<value>` for every fit of the
 * scenario that maps to the same (entry, key).
 *
 * Residuals r_i = w_i log(predicted_i / measured_i), w = 1, approx points
 * 1/sqrt(2), skewed/unsupported/non-positive points excluded, fitted as
 * Cauchy pseudo-residuals (o->robust), plus one prior row per free
 * parameter (o->prior).  Each value is fitted through
 * x = lo + (hi - lo) (1 + tanh u) / 2 with GSL's Levenberg-Marquardt trust
 * region; the first Jacobian of a fit is coloured forward differences in
 * u (calib_jac.c) whose simulations run as one run-pool batch, the later
 * ones sparse secant updates, and every simulation is cached by (task,
 * values of the parameters that reach it). */
#ifndef NASTWIN_CALIBRATE_H
#define NASTWIN_CALIBRATE_H

#include <stdint.h>
#include <stdio.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "sim/config/config.h"
#include "base/err.h"
#include "sim/study/validate.h"

#define CALIB_MAX_PARAMS 400

struct calib_param {
  char entry[96];      /* "socs/alpine-al514" */
  char key[64];        /* "work_per_cycle" */
  enum units_dim dim;
  double value0;       /* catalogue value (canonical unit) */
  double lo, hi;       /* fit bounds (canonical unit) */
  double value;        /* fitted value */
  double se;           /* standard error of value (canonical unit) */
  int ntasks;          /* simulations it reaches */
  int npoints;         /* residuals it reaches */
  int at_bound;        /* 1: within 1 % of the range from a bound */
  int free_;           /* 1: fitted in the last fit */
  int no_effect;       /* 1: the screening Jacobian column was exactly 0 */
  int weak;            /* 1: not chosen by the screening's forward selection (kept at value0) */
  double sensitivity;  /* |column| of the screening Jacobian (per unit u) */
  double gain;         /* chosen: what its orthogonalised column removes of the sum of squares */
  int pick;            /* chosen: 1 for the first pick, 2 the next, ...; 0: not chosen */
  int discrete;        /* 1: a count (whole values), fitted by calib_counts' profile, not by gradient */
  int pinned;          /* 1: outside --params with --start: held at the start's value, never free */
  int in_start;        /* 1: --start named it (its value, and its record unless this fit frees it, are the start's) */
};

/* --reach: every declared pair, or group tests (before the screen) drop
 * the inert ones: per task (binary splitting), or per scenario (one
 * step's pairs by plain differences, the other steps' pairs inert there
 * as one group each). */
enum calib_reach { CALIB_REACH_DECLARED, CALIB_REACH_TESTED, CALIB_REACH_SCENARIO };

struct calib_opts {
  const char *data, *points, *only, *params, *catalog, *out, *date;
  const char *source; /* provenance note (calibrate --system S --fio-results DIR); NULL: none */
  const char *command; /* the command line, recorded in the provenance; NULL: none */
  int njobs;     /* < 1: CPUs */
  int max_iter;  /* LM iterations of the full fit */
  int max_free;  /* at most this many free parameters after screening (0: no cap) */
  int cv;        /* 1: leave-one-experiment-out after the full fit */
  int cv_iter;   /* LM iterations of each CV fit */
  const char *start;     /* start from this calibrated.yaml's values (warm start); NULL: the catalogue's */
  const char *cv_from;   /* cross-validate this calibrated.yaml's fit (no refit); NULL: fit first */
  int cv_by_system;      /* 1: the folds leave one system out, 0: one experiment */
  const char *cv_readme; /* rewrite the CV table between its markers in this file; NULL: none */
  int list;      /* 1: list the free parameters and stop */
  int quiet;
  double prior;  /* weight of the prior rows W (u - u_catalogue), u on the fit's tanh map; 0: none */
  double robust; /* Cauchy scale of the residuals (log units); 0: plain least squares */
  int jac_dense; /* 1: one perturbed vector per parameter (the reference for the coloured assembly) */
  int reach;     /* which (simulation, parameter) pairs the Jacobian simulates: enum calib_reach (calib_reach.c) */
  int jac_every; /* a fresh forward-difference Jacobian every N-th; 0: only a fit's first (then secant) */
  int counts;    /* 1: fit the counts with a fit range (channels, dies) by a profile (calib_counts) */
};

/* Forward selection (orthogonal matching pursuit) of the columns of a
 * Jacobian J (residuals x parameters) against residuals f.  Each round
 * picks the column that, orthogonalised against those already picked,
 * removes the most of what is left of the residual -- (a.r)^2 / a.a, the
 * drop of the sum of squares of a one-parameter Gauss-Newton step -- and
 * projects it out of the residual and the other columns.  Unlike ranking
 * by |column|, this spends a budget of free parameters where the misfit
 * is: a parameter three far-off points see beats one forty well-fitted
 * points see, and of two parameters that move the same points the same
 * way only one is picked.  Columns with skip[k] != 0 (skip may be NULL)
 * or all zero are never picked.  Stops after max_pick (<= 0: no cap),
 * when the best drop is below 1e-4 of |f|^2, or when every remaining
 * column has lost 99 % of its norm to those picked (collinear).
 * pick[k] = 1 for the first pick, 2 the next, ..., 0 not picked; gain[k]
 * the drop it made.  Returns the number picked, -1 out of memory. */
int calib_forward_select(const gsl_matrix *J, const gsl_vector *f, const int *skip, int max_pick, int *pick,
                         double *gain);

/* The bounded transform x(u) = lo + (hi - lo) (1 + tanh u) / 2. */
double calib_x_of_u(double u, double lo, double hi);
/* Where x sits in its range, t = 2 (x - lo) / (hi - lo) - 1 in [-1, 1]
 * (0 when hi <= lo). */
double calib_t_of_x(double x, double lo, double hi);
/* calib_u_of_x clamps |t| to this: a bound itself has no finite u. */
#define CALIB_T_MAX 0.998
/* The prior row (calib_jac.c) clamps |t| to this: |u| <= 14, where x of u
 * is the bound itself in double. */
#define CALIB_PRIOR_T_MAX (1.0 - 1e-12)
/* Its inverse; x is clamped 0.1 % of the range inside [lo, hi]. */
double calib_u_of_x(double x, double lo, double hi);
/* dx/du at u. */
double calib_dx_du(double u, double lo, double hi);

/* The catalogue entry a fit record of s belongs to ("drives/x"); key
 * points into f->path.  0, or -1 when the path has no section. */
int calib_entry_of_fit(const struct scenario *s, const struct cfg_fit *f, char *entry, size_t len,
                       const char **key);

/* A calibrated.yaml record's scalar value of key, NULL when absent. */
const char *calib_scalar(const struct ynode *map, const char *key);

/* The record of `parameters` (list) that calibrates fit i of s (same
 * catalogue entry and key), NULL when the file has none. */
const struct ynode *calib_record_of_fit(const struct ynode *list, const struct scenario *s, int i);

/* FNV-1a 64 of a file's bytes; 0 when unreadable. */
uint64_t calib_fnv_file(const char *path);

/* Which calibration a command applies, as its options ask: the shipped
 * validation/calibrated.yaml of the data folder (base/datadir.h) by
 * default, --calibrated FILE another, --uncalibrated none. */
struct calib_use {
  int none;         /* --uncalibrated */
  const char *file; /* --calibrated FILE; NULL: the shipped one */
};

/* The resolved choice: path "" = uncalibrated; name = the path, relative
 * to the data folder when inside it; hash = 16 hex digits of FNV-1a 64. */
struct calib_which {
  char path[1024];
  char name[256];
  char hash[17];
};

/* Take --calibrated VAL / --uncalibrated into u (list "--calibrated" among
 * the command's valued options).  1 when arg was one of them, else 0. */
int calib_use_opt(struct calib_use *u, const char *arg, const char *val);

/* Resolve u into w.  0, or -1 with err when the file cannot be read. */
int calib_use_resolve(const struct calib_use *u, struct calib_which *w, struct nw_err *err);

/* The override list that applies calibration w to a scenario: the
 * calibrated values of its fit parameters (learnt by loading it once),
 * then the caller's sets (which win), into all (max entries; strings in
 * text).  Returns the count, or -1 with err. */
int calib_sets(const struct calib_which *w, const char *path, const char *catalog, const struct cfg_set *sets,
               int nsets, const char *fio, struct cfg_set *all, int max, char *text, size_t text_len,
               struct nw_err *err);

/* cfg_load with the calibration w: the scenario is loaded once to learn
 * its fit parameters, then again with the calibrated values placed before
 * the caller's sets (which win); s->calib_file/calib_hash name it.  0, or
 * -1 with err (s freed). */
int calib_cfg_load(const struct calib_which *w, const char *path, const char *catalog, const struct cfg_set *sets,
                   int nsets, const char *fio, struct scenario *s, struct nw_err *err);

/* 90 % prediction intervals from the cross-validation (calib_ci.c),
 * split-conformal: per metric kind, the n held-out errors
 * |ln(predicted/measured)| of the leave-one-experiment-out CV give q = the
 * k-th smallest, k = ceil((n + 1) 0.9) (n >= 9, else no interval); a
 * prediction v of that kind gets [v e^-q, v e^q].  They are written beside
 * the calibration, X.yaml -> X.intervals.yaml, naming it by its FNV-1a 64. */
#define CALIB_CI_COVERAGE_PCT 90

/* One metric kind's held-out errors. */
struct calib_ci_kind {
  int n;        /* held-out points (0: none) */
  int rank;     /* k = ceil((n + 1) 0.9); 0 when k > n (no interval) */
  double q_log; /* the k-th smallest |ln(predicted/measured)|; +inf: unbounded (a fold failed) */
};

/* The intervals a run applies: from_cv 1 when the file of its calibration
 * was found; source[] says, per figure (enum res_ci), where its interval
 * comes from or why there is none. */
struct calib_ci {
  int from_cv;
  struct calib_ci_kind kind[VAL_NKINDS];
  char source[RES_NCI][RES_CI_SOURCE_LEN];
};

/* k = ceil((n + 1) 0.9) of n held-out errors (exact, in integers); > n when n < 9. */
int calib_ci_rank(int n);

/* The split-conformal quantile of abs_log_err[0..n) (sorted in place;
 * +inf allowed): *q = the calib_ci_rank(n)-th smallest.  Returns that
 * rank, or 0 (q untouched) when n < 9. */
int calib_ci_quantile(double *abs_log_err, int n, double *q);

/* The intervals file of a calibration: X.yaml -> X.intervals.yaml. */
void calib_ci_path(const char *calibration, char *buf, size_t len);

/* Write the intervals file of calibration (a calibrated.yaml path, read
 * for its hash) from kinds[] (n = 0: left out), its provenance from o
 * (command, data, points, fold fit; no date: deterministic).  0, or -1
 * with err. */
int calib_ci_write(const struct calib_opts *o, const char *calibration, const struct calib_ci_kind kinds[VAL_NKINDS],
                   struct nw_err *err);

/* The intervals of calibration w (nothing when w->path is ""): its
 * intervals file when present and naming w's hash (from_cv = 1), else
 * from_cv = 0 and the sources say why none is available.  0, or -1 with a
 * file:line:column err for a bad intervals file. */
int calib_ci_load(const struct calib_which *w, struct calib_ci *ci, struct nw_err *err);

/* Fill res[0..nsteps) {read,write,all}.ci90 (value e^-+q, NaN without an
 * interval), has_ci = 1 and the sources. */
void calib_ci_apply(const struct calib_ci *ci, struct run_result *res, int nsteps);

/* Turn a calibrated.yaml into the --set list for scenario s (loaded
 * without them): one set per fit of s whose (entry, key) is in the file.
 * The strings live in text (text_len bytes; 64 KiB is plenty).  Returns
 * the number of sets (0..max) or -1 with err. */
int calib_load(const char *path, const struct scenario *s, struct cfg_set *sets, int max, char *text,
               size_t text_len, struct nw_err *err);

/* Reload every configuration of a loaded val_set with the calibration w
 * (nothing when w->path is ""); v->calib_name/calib_hash name it.  0 or -1 with err. */
int calib_apply(struct val_set *v, const struct calib_which *w, const char *catalog, struct nw_err *err);

/* A twin of your own NAS: from dir's pairs NAME.fio + NAME.json (fio
 * --output-format=json), write review data (data_path) and points
 * (points_path) mapping every job's IOPS, MB/s and mean latency per
 * direction with I/O to scenario run with that job file.  *njobs = the
 * result files read.  0, or -1 with err (a JSON without its job file, a
 * JSON that does not parse, a field fio 3.x writes that is missing). */
int calib_fio_prepare(const char *scenario, const char *dir, const char *data_path, const char *points_path,
                      int *njobs, struct nw_err *err);

/* The whole `nastwin calibrate` run: fit, print the summary to out, write
 * o->out.  0 ok, 1 a fit/simulation problem, 2 bad input (err filled). */
int calib_main(const struct calib_opts *o, FILE *out, struct nw_err *err);

#endif
