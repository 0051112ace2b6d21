/* flow_star.c - stars: one-bottleneck components of the fluid network
 * model in virtual time (struct flow_star, flow_impl.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "sim/engine/flow_impl.h"


static int star_before(const struct flow_net *n, int a, int b)
{
  const struct flow *x = &n->f[a], *y = &n->f[b];
  return x->key < y->key || (x->key == y->key && x->seq > y->seq);
}

static void star_set(struct flow_net *n, struct flow_star *st, int at, int fi)
{
  st->h[at] = fi;
  n->f[fi].lheap = at;
}

static void star_up(struct flow_net *n, struct flow_star *st, int at)
{
  int fi = st->h[at];
  while (at > 0 && star_before(n, fi, st->h[(at - 1) / 2])) {
    star_set(n, st, at, st->h[(at - 1) / 2]);
    at = (at - 1) / 2;
  }
  star_set(n, st, at, fi);
}

static void star_down(struct flow_net *n, struct flow_star *st, int at)
{
  int fi = st->h[at];
  for (;;) {
    int l = 2 * at + 1, r = l + 1, m = at, best = fi;
    if (l < st->nh && star_before(n, st->h[l], best))
      m = l, best = st->h[l];
    if (r < st->nh && star_before(n, st->h[r], best))
      m = r, best = st->h[r];
    if (m == at)
      break;
    star_set(n, st, at, st->h[m]);
    at = m;
  }
  star_set(n, st, at, fi);
}

static int star_push(struct flow_net *n, struct flow_star *st, int fi)
{
  if (st->nh == st->caph) {
    int cap = st->caph ? st->caph * 2 : 64;
    int *v = realloc(st->h, (size_t)cap * sizeof *v);
    if (!v)
      return -1;
    st->h = v;
    st->caph = cap;
  }
  star_set(n, st, st->nh++, fi);
  star_up(n, st, st->nh - 1);
  return 0;
}

static void star_pull(struct flow_net *n, struct flow_star *st, int at)
{
  if (at == --st->nh)
    return;
  int fi = st->h[st->nh];
  star_set(n, st, at, fi);
  star_up(n, st, at);
  star_down(n, st, n->f[fi].lheap);
}

/* The service up to now at the level that held since the last change. */
static void star_serve(struct flow_star *st, double now)
{
  if (now > st->t_S) {
    st->S += st->L * (now - st->t_S);
    st->t_S = now;
  }
}

static void star_touch(struct flow_net *n, int ce)
{
  struct flow_star *st = n->c[ce].st;
  st->events++;
  if (!st->touched) {
    st->touched = 1;
    n->touched[n->ntouched++] = ce;
  }
}

/* The sum of constraint j's flows' 1/weight, afresh. */
static double star_usage(const struct flow_cons *c)
{
  double u = 0.0;
  for (int i = 0; i < c->n; i++)
    u += c->iw[i];
  return u;
}

static void star_bound_add(struct flow_star *st, const struct flow *f)
{
  double v = f->bound * f->weight;
  if (f->bound <= 0 || st->bmin_lost)
    return;
  if (st->bmin_n == 0 || v < st->bmin)
    st->bmin = v, st->bmin_n = 1;
  else if (v == st->bmin)
    st->bmin_n++;
}

/* fi (in the centre's list) becomes one of the star's flows, at key. */
static int star_take(struct flow_net *n, int ce, int fi, double key)
{
  struct flow_star *st = n->c[ce].st;
  struct flow *f = &n->f[fi];
  f->star = ce;
  f->key = key;
  if (f->heap >= 0)
    flow_heap_remove(n, f->heap);
  if (star_push(n, st, fi) < 0)
    return -1;
  for (int k = 0; k < f->ncons; k++) {
    struct flow_cons *o = &n->c[f->cons[k]];
    if (o->star < 0) {
      o->star = ce;
      o->su = 0.0;
      st->sat[st->nsat++] = f->cons[k];
    }
  }
  star_bound_add(st, f);
  return 0;
}

/* The star's first end in the model's heap, at its time at level L. */
static void star_rehead(struct flow_net *n, struct flow_star *st, double now)
{
  int h = st->nh > 0 ? st->h[0] : -1;
  if (st->head >= 0 && st->head != h && n->f[st->head].heap >= 0)
    flow_heap_remove(n, n->f[st->head].heap);
  st->head = h;
  if (h < 0)
    return;
  struct flow *f = &n->f[h];
  /* served to within the rounding of the sums: through now (flows equal
   * in size and start end at one instant, as in the re-solve) */
  double left = f->key - st->S, scale = fabs(f->key) > fabs(st->S) ? fabs(f->key) : fabs(st->S);
  double rem = left > 4 * DBL_EPSILON * scale ? left / f->weight : 0.0, rate = st->L / f->weight;
  f->t_ev = now + rem / rate;
  flow_heap_fix(n, h);
}

