/* nastwin calibrate: fit the catalogue's `fit:` values to the review data. */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include "base/datadir.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/study/calibrate.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_opt.h"

static void cli_calibrate_usage(FILE *out)
{
  fputs("usage: nastwin calibrate [options]\n"
        "\n"
        "Fits the catalogue values marked `fit: [lo, hi]` that the review points use\n"
        "(one free parameter per catalogue entry and key, e.g. socs/alpine-al514.\n"
        "work_per_cycle) by Levenberg-Marquardt on w*log(predicted/measured)\n"
        "(approx points weigh half in the sum of squares, skewed ones are left out),\n"
        "prints the fitted values, their standard errors, the parameters that end at a\n"
        "bound, and the validation summary before/after; writes the values to --out.\n"
        "\n"
        "options:\n"
        "  --data FILE        review data (default: validation/reviews.yaml)\n"
        "  --points FILE      the mapping (default: validation/points.yaml)\n"
        "  --only ID[,ID...]  only these experiments\n"
        "  --params P[,P...]  only these parameters: ENTRY.KEY, ENTRY or KEY\n"
        "  --catalog DIR      catalogue directory\n"
        "  --out FILE         output (default: validation/calibrated.yaml)\n"
        "  --max-iter N       Levenberg-Marquardt iterations (default 8)\n"
        "  --max-free N       after the screening Jacobian, fit at most N parameters, chosen\n"
        "                     by forward selection: each removes the most of the misfit left\n"
        "                     (default 0 = no cap: every parameter that moves a point is fitted)\n"
        "  --prior W          weight of one prior row per parameter, W*(u - u_catalogue), u = atanh of\n"
        "                     where the value sits in its range: holds what the points do not\n"
        "                     determine near the catalogue value and grows without end towards a\n"
        "                     bound (default 0.05, 0 with --system; 0 = none)\n"
        "  --robust S         Cauchy scale of the residuals in log units (default 0.4): a point a\n"
        "                     missing mechanism puts far off pulls less than one at +-S (0 with --system); 0 = plain\n"
        "                     least squares.  Points still off by more than 2x after the fit are\n"
        "                     listed as \"mechanism missing\"\n"
        "  --start FILE       start from FILE's values (a calibrated.yaml, e.g. the shipped one) instead\n"
        "                     of the catalogue's: fewer iterations when a refit moves little; the prior\n"
        "                     rows still pull towards the catalogue; with --params, FILE's other\n"
        "                     values are held (never free) and written back as FILE has them: a\n"
        "                     partial refit of a shipped calibration; a free value within 5 % of\n"
        "                     its range from a bound starts 5 % inside it (at the bound the\n"
        "                     Jacobian's step cannot move it)\n"
        "  --jacobian HOW     coloured (default): parameters that reach disjoint simulations and\n"
        "                     points share one perturbed vector; per-parameter: one vector each (the\n"
        "                     reference: the same simulations and the same numbers, more passes)\n"
        "  --reach HOW        which (simulation, parameter) pairs the Jacobian simulates.  scenario\n"
        "                     (default): before the screening Jacobian, per scenario file one step's\n"
        "                     pairs by plain differences, then each other step's pairs that were inert\n"
        "                     there as one group (split when it moves), and only the pairs that move\n"
        "                     stay; writes the inert pairs beside --out (OUT.reach.yaml), and the next\n"
        "                     fit tests each task's recorded pairs as one group instead.  declared:\n"
        "                     every pair the scenarios declare (the reference).  tested: group tests\n"
        "                     per task, split in halves (inert pairs are scattered: costs more than\n"
        "                     declared on the review set)\n",
        out);
  fputs(
        "  --jacobian-every N a fresh finite-difference Jacobian every N-th step (default 0: only at\n"
        "                     the start of a fit, then Schubert's sparse secant update)\n"
        "  --system SCENARIO  with --fio-results: a twin of your own box.  SCENARIO describes it;\n"
        "  --fio-results DIR  DIR holds NAME.fio + NAME.json pairs (fio --output-format=json);\n"
        "                     every job's IOPS, MB/s and mean latency per direction become the\n"
        "                     points, the fit frees the unknowns that reach them; --out default\n"
        "                     SCENARIO-NAME.calibrated.yaml; the derived data and points are kept\n"
        "                     beside it (OUT.fio-data.yaml, OUT.fio-points.yaml)\n"
        "  --cv               then leave-one-experiment-out cross-validation; writes the fit's 90 %\n"
        "                     prediction intervals beside --out (OUT.intervals.yaml: per metric kind\n"
        "                     the k-th smallest held-out |ln(predicted/measured)|, k = ceil((n+1) 0.9))\n"
        "  --cv-from FILE     cross-validate FILE's fit (a calibrated.yaml) without refitting: one\n"
        "                     Jacobian at its values, then the one-step folds; writes FILE's\n"
        "                     intervals (X.yaml -> X.intervals.yaml) and first prints how many\n"
        "                     simulations remain and about how long they take\n"
        "  --cv-by WHAT       experiment (default) or system: what each fold leaves out\n"
        "  --cv-readme FILE   rewrite the cross-validation table between its markers in FILE\n"
        "                     (validation/README.md)\n"
        "  --cv-iter N        0 (default): one damped Gauss-Newton step per fold from the full fit's\n"
        "                     Jacobian; N > 0: N LM iterations per fold (a Jacobian each)\n"
        "  --date TEXT        provenance date (default \"unspecified\": deterministic file)\n"
        "  --list             list the free parameters and their reach, do not fit\n"
        "  -j N               simulations at once (default: CPUs)\n"
        "  --quiet            no progress on stderr\n"
        "\n"
        "exit: 0 fitted, 1 the fit failed, 2 bad input\n",
        out);
}

