#include "sim/engine/engine.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <simgrid/plugins/energy.h>
#include <simgrid/semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xbt/config.h>
#include <xbt/asserts.h>
#include <xbt/log.h>

#include "models/disks/fault.h"
#include "models/net/mpio.h"
#include "models/storage/pcache.h"
#include "sim/analysis/analysis.h"
#include "sim/engine/platform.h"
#include "sim/analysis/stats.h"

XBT_LOG_NEW_DEFAULT_CATEGORY(nastwin, "nastwin engine");

struct eng;
struct eng_job;

/* A CPU thread of the SoC (or of a client in local mode): accounting only. */
struct eng_thread {
  char name[96];
  char who[96];
  double cycles; /* reference cycles executed inside the window */
  double speed;  /* host speed (cycles/s) */
  int softirq;   /* interrupt context: runs ahead of processes on its core */
  int holding;   /* 1 while it holds a request (or a kernel work item) */
  double hold_since_s;
  double occupied_s; /* time inside the window holding one (s) */
};

struct eng_req {
  struct eng_job *job;
  int conn;          /* index into the job's connections */
  int write;
  uint64_t offset_bytes, len_bytes;
  double t_issue_s;
  int opens;        /* files opened (and closed) before this I/O: file copies */
  double rx_cycles, tx_cycles; /* daemon CPU per direction, set by eng_cycles */
  double softirq_cycles;       /* receive packet processing, set by eng_cycles */
  int absorbed;      /* a buffered write taken by the client's page cache */
  int flush;         /* write-back of the client's dirty data (not a client I/O) */
  sg_sem_t waiter;   /* the daemon blocked until the storage is done (nfsd; smbd in
                        pread() without aio), NULL if none */
  struct eng_req *next;
};

/* A FIFO of requests plus a semaphore: hand-offs between actors. */
struct eng_queue {
  struct eng_req *head, *tail;
  sg_sem_t sem;
};

struct eng_conn {
  const struct plat_conn *pc;
  sg_host_t host;
  sg_mailbox_t srv;             /* where the daemon receives (SMB, iSCSI) */
  struct eng_queue txq;         /* PROTO_SHAPE_RXTX: completions waiting for the tx thread */
  struct eng_queue rxq;         /* requests received on this connection's socket */
  struct eng_queue *deliver;    /* where the socket hands requests: rxq, or the pool's */
  struct eng_queue cacheq;      /* writes absorbed by the client cache, being copied */
  struct eng_thread *softirq;   /* receive processing of this flow (irq spread) */
  double bytes_up, bytes_down;  /* payload carried in the window */
  int route;                    /* LACP: -1 as hashed, M: rehashed without member M */
  sg_host_t alt_host[PLAT_MAX_BOND]; /* client end while rehashed without member M */
  double alt_up[PLAT_MAX_BOND], alt_down[PLAT_MAX_BOND]; /* payload carried while rehashed */
  int proc_work;                /* PROTO_SHAPE_PROCESS: requests in rxq or being executed */
};

struct eng_job {
  struct eng *e;
  const struct job *spec;
  int client, copy, id;
  gsl_rng *rng;
  double region_start, region_bytes, next_off, issued_bytes;
  int depth;                /* effective outstanding limit */
  int outstanding;
  uint64_t issued, completed;
  int nconns;
  int conn0;                /* first connection (global index) of the client */
  sg_mailbox_t reply[PLAT_MAX_CONNS > 16 ? 16 : PLAT_MAX_CONNS];
  struct eng_queue sendq[16]; /* requests another lane must send */
  struct mpio *mpio;
  int rr;
  struct eng_queue localq;  /* local mode: completions */
  sg_sem_t done;
  int finished;
  double t_end;
  int pending_timer;        /* thinktime / open loop: issues owed */
  sg_sem_t timer_sem;
  sg_sem_t gate;            /* measured jobs wait here while prep jobs run */
};

/* A client's page cache for buffered writes (write-back, flushed on close). */
struct eng_client {
  struct pcache *cache; /* NULL: no client cache */
  struct accel bus;     /* the client's memory copies */
  uint64_t dirty_limit_bytes;
  uint64_t flush_chunk_bytes; /* largest write request of the protocol */
};

struct eng_kthread {
  struct eng *e;
  enum stack_thread kind;
  struct eng_thread acct;
  struct eng_kwork { double cycles; uint64_t token; struct eng_kwork *next; } *head, *tail;
  sg_sem_t sem;
};

struct eng {
  const struct scenario *s;
  const struct workload_step *step;
  struct plat_map map;
  const struct proto_ops *ops; /* the protocol: framing, costs, daemon shape */
  int local;                /* no server: a drive inside the client (PROTO_SHAPE_NONE) */
  sg_host_t nas;            /* where daemons and the storage run */
  struct stack *stack;
  struct disk **disks, **cache;
  struct accel parity, crypto, mem_bus;
  sg_sem_t storage_wake;
  double storage_deadline;
  struct eng_kthread kthreads[STACK_THREAD_COUNT];
  struct eng_conn *conns;
  struct eng_client *clients;
  struct eng_job *jobs;
  int njobs;
  struct eng_thread *threads[4096];
  int nthreads;
  struct eng_queue poolq;   /* requests waiting for a thread of the pool (PROTO_SHAPE_POOL) */
  int softirq_single;       /* NIC interrupts on one core (soc.irq_core >= 0) */
  struct eng_queue softirqq;
  struct eng_thread *softirq; /* ksoftirqd on the irq core */
  int proc_runnable;        /* daemon processes (PROTO_SHAPE_PROCESS) with a request to execute */
  struct stats_hist *h_read, *h_write, *h_all;
  double bytes_read, bytes_write;
  uint64_t ios_read, ios_write;
  double ramp_s, t_end_s, last_done_s;
  struct stats_series series;
  struct eng_req *free_reqs;
  int op_running;
  double header_bytes;
  int net_only; /* iperf step: raw TCP streams, the NAS discards the data */
  int nprep;    /* prep job copies still running (IOZone lays out its file first) */
  sg_sem_t *sems; /* every semaphore, destroyed with the engine */
  int nsems, capsems;
  void **owned; /* small per-actor records, freed with the engine */
  int nowned, capowned;
};

/* ---- small helpers ------------------------------------------------------ */

/* calloc a record that lives as long as the engine. */
static void *eng_own(struct eng *e, size_t size)
{
  if (e->nowned == e->capowned) {
    int cap = e->capowned ? e->capowned * 2 : 64;
    void **o = realloc(e->owned, (size_t)cap * sizeof *o);
    if (!o)
      return NULL;
    e->owned = o;
    e->capowned = cap;
  }
  void *p = calloc(1, size);
  if (p)
    e->owned[e->nowned++] = p;
  return p;
}

static struct eng_thread *eng_thread_new(struct eng *e, const char *name, const char *who, double speed)
{
  struct eng_thread *t = calloc(1, sizeof *t);
  if (!t || e->nthreads >= (int)(sizeof e->threads / sizeof e->threads[0])) {
    free(t);
    return NULL;
  }
  snprintf(t->name, sizeof t->name, "%s", name);
  snprintf(t->who, sizeof t->who, "%s", who);
  t->speed = speed;
  e->threads[e->nthreads++] = t;
  return t;
}

/* Weight of a softirq execution against a process's (1): large enough
 * that the processes sharing the cores cannot take its core (4096 smbd
 * threads at most, see eng.threads). */
#define ENG_SOFTIRQ_PRIORITY 1e6

/* Execute cycles on the calling actor's host, accounting them to t. */
static void eng_exec(struct eng *e, struct eng_thread *t, double cycles)
{
  if (cycles <= 0)
    return;
  double now = simgrid_get_clock();
  /* Softirq work preempts processes (Linux runs it on irq exit, ahead of
   * any task; ksoftirqd only defers it under a softirq storm).  SimGrid
   * shares a host's cores among executions in proportion to their
   * priority, each capped at one core: ENG_SOFTIRQ_PRIORITY makes the
   * softirq take a whole core whatever the number of runnable daemons. */
  if (t->softirq)
    sg_actor_execute_with_priority(cycles, ENG_SOFTIRQ_PRIORITY);
  else
    sg_actor_execute(cycles);
  double end = simgrid_get_clock();
  /* Account only the part inside the measured window, pro rata. */
  double lo = now > e->ramp_s ? now : e->ramp_s;
  double hi = end < e->t_end_s ? end : e->t_end_s;
  if (hi > lo && end > now)
    t->cycles += cycles * (hi - lo) / (end - now);
  else if (end == now && now >= e->ramp_s && now <= e->t_end_s)
    t->cycles += cycles;
}

/* Time of [from, to] inside the measured window (s). */
static double eng_in_window_s(const struct eng *e, double from_s, double to_s)
{
  double lo = from_s > e->ramp_s ? from_s : e->ramp_s;
  double hi = to_s < e->t_end_s ? to_s : e->t_end_s;
  return hi > lo ? hi - lo : 0.0;
}

/* Occupancy: t takes a request off its queue (eng_hold) and hands it on
 * or replies (eng_release); in between it holds it whether it runs, waits
 * for a core or sleeps in a storage call. */
