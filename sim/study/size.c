/* size.c - nastwin size: the cheapest configuration that meets a target.
 *
 * Two kinds of axis.  A range (--vary PATH=LO..HI) is monotone: more is
 * never worse, so it is bisected (integers exactly, values with a unit to
 * 1/64 of the range, rounded up to the next grid value so the answer still
 * meets the target).  A list (--vary PATH=A,B,C: a RAID level, a drive
 * model) is not monotone and is searched exhaustively: every combination
 * of the lists is simulated with the ranges at their maximum (in parallel),
 * the combinations that can meet the target are bisected, cheapest lower
 * bound first, and a combination whose cheapest possible cost (ranges at
 * their minimum) is no better than the best answer so far is pruned
 * (branch and bound).
 * The objective (--objective) is the user's: price (US dollars from
 * catalog/costs.yaml and --price NAME=USD: chassis + drives), watts (the
 * simulated average power at the wall) or bays (drive bays used).  Ties
 * and the bisection itself follow --vary order, smaller values cheaper.
 * When a combination cannot meet the target even at its maximum, "why
 * not" names the resource that caps the closest one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/analysis/analysis.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_opt.h"
#include "sim/config/config.h"
#include "sim/config/ytree.h"
#include "sim/engine/engine.h"
#include "sim/study/calibrate.h"
#include "sim/study/runpool.h"
#include "sim/study/sweep.h"

#define SIZE_MAX_AXES 8
#define SIZE_GRID 64
#define SIZE_MAX_CHOICES 32
#define SIZE_MAX_COMBOS 1024
#define SIZE_MAX_PRICES 256
#define SIZE_INVALID "invalid configuration: "

struct size_axis {
  char path[128];
  char unit[32];
  double lo, hi;
  int integer;
  double value;  /* current (a range) */
  int nchoices;  /* > 0: a list, searched exhaustively */
  char choice[SIZE_MAX_CHOICES][64];
  int pick;      /* current choice */
};

enum size_objective { SIZE_PRICE = 0, SIZE_WATTS, SIZE_BAYS };
static const char *const size_objective_names[] = {"price", "watts", "bays", NULL};

struct size_prices {
  int n;
  char name[SIZE_MAX_PRICES][64];
  double usd[SIZE_MAX_PRICES];
};

struct size_problem {
  const char *file;
  const struct calib_which *calib; /* applied to each configuration as it is loaded */
  const struct cfg_set *base;
  int nbase;
  struct size_axis ax[SIZE_MAX_AXES];
  int nax;
  int metric;
  char op[3];
  double target;
  enum size_objective obj;
  struct size_prices prices;
  int jobs;
  int count; /* simulations so far */
};

/* One configuration to simulate: the sets of the base and of every axis. */
struct size_config {
  struct cfg_set sets[CFG_MAX_SETS];
  int nsets;
  char vals[SIZE_MAX_AXES][64];
};

struct size_batch {
  const char *file;
  const struct calib_which *calib;
  const struct size_config *cfg;
};

static void size_task(void *vctx, int task, struct run_result *out)
{
  struct size_batch *b = vctx;
  struct scenario s;
  struct nw_err err = {0};
  if (calib_cfg_load(b->calib, b->file, NULL, b->cfg[task].sets, b->cfg[task].nsets, NULL, &s, &err) < 0) {
    out->failed = 1;
    snprintf(out->failure, sizeof out->failure, SIZE_INVALID "%.460s", err.msg);
    return;
  }
  engine_run(&s, 0, 0, NULL, out);
  cfg_free(&s);
}

static const char *size_value(const struct size_axis *a, char *buf, size_t n)
{
  if (a->nchoices)
    snprintf(buf, n, "%s", a->choice[a->pick]);
  else if (a->integer)
    snprintf(buf, n, "%.0f", a->value);
  else
    snprintf(buf, n, "%.6g%s", a->value, a->unit);
  return buf;
}

