/* flow.c - the fluid network model (flow.h): weighted max-min sharing by
 * progressive filling over the component of the changed constraints, an
 * indexed binary heap of the flows' next events.
 *
 * A flow that starts alone on every constraint it crosses (no other flow
 * sharing or paying its latency there) has one event, its end: when its
 * latency is paid it would share with nobody, so its rate then is its
 * rate alone, known at its start.  Its latency event is folded into its
 * start (FLOW_ALONE); a flow starting on one of its constraints later
 * first puts it where the unfolded model would have it then: still
 * paying its latency, or sharing at that rate since its latency was paid
 * (flow_unfold).  The scheduler then wakes once per lone transfer, not
 * twice, for the same end times.
 *
 * A flow whose latency is paid when nothing else is due has its join
 * taken ahead at the end of flow_advance (flow_ahead), undone if a flow
 * starts before it (flow_behind): the scheduler sleeps to the next end.
 *
 * A component of many flows on one bottleneck becomes a star
 * (flow_star.c): its starts and ends then cost O(log flows), not a
 * re-solve of every one of its flows. */
#include "sim/engine/flow.h"
#include "sim/engine/flow_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct flow_net *flow_net_create(int ncons)
{
  struct flow_net *n = calloc(1, sizeof *n);
  if (!n)
    return NULL;
  n->ncons = ncons;
  n->c = calloc((size_t)(ncons > 0 ? ncons : 1), sizeof *n->c);
  n->dirty = malloc((size_t)(ncons > 0 ? ncons : 1) * sizeof *n->dirty);
  n->comp_c = malloc((size_t)(ncons > 0 ? ncons : 1) * sizeof *n->comp_c);
  n->touched = malloc((size_t)(ncons > 0 ? ncons : 1) * sizeof *n->touched);
  n->free_head = -1;
  n->ahead = -1;
  n->star_min = FLOW_STAR_MIN;
  if (!n->c || !n->dirty || !n->comp_c || !n->touched) {
    flow_net_destroy(n);
    return NULL;
  }
  for (int j = 0; j < ncons; j++)
    n->c[j].alone = n->c[j].star = -1;
  return n;
}

void flow_net_destroy(struct flow_net *n)
{
  if (!n)
    return;
  for (int j = 0; n->c && j < n->ncons; j++) {
    if (n->c[j].st)
      free(n->c[j].st->h), free(n->c[j].st->sat), free(n->c[j].st);
    free(n->c[j].fl), free(n->c[j].iw);
  }
  free(n->c);
  free(n->f);
  free(n->heap);
  free(n->dirty);
  free(n->comp_c);
  free(n->comp_f);
  free(n->touched);
  free(n->ended);
  free(n->sv_f);
  free(n->sv);
  free(n);
}

void flow_net_stars(struct flow_net *n, int min_flows)
{
  n->star_min = min_flows;
}

void flow_cons_set(struct flow_net *n, int j, double cap)
{
  if (j >= 0 && j < n->ncons)
    n->c[j].cap = cap;
}

/* ---- the event heap: t_ev ascending, ties last started first ------------ */

/* SimGrid 3.32 ends transfers due at the same instant last started first
 * (measured: three 8000 B puts started in the order 0, 1, 2 at one instant
 * wake their senders 2, 1, 0; its LMM lists a newly enabled variable
 * first and its heap updates them in that order, ties in update order):
 * the same here, so the actors downstream run in the same order. */
static int flow_before(const struct flow_net *n, int a, int b)
{
  const struct flow *x = &n->f[a], *y = &n->f[b];
  return x->t_ev < y->t_ev || (x->t_ev == y->t_ev && x->seq > y->seq);
}

void flow_heap_set(struct flow_net *n, int at, int fi)
{
  n->heap[at] = fi;
  n->f[fi].heap = at;
}

