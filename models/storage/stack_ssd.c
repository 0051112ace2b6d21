/* stack_ssd.c - the SSD cache of the storage stack, as DSM's
 * flashcache-derived cache works: admission per request (ST_SSD: read hit,
 * read miss promoted, write allocated dirty in read-write mode, sequential
 * bypass), the cache layer's CPU per I/O on its kernel thread, on-SSD
 * metadata updates when a block turns dirty or clean (ST_SSD_FILL), the
 * asynchronous promotion of a read miss and the destager.  See the README. */
#include "models/storage/stack_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


uint64_t stk_cdev_off(const struct stack *s, uint64_t off)
{
  return s->sc_span ? off % s->sc_span : 0;
}

/* Where the metadata of the block at cache-device offset cdev_off lies:
 * flashcache packs 16 B per block into metadata blocks of metadata_bytes
 * at the start of the device. */
static uint64_t stk_md_off(const struct stack *s, uint64_t cdev_off)
{
  const struct ssdcache_params *p = &s->cfg.ssdcache;
  uint64_t per_md = (uint64_t)(p->metadata_bytes / 16.0);
  uint64_t blk = cdev_off / (uint64_t)p->block_bytes;
  return per_md > 0 ? blk / per_md * (uint64_t)p->metadata_bytes : 0;
}

/* The sequential-stream detector over several interleaved streams (several
 * clients / jobs each reading sequentially): a request continuing a tracked
 * stream extends it, any other starts one in the least recently used slot.
 * Returns 1 when the stream's run now exceeds seq_bypass. */
_Static_assert(STK_SC_STREAMS <= 32, "stk_sc_sequential: a stream per bit of a uint32_t");

static int stk_sc_sequential(struct stack *s, uint64_t off, uint64_t len)
{
  uint32_t match = 0; /* bit i: stream i ends at off (no branch per stream) */
  for (int i = 0; i < STK_SC_STREAMS; i++)
    match |= (uint32_t)(s->sc_end[i] == off) << i;
  /* the first stream that ends at off, else the least recently used */
  int k = match != 0 ? __builtin_ctz(match) : s->sc_order[0];
  int p = 0; /* k becomes the most recently used */
  while (s->sc_order[p] != k)
    p++;
  memmove(&s->sc_order[p], &s->sc_order[p + 1], (size_t)(STK_SC_STREAMS - 1 - p));
  s->sc_order[STK_SC_STREAMS - 1] = (uint8_t)k;
  s->sc_run[k] = s->sc_end[k] == off ? s->sc_run[k] + len : len;
  s->sc_end[k] = off + len;
  double bypass = s->cfg.ssdcache.seq_bypass_bytes;
  return bypass > 0 && (double)s->sc_run[k] > bypass;
}

/* Destage: keep the dirty level at the threshold (one run per call below
 * the cap of runs in flight is left to stk_destage_kick); here, the
 * preconditioning's instant form: clean the oldest runs until under it. */
static void stk_sc_clean_to_threshold(struct stack *s)
{
  double lim = s->cfg.ssdcache.dirty_thresh * s->cfg.ssdcache.capacity_bytes;
  uint64_t off, len;
  while ((double)pcache_dirty_bytes(s->sc) > lim && pcache_take_dirty(s->sc, STK_DESTAGE_MAX_BYTES, &off, &len))
    ;
}

/* The directory's part of one access, without I/O (preconditioning):
 * a read miss is promoted, a write allocated dirty (read-write) or
 * invalidated (read-only), a sequential run beyond the bypass left out. */
void stk_ssd_touch(struct stack *s, uint64_t off, uint64_t len, int write, double t)
{
  if (stk_sc_sequential(s, off, len)) {
    if (write)
      pcache_invalidate(s->sc, off, len);
    return;
  }
  if (!write) {
    uint64_t hit, total;
    pcache_lookup(s->sc, off, len, 1, &hit, &total);
    if (hit < total)
      pcache_insert(s->sc, off, len, 0, t);
    return;
  }
  if (s->sc_mode != SSDCACHE_READ_WRITE || pcache_insert(s->sc, off, len, 1, t) != 0) {
    pcache_invalidate(s->sc, off, len);
    return;
  }
  stk_sc_clean_to_threshold(s);
}