/* The options that take one of a few words (--cv-by, --reach, --jacobian):
 * the value is the word's index.  0, or -1 (said). */
static int cli_calibrate_choice(const char *a, const char *val, struct calib_opts *o)
{
  const struct {
    const char *opt, *word[3]; /* NULL after the last */
    int *value;
  } choice[] = {
      {"--cv-by", {"experiment", "system", NULL}, &o->cv_by_system},
      {"--reach", {"declared", "tested", "scenario"}, &o->reach}, /* enum calib_reach's order */
      {"--jacobian", {"coloured", "per-parameter", NULL}, &o->jac_dense},
  };
  for (size_t k = 0; k < sizeof choice / sizeof choice[0]; k++) {
    if (strcmp(a, choice[k].opt))
      continue;
    int n = choice[k].word[2] ? 3 : 2, w = 0;
    while (w < n && strcmp(val, choice[k].word[w]))
      w++;
    if (w == n) {
      fprintf(stderr, "nastwin: error: %s '%s': expected %s or %s%s%s\n", a, val, choice[k].word[0],
              choice[k].word[1], n == 3 ? " or " : "", n == 3 ? choice[k].word[2] : "");
      return -1;
    }
    *choice[k].value = w;
  }
  return 0;
}

int cli_calibrate(int argc, char **argv)
{
  static char out_path[1024];
  int out_given = 0, prior_given = 0, robust_given = 0;
  struct calib_opts o = {.max_iter = 8, .max_free = 0, .cv_iter = 0, .prior = 0.05, .robust = 0.4,
                         .reach = CALIB_REACH_SCENARIO,
                         .out = nw_data_path(out_path, sizeof out_path, "validation/calibrated.yaml")};
  const char *system = NULL, *fio_dir = NULL;
  static const char *const valued[] = {"--data", "--points", "--only", "--params", "--catalog", "--out", "--system",
                                       "--fio-results",
                                       "--max-iter", "--max-free", "--cv-iter", "--date", "-j", "--cv-from",
                                       "--cv-readme", "--cv-by", "--prior", "--robust", "--jacobian", "--reach",
                                       "--jacobian-every", "--start", NULL};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val;
    if (cli_opt_value(argc, argv, &i, valued, &val) < 0)
      return 2;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cli_calibrate_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--data"))
      o.data = val;
    else if (!strcmp(a, "--points"))
      o.points = val;
    else if (!strcmp(a, "--only"))
      o.only = val;
    else if (!strcmp(a, "--params"))
      o.params = val;
    else if (!strcmp(a, "--catalog"))
      o.catalog = val;
    else if (!strcmp(a, "--out"))
      o.out = val, out_given = 1;
    else if (!strcmp(a, "--system"))
      system = val;
    else if (!strcmp(a, "--fio-results"))
      fio_dir = val;
    else if (!strcmp(a, "--date"))
      o.date = val;
    else if (!strcmp(a, "--start"))
      o.start = val;
    else if (!strcmp(a, "--cv-from"))
      o.cv_from = val;
    else if (!strcmp(a, "--cv-readme"))
      o.cv_readme = val;
    else if (!strcmp(a, "--cv-by") || !strcmp(a, "--reach") || !strcmp(a, "--jacobian")) {
      if (cli_calibrate_choice(a, val, &o) < 0)
        return 2;
    } else if (!strcmp(a, "--prior") || !strcmp(a, "--robust")) {
      char *end;
      errno = 0;
      double d = strtod(val, &end);
      if (errno || end == val || *end || !(d >= 0) || d > 100) {
        fprintf(stderr, "nastwin: error: %s '%s': expected a number in [0, 100]\n", a, val);
        return 2;
      }
      if (!strcmp(a, "--prior"))
        o.prior = d, prior_given = 1;
      else
        o.robust = d, robust_given = 1;
    } else if (!strcmp(a, "--cv"))
      o.cv = 1;
    else if (!strcmp(a, "--list"))
      o.list = 1;
    else if (!strcmp(a, "--quiet"))
      o.quiet = 1;
    else if (!strcmp(a, "--max-iter") || !strcmp(a, "--max-free") || !strcmp(a, "--cv-iter") || !strcmp(a, "-j") ||
             !strcmp(a, "--jacobian-every")) {
      long v;
      if (cli_opt_int(a, val, !strcmp(a, "-j") ? 1 : 0, !strcmp(a, "-j") ? 64 : 1000, &v) < 0)
        return 2;
      if (!strcmp(a, "--max-iter"))
        o.max_iter = (int)v;
      else if (!strcmp(a, "--max-free"))
        o.max_free = (int)v;
      else if (!strcmp(a, "--cv-iter"))
        o.cv_iter = (int)v;
      else if (!strcmp(a, "--jacobian-every"))
        o.jac_every = (int)v;
      else
        o.njobs = (int)v;
    } else {
      fprintf(stderr, "nastwin: error: unknown argument '%s' (see nastwin calibrate --help)\n", a);
      return 2;
    }
  }
  gsl_set_error_handler_off();
  struct nw_err err = {0};
  static char data_path[1100], points_path[1100], source[2200];
  if (!system != !fio_dir || (system && (o.data || o.points))) {
    fprintf(stderr, "nastwin: error: --system SCENARIO and --fio-results DIR go together, without --data/--points\n");
    return 2;
  }
  if (system) {
    /* a box's own fio results: every point measures this box (none is off
     * by a mechanism the review set lacks) and there are few points, so
     * plain least squares with the n - p residual variance: a prior row
     * would hold an unknown the jobs do not reach near the catalogue with
     * a standard error that looks like a measurement of it */
    if (!prior_given)
      o.prior = 0;
    if (!robust_given)
      o.robust = 0;
    int njobs = 0;
    if (!out_given) {
      const char *base = strrchr(system, '/');
      base = base ? base + 1 : system;
      snprintf(out_path, sizeof out_path, "%.*s.calibrated.yaml", (int)strcspn(base, "."), base);
      o.out = out_path;
    }
    snprintf(data_path, sizeof data_path, "%s.fio-data.yaml", o.out);
    snprintf(points_path, sizeof points_path, "%s.fio-points.yaml", o.out);
    if (calib_fio_prepare(system, fio_dir, data_path, points_path, &njobs, &err) < 0) {
      nw_err_print(&err, stderr);
      unlink(data_path);
      unlink(points_path);
      return 2;
    }
    snprintf(source, sizeof source, "nastwin calibrate --system %s --fio-results %s (%d result file(s))", system,
             fio_dir, njobs);
    o.data = data_path;
    o.points = points_path;
    o.source = source;
    o.counts = 1; /* the drive's channels and dies: profiled (calib_count.c) */
  }
  static char command[2048];
  int used = snprintf(command, sizeof command, "nastwin calibrate");
  for (int i = 1; i < argc && used < (int)sizeof command; i++)
    used += snprintf(command + used, sizeof command - (size_t)used, " %s", argv[i]);
  o.command = command;
  int rc = calib_main(&o, stdout, &err);
  if (rc != 0 && system) { /* no half-written output: the derived files go with a failed fit */
    unlink(data_path);
    unlink(points_path);
  }
  if (rc != 0 && err.msg[0])
    nw_err_print(&err, stderr);
  return rc;
}
