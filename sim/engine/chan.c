/* chan.c - the client<->NAS byte streams on the flow model (flow.h).
 *
 * A channel is one direction of a connection's socket as SimGrid's
 * mailboxes made it: the receiving end keeps ENG_SOCKET_POSTED receives
 * posted, and a message holds one from the moment it matches it (it
 * goes on the wire; the oldest posted receive first) until the receiver
 * has taken it (its wait_any returned it and it posted that receive
 * again); the others wait in order.  A receiver busy with the previous
 * message (the NAS socket in its softirq work) so leaves one that has
 * arrived holding its receive, and when it comes back with several
 * arrived it takes the lowest receive's (wait_any scans in order: a
 * message can wait there while the other receive turns over); when it
 * was waiting, the first to arrive (ties: the last started).  Its route is its connection's: towards the NAS
 * over the links of the host its sender is on, back over those of the
 * host its receiver is on when it starts (an actor follows an LACP
 * rehash only when it wakes, eng_follow_route), as SimGrid routed a
 * comm between its two actors' hosts.  One scheduler actor sleeps until
 * the model's next event or a new message. */
#include <math.h>
#include <string.h>
#include <simgrid/engine.h>
#include <xbt/asserts.h>

#include "sim/engine/eng_impl.h"
#include "sim/engine/flow.h"

struct eng_xfer {
  struct eng_chan *ch;
  struct eng_conn *c;
  int up;          /* client->NAS */
  int route;       /* towards the NAS: the sender's route (-1: as hashed, M: without member M) */
  int detached;    /* a zero-cost hand-over: no wire, no sender waiting */
  int slot;        /* the receive it holds */
  void *payload;
  double bytes;
  int through;     /* its last byte is through */
  int waited;      /* its sender waits on sem for that */
  int forgotten;   /* sent with no actor waiting for it: freed once through (eng_chan_send_forget) */
  sg_sem_t sem;    /* released then if its sender waits */
  struct eng_xfer *next;
};

struct eng_net {
  struct eng *e;
  struct flow_net *fn;
  struct eng_sched sched;
  struct eng_links links;
  double gamma;
  struct eng_xfer *free_x;
};

/* Constraint indices: NAS port M client->NAS (its link's DOWN direction)
 * and NAS->client (UP); client C's NIC N towards the NAS (UP), from it
 * (DOWN); the switch backplane last. */
static int eng_links_nas(int m, int up)
{
  return 2 * m + (up ? 0 : 1);
}

static int eng_links_nic(const struct eng_links *l, int client, int nic, int up)
{
  return 2 * l->np + 2 * (client * l->nc + nic) + (up ? 0 : 1);
}

struct flow_net *eng_links_create(const struct scenario *s, const struct plat_map *map, struct eng_links *l)
{
  l->np = map->nas_ports;
  l->nc = map->client_nics;
  l->hop_s = s->net.link_latency_s;
  l->sw_s = s->net.switch_hops > 0 ? s->net.switch_latency_s * s->net.switch_hops : 0.0;
  l->sw_link = map->blocking_switch || l->sw_s > 0;
  double sw_bw = map->blocking_switch ? s->net.switch_backplane_bytes_per_s : 1e15; /* else a fat pipe */
  l->bw = map->nas_port_payload_bytes_per_s;
  if (map->client_nic_payload_bytes_per_s < l->bw)
    l->bw = map->client_nic_payload_bytes_per_s;
  if (l->sw_link && sw_bw < l->bw)
    l->bw = sw_bw;
  int ncons = 2 * l->np + 2 * s->nclients * l->nc + 1;
  l->sw = map->blocking_switch ? ncons - 1 : -1;
  struct flow_net *fn = flow_net_create(ncons);
  if (!fn)
    return NULL;
  for (int m = 0; m < l->np; m++)
    for (int up = 0; up < 2; up++)
      flow_cons_set(fn, eng_links_nas(m, up), map->nas_port_payload_bytes_per_s);
  for (int c = 0; c < s->nclients; c++)
    for (int k = 0; k < l->nc; k++)
      for (int up = 0; up < 2; up++)
        flow_cons_set(fn, eng_links_nic(l, c, k, up), map->client_nic_payload_bytes_per_s);
  if (l->sw >= 0)
    flow_cons_set(fn, l->sw, sw_bw);
  return fn;
}

double eng_links_latency_s(const struct eng_links *l)
{
  double lat = 0.0 + l->hop_s;
  if (l->sw_link)
    lat += l->sw_s;
  return lat + l->hop_s;
}

int eng_links_start(struct flow_net *fn, const struct eng_links *l, double now_s, double bytes, int client,
                    int nic, int nas_port, int up, double gamma_bytes, void *tag)
{
  int cons[3], k = 0;
  if (up) {
    cons[k++] = eng_links_nic(l, client, nic, 1);
    if (l->sw >= 0)
      cons[k++] = l->sw;
    cons[k++] = eng_links_nas(nas_port, 1);
  } else {
    cons[k++] = eng_links_nas(nas_port, 0);
    if (l->sw >= 0)
      cons[k++] = l->sw;
    cons[k++] = eng_links_nic(l, client, nic, 0);
  }
  double lat = eng_links_latency_s(l);
  double bound = lat > 0 && gamma_bytes / (2.0 * lat) < l->bw ? gamma_bytes / (2.0 * lat) : l->bw;
  return flow_start(fn, now_s, bytes, cons, k, lat, lat > 0 ? lat : 1.0, bound, tag);
}

