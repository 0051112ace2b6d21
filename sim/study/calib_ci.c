/* calib_ci.c - 90 % prediction intervals of a calibrated run from the
 * calibration's held-out errors (split-conformal; calibrate.h).
 *
 * The leave-one-experiment-out cross-validation (calib_cv.c) predicts
 * every review point with a fit that never saw that point's experiment.
 * Per metric kind its n held-out errors e_i = |ln(predicted/measured)|
 * give q = the k-th smallest, k = ceil((n + 1) 0.9): for a new point
 * exchangeable with those, P(|ln(v/truth)| <= q) >= 0.9, so the interval
 * of a prediction v is [v e^-q, v e^q].  k <= n needs n >= 9; fewer
 * points give no interval.  The file sits beside the calibration
 * (X.yaml -> X.intervals.yaml) and names it by the FNV-1a 64 of its
 * bytes, so a refit without a new cross-validation has no interval
 * rather than another fit's. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "sim/config/config_impl.h"
#include "sim/config/ytree.h"
#include "sim/study/calibrate.h"

/* The kind of each interval figure (enum res_ci order). */
static const enum val_kind calib_ci_kinds[RES_NCI] = {
    [RES_CI_IOPS] = VAL_IOPS, [RES_CI_MBPS] = VAL_THROUGHPUT, [RES_CI_LAT_MEAN] = VAL_LAT_MEAN};

int calib_ci_rank(int n)
{
  /* ceil((n + 1) p / 100) in integers: no rounding at (n + 1) p = 100 m */
  return n > 0 ? ((n + 1) * CALIB_CI_COVERAGE_PCT + 99) / 100 : 1;
}

static int calib_ci_cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int calib_ci_quantile(double *abs_log_err, int n, double *q)
{
  int k = calib_ci_rank(n);
  if (n <= 0 || k > n)
    return 0;
  qsort(abs_log_err, (size_t)n, sizeof *abs_log_err, calib_ci_cmp);
  *q = abs_log_err[k - 1];
  return k;
}

void calib_ci_path(const char *calibration, char *buf, size_t len)
{
  size_t n = strlen(calibration);
  if (n > 5 && !strcmp(calibration + n - 5, ".yaml"))
    n -= 5;
  snprintf(buf, len, "%.*s.intervals.yaml", (int)n, calibration);
}

/* A YAML double-quoted string (the command line may hold quotes). */
static void calib_ci_quoted(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++)
    fprintf(f, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
  fputc('"', f);
}

int calib_ci_write(const struct calib_opts *o, const char *calibration, const struct calib_ci_kind kinds[VAL_NKINDS],
                   struct nw_err *err)
{
  char path[1100];
  calib_ci_path(calibration, path, sizeof path);
  const char *base = strrchr(calibration, '/'), *file = strrchr(path, '/');
  base = base ? base + 1 : calibration;
  file = file ? file + 1 : path;
  uint64_t hash = calib_fnv_file(calibration);
  if (!hash)
    return nw_fail(err, calibration, 0, 0, "cannot read the calibration to name it: %s", strerror(errno));
  struct file_atomic a;
  if (file_atomic_open(&a, path, err) != 0)
    return -1;
  FILE *f = a.f;
  fprintf(f, "# %s - written by `nastwin calibrate --cv` or `--cv-from`; do not edit by hand.\n"
             "# 90 %% prediction intervals of the calibration beside it (split-conformal):\n"
             "# per metric kind, q_log = the rank-th smallest held-out |ln(predicted/measured)| of\n"
             "# its cross-validated review points, rank = ceil((points + 1) x 0.9); a prediction v\n"
             "# of that kind has the interval [v e^-q_log, v e^q_log].  Under 9 points, or a\n"
             "# rank-th error that is unbounded (a fold's prediction failed): no interval.\n",
          file);
  fputs("version: 1\ncalibration: ", f);
  calib_ci_quoted(f, base);
  fprintf(f, "\ncalibration_fnv1a64: \"%016llx\"\nprovenance:\n", (unsigned long long)hash);
  if (o->command) {
    fputs("  command: ", f);
    calib_ci_quoted(f, o->command);
    fputc('\n', f);
  }
  fprintf(f, "  data: \"%s\"\n  data_fnv1a64: \"%016llx\"\n", o->data ? o->data : "validation/reviews.yaml",
          (unsigned long long)calib_fnv_file(o->data ? o->data : val_default_data()));
  fprintf(f, "  points: \"%s\"\n  points_fnv1a64: \"%016llx\"\n", o->points ? o->points : "validation/points.yaml",
          (unsigned long long)calib_fnv_file(o->points ? o->points : val_default_points()));
  fprintf(f, "  folds: \"leave one experiment out\"\n");
  if (o->cv_iter > 0)
    fprintf(f, "  fold_fit: \"%d Levenberg-Marquardt iterations from the fit\"\n", o->cv_iter);
  else
    fprintf(f, "  fold_fit: \"one damped Gauss-Newton step from the fit\"\n");
  fprintf(f, "coverage: 0.%d\nkinds:\n", CALIB_CI_COVERAGE_PCT / 10);
  int nk = 0;
  for (int k = 0; k < VAL_NKINDS; k++) {
    const struct calib_ci_kind *x = &kinds[k];
    if (x->n <= 0)
      continue;
    fprintf(f, "  - {kind: \"%s\", points: %d", val_kind_names[k], x->n);
    if (x->rank > 0)
      fprintf(f, ", rank: %d", x->rank);
    if (x->rank > 0 && isfinite(x->q_log))
      fprintf(f, ", q_log: %.10g", x->q_log);
    fputs("}\n", f);
    nk++;
  }
  if (!nk)
    fputs("  []\n", f);
  return file_atomic_commit(&a, 0, err);
}