static void star_free(struct flow_net *n, int ce)
{
  struct flow_star *st = n->c[ce].st;
  for (int i = 0; i < st->nsat; i++)
    n->c[st->sat[i]].star = -1;
  n->c[ce].star = -1;
  n->c[ce].st = NULL;
  free(st->h);
  free(st->sat);
  free(st);
}

/* The solve at now fixed every flow of centre ce at level L, and nothing
 * else: they become a star.  0, or -1 out of memory. */
int star_form(struct flow_net *n, int ce, double level, double now)
{
  struct flow_cons *c = &n->c[ce];
  struct flow_star *st = calloc(1, sizeof *st);
  if (!st || !(st->sat = malloc((size_t)n->ncons * sizeof *st->sat))) {
    free(st);
    return -1;
  }
  st->t_S = now;
  st->L = level;
  st->head = -1;
  c->st = st;
  c->star = ce;
  st->sat[st->nsat++] = ce; /* the centre first */
  for (int i = 0; i < c->n; i++)
    if (star_take(n, ce, c->fl[i], n->f[c->fl[i]].rem * n->f[c->fl[i]].weight) < 0)
      return -1;
  for (int i = 0; i < st->nsat; i++)
    n->c[st->sat[i]].su = star_usage(&n->c[st->sat[i]]);
  star_rehead(n, st, now);
  return 0;
}

/* The star of centre ce ends at now: its flows are ordinary sharing ones
 * again, brought up to date (rem from their key, t_upd now), and its
 * constraints dirty (the solve re-shares them). */
static void star_dissolve(struct flow_net *n, int ce, double now)
{
  struct flow_star *st = n->c[ce].st;
  star_serve(st, now);
  const struct flow_cons *c = &n->c[ce];
  for (int i = 0; i < c->n; i++) {
    struct flow *g = &n->f[c->fl[i]];
    if (g->star != ce)
      continue; /* the flow joining now */
    double rem = (g->key - st->S) / g->weight;
    g->rem = rem > 0 ? rem : 0.0;
    g->rate = st->L / g->weight;
    g->t_upd = now;
    g->star = -1;
  }
  for (int i = 0; i < st->nsat; i++)
    flow_dirty(n, st->sat[i]);
  star_free(n, ce);
}

/* fi's latency is paid at now: the centre of the star it joins (its flow
 * set is a star's plus constraints without sharing flows), or -1: it
 * takes the solve's way, any star it touches dissolved. */
int star_joinable(struct flow_net *n, int fi, double now)
{
  const struct flow *f = &n->f[fi];
  int ce = -1, ok = 1, crosses = 0;
  for (int k = 0; k < f->ncons; k++) {
    const struct flow_cons *c = &n->c[f->cons[k]];
    if (c->star >= 0) {
      ok &= ce < 0 || c->star == ce;
      ce = c->star;
    } else {
      ok &= c->n == 0;
    }
  }
  if (ce < 0)
    return -1;
  for (int k = 0; k < f->ncons; k++)
    crosses |= f->cons[k] == ce;
  if (ok && crosses)
    return ce;
  for (int k = 0; k < f->ncons; k++)
    if (n->c[f->cons[k]].star >= 0)
      star_dissolve(n, n->c[f->cons[k]].star, now);
  return -1;
}

/* fi, already in its constraints' lists, joins the star of centre ce at now. */
int star_join(struct flow_net *n, int ce, int fi, double now)
{
  struct flow_star *st = n->c[ce].st;
  struct flow *f = &n->f[fi];
  star_serve(st, now);
  if (star_take(n, ce, fi, st->S + f->rem * f->weight) < 0)
    return -1;
  for (int k = 0; k < f->ncons; k++)
    n->c[f->cons[k]].su += 1.0 / f->weight;
  star_touch(n, ce);
  return 0;
}