void flow_heap_up(struct flow_net *n, int at)
{
  int fi = n->heap[at];
  while (at > 0) {
    int p = (at - 1) / 2;
    if (!flow_before(n, fi, n->heap[p]))
      break;
    flow_heap_set(n, at, n->heap[p]);
    at = p;
  }
  flow_heap_set(n, at, fi);
}

void flow_heap_down(struct flow_net *n, int at)
{
  int fi = n->heap[at];
  for (;;) {
    int l = 2 * at + 1, r = l + 1, m = at;
    int best = fi;
    if (l < n->nheap && flow_before(n, n->heap[l], best))
      m = l, best = n->heap[l];
    if (r < n->nheap && flow_before(n, n->heap[r], best))
      m = r, best = n->heap[r];
    if (m == at)
      break;
    flow_heap_set(n, at, n->heap[m]);
    at = m;
  }
  flow_heap_set(n, at, fi);
}

/* fi's t_ev changed (or it is new): restore the heap. */
void flow_heap_fix(struct flow_net *n, int fi)
{
  int at = n->f[fi].heap;
  if (at < 0) {
    at = n->nheap++;
    flow_heap_set(n, at, fi);
  }
  flow_heap_up(n, at);
  flow_heap_down(n, n->f[fi].heap);
}

/* Every flow in the heap may have a new t_ev: restore it bottom-up
 * (Floyd), O(heap) rather than a fix per flow. */
static void flow_heap_build(struct flow_net *n)
{
  for (int at = n->nheap / 2 - 1; at >= 0; at--)
    flow_heap_down(n, at);
}

void flow_heap_remove(struct flow_net *n, int at)
{
  n->f[n->heap[at]].heap = -1;
  if (at == --n->nheap)
    return;
  int last = n->heap[n->nheap];
  flow_heap_set(n, at, last);
  flow_heap_up(n, at);
  flow_heap_down(n, n->f[last].heap);
}

static int flow_heap_pop(struct flow_net *n)
{
  int fi = n->heap[0];
  n->f[fi].heap = -1;
  if (--n->nheap > 0) {
    flow_heap_set(n, 0, n->heap[n->nheap]);
    flow_heap_down(n, 0);
  }
  return fi;
}

double flow_next_s(const struct flow_net *n)
{
  return n->nheap > 0 ? n->f[n->heap[0]].t_ev : INFINITY;
}

/* ---- flows ------------------------------------------------------------- */


void flow_dirty(struct flow_net *n, int j)
{
  if (!n->c[j].dirty) {
    n->c[j].dirty = 1;
    n->dirty[n->ndirty++] = j;
  }
}

/* Latency paid at now: fi takes its place in its constraints, re-solved
 * (dirty 1: or it joins a star), or not (an unfolded lone flow: its rate
 * is the one their solve would give it).  0, or -1 out of memory. */
static int flow_join(struct flow_net *n, int fi, int dirty, double now)
{
  struct flow *f = &n->f[fi];
  int ce = dirty ? star_joinable(n, fi, now) : -1;
  f->state = FLOW_SHARING;
  for (int k = 0; k < f->ncons; k++) {
    struct flow_cons *c = &n->c[f->cons[k]];
    c->npaying--;
    if (c->n == c->capn) {
      int cap = c->capn ? c->capn * 2 : 8;
      int *v = realloc(c->fl, (size_t)cap * sizeof *v);
      if (v)
        c->fl = v;
      double *w = realloc(c->iw, (size_t)cap * sizeof *w);
      if (w)
        c->iw = w;
      if (!v || !w)
        return -1;
      c->capn = cap;
    }
    f->pos[k] = c->n;
    c->iw[c->n] = 1.0 / f->weight;
    c->fl[c->n++] = fi;
    if (dirty && ce < 0)
      flow_dirty(n, f->cons[k]);
  }
  return ce >= 0 ? star_join(n, ce, fi, now) : 0;
}

/* Its rate as flow_solve gives a flow alone in its component: the level
 * of its tightest constraint (or its bound) over its weight. */
