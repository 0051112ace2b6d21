/* engine.c - the engine's core: thread accounting and occupancy, request
 * queues, the storage event source and its hooks, the client jobs (issue,
 * complete) and background operations.  The jobs' actors and their set-up
 * are in jobs.c, the client's page cache (its
 * write-back, the close that waits for it, read-ahead) is in
 * client_cache.c, fault injection and the LACP bond's failover in
 * faults.c, the daemons in daemon.c, the way into the storage stack in
 * submit.c, setting up and collecting a run in run.c, the measured
 * window's meters and end in window.c. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xbt/asserts.h>
#include <xbt/log.h>

#include "models/net/mpio.h"
#include "sim/engine/eng_impl.h"
#include "models/storage/pcache.h"

XBT_LOG_NEW_DEFAULT_CATEGORY(nastwin, "nastwin engine");

/* ---- small helpers ------------------------------------------------------ */

/* calloc a record that lives as long as the engine. */
void *eng_own(struct eng *e, size_t size)
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

struct eng_thread *eng_thread_new(struct eng *e, const char *name, const char *who, double speed)
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

/* The kernel-path stall of t's next work item (s): the other paths that
 * ran since its path last ran each brought their own working set into
 * the L2 (models/soc soc_kernel_stall_s). */
static double eng_path_stall_s(struct eng *e, struct eng_thread *t)
{
  /* Threads of one path (soc.nfsd0..7, every smbd, every flow's softirq)
   * run the same code on like structures: they share its lines. */
  if (!t->path_known) {
    t->path_known = 1;
    size_t stem = strcspn(t->name, "0123456789");
    for (int i = 0; i < e->npaths && !t->path; i++)
      if (e->paths[i] != t && !strncmp(e->paths[i]->name, t->name, stem) &&
          strcspn(e->paths[i]->name, "0123456789") == stem)
        t->path = e->paths[i];
  }
  struct eng_thread *path = t->path ? t->path : t;
  if (!path->in_paths && e->npaths < ENG_MAX_PATHS) {
    e->paths[e->npaths++] = path;
    path->in_paths = 1;
  }
  int others = 0;
  for (int i = 0; i < e->npaths; i++)
    others += e->paths[i] != path && e->paths[i]->last_item > path->last_item;
  path->last_item = ++e->items;
  /* others <= npaths <= ENG_MAX_PATHS; the SoC's figures do not change in
   * a run, so each count's stall is computed once (an exp and an L2-way
   * sum per work item before: 1.5-2 % of a 1-core NFS run). */
  if (!e->stall_known[others]) {
    e->stall_s[others] = soc_kernel_stall_s(&e->s->soc, (double)others);
    e->stall_known[others] = 1;
  }
  return e->stall_s[others];
}

/* Execute cycles on the calling actor's host, accounting them to t. */
void eng_exec(struct eng *e, struct eng_thread *t, double cycles)
{
  if (cycles <= 0)
    return;
  /* The lines the work items since this thread's last one evicted
   * (models/soc soc_kernel_stall_s; 0 unless the SoC models it). */
  if (!e->local && e->s->soc.kernel_working_set_bytes > 0)
    cycles += eng_path_stall_s(e, t) * t->speed;
  double now = simgrid_get_clock();
  /* Softirq work preempts processes (Linux runs it on irq exit, ahead of
   * any task; ksoftirqd only defers it under a softirq storm).  The cores
   * are shared among executions in proportion to their priority, each
   * capped at one core (cpu.h): ENG_SOFTIRQ_PRIORITY makes the softirq
   * take a whole core whatever the number of runnable daemons. */
  double end = eng_cpu_run(e, now, cycles, t->softirq ? ENG_SOFTIRQ_PRIORITY : 1.0);
  /* Account only the part inside the measured window, pro rata. */
  if (end > now)
    t->cycles += cycles * eng_in_window_s(e, now, end) / (end - now);
  else if (eng_window_at(e, now))
    t->cycles += cycles;
}

/* The instant t is inside the measured window (open: the prep jobs done). */
int eng_window_at(const struct eng *e, double t)
{
  return e->nprep == 0 && t >= e->ramp_s && t <= e->t_end_s;
}

/* Time of [from, to] inside the measured window (s).  While a step's prep
 * jobs run (a file laid out before the measured jobs start) the window is
 * not open yet, whatever ramp_s says: eng_open_gate sets it once they end. */
