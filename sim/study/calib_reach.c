/* calib_reach.c - which free parameters move which simulation.
 *
 * A parameter "reaches" a task when the task's scenario declares it (one
 * system's SoC, one drive, one protocol): a coarse reach.  Inside it most
 * pairs do nothing: an SSD-cache cost on a box without a cache, md's
 * stripe costs on a read-only run, NFS's per-open cost in a 4K random
 * test.  The screening Jacobian paid one simulation per pair all the same
 * (about 4,400 per fit, most of a fit's time).
 *
 * Group tests find the pairs that move: a task is simulated once with
 * all its free parameters perturbed together (the forward-difference step
 * of each); a result bit-identical to the unperturbed one means none of
 * them moves the task (the simulator is deterministic: a value a
 * mechanism reads changes the result).  A group that moves is split in
 * halves, each tested again, down to single parameters, whose test is the
 * Jacobian's own simulation of that pair (needed anyway).  The
 * pairs proven inert leave c->reach, so the Jacobian neither simulates
 * them nor sets them (the catalogue value stands, which by the test does
 * not matter there), and the cache is keyed again on the finer reach.
 * As for the screening's no_effect, "inert" is measured at the start
 * point, and a threshold the fit later crosses (a limit that bound first
 * there, released by the fit) would go unseen: after the fit,
 * calib_reach_retest tests the pairs set aside that way again at the
 * fitted values, as groups again.
 *
 * Per task (--reach tested) the inert pairs are scattered inside the
 * groups, and the splitting costs more than it saves.  Per scenario
 * (--reach scenario) the steps of one scenario file share their
 * mechanisms: its lead task (the first one the fit needs) is tested by
 * plain differences, one single per pair (the Jacobian's own
 * simulations); every other task of that file tests the pairs that were
 * inert at the lead as one group (split as above when it moves) and the
 * others as singles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/calib_impl.h"

struct reach_group {
  int task, n, first;     /* par indices pool[first .. first + n) */
  int sib_first, sib_n;   /* the other half of its parent, tested after this one's verdict */
  int entry;              /* its cache entry in the current round */
};

struct reach_state {
  int *base;              /* per task: the cache entry of its unperturbed simulation */
  struct reach_group *g;
  int ng, capg;
  int *pool;
  int npool, cappool;
  long tests, inert_pairs, pairs;
  const char *what;       /* the progress lines' name of the tests */
};

/* A group of pool[first .. first + n) (already in the pool). */
static int reach_push(struct reach_state *st, int task, int first, int n, int sib_first, int sib_n)
{
  if (st->ng == st->capg) {
    int cap = st->capg ? 2 * st->capg : 256;
    struct reach_group *ng = realloc(st->g, (size_t)cap * sizeof *ng);
    if (!ng)
      return -1;
    st->g = ng;
    st->capg = cap;
  }
  st->g[st->ng++] = (struct reach_group){
      .task = task, .n = n, .first = first, .sib_first = sib_first, .sib_n = sib_n, .entry = -1};
  return 0;
}

/* Append par[0..n) to the pool; its offset or -1. */
static int reach_pool_add(struct reach_state *st, const int *par, int n)
{
  if (st->npool + n > st->cappool) {
    int cap = st->cappool ? 2 * st->cappool : 4096;
    while (cap < st->npool + n)
      cap *= 2;
    int *np = realloc(st->pool, (size_t)cap * sizeof *np);
    if (!np)
      return -1;
    st->pool = np;
    st->cappool = cap;
  }
  memcpy(st->pool + st->npool, par, (size_t)n * sizeof *par);
  st->npool += n;
  return st->npool - n;
}

/* The parameter vector with every parameter of group g moved by the Jacobian's step. */
static void reach_vector(const struct calib *c, const struct reach_state *st, const struct reach_group *g, double *x)
{
  memcpy(x, c->x, (size_t)c->np * sizeof *x);
  for (int i = 0; i < g->n; i++) {
    int j = st->pool[g->first + i];
    x[j] = calib_x_of_u(c->uref[j] + CALIB_DU, c->par[j].lo, c->par[j].hi);
  }
}

