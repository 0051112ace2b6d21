/* stack_sched.c - the block layer's request queue of each member disk:
 * the I/O scheduler between md and the drive, as mq-deadline (and the
 * deadline scheduler of older kernels) dispatches. */
#include "models/storage/stack_impl.h"

#include <stdlib.h>

/* The tags a queued request stands for: one, or (merged) a list. */
static int stk_sched_add_tag(struct stk_sched_rq *r, uint64_t tag)
{
  struct stk_merged *m = stk_merged_of(r->io.tag);
  if (m == NULL || m->n == m->cap) {
    int cap = m == NULL ? 4 : 2 * m->cap;
    struct stk_merged *g = realloc(m, sizeof *g + (size_t)cap * sizeof g->tags[0]);
    if (g == NULL)
      return -1;
    if (m == NULL) {
      g->n = 1;
      g->tags[0] = r->io.tag;
    }
    g->cap = cap;
    m = g;
    r->io.tag = (uint64_t)(uintptr_t)m | 1u;
  }
  m->tags[m->n++] = tag;
  return 0;
}

/* Merge io into a queued request of its direction it continues (back
 * merge) or precedes (front merge) while the result stays within
 * max_request bytes (the queue's max_sectors_kb), as the elevator merges
 * contiguous bios; 1 when merged. */
static int stk_sched_merge(struct stk_sched_fifo *f, const struct disk_io *io, double max_bytes)
{
  for (size_t i = 0; i < f->n; i++) {
    struct disk_io *q = &f->v[i].io;
    if ((double)(q->len_bytes + io->len_bytes) > max_bytes)
      continue;
    int back = q->offset_bytes + q->len_bytes == io->offset_bytes;
    int front = io->offset_bytes + io->len_bytes == q->offset_bytes;
    if (!back && !front)
      continue;
    if (stk_sched_add_tag(&f->v[i], io->tag) != 0)
      return 0;
    if (front)
      q->offset_bytes = io->offset_bytes;
    q->len_bytes += io->len_bytes;
    return 1;
  }
  return 0;
}

/* Add io (arrived at t) to direction dir's queue (an array that doubles). */
static int stk_sched_push(struct stk_sched *q, int dir, const struct disk_io *io, double t)
{
  struct stk_sched_fifo *f = &q->fifo[dir];
  if (f->n == f->cap) {
    size_t cap = f->cap ? 2 * f->cap : 64;
    struct stk_sched_rq *v = realloc(f->v, cap * sizeof *v);
    if (v == NULL)
      return -1;
    f->v = v;
    f->cap = cap;
  }
  f->v[f->n++] = (struct stk_sched_rq){.io = *io, .t_s = t, .seq = q->seq++};
  return 0;
}

/* The request deadline dispatches next in direction dir at t: at a batch's
 * start the oldest when it has waited past its expiry (read_expire /
 * write_expire), else the next by position after the last dispatched one
 * (one-way elevator, wrapping to the lowest); within a batch the next by
 * position. */
static size_t stk_sched_pick(const struct stk_sched *q, const struct volume_params *v, int dir,
                             int batch_start, double t)
{
  const struct stk_sched_fifo *f = &q->fifo[dir];
  size_t oldest = 0, next = f->n, low = 0;
  for (size_t i = 0; i < f->n; i++) {
    const struct stk_sched_rq *r = &f->v[i];
    if (r->seq < f->v[oldest].seq)
      oldest = i;
    uint64_t o = r->io.offset_bytes;
    if (o < f->v[low].io.offset_bytes || (o == f->v[low].io.offset_bytes && r->seq < f->v[low].seq))
      low = i;
    if (o >= q->next_pos[dir] &&
        (next == f->n || o < f->v[next].io.offset_bytes ||
         (o == f->v[next].io.offset_bytes && r->seq < f->v[next].seq)))
      next = i;
  }
  double expire = dir ? v->write_expire_s : v->read_expire_s;
  if (batch_start && t - f->v[oldest].t_s >= expire)
    return oldest;
  return next < f->n ? next : low;
}

/* Dispatch to member m's drive while it has a free tag (volume
 * queue_depth: libata's NCQ tags).  Direction as deadline_dispatch_requests:
 * a batch continues in its direction for up to fifo_batch requests; a new
 * batch takes reads when some wait, unless writes have been passed over
 * writes_starved times, then writes. */
void stk_sched_dispatch(struct stack *s, int m, double t)
{
  struct stk_sched *q = &s->sched[m];
  const struct volume_params *v = &s->cfg.volume;
  while (q->inflight < (int)v->queue_depth) {
    size_t nr = q->fifo[0].n, nw = q->fifo[1].n;
    if (nr + nw == 0)
      return;
    int start = q->batch_left <= 0 || q->fifo[q->batch_dir].n == 0;
    if (start) {
      if (nr > 0 && !(nw > 0 && q->starved >= (int)v->writes_starved)) {
        q->batch_dir = 0;
        if (nw > 0)
          q->starved++;
      } else {
        q->batch_dir = 1;
        q->starved = 0;
      }
      q->batch_left = (int)v->fifo_batch;
    }
    int dir = q->batch_dir;
    struct stk_sched_fifo *f = &q->fifo[dir];
    size_t i = stk_sched_pick(q, v, dir, start, t);
    struct disk_io io = f->v[i].io;
    f->v[i] = f->v[--f->n];
    q->next_pos[dir] = io.offset_bytes + io.len_bytes;
    q->batch_left--;
    q->inflight++;
    disk_submit(s->dev[m], t, &io);
  }
}

/* Queue a request for member m (its drive is s->dev[m]). */
void stk_sched_submit(struct stack *s, int m, const struct disk_io *io, double t)
{
  struct stk_sched *q = &s->sched[m];
  if (stk_sched_merge(&q->fifo[io->write ? 1 : 0], io, s->cfg.volume.max_request_bytes))
    return;
  if (stk_sched_push(q, io->write ? 1 : 0, io, t) != 0) {
    q->inflight++; /* out of memory: straight to the drive */
    disk_submit(s->dev[m], t, io);
    return;
  }
  stk_sched_dispatch(s, m, t);
}

/* Member m's drive completed a request at t: its tag is free. */
void stk_sched_done(struct stack *s, int m, double t)
{
  s->sched[m].inflight--;
  stk_sched_dispatch(s, m, t);
}

void stk_sched_free(struct stack *s)
{
  for (int m = 0; m < RAID_MAX_MEMBERS; m++)
    for (int d = 0; d < 2; d++) {
      struct stk_sched_fifo *f = &s->sched[m].fifo[d];
      for (size_t i = 0; i < f->n; i++)
        free(stk_merged_of(f->v[i].io.tag));
      free(f->v);
    }
}