/* ---- reading ---- */

/* One `kinds` item into ci->kind[].  seen[k]: the kind's item so far. */
static int calib_ci_kind_item(const struct ynode *it, struct calib_ci *ci, unsigned char *seen, struct nw_err *err)
{
  static const char *const keys[] = {"kind", "points", "rank", "q_log", NULL};
  if (it->kind != YNODE_MAP)
    return nw_fail(err, it->file, it->line, it->col, "intervals: kinds: expected a map {kind, points, rank, q_log}, got %s",
                   ytree_kind_name(it));
  const char *text;
  const struct ynode *kn;
  long v;
  if (cfg_only_keys(it, "intervals: kinds", keys, err) < 0 ||
      cfg_word(it, "intervals: kinds", "kind", 1, &text, &kn, err) < 0)
    return -1;
  int k = 0;
  while (k < VAL_NKINDS && strcmp(kn->scalar, val_kind_names[k]))
    k++;
  if (k == VAL_NKINDS) {
    char list[256];
    size_t used = 0;
    for (int a = 0; a < VAL_NKINDS && used < sizeof list; a++)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", a ? ", " : "", val_kind_names[a]);
    return nw_fail(err, kn->file, kn->line, kn->col, "intervals: kind '%s': allowed: %s", kn->scalar, list);
  }
  if (seen[k])
    return nw_fail(err, kn->file, kn->line, kn->col, "intervals: kind '%s' appears twice", kn->scalar);
  seen[k] = 1;
  struct calib_ci_kind *x = &ci->kind[k];
  if (cfg_int(it, "intervals: kinds", "points", 1, 1000000, 1, 0, &v, err) < 0)
    return -1;
  x->n = (int)v;
  const struct ynode *rn = ytree_get(it, "rank"), *qn = ytree_get(it, "q_log");
  int want = calib_ci_rank(x->n);
  if (want > x->n) { /* too few points: no rank, no quantile */
    if (rn || qn)
      return nw_fail(err, (rn ? rn : qn)->file, (rn ? rn : qn)->line, (rn ? rn : qn)->col,
                     "intervals: kind '%s': %d points give no 90 %% interval (9 needed): '%s' not allowed",
                     kn->scalar, x->n, rn ? "rank" : "q_log");
    x->rank = 0;
    x->q_log = NAN;
    return 0;
  }
  if (cfg_int(it, "intervals: kinds", "rank", 1, x->n, 1, 0, &v, err) < 0)
    return -1;
  x->rank = (int)v;
  if (x->rank != want)
    return nw_fail(err, rn->file, rn->line, rn->col,
                   "intervals: kind '%s': rank %d: %d points need rank ceil((%d + 1) x 0.9) = %d", kn->scalar,
                   x->rank, x->n, x->n, want);
  x->q_log = INFINITY; /* no q_log: the rank-th error is unbounded */
  if (qn) {
    char *end;
    if (qn->kind != YNODE_SCALAR)
      return nw_fail(err, qn->file, qn->line, qn->col, "intervals: kinds: q_log: expected a number, got %s",
                     ytree_kind_name(qn));
    errno = 0;
    x->q_log = strtod(qn->scalar, &end);
    if (errno || end == qn->scalar || *end || !isfinite(x->q_log) || x->q_log < 0 || x->q_log > 50)
      return nw_fail(err, qn->file, qn->line, qn->col,
                     "intervals: kind '%s': q_log '%s': expected a number from 0 to 50 (|ln(predicted/measured)|)",
                     kn->scalar, qn->scalar);
  }
  return 0;
}

