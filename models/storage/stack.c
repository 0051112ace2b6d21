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
#include "models/storage/stack.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models/storage/pcache.h"
#include "models/storage/raid.h"

#define STK_MAX_OPS 16
#define STK_OP_WINDOWS 4                      /* background windows in flight */
#define STK_OP_WINDOW_IDLE_BYTES (32u << 20)  /* per member, members idle (at least) */
/* On large members an idle window grows so one pass over a member is at
 * most this many windows: a 14 TB rebuild costs the same number of events
 * as a 1 TB one (windows are simulation granularity, not md's). */
#define STK_OP_WINDOWS_PER_PASS 65536u
#define STK_OP_WINDOW_BUSY_BYTES (1u << 20)   /* per member, foreground active */
#define STK_IDLE_S 0.5 /* members are "busy" if foreground I/O came within this (md checks
                          is_mddev_idle and sleeps 500 ms) */
#define STK_RA_STREAMS 32 /* sequential readers tracked at once */
#define STK_FLUSH_MAX_BYTES (4u << 20) /* one write-back request (MAX_WRITEBACK_PAGES 1024) */
/* Write-back in flight: the flusher submits a pass of pages without
 * waiting for them (fs-writeback.c), so scattered dirty pages are many
 * small bios queued at md at once; md's stripe cache and the member
 * queues bound them further down.  Four largest requests' worth. */
#define STK_FLUSH_INFLIGHT_BYTES (4u * STK_FLUSH_MAX_BYTES)
#define STK_DESTAGE_MAX_BYTES (1u << 20)
#define STK_MERGE_MAX_BYTES (4u << 20)
#define STK_STRIPE_GROUPS 4 /* row groups the stripe cache holds at least (see stk_stripes_grant) */
#define STK_SC_STREAMS 16          /* sequential streams the SSD cache tracks at once */
#define STK_DESTAGE_DIRTY_FRAC 0.5 /* destage under load once this fraction is dirty */

enum stk_step {
  ST_CPU_PRE, ST_CRYPT_W, ST_SSD, ST_PLAN, ST_READS, ST_PARITY, ST_WRITES, ST_SSD_FILL,
  ST_CRYPT_R, ST_FINISH, ST_DONE
};
enum stk_kind { RQ_CLIENT, RQ_RA, RQ_FLUSH, RQ_BG, RQ_DESTAGE, RQ_FILL, RQ_ROWS };
enum stk_tm { TM_REQ, TM_OP, TM_FLUSH, TM_DESTAGE };

struct stk_req {
  int kind, step, pending, write, sync;
  uint64_t off, len; /* logical range (cache/raid level) */
  uint64_t tag;      /* RQ_CLIENT: client cookie */
  int skip_raid, ssd_fill, planned, stripes_held;
  double pre_cycles;
  struct raid_plan plan;
  struct stk_req *rider;  /* client requests completed with this one */
  struct stk_req *waiters; /* reads that also need this read-ahead's pages (linked by wnext) */
  struct stk_req *wnext;
  int waits;              /* read-aheads in flight this read still needs (see waiters) */
  int parked;             /* 1: reached FINISH while waits > 0 */
  struct stk_req *next;   /* wait queue link */
  uint64_t op_units;      /* RQ_BG: progress units of this window */
  int op_index;           /* RQ_BG: the operation (index into ops) it works for */
  double stripe_heads;    /* md stripe_heads raid5d handles for this request */
  /* RAID-5/6 write: member page rows [row_next, row_end) not yet admitted to
   * the stripe cache (row_begin: the first); each admitted group is an
   * RQ_ROWS request whose parent is this one */
  uint64_t row_begin, row_next, row_end;
  struct stk_req *parent;
  struct stk_req *lprev, *lnext; /* every live request, freed by stack_destroy */
};

struct stk_timer {
  double t_s;
  uint64_t seq;
  int kind;
  struct stk_req *req;
};

struct stk_op {
  struct stack_op_cfg cfg;
  struct stack_op_report rep;
  uint64_t total, issued, done; /* progress units: member bytes (reshape: of the new layout) */
  int inflight, timer_armed, critical_done;
  double next_issue_s;
  int reshape;           /* md reshape (RESHAPE, MIGRATE RAID-1 -> 5): windowed, see stk_reshape_* */
  int sb_pending;        /* reshape: the superblock update in flight */
  uint64_t safe_bytes;   /* reshape: logical progress recorded in the superblocks (reshape_safe) */
  double checkpoint_s;   /* reshape: time of the last superblock update */
  struct stk_req *held;  /* reshape: the window's writes, waiting for its reads */
  int parts;             /* reshape: requests of the window's write phase still running */
  uint64_t unit_windows; /* reshape: md windows in the unit in flight (> 1: a batch) */
  double unit_issue_s;   /* reshape: issue time of the unit in flight */
  int unit_plain;        /* reshape: the unit in flight is one plain window (see stk_reshape_batch) */
  double window_s;       /* reshape: duration of the last plain window (0: none; < 0: skip the next) */
  struct raid_geom newg; /* reshape / migration target */
  int phase;             /* migrate RAID-1 -> 5: 0 then reshape */
  int mkfs;              /* RESYNC of a volume without redundancy: file-system creation writes */
};

struct blocked_write {
  struct stack_io io;
};

struct stack {
  struct stack_cfg cfg;
  struct stack_hooks hooks;
  struct raid_geom g;
  struct disk *dev[RAID_MAX_MEMBERS];
  int ndev;
  int pending[RAID_MAX_MEMBERS];
  uint64_t capacity;
  /* timers */
  struct stk_timer *heap;
  int nheap, heap_cap;
  uint64_t seq;
  double last_fg_s;
  /* stripe cache */
  int stripes_free;
  struct stk_req *swait_head, *swait_tail;
  /* page cache */
  struct pcache *pc;
  uint64_t dirty_limit, dirty_bg;
  uint64_t flush_inflight_bytes;
  int flush_timer;
  struct blocked_write *blocked;
  int nblocked, blocked_cap;
  /* read-ahead state per sequential stream (Linux keeps it per open file) */
  struct stk_ra {
    uint64_t last_end, ra_end;
    struct stk_req *req; /* read-ahead in flight */
    uint64_t used;       /* LRU clock */
  } ra[STK_RA_STREAMS];
  uint64_t ra_clock;
  uint64_t ra_bytes;     /* effective read-ahead window */
  /* ssd cache */
  struct pcache *sc;
  uint64_t sc_end[STK_SC_STREAMS], sc_run[STK_SC_STREAMS], sc_used[STK_SC_STREAMS], sc_clock;
  uint64_t sc_span;
  int sc_rr, destage_inflight, destage_timer;
  /* background ops */
  struct stk_op ops[STK_MAX_OPS];
  int nops;
  uint64_t reshape_pos; /* logical bytes already in the new layout */
  int reshaping;
  /* volume failure (stack_fail_member): every client request errs from then on */
  int vol_failed;
  double failed_at_s;
  double lost_dirty_bytes; /* dirty cache bytes that could not be written back */
  struct stk_req *live;
};

static void stk_run(struct stack *s, struct stk_req *r, double t);
static void stk_op_pump(struct stack *s, double t);
static void stk_flush_kick(struct stack *s, double t);
static void stk_destage_kick(struct stack *s, double t);
static void stk_volume_fail(struct stack *s, double t);
static void stk_compute(struct stack *s, struct stk_req *r, struct accel *engine, double bytes,
                        enum stack_thread th, double cycles, double t);

/* ---- timers ---------------------------------------------------------- */

static int stk_tm_less(const struct stk_timer *a, const struct stk_timer *b)
{
  return a->t_s < b->t_s || (a->t_s == b->t_s && a->seq < b->seq);
}

static void stk_tm_push(struct stack *s, double t, int kind, struct stk_req *r)
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

/* ---- requests -------------------------------------------------------- */

