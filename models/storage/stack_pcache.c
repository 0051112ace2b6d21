/* stack_pcache.c - the NAS page cache in the storage stack: buffered
 * writes absorbed up to the dirty limit (writers beyond it wait), the
 * write-back flusher, and reads trimmed to the pages neither cached nor
 * being read in (read-ahead itself: stack_ra.c).  stack_submit is the
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

double stack_start_writeback(struct stack *s, double now_s, uint64_t offset_bytes, uint64_t len_bytes)
{
  double cycles = 0.0;
  uint64_t off, len;
  if (s->pc == NULL || s->vol_failed)
    return 0.0;
  while (pcache_take_dirty_in(s->pc, offset_bytes, len_bytes, STK_FLUSH_MAX_BYTES, &off, &len)) {
    struct stk_req *r = stk_req_new(s, RQ_FLUSH, off, len, 1);
    if (r == NULL)
      break;
    /* the same work as the flusher's (stk_flush_kick), on the caller's thread */
    cycles += s->cfg.pcache.flush_cycles_per_request + (double)len * s->cfg.pcache.flush_cycles_per_byte;
    s->flush_inflight_bytes += len;
    stk_lower(s, r, now_s);
  }
  return cycles;
}

/* Shrink the read [*a, *b) to the part that must come from the disks:
 * cached pages (a run of them at a time, pcache_present_run_end/start)
 * and pages under read-ahead bios in flight are cut from both ends (what
 * is read is what becomes cached, stk_finish; in-flight pages in the
 * middle are read again).  The bios cut are stored in wait[] (at
 * most STK_TRIM_WAITS; the read must wait for them too) and counted in
 * the return value; *a >= *b when nothing is left to read. */
int stk_read_trim(struct stack *s, uint64_t *a, uint64_t *b, struct stk_req **wait)
{
  int n = 0;
  struct stk_req *q;
  while (*a < *b) {
    uint64_t x = pcache_present_run_end(s->pc, *a, *b); /* past the cached pages */
    if (x != *a) {
      *a = x;
    } else if (n < STK_TRIM_WAITS && (q = stk_ra_holding(s, *a)) != NULL) {
      wait[n++] = q;
      *a = q->off + q->len;
    } else {
      break;
    }
  }
  while (*a < *b) {
    uint64_t y = pcache_present_run_start(s->pc, *b, *a); /* before the cached pages */
    if (y != *b) {
      *b = y;
    } else if (n < STK_TRIM_WAITS && (q = stk_ra_holding(s, *b - 1)) != NULL) {
      wait[n++] = q;
      *b = q->off;
    } else {
      break;
    }
  }
  return n;
}

/* r completes only once each of the n requests in wait[] has landed (read-ahead bios a
 * read needs, the write-back an fsync waits for). */
static int stk_wait_for(struct stk_req *r, struct stk_req **wait, int n)
{
  for (int k = 0; k < n; k++) {
    struct stk_wait *w = malloc(sizeof *w);
    if (w == NULL)
      return -1;
    w->r = r;
    w->next = wait[k]->waiters;
    wait[k]->waiters = w;
    r->waits++;
  }
  return 0;
}

/* fsync of a file's range (stack.h): its dirty pages written back now
 * (filemap_write_and_wait_range: the same requests as the flusher's),
 * the write-back of the range in flight waited for too, then the journal
 * commit of the file's metadata as one synchronous write of a metadata
 * block (jbd2's commit block; no commit when none of the range was
 * dirty: nothing to record). */
double stack_fsync(struct stack *s, double now_s, uint64_t offset_bytes, uint64_t len_bytes, uint64_t tag)
{
  if (s->pc == NULL || s->vol_failed || len_bytes == 0) {
    stk_immediate(s, tag, now_s, 0);
    return 0.0;
  }
  uint64_t end = offset_bytes + len_bytes;
  uint64_t jrn = s->capacity / 2 / STK_JOURNAL_BLOCK_BYTES * STK_JOURNAL_BLOCK_BYTES;
  struct stk_req *w = stk_req_new(s, RQ_CLIENT, jrn, STK_JOURNAL_BLOCK_BYTES, 1);
  if (w == NULL)
    return 0.0;
  w->tag = tag;
  w->sync = 1;
  double cycles = stack_start_writeback(s, now_s, offset_bytes, len_bytes);
  for (struct stk_req *q = s->live; q != NULL; q = q->lnext) {
    if (q->kind != RQ_FLUSH || q->step >= ST_DONE || q->off >= end || q->off + q->len <= offset_bytes)
      continue;
    if (stk_wait_for(w, &q, 1) != 0)
      return cycles;
  }
  if (w->waits == 0) { /* nothing dirty, nothing under write-back: done */
    stk_req_free(s, w);
    stk_immediate(s, tag, now_s, 0);
    return cycles;
  }
  w->parked = 1; /* stk_release_waiters runs it once the last write-back lands */
  return cycles;
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
  int seq;
  struct stk_ra *st = stk_ra_stream(s, off, len, &seq);
  uint64_t miss_a = 0, miss_b = 0;
  uint64_t a = off, b = off + len;
  struct stk_req *wait[STK_TRIM_WAITS];
  /* read from the disks only the pages neither cached nor being read
   * ahead (Linux reads, and eCryptfs decrypts, each missing page once;
   * pages under read-ahead are waited on, not read again) */
  int nw = hit == total ? 0 : stk_read_trim(s, &a, &b, wait);
  if (hit == total || (a >= b && nw == 0)) {
    stk_immediate(s, io->tag, now_s, io->len_bytes);
  } else {
    struct stk_req *r = stk_req_new(s, RQ_CLIENT, a < b ? a : off, a < b ? b - a : 0, 0);
    if (r == NULL || stk_wait_for(r, wait, nw) != 0)
      return;
    r->tag = io->tag;
    if (a < b) {
      miss_a = a;
      miss_b = b;
      if (stk_ra_track(s, r) != 0) /* its pages are in the cache, locked, until read */
        return;
      stk_lower(s, r, now_s);
    } else { /* every missing page is being read ahead: done when they land */
      r->step = ST_FINISH;
      r->parked = 1;
    }
  }
  stk_ra_read(s, st, seq, off, off + len, miss_a, miss_b, now_s);
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