static void eng_hold(struct eng_thread *t)
{
  t->holding = 1;
  t->hold_since_s = simgrid_get_clock();
}

static void eng_release(const struct eng *e, struct eng_thread *t)
{
  t->occupied_s += eng_in_window_s(e, t->hold_since_s, simgrid_get_clock());
  t->holding = 0;
}

/* t's occupancy at the end of the run, a request still held included (s). */
static double eng_occupied_s(const struct eng *e, const struct eng_thread *t, double now_s)
{
  return t->occupied_s + (t->holding ? eng_in_window_s(e, t->hold_since_s, now_s) : 0.0);
}

/* A semaphore that lives as long as the engine (destroyed with it). */
static sg_sem_t eng_sem(struct eng *e)
{
  sg_sem_t sem = sg_sem_init(0);
  if (e->nsems == e->capsems) {
    int cap = e->capsems ? e->capsems * 2 : 64;
    sg_sem_t *v = realloc(e->sems, (size_t)cap * sizeof *v);
    if (!v)
      xbt_die("out of memory");
    e->sems = v;
    e->capsems = cap;
  }
  e->sems[e->nsems++] = sem;
  return sem;
}

static void eng_queue_init(struct eng *e, struct eng_queue *q)
{
  q->head = q->tail = NULL;
  q->sem = eng_sem(e);
}

static void eng_queue_push(struct eng_queue *q, struct eng_req *r)
{
  r->next = NULL;
  if (q->tail)
    q->tail->next = r;
  else
    q->head = r;
  q->tail = r;
  sg_sem_release(q->sem);
}

static struct eng_req *eng_queue_pop(struct eng_queue *q)
{
  sg_sem_acquire(q->sem);
  struct eng_req *r = q->head;
  q->head = r->next;
  if (!q->head)
    q->tail = NULL;
  return r;
}

static struct eng_req *eng_req_new(struct eng *e)
{
  struct eng_req *r = e->free_reqs;
  if (r)
    e->free_reqs = r->next;
  else
    r = calloc(1, sizeof *r);
  if (!r)
    xbt_die("out of memory");
  memset(r, 0, sizeof *r);
  return r;
}

/* A client actor of connection c moves to the host of c's current route
 * (LACP rehash after a member left or rejoined the bond); it is called
 * whenever the actor wakes, so it is never blocked when it moves. */
static void eng_follow_route(const struct eng_conn *c)
{
  if (!c)
    return;
  sg_host_t want = c->route < 0 ? c->host : c->alt_host[c->route];
  if (want && sg_host_self() != want)
    sg_actor_set_host(sg_actor_self(), want);
}

/* ---- CPU cost of one request ------------------------------------------- */

/* Where the CPU work of one request goes, in reference cycles: the
 * receive softirq (packets the NAS receives, on the irq core or spread
 * over cores), the daemon's request direction (the command and, for
 * writes, its data; file/thin LUN extras) and its response direction. */
static void eng_cycles(const struct eng *e, struct eng_req *r)
{
  const struct scenario *s = e->s;
  struct proto_cycles pc;
  proto_request_cost(&s->proto, r->write, (double)r->len_bytes, s->net.mtu_bytes,
                     (int)s->net.tcp_timestamps, &pc);
  double fixed = pc.request_cycles + r->opens * proto_open_cycles(&s->proto);
  double data = pc.byte_cycles + pc.tx_packet_cycles + pc.csum_cycles + pc.pdu_cycles;
  /* LIO's iscsi_trx reads its socket with blocking kernel_recvmsg(...,
   * MSG_WAITALL) (rx_data, iscsi_target_util.c).  While it waits, the
   * softirq stops at tcp_v4_rcv and hands the segment to the prequeue
   * (tcp_prequeue, Linux 3.x with tcp_low_latency 0); while it copies it
   * owns the socket and segments go to the backlog.  Either way the TCP
   * layer of its session's incoming segments (tcp_v4_do_rcv ->
   * tcp_rcv_established) runs in trx's context, and only driver + IP stay
   * in the softirq.  smbd and knfsd read non-blocking (EAGAIN before the
   * prequeue), so theirs stays in the softirq. */
  double reader_tcp = e->ops->blocking_reader ? pc.rx_msg_tcp_cycles : 0.0;
  r->softirq_cycles = pc.rx_packet_cycles - reader_tcp;
  r->rx_cycles = fixed / 2 + pc.lun_cycles + reader_tcp + (r->write ? data : 0.0);
  r->tx_cycles = fixed / 2 + (r->write ? 0.0 : data);
}

/* ---- storage event source ---------------------------------------------- */

static void eng_wake_storage(struct eng *e)
{
  if (stack_next_event_s(e->stack) < e->storage_deadline) {
    e->storage_deadline = -1.0; /* one wake is enough until it sleeps again */
    sg_sem_release(e->storage_wake);
  }
}

static void eng_storage_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng *e = sg_actor_self_get_data();
  for (;;) {
    double now = simgrid_get_clock();
    stack_advance(e->stack, now);
    double t = stack_next_event_s(e->stack);
    if (t <= now)
      continue;
    e->storage_deadline = t;
    if (isinf(t))
      sg_sem_acquire(e->storage_wake);
    else
      sg_sem_acquire_timeout(e->storage_wake, t - now);
    e->storage_deadline = -1.0;
  }
}

static void eng_kthread_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_kthread *k = sg_actor_self_get_data();
  for (;;) {
    sg_sem_acquire(k->sem);
    struct eng_kwork *w = k->head;
    k->head = w->next;
    if (!k->head)
      k->tail = NULL;
    eng_hold(&k->acct);
    eng_exec(k->e, &k->acct, w->cycles);
    stack_cpu_done(k->e->stack, simgrid_get_clock(), w->token);
    eng_release(k->e, &k->acct);
    free(w);
    eng_wake_storage(k->e);
  }
}

static void eng_hook_cpu(void *ctx, enum stack_thread thread, double cycles, uint64_t token)
{
  struct eng *e = ctx;
  struct eng_kthread *k = &e->kthreads[thread];
  struct eng_kwork *w = calloc(1, sizeof *w);
  if (!w)
    xbt_die("out of memory");
  w->cycles = cycles;
  w->token = token;
  if (k->tail)
    k->tail->next = w;
  else
    k->head = w;
  k->tail = w;
  sg_sem_release(k->sem);
}

static void eng_send_reply(struct eng *e, struct eng_req *r)
{
  struct eng_job *j = r->job;
  double size = e->header_bytes + (r->write ? 0.0 : (double)r->len_bytes);
  sg_comm_t c = sg_mailbox_put_init(j->reply[r->conn], r, (long)size);
  sg_comm_detach(c, NULL);
}

static void eng_hook_done(void *ctx, double now_s, uint64_t tag)
{
  struct eng *e = ctx;
  (void)now_s;
  struct eng_req *r = (struct eng_req *)(uintptr_t)tag;
  switch (e->ops->shape) {
  case PROTO_SHAPE_PROCESS: {
    sg_sem_t waiter = r->waiter; /* r belongs to the reply once sent */
    eng_send_reply(e, r);
    if (waiter)
      sg_sem_release(waiter);
    break;
  }
  case PROTO_SHAPE_POOL:
    sg_sem_release(r->waiter);
    break;
  case PROTO_SHAPE_RXTX:
    eng_queue_push(&e->conns[r->job->conn0 + r->conn].txq, r);
    break;
  case PROTO_SHAPE_NONE:
    eng_queue_push(&r->job->localq, r);
    break;
  }
}

/* A job's writes are stable before they complete (O_SYNC/FUA, or an NFS
 * export without async). */
static int eng_job_sync(const struct eng *e, const struct job *spec)
{
  return spec->sync || e->ops->sync_writes(&e->s->proto);
}

/* A job's I/O bypasses the storage stack's page cache: O_DIRECT on a local
 * drive (a remote client's flag never reaches the server's cache). */
static int eng_job_direct(const struct eng *e, const struct job *spec)
{
  return e->ops->direct_io && spec->direct;
}

/* Steady state before measuring (StorageReview preconditions for hours):
 * the caches hold what a long run of all the step's jobs together leaves.
 * A job's write rate is taken as its outstanding write bytes (depth x mean
 * block x write share): under a common write-back throttle every writer
 * sees the same latency, so by Little's law the rates go as these.  0, or
 * -1 out of memory. */
static int eng_precondition(struct eng *e)
{
  if (e->njobs == 0)
    return 0;
  struct stack_precond *pc = calloc((size_t)e->njobs, sizeof *pc);
  if (pc == NULL)
    return -1;
  for (int i = 0; i < e->njobs; i++) {
    const struct eng_job *j = &e->jobs[i];
    const struct job *sp = j->spec;
    double bs_mean_bytes = 0;
    for (int b = 0; b < sp->nbs; b++)
      bs_mean_bytes += sp->bs_weight[b] * sp->bs_bytes[b]; /* weights sum to 1 */
    pc[i] = (struct stack_precond){
        .offset_bytes = (uint64_t)j->region_start,
        .len_bytes = (uint64_t)j->region_bytes,
        .write_fraction = 1.0 - sp->read_frac,
        .run_bytes = sp->access == JOB_RANDOM ? (uint64_t)sp->bs_bytes[0] : (uint64_t)j->region_bytes,
        .buffered_writes = !eng_job_sync(e, sp) && !eng_job_direct(e, sp),
        .write_weight = (double)j->depth * bs_mean_bytes * (1.0 - sp->read_frac)};
  }
  int rc = stack_precondition(e->stack, pc, e->njobs);
  free(pc);
  return rc;
}