/* The free parameters of task t (in its reach), into par; how many. */
static int reach_pairs(const struct calib *c, int t, int *par)
{
  int n = 0;
  for (int j = 0; j < c->np; j++)
    if (c->par[j].free_ && c->reach[(size_t)t * (size_t)c->np + (size_t)j])
      par[n++] = j;
  return n;
}

/* Seed task t's group of par[0..n) (n >= 1). */
static int reach_seed_group(struct reach_state *st, int t, const int *par, int n)
{
  int first = reach_pool_add(st, par, n);
  return first < 0 ? -1 : reach_push(st, t, first, n, 0, 0);
}

/* Per task: every needed task's free parameters as one group (two or more). */
static int reach_seed(struct calib *c, struct reach_state *st, const unsigned char *need, int *par)
{
  for (int t = 0; t < c->v.ntasks; t++) {
    int n = need[t] ? reach_pairs(c, t, par) : 0;
    st->pairs += n;
    if (n >= 2 && reach_seed_group(st, t, par, n) < 0)
      return -1;
  }
  return 0;
}

/* lead[t]: the first needed task of t's scenario file (t itself for a
 * lead, -1 not needed). */
static void reach_leads(const struct calib *c, const unsigned char *need, int *lead)
{
  for (int t = 0; t < c->v.ntasks; t++) {
    lead[t] = -1;
    for (int u = 0; need[t] && u <= t && lead[t] < 0; u++)
      if (need[u] && !strcmp(c->v.cfgs[c->v.tasks[u].cfg].scenario, c->v.cfgs[c->v.tasks[t].cfg].scenario))
        lead[t] = u;
  }
}

/* The per-scenario form's hypotheses: the recorded reach (rec[t]: the
 * record names task t, hyp its inert pairs), else the lead's verdicts. */
struct reach_hyp {
  const int *lead;
  const unsigned char *decl; /* the declared reach (before the tests) */
  const unsigned char *rec, *hyp;
};

/* Phase 0: the leads and the recorded tasks; phase 1 (after phase 0's
 * verdicts): the others.  A task's pairs that its hypothesis calls inert
 * form one group, the rest are singles (plain differences). */
static int reach_seed_scenario(struct calib *c, struct reach_state *st, const struct reach_hyp *h, int phase, int *par)
{
  for (int t = 0; t < c->v.ntasks; t++) {
    int first = h->lead[t] == t || h->rec[t];
    if (h->lead[t] < 0 || first != (phase == 0))
      continue;
    int n = reach_pairs(c, t, par), ng = 0;
    st->pairs += n;
    for (int i = 0; i < n; i++) { /* the hypothesis' inert pairs to the front, the others after them */
      size_t tj = (size_t)t * (size_t)c->np + (size_t)par[i];
      size_t lj = (size_t)h->lead[t] * (size_t)c->np + (size_t)par[i];
      if (h->rec[t] ? h->hyp[tj] : phase == 1 && h->decl[lj] && !c->reach[lj]) {
        int j = par[i];
        par[i] = par[ng];
        par[ng++] = j;
      }
    }
    if (ng > 0 && reach_seed_group(st, t, par, ng) < 0)
      return -1;
    for (int i = ng; i < n; i++)
      if (reach_seed_group(st, t, &par[i], 1) < 0)
        return -1;
  }
  return 0;
}

/* Simulate this round's groups (one batch); 0 or -1. */
static int reach_round_run(struct calib *c, struct reach_state *st, int g0, int g1)
{
  double *x = malloc((size_t)(c->np > 0 ? c->np : 1) * sizeof *x);
  int *idx = malloc((size_t)(g1 - g0 > 0 ? g1 - g0 : 1) * sizeof *idx);
  int n = 0, rc = x && idx ? 0 : -1;
  for (int k = g0; rc == 0 && k < g1; k++) {
    struct reach_group *g = &st->g[k];
    reach_vector(c, st, g, x);
    const struct calib_cached *e = calib_find(c, g->task, x);
    if (e) {
      g->entry = (int)(e - c->cache);
      continue;
    }
    g->entry = calib_add(c, g->task, x);
    if (g->entry < 0)
      rc = -1;
    else
      idx[n++] = g->entry;
  }
  st->tests += n;
  if (rc == 0 && n > 0 && !c->o->quiet)
    fprintf(stderr, "calibrate: %s: %d groups, %d simulations to run (%ld so far, %.0f s, %.0f s CPU)\n",
            st->what ? st->what : "reach", g1 - g0, n, c->nsims, calib_elapsed_s(c), calib_cpu_s());
  if (rc == 0 && n > 0)
    rc = calib_run_pending(c, idx, n);
  free(x);
  free(idx);
  return rc;
}

