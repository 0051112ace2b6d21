/* validate.c - pair review results with simulations, run them, compare. */
#include "sim/study/validate.h"
#include "sim/study/val_impl.h"
#include "base/datadir.h"
#include "base/file.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/engine/engine.h"
#include "sim/report/report.h"
#include "sim/study/runpool.h"
#include "sim/report/htmlreport.h"
#include "sim/report/svg.h"

const char *const val_kind_names[VAL_NKINDS] = {
    [VAL_THROUGHPUT] = "throughput", [VAL_IOPS] = "IOPS",         [VAL_LAT_MEAN] = "mean latency",
    [VAL_LAT_TAIL] = "tail latency", [VAL_DURATION] = "duration", [VAL_POWER] = "power",
};

/* The identifying keys of a result (compared with points.yaml `match`). */
static const char *const val_id_keys[] = {"metric", "case", "tool", "system", "protocol", "cache", NULL};

/* Fixed JSON keys of a point (other result keys are printed after them). */
static const char *const val_json_fixed[] = {"experiment", "case",     "system",   "protocol", "cache",
                                             "tool",       "metric",   "measured", "predicted", "error",
                                             "approx",     "skewed",   "status",   NULL};

const char *val_default_data(void)
{
  static char p[1024];
  return p[0] ? p : nw_data_path(p, sizeof p, "validation/reviews.yaml");
}

const char *val_default_points(void)
{
  static char p[1024];
  return p[0] ? p : nw_data_path(p, sizeof p, "validation/points.yaml");
}

int val_at(struct nw_err *err, const struct ynode *n, const char *fmt, const char *a, const char *b)
{
  return nw_fail(err, n ? n->file : "", n ? n->line : 0, n ? n->col : 0, fmt, a, b);
}

const char *val_scalar(const struct ynode *map, const char *key)
{
  const struct ynode *n = ytree_get(map, key);
  return n && n->kind == YNODE_SCALAR ? n->scalar : NULL;
}

void val_copy(char *dst, size_t len, const char *src)
{
  snprintf(dst, len, "%s", src ? src : "");
}

/* A number (plain decimal); 0 or -1. */
int val_number(const char *s, double *out)
{
  if (!s || !*s)
    return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (*end || errno || !isfinite(v))
    return -1;
  *out = v;
  return 0;
}

static int val_true(const char *s)
{
  return s && (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "1"));
}

static int val_in_only(const char *only, const char *id)
{
  if (!only)
    return 1;
  size_t n = strlen(id);
  for (const char *p = only; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !strncmp(p, id, n))
      return 1;
    if (!e)
      break;
    p = e + 1;
  }
  return 0;
}

/* Does a points `match` map identify this result exactly? */
static int val_matches(const struct ynode *match, const struct ynode *result)
{
  for (int k = 0; val_id_keys[k]; k++) {
    const char *a = val_scalar(match, val_id_keys[k]);
    const char *b = val_scalar(result, val_id_keys[k]);
    if ((a == NULL) != (b == NULL))
      return 0;
    if (a && strcmp(a, b))
      return 0;
  }
  return 1;
}

/* "p<P>_ms" with P one of fio's clat percentiles (1, 5, ..., 99.99) -> its
 * index in res_fio_percentiles; -1 when q is not one. */
static int val_fio_pct_index(const char *q)
{
  char *end = NULL;
  if (q[0] != 'p')
    return -1;
  double pct = strtod(q + 1, &end);
  if (end == q + 1 || strcmp(end, "_ms"))
    return -1;
  for (int i = 0; i < RES_FIO_NPCT; i++)
    if (fabs(res_fio_percentiles[i] - pct) < 1e-9)
      return i;
  return -1;
}

/* Field "read.MBps" -> kind; -1 when unknown.  "busy:PREFIX" (the
 * highest busy of the resources whose name starts with PREFIX, 0..1) is
 * allowed only in an observation's constraint, whose kind is not
 * summarised: VAL_THROUGHPUT stands in. */
int val_field_kind(const char *f)
{
  static const char *const dirs[] = {"read.", "write.", "all.", NULL};
  if (!strncmp(f, "busy:", 5) && f[5])
    return VAL_THROUGHPUT;
  if (!strcmp(f, "op.duration_s"))
    return VAL_DURATION;
  if (!strcmp(f, "op.avg_power_W"))
    return VAL_POWER;
  for (int d = 0; dirs[d]; d++) {
    size_t n = strlen(dirs[d]);
    if (strncmp(f, dirs[d], n))
      continue;
    const char *q = f + n;
    if (!strcmp(q, "MBps") || !strcmp(q, "Gbps"))
      return VAL_THROUGHPUT;
    if (!strcmp(q, "iops"))
      return VAL_IOPS;
    if (!strcmp(q, "lat_mean_ms"))
      return VAL_LAT_MEAN;
    if (!strcmp(q, "lat_max_ms") || !strcmp(q, "lat_stddev_ms") || val_fio_pct_index(q) >= 0)
      return VAL_LAT_TAIL;
  }
  return -1;
}