static void eng_submit(struct eng *e, struct eng_req *r)
{
  struct stack_io io = {.offset_bytes = r->offset_bytes, .len_bytes = r->len_bytes,
                        .write = r->write, .tag = (uint64_t)(uintptr_t)r};
  io.sync = eng_job_sync(e, r->job->spec);
  io.direct = eng_job_direct(e, r->job->spec);
  stack_submit(e->stack, simgrid_get_clock(), &io);
  eng_wake_storage(e);
}

/* ---- protocol daemons on the SoC ---------------------------------------- */

/* Hand a received request to its daemon; an smbd with nothing to do
 * becomes runnable (counted for the cache working-set model). */
static void eng_deliver(struct eng *e, struct eng_conn *c, struct eng_req *r)
{
  if (e->ops->shape == PROTO_SHAPE_PROCESS && !e->net_only && c->proc_work++ == 0)
    e->proc_runnable++;
  eng_queue_push(c->deliver, r);
}

/* The kernel side of a connection's socket: it receives the byte stream
 * whatever the daemon is doing, so a request's transfer overlaps the
 * daemon's work on the previous one (a SimGrid mailbox alone is a
 * rendezvous: the transfer would start only when the daemon asks).  Two
 * receives stay posted so back-to-back messages of one TCP stream do not
 * pay the route latency between them. */
#define ENG_SOCKET_POSTED 2
static void eng_socket_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_conn *c = sg_actor_self_get_data();
  void *data[ENG_SOCKET_POSTED];
  sg_comm_t comms[ENG_SOCKET_POSTED];
  for (int i = 0; i < ENG_SOCKET_POSTED; i++)
    comms[i] = sg_mailbox_get_async(c->srv, &data[i]);
  for (;;) {
    ssize_t i = sg_comm_wait_any(comms, ENG_SOCKET_POSTED);
    struct eng_req *r = data[i];
    comms[i] = sg_mailbox_get_async(c->srv, &data[i]);
    struct eng *e = r->job->e;
    eng_cycles(e, r);
    if (e->softirq_single) {
      eng_queue_push(&e->softirqq, r); /* NIC interrupts all on one core */
    } else {
      eng_hold(c->softirq);
      eng_exec(e, c->softirq, r->softirq_cycles); /* spread: on this flow's core */
      eng_deliver(e, c, r);
      eng_release(e, c->softirq);
    }
  }
}

/* ksoftirqd on the irq core: receive processing of every NAS-bound packet
 * when the NIC interrupts are not spread (irq_core >= 0). */
static void eng_softirq_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng *e = sg_actor_self_get_data();
  for (;;) {
    struct eng_req *r = eng_queue_pop(&e->softirqq);
    eng_hold(e->softirq);
    eng_exec(e, e->softirq, r->softirq_cycles);
    eng_deliver(e, &e->conns[r->job->conn0 + r->conn], r);
    eng_release(e, e->softirq);
  }
}

/* The protocol daemons: one family of threads.  Each takes a request off
 * its queue, does its CPU work and hands the request on; what work and
 * which hand-off follow from the protocol's thread shape (proto.h):
 *
 * - a process per connection (smbd): the whole request's CPU work, serial
 *   on one core; writes land in the page cache without sleeping.  Reads:
 *   with aio a helper pool does the pread(), so the process does not wait
 *   for the disks; without (read_blocks), it sleeps in pread() whenever the
 *   data is not all in the page cache (a disk read, or a read-ahead still
 *   in flight), so the connection has at most one such read outstanding
 *   while its other requests wait in the socket.  A page-cache hit is a
 *   copy, already in the CPU cost.  The completion sends the reply.
 * - a pool thread (nfsd): it blocks on the file system until the storage
 *   is done, then replies, so the pool size bounds requests in service.
 * - a receive thread per session (iscsi_trx: commands and write data) that
 *   submits, and a transmit thread (iscsi_ttx: responses and read data).
 * - an iperf server thread per TCP connection: it receives (or sends) the
 *   stream and touches no storage, so only the network stack's per-byte
 *   and per-packet work runs on its core. */
static sg_actor_t eng_spawn(const char *name, sg_host_t host, void (*code)(int, char **), void *data,
                            int daemon);

enum eng_work { ENG_WORK_PROCESS, ENG_WORK_POOL, ENG_WORK_RX, ENG_WORK_TX, ENG_WORK_STREAM };

struct eng_daemon {
  struct eng *e;
  struct eng_thread *t;
  struct eng_queue *q;  /* where its requests wait */
  struct eng_conn *c;   /* its connection (NULL for a pool thread) */
  enum eng_work work;
  sg_sem_t wait;        /* where it sleeps on the storage, NULL until needed */
};

/* Reference cycles the daemon executes for r. */
static double eng_daemon_cycles(const struct eng_daemon *d, const struct eng_req *r)
{
  struct eng *e = d->e;
  switch (d->work) {
  case ENG_WORK_PROCESS: {
    /* Its lines evicted by the other runnable processes since it last
     * ran: the core stalls refilling them (cache thrashing). */
    double refill_s = soc_cache_refill_s(&e->s->soc, e->s->proto.daemon_working_set_bytes, e->proc_runnable);
    return r->rx_cycles + r->tx_cycles + refill_s * d->t->speed;
  }
  case ENG_WORK_POOL:
    return r->rx_cycles + r->tx_cycles;
  case ENG_WORK_RX:
    return r->rx_cycles;
  case ENG_WORK_TX:
    return r->tx_cycles;
  case ENG_WORK_STREAM: {
    struct proto_cycles pc;
    proto_request_cost(&e->s->proto, r->write, (double)r->len_bytes, e->s->net.mtu_bytes,
                       (int)e->s->net.tcp_timestamps, &pc);
    return pc.byte_cycles + pc.tx_packet_cycles + pc.csum_cycles;
  }
  }
  return 0.0;
}

/* Hand r on once its CPU work is done. */
static void eng_daemon_handoff(struct eng_daemon *d, struct eng_req *r)
{
  struct eng *e = d->e;
  switch (d->work) {
  case ENG_WORK_PROCESS: {
    if (--d->c->proc_work == 0)
      e->proc_runnable--;
    int blocks = !r->write && e->ops->read_blocks(&e->s->proto) &&
                 !stack_read_cached(e->stack, r->offset_bytes, r->len_bytes);
    if (blocks) {
      if (!d->wait)
        d->wait = eng_sem(e);
      r->waiter = d->wait;
    }
    eng_submit(e, r);
    if (blocks)
      sg_sem_acquire(d->wait);
    break;
  }
  case ENG_WORK_POOL:
    r->waiter = d->wait;
    eng_submit(e, r);
    sg_sem_acquire(d->wait);
    eng_send_reply(e, r);
    break;
  case ENG_WORK_RX:
    eng_submit(e, r);
    break;
  case ENG_WORK_TX:
  case ENG_WORK_STREAM:
    eng_send_reply(e, r);
    break;
  }
}

static void eng_daemon_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_daemon *d = sg_actor_self_get_data();
  for (;;) {
    struct eng_req *r = eng_queue_pop(d->q);
    eng_hold(d->t);
    eng_exec(d->e, d->t, eng_daemon_cycles(d, r));
    eng_daemon_handoff(d, r);
    eng_release(d->e, d->t);
  }
}

/* Start a daemon thread accounted as `name` (`who`) serving queue q. */
static int eng_daemon_start(struct eng *e, const char *actor, const char *name, const char *who,
                            enum eng_work work, struct eng_queue *q, struct eng_conn *c, double speed)
{
  struct eng_daemon *d = eng_own(e, sizeof *d);
  if (!d)
    return -1;
  d->e = e;
  d->work = work;
  d->q = q;
  d->c = c;
  d->t = eng_thread_new(e, name, who, speed);
  if (!d->t)
    return -1;
  if (work == ENG_WORK_POOL)
    d->wait = eng_sem(e);
  eng_spawn(actor, e->nas, eng_daemon_main, d, 1);
  return 0;
}

/* ---- client jobs --------------------------------------------------------- */

/* May the job issue another I/O now? */
static int eng_may_issue(const struct eng_job *j)
{
  double now = simgrid_get_clock();
  if (now >= j->t_end)
    return 0;
  if (!j->spec->time_based && j->issued_bytes >= j->region_bytes)
    return 0;
  return 1;
}

static double eng_pick_bs(struct eng_job *j)
{
  const struct job *sp = j->spec;
  if (sp->nbs <= 1)
    return sp->bs_bytes[0];
  double u = gsl_rng_uniform(j->rng), acc = 0.0;
  for (int i = 0; i < sp->nbs; i++) {
    acc += sp->bs_weight[i];
    if (u < acc)
      return sp->bs_bytes[i];
  }
  return sp->bs_bytes[sp->nbs - 1];
}

