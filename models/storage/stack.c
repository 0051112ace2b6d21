/* stack.c - the block storage path as one event source.  See stack.h.
 *
 * Every unit of work below the page cache is a request (struct stk_req)
 * walking a fixed list of steps; a step either does nothing (skipped) or
 * starts work and waits until `pending` drops to 0:
 *
 *   CPU_PRE   flusher CPU cost (write-back of the page cache)
 *   CRYPT_W   AES before a write reaches the disks
 *   SSD       SSD cache: hit -> cache device I/O and skip the RAID steps
 *   PLAN      md plan; a RAID-5/6 write is cut into row groups, each taking
 *             stripe-cache entries as they free up (see stk_stripes_grant)
 *   READS     phase-1 member reads
 *   PARITY    P/Q on the parity engine or the CPU (STACK_THREAD_RAID)
 *   WRITES    phase-2 member writes
 *   SSD_FILL  a read miss populates the SSD cache (asynchronously)
 *   CRYPT_R   AES after a read
 *   FINISH    completion callback (client io_done, flusher, window, ...)
 *
 * Events: device completions (scanned: members are few) and a binary heap
 * of timers (engine completions, immediate completions, background-op
 * pacing, flusher and destager ticks), processed in time order; ties are
 * broken by device before timer and by insertion order among timers. */
#include "models/storage/stack_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int stk_tm_less(const struct stk_timer *a, const struct stk_timer *b)
{
  return a->t_s < b->t_s || (a->t_s == b->t_s && a->seq < b->seq);
}

void stk_tm_push(struct stack *s, double t, int kind, struct stk_req *r)
{
  if (s->nheap == s->heap_cap) {
    int cap = s->heap_cap ? 2 * s->heap_cap : 64;
    struct stk_timer *h = realloc(s->heap, (size_t)cap * sizeof *h);
    if (h == NULL)
      return; /* out of memory: the event is lost */
    s->heap = h;
    s->heap_cap = cap;
  }
  int i = s->nheap++;
  s->heap[i] = (struct stk_timer){.t_s = t, .seq = s->seq++, .kind = kind, .req = r};
  while (i > 0 && stk_tm_less(&s->heap[i], &s->heap[(i - 1) / 2])) {
    struct stk_timer x = s->heap[i];
    s->heap[i] = s->heap[(i - 1) / 2];
    s->heap[(i - 1) / 2] = x;
    i = (i - 1) / 2;
  }
}

static struct stk_timer stk_tm_pop(struct stack *s)
{
  struct stk_timer top = s->heap[0];
  s->heap[0] = s->heap[--s->nheap];
  int i = 0;
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < s->nheap && stk_tm_less(&s->heap[l], &s->heap[m]))
      m = l;
    if (r < s->nheap && stk_tm_less(&s->heap[r], &s->heap[m]))
      m = r;
    if (m == i)
      break;
    struct stk_timer x = s->heap[i];
    s->heap[i] = s->heap[m];
    s->heap[m] = x;
    i = m;
  }
  return top;
}

struct stk_req *stk_req_new(struct stack *s, int kind, uint64_t off, uint64_t len,
                                   int write)
{
  struct stk_req *r = calloc(1, sizeof *r);
  if (r == NULL)
    return NULL;
  r->lnext = s->live;
  if (s->live != NULL)
    s->live->lprev = r;
  s->live = r;
  r->kind = kind;
  r->off = off;
  r->len = len;
  r->write = write;
  return r;
}

void stk_req_free1(struct stack *s, struct stk_req *r)
{
  if (r->lprev != NULL)
    r->lprev->lnext = r->lnext;
  else
    s->live = r->lnext;
  if (r->lnext != NULL)
    r->lnext->lprev = r->lprev;
  raid_plan_free(&r->plan);
  while (r->waiters != NULL) {
    struct stk_wait *n = r->waiters;
    r->waiters = n->next;
    free(n);
  }
  free(r);
}

/* Free r and the requests riding on it. */
void stk_req_free(struct stack *s, struct stk_req *r)
{
  while (r != NULL) {
    struct stk_req *n = r->rider;
    stk_req_free1(s, r);
    r = n;
  }
}