double val_busy_max(const struct run_result *r, const char *prefix)
{
  double best = NAN;
  for (int i = 0; i < r->nres; i++)
    if (!strncmp(r->res[i].name, prefix, strlen(prefix)) && !(r->res[i].busy <= best))
      best = r->res[i].busy;
  return best;
}

/* The predicted quantity of one step's result. */
static double val_field_value(const struct run_result *r, const char *f)
{
  if (!strncmp(f, "busy:", 5))
    return val_busy_max(r, f + 5);
  if (!strcmp(f, "op.duration_s"))
    return r->nops > 0 ? r->ops[0].duration_s : NAN;
  if (!strcmp(f, "op.avg_power_W"))
    return r->nops > 0 ? r->ops[0].avg_power_W : NAN;
  const struct res_totals *t = !strncmp(f, "read.", 5) ? &r->read : !strncmp(f, "write.", 6) ? &r->write : &r->all;
  const char *q = strchr(f, '.') + 1;
  if (!strcmp(q, "MBps"))
    return t->MBps;
  if (!strcmp(q, "Gbps")) /* payload bits: iperf's figure */
    return t->MBps * 8e-3;
  if (!strcmp(q, "iops"))
    return t->iops;
  if (!strcmp(q, "lat_mean_ms"))
    return t->lat_mean_s * 1e3;
  if (!strcmp(q, "lat_max_ms"))
    return t->lat_max_s * 1e3;
  int pct = val_fio_pct_index(q);
  if (pct >= 0) /* fio's percentile of the latency histogram */
    return t->fio_pct_s[pct] * 1e3;
  return t->lat_stddev_s * 1e3;
}

/* Directory part of a path ("." when none). */
void val_dirname(const char *path, char *dir, size_t len)
{
  const char *slash = strrchr(path, '/');
  if (!slash)
    val_copy(dir, len, ".");
  else
    snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* Find or load the scenario (path, sets); index or -1 with err. */
int val_get_cfg(struct val_set *v, const char *path, const char *sets, const char *fio, const char *catalog,
                       const struct cfg_set *extra, int nextra, const struct ynode *where, struct nw_err *err)
{
  for (int i = 0; i < v->ncfgs; i++)
    if (!strcmp(v->cfgs[i].scenario, path) && !strcmp(v->cfgs[i].sets, sets) && !strcmp(v->cfgs[i].fio, fio))
      return i;
  struct val_cfg *nc = realloc(v->cfgs, (size_t)(v->ncfgs + 1) * sizeof *nc);
  if (!nc)
    return val_at(err, where, "out of memory%s%s", "", "");
  v->cfgs = nc;
  struct val_cfg *c = &v->cfgs[v->ncfgs];
  memset(c, 0, sizeof *c);
  val_copy(c->scenario, sizeof c->scenario, path);
  val_copy(c->sets, sizeof c->sets, sets);
  val_copy(c->fio, sizeof c->fio, fio);
  struct cfg_set cs[CFG_MAX_SETS];
  char buf[1024];
  val_copy(buf, sizeof buf, sets);
  int n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq || n >= CFG_MAX_SETS)
      return val_at(err, where, "set: '%s': expected PATH=VALUE%s", tok, "");
    *eq = '\0';
    cs[n++] = (struct cfg_set){.path = tok, .value = eq + 1};
  }
  for (int i = 0; i < nextra && n < CFG_MAX_SETS; i++)
    cs[n++] = extra[i];
  struct nw_err e2 = {0};
  if (cfg_load(path, catalog, cs, n, fio[0] ? fio : NULL, &c->s, &e2) < 0) {
    if (err)
      *err = e2;
    return -1;
  }
  return v->ncfgs++;
}

int val_cfg_reload(const struct val_set *v, int cfg, const char *catalog, const struct cfg_set *extra,
                   int nextra, struct scenario *out, struct nw_err *err)
{
  const struct val_cfg *c = &v->cfgs[cfg];
  struct cfg_set cs[CFG_MAX_SETS];
  char buf[1024];
  val_copy(buf, sizeof buf, c->sets);
  int n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, "\n", &save); tok && n < CFG_MAX_SETS;
       tok = strtok_r(NULL, "\n", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq)
      continue;
    *eq = '\0';
    cs[n++] = (struct cfg_set){.path = tok, .value = eq + 1};
  }
  for (int i = 0; i < nextra; i++) {
    if (n >= CFG_MAX_SETS)
      return nw_fail(err, c->scenario, 0, 0, "more than %d --set overrides", CFG_MAX_SETS);
    cs[n++] = extra[i];
  }
  return cfg_load(c->scenario, catalog, cs, n, c->fio[0] ? c->fio : NULL, out, err);
}