static struct eng_req *eng_make_req(struct eng_job *j)
{
  struct eng *e = j->e;
  const struct job *sp = j->spec;
  struct eng_req *r = eng_req_new(e);
  r->job = j;
  double bs = eng_pick_bs(j);
  if (bs > j->region_bytes)
    bs = j->region_bytes;
  r->write = sp->read_frac >= 1.0 ? 0 : sp->read_frac <= 0.0 ? 1 : gsl_rng_uniform(j->rng) >= sp->read_frac;
  double off;
  double slots = floor(j->region_bytes / bs);
  switch (sp->access) {
  case JOB_RANDOM:
    off = bs * (double)gsl_rng_uniform_int(j->rng, (unsigned long)(slots > 1 ? slots : 1));
    break;
  case JOB_BACKWARD:
    if (j->next_off < bs)
      j->next_off = slots * bs;
    j->next_off -= bs;
    off = j->next_off;
    break;
  case JOB_STRIDE: {
    if (sp->stride_bytes <= 0) { /* stride 0: the same record again (IOZone record re-write) */
      off = 0.0;
      break;
    }
    double stride = sp->stride_bytes > bs ? sp->stride_bytes : bs;
    off = j->next_off;
    j->next_off += stride;
    if (j->next_off + bs > j->region_bytes)
      j->next_off = fmod(j->next_off, stride) + bs < stride ? fmod(j->next_off, stride) + bs : 0.0;
    break;
  }
  default:
    if (j->next_off + bs > j->region_bytes)
      j->next_off = 0.0;
    off = j->next_off;
    j->next_off += bs;
    break;
  }
  if (sp->file_bytes > 0 && fmod(off, sp->file_bytes) < bs)
    r->opens = 1; /* the copy tool opens (and closes) the next file here */
  r->offset_bytes = (uint64_t)(j->region_start + off);
  r->len_bytes = (uint64_t)bs;
  r->t_issue_s = simgrid_get_clock();
  j->issued_bytes += bs;
  return r;
}

/* Which connection carries the next request of job j. */
static int eng_pick_conn(struct eng_job *j, double bytes)
{
  if (j->nconns == 1)
    return 0;
  if (j->mpio) {
    int p = mpio_select_path(j->mpio, bytes);
    return p < 0 ? 0 : p;
  }
  j->rr = (j->rr + 1) % j->nconns; /* SMB multichannel: round robin */
  return j->rr;
}

/* A buffered write the client's page cache can take (below its dirty
 * limit): it completes after a memory copy, on the client. */
static int eng_client_absorb(struct eng_job *j, struct eng_req *r)
{
  struct eng_client *cl = &j->e->clients[j->client];
  if (!cl->cache || j->spec->direct || !r->write || r->flush ||
      pcache_dirty_bytes(cl->cache) + r->len_bytes > cl->dirty_limit_bytes)
    return 0;
  if (pcache_insert(cl->cache, r->offset_bytes, r->len_bytes, 1, simgrid_get_clock()) != 0)
    return 0;
  r->absorbed = 1;
  return 1;
}

/* Send a request on its connection from the actor of lane `self` (a
 * connection index, or -1 from the timer actor, which hands it to the
 * lane's sender). */
static void eng_send(struct eng_job *j, struct eng_req *r, int self)
{
  struct eng *e = j->e;
  j->outstanding++;
  j->issued++;
  if (e->local) {
    eng_submit(e, r);
    return;
  }
  r->conn = eng_pick_conn(j, (double)r->len_bytes);
  if (eng_client_absorb(j, r)) {
    eng_queue_push(&e->conns[j->conn0 + r->conn].cacheq, r);
    return;
  }
  if (j->mpio)
    mpio_start_io(j->mpio, r->conn, (double)r->len_bytes);
  if (r->conn != self) {
    eng_queue_push(&j->sendq[r->conn], r);
    return;
  }
  struct eng_conn *c = &e->conns[j->conn0 + r->conn];
  double size = e->header_bytes + (r->write ? (double)r->len_bytes : 0.0);
  sg_comm_detach(sg_mailbox_put_init(c->srv, r, (long)size), NULL);
}

static void eng_issue(struct eng_job *j, int self)
{
  eng_send(j, eng_make_req(j), self);
}

/* Closing the file: once the job issues nothing more, write its client's
 * dirty data back (NFS close-to-open flushes on close; IOZone -c times
 * it).  Flush writes are not client I/Os. */
static void eng_flush(struct eng_job *j, int self)
{
  struct eng_client *cl = &j->e->clients[j->client];
  uint64_t off, len;
  while (cl->cache && j->outstanding < j->depth && !eng_may_issue(j) &&
         pcache_take_dirty(cl->cache, cl->flush_chunk_bytes, &off, &len)) {
    struct eng_req *r = eng_req_new(j->e);
    r->job = j;
    r->write = 1;
    r->flush = 1;
    r->offset_bytes = off;
    r->len_bytes = len;
    r->t_issue_s = simgrid_get_clock();
    eng_send(j, r, self);
  }
}

/* Issue while the job's window allows (closed loop). */
static void eng_refill(struct eng_job *j, int self)
{
  if (j->spec->rate_iops > 0 || j->spec->thinktime_s > 0)
    return; /* the timer actor issues */
  while (j->outstanding < j->depth && eng_may_issue(j))
    eng_issue(j, self);
}

static void eng_account(struct eng *e, struct eng_req *r)
{
  double now = simgrid_get_clock();
  struct eng_job *j = r->job;
  j->outstanding--;
  j->completed++;
  if (j->mpio && !r->absorbed)
    mpio_end_io(j->mpio, r->conn, (double)r->len_bytes);
  if (r->flush) {
    if (!j->spec->prep && e->nprep == 0 && now <= e->t_end_s && now > e->last_done_s)
      e->last_done_s = now; /* the close is part of the timed work */
  } else if (!j->spec->prep && e->nprep == 0 && now >= e->ramp_s && now <= e->t_end_s) {
    double lat = now - r->t_issue_s;
    stats_hist_add(r->write ? e->h_write : e->h_read, lat);
    stats_hist_add(e->h_all, lat);
    if (r->write) {
      e->bytes_write += (double)r->len_bytes;
      e->ios_write++;
    } else {
      e->bytes_read += (double)r->len_bytes;
      e->ios_read++;
    }
    stats_series_add(&e->series, now, (double)r->len_bytes);
    if (!e->local && !r->absorbed) {
      struct eng_conn *c = &e->conns[j->conn0 + r->conn];
      double *up = c->route < 0 ? &c->bytes_up : &c->alt_up[c->route];
      double *down = c->route < 0 ? &c->bytes_down : &c->alt_down[c->route];
      *up += e->header_bytes + (r->write ? (double)r->len_bytes : 0.0);
      *down += e->header_bytes + (r->write ? 0.0 : (double)r->len_bytes);
    }
    if (now > e->last_done_s)
      e->last_done_s = now;
  }
  r->next = e->free_reqs;
  e->free_reqs = r;
}

/* The last prep job is done: the measured jobs start now. */
static void eng_open_gate(struct eng *e)
{
  double now = simgrid_get_clock();
  double ramp = e->ramp_s;
  e->ramp_s = now + ramp;
  e->t_end_s = now + e->s->time_s;
  for (int i = 0; i < e->njobs; i++) {
    struct eng_job *j = &e->jobs[i];
    if (j->spec->prep)
      continue;
    double run = j->spec->runtime_s > 0 && j->spec->runtime_s < e->s->time_s ? j->spec->runtime_s : e->s->time_s;
    j->t_end = now + run;
    sg_sem_release(j->gate);
  }
}

static void eng_maybe_finish(struct eng_job *j)
{
  const struct eng_client *cl = &j->e->clients[j->client];
  if (!j->finished && j->outstanding == 0 && !eng_may_issue(j) &&
      (!cl->cache || pcache_dirty_bytes(cl->cache) == 0)) {
    j->finished = 1;
    sg_sem_release(j->done);
    if (j->spec->prep && --j->e->nprep == 0)
      eng_open_gate(j->e);
  }
}

struct eng_lane {
  struct eng_job *job;
  int conn;
};

/* Client receive side of one connection of one job copy. */
static void eng_lane_rx_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_lane *l = sg_actor_self_get_data();
  struct eng_job *j = l->job;
  struct eng_conn *c = j->e->local ? NULL : &j->e->conns[j->conn0 + l->conn];
  if (l->conn == 0 && !j->spec->prep && j->e->nprep > 0)
    sg_sem_acquire(j->gate);
  if (l->conn == 0 && j->spec->rate_iops <= 0 && j->spec->thinktime_s <= 0) {
    eng_refill(j, 0);
    eng_flush(j, 0);
    eng_maybe_finish(j);
  }
  for (;;) {
    struct eng_req *r = j->e->local ? eng_queue_pop(&j->localq)
                                                   : sg_mailbox_get(j->reply[l->conn]);
    eng_follow_route(c);
    eng_account(j->e, r);
    if (j->spec->thinktime_s > 0 && eng_may_issue(j)) {
      j->pending_timer++;
      sg_sem_release(j->timer_sem);
    }
    eng_refill(j, l->conn);
    eng_flush(j, l->conn);
    eng_maybe_finish(j);
  }
}