void stk_dev_submit(struct stack *s, struct disk *d, int member, uint64_t off, uint64_t len,
                           int write, struct stk_req *r, double t)
{
  struct disk_io io = {.offset_bytes = off, .len_bytes = len, .write = write,
                       .discard = r->discard && write, .tag = (uint64_t)(uintptr_t)r};
  r->pending++;
  if (member >= 0) {
    s->pending[member]++;
    if (r->kind != RQ_BG) {
      s->last_fg_s = t;
      s->fg_bytes[member] += len; /* md's is_mddev_idle: sectors md did not issue for a sync */
    }
  }
  if (member >= 0)
    stk_elv_submit(s, member, &io, write, r, t);
  else
    disk_submit(d, t, &io);
  /* the one place a disk request's CPU cost is charged: block layer +
   * driver submit and the completion interrupt, overlapping the device's
   * service (the request waits for both) */
  stk_compute(s, r, NULL, 0, STACK_THREAD_BLOCK, s->cfg.disk_request_cycles, t);
}

/* Engine or CPU work of `cycles` (CPU) / `bytes` (engine). */
void stk_compute(struct stack *s, struct stk_req *r, struct accel *engine, double bytes,
                        enum stack_thread th, double cycles, double t)
{
  if (engine != NULL && bytes > 0) {
    r->pending++;
    stk_tm_push(s, accel_submit(engine, t, bytes), TM_REQ, r);
  } else if (engine == NULL && cycles > 0 && s->hooks.cpu_work != NULL) {
    r->pending++;
    s->hooks.cpu_work(s->hooks.ctx, th, cycles, (uint64_t)(uintptr_t)r);
  }
}

int stk_bg_active(const struct stack *s, double t)
{
  return t - s->last_fg_s < STK_IDLE_S;
}

static void stk_issue_list(struct stack *s, struct stk_req *r, const struct raid_ext_list *l,
                           int write, double t)
{
  for (int i = 0; i < l->n; i++) {
    const struct raid_ext *e = &l->v[i];
    if (e->member < 0 || e->member >= s->ndev)
      continue;
    /* the data partition lies after the system partitions */
    uint64_t base = r->sys_area ? 0 : stk_sys_bytes(&s->cfg);
    stk_dev_submit(s, s->dev[e->member], e->member, base + e->offset_bytes, e->len_bytes, write, r, t);
  }
}

static void stk_finish(struct stack *s, struct stk_req *r, double t);

void stk_run(struct stack *s, struct stk_req *r, double t)
{
  while (r->pending == 0 && r->step < ST_DONE) {
    int step = r->step++;
    switch (step) {
    case ST_CPU_PRE:
      if (r->pre_cycles > 0 && s->hooks.cpu_work != NULL) {
        r->pending++;
        s->hooks.cpu_work(s->hooks.ctx, STACK_THREAD_FLUSH, r->pre_cycles,
                          (uint64_t)(uintptr_t)r);
      }
      break;
    case ST_CRYPT_W:
      stk_crypt_write(s, r, t);
      break;
    case ST_SSD:
      stk_ssd(s, r, t);
      break;
    case ST_PLAN:
      if (r->skip_raid) {
        r->step = ST_SSD_FILL;
        break;
      }
      if (!r->planned)
        stk_plan(s, r);
      if (r->write && r->kind != RQ_BG && s->g.parity_members > 0) {
        stk_stripes_admit(s, r, t);
        if (r->step == ST_DONE)
          return; /* merged into a waiting request, which completes it */
      }
      break;
    case ST_READS:
      stk_issue_list(s, r, &r->plan.reads, 0, t);
      break;
    case ST_PARITY:
      stk_parity(s, r, t);
      break;
    case ST_WRITES:
      stk_issue_list(s, r, &r->plan.writes, 1, t);
      break;
    case ST_SSD_FILL:
      if (r->stripes_held) {
        int n = r->stripes_held;
        r->stripes_held = 0;
        stk_stripes_release(s, n, t);
      }
      if ((r->ssd_fill || r->sc_md || r->sc_job) && s->sc != NULL)
        stk_ssd_fill(s, r, t);
      break;
    case ST_CRYPT_R:
      stk_crypt_read(s, r, t);
      break;
    case ST_FINISH:
      if (r->waits > 0) { /* part of its pages are still being read ahead */
        r->parked = 1;
        r->step = ST_FINISH;
        return;
      }
      stk_finish(s, r, t);
      return; /* r is freed */
    default:
      break;
    }
  }
}

void stk_lower(struct stack *s, struct stk_req *r, double t)
{
  r->step = ST_CPU_PRE;
  stk_run(s, r, t);
}

/* The requests waiting for r (reads for a read-ahead bio's pages, an
 * fsync for a write-back) that now wait for nothing more go on. */