/* SSD cache decision for a request (see the README). */
void stk_ssd(struct stack *s, struct stk_req *r, double t)
{
  if (s->sc == NULL || s->cfg.ncache_devs == 0)
    return;
  if (r->kind != RQ_CLIENT && r->kind != RQ_RA && r->kind != RQ_FLUSH)
    return;
  struct stack_ssdcache_stats *st = &s->sc_stats;
  /* the cache layer handles every bio it is given (set look-up, LRU,
   * remap or pass-through, completion) before it goes on: the decision
   * below runs when that CPU work is done (ST_SSD again) */
  if (!r->sc_looked && s->cfg.ssdcache_io_cycles > 0 && s->hooks.cpu_work != NULL) {
    r->sc_looked = 1;
    stk_compute(s, r, NULL, 0, STACK_THREAD_SSDCACHE, s->cfg.ssdcache_io_cycles, t);
    r->step = ST_SSD;
    return;
  }
  if (stk_sc_sequential(s, r->off, r->len)) {
    if (r->write)
      pcache_invalidate(s->sc, r->off, r->len);
    st->bypassed++;
    return;
  }
  int rw = s->sc_mode == SSDCACHE_READ_WRITE;
  if (!r->write) {
    uint64_t hit, total;
    pcache_lookup(s->sc, r->off, r->len, 1, &hit, &total);
    if (hit == total) {
      int d = s->sc_rr++ % s->cfg.ncache_devs;
      stk_dev_submit(s, s->cfg.cache_devs[d], -1, stk_cdev_off(s, r->off), r->len, 0, r, t);
      r->skip_raid = 1;
      r->sc_job = 1;
      st->read_hits++;
    } else {
      r->ssd_fill = 1;
      st->read_misses++;
    }
    return;
  }
  if (!rw) {
    pcache_invalidate(s->sc, r->off, r->len); /* write-around */
    return;
  }
  uint64_t dirtying = pcache_clean_blocks_in(s->sc, r->off, r->len);
  if (pcache_insert(s->sc, r->off, r->len, 1, t) != 0) {
    pcache_invalidate(s->sc, r->off, r->len); /* full of dirty data: write through */
    return;
  }
  for (int d = 0; d < s->cfg.ncache_devs; d++) /* mirrored */
    stk_dev_submit(s, s->cfg.cache_devs[d], -1, stk_cdev_off(s, r->off), r->len, 1, r, t);
  r->skip_raid = 1;
  r->sc_job = 1;
  r->sc_md = dirtying > 0; /* after the data: the blocks' dirty state on the SSD */
  if (dirtying > 0)
    st->write_allocs++;
  else
    st->write_hits++;
  stk_destage_kick(s, t);
}

/* Start one destage run: read it from the cache, then the array write
 * (its md plan), then the metadata update marking it clean. */
static int stk_destage_one(struct stack *s, double t)
{
  uint64_t off, len;
  if (!pcache_take_dirty(s->sc, STK_DESTAGE_MAX_BYTES, &off, &len))
    return 0;
  struct stk_req *r = stk_req_new(s, RQ_DESTAGE, off, len, 1);
  if (r == NULL)
    return 0;
  s->destage_inflight++;
  s->sc_stats.destages++;
  s->sc_stats.destaged_bytes += len;
  r->step = ST_PLAN;
  r->skip_raid = 0;
  r->sc_md = 1;
  stk_dev_submit(s, s->cfg.cache_devs[0], -1, stk_cdev_off(s, off), len, 0, r, t);
  stk_compute(s, r, NULL, 0, STACK_THREAD_SSDCACHE, s->cfg.ssdcache_io_cycles, t);
  return 1;
}

/* The destager (flashcache's cleaner): above dirty_thresh x capacity it
 * writes dirty runs back, oldest first, STK_DESTAGE_INFLIGHT at once,
 * competing with the foreground on the cache devices and the array; below
 * it only blocks dirty longer than fallow_delay go (a timer looks again
 * when the oldest one comes of age). */
