/* flow_impl.h - the fluid network model's state (flow.c, flow_star.c). */
#ifndef NASTWIN_FLOW_IMPL_H
#define NASTWIN_FLOW_IMPL_H

#include "sim/engine/flow.h"

/* Levels within this relative distance are one (float noise of the sums). */
#define FLOW_LEVEL_EPS 1e-12

/* Flows a component needs to become a star: below, a re-solve of every
 * flow per event is as cheap as the star's bookkeeping (and keeps the
 * solve's arithmetic, rem brought up to date per event, for the few-flow
 * components of a NAS's usual clients). */
#define FLOW_STAR_MIN 64 /* the default of flow_net_stars */

enum { FLOW_FREE, FLOW_LATENCY, FLOW_SHARING, FLOW_ALONE };

struct flow {
  double rem;    /* bytes still to go (at t_upd) */
  double rate;   /* bytes/s while sharing */
  double weight; /* sharing penalty: rate = level / weight */
  double bound;  /* rate cap (<= 0: none) */
  double t_upd;  /* when rem was last brought up to date */
  double t_ev;   /* its next event: latency paid, or the end */
  double t_paid; /* FLOW_ALONE: when its latency is paid (its rate holds from then) */
  unsigned long long seq; /* start order: ties (the last started first) */
  void *tag;
  int ncons, cons[FLOW_MAX_CONS], pos[FLOW_MAX_CONS]; /* its constraints, its place in their lists */
  int heap;      /* index in the heap, -1 if not in it */
  int state;
  int mark;      /* solve: the stamp of the component it was put in */
  int fixed;     /* solve: its rate is decided */
  int next_free;
  int star;      /* its star's centre constraint (flow_star), -1: none (rem, rate, t_upd then stale) */
  int lheap;     /* its index in the star's heap */
  double key;    /* in a star: its end as the centre's per-weight service (star->S) */
};

struct flow_cons {
  double cap;
  int *fl, n, capn; /* the sharing flows crossing it */
  double *iw;       /* their 1 / weight, in fl's order (solve sums them in a row) */
  int npaying;      /* flows crossing it still paying their latency (FLOW_ALONE ones too) */
  int alone;        /* the FLOW_ALONE flow crossing it, -1 if none */
  int mark;         /* solve: stamp of the component, or of the dirty list */
  int dirty;
  double rem, usage; /* solve: capacity left, sum of 1/weight of the undecided flows */
  int unfixed;       /* solve: undecided flows */
  int star;          /* the centre of the star it is in, -1: none */
  double su;         /* in a star: the sum of its flows' 1/weight (kept as they come and go) */
  struct flow_star *st; /* a centre: the star */
};

/* A star (flow_star_*): a component of at least FLOW_STAR_MIN flows that
 * all cross one constraint, the centre, whose level is the only one
 * reached: every flow runs at level / weight.  Its flows' ends are then
 * fixed amounts of the centre's cumulative per-weight service S (the
 * integral of its level): key = S + rem x weight, in a heap of their own;
 * only the first is in the model's heap, so a start or end there costs
 * O(log flows), not a re-solve of every flow (processor sharing in
 * virtual time).  It stays a star while the centre is the tightest
 * (every other constraint's level and every bound above it); else its
 * flows are brought back (rem = (key - S) / weight) and re-solved. */
struct flow_star {
  double S, t_S, L;   /* service up to t_S; the level since */
  int *h, nh, caph;   /* its flows by key (ties: the last started first) */
  int *sat, nsat;     /* the other constraints its flows cross */
  double bmin;        /* the lowest bound x weight of its flows, bmin_n of them */
  int bmin_n, bmin_lost;
  int head;           /* the flow of it in the model's heap, -1: none */
  int touched;        /* changed since its last re-head */
  long events;        /* starts and ends since the keys were last rebased */
};

struct flow_net {
  int ncons;
  struct flow_cons *c;
  struct flow *f;
  int nf, capf, free_head;
  int *heap, nheap;
  int *dirty, ndirty;
  int *comp_c, *comp_f; /* solve scratch: the component */
  int ncomp_c, ncomp_f;
  void **ended;
  int nended, capended;
  unsigned long long seq;
  int stamp;
  /* A join taken ahead (flow_ahead): its flow (-1: none), its time, the
   * component's flows as they were before its solve. */
  int ahead, nsaved, saving;
  double ahead_s, ahead_upd;
  int *sv_f;
  double *sv;     /* 4 a flow: rem, t_upd, t_ev, rate */
  int *touched, ntouched; /* stars changed since the last solve */
  int star_min;           /* flows a star needs (flow_net_stars) */
};

/* flow.c: the model's heap of next events, the constraints to re-solve. */
void flow_heap_set(struct flow_net *n, int at, int fi);
void flow_heap_up(struct flow_net *n, int at);
void flow_heap_down(struct flow_net *n, int at);
void flow_heap_fix(struct flow_net *n, int fi);
void flow_heap_remove(struct flow_net *n, int at);
void flow_dirty(struct flow_net *n, int j);

/* flow_star.c: stars (struct flow_star). */
int star_joinable(struct flow_net *n, int fi, double now);
int star_join(struct flow_net *n, int ce, int fi, double now);
void star_leave(struct flow_net *n, int fi, double now);
void star_settle(struct flow_net *n, double now);
int star_may_form(const struct flow_net *n, int ce, double level);
int star_form(struct flow_net *n, int ce, double level, double now);

#endif