static void size_config_of(const struct size_problem *pb, const struct size_axis *ax,
                           struct size_config *c)
{
  c->nsets = 0;
  for (int i = 0; i < pb->nbase; i++)
    c->sets[c->nsets++] = pb->base[i];
  for (int i = 0; i < pb->nax; i++) {
    size_value(&ax[i], c->vals[i], sizeof c->vals[i]);
    c->sets[c->nsets++] = (struct cfg_set){.path = ax[i].path, .value = c->vals[i]};
  }
}

static int size_parse_list(const char *vals, struct size_axis *a)
{
  const char *p = vals;
  while (*p) {
    size_t k = strcspn(p, ",");
    if (k == 0 || k >= sizeof a->choice[0] || a->nchoices == SIZE_MAX_CHOICES)
      return -1;
    snprintf(a->choice[a->nchoices++], sizeof a->choice[0], "%.*s", (int)k, p);
    p += k + (p[k] == ',');
  }
  return a->nchoices >= 1 ? 0 : -1;
}

static int size_parse_axis(const char *arg, struct size_axis *a)
{
  memset(a, 0, sizeof *a);
  const char *eq = strchr(arg, '='), *dots = strstr(arg, "..");
  if (!eq || eq == arg || eq - arg >= (long)sizeof a->path)
    return -1;
  memcpy(a->path, arg, (size_t)(eq - arg));
  if (!dots || dots < eq)
    return size_parse_list(eq + 1, a);
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

/* catalog/costs.yaml: costs: {NAME: {price_usd: N, source: "..."}}.  0 or -1. */
static int size_load_prices(struct size_prices *pr, struct nw_err *err)
{
  char path[1200];
  snprintf(path, sizeof path, "%s/costs.yaml", cfg_catalog_dir());
  struct ynode *root = ytree_load_file(path, err);
  if (!root)
    return -1;
  const struct ynode *m = ytree_get(root, "costs");
  int rc = 0;
  if (!m || m->kind != YNODE_MAP)
    rc = nw_fail(err, path, root->line, root->col, "costs: expected a top-level map 'costs:'");
  for (int i = 0; !rc && i < m->n && pr->n < SIZE_MAX_PRICES; i++) {
    const struct ynode *e = m->kids[i], *p = ytree_get(e, "price_usd"), *s = ytree_get(e, "source");
    char *end = NULL;
    double v = p && p->kind == YNODE_SCALAR ? strtod(p->scalar, &end) : NAN;
    if (!p || !end || *end || !(v >= 0))
      rc = nw_fail(err, path, e->line, e->col,
                   "costs: entry '%s': price_usd must be a number >= 0 (US dollars)", m->keys[i]);
    else if (!s || s->kind != YNODE_SCALAR || !s->scalar[0])
      rc = nw_fail(err, path, e->line, e->col,
                   "costs: entry '%s': needs a source (or \"user-supplied estimate\")", m->keys[i]);
    else {
      snprintf(pr->name[pr->n], sizeof pr->name[0], "%s", m->keys[i]);
      pr->usd[pr->n++] = v;
    }
  }
  ytree_free(root);
  return rc;
}

static int size_price_of(const struct size_prices *pr, const char *name, double *usd)
{
  for (int i = pr->n - 1; i >= 0; i--) /* --price entries come last and win */
    if (!strcmp(pr->name[i], name)) {
      *usd = pr->usd[i];
      return 0;
    }
  return -1;
}

/* The objective's cost of a configuration (r: its run, for watts; NULL
 * gives a lower bound 0 for watts).  0, or -1 with a message printed. */
static int size_cost(const struct size_problem *pb, const struct size_axis *ax,
                     const struct run_result *r, double *cost)
{
  if (pb->obj == SIZE_WATTS) {
    *cost = r ? r->avg_power_W : 0.0;
    return 0;
  }
  struct size_config c;
  size_config_of(pb, ax, &c);
  struct scenario s;
  struct nw_err err = {0};
  if (calib_cfg_load(pb->calib, pb->file, NULL, c.sets, c.nsets, NULL, &s, &err) < 0)
    return -1; /* not a valid configuration: no cost */
  int rc = 0;
  if (pb->obj == SIZE_BAYS)
    *cost = s.ndisks + s.ncache_devs;
  else {
    double sys = 0, drive = 0, cache = 0;
    const char *missing = size_price_of(&pb->prices, s.system_name, &sys) < 0 ? s.system_name
                          : size_price_of(&pb->prices, s.drive.name, &drive) < 0 ? s.drive.name
                          : s.ncache_devs && size_price_of(&pb->prices, s.cache_drive.name, &cache) < 0
                              ? s.cache_drive.name
                              : NULL;
    if (missing) {
      fprintf(stderr,
              "nastwin: error: no price for catalogue entry '%s': add it to catalog/costs.yaml "
              "(with a source) or give --price %s=USD\n",
              missing, missing);
      rc = -2;
    } else
      *cost = sys + s.ndisks * drive + s.ncache_devs * cache;
  }
  cfg_free(&s);
  return rc;
}

static int size_meets(const struct size_problem *pb, const struct run_result *r)
{
  double v = sweep_metric_value(pb->metric, r);
  const char *op = pb->op;
  return !strcmp(op, ">=") ? v >= pb->target : !strcmp(op, ">") ? v > pb->target
         : !strcmp(op, "<=") ? v <= pb->target : v < pb->target;
}

static void size_print_eval(struct size_problem *pb, const struct size_config *c,
                            const struct run_result *r)
{
  printf("  eval %d:", ++pb->count);
  for (int i = 0; i < pb->nax; i++)
    printf(" %s=%s", pb->ax[i].path, c->vals[i]);
  printf("  ->  %s = %.6g  %s\n", sweep_metric_name(pb->metric),
         sweep_metric_value(pb->metric, r), r->failed ? "FAILED" : size_meets(pb, r) ? "meets" : "misses");
}

/* Simulate n configurations at once; results[n]. */
static int size_run(struct size_problem *pb, const struct size_config *cfg, int n,
                    struct run_result *results)
{
  struct size_batch b = {.file = pb->file, .calib = pb->calib, .cfg = cfg};
  runpool_run(n, pb->jobs, 0.0, size_task, &b, results, NULL);
  for (int i = 0; i < n; i++)
    size_print_eval(pb, &cfg[i], &results[i]);
  return 0;
}

/* One configuration: 1 meets, 0 misses (an invalid one misses too), -1
 * the simulation failed (r filled). */
static int size_eval(struct size_problem *pb, const struct size_axis *ax, struct run_result *r)
{
  struct size_config c;
  size_config_of(pb, ax, &c);
  size_run(pb, &c, 1, r);
  if (r->failed && !strncmp(r->failure, SIZE_INVALID, strlen(SIZE_INVALID)))
    return 0;
  if (r->failed)
    fprintf(stderr, "nastwin: error: simulation failed: %s\n", r->failure);
  return r->failed ? -1 : size_meets(pb, r);
}

/* Bisect the ranges of ax (lists fixed), lexicographically in --vary
 * order, from ax at the maximum (which meets, run in *r).  The answer is
 * left in ax and its run in *r.  0, or -1 when a simulation failed. */
static int size_bisect(struct size_problem *pb, struct size_axis *ax, struct run_result *r)
{
  struct run_result *t = calloc(1, sizeof *t);
  if (!t)
    return -1;
  int rc = 0;
  for (int i = 0; i < pb->nax && !rc; i++) {
    if (ax[i].nchoices)
      continue;
    double lo = ax[i].lo, hi = ax[i].hi; /* hi meets; find the smallest that meets */
    double step = ax[i].integer ? 1.0 : (ax[i].hi - ax[i].lo) / SIZE_GRID;
    ax[i].value = lo;
    int ok = size_eval(pb, ax, t);
    if (ok > 0) {
      hi = lo;
      *r = *t;
    }
    while (ok == 0 && hi - lo > step * 1.0000001) {
      double mid = lo + floor((hi - lo) / step / 2.0) * step;
      ax[i].value = mid;
      int m = size_eval(pb, ax, t);
      if (m < 0)
        ok = -1;
      else if (m) {
        hi = mid;
        *r = *t;
      } else
        lo = mid;
    }
    if (ok < 0)
      rc = -1;
    ax[i].value = hi;
  }
  free(t);
  return rc;
}

/* Set the lists of ax to combination k (the last list varies fastest). */
static void size_pick(struct size_axis *ax, int nax, long k)
{
  for (int i = nax - 1; i >= 0; i--)
    if (ax[i].nchoices) {
      ax[i].pick = (int)(k % ax[i].nchoices);
      k /= ax[i].nchoices;
    }
}

static void size_describe(const struct size_problem *pb, const struct size_axis *ax, char *buf,
                          size_t n)
{
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < pb->nax && len < n; i++) {
    char v[64];
    len += (size_t)snprintf(buf + len, n - len, "%s%s=%s", i ? " " : "", ax[i].path,
                            size_value(&ax[i], v, sizeof v));
  }
}