static double flow_alone_rate(const struct flow_net *n, const struct flow *f)
{
  double usage = 1.0 / f->weight, level = INFINITY;
  for (int k = 0; k < f->ncons; k++) {
    double cap = n->c[f->cons[k]].cap, l = (cap > 0 ? cap : 0.0) / usage;
    level = l < level ? l : level;
  }
  if (f->bound > 0 && f->bound * f->weight < level)
    level = f->bound * f->weight;
  double top = level * (1.0 + FLOW_LEVEL_EPS);
  for (int k = 0; k < f->ncons; k++) {
    double cap = n->c[f->cons[k]].cap;
    if ((cap > 0 ? cap : 0.0) / usage <= top)
      return level / f->weight;
  }
  return f->bound;
}

/* A flow starts at now on a constraint of lone flow fi: fi becomes what
 * the unfolded model has then: paying its latency until t_paid, or
 * sharing at its lone rate since (the solve at t_paid gave it that rate
 * and its end).  0, or -1 out of memory. */
static int flow_unfold(struct flow_net *n, int fi, double now)
{
  struct flow *f = &n->f[fi];
  for (int k = 0; k < f->ncons; k++)
    n->c[f->cons[k]].alone = -1;
  if (f->t_paid > now) {
    f->state = FLOW_LATENCY;
    f->rate = 0.0;
    f->t_ev = f->t_paid;
    flow_heap_fix(n, fi);
    return 0;
  }
  f->t_upd = f->t_paid;
  return flow_join(n, fi, 0, now);
}

static void flow_behind(struct flow_net *n, double now, int at_too);

int flow_start(struct flow_net *n, double now, double bytes, const int *cons, int ncons, double latency_s,
               double weight, double bound, void *tag)
{
  if (n->free_head < 0) {
    int cap = n->capf ? n->capf * 2 : 64;
    struct flow *f = realloc(n->f, (size_t)cap * sizeof *f);
    int *h = realloc(n->heap, (size_t)cap * sizeof *h);
    int *cf = realloc(n->comp_f, (size_t)cap * sizeof *cf);
    int *svf = realloc(n->sv_f, (size_t)cap * sizeof *svf);
    double *sv = realloc(n->sv, (size_t)cap * 4 * sizeof *sv);
    if (f)
      n->f = f;
    if (h)
      n->heap = h;
    if (cf)
      n->comp_f = cf;
    if (svf)
      n->sv_f = svf;
    if (sv)
      n->sv = sv;
    if (!f || !h || !cf || !svf || !sv)
      return -1;
    for (int i = cap - 1; i >= n->capf; i--) {
      n->f[i].state = FLOW_FREE;
      n->f[i].next_free = n->free_head;
      n->free_head = i;
    }
    n->capf = cap;
  }
  flow_behind(n, now, 1);
  int nc = ncons < FLOW_MAX_CONS ? ncons : FLOW_MAX_CONS;
  for (int k = 0; k < nc; k++)
    if (n->c[cons[k]].alone >= 0 && flow_unfold(n, n->c[cons[k]].alone, now) < 0)
      return -1;
  int fi = n->free_head;
  struct flow *f = &n->f[fi];
  n->free_head = f->next_free;
  memset(f, 0, sizeof *f);
  f->rem = bytes > 0 ? bytes : 0.0;
  f->weight = weight > 0 ? weight : 1.0;
  f->bound = bound;
  f->t_upd = now;
  f->t_ev = now + (latency_s > 0 ? latency_s : 0.0);
  f->seq = n->seq++;
  f->tag = tag;
  f->ncons = nc;
  int alone = f->rem > 0;
  for (int k = 0; k < f->ncons; k++) {
    f->cons[k] = cons[k];
    alone &= n->c[cons[k]].n == 0 && n->c[cons[k]].npaying == 0;
    n->c[cons[k]].npaying++;
  }
  f->heap = -1;
  f->star = -1;
  f->state = FLOW_LATENCY;
  f->mark = -1;
  double rate = alone ? flow_alone_rate(n, f) : 0.0;
  if (rate > 0) { /* its end as flow_solve would put it when its latency is paid */
    f->state = FLOW_ALONE;
    f->rate = rate;
    f->t_paid = f->t_ev;
    f->t_ev = f->t_paid + f->rem / rate;
    for (int k = 0; k < f->ncons; k++)
      n->c[f->cons[k]].alone = fi;
  }
  flow_heap_fix(n, fi);
  return 0;
}

