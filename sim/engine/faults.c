/* faults.c - the scenario's injected faults at their times (a member
 * disk fails, a network path goes down or comes back) and what an LACP
 * bond's link monitor does about a member that went down. */
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <xbt/asserts.h>

#include "models/net/mpio.h"
#include "sim/engine/eng_impl.h"

/* An LACP bond member goes down or comes back: what the bond's link
 * monitor does miimon later. */
struct eng_bond {
  struct eng *e;
  int member, down;
};

/* Frames on a dead member are lost until the bond's link monitor polls
 * (miimon); it then rehashes every flow over the survivors (Linux: hash
 * modulo the active members), and the lost frames go again on the new
 * member (TCP's retransmission, without its timeout).  So a message that
 * would start on the dead member meanwhile waits for the move
 * (eng_bond_wait); messages already on the wire when it died complete.
 * (Throttling the link instead would not do: SimGrid bounds a transfer by
 * the route's bandwidth when it starts, so a 48 B PDU started on a 1 B/s
 * link takes 48 s even once the rate is restored.)  A member back up
 * rejoins at the next poll and the flows hash as before. */
static void eng_bond_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_bond *b = sg_actor_self_get_data();
  struct eng *e = b->e;
  if (b->down)
    e->bond_moves_at[b->member] = simgrid_get_clock() + e->s->net.miimon_s;
  sg_actor_sleep_for(e->s->net.miimon_s);
  for (int i = 0; i < e->map.nconns; i++) {
    struct eng_conn *c = &e->conns[i];
    if (b->down)
      c->route = b->member;
    else if (c->route == b->member)
      c->route = -1;
  }
  if (b->down)
    e->bond_moves_at[b->member] = 0.0;
}

/* When the bond moves c's frames off its dead member (0: alive or moved). */
static double eng_bond_moves_at(const struct eng *e, const struct eng_conn *c, int up)
{
  int m = c->route < 0 ? (up ? c->pc->nas_rx : c->pc->nas_tx)
                       : (up ? c->pc->alt_rx[c->route] : c->pc->alt_tx[c->route]);
  return m < PLAT_MAX_BOND ? e->bond_moves_at[m] : 0.0;
}

int eng_bond_open(const struct eng *e, const struct eng_conn *c, int up)
{
  return eng_bond_moves_at(e, c, up) <= 0.0;
}

void eng_bond_wait(struct eng *e, const struct eng_conn *c, int up)
{
  for (;;) {
    double at = eng_bond_moves_at(e, c, up);
    if (at <= 0.0)
      return;
    if (simgrid_get_clock() < at)
      sg_actor_sleep_until(at);
    else
      sg_actor_yield(); /* the bond moves at this instant: let it */
  }
}

static void eng_bond_event(struct eng *e, int member, int down)
{
  struct eng_bond *b = eng_own(e, sizeof *b);
  if (!b)
    xbt_die("out of memory");
  *b = (struct eng_bond){.e = e, .member = member, .down = down};
  eng_spawn("bond-miimon", eng_nas_host(e), eng_bond_main, b, 1);
}

/* Injects the scenario's disk failures and path losses at their times. */
void eng_faults_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng *e = sg_actor_self_get_data();
  const struct scenario *s = e->s;
  double prev_t = -INFINITY;
  int prev = -1;
  for (int done = 0; done < s->nfaults; done++) {
    /* next fault in (time, list order): faults at one time all happen */
    int next = -1;
    for (int i = 0; i < s->nfaults; i++) {
      double t = s->faults[i].at_s;
      if ((t > prev_t || (t == prev_t && i > prev)) && (next < 0 || t < s->faults[next].at_s))
        next = i;
    }
    if (next < 0)
      break;
    prev_t = s->faults[next].at_s;
    prev = next;
    const struct cfg_fault *f = &s->faults[next];
    sg_actor_sleep_until(f->at_s);
    if (f->kind == CFG_FAULT_DISK_FAIL) {
      stack_fail_member(e->stack, simgrid_get_clock(), f->target);
      eng_wake_storage(e);
    } else if (f->kind == CFG_FAULT_PATH_DOWN || f->kind == CFG_FAULT_PATH_UP) {
      int down = f->kind == CFG_FAULT_PATH_DOWN;
      for (int j = 0; j < e->njobs; j++) {
        if (!e->jobs[j].mpio || f->target >= e->jobs[j].nconns)
          continue;
        if (down)
          mpio_fail_path(e->jobs[j].mpio, f->target);
        else
          mpio_reinstate_path(e->jobs[j].mpio, f->target);
      }
      if (e->map.failover & (1u << f->target))
        eng_bond_event(e, f->target, down);
    }
    /* disk hangs are in the device wrapper from the start */
  }
}