/* Parse root (the intervals file) into ci->kind[]; hash: its calibration_fnv1a64. */
static int calib_ci_parse(const struct ynode *root, struct calib_ci *ci, char hash[17], struct nw_err *err)
{
  static const char *const top[] = {"version", "calibration", "calibration_fnv1a64", "provenance", "coverage", "kinds",
                                    NULL};
  static const char *const prov[] = {"command", "data",  "data_fnv1a64", "points", "points_fnv1a64",
                                     "folds",   "fold_fit", NULL};
  if (root->kind != YNODE_MAP)
    return nw_fail(err, root->file, root->line, root->col, "intervals: expected a map, got %s",
                   ytree_kind_name(root));
  const char *text;
  const struct ynode *n;
  if (cfg_only_keys(root, "intervals", top, err) < 0 || cfg_word(root, "intervals", "version", 1, &text, &n, err) < 0)
    return -1;
  if (strcmp(n->scalar, "1"))
    return nw_fail(err, n->file, n->line, n->col, "intervals: version '%s': allowed: 1", n->scalar);
  if (cfg_word(root, "intervals", "calibration", 1, &text, NULL, err) < 0 ||
      cfg_word(root, "intervals", "calibration_fnv1a64", 1, &text, &n, err) < 0)
    return -1;
  if (strlen(n->scalar) != 16 || strspn(n->scalar, "0123456789abcdef") != 16)
    return nw_fail(err, n->file, n->line, n->col, "intervals: calibration_fnv1a64 '%s': expected 16 hex digits (0-9, a-f)",
                   n->scalar);
  memcpy(hash, n->scalar, 17);
  if (cfg_word(root, "intervals", "coverage", 1, &text, &n, err) < 0)
    return -1;
  if (strcmp(n->scalar, "0.9"))
    return nw_fail(err, n->file, n->line, n->col, "intervals: coverage '%s': allowed: 0.9", n->scalar);
  const struct ynode *p = ytree_get(root, "provenance");
  if (p && p->kind != YNODE_MAP)
    return nw_fail(err, p->file, p->line, p->col, "intervals: provenance: expected a map, got %s", ytree_kind_name(p));
  if (p && cfg_only_keys(p, "intervals: provenance", prov, err) < 0)
    return -1;
  for (int i = 0; p && i < p->n; i++)
    if (p->kids[i]->kind != YNODE_SCALAR)
      return nw_fail(err, p->kids[i]->file, p->kids[i]->line, p->kids[i]->col,
                     "intervals: provenance: %s: expected text, got %s", p->keys[i], ytree_kind_name(p->kids[i]));
  const struct ynode *ks = ytree_get(root, "kinds");
  if (!ks)
    return nw_fail(err, root->file, root->line, root->col, "intervals: missing 'kinds' (a list of {kind, points, rank, q_log})");
  if (ks->kind != YNODE_SEQ)
    return nw_fail(err, ks->file, ks->line, ks->col, "intervals: kinds: expected a list, got %s", ytree_kind_name(ks));
  unsigned char seen[VAL_NKINDS] = {0};
  for (int i = 0; i < ks->n; i++)
    if (calib_ci_kind_item(ks->kids[i], ci, seen, err) < 0)
      return -1;
  return 0;
}