static void size_print_cost(const struct size_problem *pb, double cost)
{
  if (pb->obj == SIZE_PRICE)
    printf("%.0f USD", cost);
  else if (pb->obj == SIZE_WATTS)
    printf("%.4g W at the wall (simulated)", cost);
  else
    printf("%.0f bay(s)", cost);
}

/* Every combination of the lists at the ranges' maximum, then bisection of
 * those that meet, cheapest lower bound first, pruning the rest. */
static int size_search(struct size_problem *pb)
{
  long ncombo = 1;
  for (int i = 0; i < pb->nax; i++)
    ncombo *= pb->ax[i].nchoices ? pb->ax[i].nchoices : 1;
  if (ncombo > SIZE_MAX_COMBOS) {
    fprintf(stderr, "nastwin: error: %ld combinations of the --vary lists: at most %d\n", ncombo,
            SIZE_MAX_COMBOS);
    return 2;
  }
  struct size_config *cfg = calloc((size_t)ncombo, sizeof *cfg);
  struct size_axis(*axs)[SIZE_MAX_AXES] = calloc((size_t)ncombo, sizeof *axs);
  struct run_result *res = calloc((size_t)ncombo + 1, sizeof *res);
  double *lb = calloc((size_t)ncombo, sizeof *lb);
  int rc = 1;
  if (!cfg || !axs || !res || !lb)
    goto out;
  for (long k = 0; k < ncombo; k++) {
    memcpy(axs[k], pb->ax, sizeof pb->ax);
    size_pick(axs[k], pb->nax, k);
    for (int i = 0; i < pb->nax; i++)
      axs[k][i].value = axs[k][i].hi;
    size_config_of(pb, axs[k], &cfg[k]);
  }
  printf("every combination of the lists with the ranges at their maximum (%ld simulation(s)):\n",
         ncombo);
  size_run(pb, cfg, (int)ncombo, res);
  /* lower bounds: the ranges at their minimum (cost grows along a range) */
  for (long k = 0; k < ncombo; k++) {
    struct size_axis lo[SIZE_MAX_AXES];
    memcpy(lo, axs[k], sizeof lo);
    for (int i = 0; i < pb->nax; i++)
      lo[i].value = lo[i].lo;
    int c = size_cost(pb, lo, NULL, &lb[k]);
    double hi_cost;
    if (c == -2 || (c < 0 && size_cost(pb, axs[k], NULL, &hi_cost) == -2))
      goto out_bad;
    if (c < 0)
      lb[k] = 0.0; /* the minimum is no valid configuration: no bound, no pruning */
  }
  long best = -1, why = -1;
  double best_cost = INFINITY, why_gap = INFINITY;
  struct size_axis best_ax[SIZE_MAX_AXES];
  struct run_result *best_r = &res[ncombo];
  int done[SIZE_MAX_COMBOS] = {0}, pruned = 0;
  for (;;) {
    long k = -1; /* the unexplored combination that meets, cheapest lower bound first */
    for (long j = 0; j < ncombo; j++)
      if (!done[j] && !res[j].failed && size_meets(pb, &res[j]) && (k < 0 || lb[j] < lb[k]))
        k = j;
    if (k < 0)
      break;
    done[k] = 1;
    if (lb[k] >= best_cost) {
      pruned++;
      continue;
    }
    char d[512];
    size_describe(pb, axs[k], d, sizeof d);
    printf("bisecting %s (cost at least ", d);
    size_print_cost(pb, lb[k]);
    printf("):\n");
    struct run_result *r = calloc(1, sizeof *r);
    if (!r || (*r = res[k], size_bisect(pb, axs[k], r)) < 0) {
      free(r);
      goto out;
    }
    double cost;
    if (size_cost(pb, axs[k], r, &cost) == 0 && cost < best_cost) {
      best_cost = cost;
      best = k;
      memcpy(best_ax, axs[k], sizeof best_ax);
      *best_r = *r;
    }
    free(r);
  }
  /* why not: the failing combination closest to the target */
  for (long k = 0; k < ncombo; k++) {
    if (!res[k].failed && size_meets(pb, &res[k]))
      continue;
    double v = sweep_metric_value(pb->metric, &res[k]);
    double gap = res[k].failed || !(v > 0) ? INFINITY : fabs(log(v / pb->target));
    if (why < 0 || gap < why_gap) {
      why = k;
      why_gap = gap;
    }
  }
  char d[512];
  if (best >= 0) {
    size_describe(pb, best_ax, d, sizeof d);
    printf("answer (%d simulation(s), %d combination(s) pruned by their cost bound): %s\n",
           pb->count, pruned, d);
    printf("  %s = %.6g; %s: ", sweep_metric_name(pb->metric),
           sweep_metric_value(pb->metric, best_r), size_objective_names[pb->obj]);
    size_print_cost(pb, best_cost);
    printf("\n  its limit: %s\n", best_r->bottleneck_reason);
  } else
    printf("no configuration in the ranges meets the target (%d simulation(s))\n", pb->count);
  if (why >= 0) {
    size_describe(pb, axs[why], d, sizeof d);
    if (res[why].failed)
      printf("why not %s: %s\n", d, res[why].failure);
    else
      printf("why not %s: at its most, %s = %.6g misses %s %g; what caps it: %s\n", d,
             sweep_metric_name(pb->metric), sweep_metric_value(pb->metric, &res[why]), pb->op,
             pb->target, res[why].bottleneck_reason);
  }
  rc = best >= 0 ? 0 : 1;
  goto out;
out_bad:
  rc = 2;
out:
  free(cfg);
  free(axs);
  free(res);
  free(lb);
  return rc;
}

