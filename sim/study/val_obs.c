/* val_obs.c - the observations of the review data as constraints.
 *
 * reviews.yaml states some findings in words (`observations`: "smbd
 * saturates one core", "the ARM CPU is the bottleneck").  tests/
 * test_observations.c pins each as a hard test; points.yaml's
 * `observations` list turns the quantitative side of each into a
 * constraint a fit must keep: a resource's busy, a figure or the ratio of
 * one configuration's figure to another's, at least or at most a bound.
 * Only `nastwin calibrate` loads them (as one-sided residual rows), so a
 * refit cannot trade an observation away for a closer review figure. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/val_impl.h"

/* Does the data's `observations` list have this id? */
static int obs_known(const struct val_set *v, const char *id)
{
  const struct ynode *ol = ytree_get(v->data, "observations");
  for (int i = 0; ol && ol->kind == YNODE_SEQ && i < ol->n; i++) {
    const char *oid = val_scalar(ol->kids[i], "id");
    if (oid && !strcmp(oid, id))
      return 1;
  }
  return 0;
}

/* The bound: exactly one of at_least / at_most, a positive number. */
static int obs_bound(const struct ynode *e, struct val_point *p, struct nw_err *err)
{
  const char *lo = val_scalar(e, "at_least"), *hi = val_scalar(e, "at_most");
  if (!lo == !hi)
    return val_at(err, e, "observations: an entry needs exactly one of 'at_least' and 'at_most'%s%s", "", "");
  const char *b = lo ? lo : hi;
  if (val_number(b, &p->measured) < 0 || !(p->measured > 0))
    return val_at(err, ytree_get(e, lo ? "at_least" : "at_most"),
                  "observations: bound '%s' must be a positive number%s", b, "");
  p->bound = lo ? 1 : -1;
  p->weight = 30.0;
  const char *w = val_scalar(e, "weight");
  if (w && (val_number(w, &p->weight) < 0 || !(p->weight > 0)))
    return val_at(err, ytree_get(e, "weight"), "observations: weight '%s' must be a positive number%s", w, "");
  return 0;
}

/* One entry: a point with the bound, its tasks (and the `versus`
 * configuration's after them for a ratio). */
static int obs_add(struct val_set *v, const struct ynode *e, const char *dir, const char *catalog,
                   struct nw_err *err)
{
  if (e->kind != YNODE_MAP)
    return val_at(err, e, "observations: expected a map, got %s%s", ytree_kind_name(e), "");
  const char *id = val_scalar(e, "observation"), *scen = val_scalar(e, "scenario"), *field = val_scalar(e, "field");
  if (!id || !obs_known(v, id))
    return val_at(err, id ? ytree_get(e, "observation") : e,
                  "observations: 'observation' must name an id of the data's observations, got '%s'%s",
                  id ? id : "(missing)", "");
  if (!scen)
    return val_at(err, e, "observations: entry needs 'scenario'%s%s", "", "");
  if (!field || val_field_kind(field) < 0)
    return val_at(err, field ? ytree_get(e, "field") : e,
                  "observations: field '%s' is not allowed; one of: busy:RESOURCE-PREFIX, or a points field "
                  "(read|write|all . MBps|Gbps|iops|lat_mean_ms|...)%s",
                  field ? field : "(missing)", "");
  struct val_point *p = val_point_new(v, e, err);
  if (!p)
    return -1;
  p->result = e;
  val_copy(p->experiment, sizeof p->experiment, id);
  val_copy(p->field, sizeof p->field, field);
  val_copy(p->kase, sizeof p->kase, val_scalar(e, "case"));
  p->kind = (enum val_kind)val_field_kind(field);
  if (obs_bound(e, p, err) < 0)
    return -1;
  char metric[160];
  snprintf(metric, sizeof metric, "%s%s %s %.4g", ytree_get(e, "versus") ? "ratio " : "", field,
           p->bound > 0 ? ">=" : "<=", p->measured);
  val_copy(p->metric, sizeof p->metric, metric);
  if (scen[0] == '/')
    val_copy(p->scenario, sizeof p->scenario, scen);
  else
    snprintf(p->scenario, sizeof p->scenario, "%s/%s", dir, scen);
  char sets[1024] = "";
  if (val_sets_append(ytree_get(e, "set"), sets, sizeof sets, err) < 0)
    return -1;
  p->cfg = val_get_cfg(v, p->scenario, sets, "", catalog, NULL, 0, e, err);
  if (p->cfg < 0 || val_add_tasks(v, p, e, err) < 0)
    return -1;
  val_copy(p->system, sizeof p->system, v->cfgs[p->cfg].s.system_name);
  const struct ynode *vs = ytree_get(e, "versus");
  if (vs) { /* the denominator: the same scenario with these overrides after the entry's */
    p->nnum = p->nsteps;
    if (val_sets_append(vs, sets, sizeof sets, err) < 0)
      return -1;
    int num_cfg = p->cfg;
    p->cfg = val_get_cfg(v, p->scenario, sets, "", catalog, NULL, 0, vs, err);
    if (p->cfg < 0 || val_add_tasks(v, p, e, err) < 0)
      return -1;
    p->cfg = num_cfg;
  }
  p->status = VAL_OK;
  v->npoints++;
  return 0;
}

int val_load_observations(struct val_set *v, const char *points_path, const char *catalog, struct nw_err *err)
{
  if (!points_path)
    points_path = val_default_points();
  const struct ynode *ol = ytree_get(v->points, "observations");
  if (!ol)
    return 0;
  if (ol->kind != YNODE_SEQ)
    return val_at(err, ol, "observations: expected a list, got %s%s", ytree_kind_name(ol), "");
  char dir[400];
  val_dirname(points_path, dir, sizeof dir);
  for (int i = 0; i < ol->n; i++)
    if (obs_add(v, ol->kids[i], dir, catalog, err) < 0)
      return -1;
  return 0;
}
