/* stack_pcache.c - the NAS page cache in the storage stack: buffered
 * writes absorbed up to the dirty limit (writers beyond it wait), the
 * write-back flusher, reads trimmed to the pages not cached nor under a
 * read-ahead in flight, and per-stream read-ahead.  stack_submit is the
 * entry of every client request. */
#include "models/storage/stack_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


void stk_client_done(struct stack *s, struct stk_req *r, double t)
{
  for (struct stk_req *x = r; x != NULL; x = x->rider) {
    if (x->kind != RQ_CLIENT)
      continue;
    if (s->vol_failed && s->hooks.io_error != NULL) /* md ends the bio with -EIO */
      s->hooks.io_error(s->hooks.ctx, t, x->tag);
    else if (s->hooks.io_done != NULL)
      s->hooks.io_done(s->hooks.ctx, t, x->tag);
  }
}

/* A request served from RAM (page-cache hit, write absorbed by the page
 * cache): it completes once its bytes are copied over the memory bus. */
void stk_immediate(struct stack *s, uint64_t tag, double t, uint64_t bytes)
{
  if (s->cfg.mem_bus != NULL && !s->vol_failed) /* a failed volume errs without a copy */
    t = accel_submit(s->cfg.mem_bus, t, (double)bytes);
  struct stk_req *r = stk_req_new(s, RQ_CLIENT, 0, 0, 0);
  if (r == NULL)
    return;
  r->tag = tag;
  r->step = ST_FINISH;
  r->pending = 1;
  stk_tm_push(s, t, TM_REQ, r);
}

static int stk_write_cached(struct stack *s, const struct stack_io *io, double t)
{
  if (pcache_dirty_bytes(s->pc) + io->len_bytes > s->dirty_limit)
    return 0;
  /* RAM full of dirty blocks: the writer waits for write-back too */
  if (pcache_insert(s->pc, io->offset_bytes, io->len_bytes, 1, t) != 0)
    return 0;
  stk_immediate(s, io->tag, t, io->len_bytes);
  stk_flush_kick(s, t);
  return 1;
}

void stk_unblock(struct stack *s, double t)
{
  int i = 0;
  while (i < s->nblocked && stk_write_cached(s, &s->blocked[i].io, t))
    i++;
  if (i > 0) {
    memmove(s->blocked, s->blocked + i, (size_t)(s->nblocked - i) * sizeof *s->blocked);
    s->nblocked -= i;
  }
}

void stk_flush_kick(struct stack *s, double t)
{
  if (s->pc == NULL || s->vol_failed)
    return;
  for (;;) {
    uint64_t dirty = pcache_dirty_bytes(s->pc);
    if (dirty == 0 || s->flush_inflight_bytes >= STK_FLUSH_INFLIGHT_BYTES)
      break;
    int expired = pcache_oldest_dirty_s(s->pc) + s->cfg.pcache.dirty_expire_s <= t;
    if (dirty <= s->dirty_bg && !expired && s->nblocked == 0)
      break;
    uint64_t off, len;
    if (!pcache_take_dirty_sweep(s->pc, STK_FLUSH_MAX_BYTES, &off, &len))
      break;
    struct stk_req *r = stk_req_new(s, RQ_FLUSH, off, len, 1);
    if (r == NULL)
      break;
    /* per request: ext4 block mapping, bio build and submit, completion;
     * per byte: the pages' locking, tagging and end of write-back */
    r->pre_cycles = s->cfg.pcache.flush_cycles_per_request +
                    (double)len * s->cfg.pcache.flush_cycles_per_byte;
    s->flush_inflight_bytes += len;
    stk_lower(s, r, t);
  }
  if (pcache_dirty_bytes(s->pc) > 0 && !s->flush_timer) {
    s->flush_timer = 1;
    stk_tm_push(s, t + s->cfg.pcache.writeback_interval_s, TM_FLUSH, NULL);
  }
}