static void eng_net_done(void *ctx, void *tag);

static int eng_net_advance(void *model, double now_s, void *ctx)
{
  return flow_advance(model, now_s, eng_net_done, ctx);
}

static double eng_net_next_s(const void *model)
{
  return flow_next_s(model);
}

int eng_net_setup(struct eng *e)
{
  const struct scenario *s = e->s;
  struct eng_net *n = eng_own(e, sizeof *n);
  if (!n)
    return -1;
  e->net = n;
  n->e = e;
  n->gamma = eng_tcp_window(e);
  n->fn = eng_links_create(s, &e->map, &n->links);
  if (!n->fn)
    return -1;
  n->sched = (struct eng_sched){.model = n->fn, .advance = eng_net_advance, .next_s = eng_net_next_s, .ctx = n};
  eng_sched_start(e, &n->sched, "network", eng_nas_host(e));
  return 0;
}

void eng_net_destroy(struct eng *e)
{
  if (e->net)
    flow_net_destroy(e->net->fn);
}

void eng_chan_init(struct eng *e, struct eng_chan *ch)
{
  memset(ch, 0, sizeof *ch);
  ch->net = e->net;
  for (int i = 0; i < ENG_SOCKET_POSTED; i++)
    ch->posted[ch->nposted++] = i;
  ch->woke = -1;
  ch->sem = eng_sem(e);
}

/* Connection c's route whose client end is host h. */
static int eng_net_route(const struct eng_conn *c, sg_host_t h)
{
  if (h == c->host)
    return -1;
  for (int m = 0; m < PLAT_MAX_BOND; m++)
    if (c->alt_host[m] && c->alt_host[m] == h)
      return m;
  return -1;
}

/* x goes on the wire over its route (eng_links_start). */
static void eng_chan_arrive(struct eng_chan *ch, int slot, void *payload);

static void eng_xfer_begin(struct eng_net *n, struct eng_xfer *x)
{
  struct eng_chan *ch = x->ch;
  x->slot = ch->posted[ch->posted0];
  ch->posted0 = (ch->posted0 + 1) % ENG_SOCKET_POSTED;
  ch->nposted--;
  ch->slot[x->slot] = 1;
  ch->held[x->slot] = x->bytes;
  ch->seq[x->slot] = ch->next_seq++;
  ch->held_bytes += x->bytes;
  if (x->detached) {
    eng_chan_arrive(ch, x->slot, x->payload);
    x->next = n->free_x;
    n->free_x = x;
    return;
  }
  const struct plat_conn *pc = x->c->pc;
  int route = x->route;
  if (!x->up)
    route = eng_net_route(x->c, x->ch->receiver ? sg_actor_get_host(x->ch->receiver) : x->c->host);
  int nas = x->up ? (route < 0 ? pc->nas_rx : pc->alt_rx[route]) : (route < 0 ? pc->nas_tx : pc->alt_tx[route]);
  if (eng_links_start(n->fn, &n->links, simgrid_get_clock(), x->bytes, pc->client,
                      x->up ? pc->client_tx : pc->client_rx, nas, x->up, n->gamma, x) < 0)
    xbt_die("out of memory");
  eng_sched_poke(&n->sched);
}

/* Start the next waiting message of ch if a receive is free. */
static void eng_chan_pump(struct eng_net *n, struct eng_chan *ch)
{
  while (ch->wait_head && ch->nposted > 0 &&
         (ch->held_bytes <= 0.0 || ch->held_bytes + ch->wait_head->bytes <= ch->net->gamma)) {
    struct eng_xfer *x = ch->wait_head;
    ch->wait_head = x->next;
    if (!ch->wait_head)
      ch->wait_tail = NULL;
    eng_xfer_begin(n, x);
  }
}

/* The receiver takes the message in slot i: that receive is posted
 * again, and the next waiting message matches it. */
static void eng_chan_take(struct eng_chan *ch, int i)
{
  ch->slot[i] = 0;
  ch->held_bytes -= ch->held[i];
  if (ch->held_bytes < 0.5)
    ch->held_bytes = 0.0;
  ch->posted[(ch->posted0 + ch->nposted++) % ENG_SOCKET_POSTED] = i;
  eng_chan_pump(ch->net, ch);
}

/* A message is in receive slot's buffer; the receiver, if it waits, wakes
 * for it (or it is taken for it, ch->pass). */
static void eng_chan_arrive(struct eng_chan *ch, int slot, void *payload)
{
  ch->slot[slot] = 2;
  ch->arrived[slot] = payload;
  if (ch->blocked && ch->woke < 0 && ch->pass && ch->pass(payload)) {
    eng_chan_take(ch, slot);
    return;
  }
  if (ch->blocked && ch->woke < 0) {
    ch->woke = slot;
    sg_sem_release(ch->sem);
  }
}