/* Star flow fi ends at now (before it leaves its constraints' lists). */
void star_leave(struct flow_net *n, int fi, double now)
{
  struct flow *f = &n->f[fi];
  int ce = f->star;
  struct flow_star *st = n->c[ce].st;
  star_serve(st, now);
  star_pull(n, st, f->lheap);
  if (st->head == fi)
    st->head = -1;
  if (f->heap >= 0)
    flow_heap_remove(n, f->heap);
  for (int k = 0; k < f->ncons; k++)
    n->c[f->cons[k]].su -= 1.0 / f->weight;
  if (f->bound > 0 && f->bound * f->weight == st->bmin && --st->bmin_n == 0)
    st->bmin_lost = 1; /* the lowest is to be found again */
  f->star = -1;
  star_touch(n, ce);
}

/* After star flows left: satellites without flows leave the star, the
 * lowest bound is found again if its last flow went. */
static void star_tidy(struct flow_net *n, struct flow_star *st, int ce)
{
  for (int i = 1; i < st->nsat;) {
    struct flow_cons *o = &n->c[st->sat[i]];
    if (o->n > 0) {
      i++;
      continue;
    }
    o->star = -1;
    st->sat[i] = st->sat[--st->nsat];
  }
  if (st->bmin_lost) {
    st->bmin_lost = 0;
    st->bmin_n = 0;
    for (int i = 0; i < n->c[ce].n; i++)
      star_bound_add(st, &n->f[n->c[ce].fl[i]]);
  }
}

/* Every flow's key less S, S 0 (their order kept), and the usages summed
 * afresh: once per as many events as the star has flows. */
static void star_rebase(struct flow_net *n, struct flow_star *st)
{
  st->events = 0;
  for (int i = 0; i < st->nh; i++)
    n->f[st->h[i]].key -= st->S;
  st->S = 0.0;
  for (int at = st->nh / 2 - 1; at >= 0; at--)
    star_down(n, st, at);
  for (int i = 0; i < st->nsat; i++)
    n->c[st->sat[i]].su = star_usage(&n->c[st->sat[i]]);
}

/* Constraint c's level (its capacity over its usage u) is above top. */
static int star_above(const struct flow_cons *c, double u, double top)
{
  return (c->cap > 0 ? c->cap : 0.0) / u > top;
}

/* The solve at now fixed every flow of the component on centre ce at
 * `level`, in one round: whether it is a star's (big enough, no other
 * constraint's level and no bound at or below it). */
int star_may_form(const struct flow_net *n, int ce, double level)
{
  double top = level * (1.0 + FLOW_LEVEL_EPS);
  if (n->saving || n->star_min <= 0 || n->c[ce].n < n->star_min || n->c[ce].n != n->ncomp_f || !(level > 0) || !isfinite(level))
    return 0;
  for (int q = 0; q < n->ncomp_c; q++) {
    const struct flow_cons *o = &n->c[n->comp_c[q]];
    if (n->comp_c[q] != ce && o->n > 0 && !star_above(o, star_usage(o), top))
      return 0;
  }
  for (int i = 0; i < n->ncomp_f; i++) {
    const struct flow *f = &n->f[n->comp_f[i]];
    if (f->bound > 0 && f->bound * f->weight <= top)
      return 0;
  }
  return 1;
}

/* The changed stars at now: each keeps its form while its centre's level
 * is the only one reached (every other constraint's level and every
 * flow's bound above it, as the solve would find), and re-heads; or
 * dissolves into the solve's dirty constraints. */
void star_settle(struct flow_net *n, double now)
{
  for (int t = 0; t < n->ntouched; t++) {
    int ce = n->touched[t];
    struct flow_star *st = n->c[ce].st;
    if (!st)
      continue;
    st->touched = 0;
    star_serve(st, now);
    star_tidy(n, st, ce);
    const struct flow_cons *c = &n->c[ce];
    if (c->n == 0) {
      star_free(n, ce);
      continue;
    }
    double L = (c->cap > 0 ? c->cap : 0.0) / c->su, top = L * (1.0 + FLOW_LEVEL_EPS);
    int holds = L > 0 && isfinite(L) && 2 * c->n >= n->star_min && !(st->bmin_n > 0 && st->bmin <= top);
    for (int i = 1; holds && i < st->nsat; i++)
      holds = star_above(&n->c[st->sat[i]], n->c[st->sat[i]].su, top);
    if (!holds) {
      star_dissolve(n, ce, now);
      continue;
    }
    st->L = L;
    if (st->events > c->n)
      star_rebase(n, st);
    star_rehead(n, st, now);
  }
  n->ntouched = 0;
}