static void stk_release_waiters(struct stack *s, struct stk_req *r, double t)
{
  while (r->waiters != NULL) {
    struct stk_wait *n = r->waiters;
    struct stk_req *w = n->r;
    r->waiters = n->next;
    free(n);
    if (--w->waits == 0 && w->parked) {
      w->parked = 0;
      stk_run(s, w, t);
    }
  }
}

static void stk_finish(struct stack *s, struct stk_req *r, double t)
{
  r->step = ST_DONE;
  switch (r->kind) {
  case RQ_CLIENT:
  case RQ_RA:
    if (!r->write && s->pc != NULL && r->len > 0)
      pcache_insert(s->pc, r->off, r->len, 0, t);
    stk_ra_landed(s, r);
    stk_client_done(s, r, t);
    stk_release_waiters(s, r, t);
    break;
  case RQ_FLUSH:
    s->flush_inflight_bytes -= r->len;
    stk_release_waiters(s, r, t); /* an fsync waiting for this write-back (stack_fsync) */
    stk_unblock(s, t);
    stk_flush_kick(s, t);
    break;
  case RQ_BG:
    if (r->op_index == s->nops - 1) /* not a window of an operation that stopped */
      stk_op_window_done(s, r, t);
    break;
  case RQ_DESTAGE:
    s->destage_inflight--;
    stk_destage_kick(s, t);
    break;
  case RQ_ROWS: { /* a row group written: its parent may go on */
    struct stk_req *p = r->parent;
    stk_req_free(s, r);
    p->pending--;
    stk_run(s, p, t);
    return;
  }
  default:
    break;
  }
  stk_req_free(s, r);
}

static void stk_sub_done(struct stack *s, struct stk_req *r, double t)
{
  r->pending--;
  stk_run(s, r, t);
}

/* The typed values of the parameter tables' choice and flag fields
 * (doubles there: the tables hold doubles). */
static enum ssdcache_mode stk_cfg_sc_mode(const struct stack_cfg *cfg)
{
  int m = (int)cfg->ssdcache.mode;
  return m == 1 ? SSDCACHE_READ_ONLY : m == 2 ? SSDCACHE_READ_WRITE : SSDCACHE_NONE;
}

static int stk_cfg_crypt(const struct stack_cfg *cfg)
{
  return cfg->crypt.enabled > 0.5;
}

int stack_check(const struct stack_cfg *cfg, struct nw_err *err)
{
  const struct volume_params *v = &cfg->volume;
  struct raid_geom g;
  if (cfg->members == NULL)
    return nw_fail(err, NULL, 0, 0, "volume: no member disks given");
  if (!(v->system_partition_bytes >= 0) || stk_sys_bytes(cfg) >= cfg->member_bytes)
    return nw_fail(err, NULL, 0, 0, "volume: system_partitions %g B must be below the member's %llu B",
                   v->system_partition_bytes, (unsigned long long)cfg->member_bytes);
  if (raid_geom_init(&g, (int)v->level, (int)v->layout, (int)v->members, (uint64_t)v->chunk_bytes,
                     cfg->member_bytes - stk_sys_bytes(cfg), err) != 0)
    return -1;
  if (v->stripe_cache_entries < 17 || v->stripe_cache_entries > 32768)
    return nw_fail(err, NULL, 0, 0, "volume: stripe_cache_size %g must be between 17 and 32768",
                   v->stripe_cache_entries);
  if (!(v->speed_limit_min_bytes_per_s > 0) ||
      v->speed_limit_max_bytes_per_s < v->speed_limit_min_bytes_per_s)
    return nw_fail(err, NULL, 0, 0,
                   "volume: speed_limit_min %g B/s must be > 0 and <= speed_limit_max %g B/s",
                   v->speed_limit_min_bytes_per_s, v->speed_limit_max_bytes_per_s);
  if (v->iosched > 0 && v->cfq_quantum > v->queue_depth)
    return nw_fail(err, NULL, 0, 0, "volume: cfq_quantum %g must be <= queue_depth %g", v->cfq_quantum,
                   v->queue_depth);
  const struct pcache_params *p = &cfg->pcache;
  if (p->ram_bytes > 0) {
    if (p->dirty_background_ratio > p->dirty_ratio)
      return nw_fail(err, NULL, 0, 0,
                     "page_cache: dirty_background_ratio %g must be <= dirty_ratio %g",
                     p->dirty_background_ratio, p->dirty_ratio);
    if (p->ram_bytes < 1048576.0)
      return nw_fail(err, NULL, 0, 0, "page_cache: ram %g B must be 0 or >= 1 MiB", p->ram_bytes);
    if (!(p->writeback_interval_s > 0) || !(p->dirty_expire_s > 0))
      return nw_fail(err, NULL, 0, 0, "page_cache: writeback_interval and dirty_expire must be > 0");
  }
  const struct ssdcache_params *sc = &cfg->ssdcache;
  enum ssdcache_mode mode = stk_cfg_sc_mode(cfg);
  if (mode != SSDCACHE_NONE) {
    if (cfg->ncache_devs < 1 || cfg->cache_devs == NULL)
      return nw_fail(err, NULL, 0, 0, "ssd_cache: mode %s needs at least one cache device",
                     ssdcache_mode_names[mode]);
    if (mode == SSDCACHE_READ_WRITE && cfg->ncache_devs < 2)
      return nw_fail(err, NULL, 0, 0,
                     "ssd_cache: mode read-write needs 2 cache devices (mirrored), got %d",
                     cfg->ncache_devs);
    if (sc->block_bytes < 4096 || sc->capacity_bytes < sc->block_bytes)
      return nw_fail(err, NULL, 0, 0, "ssd_cache: capacity %g B must hold at least one %g B block",
                     sc->capacity_bytes, sc->block_bytes);
    if (!(sc->sector_bytes > 0) || fmod(sc->block_bytes, sc->sector_bytes) != 0 ||
        sc->block_bytes / sc->sector_bytes > 64)
      return nw_fail(err, NULL, 0, 0, "ssd_cache: sector %g B must divide the %g B block into at most 64",
                     sc->sector_bytes, sc->block_bytes);
  }
  if (stk_cfg_crypt(cfg) && cfg->crypto_engine == NULL && !(cfg->crypt.cpu_cycles_per_byte > 0))
    return nw_fail(err, NULL, 0, 0, "encryption: cpu_cycles_per_byte must be > 0 without an engine");
  return 0;
}