/* x's last byte is through: it has arrived; its sender wakes. */
static void eng_net_done(void *ctx, void *tag)
{
  struct eng_xfer *x = tag;
  struct eng_net *n = ctx;
  eng_chan_arrive(x->ch, x->slot, x->payload);
  x->through = 1;
  if (x->waited) {
    sg_sem_release(x->sem);
  } else if (x->forgotten) { /* nobody waits for it: done with */
    x->next = n->free_x;
    n->free_x = x;
  }
}

static struct eng_xfer *eng_chan_queue(struct eng *e, struct eng_chan *ch, struct eng_conn *c, int up,
                                       void *payload, double bytes, int detached)
{
  struct eng_net *n = e->net;
  struct eng_xfer *x = n->free_x;
  if (x) {
    n->free_x = x->next;
  } else {
    if (!(x = eng_own(e, sizeof *x)))
      xbt_die("out of memory");
    x->sem = eng_sem(e);
  }
  x->ch = ch;
  x->c = c;
  x->up = up;
  x->route = up ? eng_net_route(c, sg_host_self()) : -1;
  x->detached = detached;
  x->through = x->waited = 0;
  x->forgotten = 0;
  x->payload = payload;
  x->bytes = bytes;
  x->next = NULL;
  if (ch->wait_tail)
    ch->wait_tail->next = x;
  else
    ch->wait_head = x;
  ch->wait_tail = x;
  eng_chan_pump(n, ch);
  return x;
}

struct eng_xfer *eng_chan_send_async(struct eng *e, struct eng_chan *ch, struct eng_conn *c, int up,
                                     void *payload, double bytes)
{
  return eng_chan_queue(e, ch, c, up, payload, bytes, 0);
}

double eng_tcp_window(const struct eng *e)
{
  return e->s->net.tcp_window_bytes > 0 ? e->s->net.tcp_window_bytes : ENG_TCP_WINDOW_BYTES;
}

/* A TCP stream's bytes are in order on the wire; the flow model shares
 * a link among the flows on it, so a stream's pieces all on the wire at
 * once would arrive together at the end, not one after another.  A
 * stream keeps on the wire what its route holds in flight (its slowest
 * link's rate x its latency: the route never idles) and two pieces (the
 * receiver has the next while it takes one), within the TCP window. */
double eng_stream_flight_bytes(const struct eng *e, double piece_bytes)
{
  double w = eng_tcp_window(e);
  if (!e->net)
    return w;
  const struct eng_links *l = &e->net->links;
  double b = 2.0 * piece_bytes + l->bw * eng_links_latency_s(l);
  return b < w ? b : w;
}

int eng_xfer_through(const struct eng_xfer *x)
{
  return x->through;
}

/* A message already through costs its sender no wait (a SimGrid
 * acquire yields even on a released semaphore). */
void eng_xfer_wait(struct eng *e, struct eng_xfer *x)
{
  if (!x->through) {
    x->waited = 1;
    sg_sem_acquire(x->sem);
  }
  x->next = e->net->free_x;
  e->net->free_x = x;
}

void eng_xfer_forget(struct eng *e, struct eng_xfer *x)
{
  if (x->through) {
    x->next = e->net->free_x;
    e->net->free_x = x;
  } else {
    x->forgotten = 1;
  }
}

void eng_chan_send(struct eng *e, struct eng_chan *ch, struct eng_conn *c, int up, void *payload, double bytes)
{
  eng_xfer_wait(e, eng_chan_send_async(e, ch, c, up, payload, bytes));
}

void eng_chan_send_forget(struct eng *e, struct eng_chan *ch, struct eng_conn *c, void *payload, double bytes)
{
  eng_chan_queue(e, ch, c, 0, payload, bytes, 0)->forgotten = 1; /* not through before the flow model's next event */
}

/* SimGrid's detached 0-byte comm between the client cache's actor and the
 * lane's receiver (same host, or hosts joined by a free link): it took a
 * posted receive like any message, in order, and arrived at once. */
void eng_chan_deliver(struct eng *e, struct eng_chan *ch, void *payload)
{
  (void)eng_chan_queue(e, ch, NULL, 0, payload, 0.0, 1);
}

void *eng_chan_recv(struct eng_chan *ch)
{
  if (!ch->receiver)
    ch->receiver = sg_actor_self();
  int i = ENG_SOCKET_POSTED;
  for (int k = 0; k < ENG_SOCKET_POSTED; k++)
    if (ch->slot[k] == 2 && (i == ENG_SOCKET_POSTED || ch->seq[k] < ch->seq[i]))
      i = k;
  if (i == ENG_SOCKET_POSTED) {
    ch->blocked = 1;
    ch->woke = -1;
    sg_sem_acquire(ch->sem);
    ch->blocked = 0;
    i = ch->woke;
  }
  void *p = ch->arrived[i];
  eng_chan_take(ch, i);
  return p;
}