double eng_in_window_s(const struct eng *e, double from_s, double to_s)
{
  if (e->nprep > 0)
    return 0.0;
  double lo = from_s > e->ramp_s ? from_s : e->ramp_s;
  double hi = to_s < e->t_end_s ? to_s : e->t_end_s;
  return hi > lo ? hi - lo : 0.0;
}

/* Occupancy: t takes a request off its queue (eng_hold) and hands it on
 * or replies (eng_release); in between it holds it whether it runs, waits
 * for a core or sleeps in a storage call. */
void eng_hold(struct eng_thread *t)
{
  t->holding = 1;
  t->hold_since_s = simgrid_get_clock();
}

void eng_release(const struct eng *e, struct eng_thread *t)
{
  t->occupied_s += eng_in_window_s(e, t->hold_since_s, simgrid_get_clock());
  t->holding = 0;
}

/* t's occupancy at the end of the run, a request still held included (s). */
double eng_occupied_s(const struct eng *e, const struct eng_thread *t, double now_s)
{
  return t->occupied_s + (t->holding ? eng_in_window_s(e, t->hold_since_s, now_s) : 0.0);
}

/* A semaphore that lives as long as the engine (destroyed with it). */
sg_sem_t eng_sem(struct eng *e)
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

void eng_queue_init(struct eng *e, struct eng_queue *q)
{
  q->head = q->tail = NULL;
  q->sem = eng_sem(e);
}

/* A request onto the end of a singly linked FIFO (head, tail). */
void eng_req_append(struct eng_req **head, struct eng_req **tail, struct eng_req *r)
{
  r->next = NULL;
  if (*tail)
    (*tail)->next = r;
  else
    *head = r;
  *tail = r;
}

/* The FIFO's first request, or NULL when it is empty. */
struct eng_req *eng_req_take(struct eng_req **head, struct eng_req **tail)
{
  struct eng_req *r = *head;
  if (!r)
    return NULL;
  *head = r->next;
  if (!*head)
    *tail = NULL;
  return r;
}

void eng_queue_push(struct eng_queue *q, struct eng_req *r)
{
  eng_req_append(&q->head, &q->tail, r);
  sg_sem_release(q->sem);
}

struct eng_req *eng_queue_pop(struct eng_queue *q)
{
  sg_sem_acquire(q->sem);
  return eng_req_take(&q->head, &q->tail);
}

struct eng_req *eng_req_new(struct eng *e)
{
  struct eng_req *r = e->free_reqs;
  if (r)
    e->free_reqs = r->next;
  else
    r = eng_own(e, sizeof *r); /* freed with the engine: one abandoned at a run's stop too */
  if (!r)
    xbt_die("out of memory");
  sg_sem_t ready = r->seg_ready; /* count 0: every piece was taken */
  memset(r, 0, sizeof *r);
  r->seg_ready = ready;
  return r;
}

void eng_req_free(struct eng *e, struct eng_req *r)
{
  r->next = e->free_reqs;
  e->free_reqs = r;
}

/* A client actor of connection c moves to the host of c's current route
 * (LACP rehash after a member left or rejoined the bond); it is called
 * whenever the actor wakes, so it is never blocked when it moves. */
void eng_follow_route(const struct eng_conn *c)
{
  if (!c)
    return;
  sg_host_t want = c->route < 0 ? c->host : c->alt_host[c->route];
  if (want && sg_host_self() != want)
    sg_actor_set_host(sg_actor_self(), want);
}

/* ---- storage event source ---------------------------------------------- */

void eng_wake_storage(struct eng *e)
{
  if (stack_next_event_s(e->stack) < e->storage_deadline) {
    e->storage_deadline = -1.0; /* one wake is enough until it sleeps again */
    sg_sem_release(e->storage_wake);
  }
}

void eng_storage_main(int argc, char **argv)
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

void eng_kthread_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_kthread *k = sg_actor_self_get_data();
  for (;;) {
    if (!k->head) {
      k->blocked = 1;
      sg_sem_acquire(k->sem);
    }
    struct eng_kwork *w = k->head;
    k->head = w->next;
    if (!k->head)
      k->tail = NULL;
    eng_hold(&k->acct);
    eng_exec(k->e, &k->acct, w->cycles);
    stack_cpu_done(k->e->stack, simgrid_get_clock(), w->token);
    eng_release(k->e, &k->acct);
    w->next = k->free_work;
    k->free_work = w;
    eng_wake_storage(k->e);
  }
}