/* Resolve a points entry's steps into tasks of point p. */
int val_add_tasks(struct val_set *v, struct val_point *p, const struct ynode *pe, struct nw_err *err)
{
  const struct scenario *s = &v->cfgs[p->cfg].s;
  int op_only = s->op != STACK_OP_NONE && !s->op_with_workload;
  const struct ynode *steps = ytree_get(pe, "steps");
  int want[VAL_MAX_STEPS], nwant = 0;
  if (op_only || !steps) {
    if (!op_only && s->workload.nsteps != 1)
      return val_at(err, pe, "points: 'steps' is required: the scenario has several steps%s%s", "", "");
    want[nwant++] = 0;
  } else {
    if (steps->kind != YNODE_SEQ)
      return val_at(err, steps, "steps: expected a list of step names, got %s%s", ytree_kind_name(steps), "");
    for (int i = 0; i < steps->n; i++) {
      const struct ynode *sn = steps->kids[i];
      if (sn->kind != YNODE_SCALAR)
        return val_at(err, sn, "steps: expected a step name, got %s%s", ytree_kind_name(sn), "");
      const char *pat = sn->scalar;
      size_t plen = strlen(pat);
      int prefix = plen > 0 && pat[plen - 1] == '*';
      int found = 0;
      for (int k = 0; k < s->workload.nsteps; k++) {
        const char *name = s->workload.steps[k].name;
        if (!strcmp(pat, "all") || (prefix ? !strncmp(name, pat, plen - 1) : !strcmp(name, pat))) {
          if (nwant == VAL_MAX_STEPS)
            return val_at(err, sn, "steps: more than 64 steps for one point%s%s", "", "");
          want[nwant++] = k;
          found = 1;
        }
      }
      if (!found)
        return val_at(err, sn, "steps: no step '%s' in scenario %s", pat, p->scenario);
    }
  }
  for (int i = 0; i < nwant; i++) {
    int t;
    for (t = 0; t < v->ntasks; t++) /* a step that repeats another is its run (workload_steps_same) */
      if (v->tasks[t].cfg == p->cfg &&
          (v->tasks[t].step == want[i] ||
           (!op_only && workload_steps_same(&s->workload.steps[v->tasks[t].step], &s->workload.steps[want[i]]))))
        break;
    if (t == v->ntasks) {
      struct val_task *nt = realloc(v->tasks, (size_t)(v->ntasks + 1) * sizeof *nt);
      if (!nt)
        return val_at(err, pe, "out of memory%s%s", "", "");
      v->tasks = nt;
      v->tasks[v->ntasks++] = (struct val_task){.cfg = p->cfg, .step = want[i]};
    }
    p->tasks[p->nsteps++] = t;
  }
  return 0;
}

/* A `set`-style list (PATH=VALUE items) appended to sets ("a=b\nc=d"). */
int val_sets_append(const struct ynode *sn, char *sets, size_t len, struct nw_err *err)
{
  if (!sn)
    return 0;
  if (sn->kind != YNODE_SEQ)
    return val_at(err, sn, "%s: expected a list of PATH=VALUE, got %s", "set", ytree_kind_name(sn));
  for (int k = 0; k < sn->n; k++) {
    const struct ynode *x = sn->kids[k];
    if (x->kind != YNODE_SCALAR || !strchr(x->scalar, '='))
      return val_at(err, x, "set: expected PATH=VALUE%s%s", "", "");
    size_t used = strlen(sets), n = strlen(x->scalar);
    if (used + n + 2 > len)
      return val_at(err, x, "set: the overrides are longer than %s bytes%s", "1023", "");
    if (used)
      sets[used++] = '\n';
    memcpy(sets + used, x->scalar, n + 1);
  }
  return 0;
}

/* A zeroed point appended to v (not counted in npoints yet); NULL with err. */
struct val_point *val_point_new(struct val_set *v, const struct ynode *where, struct nw_err *err)
{
  struct val_point *np = realloc(v->pts, (size_t)(v->npoints + 1) * sizeof *np);
  if (!np) {
    val_at(err, where, "out of memory%s%s", "", "");
    return NULL;
  }
  v->pts = np;
  memset(&v->pts[v->npoints], 0, sizeof v->pts[v->npoints]);
  return &v->pts[v->npoints];
}

