/* validate.h - predicted vs measured for every review result.
 *
 * The review data (validation/reviews.yaml schema: experiments[].results[])
 * is paired with validation/points.yaml, which says how each result is
 * reproduced (scenario, --set overrides, workload steps, combine rule and
 * the result field that is the prediction; schema at the top of that
 * file).  Every distinct (scenario, sets, step) is simulated once through
 * the run pool; the error of a point is predicted / measured - 1. */
#ifndef NASTWIN_VALIDATE_H
#define NASTWIN_VALIDATE_H

#include <stdio.h>

#include "sim/config/config.h"
#include "base/err.h"
#include "sim/report/result.h"
#include "sim/config/ytree.h"

/* Metric kinds of the summary. */
enum val_kind { VAL_THROUGHPUT, VAL_IOPS, VAL_LAT_MEAN, VAL_LAT_TAIL, VAL_DURATION, VAL_POWER, VAL_NKINDS };
extern const char *const val_kind_names[VAL_NKINDS];

/* Point states. */
enum val_status { VAL_OK = 0, VAL_FAILED, VAL_UNSUPPORTED, VAL_UNMAPPED };

#define VAL_MAX_STEPS 64

/* A fit's constraint row pulls from this far inside its observation's
 * bound (a fraction of it): a one-sided quadratic penalty comes to rest
 * just past where its row starts, so a row that started at the bound
 * itself left fits a hair outside it (session 16: iSCSI 128K port busy
 * 0.8998 against 0.9), and the hard test of the observation failed. */
#define VAL_OBS_MARGIN 0.01

struct val_point {
  char experiment[96];
  char system[64], protocol[32], cache[16], kase[128], tool[128];
  char metric[64];            /* the result's metric, or the measure key when not `value` */
  double measured;
  int approx;
  char skewed[256];           /* "" when not skewed */
  const struct ynode *result; /* the reviews.yaml result map (for JSON) */
  enum val_status status;
  char note[1024];            /* unsupported reason / failure */
  enum val_kind kind;
  char field[32];             /* points.yaml field */
  char scenario[512];         /* resolved path ("" when unmapped) */
  int cfg;                    /* index into val_set.cfgs */
  int nsteps;
  int tasks[VAL_MAX_STEPS];   /* indices into val_set.tasks */
  int combine;                /* 0 mean, 1 max, 2 min */
  double predicted;
  double error;               /* predicted / measured - 1; for a constraint its shortfall
                               * from the fit's target, bound x (1 +- VAL_OBS_MARGIN)
                               * (0 when the target is met) */
  /* An observation's constraint (points.yaml `observations`, loaded by
   * val_load_observations): measured is the bound, predicted must be at
   * least (bound = 1) or at most (bound = -1) it; 0 = a review point. */
  int bound;
  double weight;              /* a constraint's residual weight */
  int nnum;                   /* > 0: predicted = value of tasks[0..nnum) / value of
                               * tasks[nnum..nsteps) (a ratio of two configurations) */
  /* Of its steps' windows (client I/O fields only): one found no steady
   * state (a transient's figure), one had too few I/Os for a stable one. */
  int transient, few_ios;
};

struct val_cfg {
  char scenario[512];
  char sets[1024];            /* "a=b\nc=d" */
  char fio[512];              /* the points entry's fio job file ("" = the scenario's workload) */
  struct scenario s;
};

struct val_task {
  int cfg, step;
};

struct val_set {
  struct ynode *data, *points;
  int npoints;
  struct val_point *pts;
  int ncfgs;
  struct val_cfg *cfgs;
  int ntasks;
  struct val_task *tasks;
  struct run_result *results; /* one per task after val_run */
  char calib_name[256];        /* the calibration applied (calib_apply); "" = none */
  char calib_hash[17];
};

/* Read the review data and the points file and load every scenario
 * needed; only (comma-separated experiment ids) may be NULL.  extra_sets
 * (may be NULL/0) are applied to every scenario after its own (used by
 * calibrate).  0, or -1 with a file:line:col error. */
int val_load(const char *data_path, const char *points_path, const char *only, const char *catalog,
             const struct cfg_set *extra_sets, int nextra, struct val_set *v, struct nw_err *err);

/* A point's case label: "system protocol cache-X case tool". */
void val_label(const struct val_point *p, char *buf, size_t len);

/* Golden predictions (validation/golden.json): every point's prediction
 * keyed by "experiment | metric | label" (" #N" for the N-th repeat).
 * val_golden_write writes v's predictions to path atomically (null for a
 * point that did not run); 0 or -1 with err.  val_golden_check compares v
 * with the file: a point whose prediction moved more than tol (relative),
 * changed between null and a number, or is missing from the file is
 * printed to out; points of the file that v lacks (--only) are ignored.
 * Returns the number of such points, or -1 with err for a bad file. */
int val_golden_write(const struct val_set *v, const char *path, struct nw_err *err);
int val_golden_check(const struct val_set *v, const char *path, double tol, FILE *out, struct nw_err *err);

/* Simulate every task (njobs children at once, < 1 = CPUs) and compute
 * each point's prediction and error.  Returns the number of points that
 * failed to simulate. */
int val_run(struct val_set *v, int njobs, int quiet);

/* Recompute every point's prediction and error from v->results (one per
 * task, filled by val_run or by the caller).  Returns the number of points
 * whose steps failed. */
int val_score(struct val_set *v);

/* Load configuration cfg of v again: its scenario with its own sets, then
 * extra (may be NULL/0) after them; catalog as for val_load.  0 or -1. */
int val_cfg_reload(const struct val_set *v, int cfg, const char *catalog, const struct cfg_set *extra,
                   int nextra, struct scenario *out, struct nw_err *err);

/* After val_load: the `observations` entries of the points file (each a
 * constraint one observation of the data's `observations` implies, see
 * points.yaml) appended as points with bound != 0.  0, or -1 with a
 * file:line:col error. */
int val_load_observations(struct val_set *v, const char *points_path, const char *catalog, struct nw_err *err);

/* Release everything; accepts a zeroed set. */
void val_free(struct val_set *v);

/* Median and 90th percentile of |error| of one kind's OK, non-skewed
 * review points (constraints left out); returns the count (0: the outputs are 0). */
int val_summary(const struct val_set *v, enum val_kind k, double *median, double *p90);

/* Text table and summary. */
void val_print_table(const struct val_set *v, FILE *out);
/* {"points": [...], "summary": {...}}. */
void val_print_json(const struct val_set *v, FILE *out);
/* DIR/index.html (written to a temporary file, then renamed): one log-log
 * predicted-vs-measured panel per metric kind and unit, with +-10/25 %
 * bands, and per-experiment error bars.  0 or -1 with err. */
int val_write_html(const struct val_set *v, const char *dir, struct nw_err *err);

/* Default data/points paths (the source tree's validation/). */
const char *val_default_data(void);
const char *val_default_points(void);

#endif