/* Client send side of a connection: requests chosen for this lane by
 * another lane (MPIO, multichannel). */
static void eng_lane_tx_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_lane *l = sg_actor_self_get_data();
  struct eng_job *j = l->job;
  struct eng *e = j->e;
  for (;;) {
    struct eng_req *r = eng_queue_pop(&j->sendq[l->conn]);
    struct eng_conn *c = &e->conns[j->conn0 + l->conn];
    eng_follow_route(c);
    double size = e->header_bytes + (r->write ? (double)r->len_bytes : 0.0);
    sg_comm_detach(sg_mailbox_put_init(c->srv, r, (long)size), NULL);
  }
}

/* The client cache's copy of an absorbed write: done after the copy over
 * the client's memory bus, then handed to the job like a reply. */
static void eng_client_copy_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_conn *c = sg_actor_self_get_data();
  for (;;) {
    struct eng_req *r = eng_queue_pop(&c->cacheq);
    eng_follow_route(c);
    struct eng_client *cl = &r->job->e->clients[r->job->client];
    sg_actor_sleep_until(accel_submit(&cl->bus, simgrid_get_clock(), (double)r->len_bytes));
    sg_comm_detach(sg_mailbox_put_init(r->job->reply[r->conn], r, 0), NULL);
  }
}

/* Open loop (rate_iops) and think time: issues on a timer. */
static void eng_timer_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_job *j = sg_actor_self_get_data();
  const struct job *sp = j->spec;
  if (!sp->prep && j->e->nprep > 0)
    sg_sem_acquire(j->gate);
  if (sp->rate_iops > 0) {
    double period = 1.0 / sp->rate_iops;
    double next = simgrid_get_clock();
    while (eng_may_issue(j)) {
      if (j->outstanding < j->depth)
        eng_issue(j, -1);
      next += period;
      double now = simgrid_get_clock();
      if (next > now)
        sg_actor_sleep_for(next - now);
    }
  } else {
    for (int i = 0; i < j->depth && eng_may_issue(j); i++)
      eng_issue(j, -1);
    while (eng_may_issue(j)) {
      sg_sem_acquire(j->timer_sem);
      sg_actor_sleep_for(sp->thinktime_s);
      j->pending_timer--;
      if (eng_may_issue(j))
        eng_issue(j, -1);
    }
  }
  eng_flush(j, -1);
  eng_maybe_finish(j);
}

/* Job master: waits for its job copy to finish (non-daemon, so the
 * simulation lasts as long as some job runs). */
static void eng_job_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_job *j = sg_actor_self_get_data();
  sg_sem_acquire(j->done);
}

/* ---- background operation ----------------------------------------------- */

static void eng_op_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng *e = sg_actor_self_get_data();
  const struct scenario *s = e->s;
  struct stack_op_cfg op = {.kind = (enum stack_op_kind)(s->op - 1), .target_level = (int)s->volume.level,
                            .new_members = s->ndisks, .failed_member = s->ndisks - 1};
  struct nw_err err = {0};
  if (stack_start_op(e->stack, simgrid_get_clock(), &op, &err) < 0) {
    XBT_CRITICAL("operation: %s", err.msg);
    return;
  }
  eng_wake_storage(e);
  /* Poll with a step that grows with elapsed time (0.1 % of it), so a
   * 20-hour rebuild costs a few thousand wake-ups, not one per second. */
  while (stack_ops_running(e->stack)) {
    double now = simgrid_get_clock();
    double step = now * 1e-3;
    sg_actor_sleep_for(step < 0.01 ? 0.01 : step);
  }
}

/* An LACP bond member goes down or comes back: what the bond's link
 * monitor does miimon later. */
struct eng_bond {
  struct eng *e;
  int member, down;
};

/* Frames on a dead member are lost: its directions carry nothing
 * (1 B/s) until the bond notices; it then rehashes every flow over the
 * survivors (Linux: hash modulo the active members), and the frames lost
 * meanwhile are sent again: in flight on the dead link, they drain when
 * the link is given back its rate (TCP's retransmission, without its
 * timeout).  A member back up rejoins at the next poll and the flows hash
 * as before. */
static void eng_bond_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_bond *b = sg_actor_self_get_data();
  struct eng *e = b->e;
  char name[32];
  sg_link_t dirs[2];
  snprintf(name, sizeof name, "nas%d_UP", b->member);
  dirs[0] = sg_link_by_name(name);
  snprintf(name, sizeof name, "nas%d_DOWN", b->member);
  dirs[1] = sg_link_by_name(name);
  if (b->down)
    for (int i = 0; i < 2; i++)
      if (dirs[i])
        sg_link_set_bandwidth(dirs[i], 1.0);
  sg_actor_sleep_for(e->s->net.miimon_s);
  for (int i = 0; b->down && i < 2; i++)
    if (dirs[i])
      sg_link_set_bandwidth(dirs[i], e->map.nas_port_payload_bytes_per_s);
  for (int i = 0; i < e->map.nconns; i++) {
    struct eng_conn *c = &e->conns[i];
    if (b->down)
      c->route = b->member;
    else if (c->route == b->member)
      c->route = -1;
  }
}

static void eng_bond_event(struct eng *e, int member, int down)
{
  struct eng_bond *b = eng_own(e, sizeof *b);
  if (!b)
    xbt_die("out of memory");
  *b = (struct eng_bond){.e = e, .member = member, .down = down};
  eng_spawn("bond-miimon", e->nas, eng_bond_main, b, 1);
}

/* Injects the scenario's disk failures and path losses at their times. */
static void eng_faults_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng *e = sg_actor_self_get_data();
  const struct scenario *s = e->s;
  for (int done = 0; done < s->nfaults; done++) {
    /* next fault in time order */
    int next = -1;
    for (int i = 0; i < s->nfaults; i++)
      if (s->faults[i].at_s >= simgrid_get_clock() && (next < 0 || s->faults[i].at_s < s->faults[next].at_s))
        next = i;
    if (next < 0)
      break;
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
    sg_actor_sleep_for(1e-9);
  }
}

/* ---- setup and results ------------------------------------------------- */

static sg_actor_t eng_spawn(const char *name, sg_host_t host, void (*code)(int, char **), void *data,
                            int daemon)
{
  sg_actor_t a = sg_actor_init(name, host);
  sg_actor_set_data(a, data);
  sg_actor_start(a, code, 0, NULL);
  if (daemon)
    sg_actor_daemonize(a);
  return a;
}

static void eng_totals(struct res_totals *t, const struct stats_hist *h, double bytes, uint64_t ios,
                       double window_s)
{
  memset(t, 0, sizeof *t);
  t->ios = ios;
  t->bytes = bytes;
  if (window_s > 0) {
    t->iops = (double)ios / window_s;
    t->MBps = bytes / window_s / 1e6;
  }
  if (stats_hist_count(h) == 0)
    return;
  t->lat_mean_s = stats_hist_mean(h);
  t->lat_stddev_s = stats_hist_stddev(h);
  t->lat_min_s = stats_hist_min(h);
  t->lat_max_s = stats_hist_max(h);
  for (int i = 0; i < RES_NPCT; i++)
    t->lat_pct_s[i] = stats_hist_quantile(h, res_percentiles[i]);
}

static const char *const eng_op_names[] = {"none", "resync", "rebuild", "reshape", "migrate"};