/* Find the points entry for a result and fill p's mapping. */
static int val_map_point(struct val_set *v, struct val_point *p, const char *measure, const char *points_dir,
                         const char *catalog, const struct cfg_set *extra, int nextra, struct nw_err *err)
{
  const struct ynode *list = ytree_get(v->points, "points");
  for (int i = 0; i < list->n; i++) {
    const struct ynode *pe = list->kids[i];
    const char *exp = val_scalar(pe, "experiment");
    const char *ms = val_scalar(pe, "measure");
    if (!exp || strcmp(exp, p->experiment) || strcmp(ms ? ms : "value", measure))
      continue;
    const struct ynode *match = ytree_get(pe, "match");
    if (!match || match->kind != YNODE_MAP)
      return val_at(err, pe, "points: entry needs a 'match' map%s%s", "", "");
    if (!val_matches(match, p->result))
      continue;
    const char *uns = val_scalar(pe, "unsupported");
    if (uns) {
      p->status = VAL_UNSUPPORTED;
      val_copy(p->note, sizeof p->note, uns);
      return 0;
    }
    const char *scen = val_scalar(pe, "scenario");
    const char *field = val_scalar(pe, "field");
    if (!scen)
      return val_at(err, pe, "points: entry needs 'scenario' (or 'unsupported')%s%s", "", "");
    if (!field || val_field_kind(field) < 0)
      return val_at(err, field ? ytree_get(pe, "field") : pe,
                    "points: field '%s' is not allowed; one of: read|write|all . MBps|Gbps|iops|lat_mean_ms|"
                    "lat_max_ms|lat_stddev_ms|p<P>_ms (P a fio percentile: 1 5 10 20 .. 90 95 99 99.5 99.9 "
                    "99.95 99.99), op.duration_s, op.avg_power_W%s",
                    field ? field : "(missing)", "");
    val_copy(p->field, sizeof p->field, field);
    p->kind = (enum val_kind)val_field_kind(field);
    const char *comb = val_scalar(pe, "combine");
    if (!comb || !strcmp(comb, "mean"))
      p->combine = 0;
    else if (!strcmp(comb, "max"))
      p->combine = 1;
    else if (!strcmp(comb, "min"))
      p->combine = 2;
    else
      return val_at(err, ytree_get(pe, "combine"), "combine: '%s' is not allowed; one of: mean, max, min%s", comb, "");
    if (scen[0] == '/')
      val_copy(p->scenario, sizeof p->scenario, scen);
    else
      snprintf(p->scenario, sizeof p->scenario, "%s/%s", points_dir, scen);
    char sets[1024] = "";
    if (val_sets_append(ytree_get(pe, "set"), sets, sizeof sets, err) < 0)
      return -1;
    char fio[512] = "";
    const char *fj = val_scalar(pe, "fio");
    if (fj && fj[0] == '/')
      val_copy(fio, sizeof fio, fj);
    else if (fj)
      snprintf(fio, sizeof fio, "%s/%s", points_dir, fj);
    p->cfg = val_get_cfg(v, p->scenario, sets, fio, catalog, extra, nextra, pe, err);
    if (p->cfg < 0)
      return -1;
    /* A review figure given as a limit ("under 5 ms"): the prediction must
     * not exceed it.  Scored and fitted as a constraint row of the point's
     * own weight, outside the kinds' error statistics. */
    const char *ub = val_scalar(pe, "upper_bound");
    if (ub && strcmp(ub, "true") && strcmp(ub, "false"))
      return val_at(err, ytree_get(pe, "upper_bound"), "points: upper_bound '%s' is not allowed; one of: true, false%s",
                    ub, "");
    if (val_true(ub)) {
      p->bound = -1;
      p->weight = p->approx ? 1.0 / sqrt(2.0) : 1.0;
    }
    p->status = VAL_OK;
    return val_add_tasks(v, p, pe, err);
  }
  p->status = VAL_UNMAPPED;
  val_copy(p->note, sizeof p->note, "no points.yaml entry");
  return 0;
}

/* Append one point for a result (measure = which key holds the figure). */
static int val_add_point(struct val_set *v, const struct ynode *exp, const struct ynode *res, const char *measure,
                         const char *points_dir, const char *catalog, const struct cfg_set *extra, int nextra,
                         struct nw_err *err)
{
  struct val_point *p = val_point_new(v, res, err);
  if (!p)
    return -1;
  p->cfg = -1;
  p->result = res;
  val_copy(p->experiment, sizeof p->experiment, val_scalar(exp, "id"));
  const char *sys = val_scalar(res, "system");
  val_copy(p->system, sizeof p->system, sys ? sys : val_scalar(exp, "system"));
  const char *proto = val_scalar(res, "protocol");
  if (!proto)
    proto = val_scalar(ytree_get(exp, "access"), "protocol");
  val_copy(p->protocol, sizeof p->protocol, proto);
  val_copy(p->cache, sizeof p->cache, val_scalar(res, "cache"));
  val_copy(p->kase, sizeof p->kase, val_scalar(res, "case"));
  val_copy(p->tool, sizeof p->tool, val_scalar(res, "tool"));
  const char *metric = val_scalar(res, "metric");
  if (!metric)
    return val_at(err, res, "result: missing 'metric'%s%s", "", "");
  val_copy(p->metric, sizeof p->metric, strcmp(measure, "value") ? measure : metric);
  const struct ynode *vn = ytree_get(res, measure);
  if (!vn || vn->kind != YNODE_SCALAR || val_number(vn->scalar, &p->measured) < 0 || p->measured <= 0)
    return val_at(err, vn ? vn : res, "result: '%s' must be a positive number%s", measure, "");
  p->approx = val_true(val_scalar(res, "approx"));
  val_copy(p->skewed, sizeof p->skewed, val_scalar(res, "skewed"));
  v->npoints++;
  return val_map_point(v, p, measure, points_dir, catalog, extra, nextra, err);
}