/* Judge this round's groups against the unperturbed results: an inert
 * group leaves the reach; a moving one splits, its first half tested next
 * round and the second after the first's verdict (when the first half is
 * inert, the parent's simulation is the second half's, found in the
 * cache once it is keyed on the finer reach: no simulation).  Single
 * parameters are tested too: that simulation is the Jacobian's own. */
static int reach_round_judge(struct calib *c, struct reach_state *st, int g0, int g1)
{
  for (int k = g0; k < g1; k++) {
    struct reach_group g = st->g[k]; /* a copy: reach_push may move st->g */
    const struct calib_cached *e = &c->cache[g.entry];
    const struct calib_cached *b = st->base[g.task] >= 0 ? &c->cache[st->base[g.task]] : NULL;
    int inert = b && !b->pending && !e->pending && !e->r.failed && !b->r.failed &&
                !memcmp(&e->r, &b->r, sizeof e->r);
    if (inert) {
      for (int i = 0; i < g.n; i++)
        c->reach[(size_t)g.task * (size_t)c->np + (size_t)st->pool[g.first + i]] = 0;
      st->inert_pairs += g.n;
    } else if (g.n >= 2) {
      int h = g.n / 2;
      if (reach_push(st, g.task, g.first, h, g.first + h, g.n - h) < 0)
        return -1;
    }
    if (g.sib_n > 0 && reach_push(st, g.task, g.sib_first, g.sib_n, 0, 0) < 0)
      return -1;
  }
  return 0;
}

/* Test the groups from g0 on, round after round, until no group is left; the rounds. */
static int reach_rounds(struct calib *c, struct reach_state *st, int g0)
{
  int rounds = 0;
  while (g0 < st->ng) {
    int g1 = st->ng;
    if (reach_round_run(c, st, g0, g1) < 0 || reach_round_judge(c, st, g0, g1) < 0 || calib_rekey(c) < 0)
      return -1;
    g0 = g1;
    rounds++;
  }
  return rounds;
}

/* The per-scenario form: the record's and the leads' tasks, then the
 * others; the record written again.  The rounds, -1 out of memory, -2 a
 * bad record (err). */
static int reach_by_scenario(struct calib *c, struct reach_state *st, const unsigned char *need, int *par,
                             int *nlead, int *nrec, struct nw_err *err)
{
  size_t nt = (size_t)(c->v.ntasks > 0 ? c->v.ntasks : 1), nm = nt * (size_t)(c->np > 0 ? c->np : 1);
  int *lead = malloc(nt * sizeof *lead);
  unsigned char *hyp = calloc(nm, 1), *rec = calloc(nt, 1);
  int rc = lead && hyp && rec ? 0 : -1, r0 = 0, r1 = 0;
  if (rc == 0) {
    reach_leads(c, need, lead);
    if (calib_reach_record_read(c, hyp, rec, nrec, err) < 0)
      rc = -2;
    for (int t = 0; t < c->v.ntasks; t++)
      *nlead += lead[t] == t && !rec[t];
  }
  struct reach_hyp h = {.lead = lead, .decl = c->decl, .rec = rec, .hyp = hyp};
  if (rc == 0 && (reach_seed_scenario(c, st, &h, 0, par) < 0 || (r0 = reach_rounds(c, st, 0)) < 0))
    rc = -1;
  int g0 = st->ng;
  if (rc == 0 && (reach_seed_scenario(c, st, &h, 1, par) < 0 || (r1 = reach_rounds(c, st, g0)) < 0))
    rc = -1;
  if (rc == 0 && calib_reach_record_write(c, c->decl, need, err) < 0)
    rc = -2;
  free(lead);
  free(hyp);
  free(rec);
  return rc < 0 ? rc : r0 + r1;
}