void eng_hook_cpu(void *ctx, enum stack_thread thread, double cycles, uint64_t token)
{
  struct eng *e = ctx;
  struct eng_kthread *k = &e->kthreads[thread];
  struct eng_kwork *w = k->free_work;
  if (w)
    k->free_work = w->next;
  else if (!(w = eng_own(e, sizeof *w))) /* freed with the engine */
    xbt_die("out of memory");
  w->next = NULL;
  w->cycles = cycles;
  w->token = token;
  if (k->tail)
    k->tail->next = w;
  else
    k->head = w;
  k->tail = w;
  if (k->blocked) {
    k->blocked = 0;
    sg_sem_release(k->sem);
  }
}

/* The reply message of r: its header, and a read's data. */
static double eng_reply_bytes(const struct eng *e, const struct eng_req *r)
{
  return (double)(long)(e->header_bytes + (r->write ? 0.0 : (double)r->len_bytes));
}

/* A reply goes into its lane's socket as it completes: the sending
 * thread does not wait for it to be through (a TCP send returns once the
 * socket buffer holds it), so a lane's replies pipeline on the wire as
 * far as the TCP window and the receiver's posted receives let them
 * (chan.c), in order.  Only while the lane's reply sender streams a
 * reply in pieces (or a path is down) do replies queue behind it. */
void eng_send_reply(struct eng *e, struct eng_req *r)
{
  struct eng_job *j = r->job;
  int q = r->conn;
  struct eng_conn *c = &e->conns[j->conn0 + q];
  if (!j->reply_busy[q] && !j->replyq[q].head && (r->write || r->nsegs <= 1) && !e->map.failover &&
      eng_bond_open(e, c, 0)) {
    eng_chan_send_forget(e, &j->reply[q], c, r, eng_reply_bytes(e, r));
    return;
  }
  eng_queue_push(&j->replyq[q], r);
}

/* The NAS end of a lane: streams the replies that go in pieces, one at a
 * time, and sends those that queued behind them. */
void eng_reply_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_lane *l = sg_actor_self_get_data();
  struct eng_job *j = l->job;
  int q = l->conn;
  for (;;) {
    struct eng_req *r = eng_queue_pop(&j->replyq[q]);
    j->reply_busy[q] = 1;
    if (!r->write && r->nsegs > 1) {
      eng_reply_stream(j, q, r);
    } else {
      eng_bond_wait(j->e, &j->e->conns[j->conn0 + q], 0);
      eng_chan_send_forget(j->e, &j->reply[q], &j->e->conns[j->conn0 + q], r, eng_reply_bytes(j->e, r));
    }
    j->reply_busy[q] = 0;
  }
}