/* --target METRIC>=VALUE into the problem.  0, or -1 (printed). */
static int size_parse_target(const char *target, struct size_problem *pb)
{
  char mname[64] = "";
  size_t k = strcspn(target, "<>");
  if (k == 0 || k >= sizeof mname || !target[k]) {
    fprintf(stderr, "nastwin: error: --target '%s': expected METRIC>=VALUE (or <=, >, <)\n", target);
    return -1;
  }
  memcpy(mname, target, k);
  size_t oplen = target[k + 1] == '=' ? 2 : 1;
  memcpy(pb->op, target + k, oplen);
  char *end;
  pb->target = strtod(target + k + oplen, &end);
  pb->metric = sweep_metric_find(mname);
  if (pb->metric < 0 || *end || end == target + k + oplen ||
      !isfinite(sweep_metric_value(pb->metric, &(struct run_result){0}))) {
    char list[1024];
    sweep_metric_list(list, sizeof list);
    fprintf(stderr, "nastwin: error: --target '%s': unknown numeric metric or value; metrics: %s\n",
            target, list);
    return -1;
  }
  return 0;
}

static int size_parse_price(const char *val, struct size_prices *pr)
{
  const char *eq = strchr(val, '=');
  char *end;
  double v = eq ? strtod(eq + 1, &end) : NAN;
  if (!eq || eq == val || eq - val >= 64 || *end || end == eq + 1 || !(v >= 0) ||
      pr->n == SIZE_MAX_PRICES) {
    fprintf(stderr,
            "nastwin: error: --price '%s': expected NAME=USD with a catalogue entry name and a "
            "number >= 0, e.g. wd-red-14tb=380\n",
            val);
    return -1;
  }
  snprintf(pr->name[pr->n], sizeof pr->name[0], "%.*s", (int)(eq - val), val);
  pr->usd[pr->n++] = v;
  return 0;
}