int val_load(const char *data_path, const char *points_path, const char *only, const char *catalog,
             const struct cfg_set *extra_sets, int nextra, struct val_set *v, struct nw_err *err)
{
  memset(v, 0, sizeof *v);
  if (!data_path)
    data_path = val_default_data();
  if (!points_path)
    points_path = val_default_points();
  v->data = ytree_load_file(data_path, err);
  if (!v->data)
    return -1;
  v->points = ytree_load_file(points_path, err);
  if (!v->points)
    return -1;
  const struct ynode *pl = ytree_get(v->points, "points");
  if (!pl || pl->kind != YNODE_SEQ)
    return val_at(err, pl ? pl : v->points, "points file: expected a list 'points'%s%s", "", "");
  for (int i = 0; i < pl->n; i++)
    if (pl->kids[i]->kind != YNODE_MAP)
      return val_at(err, pl->kids[i], "points: expected a map, got %s%s", ytree_kind_name(pl->kids[i]), "");
  char points_dir[512];
  val_dirname(points_path, points_dir, sizeof points_dir);
  if (v->data->kind != YNODE_MAP)
    return val_at(err, v->data, "data: expected a map with 'experiments', got %s%s", ytree_kind_name(v->data), "");
  const struct ynode *exps = ytree_get(v->data, "experiments");
  if (!exps || exps->kind != YNODE_SEQ)
    return val_at(err, exps ? exps : v->data, "data: expected a list 'experiments'%s%s", "", "");
  for (int i = 0; i < exps->n; i++) {
    const struct ynode *e = exps->kids[i];
    if (e->kind != YNODE_MAP)
      return val_at(err, e, "experiments: expected a map, got %s%s", ytree_kind_name(e), "");
    const char *id = val_scalar(e, "id");
    if (!id)
      return val_at(err, e, "experiment: missing 'id'%s%s", "", "");
    const struct ynode *rs = ytree_get(e, "results");
    if (!rs || rs->kind != YNODE_SEQ)
      return val_at(err, rs ? rs : e, "experiment %s: expected a list 'results'%s", id, "");
    if (!val_in_only(only, id))
      continue;
    for (int k = 0; k < rs->n; k++) {
      const struct ynode *r = rs->kids[k];
      if (r->kind != YNODE_MAP)
        return val_at(err, r, "results: expected a map, got %s%s", ytree_kind_name(r), "");
      if (val_add_point(v, e, r, "value", points_dir, catalog, extra_sets, nextra, err) < 0)
        return -1;
      if (ytree_get(r, "avg_power_W") &&
          val_add_point(v, e, r, "avg_power_W", points_dir, catalog, extra_sets, nextra, err) < 0)
        return -1;
    }
  }
  if (only && v->npoints == 0)
    return nw_fail(err, data_path, 0, 0, "--only '%s': no experiment with that id", only);
  return 0;
}

static void val_task_fn(void *ctx, int task, struct run_result *out)
{
  const struct val_set *v = ctx;
  const struct val_task *t = &v->tasks[task];
  engine_run(&v->cfgs[t->cfg].s, t->step, 0, NULL, out);
}

int val_run(struct val_set *v, int njobs, int quiet)
{
  free(v->results);
  v->results = calloc((size_t)(v->ntasks > 0 ? v->ntasks : 1), sizeof *v->results);
  if (!v->results)
    return v->npoints;
  if (v->ntasks > 0)
    runpool_run(v->ntasks, njobs, 300.0, val_task_fn, v, v->results,
                quiet ? runpool_no_progress : NULL); /* NULL: the pool's bar on a terminal */
  return val_score(v);
}

/* 1 when field f is a figure of the step's client I/Os (not an
 * operation's duration or power, nor a thread's busy share). */
static int val_client_field(const char *f)
{
  return strncmp(f, "op.", 3) != 0 && strncmp(f, "busy:", 5) != 0;
}

/* Combine the field over tasks [k0, k1) of p into *x; 0, or -1 with p FAILED. */
static int val_combine(const struct val_set *v, struct val_point *p, int k0, int k1, double *x)
{
  double acc = p->combine == 1 ? -INFINITY : p->combine == 2 ? INFINITY : 0.0;
  for (int k = k0; k < k1; k++) {
    const struct run_result *r = &v->results[p->tasks[k]];
    double y = val_field_value(r, p->field);
    if (r->failed || !isfinite(y)) {
      p->status = VAL_FAILED;
      snprintf(p->note, sizeof p->note, "step %s: %s", r->step,
               r->failed ? r->failure : "no such quantity in the result");
      return -1;
    }
    acc = p->combine == 1 ? fmax(acc, y) : p->combine == 2 ? fmin(acc, y) : acc + y;
    if (val_client_field(p->field)) {
      p->transient |= !r->steady;
      p->few_ios |= r->few_ios;
    }
  }
  *x = p->combine == 0 ? acc / (k1 - k0) : acc;
  return 0;
}

int val_score(struct val_set *v)
{
  int failed = 0;
  for (int i = 0; i < v->npoints; i++) {
    struct val_point *p = &v->pts[i];
    if (p->status != VAL_OK && p->status != VAL_FAILED)
      continue;
    p->status = VAL_OK;
    p->transient = p->few_ios = 0;
    double num, den = 1.0;
    if (val_combine(v, p, 0, p->nnum > 0 ? p->nnum : p->nsteps, &num) < 0 ||
        (p->nnum > 0 && val_combine(v, p, p->nnum, p->nsteps, &den) < 0)) {
      failed++;
      continue;
    }
    p->predicted = num / den;
    p->error = p->predicted / (p->measured * (1.0 + VAL_OBS_MARGIN * p->bound)) - 1.0;
    if (!p->bound)
      p->error = p->predicted / p->measured - 1.0;
    else if ((p->bound > 0 && p->error > 0) || (p->bound < 0 && p->error < 0))
      p->error = 0.0; /* the fit's target is met */
  }
  return failed;
}