int calib_reach_refine(struct calib *c, FILE *out, struct nw_err *err)
{
  unsigned char *need = malloc((size_t)(c->v.ntasks > 0 ? c->v.ntasks : 1));
  int *par = malloc((size_t)(c->np > 0 ? c->np : 1) * sizeof *par);
  struct reach_state st = {0};
  int rc = need && par ? 0 : -1, nlead = 0, nrec = 0;
  const double *xs[1] = {c->x};
  if (rc == 0)
    calib_pts_need(c, c->fitpts, c->nfit, need);
  st.base = malloc((size_t)(c->v.ntasks > 0 ? c->v.ntasks : 1) * sizeof *st.base);
  if (rc == 0 && (!st.base || calib_simulate(c, 1, xs, c->fitpts, c->nfit) < 0))
    rc = -1;
  for (int t = 0; rc == 0 && t < c->v.ntasks; t++) { /* found now: the keys change as the reach does */
    const struct calib_cached *b = need[t] ? calib_find(c, t, c->x) : NULL;
    st.base[t] = b ? (int)(b - c->cache) : -1;
  }
  if (rc == 0 && c->o->reach == CALIB_REACH_SCENARIO)
    rc = reach_by_scenario(c, &st, need, par, &nlead, &nrec, err);
  else if (rc == 0)
    rc = reach_seed(c, &st, need, par) < 0 ? -1 : reach_rounds(c, &st, 0);
  if (rc >= 0 && out) {
    fprintf(out, "reach: %ld of %ld (simulation, free parameter) pairs move the simulation; %ld inert, found by %ld "
                 "group simulations in %d rounds",
            st.pairs - st.inert_pairs, st.pairs, st.inert_pairs, st.tests, rc);
    if (c->o->reach == CALIB_REACH_SCENARIO)
      fprintf(out, " (per scenario: %d lead tasks by plain differences, %d tasks from the record)", nlead, nrec);
    fputc('\n', out);
  }
  free(st.base);
  free(st.g);
  free(st.pool);
  free(par);
  free(need);
  if (rc == -1)
    nw_fail(err, "calibrate", 0, 0, "reach tests failed (out of memory)");
  return rc >= 0 ? 0 : rc == -1 ? 1 : 2;
}

/* A pair the start point set aside, tested again after the fit: a needed
 * task's declared pair of a parameter the fit frees or the screen found
 * without effect, out of the reach (the reach tests) or, without effect,
 * in it (the screen).  1 out of the reach, 2 in it, 0 not set aside. */
static int reach_set_aside(const struct calib *c, const unsigned char *need, int t, int j)
{
  size_t k = (size_t)t * (size_t)c->np + (size_t)j;
  const struct calib_param *q = &c->par[j];
  if (!need[t] || !c->decl[k] || !(q->free_ || q->no_effect))
    return 0;
  return !c->reach[k] ? 1 : q->no_effect ? 2 : 0;
}

/* A cache entry of a task whose set-aside pair (t, j) joins the reach
 * again was simulated at the start's value of j (calib_task_sets) or, the
 * pair still in the reach then, at its own; keyed now on its own value,
 * it is dropped (its task -1: found no more) unless the two agree. */
static void reach_drop_stale(struct calib *c, const unsigned char *cand)
{
  for (int i = 0; i < c->ncache; i++) {
    struct calib_cached *e = &c->cache[i];
    for (int j = 0; e->task >= 0 && j < c->np; j++)
      if (cand[(size_t)e->task * (size_t)c->np + (size_t)j] == 1 && e->vals[j] != c->xstart[j])
        e->task = -1;
  }
}

/* Does moving parameter j alone by the Jacobian's step from c->x change
 * a fit point it reaches?  Its simulations are the single tests'
 * (cached).  1, 0, or -1 out of memory. */