static struct stk_req *stk_req_new(struct stack *s, int kind, uint64_t off, uint64_t len,
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

static void stk_req_free1(struct stack *s, struct stk_req *r)
{
  if (r->lprev != NULL)
    r->lprev->lnext = r->lnext;
  else
    s->live = r->lnext;
  if (r->lnext != NULL)
    r->lnext->lprev = r->lprev;
  raid_plan_free(&r->plan);
  free(r);
}

/* Free r and the requests riding on it. */
static void stk_req_free(struct stack *s, struct stk_req *r)
{
  while (r != NULL) {
    struct stk_req *n = r->rider;
    stk_req_free1(s, r);
    r = n;
  }
}

static void stk_dev_submit(struct stack *s, struct disk *d, int member, uint64_t off, uint64_t len,
                           int write, struct stk_req *r, double t)
{
  struct disk_io io = {.offset_bytes = off, .len_bytes = len, .write = write,
                       .tag = (uint64_t)(uintptr_t)r};
  r->pending++;
  if (member >= 0) {
    s->pending[member]++;
    if (r->kind != RQ_BG)
      s->last_fg_s = t;
  }
  disk_submit(d, t, &io);
  /* the one place a disk request's CPU cost is charged: block layer +
   * driver submit and the completion interrupt, overlapping the device's
   * service (the request waits for both) */
  stk_compute(s, r, NULL, 0, STACK_THREAD_BLOCK, s->cfg.disk_request_cycles, t);
}

/* Engine or CPU work of `cycles` (CPU) / `bytes` (engine). */
static void stk_compute(struct stack *s, struct stk_req *r, struct accel *engine, double bytes,
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

static int stk_bg_active(const struct stack *s, double t)
{
  return t - s->last_fg_s < STK_IDLE_S;
}

static const struct raid_geom *stk_geom_for(const struct stack *s, uint64_t off)
{
  if (s->reshaping && off < s->reshape_pos)
    return &s->ops[s->nops - 1].newg;
  return &s->g;
}

static void stk_plan(struct stack *s, struct stk_req *r)
{
  const struct raid_geom *g = stk_geom_for(s, r->off);
  raid_plan_reset(&r->plan);
  if (r->write)
    raid_plan_write(g, r->off, r->len, &r->plan);
  else
    raid_plan_read(g, r->off, r->len, s->pending, &r->plan);
  r->planned = 1;
}

/* md's stripe cache (raid5.c).  A stripe_head is one 4 KiB page row across
 * the members; raid5_make_request takes one per row as it adds the bio
 * (raid5_get_active_stripe sleeps while the cache is full), handle_stripe
 * reads, computes parity and writes each stripe on its own, and the entry
 * is released when that stripe's member writes complete.  So a request
 * larger than the cache streams through it: its first rows are written
 * while the later ones wait for entries.
 *
 * We admit a RAID-5/6 write in row groups: as many member page rows as the
 * free entries allow (whole chunk rows, unless the request ends sooner), in
 * order; each group is an RQ_ROWS request running READS..WRITES on its
 * slice of the plan and releasing its entries when its writes are done.
 * md's plug batches the stripes released together, so their member bios
 * merge into one request per member (one group: one I/O per member).
 * Writers queue in FIFO order behind a request still waiting for rows. */

static int stk_u64_cmp(const void *a, const void *b)
{
  const uint64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Member page rows of a plan's writes (rows [row0, row1) of members'
 * offsets / 4 KiB), and how many rows of [a, b) are touched (one
 * stripe_head each); 0 if none. */
static uint64_t stk_rows_touched(const struct raid_plan *p, uint64_t a, uint64_t b)
{
  int n = p->writes.n;
  uint64_t *iv = malloc((size_t)(n > 0 ? n : 1) * 2 * sizeof *iv);
  if (iv == NULL)
    return b - a; /* out of memory: count the whole window */
  int k = 0;
  for (int i = 0; i < n; i++) {
    const struct raid_ext *e = &p->writes.v[i];
    uint64_t lo = e->offset_bytes / RAID_PAGE_BYTES;
    uint64_t hi = (e->offset_bytes + e->len_bytes + RAID_PAGE_BYTES - 1) / RAID_PAGE_BYTES;
    lo = lo > a ? lo : a;
    hi = hi < b ? hi : b;
    if (lo < hi) {
      iv[2 * k] = lo;
      iv[2 * k + 1] = hi;
      k++;
    }
  }
  qsort(iv, (size_t)k, 2 * sizeof *iv, stk_u64_cmp);
  uint64_t rows = 0, end = 0;
  for (int i = 0; i < k; i++) {
    uint64_t lo = iv[2 * i] > end ? iv[2 * i] : end;
    if (iv[2 * i + 1] > lo)
      rows += iv[2 * i + 1] - lo;
    if (iv[2 * i + 1] > end)
      end = iv[2 * i + 1];
  }
  free(iv);
  return rows;
}

/* Set r's row range from its write plan. */
static void stk_rows_init(struct stk_req *r)
{
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < r->plan.writes.n; i++) {
    const struct raid_ext *e = &r->plan.writes.v[i];
    uint64_t a = e->offset_bytes / RAID_PAGE_BYTES;
    uint64_t b = (e->offset_bytes + e->len_bytes + RAID_PAGE_BYTES - 1) / RAID_PAGE_BYTES;
    lo = a < lo ? a : lo;
    hi = b > hi ? b : hi;
  }
  r->row_begin = r->row_next = lo < hi ? lo : 0;
  r->row_end = lo < hi ? hi : 0;
}

/* The part of extent list l on member rows [a, b), appended to out. */
static uint64_t stk_slice_list(const struct raid_ext_list *l, uint64_t a, uint64_t b,
                               struct raid_ext_list *out)
{
  uint64_t lo_b = a * RAID_PAGE_BYTES, hi_b = b * RAID_PAGE_BYTES, bytes = 0;
  for (int i = 0; i < l->n; i++) {
    const struct raid_ext *e = &l->v[i];
    uint64_t lo = e->offset_bytes > lo_b ? e->offset_bytes : lo_b;
    uint64_t hi = e->offset_bytes + e->len_bytes < hi_b ? e->offset_bytes + e->len_bytes : hi_b;
    if (lo < hi) {
      raid_ext_add(out, e->member, lo, hi - lo);
      bytes += hi - lo;
    }
  }
  return bytes;
}

/* Admit r's rows while entries are free; 1 once all are admitted. */
static int stk_stripes_grant(struct stack *s, struct stk_req *r, double t)
{
  uint64_t total = (uint64_t)s->cfg.volume.stripe_cache_entries;
  uint64_t unit = s->g.chunk_bytes / RAID_PAGE_BYTES;
  if (unit > total)
    unit = 1; /* a chunk row larger than the cache: row by row */
  /* at most a quarter of the cache per group, so that rows freed by one
   * group are computed while three others are being written */
  uint64_t most = total / STK_STRIPE_GROUPS;
  most -= most % unit;
  most = most > unit ? most : unit;
  while (r->row_next < r->row_end) {
    uint64_t free = (uint64_t)s->stripes_free < most ? (uint64_t)s->stripes_free : most;
    uint64_t end = r->row_next + free;
    if (end >= r->row_end) {
      end = r->row_end;
    } else {
      end -= end % unit; /* whole chunk rows */
      if (end <= r->row_next)
        return 0;
    }
    uint64_t a = r->row_next, n = stk_rows_touched(&r->plan, a, end);
    r->row_next = end;
    if (n == 0)
      continue;
    struct stk_req *g = stk_req_new(s, RQ_ROWS, 0, 0, 1);
    if (g == NULL)
      continue; /* out of memory: these rows are not written */
    stk_slice_list(&r->plan.reads, a, end, &g->plan.reads);
    uint64_t wb = stk_slice_list(&r->plan.writes, a, end, &g->plan.writes);
    uint64_t all = raid_ext_bytes(&r->plan.writes, -1);
    double share = all > 0 ? (double)wb / (double)all : 0;
    g->plan.p_bytes = r->plan.p_bytes * share;
    g->plan.q_bytes = r->plan.q_bytes * share;
    g->planned = 1;
    g->stripes_held = (int)n;
    g->stripe_heads = (double)n;
    g->parent = r;
    g->step = ST_READS;
    s->stripes_free -= (int)n;
    r->pending++;
    stk_run(s, g, t);
  }
  return 1;
}

/* Coalesce a write into the tail of the stripe wait queue when contiguous
 * and none of the tail's rows is admitted yet. */
static int stk_try_merge(struct stack *s, struct stk_req *r)
{
  struct stk_req *q = s->swait_tail;
  if (q == NULL || q->kind != RQ_CLIENT || r->kind != RQ_CLIENT || !q->write ||
      q->row_next != q->row_begin || q->off + q->len != r->off ||
      q->len + r->len > STK_MERGE_MAX_BYTES || r->rider != NULL)
    return 0;
  q->len += r->len;
  stk_plan(s, q);
  stk_rows_init(q);
  struct stk_req **tail = &q->rider;
  while (*tail != NULL)
    tail = &(*tail)->rider;
  *tail = r;
  r->step = ST_DONE; /* completed by q */
  return 1;
}

/* A RAID-5/6 write at PLAN: admit what fits, queue for the rest. */
static void stk_stripes_admit(struct stack *s, struct stk_req *r, double t)
{
  stk_rows_init(r);
  r->step = ST_SSD_FILL; /* its I/O is done by its row groups */
  r->pending++;          /* held while admitting (and waiting) */
  if (s->swait_head == NULL && stk_stripes_grant(s, r, t)) {
    r->pending--;
    return;
  }
  if (stk_try_merge(s, r)) {
    r->pending--;
    return;
  }
  if (s->swait_tail)
    s->swait_tail->next = r;
  else
    s->swait_head = r;
  s->swait_tail = r;
}

static void stk_stripes_release(struct stack *s, int n, double t)
{
  s->stripes_free += n;
  while (s->swait_head != NULL) {
    struct stk_req *w = s->swait_head;
    if (!stk_stripes_grant(s, w, t))
      break;
    s->swait_head = w->next;
    if (s->swait_head == NULL)
      s->swait_tail = NULL;
    w->next = NULL;
    w->pending--;
    stk_run(s, w, t);
  }
}

static uint64_t stk_cdev_off(const struct stack *s, uint64_t off)
{
  return s->sc_span ? off % s->sc_span : 0;
}

/* SSD cache decision for a request (see ssdcache in README). */
static void stk_ssd(struct stack *s, struct stk_req *r, double t)
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
  int rw = (int)s->cfg.ssdcache.mode == 2;
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

static void stk_issue_list(struct stack *s, struct stk_req *r, const struct raid_ext_list *l,
                           int write, double t)
{
  for (int i = 0; i < l->n; i++) {
    const struct raid_ext *e = &l->v[i];
    if (e->member < 0 || e->member >= s->ndev)
      continue;
    stk_dev_submit(s, s->dev[e->member], e->member, e->offset_bytes, e->len_bytes, write, r, t);
  }
}

static void stk_finish(struct stack *s, struct stk_req *r, double t);

static void stk_run(struct stack *s, struct stk_req *r, double t)
{
  const struct stack_cfg *c = &s->cfg;
  int crypt = c->crypt.enabled > 0.5 && (r->kind == RQ_CLIENT || r->kind == RQ_RA ||
                                         r->kind == RQ_FLUSH);
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
      if (crypt && r->write)
        stk_compute(s, r, c->crypto_engine, (double)r->len, STACK_THREAD_CRYPT,
                    (double)r->len * c->crypt.cpu_cycles_per_byte, t);
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
    case ST_PARITY: {
      double pb = r->plan.p_bytes, qb = r->plan.q_bytes;
      /* raid5d walks every stripe_head on the CPU, engine or not */
      double sh = r->stripe_heads * (c->stripe_cycles + c->stripe_dev_cycles * (double)s->g.members);
      if (c->parity_engine != NULL) {
        stk_compute(s, r, c->parity_engine, pb + qb, STACK_THREAD_RAID, 0, t);
        stk_compute(s, r, NULL, 0, STACK_THREAD_RAID, sh, t);
      } else {
        stk_compute(s, r, NULL, 0, STACK_THREAD_RAID,
                    pb * c->volume.parity_cycles_per_byte + qb * c->volume.q_cycles_per_byte + sh, t);
      }
      break;
    }
    case ST_WRITES:
      stk_issue_list(s, r, &r->plan.writes, 1, t);
      break;
    case ST_SSD_FILL:
      if (r->stripes_held) {
        int n = r->stripes_held;
        r->stripes_held = 0;
        stk_stripes_release(s, n, t);
      }
      if (r->ssd_fill && s->sc != NULL) {
        pcache_insert(s->sc, r->off, r->len, 0, t);
        struct stk_req *f = stk_req_new(s, RQ_FILL, r->off, r->len, 1);
        if (f != NULL) {
          int rw = (int)c->ssdcache.mode == 2;
          int nd = rw ? c->ncache_devs : 1;
          int d0 = rw ? 0 : s->sc_rr++ % c->ncache_devs;
          for (int d = 0; d < nd; d++)
            stk_dev_submit(s, c->cache_devs[(d0 + d) % c->ncache_devs], -1,
                           stk_cdev_off(s, r->off), r->len, 1, f, t);
          f->step = ST_FINISH;
        }
      }
      break;
    case ST_CRYPT_R:
      /* CBC decryption: the engine pipelines blocks (speedup over its
       * encryption rate), the CPU path has its own cycles per byte */
      if (crypt && !r->write) {
        double sp = c->crypto_engine_decrypt_speedup > 1 ? c->crypto_engine_decrypt_speedup : 1;
        double cpb = c->crypt.cpu_decrypt_cycles_per_byte > 0 ? c->crypt.cpu_decrypt_cycles_per_byte
                                                              : c->crypt.cpu_cycles_per_byte;
        stk_compute(s, r, c->crypto_engine, (double)r->len / sp, STACK_THREAD_CRYPT,
                    (double)r->len * cpb, t);
      }
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

/* ---- page cache ------------------------------------------------------ */

static void stk_client_done(struct stack *s, struct stk_req *r, double t)
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

static void stk_lower(struct stack *s, struct stk_req *r, double t)
{
  r->step = ST_CPU_PRE;
  stk_run(s, r, t);
}

/* A request served from RAM (page-cache hit, write absorbed by the page
 * cache): it completes once its bytes are copied over the memory bus. */
static void stk_immediate(struct stack *s, uint64_t tag, double t, uint64_t bytes)
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

static void stk_unblock(struct stack *s, double t)
{
  int i = 0;
  while (i < s->nblocked && stk_write_cached(s, &s->blocked[i].io, t))
    i++;
  if (i > 0) {
    memmove(s->blocked, s->blocked + i, (size_t)(s->nblocked - i) * sizeof *s->blocked);
    s->nblocked -= i;
  }
}

static void stk_flush_kick(struct stack *s, double t)
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

/* ---- SSD cache destaging --------------------------------------------- */

static void stk_destage_kick(struct stack *s, double t)
{
  if (s->sc == NULL || (int)s->cfg.ssdcache.mode != 2 || s->vol_failed)
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

/* ---- background operations ------------------------------------------- */

/* mke2fs default journal size for a file system of cap bytes in 4 KiB
 * blocks (e2fsprogs ext2fs_default_journal_size). */
static uint64_t stk_journal_bytes(uint64_t cap)
{
  uint64_t blocks = cap / 4096, j;
  if (blocks < 2048)
    j = 0;
  else if (blocks < 32768)
    j = 1024;
  else if (blocks < 256 * 1024)
    j = 4096;
  else if (blocks < 512 * 1024)
    j = 8192;
  else if (blocks < 4096 * 1024)
    j = 16384;
  else if (blocks < 8192 * 1024)
    j = 32768;
  else if (blocks < 16384 * 1024)
    j = 65536;
  else if (blocks < 32768 * 1024)
    j = 131072;
  else
    j = 262144;
  return j * 4096;
}

static struct stk_op *stk_op_running(struct stack *s)
{
  if (s->nops > 0 && s->ops[s->nops - 1].rep.end_s < 0)
    return &s->ops[s->nops - 1];
  return NULL;
}

static void stk_op_end(struct stack *s, struct stk_op *op, double t)
{
  switch (op->cfg.kind) {
  case STACK_OP_REBUILD:
    s->g.failed_mask &= ~(1ull << op->cfg.failed_member);
    break;
  case STACK_OP_RESHAPE:
    s->g = op->newg;
    s->reshaping = 0;
    break;
  case STACK_OP_MIGRATE:
    s->g = op->newg;
    s->reshaping = 0;
    break;
  default:
    break;
  }
  op->rep.end_s = t;
  op->rep.progress = 1.0;
  s->capacity = raid_capacity_bytes(&s->g);
}

/* Build the plan of the next window: `units` of progress. */
static void stk_op_window(struct stack *s, struct stk_op *op, struct stk_req *r, uint64_t units)
{
  uint64_t pos = op->issued;
  switch (op->cfg.kind) {
  case STACK_OP_RESYNC:
    if (op->mkfs) { /* volume creation: mke2fs zeroes inode tables and journal */
      raid_plan_write(&s->g, pos, units, &r->plan);
      break;
    }
    raid_plan_resync(&s->g, pos, units, &r->plan);
    if (s->g.parity_members > 0)
      r->stripe_heads = (double)units / RAID_PAGE_BYTES;
    break;
  case STACK_OP_REBUILD:
    raid_plan_rebuild(&s->g, op->cfg.failed_member, pos, units, &r->plan);
    if (s->g.parity_members > 0)
      r->stripe_heads = (double)units / RAID_PAGE_BYTES;
    break;
  case STACK_OP_MIGRATE:
  case STACK_OP_RESHAPE:
    if (!op->reshape) { /* single -> RAID-1: md raid1 recovery copies member 0 */
      raid_ext_add(&r->plan.reads, 0, pos, units);
      raid_ext_add(&r->plan.writes, 1, pos, units);
      break;
    }
    {
      /* md reshape: read the old layout, write the new one; the first
       * window also backs up the critical section (mdadm --grow copies the
       * stripes rewritten in place before the kernel starts) */
      const struct raid_geom *o = &s->g, *n = &op->newg;
      uint64_t rd = raid_plan_reshape(o, n, pos, units, &r->plan);
      /* raid5d handles one destination stripe_head per 4 KiB row of the
       * new layout and one source stripe_head per old row it consumes */
      r->stripe_heads = (double)(units + rd) / RAID_PAGE_BYTES;
      if (!op->critical_done) {
        uint64_t crit = o->chunk_bytes * (uint64_t)o->data_members * (uint64_t)n->data_members;
        for (int m = 0; m < o->members; m++)
          raid_ext_add(&r->plan.reads, m, 0, crit / (uint64_t)o->data_members);
        raid_ext_add(&r->plan.writes, n->members - 1, n->member_bytes - crit, crit);
        op->critical_done = 1;
      }
    }
    break;
  }
}

/* md reshape window (new-layout bytes per member).  reshape_request takes
 * the destination stripe_heads of a chunk (one per 4 KiB row of the new
 * layout) and the source stripe_heads of the old rows they consume
 * (D_new/D_old per new row); raid5_get_active_stripe blocks once the stripe
 * cache is used up, so the cache bounds the reshape's work in flight.  We
 * move it as one window: read the sources, compute, write, then the next
 * (md keeps no other buffer between old and new layout).  At least one
 * chunk: md never splits one. */
static uint64_t stk_reshape_window_bytes(const struct stack *s, const struct stk_op *op)
{
  double per_row = 1.0 + (double)op->newg.data_members / (double)s->g.data_members;
  uint64_t rows = (uint64_t)(s->cfg.volume.stripe_cache_entries / per_row);
  uint64_t chunk_rows = s->g.chunk_bytes / RAID_PAGE_BYTES;
  rows -= rows % chunk_rows;
  if (rows < chunk_rows)
    rows = chunk_rows;
  return rows * RAID_PAGE_BYTES;
}

/* md raid5.c reshape_request (growing forwards, data offsets unchanged):
 * before the next window the superblocks must record reshape_position when
 * the window would write over old-layout data beyond what they record as
 * reshaped (safepos < writepos) once the reads run ahead of the writes
 * (readpos > writepos: before that, mdadm's backup covers the critical
 * section).  Positions per member; md uses one chunk as the margin, we use
 * the window.  `issued` is the new-layout position of the next window. */
static int stk_reshape_unsafe(const struct stack *s, const struct stk_op *op, uint64_t issued,
                              uint64_t w)
{
  uint64_t od = (uint64_t)s->g.data_members, nd = (uint64_t)op->newg.data_members;
  uint64_t writepos = issued + w;
  uint64_t readpos = issued * nd / od, safepos = op->safe_bytes / od;
  readpos = readpos > w ? readpos - w : 0;
  safepos = safepos > w ? safepos - w : 0;
  return safepos < writepos && readpos > writepos;
}

/* ... and in any case every reshape_checkpoint seconds. */
static int stk_reshape_need_checkpoint(const struct stack *s, const struct stk_op *op, uint64_t w,
                                       double t)
{
  return t >= op->checkpoint_s + s->cfg.volume.reshape_checkpoint_s ||
         stk_reshape_unsafe(s, op, op->issued, w);
}

/* md windows to move as one simulated unit (1: a lone window).  A 14 TB
 * member is ~10^7 md windows; identical consecutive windows are batched:
 * the unit reads the old rows of all of them and writes their new rows,
 * and stk_op_window_done holds the next unit back until each window has
 * taken the duration window_s that the last lone plain window took (its
 * read phase, then its write phase: md's serialisation).  Windows are
 * identical when the members are idle, the window is full, all of them
 * read old data or none does, and no superblock checkpoint falls between
 * them (the period and the safety rule are checked per window here; the
 * checkpoints themselves stay real).  window_s is re-measured after each
 * checkpoint.  A unit moves at most the idle window of the other
 * operations (as long as a foreground request may wait behind it); the
 * last window of the reshape is always a lone one. */
static uint64_t stk_reshape_batch(const struct stack *s, const struct stk_op *op, uint64_t w,
                                  double rate, double t)
{
  if (op->window_s <= 0 || !op->critical_done || w == 0)
    return 1;
  uint64_t nd = (uint64_t)op->newg.data_members, cap = raid_capacity_bytes(&s->g);
  uint64_t k = (op->total - op->issued) / w;
  k = k > 0 ? k - 1 : 0;
  uint64_t idle_window = s->cfg.member_bytes / STK_OP_WINDOWS_PER_PASS;
  if (idle_window < STK_OP_WINDOW_IDLE_BYTES)
    idle_window = STK_OP_WINDOW_IDLE_BYTES;
  if (k > idle_window / w)
    k = idle_window / w;
  uint64_t l0 = op->issued * nd;
  if (l0 < cap) { /* windows reading old data: all of theirs below cap */
    uint64_t kc = (cap - l0) / (w * nd);
    if (k > kc)
      k = kc;
  }
  /* the period: window k starts at t + k * max(window_s, w / rate) */
  double period = op->window_s > (double)w / rate ? op->window_s : (double)w / rate;
  double left = op->checkpoint_s + s->cfg.volume.reshape_checkpoint_s - t;
  double kt = ceil(left / period);
  if (kt < (double)k)
    k = kt > 0 ? (uint64_t)kt : 0;
  /* the safety rule turns on at one window and stays on: first such window */
  if (k >= 2 && stk_reshape_unsafe(s, op, op->issued + (k - 1) * w, w)) {
    uint64_t lo = 0, hi = k - 1; /* window lo is safe, window hi is not */
    while (hi - lo > 1) {
      uint64_t mid = lo + (hi - lo) / 2;
      if (stk_reshape_unsafe(s, op, op->issued + mid * w, w))
        hi = mid;
      else
        lo = mid;
    }
    k = hi;
  }
  return k >= 2 ? k : 1;
}

/* Superblock update, once the window in flight is done (the caller's
 * check): one 4 KiB write per member (the v1.2 superblock lies before the
 * data area; offset 0 of the member stands for it), then the members'
 * cache flush (stk_op_window_done delays the next window by it). */
static void stk_reshape_checkpoint(struct stack *s, struct stk_op *op, double t)
{
  struct stk_req *r = stk_req_new(s, RQ_BG, 0, 0, 1);
  if (r == NULL)
    return;
  for (int m = 0; m < op->newg.members; m++)
    raid_ext_add(&r->plan.writes, m, 0, RAID_PAGE_BYTES);
  r->op_units = 0;
  r->op_index = (int)(op - s->ops);
  r->planned = 1;
  r->step = ST_READS;
  op->inflight++;
  op->sb_pending = 1;
  stk_run(s, r, t);
}

static void stk_op_pump(struct stack *s, double t)
{
  struct stk_op *op = stk_op_running(s);
  if (op == NULL)
    return;
  const struct volume_params *v = &s->cfg.volume;
  while (op->inflight < (op->reshape ? 1 : STK_OP_WINDOWS) && op->issued < op->total) {
    if (t < op->next_issue_s) {
      if (!op->timer_armed) {
        op->timer_armed = 1;
        stk_tm_push(s, op->next_issue_s, TM_OP, NULL);
      }
      return;
    }
    int busy = stk_bg_active(s, t);
    uint64_t w = op->reshape ? stk_reshape_window_bytes(s, op) : 0;
    if (op->reshape && stk_reshape_need_checkpoint(s, op, w, t)) {
      stk_reshape_checkpoint(s, op, t);
      return;
    }
    /* md: above speed_limit_min, resync yields whenever the array is not
     * idle; it never goes above speed_limit_max. Rates are per member
     * (a reshape counts the new layout's sectors per member: reshape_request
     * returns reshape_sectors, which md_do_sync adds to io_sectors). */
    double rate = busy ? v->speed_limit_min_bytes_per_s : v->speed_limit_max_bytes_per_s;
    if (op->mkfs)
      rate = INFINITY; /* mke2fs writes through the page cache, not md's sync throttle */
    uint64_t idle_window = s->cfg.member_bytes / STK_OP_WINDOWS_PER_PASS;
    if (idle_window < STK_OP_WINDOW_IDLE_BYTES)
      idle_window = STK_OP_WINDOW_IDLE_BYTES;
    idle_window &= ~(uint64_t)0xfffff; /* whole MiBs */
    uint64_t units = busy ? STK_OP_WINDOW_BUSY_BYTES : idle_window;
    if (op->reshape) {
      op->unit_windows = busy ? 1 : stk_reshape_batch(s, op, w, rate, t);
      units = op->unit_windows * w;
      op->unit_issue_s = t;
    }
    if (units > op->total - op->issued)
      units = op->total - op->issued;
    if (op->reshape) { /* plain: full, not the critical section, all old rows or none */
      uint64_t nd = (uint64_t)op->newg.data_members, cap = raid_capacity_bytes(&s->g);
      uint64_t l0 = op->issued * nd, l1 = (op->issued + units) * nd;
      op->unit_plain = !busy && op->unit_windows == 1 && units == w && op->critical_done &&
                       (l1 <= cap || l0 >= cap);
      if (op->unit_windows == 1 && !op->unit_plain && op->window_s > 0)
        op->window_s = 0;
    }
    struct stk_req *r = stk_req_new(s, RQ_BG, 0, 0, 1);
    if (r == NULL)
      return;
    stk_op_window(s, op, r, units);
    r->op_units = units;
    r->op_index = (int)(op - s->ops);
    r->planned = 1;
    r->step = ST_READS;
    if (op->reshape) { /* read phase first; the rest waits in op->held */
      struct stk_req *rd = stk_req_new(s, RQ_BG, 0, 0, 0);
      if (rd == NULL) {
        stk_req_free(s, r);
        return;
      }
      struct raid_ext_list tmp = rd->plan.reads;
      rd->plan.reads = r->plan.reads;
      r->plan.reads = tmp;
      rd->planned = 1;
      rd->step = ST_READS;
      rd->op_index = r->op_index;
      op->held = r;
      r = rd;
    }
    op->issued += units;
    op->inflight++;
    op->next_issue_s = (op->next_issue_s > t ? op->next_issue_s : t) + (double)units / rate;
    stk_run(s, r, t);
  }
}

static void stk_op_window_done(struct stack *s, struct stk_req *r, double t)
{
  struct stk_op *op = stk_op_running(s);
  if (op == NULL)
    return;
  if (op->held != NULL) {
    /* reads done: md handles the stripes one by one, so parity (and the
     * raid5d walk) of a stripe overlaps the writes of those before it; we
     * run the window's compute beside its writes */
    struct stk_req *w = op->held, *c = stk_req_new(s, RQ_BG, 0, 0, 1);
    op->held = NULL;
    op->parts = c != NULL ? 2 : 1;
    w->step = ST_WRITES;
    if (c != NULL) {
      c->op_index = w->op_index;
      c->plan.p_bytes = w->plan.p_bytes;
      c->plan.q_bytes = w->plan.q_bytes;
      c->stripe_heads = w->stripe_heads;
      w->plan.p_bytes = w->plan.q_bytes = 0;
      w->stripe_heads = 0;
      c->planned = 1;
      c->step = ST_PARITY;
      stk_run(s, c, t);
    }
    stk_run(s, w, t);
    return;
  }
  op->done += r->op_units;
  if (op->parts > 0 && --op->parts > 0)
    return;
  op->inflight--;
  if (op->sb_pending) { /* superblocks written: flush, then the next window */
    op->sb_pending = 0;
    op->safe_bytes = op->done * (uint64_t)op->newg.data_members;
    op->checkpoint_s = t;
    op->rep.checkpoints++;
    /* measure a lone window again, but not the first: it pays what the
     * superblock write left on the members (a broken sequential stream) */
    op->window_s = -1;
    double flushed = t + s->cfg.volume.superblock_flush_s;
    if (op->next_issue_s < flushed)
      op->next_issue_s = flushed;
  } else if (op->reshape) { /* one window at a time: they finish in order */
    if (op->unit_windows > 1) { /* a batch: each of its windows takes window_s */
      double end = op->unit_issue_s + (double)op->unit_windows * op->window_s;
      if (op->next_issue_s < end)
        op->next_issue_s = end;
    } else if (op->unit_plain) { /* the first after a checkpoint is not typical */
      op->window_s = op->window_s < 0 ? 0 : t - op->unit_issue_s;
    }
    uint64_t cap = raid_capacity_bytes(&s->g);
    uint64_t pos = op->done * (uint64_t)op->newg.data_members;
    s->reshape_pos = pos < cap ? pos : cap;
  }
  op->rep.progress = op->total ? (double)op->done / (double)op->total : 1.0;
  if (op->done >= op->total && op->inflight == 0)
    stk_op_end(s, op, t);
  else
    stk_op_pump(s, t);
}

/* ---- completion ------------------------------------------------------ */

static void stk_finish(struct stack *s, struct stk_req *r, double t)
{
  r->step = ST_DONE;
  switch (r->kind) {
  case RQ_CLIENT:
  case RQ_RA:
    if (!r->write && s->pc != NULL && r->len > 0)
      pcache_insert(s->pc, r->off, r->len, 0, t);
    for (int k = 0; k < STK_RA_STREAMS; k++)
      if (s->ra[k].req == r)
        s->ra[k].req = NULL;
    stk_client_done(s, r, t);
    for (struct stk_req *w = r->waiters, *wn; w != NULL; w = wn) {
      wn = w->wnext;
      w->wnext = NULL;
      if (--w->waits == 0 && w->parked) {
        w->parked = 0;
        stk_run(s, w, t);
      }
    }
    r->waiters = NULL;
    break;
  case RQ_FLUSH:
    s->flush_inflight_bytes -= r->len;
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

/* ---- public ---------------------------------------------------------- */

int stack_check(const struct stack_cfg *cfg, struct nw_err *err)
{
  const struct volume_params *v = &cfg->volume;
  struct raid_geom g;
  if (cfg->members == NULL)
    return nw_fail(err, NULL, 0, 0, "volume: no member disks given");
  if (raid_geom_init(&g, (int)v->level, (int)v->layout, (int)v->members, (uint64_t)v->chunk_bytes,
                     cfg->member_bytes, err) != 0)
    return -1;
  if (v->stripe_cache_entries < 17 || v->stripe_cache_entries > 32768)
    return nw_fail(err, NULL, 0, 0, "volume: stripe_cache_size %g must be between 17 and 32768",
                   v->stripe_cache_entries);
  if (!(v->speed_limit_min_bytes_per_s > 0) ||
      v->speed_limit_max_bytes_per_s < v->speed_limit_min_bytes_per_s)
    return nw_fail(err, NULL, 0, 0,
                   "volume: speed_limit_min %g B/s must be > 0 and <= speed_limit_max %g B/s",
                   v->speed_limit_min_bytes_per_s, v->speed_limit_max_bytes_per_s);
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
  if ((int)sc->mode != 0) {
    if (cfg->ncache_devs < 1 || cfg->cache_devs == NULL)
      return nw_fail(err, NULL, 0, 0, "ssd_cache: mode %s needs at least one cache device",
                     ssdcache_mode_names[(int)sc->mode]);
    if ((int)sc->mode == 2 && cfg->ncache_devs < 2)
      return nw_fail(err, NULL, 0, 0,
                     "ssd_cache: mode read-write needs 2 cache devices (mirrored), got %d",
                     cfg->ncache_devs);
    if (sc->block_bytes < 4096 || sc->capacity_bytes < sc->block_bytes)
      return nw_fail(err, NULL, 0, 0, "ssd_cache: capacity %g B must hold at least one %g B block",
                     sc->capacity_bytes, sc->block_bytes);
  }
  if (cfg->crypt.enabled > 0.5 && cfg->crypto_engine == NULL && !(cfg->crypt.cpu_cycles_per_byte > 0))
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
                 cfg->member_bytes, NULL);
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
  if ((int)cfg->ssdcache.mode != 0) {
    s->sc = pcache_create((uint64_t)cfg->ssdcache.capacity_bytes, (uint64_t)cfg->ssdcache.block_bytes);
    if (s->sc == NULL)
      goto fail;
    s->sc_span = (uint64_t)cfg->ssdcache.capacity_bytes;
  }
  for (int i = 0; i < STK_SC_STREAMS; i++)
    s->sc_end[i] = UINT64_MAX;
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
  free(s->heap);
  free(s->blocked);
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
      if (w < RAID_MAX_MEMBERS)
        s->pending[w]--;
      stk_sub_done(s, (struct stk_req *)(uintptr_t)io.tag, td);
    } else if (tt <= now_s) {
      stk_timer_fire(s, stk_tm_pop(s));
    } else {
      break;
    }
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

void stack_cpu_done(struct stack *s, double now_s, uint64_t token)
{
  struct stk_req *r = (struct stk_req *)(uintptr_t)token;
  if (r != NULL)
    stk_sub_done(s, r, now_s);
}

int stack_start_op(struct stack *s, double now_s, const struct stack_op_cfg *op_cfg,
                   struct nw_err *err)
{
  if (stk_op_running(s) != NULL)
    return nw_fail(err, NULL, 0, 0, "stack: a background operation is already running");
  if (s->vol_failed)
    return nw_fail(err, NULL, 0, 0, "stack: the volume has failed (more members failed than level %s survives)",
                   raid_ops_of(s->g.level)->name);
  if (s->nops == STK_MAX_OPS)
    return nw_fail(err, NULL, 0, 0, "stack: at most %d background operations", STK_MAX_OPS);
  struct stk_op op;
  memset(&op, 0, sizeof op);
  op.cfg = *op_cfg;
  op.rep.kind = op_cfg->kind;
  op.rep.start_s = now_s;
  op.rep.end_s = -1.0;
  op.next_issue_s = now_s;
  const struct raid_geom *g = &s->g;
  switch (op_cfg->kind) {
  case STACK_OP_RESYNC:
    op.total = g->parity_members || g->level == RAID_1 || g->level == RAID_10 ? g->member_bytes : 0;
    if (op.total == 0) {
      /* nothing to resync: initialising the volume is mke2fs writing its
       * inode tables (capacity / inode_ratio x inode_size) and journal */
      const struct volume_params *v = &s->cfg.volume;
      double cap = (double)raid_capacity_bytes(g);
      double itab = v->mkfs_inode_ratio_bytes > 0 ? cap / v->mkfs_inode_ratio_bytes * v->mkfs_inode_bytes : 0;
      op.total = (uint64_t)(itab + (double)stk_journal_bytes((uint64_t)cap));
      op.total -= op.total % RAID_PAGE_BYTES;
      if (op.total > raid_capacity_bytes(g))
        op.total = raid_capacity_bytes(g);
      op.mkfs = 1;
    }
    break;
  case STACK_OP_REBUILD:
    if (op_cfg->failed_member < 0 || op_cfg->failed_member >= g->members)
      return nw_fail(err, NULL, 0, 0, "rebuild: member %d out of range 0..%d",
                     op_cfg->failed_member, g->members - 1);
    if (g->parity_members == 0 && g->level != RAID_1 && g->level != RAID_10)
      return nw_fail(err, NULL, 0, 0, "rebuild: level %s has no redundancy",
                     raid_ops_of(g->level)->name);
    s->g.failed_mask |= 1ull << op_cfg->failed_member; /* replaced disk holds nothing yet */
    op.total = g->member_bytes;
    break;
  case STACK_OP_RESHAPE:
  case STACK_OP_MIGRATE: {
    int nm = op_cfg->new_members;
    int add = nm - g->members;
    int tl = op_cfg->kind == STACK_OP_RESHAPE ? g->level : op_cfg->target_level;
    tl = raid_effective_level(tl, nm);
    if (add < 1 || add > s->cfg.nspares)
      return nw_fail(err, NULL, 0, 0,
                     "%s: new_members %d must exceed the current %d by 1..%d (spares given)",
                     op_cfg->kind == STACK_OP_RESHAPE ? "reshape" : "migrate", nm, g->members,
                     s->cfg.nspares);
    if (g->failed_mask != 0)
      return nw_fail(err, NULL, 0, 0, "reshape/migrate: the array is degraded");
    if (op_cfg->kind == STACK_OP_RESHAPE && g->level != RAID_5 && g->level != RAID_6 &&
        g->level != RAID_0)
      return nw_fail(err, NULL, 0, 0, "reshape: level %s cannot grow by reshape (5, 6, 0 can)",
                     raid_ops_of(g->level)->name);
    if (op_cfg->kind == STACK_OP_MIGRATE) {
      int from_single = (g->level == RAID_SINGLE || g->level == RAID_JBOD) && g->members == 1;
      if (!(from_single && tl == RAID_1 && nm == 2) &&
          !(g->level == RAID_1 && g->members == 2 && tl == RAID_5))
        return nw_fail(err, NULL, 0, 0,
                       "migrate: supported are single/jbod(1 disk) -> 1 (2 disks) and "
                       "1 (2 disks) -> 5; got %s (%d) -> level index %d (%d)",
                       raid_ops_of(g->level)->name, g->members, op_cfg->target_level, nm);
      if (g->level == RAID_1) { /* md: a 2-disk RAID-1 is a 2-disk RAID-5, instantly */
        struct raid_geom r5;
        if (raid_geom_init(&r5, RAID_5, RAID_LEFT_SYMMETRIC, 2, g->chunk_bytes, g->member_bytes,
                           err) != 0)
          return -1;
        s->g = r5;
        op.phase = 1;
      }
    }
    if (raid_geom_init(&op.newg, tl, op.phase ? RAID_LEFT_SYMMETRIC : s->g.layout, nm,
                       s->g.chunk_bytes, s->g.member_bytes, err) != 0)
      return -1;
    for (int i = s->ndev; i < nm; i++)
      s->dev[i] = s->cfg.spares[i - s->g.members];
    s->ndev = nm;
    op.total = s->g.member_bytes; /* reshape: md_do_sync runs to dev_sectors (new layout) */
    if (tl != RAID_1) {
      op.reshape = 1;
      op.checkpoint_s = now_s; /* raid5_start_reshape sets reshape_checkpoint */
      op.window_s = -1;        /* the window after the critical section's backup is not typical */
      s->reshaping = 1;
      s->reshape_pos = 0;
    }
    break;
  }
  default:
    return nw_fail(err, NULL, 0, 0, "stack: unknown operation kind %d", (int)op_cfg->kind);
  }
  s->ops[s->nops++] = op;
  /* a rebuild of one member while others are missing: beyond redundancy */
  if (raid_lost_bytes(&s->g) > 0)
    stk_volume_fail(s, now_s);
  else if (op.total == 0)
    stk_op_end(s, &s->ops[s->nops - 1], now_s);
  else
    stk_op_pump(s, now_s);
  return 0;
}

/* A background operation ends unfinished (its windows in flight complete
 * without effect: stk_finish only hands the running one's to it). */
static void stk_op_stop(struct stk_op *op, double t)
{
  op->rep.end_s = t;
  op->rep.stopped = 1;
}

/* The member being rebuilt, -1 when no rebuild runs. */
static int stk_rebuild_target(struct stack *s)
{
  struct stk_op *op = stk_op_running(s);
  return op != NULL && op->cfg.kind == STACK_OP_REBUILD ? op->cfg.failed_member : -1;
}

/* More members failed than the level survives (md: the array fails).  The
 * requests waiting for page-cache room err, write-back and destaging
 * stop (their data is lost), a background operation stops. */
static void stk_volume_fail(struct stack *s, double t)
{
  s->vol_failed = 1;
  s->failed_at_s = t;
  s->lost_dirty_bytes = (double)stack_dirty_bytes(s) + (s->sc != NULL ? (double)pcache_dirty_bytes(s->sc) : 0.0);
  struct stk_op *op = stk_op_running(s);
  if (op != NULL)
    stk_op_stop(op, t);
  for (int i = 0; i < s->nblocked; i++)
    stk_immediate(s, s->blocked[i].io.tag, t, 0);
  s->nblocked = 0;
}

void stack_fail_member(struct stack *s, double now_s, int member)
{
  if (member < 0 || member >= s->g.members)
    return;
  uint64_t bit = 1ull << member;
  struct stk_op *op = stk_op_running(s);
  if (s->g.failed_mask & bit) {
    /* the replacement being rebuilt fails: md stops the recovery and the
     * array stays degraded */
    if (stk_rebuild_target(s) == member)
      stk_op_stop(op, now_s);
    return;
  }
  s->g.failed_mask |= bit;
  if (s->reshaping && op != NULL)
    op->newg.failed_mask |= bit;
  if (!s->vol_failed && raid_lost_bytes(&s->g) > 0)
    stk_volume_fail(s, now_s);
}

void stack_volume_get(const struct stack *s, struct stack_volume_state *out)
{
  memset(out, 0, sizeof *out);
  out->failed = s->vol_failed;
  out->failed_at_s = s->failed_at_s;
  if (!s->vol_failed)
    return;
  struct raid_geom g = s->g;
  double lost = (double)raid_lost_bytes(&g);
  /* a rebuild stopped by the failure: the rows it had rewritten on the
   * replacement are readable there */
  for (int i = s->nops - 1; i >= 0; i--) {
    const struct stk_op *op = &s->ops[i];
    if (op->cfg.kind != STACK_OP_REBUILD || !op->rep.stopped || op->rep.end_s != s->failed_at_s)
      continue;
    g.failed_mask &= ~(1ull << op->cfg.failed_member);
    double f = op->rep.progress;
    lost = f * (double)raid_lost_bytes(&g) + (1.0 - f) * lost;
    break;
  }
  out->lost_bytes_estimate = lost + s->lost_dirty_bytes;
}

int stack_op_count(const struct stack *s)
{
  return s->nops;
}

void stack_op_get(const struct stack *s, int i, struct stack_op_report *out)
{
  if (i < 0 || i >= s->nops) {
    memset(out, 0, sizeof *out);
    return;
  }
  *out = s->ops[i].rep;
}

int stack_ops_running(const struct stack *s)
{
  return s->nops > 0 && s->ops[s->nops - 1].rep.end_s < 0;
}

uint64_t stack_dirty_bytes(const struct stack *s)
{
  return s->pc != NULL ? pcache_dirty_bytes(s->pc) : 0;
}

uint64_t stack_dirty_bytes_in(const struct stack *s, uint64_t off, uint64_t len)
{
  return s->pc != NULL ? pcache_dirty_bytes_in(s->pc, off, len) : 0;
}

/* Mark `dirty_bytes` of [off, off+len) dirty in cache c, in runs of `unit`
 * bytes spread evenly over the range (the state random writes leave). */
static void stk_precond_spread(struct pcache *c, uint64_t off, uint64_t len, uint64_t unit,
                               double dirty_bytes)
{
  uint64_t nblk = (len + unit - 1) / unit;
  double frac = dirty_bytes / (double)len, acc = 0;
  uint64_t run_start = 0, run_len = 0;
  for (uint64_t b = 0; b < nblk; b++) {
    acc += frac;
    int mark = acc >= 1.0 - 1e-9;
    if (mark)
      acc -= 1.0;
    if (mark && run_len > 0 && run_start + run_len == b) {
      run_len++;
    } else if (mark) {
      if (run_len > 0)
        pcache_insert(c, off + run_start * unit, run_len * unit, 1, 0.0);
      run_start = b;
      run_len = 1;
    }
  }
  if (run_len > 0)
    pcache_insert(c, off + run_start * unit, run_len * unit, 1, 0.0);
}

/* The job's region clipped to the volume; 0 when nothing of it is on it. */
static int stk_precond_region(const struct stack *s, const struct stack_precond *p, uint64_t *off, uint64_t *len)
{
  if (p->len_bytes == 0 || p->offset_bytes >= s->capacity)
    return 0;
  *off = p->offset_bytes;
  *len = p->offset_bytes + p->len_bytes > s->capacity ? s->capacity - p->offset_bytes : p->len_bytes;
  return 1;
}

/* Its relative write rate: write_weight, 1 when not given; 0 for readers. */
static double stk_precond_weight(const struct stack_precond *p)
{
  if (!(p->write_fraction > 0))
    return 0.0;
  return p->write_weight > 0 ? p->write_weight : 1.0;
}

/* Split `room` among n claimants in proportion to weight[i], none above
 * cap[i] (water-filling: what a capped one cannot use goes to the others);
 * share[i] = 0 where weight or cap is 0. */
static void stk_precond_split(int n, const double *weight, const double *cap, double room, double *share)
{
  for (int i = 0; i < n; i++)
    share[i] = weight[i] > 0 && cap[i] > 0 ? -1.0 : 0.0; /* -1: not settled yet */
  for (;;) {
    double w = 0, left = room;
    for (int i = 0; i < n; i++) {
      if (share[i] < 0)
        w += weight[i];
      else
        left -= share[i];
    }
    if (!(w > 0))
      return;
    left = fmax(0.0, left);
    int capped = 0;
    for (int i = 0; i < n; i++)
      if (share[i] < 0 && cap[i] <= left * weight[i] / w) {
        share[i] = cap[i];
        capped = 1;
      }
    if (capped)
      continue; /* the others split what these leave */
    for (int i = 0; i < n; i++)
      if (share[i] < 0)
        share[i] = left * weight[i] / w;
    return;
  }
}

/* A sequential writer's dirty stretch at the end of its region of len
 * bytes, about dirty_bytes long: its start (the write-back point) on the
 * grid of write-back runs from the region's start, where a steady stream's
 * write-back point always lies (it takes STK_FLUSH_MAX_BYTES runs from
 * where the stream began); off the grid every later run would straddle
 * chunks the stream's own runs never straddle. */
static uint64_t stk_precond_seq_dirty(uint64_t len, double dirty_bytes)
{
  if (!(dirty_bytes >= (double)RAID_PAGE_BYTES))
    return 0;
  if (dirty_bytes >= (double)len)
    return len;
  uint64_t behind = (uint64_t)floor(((double)len - dirty_bytes) / STK_FLUSH_MAX_BYTES + 0.5) * STK_FLUSH_MAX_BYTES;
  return behind < len ? len - behind : len;
}

/* Page cache after a long run of buffered writes faster than write-back:
 * the writers are held at the dirty limit (balance_dirty_pages), so
 * `dirty_bytes` of the job's region are dirty.  A random writer leaves
 * them spread evenly over the region, in runs of its writes; a sequential
 * one as the stretch just behind its position (its next write is at the
 * region's start, so the stretch is the region's end, as it wrapped),
 * dirtied in address order: the write-back sweep and the oldest-first
 * order both take it from its start. */
static void stk_precond_pcache(struct stack *s, uint64_t off, uint64_t len, const struct stack_precond *p,
                               double dirty_bytes)
{
  if (p->run_bytes < len) { /* in whole writes: pages of run_bytes together */
    uint64_t unit = (p->run_bytes + RAID_PAGE_BYTES - 1) / RAID_PAGE_BYTES * RAID_PAGE_BYTES;
    stk_precond_spread(s->pc, off, len, unit, dirty_bytes);
  } else {
    uint64_t dirty = stk_precond_seq_dirty(len, dirty_bytes);
    pcache_insert(s->pc, off + len - dirty, dirty, 1, 0.0);
  }
  /* above the background threshold: the flusher is at work from time 0 */
  if (!s->flush_timer && pcache_dirty_bytes(s->pc) > 0) {
    s->flush_timer = 1;
    stk_tm_push(s, 0.0, TM_FLUSH, NULL);
  }
}

/* Member disks after a long run of the job's writes; each member's own
 * caches settle as the disk model says (disk_precondition), holding
 * `cache_share` of them.  Random writers: every write reaches the members
 * as writes of at most a chunk (RAID-5/6: pages of data, P and Q),
 * scattered over the rows the region covers.  Sequential writers: the
 * members last wrote the rows just behind the write-back point, i.e. before
 * the job's dirty stretch (`dirty_bytes` at the region's end; none: the
 * writer's own position, the region's start, so the region's end as it
 * wrapped): the range ends there and the disk holds its end. */
static void stk_precond_members(struct stack *s, uint64_t off, uint64_t len, const struct stack_precond *p,
                                double dirty_bytes, double cache_share)
{
  if (!(p->write_fraction > 0))
    return;
  uint64_t chunk = s->g.chunk_bytes;
  int seq = p->run_bytes >= len;
  uint64_t run = p->run_bytes < chunk ? p->run_bytes : chunk; /* sequential: a chunk per row */
  run = (run + RAID_PAGE_BYTES - 1) / RAID_PAGE_BYTES * RAID_PAGE_BYTES;
  uint64_t hi = off + len; /* end of the range the members wrote last */
  uint64_t seq_dirty = seq ? stk_precond_seq_dirty(len, dirty_bytes) : 0;
  if (seq_dirty < len)
    hi -= seq_dirty;
  struct raid_loc a, b;
  raid_map(&s->g, off, &a);
  raid_map(&s->g, hi - 1, &b);
  for (int i = 0; i < s->g.members; i++) {
    struct disk_precond dp = {.run_bytes = run, .write_fraction = p->write_fraction, .cache_share = cache_share};
    if (s->g.level == RAID_JBOD) { /* linear: the part of the range on member i */
      if (i < a.member || i > b.member)
        continue;
      dp.offset_bytes = i == a.member ? a.member_offset : 0;
      dp.len_bytes = (i == b.member ? b.member_offset + 1 : s->g.member_bytes) - dp.offset_bytes;
    } else { /* striped or mirrored: the chunk rows the range covers, on every member */
      dp.offset_bytes = a.member_offset / chunk * chunk;
      dp.len_bytes = (b.member_offset / chunk + 1) * chunk - dp.offset_bytes;
    }
    dp.sequential = seq;
    disk_precondition(s->dev[i], &dp);
  }
}

/* SSD cache after a long run of the job (see stack.h). */
static void stk_precond_ssd(struct stack *s, uint64_t off, uint64_t len, const struct stack_precond *p)
{
  double bypass = s->cfg.ssdcache.seq_bypass_bytes;
  if (bypass > 0 && (double)p->run_bytes > bypass)
    return; /* the admission policy never lets this job's I/O in */
  uint64_t cap = (uint64_t)s->cfg.ssdcache.capacity_bytes;
  if (len > cap) { /* LRU: what the cache holds at the end is the most recent cap bytes */
    off += len - cap;
    len = cap;
  }
  pcache_insert(s->sc, off, len, 0, 0.0);
  if ((int)s->cfg.ssdcache.mode != 2 || !(p->write_fraction > 0))
    return;
  /* read-write: under sustained load the destager only runs above the
   * threshold, so the dirty level settles at min(region, threshold x cap);
   * random writes spread the dirty blocks evenly over the region */
  stk_precond_spread(s->sc, off, len, pcache_block_bytes(s->sc),
                     fmin((double)len, STK_DESTAGE_DIRTY_FRAC * (double)cap));
  /* the destager looks again once the array has been idle for a while */
  if (!s->destage_timer && pcache_dirty_bytes(s->sc) > 0) {
    s->destage_timer = 1;
    stk_tm_push(s, STK_IDLE_S, TM_DESTAGE, NULL);
  }
}

int stack_precondition(struct stack *s, const struct stack_precond *jobs, int njobs)
{
  if (s == NULL || jobs == NULL || njobs <= 0)
    return 0;
  /* per job: weight, page-cache claim (buffered writers: the region), then
   * its dirty bytes and disk-cache share */
  double *v = malloc((size_t)njobs * 5 * sizeof *v);
  if (v == NULL)
    return -1;
  double *weight = v, *claim = v + njobs, *dirty = v + 2 * njobs, *share = v + 3 * njobs, *pweight = v + 4 * njobs;
  double wsum = 0;
  for (int i = 0; i < njobs; i++) {
    uint64_t off, len;
    int on = stk_precond_region(s, &jobs[i], &off, &len);
    weight[i] = on ? stk_precond_weight(&jobs[i]) : 0.0;
    claim[i] = on && jobs[i].buffered_writes && s->pc != NULL ? (double)len : 0.0;
    pweight[i] = claim[i] > 0 ? weight[i] : 0.0;
    wsum += weight[i];
    /* writers sharing a region (fio numjobs on one file) dirty the same
     * pages: one claim for the region, with their rates together, laid
     * out by the first of them */
    for (int k = 0; k < i && claim[i] > 0; k++)
      if (claim[k] > 0 && jobs[k].offset_bytes == jobs[i].offset_bytes && jobs[k].len_bytes == jobs[i].len_bytes &&
          (jobs[k].run_bytes >= jobs[k].len_bytes) == (jobs[i].run_bytes >= jobs[i].len_bytes)) {
        pweight[k] += pweight[i];
        pweight[i] = claim[i] = 0;
      }
  }
  /* balance_dirty_pages holds the dirty level at the limit; each writer's
   * part of it is its write rate x how long a page stays dirty, the same
   * for all (one write-back queue): in proportion to its rate */
  double room = 0;
  if (s->pc != NULL && pcache_dirty_bytes(s->pc) < s->dirty_limit)
    room = (double)(s->dirty_limit - pcache_dirty_bytes(s->pc));
  stk_precond_split(njobs, pweight, claim, room, dirty);
  /* the dirty pages take RAM page by page (clean ones are evicted for
   * them), so the dirty limit, a fraction of RAM, always fits */
  for (int i = 0; i < njobs; i++)
    share[i] = wsum > 0 ? weight[i] / wsum : 0.0;
  for (int i = 0; i < njobs; i++) {
    uint64_t off, len;
    if (!stk_precond_region(s, &jobs[i], &off, &len))
      continue;
    if (s->pc != NULL)
      stk_precond_pcache(s, off, len, &jobs[i], dirty[i]);
    stk_precond_members(s, off, len, &jobs[i], dirty[i], share[i]);
    if (s->sc != NULL)
      stk_precond_ssd(s, off, len, &jobs[i]);
  }
  free(v);
  return 0;
}