void val_free(struct val_set *v)
{
  if (!v)
    return;
  for (int i = 0; i < v->ncfgs; i++)
    cfg_free(&v->cfgs[i].s);
  free(v->cfgs);
  free(v->tasks);
  free(v->results);
  free(v->pts);
  ytree_free(v->data);
  ytree_free(v->points);
  memset(v, 0, sizeof *v);
}

static int val_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Linear-interpolated quantile of sorted x[n]. */
static double val_quantile(const double *x, int n, double q)
{
  double pos = q * (n - 1);
  int lo = (int)floor(pos);
  int hi = lo + 1 < n ? lo + 1 : lo;
  return x[lo] + (pos - lo) * (x[hi] - x[lo]);
}

int val_summary(const struct val_set *v, enum val_kind k, double *median, double *p90)
{
  double *e = malloc((size_t)(v->npoints > 0 ? v->npoints : 1) * sizeof *e);
  int n = 0;
  *median = *p90 = 0.0;
  if (!e)
    return 0;
  for (int i = 0; i < v->npoints; i++) {
    const struct val_point *p = &v->pts[i];
    if (p->status == VAL_OK && p->kind == k && !p->skewed[0] && !p->bound)
      e[n++] = fabs(p->error);
  }
  if (n > 0) {
    qsort(e, (size_t)n, sizeof *e, val_cmp_double);
    *median = val_quantile(e, n, 0.5);
    *p90 = val_quantile(e, n, 0.9);
  }
  free(e);
  return n;
}

/* "case / tool" label of a point. */
void val_label(const struct val_point *p, char *buf, size_t len)
{
  snprintf(buf, len, "%s%s%s%s%s%s%s%s%s", p->system, p->protocol[0] ? " " : "", p->protocol,
           p->cache[0] ? " cache-" : "", p->cache, p->kase[0] ? " " : "", p->kase, p->tool[0] ? " " : "",
           p->tool);
}

void val_print_table(const struct val_set *v, FILE *out)
{
  fprintf(out, "%-38s %-24s %-60.60s %12s %12s %9s  %s\n", "experiment", "metric", "case", "measured",
          "predicted", "error", "flags");
  for (int i = 0; i < v->npoints; i++) {
    const struct val_point *p = &v->pts[i];
    char label[512];
    val_label(p, label, sizeof label);
    char flags[96];
    snprintf(flags, sizeof flags, "%s%s%s%s%s", p->approx ? "approx " : "", p->skewed[0] ? "skewed " : "",
             p->bound < 0 ? (p->predicted > p->measured ? "limit-exceeded " : "within-limit ") : "",
             p->status == VAL_OK && p->transient ? "transient " : "",
             p->status == VAL_OK && p->few_ios ? "few-ios " : "");
    if (p->status == VAL_OK)
      fprintf(out, "%-38s %-24s %-60.60s %12.5g %12.5g %+8.1f%%  %s\n", p->experiment, p->metric, label,
              p->measured, p->predicted, 100.0 * p->error, flags);
    else
      fprintf(out, "%-38s %-24s %-60.60s %12.5g %12s %9s  %s%s: %s\n", p->experiment, p->metric, label,
              p->measured, "-", "-", flags,
              p->status == VAL_FAILED        ? "FAILED"
              : p->status == VAL_UNSUPPORTED ? "not modelled"
                                             : "unmapped",
              p->note);
  }
  if (v->calib_name[0])
    fprintf(out, "\ncalibration %s (fnv1a64 %s)\n", v->calib_name, v->calib_hash);
  else
    fputs("\nuncalibrated: catalogue values\n", out);
  fprintf(out, "summary of |predicted/measured - 1| (skewed points excluded):\n");
  fprintf(out, "  %-14s %6s %10s %10s\n", "kind", "points", "median", "p90");
  int ntail = 0;
  for (int k = 0; k < VAL_NKINDS; k++) {
    double med, p90;
    int n = val_summary(v, (enum val_kind)k, &med, &p90);
    if (k == VAL_LAT_TAIL)
      ntail = n;
    if (n > 0)
      fprintf(out, "  %-14s %6d %9.1f%% %9.1f%%\n", val_kind_names[k], n, 100.0 * med, 100.0 * p90);
    else
      fprintf(out, "  %-14s %6d %10s %10s\n", val_kind_names[k], 0, "-", "-");
  }
  if (ntail > 0)
    fprintf(out, "  (tail latency: max and stddev, set by rare events over the review's whole run, minutes long;\n"
                 "   the points' windows are seconds: not comparable, and not fitted)\n");
}

static int val_is_fixed(const char *key)
{
  for (int i = 0; val_json_fixed[i]; i++)
    if (!strcmp(val_json_fixed[i], key))
      return 1;
  return 0;
}