struct stack *stack_create(const struct stack_cfg *cfg, const struct stack_hooks *hooks,
                           struct nw_err *err)
{
  if (stack_check(cfg, err) != 0)
    return NULL;
  struct stack *s = calloc(1, sizeof *s);
  if (s == NULL) {
    nw_fail(err, NULL, 0, 0, "stack: out of memory");
    return NULL;
  }
  s->cfg = *cfg;
  if (hooks != NULL)
    s->hooks = *hooks;
  const struct volume_params *v = &cfg->volume;
  raid_geom_init(&s->g, (int)v->level, (int)v->layout, (int)v->members, (uint64_t)v->chunk_bytes,
                 cfg->member_bytes - stk_sys_bytes(cfg), NULL);
  s->ndev = (int)v->members;
  for (int i = 0; i < s->ndev; i++)
    s->dev[i] = cfg->members[i];
  s->capacity = raid_capacity_bytes(&s->g);
  s->stripes_free = (int)v->stripe_cache_entries;
  s->last_fg_s = -INFINITY;
  s->failed_at_s = -1.0;
  /* md raises a RAID-4/5/6 array's read-ahead to at least two full
   * stripes (raid5.c run(): ra_pages >= 2 * data_disks * chunk) */
  s->ra_bytes = (uint64_t)cfg->pcache.readahead_bytes;
  if (s->g.parity_members > 0 && s->ra_bytes > 0 &&
      s->ra_bytes < 2u * (uint64_t)s->g.data_members * (uint64_t)v->chunk_bytes)
    s->ra_bytes = 2u * (uint64_t)s->g.data_members * (uint64_t)v->chunk_bytes;
  if (cfg->pcache.ram_bytes > 0) {
    s->pc = pcache_create((uint64_t)cfg->pcache.ram_bytes, RAID_PAGE_BYTES * 16u);
    if (s->pc == NULL)
      goto fail;
    /* present and dirty bits per 4 KiB page, as the kernel keeps pages: a
     * 4 KiB random write or read miss caches (and takes the RAM of) one
     * page, and makes one page to write back, not a whole 64 KiB block */
    pcache_set_unit(s->pc, RAID_PAGE_BYTES);
    s->dirty_limit = (uint64_t)(cfg->pcache.dirty_ratio * cfg->pcache.ram_bytes);
    s->dirty_bg = (uint64_t)(cfg->pcache.dirty_background_ratio * cfg->pcache.ram_bytes);
  }
  s->sc_mode = stk_cfg_sc_mode(cfg);
  s->crypt_on = stk_cfg_crypt(cfg);
  if (s->sc_mode != SSDCACHE_NONE) {
    s->sc = pcache_create((uint64_t)cfg->ssdcache.capacity_bytes, (uint64_t)cfg->ssdcache.block_bytes);
    if (s->sc == NULL)
      goto fail;
    s->sc_span = (uint64_t)cfg->ssdcache.capacity_bytes;
    /* valid/dirty bits per sector, the SSD space taken per block */
    if (pcache_set_unit(s->sc, (uint64_t)cfg->ssdcache.sector_bytes) != 0 || pcache_set_slots(s->sc) != 0) {
      nw_fail(err, NULL, 0, 0, "ssd_cache: sector %g B must divide the %g B block into at most 64",
              cfg->ssdcache.sector_bytes, cfg->ssdcache.block_bytes);
      stack_destroy(s);
      return NULL;
    }
  }
  for (int i = 0; i < STK_SC_STREAMS; i++) {
    s->sc_end[i] = UINT64_MAX;
    s->sc_order[i] = (uint8_t)i;
  }
  return s;
fail:
  nw_fail(err, NULL, 0, 0, "stack: out of memory");
  stack_destroy(s);
  return NULL;
}