/* fi leaves its constraints (they are re-solved, or its star settled)
 * and the model at now. */
static void flow_remove(struct flow_net *n, int fi, double now)
{
  struct flow *f = &n->f[fi];
  int in_star = f->star >= 0;
  if (in_star)
    star_leave(n, fi, now);
  for (int k = 0; f->state != FLOW_SHARING && k < f->ncons; k++) {
    struct flow_cons *c = &n->c[f->cons[k]];
    c->npaying--; /* a 0-byte flow at its latency's end, or a lone one */
    if (c->alone == fi)
      c->alone = -1;
  }
  for (int k = 0; f->state == FLOW_SHARING && k < f->ncons; k++) {
    struct flow_cons *c = &n->c[f->cons[k]];
    int at = f->pos[k], last = c->fl[--c->n];
    if (last != fi) {
      c->fl[at] = last;
      c->iw[at] = c->iw[c->n];
      struct flow *g = &n->f[last];
      for (int q = 0; q < g->ncons; q++)
        if (g->cons[q] == f->cons[k])
          g->pos[q] = at;
    }
    if (!in_star)
      flow_dirty(n, f->cons[k]);
  }
  f->state = FLOW_FREE;
  f->next_free = n->free_head;
  n->free_head = fi;
}

/* ---- solve: progressive filling over the dirty constraints' component --- */

/* The constraints reachable from the dirty ones through sharing flows,
 * and those flows, brought up to date at now. */
static void flow_component(struct flow_net *n, double now)
{
  int stamp = ++n->stamp;
  n->ncomp_c = n->ncomp_f = 0;
  for (int d = 0; d < n->ndirty; d++) {
    struct flow_cons *c = &n->c[n->dirty[d]];
    c->dirty = 0;
    if (c->mark != stamp) {
      c->mark = stamp;
      n->comp_c[n->ncomp_c++] = n->dirty[d];
    }
  }
  n->ndirty = 0;
  for (int q = 0; q < n->ncomp_c; q++) {
    const struct flow_cons *c = &n->c[n->comp_c[q]];
    for (int i = 0; i < c->n; i++) {
      struct flow *f = &n->f[c->fl[i]];
      if (f->mark == stamp)
        continue;
      f->mark = stamp;
      n->comp_f[n->ncomp_f++] = c->fl[i];
      if (n->saving) {
        double *v = &n->sv[4 * n->nsaved];
        n->sv_f[n->nsaved++] = c->fl[i];
        v[0] = f->rem, v[1] = f->t_upd, v[2] = f->t_ev, v[3] = f->rate;
      }
      f->rem -= f->rate * (now - f->t_upd);
      if (f->rem < 0)
        f->rem = 0.0;
      f->t_upd = now;
      f->fixed = 0;
      for (int k = 0; k < f->ncons; k++) {
        struct flow_cons *o = &n->c[f->cons[k]];
        if (o->mark != stamp) {
          o->mark = stamp;
          n->comp_c[n->ncomp_c++] = f->cons[k];
        }
      }
    }
  }
}

static void flow_fix(struct flow_net *n, int fi, double rate)
{
  struct flow *f = &n->f[fi];
  f->fixed = 1;
  f->rate = rate;
  for (int k = 0; k < f->ncons; k++) {
    struct flow_cons *c = &n->c[f->cons[k]];
    c->rem -= rate;
    c->usage -= c->iw[f->pos[k]];
    c->unfixed--;
  }
}