void stk_destage_kick(struct stack *s, double t)
{
  if (s->sc == NULL || s->sc_mode != SSDCACHE_READ_WRITE || s->vol_failed)
    return;
  const struct ssdcache_params *p = &s->cfg.ssdcache;
  double lim = p->dirty_thresh * p->capacity_bytes;
  while (s->destage_inflight < STK_DESTAGE_INFLIGHT && pcache_dirty_bytes(s->sc) > 0) {
    double oldest = pcache_oldest_dirty_s(s->sc);
    if (!((double)pcache_dirty_bytes(s->sc) > lim) && t < oldest + p->fallow_s) {
      if (!s->destage_timer) {
        s->destage_timer = 1;
        stk_tm_push(s, oldest + p->fallow_s, TM_DESTAGE, NULL);
      }
      return;
    }
    if (!stk_destage_one(s, t))
      return;
  }
}

/* flashcache's completion of a cache-device job (a hit, a cached write):
 * flashcache_io_callback ends the client's bio and pushes the job onto the
 * pending list of the kcached work item, the cache layer's one thread,
 * which under the cache lock clears the block's in-progress state and
 * frees the job; a write that turned a block dirty gets its metadata
 * update from there (push_md_io), so that write waits for the pass, a hit
 * or a rewrite does not (the pass runs detached).  Returns 1 when r waits
 * (ST_SSD_FILL again when the pass is done). */
static int stk_sc_completion(struct stack *s, struct stk_req *r, double t)
{
  double cy = s->cfg.ssdcache_io_cycles;
  r->sc_job = 0;
  if (!(cy > 0) || s->hooks.cpu_work == NULL)
    return 0;
  if (r->sc_md) {
    stk_compute(s, r, NULL, 0, STACK_THREAD_SSDCACHE, cy, t);
    r->step = ST_SSD_FILL;
    return 1;
  }
  struct stk_req *k = stk_req_new(s, RQ_FILL, r->off, 0, 0);
  if (k == NULL)
    return 0;
  stk_compute(s, k, NULL, 0, STACK_THREAD_SSDCACHE, cy, t);
  k->step = ST_FINISH;
  return 0;
}

/* ST_SSD_FILL: the metadata update a write or destage owes (written after
 * its data, before it completes; both mirrors in read-write mode), and the
 * asynchronous promotion of a read miss: its sectors enter the directory
 * clean and are written to the cache device (both mirrors in read-write
 * mode) without the client waiting. */
void stk_ssd_fill(struct stack *s, struct stk_req *r, double t)
{
  const struct stack_cfg *c = &s->cfg;
  int rw = s->sc_mode == SSDCACHE_READ_WRITE;
  int nd = rw ? c->ncache_devs : 1;
  if (r->sc_job && stk_sc_completion(s, r, t))
    return;
  if (r->sc_md) {
    r->sc_md = 0;
    uint64_t mo = stk_md_off(s, stk_cdev_off(s, r->off));
    for (int d = 0; d < nd; d++)
      stk_dev_submit(s, c->cache_devs[d], -1, mo, (uint64_t)c->ssdcache.metadata_bytes, 1, r, t);
    s->sc_stats.metadata_writes++;
  }
  if (!r->ssd_fill)
    return;
  pcache_insert(s->sc, r->off, r->len, 0, t);
  s->sc_stats.promotions++;
  struct stk_req *f = stk_req_new(s, RQ_FILL, r->off, r->len, 1);
  if (f == NULL)
    return;
  int d0 = rw ? 0 : s->sc_rr++ % c->ncache_devs;
  for (int d = 0; d < nd; d++)
    stk_dev_submit(s, c->cache_devs[(d0 + d) % c->ncache_devs], -1, stk_cdev_off(s, r->off), r->len, 1, f, t);
  stk_compute(s, f, NULL, 0, STACK_THREAD_SSDCACHE, c->ssdcache_io_cycles, t);
  f->step = ST_FINISH;
}

void stack_ssdcache_get(const struct stack *s, struct stack_ssdcache_stats *out)
{
  memset(out, 0, sizeof *out);
  if (s == NULL || s->sc == NULL)
    return;
  *out = s->sc_stats;
  out->used_bytes = pcache_used_bytes(s->sc);
  out->dirty_bytes = pcache_dirty_bytes(s->sc);
}
