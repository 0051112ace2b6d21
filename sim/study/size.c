/* size.c - nastwin size: the cheapest configuration that meets a target.
 *
 * Axes (--vary PATH=LO..HI) are assumed monotone: more is never worse.
 * Cost is lexicographic in the order the --vary flags are given, smaller
 * values cheaper: the first axis is minimised with every later axis at its
 * maximum, then fixed, then the second, and so on.  Each axis is bisected:
 * integers exactly, values with a unit ("1.0GHz..3.0GHz") to 1/64 of the
 * range (rounded up to the next grid value, so the answer still meets the
 * target).  Every evaluation is one simulation in the run pool. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/cli/cli_opt.h"
#include "sim/config/config.h"
#include "sim/engine/engine.h"
#include "sim/study/calibrate.h"
#include "sim/study/runpool.h"
#include "sim/study/sweep.h"

#define SIZE_MAX_AXES 8
#define SIZE_GRID 64

struct size_axis {
  char path[128];
  char unit[32];
  double lo, hi;
  int integer;
  double value; /* current */
};

struct size_ctx {
  const char *file;
  struct cfg_set sets[CFG_MAX_SETS];
  int nsets;
};

static void size_task(void *vctx, int task, struct run_result *out)
{
  struct size_ctx *c = vctx;
  struct scenario s;
  struct nw_err err = {0};
  (void)task;
  if (cfg_load(c->file, NULL, c->sets, c->nsets, NULL, &s, &err) < 0) {
    out->failed = 1;
    snprintf(out->failure, sizeof out->failure, "%.500s", err.msg);
    return;
  }
  engine_run(&s, 0, 0, NULL, out);
  cfg_free(&s);
}

static void size_fmt(const struct size_axis *a, double v, char *buf, size_t n)
{
  if (a->integer)
    snprintf(buf, n, "%.0f", v);
  else
    snprintf(buf, n, "%.6g%s", v, a->unit);
}

static int size_parse_axis(const char *arg, struct size_axis *a)
{
  memset(a, 0, sizeof *a);
  const char *eq = strchr(arg, '='), *dots = strstr(arg, "..");
  if (!eq || !dots || dots < eq || eq - arg >= (long)sizeof a->path)
    return -1;
  memcpy(a->path, arg, (size_t)(eq - arg));
  char lo_text[64], *end;
  if (dots - eq - 1 >= (long)sizeof lo_text)
    return -1;
  snprintf(lo_text, sizeof lo_text, "%.*s", (int)(dots - eq - 1), eq + 1);
  a->lo = strtod(lo_text, &end);
  if (end == lo_text)
    return -1;
  char u1[32] = "", u2[32] = "";
  snprintf(u1, sizeof u1, "%s", end);
  const char *h = dots + 2;
  a->hi = strtod(h, &end);
  if (end == h)
    return -1;
  snprintf(u2, sizeof u2, "%s", end);
  if (strcmp(u1, u2) || !(a->hi > a->lo))
    return -1;
  snprintf(a->unit, sizeof a->unit, "%s", u1);
  a->integer = !u1[0] && a->lo == floor(a->lo) && a->hi == floor(a->hi);
  a->value = a->hi;
  return 0;
}

/* Evaluate the current values; returns 1 if the target is met, 0 if not, -1 on failure. */
static int size_eval(const char *file, const struct cfg_set *base, int nbase,
                     const struct size_axis *ax, int nax, int metric, const char *op,
                     double target, int *count)
{
  struct size_ctx c = {.file = file};
  char vals[SIZE_MAX_AXES][64];
  for (int i = 0; i < nbase; i++)
    c.sets[c.nsets++] = base[i];
  for (int i = 0; i < nax; i++) {
    size_fmt(&ax[i], ax[i].value, vals[i], sizeof vals[i]);
    c.sets[c.nsets++] = (struct cfg_set){.path = ax[i].path, .value = vals[i]};
  }
  struct run_result *r = calloc(1, sizeof *r);
  if (!r)
    return -1;
  runpool_run(1, 1, 0.0, size_task, &c, r, NULL);
  double v = sweep_metric_value(metric, r);
  int ok = !strcmp(op, ">=") ? v >= target : !strcmp(op, ">") ? v > target
           : !strcmp(op, "<=") ? v <= target : v < target;
  printf("  eval %d:", ++*count);
  for (int i = 0; i < nax; i++)
    printf(" %s=%s", ax[i].path, vals[i]);
  printf("  ->  %s = %.6g  %s\n", sweep_metric_name(metric), v,
         r->failed ? "FAILED" : ok ? "meets" : "misses");
  int rc = r->failed ? -1 : ok;
  if (r->failed)
    fprintf(stderr, "nastwin: error: simulation failed: %s\n", r->failure);
  free(r);
  return rc;
}

