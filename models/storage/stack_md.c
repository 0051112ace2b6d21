/* stack_md.c - the md glue of the storage stack: the geometry a request
 * uses (old or new layout during a reshape), its plan, and md's stripe
 * cache admitting RAID-5/6 writes in row groups (see stack.c's steps). */
#include "models/storage/stack_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


static const struct raid_geom *stk_geom_for(const struct stack *s, uint64_t off)
{
  if (s->reshaping && off < s->reshape_pos)
    return &s->ops[s->nops - 1].newg;
  return &s->g;
}

void stk_plan(struct stack *s, struct stk_req *r)
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
void stk_stripes_admit(struct stack *s, struct stk_req *r, double t)
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

void stk_stripes_release(struct stack *s, int n, double t)
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

/* ST_PARITY: P/Q on the parity engine or the CPU, and raid5d's walk of
 * every stripe_head on the CPU, engine or not. */
void stk_parity(struct stack *s, struct stk_req *r, double t)
{
  const struct stack_cfg *c = &s->cfg;
  double pb = r->plan.p_bytes, qb = r->plan.q_bytes;
  double sh = r->stripe_heads * (c->stripe_cycles + c->stripe_dev_cycles * (double)s->g.members);
  if (c->parity_engine != NULL) {
    stk_compute(s, r, c->parity_engine, pb + qb, STACK_THREAD_RAID, 0, t);
    stk_compute(s, r, NULL, 0, STACK_THREAD_RAID, sh, t);
  } else {
    stk_compute(s, r, NULL, 0, STACK_THREAD_RAID,
                pb * c->volume.parity_cycles_per_byte + qb * c->volume.q_cycles_per_byte + sh, t);
  }
}