static int eng_setup_storage(struct eng *e, struct nw_err *err)
{
  const struct scenario *s = e->s;
  int n = s->ndisks;
  e->disks = calloc((size_t)n, sizeof *e->disks);
  e->cache = calloc((size_t)(s->ncache_devs > 0 ? s->ncache_devs : 1), sizeof *e->cache);
  if (!e->disks || !e->cache)
    return nw_fail(err, s->path, 0, 0, "out of memory");
  for (int i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "disk%d", i);
    e->disks[i] = disk_create(s->drive.model, s->drive.params, name, s->seed * 1000003u + (uint64_t)i);
    for (int f = 0; f < s->nfaults && e->disks[i]; f++)
      if (s->faults[f].kind == CFG_FAULT_DISK_HANG && s->faults[f].target == i)
        e->disks[i] = disk_fault_hang(e->disks[i], s->faults[f].at_s);
    if (!e->disks[i])
      return nw_fail(err, s->path, 0, 0, "out of memory");
  }
  for (int i = 0; i < s->ncache_devs; i++) {
    char name[32];
    snprintf(name, sizeof name, "cache%d", i);
    e->cache[i] = disk_create(s->cache_drive.model, s->cache_drive.params, name,
                              s->seed * 1000003u + 500u + (uint64_t)i);
    if (!e->cache[i])
      return nw_fail(err, s->path, 0, 0, "out of memory");
  }
  struct stack_cfg cfg = {.volume = s->volume, .pcache = s->pcache, .ssdcache = s->ssdcache,
                          .crypt = s->crypt, .members = e->disks, .cache_devs = e->cache,
                          .ncache_devs = s->ncache_devs, .seed = s->seed};
  cfg.member_bytes = (uint64_t)s->drive.model->capacity_bytes(s->drive.params);
  if (s->op != CFG_OP_NONE) {
    cfg.volume.members = s->op_from_members;
    cfg.spares = e->disks + s->op_from_members;
    cfg.nspares = s->ndisks - s->op_from_members;
    if (s->op == CFG_OP_MIGRATE)
      cfg.volume.level = s->op_from_level;
  }
  if (s->soc.parity_engine_rate_bytes_per_s > 0) {
    accel_init(&e->parity, "soc.parity_engine", s->soc.parity_engine_rate_bytes_per_s,
               s->soc.parity_engine_setup_s);
    cfg.parity_engine = &e->parity;
  }
  cfg.crypto_engine_decrypt_speedup = s->soc.crypto_engine_decrypt_speedup;
  cfg.disk_request_cycles = s->soc.disk_request_cycles;
  cfg.stripe_cycles = s->soc.md_stripe_cycles;
  cfg.stripe_dev_cycles = s->soc.md_stripe_dev_cycles;
  if (s->soc.crypto_engine_rate_bytes_per_s > 0) {
    accel_init(&e->crypto, "soc.crypto_engine", s->soc.crypto_engine_rate_bytes_per_s,
               s->soc.crypto_engine_setup_s);
    cfg.crypto_engine = &e->crypto;
  }
  /* RAM copies of page-cache hits share the SoC's memory bandwidth (in
   * local mode, the client's: the client-pc system's SoC entry). */
  accel_init(&e->mem_bus, "soc.memory", 1.0 / soc_mem_copy_s(&s->soc, 1.0), 0.0);
  cfg.mem_bus = &e->mem_bus;
  struct stack_hooks hooks = {.ctx = e, .io_done = eng_hook_done, .cpu_work = eng_hook_cpu};
  e->stack = stack_create(&cfg, &hooks, err);
  return e->stack ? 0 : -1;
}

static void eng_destroy(struct eng *e)
{
  stack_destroy(e->stack);
  for (int i = 0; e->disks && i < e->s->ndisks; i++)
    disk_destroy(e->disks[i]);
  for (int i = 0; e->cache && i < e->s->ncache_devs; i++)
    disk_destroy(e->cache[i]);
  free(e->disks);
  free(e->cache);
  for (int i = 0; i < e->njobs; i++) {
    if (e->jobs[i].rng)
      gsl_rng_free(e->jobs[i].rng);
    mpio_destroy(e->jobs[i].mpio);
  }
  free(e->jobs);
  free(e->conns);
  for (int i = 0; e->clients && i < e->s->nclients; i++)
    pcache_destroy(e->clients[i].cache);
  free(e->clients);
  for (int i = 0; i < e->nthreads; i++)
    free(e->threads[i]);
  while (e->free_reqs) {
    struct eng_req *r = e->free_reqs;
    e->free_reqs = r->next;
    free(r);
  }
  stats_hist_destroy(e->h_read);
  stats_hist_destroy(e->h_write);
  stats_hist_destroy(e->h_all);
  stats_series_free(&e->series);
  for (int i = 0; i < e->nowned; i++)
    free(e->owned[i]);
  free(e->owned);
  for (int i = 0; i < e->nsems; i++)
    sg_sem_destroy(e->sems[i]);
  free(e->sems);
}

/* Spread job copies over the volume: each (client, job, copy) works in its
 * own region (fio: one file per job copy), wrapped into the capacity. */
static void eng_place(struct eng *e, struct eng_job *j, int index)
{
  double cap = (double)stack_capacity_bytes(e->stack);
  double size = j->spec->size_bytes > 0 ? j->spec->size_bytes : cap;
  if (size > cap)
    size = cap;
  /* fio: copies of a job on one file share its region, each offset by
   * offset_increment; otherwise each copy has a file of its own. */
  double start = j->spec->offset_bytes + (double)j->copy * j->spec->offset_increment_bytes;
  if (!j->spec->shared_file)
    start += (double)index * size;
  if (start + size > cap)
    start = fmod(start, cap - size + 1.0);
  j->region_start = floor(start / 4096.0) * 4096.0;
  j->region_bytes = size;
}

/* The daemon threads serving connection c: an iperf server, a process,
 * or a receive and a transmit thread (a pool serves every connection).
 * 0, or -1 out of memory. */
static int eng_conn_daemons(struct eng *e, struct eng_conn *c, double speed)
{
  const struct proto_ops *ops = e->ops;
  int cl = c->pc->client, k = c->pc->index;
  char name[96], who[96];
  if (e->net_only) {
    snprintf(name, sizeof name, "soc.iperf.c%d.%d", cl, k);
    snprintf(who, sizeof who, "iperf server thread for client %d", cl);
    return eng_daemon_start(e, "iperf", name, who, ENG_WORK_STREAM, &c->rxq, c, speed);
  }
  if (ops->shape == PROTO_SHAPE_PROCESS) {
    snprintf(name, sizeof name, "soc.%s.c%d.%d", ops->daemon, cl, k);
    snprintf(who, sizeof who, "%s for client %d%s", ops->daemon_who, cl,
             e->map.conns_per_client > 1 ? " (one channel)" : "");
    return eng_daemon_start(e, ops->daemon, name, who, ENG_WORK_PROCESS, &c->rxq, c, speed);
  }
  if (ops->shape == PROTO_SHAPE_RXTX) {
    snprintf(name, sizeof name, "soc.%s.c%d.%d", ops->daemon, cl, k);
    snprintf(who, sizeof who, "%s for client %d session %d", ops->daemon_who, cl, k);
    if (eng_daemon_start(e, ops->daemon, name, who, ENG_WORK_RX, &c->rxq, c, speed) < 0)
      return -1;
    snprintf(name, sizeof name, "soc.%s.c%d.%d", ops->tx_daemon, cl, k);
    snprintf(who, sizeof who, "%s for client %d session %d", ops->tx_daemon, cl, k);
    return eng_daemon_start(e, ops->tx_daemon, name, who, ENG_WORK_TX, &c->txq, c, speed);
  }
  return 0;
}

static int eng_run(const struct scenario *s, int step, int nlog, char **log_args, struct run_result *out);

int engine_run(const struct scenario *s, int step, int nlog, char **log_args, struct run_result *out)
{
  /* A step may name its own client count (IOMeter's ramp adds clients one
   * at a time): simulate a copy of the scenario with that many clients. */
  int with_workload = s->op == CFG_OP_NONE || s->op_with_workload;
  if (with_workload && step >= 0 && step < s->workload.nsteps && s->workload.steps[step].clients > 0 &&
      s->workload.steps[step].clients != s->nclients) {
    struct scenario *copy = malloc(sizeof *copy);
    if (!copy) {
      memset(out, 0, sizeof *out);
      out->failed = 1;
      snprintf(out->failure, sizeof out->failure, "out of memory");
      return 1;
    }
    *copy = *s; /* shares the workload: not freed through the copy */
    copy->nclients = s->workload.steps[step].clients;
    int rc = eng_run(copy, step, nlog, log_args, out);
    free(copy);
    return rc;
  }
  return eng_run(s, step, nlog, log_args, out);
}