static int flow_solve(struct flow_net *n, double now)
{
  star_settle(n, now);
  if (n->ndirty == 0)
    return 0;
  flow_component(n, now);
  for (int q = 0; q < n->ncomp_c; q++) {
    struct flow_cons *c = &n->c[n->comp_c[q]];
    c->rem = c->cap;
    c->usage = 0.0;
    c->unfixed = c->n;
    for (int i = 0; i < c->n; i++)
      c->usage += c->iw[i];
  }
  int left = n->ncomp_f, rounds = 0, centre = -1;
  double level1 = 0.0;
  while (left > 0) {
    double level = INFINITY;
    rounds++;
    for (int q = 0; q < n->ncomp_c; q++) {
      const struct flow_cons *c = &n->c[n->comp_c[q]];
      if (c->unfixed > 0) {
        double l = (c->rem > 0 ? c->rem : 0.0) / c->usage;
        level = l < level ? l : level;
      }
    }
    for (int i = 0; i < n->ncomp_f; i++) {
      const struct flow *f = &n->f[n->comp_f[i]];
      if (!f->fixed && f->bound > 0 && f->bound * f->weight < level)
        level = f->bound * f->weight;
    }
    double top = level * (1.0 + FLOW_LEVEL_EPS);
    for (int q = 0; q < n->ncomp_c; q++) {
      const struct flow_cons *c = &n->c[n->comp_c[q]];
      if (c->unfixed <= 0 || (c->rem > 0 ? c->rem : 0.0) / c->usage > top)
        continue;
      for (int i = 0; i < c->n; i++)
        if (!n->f[c->fl[i]].fixed) {
          flow_fix(n, c->fl[i], level / n->f[c->fl[i]].weight);
          left--;
        }
      if (rounds == 1)
        centre = centre == -1 ? n->comp_c[q] : -2, level1 = level;
    }
    for (int i = 0; i < n->ncomp_f; i++) {
      const struct flow *f = &n->f[n->comp_f[i]];
      if (!f->fixed && f->bound > 0 && f->bound * f->weight <= top) {
        flow_fix(n, n->comp_f[i], f->bound);
        left--;
      }
    }
  }
  /* Most of the heap's flows re-timed: one heapify instead of a fix each
   * (the pop order is the events' total order, whatever the layout). */
  int rebuild = 2 * n->ncomp_f >= n->nheap;
  for (int i = 0; i < n->ncomp_f; i++) {
    struct flow *f = &n->f[n->comp_f[i]];
    f->t_ev = f->rate > 0 ? now + f->rem / f->rate : INFINITY;
    if (!rebuild)
      flow_heap_fix(n, n->comp_f[i]);
    else if (f->heap < 0)
      flow_heap_set(n, n->nheap++, n->comp_f[i]);
  }
  if (rebuild)
    flow_heap_build(n);
  if (rounds == 1 && centre >= 0 && star_may_form(n, centre, level1))
    return star_form(n, centre, level1, now);
  return 0;
}

static int flow_ended(struct flow_net *n, void *tag)
{
  if (n->nended == n->capended) {
    int cap = n->capended ? n->capended * 2 : 16;
    void **v = realloc(n->ended, (size_t)cap * sizeof *v);
    if (!v)
      return -1;
    n->ended = v;
    n->capended = cap;
  }
  n->ended[n->nended++] = tag;
  return 0;
}

/* ---- a join taken ahead ------------------------------------------------ */

/* The model's next event is a flow's latency paid at t, alone at t (the
 * one after it later): nothing but a flow started before t can come
 * first (the ends are later; a start's own events are not earlier: its
 * latency is the route's), so its join and solve are done now, at t, as
 * flow_advance would do them then, and the scheduler sleeps to the event
 * after.  A flow started at or before t undoes them first (flow_behind),
 * so a start sees the model as it is at its time, and the join is done
 * again at t.  Same arithmetic at the same times: the same ends. */
