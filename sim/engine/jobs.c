/* jobs.c - a client job's actors and their set-up: per connection a
 * receive lane (completions, the client cache's fetches and write-backs)
 * and, when another actor picks its requests, a send lane; the copy
 * tool's actor, the job's timer (time-based runs, rate and latency
 * targets) and its master; eng_setup_jobs makes them for a step.  What a
 * job issues and does with a completion is engine.c's. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <stdlib.h>
#include <xbt/asserts.h>

#include "models/net/mpio.h"
#include "sim/engine/eng_impl.h"

/* A file copy's chunk the copy tool works on before it goes on: its
 * copies of the chunk's bytes between the source, its buffer and the
 * destination on the client (clients.copy_tool_rate) are in series with
 * the chunk's request, the next one waiting unless the client OS's
 * read-ahead has it in flight already (eng_tool_main). */
static int eng_tool_takes(const struct eng_job *j, const struct eng_req *r)
{
  return j->e->s->client.copy_tool_bytes_per_s > 0.0 && j->spec->file_handles && !r->flush && !r->trim &&
         !r->error && r->meta == JOB_META_NONE && r->len_bytes > 0;
}

/* Client receive side of one connection of one job copy: each protocol
 * reply costs the client clients.rpc_time first (its RPC layer's receive,
 * the caller's wake-up), one reply after the other. */
static void eng_lane_rx_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_lane *l = sg_actor_self_get_data();
  struct eng_job *j = l->job;
  struct eng_conn *c = j->e->local ? NULL : &j->e->conns[j->conn0 + l->conn];
  if (l->conn == 0 && !j->spec->prep && j->e->nprep > 0)
    sg_sem_acquire(j->gate);
  if (l->conn == 0 && !workgen_timed(j->spec)) {
    eng_refill(j, 0);
    eng_writeback(j, 0);
    eng_close_step(j, 0);
    eng_maybe_finish(j);
  }
  for (;;) { /* two receives posted, as a socket (chan.c): a streamed reply's pieces overlap */
    struct eng_req *r = j->e->local ? eng_queue_pop(&j->localq) : eng_chan_recv(&j->reply[l->conn]);
    eng_follow_route(c);
    if (!r->write && r->nsegs > 1 && ++r->segs_got < r->nsegs)
      continue; /* more pieces of a streamed reply to come */
    if (c && !r->absorbed && !r->no_wire && j->e->s->client.rpc_time_s > 0.0)
      sg_actor_sleep_for(j->e->s->client.rpc_time_s);
    if (c)
      eng_slot_free(j->e, c, r);
    if (r->fetch) { /* a read-ahead unit into the page cache */
      eng_fetched(j, r);
      continue;
    }
    if (r->app && r->fop_part) { /* one request of a file operation: the next goes now */
      struct eng_req *a = r->app;
      a->error |= r->error;
      eng_req_free(j->e, r);
      if (a->fop_sent < a->fop_reqs) {
        eng_fop_next(j, a, l->conn);
        continue;
      }
      if (a->meta == JOB_META_NONE) { /* its file is open: its data */
        j->opening = 0;
        eng_open_timer(j, a);
        eng_send_data(j, a, l->conn);
        eng_refill(j, l->conn);
        continue;
      }
      r = a;
    } else if (r->app) { /* one protocol request of a split application I/O */
      struct eng_req *a = r->app;
      a->error |= r->error;
      eng_req_free(j->e, r);
      if (--a->rpcs_left > 0)
        continue;
      r = a;
    }
    if (eng_tool_takes(j, r)) {
      eng_queue_push(&j->toolq, r);
      continue;
    }
    eng_done(j, r, l->conn);
  }
}

/* The copy tool of job j: one chunk at a time, in order; the chunk
 * completes when the tool is done with it. */