/* The read-ahead in flight holding byte x, NULL if none. */
static struct stk_req *stk_ra_holding(struct stack *s, uint64_t x)
{
  for (int k = 0; k < STK_RA_STREAMS; k++) {
    struct stk_req *q = s->ra[k].req;
    if (q != NULL && x >= q->off && x < q->off + q->len)
      return q;
  }
  return NULL;
}

/* 1 if the page holding byte x is cached (no LRU touch). */
static int stk_page_cached(struct stack *s, uint64_t x)
{
  uint64_t pg = pcache_unit_bytes(s->pc), hit, total;
  pcache_lookup(s->pc, x - x % pg, pg, 0, &hit, &total);
  return hit == total;
}

/* Shrink the read [*a, *b) to the part that must come from the disks:
 * cached pages and pages under one read-ahead in flight are cut from
 * both ends (what is read is what becomes cached, stk_finish).  Returns that read-ahead (the read must wait for it too) or
 * NULL; *a >= *b when nothing is left to read. */
static struct stk_req *stk_read_trim(struct stack *s, uint64_t *a, uint64_t *b)
{
  uint64_t pg = pcache_unit_bytes(s->pc);
  struct stk_req *wait = NULL, *q;
  while (*a < *b) {
    if (stk_page_cached(s, *a)) {
      *a = *a - *a % pg + pg;
    } else if ((q = stk_ra_holding(s, *a)) != NULL && (wait == NULL || wait == q)) {
      wait = q;
      *a = q->off + q->len;
    } else {
      break;
    }
  }
  while (*a < *b) {
    if (stk_page_cached(s, *b - 1)) {
      *b = (*b - 1) - (*b - 1) % pg;
    } else if ((q = stk_ra_holding(s, *b - 1)) != NULL && (wait == NULL || wait == q)) {
      wait = q;
      *b = q->off;
    } else {
      break;
    }
  }
  return wait;
}