void stack_destroy(struct stack *s)
{
  if (s == NULL)
    return;
  while (s->live != NULL) /* requests still in flight */
    stk_req_free1(s, s->live);
  stk_elv_free(s);
  free(s->heap);
  free(s->blocked);
  free(s->ra_fly);
  pcache_destroy(s->pc);
  pcache_destroy(s->sc);
  free(s);
}

uint64_t stack_capacity_bytes(const struct stack *s)
{
  return s->capacity;
}

/* Earliest device completion: time and which device (-1 none). */
static double stk_next_dev(const struct stack *s, int *which)
{
  double best = INFINITY;
  *which = -1;
  for (int i = 0; i < s->ndev; i++) {
    double t = disk_next_completion_s(s->dev[i]);
    if (t < best) {
      best = t;
      *which = i;
    }
  }
  for (int i = 0; i < s->cfg.ncache_devs; i++) {
    double t = disk_next_completion_s(s->cfg.cache_devs[i]);
    if (t < best) {
      best = t;
      *which = RAID_MAX_MEMBERS + i;
    }
  }
  return best;
}

double stack_next_event_s(const struct stack *s)
{
  int w;
  double t = stk_next_dev(s, &w);
  if (s->nheap > 0 && s->heap[0].t_s < t)
    t = s->heap[0].t_s;
  return t;
}

static void stk_timer_fire(struct stack *s, struct stk_timer tm)
{
  switch (tm.kind) {
  case TM_REQ:
    stk_sub_done(s, tm.req, tm.t_s);
    break;
  case TM_OP: {
    struct stk_op *op = stk_op_running(s);
    if (op != NULL)
      op->timer_armed = 0;
    stk_op_pump(s, tm.t_s);
    break;
  }
  case TM_FLUSH:
    s->flush_timer = 0;
    stk_flush_kick(s, tm.t_s);
    break;
  case TM_DESTAGE:
    s->destage_timer = 0;
    stk_destage_kick(s, tm.t_s);
    break;
  default:
    break;
  }
}

void stack_advance(struct stack *s, double now_s)
{
  for (;;) {
    int w;
    double td = stk_next_dev(s, &w);
    double tt = s->nheap > 0 ? s->heap[0].t_s : INFINITY;
    if (td <= tt && td <= now_s && w >= 0) {
      struct disk *d = w < RAID_MAX_MEMBERS ? s->dev[w] : s->cfg.cache_devs[w - RAID_MAX_MEMBERS];
      struct disk_io io;
      if (!disk_pop_completion(d, td, &io))
        break; /* model promised a completion it does not deliver */
      if (w < RAID_MAX_MEMBERS) {
        s->pending[w]--;
        stk_elv_done(s, w, td);
      }
      stk_sub_done(s, (struct stk_req *)(uintptr_t)io.tag, td);
    } else if (tt <= now_s) {
      stk_timer_fire(s, stk_tm_pop(s));
    } else {
      break;
    }
  }
}

void stack_cpu_done(struct stack *s, double now_s, uint64_t token)
{
  struct stk_req *r = (struct stk_req *)(uintptr_t)token;
  if (r != NULL)
    stk_sub_done(s, r, now_s);
}