/* A scalar as a JSON number when it is one, else a string. */
static void val_json_scalar(FILE *out, const char *s)
{
  double x;
  if (val_number(s, &x) == 0)
    fprintf(out, "%.10g", x);
  else if (!strcmp(s, "true") || !strcmp(s, "false"))
    fputs(s, out);
  else
    report_json_string(out, s);
}

void val_print_json(const struct val_set *v, FILE *out)
{
  static const char *const st[] = {"ok", "failed", "unsupported", "unmapped"};
  fputs("{\"calibration\": ", out);
  report_calib_json(out, v->calib_name, v->calib_hash);
  fputs(",\n\"points\": [", out);
  for (int i = 0; i < v->npoints; i++) {
    const struct val_point *p = &v->pts[i];
    fputs(i ? ",\n  {" : "\n  {", out);
    const char *kv[][2] = {{"experiment", p->experiment}, {"case", p->kase},         {"system", p->system},
                           {"protocol", p->protocol},     {"cache", p->cache},       {"tool", p->tool},
                           {"metric", p->metric},         {"status", st[p->status]}, {"kind", val_kind_names[p->kind]},
                           {"field", p->field},           {"scenario", p->scenario}, {"note", p->note}};
    for (size_t k = 0; k < sizeof kv / sizeof kv[0]; k++) {
      fprintf(out, "%s\"%s\": ", k ? ", " : "", kv[k][0]);
      report_json_string(out, kv[k][1]);
    }
    fprintf(out, ", \"measured\": %.10g", p->measured);
    if (p->status == VAL_OK)
      fprintf(out, ", \"predicted\": %.10g, \"error\": %.10g", p->predicted, p->error);
    else
      fputs(", \"predicted\": null, \"error\": null", out);
    fprintf(out, ", \"approx\": %s, \"transient\": %s, \"few_ios\": %s, \"skewed\": ", p->approx ? "true" : "false",
            p->status == VAL_OK && p->transient ? "true" : "false", p->status == VAL_OK && p->few_ios ? "true" : "false");
    if (p->skewed[0])
      report_json_string(out, p->skewed);
    else
      fputs("false", out);
    const struct ynode *r = p->result;
    for (int k = 0; k < r->n; k++) {
      if (val_is_fixed(r->keys[k]) || r->kids[k]->kind != YNODE_SCALAR || !strcmp(r->keys[k], "kind") ||
          !strcmp(r->keys[k], "field") || !strcmp(r->keys[k], "scenario") || !strcmp(r->keys[k], "note"))
        continue;
      fputs(", ", out);
      report_json_string(out, r->keys[k]);
      fputs(": ", out);
      val_json_scalar(out, r->kids[k]->scalar);
    }
    const char *rn = val_scalar(r, "note");
    if (rn) {
      fputs(", \"review_note\": ", out);
      report_json_string(out, rn);
    }
    fputs("}", out);
  }
  fputs("\n],\n\"summary\": {", out);
  for (int k = 0; k < VAL_NKINDS; k++) {
    double med, p90;
    int n = val_summary(v, (enum val_kind)k, &med, &p90);
    fprintf(out, "%s\n  \"%s\": {\"points\": %d, \"median_abs_error\": %.10g, \"p90_abs_error\": %.10g}", k ? "," : "",
            val_kind_names[k], n, med, p90);
  }
  fputs("\n}}\n", out);
}