/* Ordinal suffix of a rank ("1st", "2nd", "3rd", "11th"). */
static const char *calib_ci_th(int k)
{
  if (k % 100 >= 11 && k % 100 <= 13)
    return "th";
  return k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
}

/* Every figure's source text from ci->kind[] (the file applies). */
static void calib_ci_sources(struct calib_ci *ci)
{
  for (int m = 0; m < RES_NCI; m++) {
    const struct calib_ci_kind *x = &ci->kind[calib_ci_kinds[m]];
    const char *name = val_kind_names[calib_ci_kinds[m]];
    char *s = ci->source[m];
    size_t len = sizeof ci->source[m];
    if (x->n == 0)
      snprintf(s, len, "none available: the cross-validation has no held-out %s points", name);
    else if (x->rank == 0)
      snprintf(s, len, "none available: %d held-out %s point%s in the cross-validation, a 90 %% interval needs 9", x->n,
               name, x->n == 1 ? "" : "s");
    else if (!isfinite(x->q_log))
      snprintf(s, len, "none available: the %d%s smallest of %d held-out %s errors is unbounded (a fold's prediction "
                       "failed)", x->rank, calib_ci_th(x->rank), x->n, name);
    else
      snprintf(s, len, "held-out CV, %d %s points, leave-one-experiment-out: value x e^-+%.4g (the %d%s smallest "
                       "|ln(predicted/measured)|)", x->n, name, x->q_log, x->rank, calib_ci_th(x->rank));
  }
}

int calib_ci_load(const struct calib_which *w, struct calib_ci *ci, struct nw_err *err)
{
  memset(ci, 0, sizeof *ci);
  if (!w->path[0])
    return 0;
  char path[1100], shown[1100];
  calib_ci_path(w->path, path, sizeof path);
  calib_ci_path(w->name, shown, sizeof shown);
  char hash[17] = "";
  if (access(path, F_OK) != 0) {
    for (int m = 0; m < RES_NCI; m++)
      snprintf(ci->source[m], sizeof ci->source[m],
               "none available: no cross-validation for this calibration (%.100s not found; nastwin calibrate "
               "--cv-from %.100s writes it)", shown, w->name);
    return 0;
  }
  struct ynode *root = ytree_load_file(path, err);
  if (!root)
    return -1;
  int rc = calib_ci_parse(root, ci, hash, err);
  ytree_free(root);
  if (rc < 0)
    return -1;
  if (strcmp(hash, w->hash)) {
    memset(ci->kind, 0, sizeof ci->kind);
    for (int m = 0; m < RES_NCI; m++)
      snprintf(ci->source[m], sizeof ci->source[m],
               "none available: no cross-validation for this calibration (%.100s is for the calibration with fnv1a64 "
               "%.16s, this one has %.16s; nastwin calibrate --cv-from %.100s writes it anew)",
               shown, hash, w->hash, w->name);
    return 0;
  }
  ci->from_cv = 1;
  calib_ci_sources(ci);
  return 0;
}

void calib_ci_apply(const struct calib_ci *ci, struct run_result *res, int nsteps)
{
  for (int i = 0; i < nsteps; i++) {
    struct run_result *r = &res[i];
    r->has_ci = 1;
    r->ci90_from_cv = ci->from_cv;
    memcpy(r->ci90_source, ci->source, sizeof r->ci90_source);
    struct res_totals *t[3] = {&r->read, &r->write, &r->all};
    for (int d = 0; d < 3; d++) {
      const double v[RES_NCI] = {t[d]->iops, t[d]->MBps, t[d]->lat_mean_s};
      for (int m = 0; m < RES_NCI; m++) {
        const struct calib_ci_kind *x = &ci->kind[calib_ci_kinds[m]];
        int has = ci->from_cv && x->rank > 0 && isfinite(x->q_log);
        t[d]->ci90[m][0] = has ? v[m] * exp(-x->q_log) : NAN;
        t[d]->ci90[m][1] = has ? v[m] * exp(x->q_log) : NAN;
      }
    }
  }
}
