/* stack_ssd.c - the SSD cache of the storage stack: hit/miss and
 * write-allocate decision per request (ST_SSD), the asynchronous fill of a
 * read miss (ST_SSD_FILL) and the destager of a read-write cache. */
#include "models/storage/stack_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


uint64_t stk_cdev_off(const struct stack *s, uint64_t off)
{
  return s->sc_span ? off % s->sc_span : 0;
}

/* SSD cache decision for a request (see ssdcache in README). */
void stk_ssd(struct stack *s, struct stk_req *r, double t)
{
  if (s->sc == NULL || s->cfg.ncache_devs == 0)
    return;
  if (r->kind != RQ_CLIENT && r->kind != RQ_RA && r->kind != RQ_FLUSH)
    return;
  /* sequential-stream detection over several interleaved streams (several
   * clients / jobs each reading sequentially): a request continuing a
   * tracked stream extends it, any other starts one in the least recently
   * used slot */
  int k = 0;
  for (int i = 0; i < STK_SC_STREAMS; i++) {
    if (s->sc_end[i] == r->off) {
      k = i;
      break;
    }
    if (s->sc_used[i] < s->sc_used[k])
      k = i;
  }
  s->sc_run[k] = s->sc_end[k] == r->off ? s->sc_run[k] + r->len : r->len;
  s->sc_end[k] = r->off + r->len;
  s->sc_used[k] = ++s->sc_clock;
  double bypass = s->cfg.ssdcache.seq_bypass_bytes;
  if (bypass > 0 && (double)s->sc_run[k] > bypass) {
    if (r->write)
      pcache_invalidate(s->sc, r->off, r->len);
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
    } else {
      r->ssd_fill = 1;
    }
    return;
  }
  if (!rw) {
    pcache_invalidate(s->sc, r->off, r->len);
    return;
  }
  if (pcache_insert(s->sc, r->off, r->len, 1, t) != 0) {
    pcache_invalidate(s->sc, r->off, r->len); /* full of dirty data: write through */
    return;
  }
  for (int d = 0; d < s->cfg.ncache_devs; d++) /* mirrored */
    stk_dev_submit(s, s->cfg.cache_devs[d], -1, stk_cdev_off(s, r->off), r->len, 1, r, t);
  r->skip_raid = 1;
  stk_destage_kick(s, t);
}

void stk_destage_kick(struct stack *s, double t)
{
  if (s->sc == NULL || s->sc_mode != SSDCACHE_READ_WRITE || s->vol_failed)
    return;
  uint64_t dirty = pcache_dirty_bytes(s->sc);
  if (dirty == 0 || s->destage_inflight > 0)
    return;
  /* destage while the array is idle, or always once half the cache is dirty */
  if (stk_bg_active(s, t) && (double)dirty < STK_DESTAGE_DIRTY_FRAC * s->cfg.ssdcache.capacity_bytes) {
    if (!s->destage_timer) {
      s->destage_timer = 1;
      stk_tm_push(s, t + STK_IDLE_S, TM_DESTAGE, NULL);
    }
    return;
  }
  uint64_t off, len;
  if (!pcache_take_dirty(s->sc, STK_DESTAGE_MAX_BYTES, &off, &len))
    return;
  struct stk_req *r = stk_req_new(s, RQ_DESTAGE, off, len, 1);
  if (r == NULL)
    return;
  s->destage_inflight++;
  r->step = ST_PLAN;
  r->skip_raid = 0;
  stk_dev_submit(s, s->cfg.cache_devs[0], -1, stk_cdev_off(s, off), len, 0, r, t);
}

/* ST_SSD_FILL of a read miss: the blocks enter the directory clean and are
 * written to the cache device (both mirrors in read-write mode), without
 * the client waiting. */
void stk_ssd_fill(struct stack *s, struct stk_req *r, double t)
{
  const struct stack_cfg *c = &s->cfg;
  pcache_insert(s->sc, r->off, r->len, 0, t);
  struct stk_req *f = stk_req_new(s, RQ_FILL, r->off, r->len, 1);
  if (f == NULL)
    return;
  int rw = s->sc_mode == SSDCACHE_READ_WRITE;
  int nd = rw ? c->ncache_devs : 1;
  int d0 = rw ? 0 : s->sc_rr++ % c->ncache_devs;
  for (int d = 0; d < nd; d++)
    stk_dev_submit(s, c->cache_devs[(d0 + d) % c->ncache_devs], -1, stk_cdev_off(s, r->off), r->len, 1, f, t);
  f->step = ST_FINISH;
}