static void eng_tool_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_job *j = sg_actor_self_get_data();
  for (;;) {
    struct eng_req *r = eng_queue_pop(&j->toolq);
    sg_actor_sleep_for((double)r->len_bytes / j->e->s->client.copy_tool_bytes_per_s);
    eng_done(j, r, -1);
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
    eng_wire_push(e, &e->conns[j->conn0 + l->conn], r);
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
  if (eng_replay_synchronous(j)) {
    const struct replay_trace *t = j->e->s->workload.replay;
    for (int k = 0; eng_may_issue(j); k++) {
      if (k > 0) {
        sg_sem_acquire(j->timer_sem); /* the previous one completed */
        j->pending_timer--;
        sg_actor_sleep_for(t->v[k].at_s - t->v[k - 1].at_s);
      } else if (t->v[0].at_s > 0) {
        sg_actor_sleep_for(t->v[0].at_s);
      }
      if (eng_may_issue(j))
        eng_issue(j, -1);
    }
  } else if (sp->replay) { /* open loop by the trace's timestamps, no window */
    double start = simgrid_get_clock();
    while (eng_may_issue(j)) {
      double at = workgen_arrival_s(&j->gen, start, start), now = simgrid_get_clock();
      if (at > now)
        sg_actor_sleep_for(at - now);
      if (eng_may_issue(j))
        eng_issue(j, -1);
    }
  } else if (sp->rate_iops > 0) {
    double start = simgrid_get_clock(), next = start;
    while (eng_may_issue(j)) {
      if (j->outstanding < j->depth)
        eng_issue(j, -1);
      next = workgen_arrival_s(&j->gen, start, next);
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
  eng_writeback(j, -1);
  eng_close_step(j, -1);
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

/* Spread job copies over the volume: each (client, job, copy) works in its
 * own region (fio: one file per job copy), wrapped into the capacity. */
static void eng_place(struct eng *e, struct eng_job *j, int index)
{
  double cap = (double)stack_capacity_bytes(e->stack);
  double size = j->spec->size_bytes > 0 ? j->spec->size_bytes : cap;
  if (j->spec->size_frac > 0) /* fio size=N%: a share of the target, whole 4 KiB pages */
    size = fmax(4096.0, floor(j->spec->size_frac * cap / 4096.0) * 4096.0);
  if (size > cap)
    size = cap;
  /* fio: copies of a job on one file share its region, each offset by
   * offset_increment; otherwise each copy has a file of its own. */
  double start = j->spec->offset_frac * cap + j->spec->offset_bytes + (double)j->copy * j->spec->offset_increment_bytes;
  if (!j->spec->shared_file)
    start += (double)index * size;
  if (start + size > cap)
    start = fmod(start, cap - size + 1.0);
  j->region_start = floor(start / 4096.0) * 4096.0;
  j->region_bytes = size;
  workgen_init(&j->gen, j->spec, j->spec->replay ? e->s->workload.replay : NULL, j->region_start,
               j->region_bytes);
  if (!e->ops->opens_files)
    workgen_local_files(&j->gen);
}

/* The client jobs of the step: a record per (client, job, copy), its
 * lanes (one receive actor per connection, a sender when another actor
 * picks its requests), its timer and its master.  0, or -1 with err. */
int eng_setup_jobs(struct eng *e, struct nw_err *err)
{
  const struct scenario *s = e->s;
  int local = e->local;
  const struct workload_step *st = e->step;
  int per_client = 0;
  for (int i = 0; i < st->njobs; i++)
    per_client += st->jobs[i].numjobs;
  e->njobs = per_client * s->nclients;
  e->jobs = calloc((size_t)e->njobs, sizeof *e->jobs);
  if (!e->jobs)
    return nw_fail(err, e->s->path, 0, 0, "out of memory");
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
          return nw_fail(err, e->s->path, 0, 0, "out of memory");
        gsl_rng_set(j->rng, (unsigned long)(s->seed * 7919u + (uint64_t)idx * 104729u + 1u));
        j->depth = j->spec->iodepth;
        if (j->depth > e->ops->window(&s->proto))
          j->depth = e->ops->window(&s->proto);
        lat_target_init(&j->lat, j->spec, j->depth, simgrid_get_clock());
        j->t_end = eng_job_run_s(e, j->spec);
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
                                (int)s->net.mpio_rr_repeat, err);
          if (!j->mpio)
            return -1;
        }
        eng_place(e, j, idx);
        int timer = workgen_timed(j->spec);
        int tool = j->spec->file_handles && s->client.copy_tool_bytes_per_s > 0.0;
        /* the lazy writer (another actor) hands its write-behinds to the lane's sender */
        int lazy = eng_client_lazy(e, c);
        eng_queue_init(e, &j->toolq);
        for (int q = 0; q < j->nconns; q++) {
          struct eng_lane *l = eng_own(e, sizeof *l);
          if (!l)
            return nw_fail(err, e->s->path, 0, 0, "out of memory");
          l->job = j;
          l->conn = q;
          eng_chan_init(e, &j->reply[q]);
          if (!e->map.failover) /* else the receiver follows a rehash whenever it wakes */
            j->reply[q].pass = eng_reply_pass;
          eng_queue_init(e, &j->sendq[q]);
          sg_host_t h = local ? sg_host_by_name("c0") : e->conns[j->conn0 + q].host;
          eng_spawn("job-rx", h, eng_lane_rx_main, l, 1);
          eng_queue_init(e, &j->replyq[q]);
          if (!local)
            eng_spawn("job-reply", eng_nas_host(e), eng_reply_main, l, 1);
          if (!local && (j->nconns > 1 || timer || tool || lazy))
            eng_spawn("job-tx", h, eng_lane_tx_main, l, 1);
        }
        if (timer)
          eng_spawn("job-timer", local ? sg_host_by_name("c0") : e->conns[j->conn0].host,
                    eng_timer_main, j, 1);
        if (tool)
          eng_spawn("job-tool", local ? sg_host_by_name("c0") : e->conns[j->conn0].host, eng_tool_main, j, 1);
        eng_spawn("job", sg_host_by_name("c0"), eng_job_main, j, 0);
      }
  /* each client's lazy writer (client_cache.c eng_lazy_main) */
  for (int c = 0; c < s->nclients && !local; c++)
    if (eng_client_lazy(e, c)) {
      struct eng_lazy *lw = eng_own(e, sizeof *lw);
      if (!lw)
        return nw_fail(err, e->s->path, 0, 0, "out of memory");
      lw->e = e;
      lw->client = c;
      eng_spawn("lazy-writer", e->conns[c * e->map.conns_per_client].host, eng_lazy_main, lw, 1);
    }
  return 0;
}