static int eng_run(const struct scenario *s, int step, int nlog, char **log_args, struct run_result *out)
{
  memset(out, 0, sizeof *out);
  snprintf(out->scenario, sizeof out->scenario, "%s", s->name);
  out->seed = s->seed;
  out->bottleneck = -1;
  struct nw_err err = {0};
  struct eng E = {0}, *e = &E;
  e->s = s;
  e->ops = proto_ops_of(&s->proto);
  e->local = e->ops->shape == PROTO_SHAPE_NONE;
  e->header_bytes = e->ops->header_bytes;
  int with_workload = s->op == CFG_OP_NONE || s->op_with_workload;
  if (with_workload) {
    if (step < 0 || step >= s->workload.nsteps) {
      snprintf(out->failure, sizeof out->failure, "no workload step %d", step);
      out->failed = 1;
      return 1;
    }
    e->step = &s->workload.steps[step];
    for (int i = 0; i < e->step->njobs; i++)
      e->net_only |= e->step->jobs[i].net_only;
    if (e->net_only) {
      e->header_bytes = 0.0; /* a raw stream: no protocol messages */
      if (e->local) {
        snprintf(out->failure, sizeof out->failure, "an iperf step needs a network: protocol kind %s has none",
                 e->ops->name);
        out->failed = 1;
        return 1;
      }
    }
    snprintf(out->step, sizeof out->step, "%s", e->step->name);
    snprintf(out->metric, sizeof out->metric, "%s", e->step->metric);
  } else {
    snprintf(out->step, sizeof out->step, "%s", eng_op_names[s->op]);
    snprintf(out->metric, sizeof out->metric, "duration_s");
  }

  /* SimGrid: quiet unless asked, CM02 (no LV08 latency/bandwidth factors:
   * they distort small RPCs), no cross-traffic penalty on full duplex. */
  xbt_log_control_set("root.thres:critical");
  xbt_log_control_set("nastwin.thres:warning");
  char *argv[64] = {"nastwin"};
  int argc = 1;
  for (int i = 0; i < nlog && argc < 63; i++)
    argv[argc++] = log_args[i];
  simgrid_init(&argc, argv);
  sg_cfg_set_string("network/model", "CM02");
  sg_cfg_set_boolean("network/crosstraffic", "no");
  if (s->net.tcp_window_bytes > 0)
    sg_cfg_set_double("network/TCP-gamma", s->net.tcp_window_bytes);
  sg_host_energy_plugin_init();

  if (plat_build(s, &e->map, &err) < 0)
    goto fail_err;
  char path[256];
  if (plat_write(s, &e->map, path, sizeof path, &err) < 0)
    goto fail_err;
  simgrid_load_platform(path);
  unlink(path);
  int local = e->local;
  e->nas = sg_host_by_name(local ? "c0" : "nas");

  if (eng_setup_storage(e, &err) < 0)
    goto fail_err;
  e->storage_wake = eng_sem(e);
  e->storage_deadline = -1.0;
  e->h_read = stats_hist_create();
  e->h_write = stats_hist_create();
  e->h_all = stats_hist_create();
  stats_series_init(&e->series, 1.0);
  double speed = local ? 1e12 : e->map.nas_speed_cycles_per_s;
  static const char *const kt_names[STACK_THREAD_COUNT] = {"md_raid", "flush", "kcryptd", "blk"};
  static const char *const kt_who[STACK_THREAD_COUNT] = {
      "md raid5d/6d parity thread", "page-cache flusher", "kcryptd AES",
      "disk requests: block layer, SATA driver, completion IRQ"};
  for (int k = 0; k < STACK_THREAD_COUNT; k++) {
    struct eng_kthread *kt = &e->kthreads[k];
    kt->e = e;
    kt->kind = (enum stack_thread)k;
    snprintf(kt->acct.name, sizeof kt->acct.name, "soc.%s", kt_names[k]);
    snprintf(kt->acct.who, sizeof kt->acct.who, "%s", kt_who[k]);
    kt->acct.speed = speed;
    kt->sem = eng_sem(e);
    eng_spawn(kt_names[k], e->nas, eng_kthread_main, kt, 1);
  }
  eng_spawn("storage", e->nas, eng_storage_main, e, 1);

  e->ramp_s = 0.0;
  e->t_end_s = s->time_s;
  if (with_workload) {
    const struct workload_step *st = e->step;
    double ramp = 0.0;
    for (int i = 0; i < st->njobs; i++)
      if (st->jobs[i].ramp_s > ramp)
        ramp = st->jobs[i].ramp_s;
    e->ramp_s = ramp < s->time_s ? ramp : 0.0;
  }

  /* Connections and their daemons. */
  int nconns = local ? 0 : e->map.nconns;
  e->conns = calloc((size_t)(nconns > 0 ? nconns : 1), sizeof *e->conns);
  if (!e->conns)
    goto fail_oom;
  char name[96], who[96];
  e->clients = calloc((size_t)s->nclients, sizeof *e->clients);
  if (!e->clients)
    goto fail_oom;
  if (s->client.ram_bytes > 0 && !local) {
    double chunk = 0.0;
    proto_split(&s->proto, 1, 1e15, &chunk);
    for (int c = 0; c < s->nclients; c++) {
      struct eng_client *cl = &e->clients[c];
      cl->cache = pcache_create((uint64_t)s->client.ram_bytes, 4096);
      if (!cl->cache)
        goto fail_oom;
      accel_init(&cl->bus, "client.memory", s->client.copy_bytes_per_s, 0.0);
      cl->dirty_limit_bytes = (uint64_t)(s->client.ram_bytes * s->client.dirty_ratio);
      cl->flush_chunk_bytes = chunk > 4096 ? (uint64_t)chunk : 1048576u;
    }
  }
  eng_queue_init(e, &e->poolq);
  eng_queue_init(e, &e->softirqq);
  e->softirq_single = !local && s->soc.irq_core >= 0;
  if (e->softirq_single) {
    snprintf(name, sizeof name, "soc.ksoftirqd%d", (int)s->soc.irq_core);
    e->softirq = eng_thread_new(e, name, "NIC receive processing (all interrupts on one core)", speed);
    if (!e->softirq)
      goto fail_oom;
    e->softirq->softirq = 1;
    eng_spawn("ksoftirqd", e->nas, eng_softirq_main, e, 1);
  }
  if (e->ops->shape == PROTO_SHAPE_POOL && !e->net_only) {
    int nt = e->ops->pool_threads(&s->proto);
    for (int i = 0; i < nt; i++) {
      char actor[32];
      snprintf(name, sizeof name, "soc.%s%d", e->ops->daemon, i);
      snprintf(actor, sizeof actor, "%s%d", e->ops->daemon, i);
      if (eng_daemon_start(e, actor, name, e->ops->daemon_who, ENG_WORK_POOL, &e->poolq, NULL, speed) < 0)
        goto fail_oom;
    }
  }
  for (int i = 0; i < nconns; i++) {
    struct eng_conn *c = &e->conns[i];
    c->pc = &e->map.conns[i];
    c->host = sg_host_by_name(c->pc->host);
    c->route = -1;
    for (int m = 0; m < e->map.nas_ports && m < PLAT_MAX_BOND; m++)
      if (e->map.failover & (1u << m)) {
        snprintf(name, sizeof name, "%sx%d", c->pc->host, m);
        c->alt_host[m] = sg_host_by_name(name);
      }
    snprintf(name, sizeof name, "srv-%s", c->pc->host);
    c->srv = sg_mailbox_by_name(name);
    eng_queue_init(e, &c->txq);
    eng_queue_init(e, &c->rxq);
    eng_queue_init(e, &c->cacheq);
    if (!e->softirq_single) {
      snprintf(name, sizeof name, "soc.softirq.c%d.%d", c->pc->client, c->pc->index);
      snprintf(who, sizeof who, "receive processing of client %d's flow", c->pc->client);
      c->softirq = eng_thread_new(e, name, who, speed);
      if (!c->softirq)
        goto fail_oom;
      c->softirq->softirq = 1;
    }
    if (e->clients[c->pc->client].cache)
      eng_spawn("client-cache", c->host, eng_client_copy_main, c, 1);
    c->deliver = e->ops->shape == PROTO_SHAPE_POOL && !e->net_only ? &e->poolq : &c->rxq;
    eng_spawn("socket", e->nas, eng_socket_main, c, 1);
    if (eng_conn_daemons(e, c, speed) < 0)
      goto fail_oom;
  }

  /* Client jobs. */
  if (with_workload) {
    const struct workload_step *st = e->step;
    int per_client = 0;
    for (int i = 0; i < st->njobs; i++)
      per_client += st->jobs[i].numjobs;
    e->njobs = per_client * s->nclients;
    e->jobs = calloc((size_t)e->njobs, sizeof *e->jobs);
    if (!e->jobs)
      goto fail_oom;
    int idx = 0;
    for (int c = 0; c < s->nclients; c++)
      for (int ji = 0; ji < st->njobs; ji++)
        for (int k = 0; k < st->jobs[ji].numjobs; k++, idx++) {
          struct eng_job *j = &e->jobs[idx];
          j->e = e;
          j->spec = &st->jobs[ji];
          j->client = c;
          j->copy = k;
          j->id = idx;
          j->rng = gsl_rng_alloc(gsl_rng_mt19937);
          if (!j->rng)
            goto fail_oom;
          gsl_rng_set(j->rng, (unsigned long)(s->seed * 7919u + (uint64_t)idx * 104729u + 1u));
          j->depth = j->spec->iodepth;
          if (j->depth > e->ops->window(&s->proto))
            j->depth = e->ops->window(&s->proto);
          j->t_end = j->spec->runtime_s > 0 && j->spec->runtime_s < s->time_s ? j->spec->runtime_s : s->time_s;
          j->nconns = local ? 1 : e->map.conns_per_client;
          j->conn0 = local ? 0 : c * e->map.conns_per_client;
          j->done = eng_sem(e);
          j->timer_sem = eng_sem(e);
          j->gate = eng_sem(e);
          if (j->spec->prep) {
            e->nprep++;
            j->t_end = 1e12; /* a prep job lays out its whole region */
          }
          eng_queue_init(e, &j->localq);
          if ((enum net_mode)s->net.mode == NET_MODE_MPIO && j->nconns > 1) {
            j->mpio = mpio_create(mpio_policy_names[(int)s->net.mpio_policy], j->nconns,
                                  (int)s->net.mpio_rr_repeat, &err);
            if (!j->mpio)
              goto fail_err;
          }
          eng_place(e, j, idx);
          int timer = j->spec->rate_iops > 0 || j->spec->thinktime_s > 0;
          for (int q = 0; q < j->nconns; q++) {
            struct eng_lane *l = eng_own(e, sizeof *l);
            if (!l)
              goto fail_oom;
            l->job = j;
            l->conn = q;
            snprintf(name, sizeof name, "reply-%d-%d", idx, q);
            j->reply[q] = sg_mailbox_by_name(name);
            eng_queue_init(e, &j->sendq[q]);
            sg_host_t h = local ? sg_host_by_name("c0") : e->conns[j->conn0 + q].host;
            eng_spawn("job-rx", h, eng_lane_rx_main, l, 1);
            if (!local && (j->nconns > 1 || timer))
              eng_spawn("job-tx", h, eng_lane_tx_main, l, 1);
          }
          if (timer)
            eng_spawn("job-timer", local ? sg_host_by_name("c0") : e->conns[j->conn0].host,
                      eng_timer_main, j, 1);
          eng_spawn("job", sg_host_by_name("c0"), eng_job_main, j, 0);
        }
  }
  if (with_workload && e->step->precondition && eng_precondition(e) != 0)
    goto fail_oom;
  if (s->op != CFG_OP_NONE)
    eng_spawn("md-operation", e->nas, eng_op_main, e, 0);
  if (s->nfaults > 0)
    eng_spawn("faults", e->nas, eng_faults_main, e, 1);

  simgrid_run();

  /* ---- collect ---- */
  double now = simgrid_get_clock();
  out->simulated_s = now;
  uint64_t issued = 0, completed = 0;
  for (int i = 0; i < e->njobs; i++) {
    issued += e->jobs[i].issued;
    completed += e->jobs[i].completed;
  }
  out->issued = issued;
  out->completed = completed;
  out->clients = s->nclients;
  if (with_workload && e->step->njobs > 0)
    out->outstanding_per_client = e->njobs / (s->nclients > 0 ? s->nclients : 1) * e->jobs[0].depth;
  int jobs_done = 1;
  for (int i = 0; i < e->njobs; i++)
    if (!e->jobs[i].finished)
      jobs_done = 0;
  if (issued != completed || !jobs_done || (s->op != CFG_OP_NONE && stack_ops_running(e->stack))) {
    out->failed = 1;
    snprintf(out->failure, sizeof out->failure,
             "simulation did not finish: %llu of %llu client I/Os completed%s (deadlock in the model?)",
             (unsigned long long)completed, (unsigned long long)issued,
             s->op != CFG_OP_NONE && stack_ops_running(e->stack) ? ", background operation unfinished" : "");
  }
  /* Measured window: [ramp, end of issuing] for time-based runs, [ramp,
   * last completion] otherwise. */
  double wend = e->last_done_s;
  int time_based = with_workload;
  for (int i = 0; i < (with_workload ? e->step->njobs : 0); i++)
    if (!e->step->jobs[i].time_based)
      time_based = 0;
  if (time_based)
    wend = e->t_end_s < now ? e->t_end_s : now;
  if (!with_workload)
    wend = now;
  out->window_s = wend - e->ramp_s > 0 ? wend - e->ramp_s : 0.0;
  eng_totals(&out->read, e->h_read, e->bytes_read, e->ios_read, out->window_s);
  eng_totals(&out->write, e->h_write, e->bytes_write, e->ios_write, out->window_s);
  eng_totals(&out->all, e->h_all, e->bytes_read + e->bytes_write, e->ios_read + e->ios_write, out->window_s);
  out->nseries = e->series.nbins < RES_MAX_SERIES ? e->series.nbins : RES_MAX_SERIES;
  for (int i = 0; i < out->nseries; i++)
    out->series_MBps[i] = e->series.values[i] / e->series.bin_s / 1e6;

  /* Utilisation: threads, links, disks, engines. */
  double T = out->window_s;
  for (int i = 0; i < e->nthreads + STACK_THREAD_COUNT; i++) {
    const struct eng_thread *t = i < e->nthreads ? e->threads[i] : &e->kthreads[i - e->nthreads].acct;
    int x = analysis_add(out, RES_THREAD, t->name, t->who, t->cycles / t->speed);
    if (x >= 0)
      out->res[x].occupied_s = eng_occupied_s(e, t, now);
  }
  if (!local)
    analysis_cores(out, e->map.nas_cores);
  if (!local) {
    int np = e->map.nas_ports;
    double up[64] = {0}, down[64] = {0};
    int nc = e->map.client_nics;
    for (int i = 0; i < nconns; i++) {
      const struct eng_conn *c = &e->conns[i];
      up[c->pc->nas_rx % 64] += c->bytes_up;
      down[c->pc->nas_tx % 64] += c->bytes_down;
      for (int m = 0; m < np && m < PLAT_MAX_BOND; m++)
        if (e->map.failover & (1u << m)) {
          up[c->pc->alt_rx[m]] += c->alt_up[m];
          down[c->pc->alt_tx[m]] += c->alt_down[m];
        }
    }
    for (int m = 0; m < np && m < 64; m++) {
      snprintf(name, sizeof name, "net.nas%d.rx", m);
      analysis_add(out, RES_LINK, name, "NAS port, client->NAS payload",
                   up[m] / e->map.nas_port_payload_bytes_per_s);
      snprintf(name, sizeof name, "net.nas%d.tx", m);
      analysis_add(out, RES_LINK, name, "NAS port, NAS->client payload",
                   down[m] / e->map.nas_port_payload_bytes_per_s);
    }
    for (int c = 0; c < s->nclients; c++)
      for (int n = 0; n < nc; n++) {
        double tx = 0, rx = 0;
        for (int i = 0; i < nconns; i++) {
          const struct eng_conn *cn = &e->conns[i];
          if (cn->pc->client != c)
            continue;
          for (int m = -1; m < np && m < PLAT_MAX_BOND; m++) {
            if (m >= 0 && !(e->map.failover & (1u << m)))
              continue;
            if (cn->pc->client_tx == n)
              tx += m < 0 ? cn->bytes_up : cn->alt_up[m];
            if (cn->pc->client_rx == n)
              rx += m < 0 ? cn->bytes_down : cn->alt_down[m];
          }
        }
        snprintf(name, sizeof name, "net.client%d.nic%d.tx", c, n);
        analysis_add(out, RES_LINK, name, "client NIC, towards the NAS",
                     tx / e->map.client_nic_payload_bytes_per_s);
        snprintf(name, sizeof name, "net.client%d.nic%d.rx", c, n);
        analysis_add(out, RES_LINK, name, "client NIC, from the NAS",
                     rx / e->map.client_nic_payload_bytes_per_s);
      }
  }
  double disk_energy = 0.0;
  for (int i = 0; i < s->ndisks; i++) {
    struct disk_stats ds;
    disk_stats(e->disks[i], now, &ds);
    disk_energy += ds.energy_J;
    snprintf(who, sizeof who, "%s", s->drive.name);
    analysis_add(out, RES_DISK, e->disks[i]->name, who, T > 0 && now > 0 ? ds.busy_s * T / now : 0.0);
  }
  for (int i = 0; i < s->ncache_devs; i++) {
    struct disk_stats ds;
    disk_stats(e->cache[i], now, &ds);
    disk_energy += ds.energy_J;
    analysis_add(out, RES_DISK, e->cache[i]->name, s->cache_drive.name,
                 T > 0 && now > 0 ? ds.busy_s * T / now : 0.0);
  }
  if (s->soc.parity_engine_rate_bytes_per_s > 0)
    analysis_add(out, RES_ENGINE, "soc.parity_engine", "XOR / RAID-6 P+Q offload",
                 accel_utilization(&e->parity, now) * T);
  if (s->soc.crypto_engine_rate_bytes_per_s > 0)
    analysis_add(out, RES_ENGINE, "soc.crypto_engine", "AES offload", accel_utilization(&e->crypto, now) * T);
  analysis_add(out, RES_ENGINE, "soc.memory", "page-cache copies over the memory bus",
               accel_utilization(&e->mem_bus, now) * T);
  analysis_finish(out);

  /* Power: SoC from SimGrid's energy plugin, drives from their models,
   * chassis and NIC ports from the system catalogue; at the wall, the DC
   * load over the power supply's efficiency. */
  double soc_J = local ? 0.0 : sg_host_get_consumed_energy(e->nas);
  int ports = local ? 0 : e->map.nas_ports;
  out->energy_J = (soc_J + disk_energy + (s->system.power_base_W + ports * s->system.power_nic_port_W) * now) /
                  s->system.power_psu_efficiency;
  out->avg_power_W = now > 0 ? out->energy_J / now : 0.0;
  for (int i = 0; i < stack_op_count(e->stack) && out->nops < RES_MAX_OPS; i++) {
    struct stack_op_report rep;
    stack_op_get(e->stack, i, &rep);
    struct res_op *o = &out->ops[out->nops++];
    snprintf(o->kind, sizeof o->kind, "%s", eng_op_names[rep.kind + 1]);
    o->duration_s = (rep.end_s >= 0 ? rep.end_s : now) - rep.start_s;
    o->avg_power_W = out->avg_power_W;
  }
  eng_destroy(e);
  return out->failed ? 1 : 0;

fail_oom:
  nw_fail(&err, s->path, 0, 0, "out of memory");
fail_err:
  out->failed = 1;
  snprintf(out->failure, sizeof out->failure, "%.500s", err.msg);
  eng_destroy(e);
  return 1;
}