static void size_usage(void)
{
  puts("usage: nastwin size SCENARIO.yaml --target \"read_MBps>=2000\" --vary PATH=LO..HI|A,B,...\n"
       "  [--vary ...] [--objective price|watts|bays] [--price NAME=USD]... [--set PATH=VALUE]\n"
       "  [-j N] [--calibrated FILE | --uncalibrated]\n"
       "Finds the cheapest configuration meeting the target.  A range (soc.cores=2..16,\n"
       "soc.clock=1.0GHz..3.0GHz, disks.count=4..8) is taken as monotone and bisected; a list\n"
       "(volume.level=5,6,10  disks.drive=wd-red-14tb,wd-re-4tb) is searched exhaustively,\n"
       "every combination simulated at the ranges' maximum, the feasible ones bisected in\n"
       "order of their cheapest possible cost, the rest pruned by that bound.  Objective:\n"
       "price (default; US dollars of the chassis and drives, catalog/costs.yaml, user-\n"
       "supplied estimates, --price overrides), watts (simulated average power at the wall)\n"
       "or bays (drive bays used).  For the best configuration that misses, 'why not' names\n"
       "the resource that caps it.");
}

int cli_size(int argc, char **argv)
{
  static struct size_problem pb;
  memset(&pb, 0, sizeof pb);
  const char *target = NULL;
  int nsets = 0, rc = 2;
  struct cfg_set sets[CFG_MAX_SETS];
  struct nw_err err = {0};
  static const char *const valued[] = {"--target", "--vary", "--set", "--objective", "--price",
                                       "-j",       "--calibrated", NULL};
  struct calib_use calib = {0};
  if (size_load_prices(&pb.prices, &err) < 0) {
    nw_err_print(&err, stderr);
    return 2;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val;
    if (cli_opt_value(argc, argv, &i, valued, &val) < 0)
      goto out;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      size_usage();
      rc = 0;
      goto out;
    }
    if (calib_use_opt(&calib, a, val))
      continue;
    if (!strcmp(a, "--target"))
      target = val;
    else if (!strcmp(a, "--vary")) {
      if (pb.nax == SIZE_MAX_AXES || size_parse_axis(val, &pb.ax[pb.nax]) < 0) {
        fprintf(stderr,
                "nastwin: error: --vary '%s': expected PATH=LO..HI with LO < HI in one unit "
                "(soc.cores=2..16) or PATH=A,B,... (volume.level=5,6), at most %d axes of at "
                "most %d values\n",
                val, SIZE_MAX_AXES, SIZE_MAX_CHOICES);
        goto out;
      }
      pb.nax++;
    } else if (!strcmp(a, "--objective")) {
      int k = 0;
      while (size_objective_names[k] && strcmp(size_objective_names[k], val))
        k++;
      if (!size_objective_names[k]) {
        fprintf(stderr, "nastwin: error: --objective '%s': expected price, watts or bays\n", val);
        goto out;
      }
      pb.obj = (enum size_objective)k;
    } else if (!strcmp(a, "--price")) {
      if (size_parse_price(val, &pb.prices) < 0)
        goto out;
    } else if (!strcmp(a, "-j")) {
      long j;
      if (cli_opt_int(a, val, 1, 64, &j) < 0)
        goto out;
      pb.jobs = (int)j;
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
      pb.file = a;
  }
  if (!target || !pb.nax) {
    fprintf(stderr, "nastwin: error: size needs --target METRIC>=VALUE and at least one --vary\n");
    goto out;
  }
  if (size_parse_target(target, &pb) < 0)
    goto out;
  /* The calibration is applied to each configuration as it is loaded: a
   * drive or level axis changes which fitted values reach it. */
  struct calib_which w;
  if (calib_use_resolve(&calib, &w, &err) < 0) {
    nw_err_print(&err, stderr);
    goto out;
  }
  pb.calib = &w;
  pb.base = sets;
  pb.nbase = nsets;
  printf("size: target %s %s %g; objective %s; ranges bisected, lists searched exhaustively; %s%s\n",
         sweep_metric_name(pb.metric), pb.op, pb.target, size_objective_names[pb.obj],
         w.path[0] ? "calibration " : "uncalibrated", w.name);
  rc = size_search(&pb);
out:
  for (int i = 0; i < nsets; i++)
    free((char *)sets[i].path);
  return rc;
}