void stack_submit(struct stack *s, double now_s, const struct stack_io *io)
{
  uint64_t off = io->offset_bytes, len = io->len_bytes;
  if (len == 0 || off >= s->capacity || s->vol_failed) { /* failed: an error at once */
    stk_immediate(s, io->tag, now_s, io->len_bytes);
    return;
  }
  if (off + len > s->capacity)
    len = s->capacity - off;
  if (io->discard) {
    stk_discard(s, io, off, len, now_s);
    return;
  }
  if (io->write) {
    if (s->pc != NULL && !io->sync && !io->direct) {
      if (s->nblocked > 0 || !stk_write_cached(s, io, now_s)) {
        if (s->nblocked == s->blocked_cap) {
          int cap = s->blocked_cap ? 2 * s->blocked_cap : 16;
          struct blocked_write *b = realloc(s->blocked, (size_t)cap * sizeof *b);
          if (b == NULL)
            return;
          s->blocked = b;
          s->blocked_cap = cap;
        }
        s->blocked[s->nblocked++].io = *io;
        stk_flush_kick(s, now_s);
      }
      return;
    }
    if (s->pc != NULL && io->direct) /* O_DIRECT: the cached copy is stale */
      pcache_invalidate(s->pc, off, len);
    else if (s->pc != NULL) /* sync write: write-through, the page stays cached clean */
      pcache_insert(s->pc, off, len, 0, now_s);
    struct stk_req *r = stk_req_new(s, RQ_CLIENT, off, len, 1);
    if (r == NULL)
      return;
    r->tag = io->tag;
    r->sync = 1;
    stk_lower(s, r, now_s);
    return;
  }
  if (s->pc == NULL || io->direct) {
    struct stk_req *r = stk_req_new(s, RQ_CLIENT, off, len, 0);
    if (r == NULL)
      return;
    r->tag = io->tag;
    stk_lower(s, r, now_s);
    return;
  }
  uint64_t hit, total;
  pcache_lookup(s->pc, off, len, 1, &hit, &total);
  /* the stream this read continues, else the least recently used slot */
  struct stk_ra *st = NULL, *lru = &s->ra[0];
  for (int k = 0; k < STK_RA_STREAMS; k++) {
    if (s->ra[k].last_end == off && s->ra[k].used > 0) {
      st = &s->ra[k];
      break;
    }
    if (s->ra[k].used < lru->used)
      lru = &s->ra[k];
  }
  int seq = st != NULL;
  if (!seq) {
    st = lru;
    if (st->req == NULL) /* a slot with read-ahead in flight keeps it until it lands */
      st->ra_end = off + len;
  }
  st->last_end = off + len;
  st->used = ++s->ra_clock;
  uint64_t ra = s->ra_bytes;
  struct stk_req *inflight = NULL;
  for (int k = 0; k < STK_RA_STREAMS && inflight == NULL; k++)
    if (s->ra[k].req != NULL && off >= s->ra[k].req->off && off + len <= s->ra[k].req->off + s->ra[k].req->len)
      inflight = s->ra[k].req;
  struct stk_req *r = NULL;
  if (hit == total) {
    stk_immediate(s, io->tag, now_s, io->len_bytes);
  } else if (inflight != NULL) {
    r = stk_req_new(s, RQ_CLIENT, off, len, 0); /* wait for the read-ahead in flight */
    if (r == NULL)
      return;
    r->tag = io->tag;
    r->step = ST_DONE;
    struct stk_req **tail = &inflight->rider;
    while (*tail != NULL)
      tail = &(*tail)->rider;
    *tail = r;
    r = NULL;
  } else {
    /* read from the disks only the pages neither cached nor being read
     * ahead (Linux reads, and eCryptfs decrypts, each missing page once;
     * pages under read-ahead are waited on, not read again) */
    uint64_t a = off, b = off + len;
    struct stk_req *wait = stk_read_trim(s, &a, &b);
    r = stk_req_new(s, RQ_CLIENT, a < b ? a : off, a < b ? b - a : 0, 0);
    if (r == NULL)
      return;
    r->tag = io->tag;
    if (a >= b && wait != NULL) { /* everything missing is in flight: ride on it */
      r->step = ST_DONE;
      struct stk_req **tail = &wait->rider;
      while (*tail != NULL)
        tail = &(*tail)->rider;
      *tail = r;
      r = NULL;
    } else if (a >= b) {
      stk_req_free1(s, r);
      stk_immediate(s, io->tag, now_s, io->len_bytes);
      r = NULL;
    } else {
      if (wait != NULL) {
        r->waits = 1;
        r->wnext = wait->waiters;
        wait->waiters = r;
      }
      stk_lower(s, r, now_s);
    }
  }
  /* asynchronous read-ahead (mm/readahead.c, simplified to a fixed window
   * per stream): a sequential reader that gets within half a window of the
   * end of its read-ahead issues the next window */
  if (ra > 0 && seq && st->req == NULL && st->ra_end < off + len + ra / 2 && st->ra_end < s->capacity) {
    uint64_t start = st->ra_end > off + len ? st->ra_end : off + len;
    uint64_t rlen = ra;
    if (start + rlen > s->capacity)
      rlen = s->capacity - start;
    struct stk_req *a = stk_req_new(s, RQ_RA, start, rlen, 0);
    if (a != NULL) {
      st->req = a;
      st->ra_end = start + rlen;
      stk_lower(s, a, now_s);
    }
  }
}

int stack_read_cached(struct stack *s, uint64_t offset_bytes, uint64_t len_bytes)
{
  if (len_bytes == 0 || offset_bytes >= s->capacity)
    return 1; /* completes at once, as in stack_submit */
  if (s->pc == NULL)
    return 0;
  if (offset_bytes + len_bytes > s->capacity)
    len_bytes = s->capacity - offset_bytes;
  uint64_t hit, total;
  pcache_lookup(s->pc, offset_bytes, len_bytes, 0, &hit, &total);
  return hit == total;
}

uint64_t stack_dirty_bytes(const struct stack *s)
{
  return s->pc != NULL ? pcache_dirty_bytes(s->pc) : 0;
}

uint64_t stack_dirty_bytes_in(const struct stack *s, uint64_t off, uint64_t len)
{
  return s->pc != NULL ? pcache_dirty_bytes_in(s->pc, off, len) : 0;
}