void eng_hook_done(void *ctx, double now_s, uint64_t tag)
{
  struct eng *e = ctx;
  (void)now_s;
  struct eng_req *r = (struct eng_req *)(uintptr_t)tag;
  switch (e->ops->shape) {
  case PROTO_SHAPE_PROCESS: {
    sg_sem_t waiter = r->waiter; /* r belongs to the reply once sent */
    if (!r->write && r->nsegs > 1) { /* its process streams the data back */
      if (waiter)
        sg_sem_release(waiter);
      else
        eng_reply_ready(e, r);
      break;
    }
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

/* The volume failed: the request is answered (with an error status) as any other. */
void eng_hook_error(void *ctx, double now_s, uint64_t tag)
{
  ((struct eng_req *)(uintptr_t)tag)->error = 1;
  eng_hook_done(ctx, now_s, tag);
}

/* Steady state before measuring (StorageReview preconditions for hours):
 * the caches hold what a long run of all the step's jobs together leaves.
 * A job's write rate is taken as its outstanding write bytes (depth x mean
 * block x write share): under a common write-back throttle every writer
 * sees the same latency, so by Little's law the rates go as these.  0, or
 * -1 out of memory. */
int eng_precondition(struct eng *e)
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

/* ---- client jobs --------------------------------------------------------- */

/* May the job issue another I/O now? */
int eng_may_issue(const struct eng_job *j)
{
  return simgrid_get_clock() < j->t_end && workgen_more(&j->gen);
}

static struct eng_req *eng_make_req(struct eng_job *j)
{
  struct eng_req *r = eng_req_new(j->e);
  r->job = j;
  struct workgen_io io;
  workgen_next(&j->gen, j->rng, &io);
  r->write = io.write;
  r->opens = io.opens;
  r->fop = io.fop;
  r->meta = io.meta;
  r->trim = io.trim;
  r->range_bytes = io.range_bytes;
  r->rec = io.rec;
  r->offset_bytes = io.offset_bytes;
  r->len_bytes = io.len_bytes;
  r->t_issue_s = simgrid_get_clock();
  return r;
}

/* The close of job j's pass over its file, made by the client OS
 * (clients.flush_on_close): the protocol's close after writes or after
 * reads at the file's start, no data, not a client I/O (flush). */
struct eng_req *eng_close_new(struct eng_job *j)
{
  struct eng_req *r = eng_req_new(j->e);
  r->job = j;
  r->write = j->spec->read_frac < 1.0;
  r->flush = 1;
  r->meta = JOB_META_STAT;
  r->fop = r->write ? PROTO_FOP_CLOSE_WRITTEN : PROTO_FOP_CLOSE;
  r->offset_bytes = (uint64_t)j->region_start;
  r->rec = -1;
  r->t_issue_s = simgrid_get_clock();
  return r;
}

/* A completion of job j at `now` counts in the step's figures: a
 * measured job's, the prep jobs done, inside the window. */
int eng_counts_at(const struct eng_job *j, double now)
{
  return !j->spec->prep && eng_window_at(j->e, now);
}

/* Request r of job j is one of the client's write-backs: not one of
 * the job's outstanding I/Os (its window is the application's), counted
 * in j->wb_outstanding instead. */
static int eng_is_writeback(const struct eng_job *j, const struct eng_req *r)
{
  return r->flush && r != j->close_req;
}

/* Which connection carries the next request of job j. */
int eng_pick_conn(struct eng_job *j, double bytes)
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

/* A protocol request onto its connection's socket from the actor of lane
 * `self`, or handed to the lane's sender when another actor picks it. */
void eng_send_rpc(struct eng_job *j, struct eng_req *r, int self)
{
  if (r->conn != self)
    eng_queue_push(&j->sendq[r->conn], r);
  else
    eng_wire_push(j->e, &j->e->conns[j->conn0 + r->conn], r);
}

/* The next request of application I/O r's file operation onto r's
 * connection (from the actor of lane `self`): no data; the first carries
 * the file system's work (the operation's cycles_per_open, a metadata
 * operation's block), the others only the protocol's (eng_req_stores).
 * The lane's receiver sends the next when its reply is in
 * (eng_lane_rx_main), as a client waits for each. */
void eng_fop_next(struct eng_job *j, struct eng_req *r, int self)
{
  struct eng_req *p = eng_req_new(j->e);
  int first = r->fop_sent++ == 0;
  p->job = j;
  p->conn = r->conn;
  p->write = r->write;
  p->offset_bytes = r->offset_bytes;
  p->opens = first && proto_file_op_opens(r->fop);
  p->meta = first && p->opens ? r->meta : JOB_META_NONE;
  p->fop = r->fop;
  p->fop_part = 1;
  /* the close proper, the flow's last request (after a SET_INFO of the times) */
  int last_close = r->fop_sent == r->fop_reqs && r->fop == PROTO_FOP_CLOSE_WRITTEN;
  p->close_writeback = last_close && proto_close_starts_writeback(&j->e->s->proto);
  p->close_sync = last_close && proto_close_syncs(&j->e->s->proto);
  p->rec = -1;
  p->t_issue_s = r->t_issue_s;
  p->app = r;
  eng_send_rpc(j, p, self);
}


/* A tool that opens its file before it starts its timer (job open_untimed:
 * IOZone): the I/O that waited for the open starts when its data goes, and
 * a sized step's window opens then, so the open's round trips are outside
 * the figure (and its latencies) as they are outside the tool's.  The
 * window once per step: the first measured job to get there starts it. */
void eng_open_timer(struct eng_job *j, struct eng_req *a)
{
  struct eng *e = j->e;
  double now = simgrid_get_clock();
  if (!j->spec->open_untimed || j->spec->prep)
    return;
  a->t_issue_s = now;
  if (!e->size_based || e->nprep > 0 || e->timer_started)
    return;
  e->timer_started = 1;
  if (now > e->ramp_s)
    e->ramp_s = now;
}

/* Application I/O r's data (or, without data, r itself: a trim, a
 * truncate, a fallocate) onto its connection: through the client's page
 * cache (a buffered write it takes, a read it serves from its read-ahead
 * units), or as the protocol requests the client splits it into. */
void eng_send_data(struct eng_job *j, struct eng_req *r, int self)
{
  struct eng *e = j->e;
  enum eng_absorb a = eng_client_absorb(j, r);
  if (a == ENG_ABSORB_NONE)
    a = eng_client_fetch(j, r);
  if (a == ENG_ABSORB_TAKEN)
    eng_client_copy(e, r);
  if (a != ENG_ABSORB_NONE) {
    if (r->write)
      eng_writeback(j, self); /* past a limit now: the write-back goes */
    else
      eng_readahead(j, self);
    return;
  }
  if (j->mpio)
    mpio_start_io(j->mpio, r->conn, (double)r->len_bytes);
  double chunk;
  uint64_t n = eng_rpc_split(e, r, &chunk);
  if (n <= 1) {
    eng_send_rpc(j, r, self);
    return;
  }
  /* Its protocol requests: each its own message, daemon work and reply;
   * r completes with the last reply (eng_lane_rx_main). */
  r->nrpcs = r->rpcs_left = (int)n;
  for (uint64_t k = 0; k < n; k++) {
    struct eng_req *p = eng_req_new(e);
    uint64_t off = (uint64_t)((double)k * chunk);
    p->job = j;
    p->conn = r->conn;
    p->write = r->write;
    p->offset_bytes = r->offset_bytes + off;
    p->len_bytes = k + 1 < n ? (uint64_t)chunk : r->len_bytes - off;
    p->rec = -1;
    p->t_issue_s = r->t_issue_s;
    p->app = r;
    eng_send_rpc(j, p, self);
  }
}

/* Send a request on its connection from the actor of lane `self` (a
 * connection index, or -1 from the timer actor, which hands it to the
 * lane's sender).  A file operation goes as its protocol requests, one
 * after another (eng_fop_requests), then its data if it has any; one of
 * no request (an NFS close after reads) the client answers itself. */
void eng_send(struct eng_job *j, struct eng_req *r, int self)
{
  struct eng *e = j->e;
  eng_warm_issue(e, r, j->issued < (uint64_t)j->depth);
  if (r->opens) {
    j->file_reads = 0; /* a file opened: its handle has no read history yet */
    eng_client_reopen(j);
  }
  if (!r->write && r->meta == JOB_META_NONE && !r->trim && !r->flush)
    j->file_reads++;
  j->outstanding += !eng_is_writeback(j, r);
  j->issued++;
  if (e->local) {
    eng_submit(e, r);
    return;
  }
  r->conn = eng_pick_conn(j, (double)r->len_bytes);
  r->fop_reqs = eng_fop_requests(e, r);
  if (r->fop_reqs > 0) {
    r->opens = 0; /* its file system work goes with its operation's first request */
    j->opening = r->meta == JOB_META_NONE; /* a data I/O's open: the rest wait for it */
    eng_fop_next(j, r, self);
  } else if (r->fop != PROTO_FOP_NONE && r->meta != JOB_META_NONE) {
    r->no_wire = 1;
    eng_chan_deliver(e, &j->reply[r->conn], r);
  } else {
    eng_send_data(j, r, self);
  }
}

/* The client OS writes a file's dirty pages back at its close and waits
 * for them (clients.flush_on_close), for a closed-loop job on a share (a
 * timed job's passes close as the others', with the next pass's open). */
int eng_closes_itself(const struct eng_job *j)
{
  const struct eng *e = j->e;
  return e->s->client.flush_on_close > 0.0 && !e->local && !e->net_only && e->ops->opens_files &&
         !workgen_timed(j->spec);
}

/* Issue the job's next I/O.  A file copy's I/O that opens the next file
 * (workgen_io.opens: the open request, or a LUN's first block of the file)
 * comes clients.file_gap after the last one's answer: the tool's and the
 * client file system's own work between files, with nothing outstanding
 * (workgen_waits drained the file before), so the NAS waits.  Where the
 * client OS flushes on close, a file copy's close, or the close before a
 * pass over the file opens it again, waits for the write-back first
 * (eng_close_step). */
void eng_issue(struct eng_job *j, int self)
{
  struct eng_req *r = eng_make_req(j);
  double gap = j->e->s->client.file_gap_s;
  if (r->opens && j->spec->file_handles && gap > 0.0) {
    sg_actor_sleep_for(gap);
    r->t_issue_s = simgrid_get_clock();
  }
  if (eng_closes_itself(j)) {
    if (r->fop == PROTO_FOP_CLOSE || r->fop == PROTO_FOP_CLOSE_WRITTEN) {
      j->close_req = r; /* a file copy's close */
      eng_writeback(j, self);
      eng_close_step(j, self);
      return;
    }
    if (r->fop == PROTO_FOP_OPEN && r->meta == JOB_META_NONE) { /* a pass opens its file */
      if (j->file_open) {
        j->close_next = r;
        j->close_req = eng_close_new(j);
        eng_writeback(j, self);
        eng_close_step(j, self);
        return;
      }
      j->file_open = 1;
    }
  }
  eng_send(j, r, self);
}

/* Issue while the job's window allows (closed loop). */
void eng_refill(struct eng_job *j, int self)
{
  if (workgen_timed(j->spec))
    return; /* the timer actor issues */
  while (j->outstanding < eng_job_window(j) && eng_may_issue(j))
    eng_issue(j, self);
}

/* The bytes request r put on its connection's route: its file
 * operation's requests, then its data's (none of an operation without
 * data, of a write the client's cache took, or of an operation the
 * client answered itself). */
void eng_count_link(struct eng *e, const struct eng_req *r)
{
  int data_msgs = r->no_wire || r->absorbed || (r->fop_reqs > 0 && r->meta != JOB_META_NONE) ? 0
                  : r->nrpcs > 1                                                           ? r->nrpcs
                                                                                           : 1;
  if (e->local || r->fop_reqs + data_msgs == 0)
    return;
  struct eng_conn *c = &e->conns[r->job->conn0 + r->conn];
  double *up = c->route < 0 ? &c->bytes_up : &c->alt_up[c->route];
  double *down = c->route < 0 ? &c->bytes_down : &c->alt_down[c->route];
  double headers = e->header_bytes * (double)(r->fop_reqs + data_msgs);
  double data = data_msgs > 0 ? (double)r->len_bytes : 0.0;
  *up += headers + (r->write ? data : 0.0);
  *down += headers + (r->write ? 0.0 : data);
}

static void eng_account(struct eng *e, struct eng_req *r)
{
  double now = simgrid_get_clock();
  struct eng_job *j = r->job;
  j->outstanding -= !eng_is_writeback(j, r);
  j->completed++;
  j->t_end = lat_target_complete(&j->lat, j->spec, now, now - r->t_issue_s, j->outstanding) ? now : j->t_end;
  if (j->mpio && !r->absorbed)
    mpio_end_io(j->mpio, r->conn, (double)r->len_bytes);
  if (r->flush) { /* the client's write-back or close: timed, not a client I/O */
    if (eng_counts_at(j, now))
      eng_count_link(e, r);
    if (!j->spec->prep && e->nprep == 0 && now <= e->t_end_s && now > e->last_done_s)
      e->last_done_s = now; /* the close is part of the timed work */
  } else if (r->error) { /* counted, not timed */
    if (eng_counts_at(j, now))
      *(r->trim ? &e->err_trim : r->write ? &e->err_write : &e->err_read) += 1;
  } else if (eng_counts_at(j, now)) {
    double lat = now - r->t_issue_s;
    if (j->spec->replay && r->rec >= 0 && e->nreplay_lat < e->replay_cap)
      e->replay_lat[e->nreplay_lat++] = lat;
    int d = r->trim ? 2 : r->write ? 1 : 0;                /* fio's read, write, trim */
    double bytes = (double)(r->len_bytes + r->range_bytes); /* a trim's, fallocate's range */
    stats_hist_add(d == 2 ? e->h_trim : d ? e->h_write : e->h_read, lat);
    stats_hist_add(e->h_all, lat);
    *(d == 2 ? &e->bytes_trim : d ? &e->bytes_write : &e->bytes_read) += bytes;
    *(d == 2 ? &e->ios_trim : d ? &e->ios_write : &e->ios_read) += 1;
    stats_series_add(&e->series, now, bytes);
    /* fio's slices count from the window's start */
    stats_series_add(&e->fio_samples[2 * d], now - e->ramp_s, bytes);
    stats_series_add(&e->fio_samples[2 * d + 1], now - e->ramp_s, 1.0);
    eng_count_link(e, r);
    if (now > e->last_done_s)
      e->last_done_s = now;
    if (e->throttle_window && j->outstanding == 0 && !eng_may_issue(j))
      eng_window_last(e);
  }
  eng_warm_done(e, r, now);
  eng_req_free(e, r);
}

/* The last prep job is done: the measured jobs start now. */
static void eng_open_gate(struct eng *e)
{
  double now = simgrid_get_clock();
  double ramp = e->ramp_s;
  e->ramp_s = now + ramp;
  e->t_end_s = e->size_based ? e->t_end_s : now + e->s->time_s;
  for (int i = 0; i < e->njobs; i++) {
    struct eng_job *j = &e->jobs[i];
    if (j->spec->prep)
      continue;
    double run = eng_job_run_s(e, j->spec);
    j->t_end = now + run;
    sg_sem_release(j->gate);
  }
  eng_window_wake(e);
}

void eng_maybe_finish(struct eng_job *j)
{
  const struct eng_client *cl = &j->e->clients[j->client];
  if (!j->finished && j->outstanding == 0 && j->wb_outstanding == 0 && !eng_may_issue(j) && !j->close_req &&
      !j->close_next &&
      !(j->file_open && eng_closes_itself(j)) && (!cl->cache || pcache_dirty_bytes(cl->cache) == 0)) {
    j->finished = 1;
    sg_sem_release(j->done);
    if (j->spec->prep && --j->e->nprep == 0)
      eng_open_gate(j->e);
  }
}

/* An open-loop replay of a trace measured one request at a time: each is
 * issued its gap after the previous one completes. */
int eng_replay_synchronous(const struct eng_job *j)
{
  return j->spec->replay && j->spec->replay_depth == 0 && j->e->s->workload.replay->one_at_a_time;
}

/* A streamed reply's piece before its last: the lane's receiver only
 * counts it (eng_lane_rx_main). */
int eng_reply_pass(void *payload)
{
  struct eng_req *r = payload;
  if (r->write || r->nsegs <= 1 || r->segs_got + 1 >= r->nsegs)
    return 0;
  r->segs_got++;
  return 1;
}

/* Application I/O r of job j is done: counted, and the job goes on
 * (from the actor of lane `self`, -1 another actor's). */
void eng_done(struct eng_job *j, struct eng_req *r, int self)
{
  int closed = r == j->close_req;
  if (eng_is_writeback(j, r))
    eng_writeback_done(j, r);
  eng_account(j->e, r);
  if (closed) { /* the file is closed: the next pass opens it */
    j->close_req = NULL;
    j->close_sent = 0;
    j->file_open = 0;
    struct eng_req *next = j->close_next;
    j->close_next = NULL;
    if (next) {
      j->file_open = 1;
      next->t_issue_s = simgrid_get_clock();
      eng_send(j, next, self);
    }
  }
  if ((j->spec->thinktime_s > 0 || eng_replay_synchronous(j)) && eng_may_issue(j)) {
    j->pending_timer++;
    sg_sem_release(j->timer_sem);
  }
  eng_refill(j, self);
  eng_writeback(j, self);
  eng_close_step(j, self);
  eng_maybe_finish(j);
}

/* ---- background operation ----------------------------------------------- */

void eng_op_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng *e = sg_actor_self_get_data();
  const struct scenario *s = e->s;
  struct stack_op_cfg op = {.kind = s->op, .target_level = (int)s->volume.level,
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

/* ---- actors ------------------------------------------------------------ */

sg_host_t eng_nas_host(struct eng *e)
{
  sg_host_t h = e->nas_hosts[e->nas_next];
  e->nas_next = (e->nas_next + 1) % e->map.nas_hosts;
  return h;
}

sg_actor_t eng_spawn(const char *name, sg_host_t host, void (*code)(int, char **), void *data,
                            int daemon)
{
  sg_actor_t a = sg_actor_init(name, host);
  sg_actor_set_data(a, data);
  sg_actor_start(a, code, 0, NULL);
  if (daemon)
    sg_actor_daemonize(a);
  return a;
}