static int reach_moves_point(struct calib *c, int j, double *xp, double *pred)
{
  memcpy(xp, c->x, (size_t)c->np * sizeof *xp);
  xp[j] = calib_x_of_u(c->uref[j] + CALIB_DU, c->par[j].lo, c->par[j].hi);
  const double *xs[2] = {c->x, xp};
  if (calib_simulate(c, 2, xs, c->fitpts, c->nfit) < 0)
    return -1;
  for (int v = 0; v < 2; v++) {
    calib_score_at(c, xs[v], c->fitpts, c->nfit);
    for (int i = 0; i < c->nfit; i++) {
      const struct val_point *p = &c->v.pts[c->fitpts[i]];
      double y = p->status == VAL_OK ? p->predicted : NAN;
      if (v == 0)
        pred[i] = y;
      else if (calib_reaches(c, j, c->fitpts[i]) && memcmp(&y, &pred[i], sizeof y))
        return 1;
    }
  }
  return 0;
}

int calib_reach_retest(struct calib *c, int *nrestored, FILE *out)
{
  size_t nt = (size_t)(c->v.ntasks > 0 ? c->v.ntasks : 1), np = (size_t)(c->np > 0 ? c->np : 1);
  unsigned char *need = malloc(nt), *cand = calloc(nt * np, 1);
  int *par = malloc(np * sizeof *par), nfreed = 0, rc = 0;
  double *xp = malloc(np * sizeof *xp), *pred = malloc((size_t)(c->nfit > 0 ? c->nfit : 1) * sizeof *pred);
  struct reach_state st = {.what = "re-screen"};
  st.base = malloc(nt * sizeof *st.base);
  *nrestored = 0;
  if (!need || !cand || !par || !xp || !pred || !st.base) {
    rc = -1;
    goto done;
  }
  calib_pts_need(c, c->fitpts, c->nfit, need);
  for (int t = 0; t < c->v.ntasks; t++)
    for (int j = 0; j < c->np; j++)
      cand[(size_t)t * np + (size_t)j] = (unsigned char)reach_set_aside(c, need, t, j);
  reach_drop_stale(c, cand);
  for (size_t k = 0; k < (size_t)c->v.ntasks * (size_t)c->np; k++)
    c->reach[k] |= cand[k] != 0;
  const double *xs[1] = {c->x};
  if (calib_rekey(c) < 0 || calib_simulate(c, 1, xs, c->fitpts, c->nfit) < 0) {
    rc = -1;
    goto done;
  }
  for (int t = 0; t < c->v.ntasks; t++) {
    const struct calib_cached *b = need[t] ? calib_find(c, t, c->x) : NULL;
    st.base[t] = b ? (int)(b - c->cache) : -1;
    int n = 0;
    for (int j = 0; j < c->np; j++)
      if (cand[(size_t)t * np + (size_t)j])
        par[n++] = j;
    st.pairs += n;
    if (n > 0 && reach_seed_group(&st, t, par, n) < 0) {
      rc = -1;
      goto done;
    }
  }
  if (reach_rounds(c, &st, 0) < 0) {
    rc = -1;
    goto done;
  }
  /* the pairs that move now: one out of the reach joins it; one in it
   * (the screen's) stays there whatever the verdict */
  for (size_t k = 0; k < (size_t)c->v.ntasks * (size_t)c->np; k++) {
    *nrestored += cand[k] == 1 && c->reach[k];
    c->reach[k] |= cand[k] == 2;
  }
  if (calib_rekey(c) < 0) {
    rc = -1;
    goto done;
  }
  fprintf(out, "re-screen at the fitted values: %ld pairs set aside at the start tested (%ld group simulations), "
               "%ld move the simulation now (%d out of the reach join it)\n",
          st.pairs, st.tests, st.pairs - st.inert_pairs, *nrestored);
  for (int j = 0; j < c->np; j++) {
    int moves = 0;
    for (int t = 0; c->par[j].no_effect && !moves && t < c->v.ntasks; t++)
      moves = cand[(size_t)t * np + (size_t)j] && c->reach[(size_t)t * np + (size_t)j];
    int m = moves ? reach_moves_point(c, j, xp, pred) : 0;
    if (m < 0) {
      rc = -1;
      goto done;
    }
    if (m) {
      c->par[j].no_effect = 0;
      nfreed++;
      fprintf(out, "  freed (without effect at the start, a fit point moves with it now): %s.%s\n", c->par[j].entry,
              c->par[j].key);
    }
  }
done:
  free(st.base);
  free(st.g);
  free(st.pool);
  free(need);
  free(cand);
  free(par);
  free(xp);
  free(pred);
  return rc < 0 ? rc : nfreed;
}