static void val_html_body(const struct val_set *v, FILE *out)
{
  char systems[16][64];
  int nsys = 0;
  for (int i = 0; i < v->npoints; i++) {
    const struct val_point *p = &v->pts[i];
    if (p->status != VAL_OK || p->predicted <= 0)
      continue;
    int s;
    for (s = 0; s < nsys; s++)
      if (!strcmp(systems[s], p->system))
        break;
    if (s == nsys && nsys < 16)
      val_copy(systems[nsys++], sizeof systems[0], p->system);
  }
  fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>nastwin validation</title>\n"
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:12px}"
        "td,th{border:1px solid #ccc;padding:2px 6px}td.n{text-align:right}</style></head><body>\n"
        "<h1>nastwin: predicted vs measured</h1>\n",
        out);
  /* Scatter: one panel per metric kind and unit (htmlreport_scatter),
   * one colour per system, skewed points faint.  A Gbit/s field goes in
   * the MB/s panel of its kind (x 125), its hover label in Gbit/s. */
  static const char *const units[][2] = {{"MBps", "MB/s"}, {"iops", "IO/s"}, {"_ms", "ms"},
                                         {"_s", "s"},      {"_W", "W"}};
  const char *legend[16];
  for (int s = 0; s < nsys; s++)
    legend[s] = systems[s];
  struct htmlreport_scatter_pt *pts = malloc((size_t)(v->npoints > 0 ? v->npoints : 1) * sizeof *pts);
  char (*tips)[1024] = malloc((size_t)(v->npoints > 0 ? v->npoints : 1) * sizeof *tips);
  fputs("<h2>Predicted vs measured, one panel per metric (log-log)</h2>\n", out);
  for (int k = 0; k < VAL_NKINDS && pts && tips; k++)
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
      int n = 0;
      for (int i = 0; i < v->npoints; i++) {
        const struct val_point *p = &v->pts[i];
        size_t fl = strlen(p->field), ul = strlen(units[u][0]);
        int gbps = u == 0 && fl >= 4 && !strcmp(p->field + fl - 4, "Gbps");
        if (p->status != VAL_OK || p->predicted <= 0 || p->measured <= 0 || (int)p->kind != k ||
            (!gbps && (fl < ul || strcmp(p->field + fl - ul, units[u][0]))))
          continue;
        double f = gbps ? 125.0 : 1.0; /* 1 Gbit/s = 125 MB/s */
        const char *shown = gbps ? "Gbit/s" : units[u][1];
        int s;
        for (s = 0; s < nsys; s++)
          if (!strcmp(systems[s], p->system))
            break;
        char label[512];
        val_label(p, label, sizeof label);
        snprintf(tips[n], sizeof tips[n], "%s %s %s: measured %.5g %s, predicted %.5g %s (%+.1f%%)%s",
                 p->experiment, p->metric, label, p->measured, shown, p->predicted, shown,
                 100 * p->error, p->skewed[0] ? ", skewed" : "");
        pts[n] = (struct htmlreport_scatter_pt){.measured = p->measured * f, .predicted = p->predicted * f,
                                                .colour = s, .opacity = p->skewed[0] ? 0.2 : 0.8, .tip = tips[n]};
        n++;
      }
      if (n == 0)
        continue;
      char title[160];
      snprintf(title, sizeof title, "%s (%s): predicted vs measured, %d point%s; shaded within 10 %% and 25 %%; "
               "faint: skewed", val_kind_names[k], units[u][1], n, n == 1 ? "" : "s");
      htmlreport_scatter(out, title, units[u][1], pts, n, legend, nsys);
    }
  free(pts);
  free(tips);
  /* Per-experiment bars: median |error| of its OK, non-skewed points. */
  const struct ynode *exps = ytree_get(v->data, "experiments");
  int nexp = exps ? exps->n : 0;
  fputs("<h2>Median |error| per experiment</h2>\n", out);
  double *e = malloc((size_t)(v->npoints > 0 ? v->npoints : 1) * sizeof *e);
  double *med = calloc((size_t)nexp + 1, sizeof *med);
  const char **ids = calloc((size_t)nexp + 1, sizeof *ids);
  const char **notes = calloc((size_t)nexp + 1, sizeof *notes);
  char (*note)[48] = calloc((size_t)nexp + 1, sizeof *note);
  for (int x = 0; x < nexp && e && med && ids && notes && note; x++) {
    const char *id = val_scalar(exps->kids[x], "id");
    int n = 0;
    for (int i = 0; i < v->npoints; i++)
      if (id && !strcmp(v->pts[i].experiment, id) && v->pts[i].status == VAL_OK && !v->pts[i].skewed[0])
        e[n++] = fabs(v->pts[i].error);
    if (n > 0) {
      qsort(e, (size_t)n, sizeof *e, val_cmp_double);
      med[x] = 100 * val_quantile(e, n, 0.5);
    }
    ids[x] = id ? id : "?";
    snprintf(note[x], sizeof note[x], "%s(%d point%s)", n ? "" : "no points ", n, n == 1 ? "" : "s");
    notes[x] = note[x];
  }
  if (e && med && ids && notes && note)
    svg_hbars(out, "Median |error| per experiment (%, bar capped at 200%)", ids, med, notes, nexp, 200.0, "%",
              2);
  free(e);
  free(med);
  free(ids);
  free(notes);
  free(note);
  fputs("<h2>Points</h2>\n<table><tr><th>experiment</th><th>metric</th><th>case</th><th>measured</th>"
        "<th>predicted</th><th>error</th><th>flags</th></tr>\n",
        out);
  for (int i = 0; i < v->npoints; i++) {
    const struct val_point *p = &v->pts[i];
    char label[512];
    val_label(p, label, sizeof label);
    fputs("<tr><td>", out);
    svg_escape(out, p->experiment);
    fputs("</td><td>", out);
    svg_escape(out, p->metric);
    fputs("</td><td>", out);
    svg_escape(out, label);
    fprintf(out, "</td><td class=\"n\">%.5g</td>", p->measured);
    if (p->status == VAL_OK)
      fprintf(out, "<td class=\"n\">%.5g</td><td class=\"n\">%+.1f%%</td>", p->predicted, 100 * p->error);
    else
      fputs("<td>-</td><td>-</td>", out);
    fprintf(out, "<td>%s%s", p->approx ? "approx " : "", p->skewed[0] ? "skewed " : "");
    svg_escape(out, p->note);
    fputs("</td></tr>\n", out);
  }
  fputs("</table>\n</body></html>\n", out);
}

int val_write_html(const struct val_set *v, const char *dir, struct nw_err *err)
{
  if (mkdir(dir, 0777) < 0 && errno != EEXIST)
    return nw_fail(err, dir, 0, 0, "cannot create directory: %s", strerror(errno));
  char final[1024];
  snprintf(final, sizeof final, "%s/index.html", dir);
  struct file_atomic a;
  if (file_atomic_open(&a, final, err) != 0)
    return -1;
  val_html_body(v, a.f);
  return file_atomic_commit(&a, 0, err);
}