int cli_size(int argc, char **argv)
{
  const char *file = NULL, *target = NULL;
  struct size_axis ax[SIZE_MAX_AXES];
  int nax = 0, nsets = 0, rc = 2;
  struct cfg_set sets[CFG_MAX_SETS];
  static const char *const valued[] = {"--target", "--vary", "--set", "--calibrated", NULL};
  struct calib_use calib = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val;
    if (cli_opt_value(argc, argv, &i, valued, &val) < 0)
      goto out;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      puts("usage: nastwin size SCENARIO.yaml --target \"read_MBps>=2000\" --vary PATH=LO..HI...\n"
           "  [--set PATH=VALUE] [--calibrated FILE | --uncalibrated]\n"
           "Finds the cheapest configuration meeting the target by bisection, assuming each\n"
           "axis is monotone (more never hurts).  Cost: lexicographic in --vary order, smaller\n"
           "values cheaper.  E.g. --vary soc.cores=2..16 --vary soc.clock=1.0GHz..3.0GHz\n"
           "The shipped validation/calibrated.yaml applies unless --calibrated or --uncalibrated.");
      return 0;
    }
    if (calib_use_opt(&calib, a, val))
      continue;
    if (!strcmp(a, "--target"))
      target = val;
    else if (!strcmp(a, "--vary")) {
      if (nax == SIZE_MAX_AXES || size_parse_axis(val, &ax[nax]) < 0) {
        fprintf(stderr,
                "nastwin: error: --vary '%s': expected PATH=LO..HI with LO < HI in one unit, "
                "e.g. soc.cores=2..16 (at most %d axes)\n",
                val, SIZE_MAX_AXES);
        goto out;
      }
      nax++;
    } else if (!strcmp(a, "--set")) {
      const char *eq = strchr(val, '=');
      if (!eq || eq == val || nsets == CFG_MAX_SETS - SIZE_MAX_AXES) {
        fprintf(stderr, "nastwin: error: --set '%s': expected PATH=VALUE\n", val);
        goto out;
      }
      sets[nsets++] = (struct cfg_set){.path = strndup(val, (size_t)(eq - val)), .value = eq + 1};
    } else if (a[0] == '-') {
      fprintf(stderr, "nastwin: error: unknown option '%s' (see nastwin size --help)\n", a);
      goto out;
    } else
      file = a;
  }
  if (!target || !nax) {
    fprintf(stderr, "nastwin: error: size needs --target METRIC>=VALUE and at least one --vary\n");
    goto out;
  }
  char mname[64] = "", op[3] = "";
  size_t k = strcspn(target, "<>");
  if (k == 0 || k >= sizeof mname || !target[k]) {
    fprintf(stderr, "nastwin: error: --target '%s': expected METRIC>=VALUE (or <=, >, <)\n", target);
    goto out;
  }
  memcpy(mname, target, k);
  size_t oplen = target[k + 1] == '=' ? 2 : 1;
  memcpy(op, target + k, oplen);
  char *end;
  double tval = strtod(target + k + oplen, &end);
  int metric = sweep_metric_find(mname);
  if (metric < 0 || *end || end == target + k + oplen || !isfinite(sweep_metric_value(metric, &(struct run_result){0}))) {
    char list[1024];
    sweep_metric_list(list, sizeof list);
    fprintf(stderr, "nastwin: error: --target '%s': unknown numeric metric or value; metrics: %s\n",
            target, list);
    goto out;
  }
  struct calib_which w;
  struct nw_err err = {0};
  struct cfg_set all[CFG_MAX_SETS];
  static char calib_text[65536];
  int nall = calib_use_resolve(&calib, &w, &err) < 0
                 ? -1
                 : calib_sets(&w, file, NULL, sets, nsets, NULL, all, CFG_MAX_SETS - SIZE_MAX_AXES, calib_text,
                              sizeof calib_text, &err);
  if (nall < 0) {
    nw_err_print(&err, stderr);
    goto out;
  }
  int count = 0;
  rc = 1;
  printf("size: target %s %s %g; cost: lexicographic in --vary order, smaller is cheaper; %s%s\n",
         sweep_metric_name(metric), op, tval, w.path[0] ? "calibration " : "uncalibrated", w.name);
  int ok = size_eval(file, all, nall, ax, nax, metric, op, tval, &count);
  if (ok < 0)
    goto out;
  if (!ok) {
    printf("no configuration in the ranges meets the target (all axes at their maximum miss)\n");
    goto out;
  }
  for (int i = 0; i < nax; i++) {
    double lo = ax[i].lo, hi = ax[i].hi; /* hi meets; find the smallest that meets */
    double step = ax[i].integer ? 1.0 : (ax[i].hi - ax[i].lo) / SIZE_GRID;
    ax[i].value = lo;
    int r = size_eval(file, all, nall, ax, nax, metric, op, tval, &count);
    if (r < 0)
      goto out;
    if (r) {
      hi = lo;
    } else {
      while (hi - lo > step * 1.0000001) {
        double mid = lo + floor((hi - lo) / step / 2.0) * step;
        ax[i].value = mid;
        r = size_eval(file, all, nall, ax, nax, metric, op, tval, &count);
        if (r < 0)
          goto out;
        if (r)
          hi = mid;
        else
          lo = mid;
      }
    }
    ax[i].value = hi;
  }
  printf("answer (%d evaluations):", count);
  for (int i = 0; i < nax; i++) {
    char v[64];
    size_fmt(&ax[i], ax[i].value, v, sizeof v);
    printf(" %s=%s", ax[i].path, v);
  }
  printf("\n");
  rc = 0;
out:
  for (int i = 0; i < nsets; i++)
    free((char *)sets[i].path);
  return rc;
}