static int flow_ahead(struct flow_net *n, double now)
{
  if (n->ahead >= 0 || n->nheap == 0 || n->ndirty > 0 || n->ntouched > 0)
    return 0;
  int fi = n->heap[0];
  struct flow *f = &n->f[fi];
  if (f->state != FLOW_LATENCY || f->rem <= 0 || f->t_ev <= now)
    return 0;
  for (int k = 0; k < f->ncons; k++)
    if (n->c[f->cons[k]].star >= 0)
      return 0; /* it joins a star (or dissolves one) at its time */
  for (int k = 1; k <= 2 && k < n->nheap; k++)
    if (n->f[n->heap[k]].t_ev <= f->t_ev)
      return 0;
  double t = f->t_ev;
  n->ahead_upd = f->t_upd;
  f->t_upd = t;
  if (flow_join(n, fi, 1, t) < 0)
    return -1;
  n->saving = 1;
  n->nsaved = 0;
  int rc = flow_solve(n, t);
  n->saving = 0;
  if (rc < 0)
    return -1;
  n->ahead = fi;
  n->ahead_s = t;
  return 0;
}

/* At now: a join taken ahead stands once its time is past (at it too,
 * unless at_too); before, it is undone: the component's flows as they
 * were, the flow paying its latency again (it is the last in its
 * constraints' lists: nothing joined or left since). */
static void flow_behind(struct flow_net *n, double now, int at_too)
{
  int fi = n->ahead;
  if (fi < 0)
    return;
  n->ahead = -1;
  if (now > n->ahead_s || (now == n->ahead_s && !at_too))
    return;
  struct flow *f = &n->f[fi];
  for (int k = 0; k < f->ncons; k++) {
    struct flow_cons *c = &n->c[f->cons[k]];
    c->n--;
    c->npaying++;
  }
  f->state = FLOW_LATENCY;
  for (int i = 0; i < n->nsaved; i++) {
    struct flow *g = &n->f[n->sv_f[i]];
    const double *v = &n->sv[4 * i];
    g->rem = v[0], g->t_upd = v[1], g->t_ev = v[2], g->rate = v[3];
    flow_heap_fix(n, n->sv_f[i]);
  }
  f->t_upd = n->ahead_upd;
}

int flow_advance(struct flow_net *n, double now, void (*done)(void *ctx, void *tag), void *ctx)
{
  flow_behind(n, now, 0);
  n->nended = 0;
  while (n->nheap > 0 && n->f[n->heap[0]].t_ev <= now) {
    while (n->nheap > 0 && n->f[n->heap[0]].t_ev <= now) {
      int fi = flow_heap_pop(n);
      struct flow *f = &n->f[fi];
      if (f->state == FLOW_LATENCY && f->rem > 0) {
        f->t_upd = f->t_ev;
        if (flow_join(n, fi, 1, now) < 0)
          return -1;
        continue;
      }
      if (flow_ended(n, f->tag) < 0)
        return -1;
      flow_remove(n, fi, now);
    }
    if ((n->ndirty > 0 || n->ntouched > 0) && flow_solve(n, now) < 0)
      return -1;
  }
  int k = n->nended; /* done() may start flows, not advance */
  for (int i = 0; i < k; i++)
    done(ctx, n->ended[i]);
  return flow_ahead(n, now);
}

int flow_stars(const struct flow_net *n)
{
  int k = 0;
  for (int j = 0; j < n->ncons; j++)
    k += n->c[j].st != NULL;
  return k;
}

double flow_rate_of(const struct flow_net *n, const void *tag)
{
  for (int i = 0; i < n->capf; i++)
    if (n->f[i].state != FLOW_FREE && n->f[i].tag == tag)
      return n->f[i].state == FLOW_LATENCY ? 0.0
             : n->f[i].star >= 0          ? n->c[n->f[i].star].st->L / n->f[i].weight
                                          : n->f[i].rate;
  return -1.0;
}
