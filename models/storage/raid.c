/* raid.c - md RAID mapping and I/O planning.  See raid.h.
 *
 * Sources: Linux drivers/md/raid5.c (raid5_compute_sector, the
 * rmw/rcw choice in handle_stripe_dirtying), raid0.c, raid1.c
 * (read_balance), raid10.c (near layout), md-linear.c. */
#include "models/storage/raid.h"

#include <stdlib.h>
#include <string.h>

/* ---- extent lists ---------------------------------------------------- */

/* How far back raid_ext_add looks for an extent to merge with. */
#define RAID_MERGE_LOOKBACK 2 * RAID_MAX_MEMBERS

void raid_ext_add(struct raid_ext_list *l, int member, uint64_t off, uint64_t len)
{
  if (len == 0)
    return;
  int lo = l->n > RAID_MERGE_LOOKBACK ? l->n - RAID_MERGE_LOOKBACK : 0;
  for (int i = l->n - 1; i >= lo; i--) {
    struct raid_ext *e = &l->v[i];
    if (e->member != member)
      continue;
    uint64_t e_end = e->offset_bytes + e->len_bytes, end = off + len;
    if (off <= e_end && e->offset_bytes <= end) { /* touching or overlapping: union */
      uint64_t s = off < e->offset_bytes ? off : e->offset_bytes;
      uint64_t t = end > e_end ? end : e_end;
      e->offset_bytes = s;
      e->len_bytes = t - s;
      return;
    }
  }
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    struct raid_ext *v = realloc(l->v, (size_t)cap * sizeof *v);
    if (v == NULL)
      return; /* out of memory: the extent is dropped (plan undercounts) */
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = (struct raid_ext){.member = member, .offset_bytes = off, .len_bytes = len};
}

uint64_t raid_ext_bytes(const struct raid_ext_list *l, int member)
{
  uint64_t b = 0;
  for (int i = 0; i < l->n; i++)
    if (member < 0 || l->v[i].member == member)
      b += l->v[i].len_bytes;
  return b;
}

void raid_plan_reset(struct raid_plan *p)
{
  struct raid_ext_list r = p->reads, w = p->writes;
  memset(p, 0, sizeof *p);
  p->reads = r;
  p->writes = w;
  p->reads.n = 0;
  p->writes.n = 0;
}

void raid_plan_free(struct raid_plan *p)
{
  free(p->reads.v);
  free(p->writes.v);
  memset(p, 0, sizeof *p);
}

static int raid_failed(const struct raid_geom *g, int m)
{
  return (int)((g->failed_mask >> m) & 1u);
}

static int raid_nfailed(const struct raid_geom *g)
{
  int n = 0;
  for (int m = 0; m < g->members; m++)
    n += raid_failed(g, m);
  return n;
}

/* ---- single / linear (JBOD) ----------------------------------------- */

static uint64_t raid_linear_capacity(const struct raid_geom *g)
{
  return (uint64_t)g->members * g->member_bytes;
}

static void raid_linear_map(const struct raid_geom *g, uint64_t L, struct raid_loc *o)
{
  o->member = (int)(L / g->member_bytes);
  o->member_offset = L % g->member_bytes;
  o->stripe = L / g->chunk_bytes;
  o->p_member = o->q_member = o->mirror_member = -1;
  o->mirror_offset = 0;
}

/* Split [off, off+len) at `unit` boundaries and hand each piece to map. */
static void raid_plan_plain(const struct raid_geom *g, uint64_t off, uint64_t len,
                            struct raid_ext_list *l, struct raid_plan *p, uint64_t unit)
{
  uint64_t end = off + len;
  while (off < end) {
    struct raid_loc loc;
    raid_map(g, off, &loc);
    uint64_t piece = unit - off % unit;
    if (piece > end - off)
      piece = end - off;
    if (raid_failed(g, loc.member))
      p->lost = 1;
    else
      raid_ext_add(l, loc.member, loc.member_offset, piece);
    off += piece;
  }
}

static void raid_linear_read(const struct raid_geom *g, uint64_t off, uint64_t len,
                             const int *pending, struct raid_plan *p)
{
  (void)pending;
  raid_plan_plain(g, off, len, &p->reads, p, g->member_bytes);
}

static void raid_linear_write(const struct raid_geom *g, uint64_t off, uint64_t len,
                              struct raid_plan *p)
{
  raid_plan_plain(g, off, len, &p->writes, p, g->member_bytes);
}

/* ---- RAID-0 ---------------------------------------------------------- */

static void raid0_map(const struct raid_geom *g, uint64_t L, struct raid_loc *o)
{
  uint64_t c = L / g->chunk_bytes;
  o->member = (int)(c % (uint64_t)g->members);
  o->stripe = c / (uint64_t)g->members;
  o->member_offset = o->stripe * g->chunk_bytes + L % g->chunk_bytes;
  o->p_member = o->q_member = o->mirror_member = -1;
  o->mirror_offset = 0;
}

static void raid0_read(const struct raid_geom *g, uint64_t off, uint64_t len, const int *pending,
                       struct raid_plan *p)
{
  (void)pending;
  raid_plan_plain(g, off, len, &p->reads, p, g->chunk_bytes);
}

static void raid0_write(const struct raid_geom *g, uint64_t off, uint64_t len, struct raid_plan *p)
{
  raid_plan_plain(g, off, len, &p->writes, p, g->chunk_bytes);
}

/* ---- RAID-1 ---------------------------------------------------------- */

static uint64_t raid1_capacity(const struct raid_geom *g)
{
  return g->member_bytes;
}

static void raid1_map(const struct raid_geom *g, uint64_t L, struct raid_loc *o)
{
  o->member = 0;
  o->member_offset = L;
  o->stripe = L / g->chunk_bytes;
  o->p_member = o->q_member = -1;
  o->mirror_member = g->members > 1 ? 1 : -1;
  o->mirror_offset = L;
}

/* md read_balance, simplified: the alive copy with the fewest pending I/Os
 * (ties: the lowest index, which keeps a sequential stream on one disk). */
static int raid_pick_copy(const struct raid_geom *g, const int *cand, int ncand, const int *pending)
{
  int best = -1;
  for (int i = 0; i < ncand; i++) {
    int m = cand[i];
    if (raid_failed(g, m))
      continue;
    if (best < 0 || (pending && pending[m] < pending[best]))
      best = m;
  }
  return best;
}

static void raid1_read(const struct raid_geom *g, uint64_t off, uint64_t len, const int *pending,
                       struct raid_plan *p)
{
  int cand[RAID_MAX_MEMBERS] = {0};
  for (int m = 0; m < g->members; m++)
    cand[m] = m;
  int m = raid_pick_copy(g, cand, g->members, pending);
  if (m < 0) {
    p->lost = 1;
    return;
  }
  if (raid_nfailed(g) > 0)
    p->degraded_reads += raid_failed(g, 0);
  raid_ext_add(&p->reads, m, off, len);
}

static void raid1_write(const struct raid_geom *g, uint64_t off, uint64_t len, struct raid_plan *p)
{
  int alive = 0;
  for (int m = 0; m < g->members; m++)
    if (!raid_failed(g, m)) {
      raid_ext_add(&p->writes, m, off, len);
      alive++;
    }
  if (alive == 0)
    p->lost = 1;
}

/* ---- RAID-10 (md near layout, 2 copies) ------------------------------ */

static uint64_t raid10_capacity(const struct raid_geom *g)
{
  uint64_t chunks = g->member_bytes / g->chunk_bytes * (uint64_t)g->members / 2;
  return chunks * g->chunk_bytes;
}

static void raid10_map(const struct raid_geom *g, uint64_t L, struct raid_loc *o)
{
  uint64_t c = L / g->chunk_bytes, in = L % g->chunk_bytes, n = (uint64_t)g->members;
  uint64_t idx = 2 * c;
  o->member = (int)(idx % n);
  o->member_offset = (idx / n) * g->chunk_bytes + in;
  o->mirror_member = (int)((idx + 1) % n);
  o->mirror_offset = ((idx + 1) / n) * g->chunk_bytes + in;
  o->stripe = idx / n;
  o->p_member = o->q_member = -1;
}

static void raid10_plan(const struct raid_geom *g, uint64_t off, uint64_t len, const int *pending,
                        struct raid_plan *p, int write)
{
  uint64_t end = off + len;
  while (off < end) {
    struct raid_loc loc;
    raid10_map(g, off, &loc);
    uint64_t piece = g->chunk_bytes - off % g->chunk_bytes;
    if (piece > end - off)
      piece = end - off;
    int a = loc.member, b = loc.mirror_member;
    if (write) {
      if (!raid_failed(g, a))
        raid_ext_add(&p->writes, a, loc.member_offset, piece);
      if (!raid_failed(g, b))
        raid_ext_add(&p->writes, b, loc.mirror_offset, piece);
      if (raid_failed(g, a) && raid_failed(g, b))
        p->lost = 1;
    } else {
      int cand[2] = {a, b};
      int m = raid_pick_copy(g, cand, 2, pending);
      if (m < 0)
        p->lost = 1;
      else
        raid_ext_add(&p->reads, m, m == a ? loc.member_offset : loc.mirror_offset, piece);
      p->degraded_reads += raid_failed(g, a) && m == b;
    }
    off += piece;
  }
}

static void raid10_read(const struct raid_geom *g, uint64_t off, uint64_t len, const int *pending,
                        struct raid_plan *p)
{
  raid10_plan(g, off, len, pending, p, 0);
}

static void raid10_write(const struct raid_geom *g, uint64_t off, uint64_t len, struct raid_plan *p)
{
  raid10_plan(g, off, len, NULL, p, 1);
}

/* ---- RAID-5 / RAID-6 (raid5.c) --------------------------------------- */

static uint64_t raid56_capacity(const struct raid_geom *g)
{
  return (uint64_t)g->data_members * g->member_bytes;
}

void raid_parity_members(const struct raid_geom *g, uint64_t stripe, int *pd, int *qd)
{
  int n = g->members;
  int r = (int)(stripe % (uint64_t)n);
  *pd = *qd = -1;
  if (g->level == RAID_5) {
    switch (g->layout) {
    case RAID_LEFT_ASYMMETRIC:
    case RAID_LEFT_SYMMETRIC:
      *pd = g->data_members - r;
      break;
    default: /* right-*: */
      *pd = r;
      break;
    }
    if (*pd < 0)
      *pd += n;
  } else if (g->level == RAID_6) {
    switch (g->layout) {
    case RAID_LEFT_ASYMMETRIC:
    case RAID_LEFT_SYMMETRIC:
      *pd = n - 1 - r;
      break;
    default:
      *pd = r;
      break;
    }
    *qd = (*pd + 1) % n; /* asymmetric: pd == n-1 puts Q on disk 0, the same value */
  }
}

/* Member of data index d (0..data_members-1) in a stripe (raid5_compute_sector). */
static int raid56_data_member(const struct raid_geom *g, int d, int pd)
{
  int n = g->members;
  if (g->level == RAID_5) {
    switch (g->layout) {
    case RAID_LEFT_ASYMMETRIC:
    case RAID_RIGHT_ASYMMETRIC:
      return d >= pd ? d + 1 : d;
    default:
      return (pd + 1 + d) % n;
    }
  }
  switch (g->layout) { /* RAID-6 */
  case RAID_LEFT_ASYMMETRIC:
  case RAID_RIGHT_ASYMMETRIC:
    if (pd == n - 1)
      return d + 1; /* Q on disk 0 */
    return d >= pd ? d + 2 : d;
  default:
    return (pd + 2 + d) % n;
  }
}

static void raid56_map(const struct raid_geom *g, uint64_t L, struct raid_loc *o)
{
  uint64_t c = L / g->chunk_bytes;
  uint64_t stripe = c / (uint64_t)g->data_members;
  int d = (int)(c % (uint64_t)g->data_members);
  raid_parity_members(g, stripe, &o->p_member, &o->q_member);
  o->member = raid56_data_member(g, d, o->p_member);
  o->stripe = stripe;
  o->member_offset = stripe * g->chunk_bytes + L % g->chunk_bytes;
  o->mirror_member = -1;
  o->mirror_offset = 0;
}

/* Intra-chunk breakpoints of a row write [ra, rb) (row-relative bytes). */
static int raid56_breaks(const struct raid_geom *g, uint64_t ra, uint64_t rb, uint64_t *x)
{
  uint64_t C = g->chunk_bytes;
  int n = 0;
  x[n++] = 0;
  x[n++] = C;
  x[n++] = ra % C;
  x[n++] = rb % C;
  /* insertion sort + unique */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && x[j - 1] > x[j]; j--) {
      uint64_t t = x[j];
      x[j] = x[j - 1];
      x[j - 1] = t;
    }
  int u = 0;
  for (int i = 0; i < n; i++)
    if (u == 0 || x[u - 1] != x[i])
      x[u++] = x[i];
  return u;
}

/* Read segment [x0, x0+seg) of data index d of stripe s (degraded aware). */
static void raid56_read_seg(const struct raid_geom *g, uint64_t s, int pd, int qd, int d,
                            uint64_t x0, uint64_t seg, struct raid_plan *p)
{
  int m = raid56_data_member(g, d, pd);
  uint64_t moff = s * g->chunk_bytes + x0;
  if (!raid_failed(g, m)) {
    raid_ext_add(&p->reads, m, moff, seg);
    return;
  }
  if (raid_nfailed(g) > g->parity_members) {
    p->lost = 1;
    return;
  }
  /* reconstruct from the survivors: P suffices for one missing data
   * block; Q is needed for two, or when P is gone too */
  int bad_data = 0;
  for (int k = 0; k < g->members; k++)
    bad_data += raid_failed(g, k) && k != pd && k != qd;
  int need_q = bad_data >= 2 || raid_failed(g, pd);
  for (int k = 0; k < g->members; k++) {
    if (raid_failed(g, k) || (k == qd && !need_q))
      continue;
    raid_ext_add(&p->reads, k, moff, seg);
  }
  if (need_q)
    p->q_bytes += (double)g->data_members * (double)seg;
  p->p_bytes += (double)g->data_members * (double)seg;
  p->degraded_reads++;
}

static void raid56_read(const struct raid_geom *g, uint64_t off, uint64_t len, const int *pending,
                        struct raid_plan *p)
{
  (void)pending;
  uint64_t end = off + len, C = g->chunk_bytes;
  while (off < end) {
    uint64_t c = off / C;
    uint64_t s = c / (uint64_t)g->data_members;
    int d = (int)(c % (uint64_t)g->data_members);
    uint64_t x0 = off % C, seg = C - x0;
    if (seg > end - off)
      seg = end - off;
    int pd, qd;
    raid_parity_members(g, s, &pd, &qd);
    raid56_read_seg(g, s, pd, qd, d, x0, seg, p);
    off += seg;
  }
}

/* One stripe row s, row-relative write range [ra, rb). */
static void raid56_write_row(const struct raid_geom *g, uint64_t s, uint64_t ra, uint64_t rb,
                             struct raid_plan *p)
{
  uint64_t C = g->chunk_bytes, x[4];
  int D = g->data_members, pd, qd;
  raid_parity_members(g, s, &pd, &qd);
  int nb = raid56_breaks(g, ra, rb, x);
  p->stripes++;
  for (int b = 0; b + 1 < nb; b++) {
    uint64_t x0 = x[b], seg = x[b + 1] - x[b];
    uint64_t moff = s * C + x0;
    int w = 0, wfail = 0, ufail = 0;
    int written[RAID_MAX_MEMBERS];
    for (int d = 0; d < D; d++) {
      uint64_t pos = (uint64_t)d * C + x0; /* row-relative address of this segment */
      written[d] = pos >= ra && pos < rb;
      int m = raid56_data_member(g, d, pd);
      if (written[d]) {
        w++;
        wfail += raid_failed(g, m);
      } else {
        ufail += raid_failed(g, m);
      }
    }
    if (w == 0)
      continue;
    int palive = !raid_failed(g, pd) + (qd >= 0 && !raid_failed(g, qd));
    if (wfail + ufail + (g->parity_members - palive) > g->parity_members) {
      p->lost = 1;
      continue;
    }
    int method; /* 0 full, 1 rmw, 2 rcw, 3 no parity alive */
    if (w == D)
      method = 0;
    else if (palive == 0)
      method = 3;
    else {
      int rmw = wfail ? -1 : w + palive;
      int rcw = D - w - ufail + (ufail ? palive : 0);
      /* md (handle_stripe_dirtying): rmw only when it reads strictly fewer
       * blocks; a tie goes to reconstruct-write. */
      method = (rmw >= 0 && rmw < rcw) ? 1 : 2;
    }
    double pw = method == 1 ? (double)(2 * w + 1) : (double)D;
    if (method == 0) {
      p->full_stripes++;
    } else if (method == 1) {
      p->rmw_segments++;
      for (int d = 0; d < D; d++)
        if (written[d])
          raid_ext_add(&p->reads, raid56_data_member(g, d, pd), moff, seg);
      if (!raid_failed(g, pd))
        raid_ext_add(&p->reads, pd, moff, seg);
      if (qd >= 0 && !raid_failed(g, qd))
        raid_ext_add(&p->reads, qd, moff, seg);
    } else if (method == 2) {
      p->rcw_segments++;
      for (int d = 0; d < D; d++) {
        int m = raid56_data_member(g, d, pd);
        if (!written[d] && !raid_failed(g, m))
          raid_ext_add(&p->reads, m, moff, seg);
      }
      if (ufail) { /* a missing unwritten block: reconstruct it from parity */
        if (!raid_failed(g, pd))
          raid_ext_add(&p->reads, pd, moff, seg);
        if (qd >= 0 && !raid_failed(g, qd))
          raid_ext_add(&p->reads, qd, moff, seg);
      }
    }
    if (method != 3) {
      p->p_bytes += pw * (double)seg;
      if (qd >= 0)
        p->q_bytes += pw * (double)seg;
    }
    for (int d = 0; d < D; d++) {
      int m = raid56_data_member(g, d, pd);
      if (written[d] && !raid_failed(g, m))
        raid_ext_add(&p->writes, m, moff, seg);
    }
    if (method != 3) {
      if (!raid_failed(g, pd))
        raid_ext_add(&p->writes, pd, moff, seg);
      if (qd >= 0 && !raid_failed(g, qd))
        raid_ext_add(&p->writes, qd, moff, seg);
    }
  }
}

static void raid56_write(const struct raid_geom *g, uint64_t off, uint64_t len, struct raid_plan *p)
{
  uint64_t row = (uint64_t)g->data_members * g->chunk_bytes, end = off + len;
  while (off < end) {
    uint64_t s = off / row, rs = s * row;
    uint64_t re = rs + row < end ? rs + row : end;
    raid56_write_row(g, s, off - rs, re - rs, p);
    off = re;
  }
}

/* ---- background plans per level (md resync / recovery) ------------- */

/* RAID-5/6 resync: read every member, recompute P/Q, write the parity
 * chunks: parity rotates, so each member gets parity_members/n of the
 * window (written as one extent: a simplification of n-strided chunk
 * writes). */
static void raid56_resync(const struct raid_geom *g, uint64_t moff, uint64_t len, struct raid_plan *p)
{
  int n = g->members;
  for (int m = 0; m < n; m++)
    raid_ext_add(&p->reads, m, moff, len);
  for (int m = 0; m < n; m++)
    raid_ext_add(&p->writes, m, moff, len * (uint64_t)g->parity_members / (uint64_t)n);
  p->p_bytes += (double)g->data_members * (double)len;
  if (g->level == RAID_6)
    p->q_bytes += (double)g->data_members * (double)len;
}

static void raid1_resync(const struct raid_geom *g, uint64_t moff, uint64_t len, struct raid_plan *p)
{
  raid_ext_add(&p->reads, 0, moff, len);
  for (int m = 1; m < g->members; m++)
    raid_ext_add(&p->writes, m, moff, len);
}

static void raid10_resync(const struct raid_geom *g, uint64_t moff, uint64_t len, struct raid_plan *p)
{
  for (int m = 0; m < g->members; m += 2) {
    raid_ext_add(&p->reads, m, moff, len);
    if (m + 1 < g->members)
      raid_ext_add(&p->writes, m + 1, moff, len);
  }
}

/* Recovery of member `target`: the reads (and parity) that rebuild it;
 * raid_plan_rebuild adds the target's write. */
static void raid56_rebuild(const struct raid_geom *g, int target, uint64_t moff, uint64_t len,
                           struct raid_plan *p)
{
  int n = g->members;
  for (int m = 0; m < n; m++)
    if (m != target && !raid_failed(g, m))
      raid_ext_add(&p->reads, m, moff, len);
  /* md recovers a stripe through its parity check (handle_parity_checks5/6
   * with the stripe syncing): RAID-5 computes P over the data, RAID-6 both
   * syndromes P and Q (async_syndrome_val), whichever block is missing */
  p->p_bytes += (double)g->data_members * (double)len;
  if (g->level == RAID_6)
    p->q_bytes += (double)g->data_members * (double)len;
}

static void raid1_rebuild(const struct raid_geom *g, int target, uint64_t moff, uint64_t len,
                          struct raid_plan *p)
{
  for (int m = 0; m < g->members; m++)
    if (m != target && !raid_failed(g, m)) {
      raid_ext_add(&p->reads, m, moff, len);
      break;
    }
}

static void raid10_rebuild(const struct raid_geom *g, int target, uint64_t moff, uint64_t len,
                           struct raid_plan *p)
{
  int n = g->members;
  if (n % 2 == 0) {
    raid_ext_add(&p->reads, target ^ 1, moff, len);
  } else { /* odd near-2: the copies sit on both neighbours */
    raid_ext_add(&p->reads, (target + 1) % n, moff, len / 2);
    raid_ext_add(&p->reads, (target + n - 1) % n, moff, len - len / 2);
  }
}

/* ---- ops tables ------------------------------------------------------ */

static const struct raid_ops raid_single_ops = {
    .name = "single", .min_members = 1, .max_members = 1,
    .capacity_bytes = raid_linear_capacity, .map = raid_linear_map,
    .plan_read = raid_linear_read, .plan_write = raid_linear_write};
static const struct raid_ops raid_linear_ops = {
    .name = "jbod", .min_members = 1, .max_members = RAID_MAX_MEMBERS,
    .capacity_bytes = raid_linear_capacity, .map = raid_linear_map,
    .plan_read = raid_linear_read, .plan_write = raid_linear_write};
static const struct raid_ops raid0_ops = {
    .name = "0", .min_members = 2, .max_members = RAID_MAX_MEMBERS,
    .capacity_bytes = raid_linear_capacity, .map = raid0_map,
    .plan_read = raid0_read, .plan_write = raid0_write, .can_reshape = 1};
static const struct raid_ops raid1_ops = {
    .name = "1", .min_members = 2, .max_members = RAID_MAX_MEMBERS,
    .capacity_bytes = raid1_capacity, .map = raid1_map,
    .plan_read = raid1_read, .plan_write = raid1_write,
    .plan_resync = raid1_resync, .plan_rebuild = raid1_rebuild};
static const struct raid_ops raid5_ops = { /* md allows a 2-disk RAID-5 */
    .name = "5", .min_members = 2, .max_members = RAID_MAX_MEMBERS,
    .capacity_bytes = raid56_capacity, .map = raid56_map,
    .plan_read = raid56_read, .plan_write = raid56_write,
    .plan_resync = raid56_resync, .plan_rebuild = raid56_rebuild, .can_reshape = 1};
static const struct raid_ops raid6_ops = {
    .name = "6", .min_members = 4, .max_members = RAID_MAX_MEMBERS,
    .capacity_bytes = raid56_capacity, .map = raid56_map,
    .plan_read = raid56_read, .plan_write = raid56_write,
    .plan_resync = raid56_resync, .plan_rebuild = raid56_rebuild, .can_reshape = 1};
static const struct raid_ops raid10_ops = {
    .name = "10", .min_members = 2, .max_members = RAID_MAX_MEMBERS,
    .capacity_bytes = raid10_capacity, .map = raid10_map,
    .plan_read = raid10_read, .plan_write = raid10_write,
    .plan_resync = raid10_resync, .plan_rebuild = raid10_rebuild};

const struct raid_ops *raid_ops_of(int level)
{
  switch (level) {
  case RAID_SINGLE: return &raid_single_ops;
  case RAID_JBOD: return &raid_linear_ops;
  case RAID_0: return &raid0_ops;
  case RAID_1: return &raid1_ops;
  case RAID_5: return &raid5_ops;
  case RAID_6: return &raid6_ops;
  case RAID_10: return &raid10_ops;
  default: return NULL;
  }
}

int raid_effective_level(int level, int members)
{
  if (level == RAID_SHR)
    return members <= 1 ? RAID_SINGLE : members == 2 ? RAID_1 : RAID_5;
  if (level == RAID_SHR2)
    return RAID_6;
  return level;
}

int raid_geom_init(struct raid_geom *g, int level, int layout, int members, uint64_t chunk_bytes,
                   uint64_t member_bytes, struct nw_err *err)
{
  memset(g, 0, sizeof *g);
  if (level < 0 || level >= RAID_LEVEL_COUNT)
    return nw_fail(err, NULL, 0, 0, "volume: level index %d unknown (0..%d)", level,
                   RAID_LEVEL_COUNT - 1);
  int eff = raid_effective_level(level, members);
  const struct raid_ops *ops = raid_ops_of(eff);
  if (members < ops->min_members || members > ops->max_members)
    return nw_fail(err, NULL, 0, 0, "volume: level %s needs %d..%d members, got %d", ops->name,
                   ops->min_members, ops->max_members, members);
  if (level == RAID_SHR2 && members < 4)
    return nw_fail(err, NULL, 0, 0, "volume: level shr2 needs >= 4 members, got %d", members);
  if (layout < 0 || layout >= RAID_LAYOUT_COUNT)
    return nw_fail(err, NULL, 0, 0, "volume: layout index %d unknown (0..%d)", layout,
                   RAID_LAYOUT_COUNT - 1);
  if (chunk_bytes < 4096 || (chunk_bytes & (chunk_bytes - 1)) != 0)
    return nw_fail(err, NULL, 0, 0,
                   "volume: chunk %llu B must be a power of two >= 4096 B",
                   (unsigned long long)chunk_bytes);
  if (member_bytes < chunk_bytes)
    return nw_fail(err, NULL, 0, 0, "volume: member size %llu B is smaller than one chunk (%llu B)",
                   (unsigned long long)member_bytes, (unsigned long long)chunk_bytes);
  g->level = eff;
  g->layout = layout;
  g->members = members;
  g->chunk_bytes = chunk_bytes;
  g->member_bytes = member_bytes / chunk_bytes * chunk_bytes;
  g->parity_members = eff == RAID_5 ? 1 : eff == RAID_6 ? 2 : 0;
  g->data_members = eff == RAID_5 || eff == RAID_6 ? members - g->parity_members
                    : eff == RAID_1                ? 1
                    : eff == RAID_10               ? members / 2
                                                   : members;
  if (g->data_members < 1)
    g->data_members = 1;
  return 0;
}

uint64_t raid_capacity_bytes(const struct raid_geom *g)
{
  return raid_ops_of(g->level)->capacity_bytes(g);
}

void raid_map(const struct raid_geom *g, uint64_t logical_bytes, struct raid_loc *out)
{
  raid_ops_of(g->level)->map(g, logical_bytes, out);
}

void raid_plan_read(const struct raid_geom *g, uint64_t off, uint64_t len, const int *pending,
                    struct raid_plan *p)
{
  raid_ops_of(g->level)->plan_read(g, off, len, pending, p);
}

void raid_plan_write(const struct raid_geom *g, uint64_t off, uint64_t len, struct raid_plan *p)
{
  raid_ops_of(g->level)->plan_write(g, off, len, p);
}

void raid_plan_discard(const struct raid_geom *g, uint64_t off, uint64_t len, struct raid_plan *p)
{
  if (g->parity_members == 0) { /* raid0/1/10/linear split a discard as a write, parity-free */
    raid_ops_of(g->level)->plan_write(g, off, len, p);
    p->reads.n = 0; /* no level without parity reads before a write; kept empty */
    return;
  }
  /* raid5.c make_discard_request: the range is cut to whole stripes
   * (data_members chunks); each discards its chunk row on every member,
   * parity included (R5_Discard on all devices).  The rest is dropped. */
  uint64_t row = (uint64_t)g->data_members * g->chunk_bytes;
  uint64_t s0 = (off + row - 1) / row, s1 = (off + len) / row;
  for (uint64_t st = s0; st < s1; st++)
    for (int m = 0; m < g->members; m++)
      if (!raid_failed(g, m))
        raid_ext_add(&p->writes, m, st * g->chunk_bytes, g->chunk_bytes);
  p->stripes += (int)(s1 > s0 ? s1 - s0 : 0);
}

/* md fails an array once some data has no readable copy left (raid5
 * "failed > max_degraded", raid10 enough(), raid0/linear any member).
 * Linear: the failed members' bytes.  Striped and mirrored levels repeat
 * their layout within `members` rows of data_members chunks (RAID-5/6
 * rotate parity over n rows; RAID-10 near-2 puts chunk c at member 2c mod
 * n), so the lost share is measured exactly on those chunks from the start
 * (each planned as a read with the failed members: lost when no plan
 * reaches it). */
uint64_t raid_lost_bytes(const struct raid_geom *g)
{
  if (g->failed_mask == 0)
    return 0;
  if (g->level == RAID_SINGLE || g->level == RAID_JBOD)
    return (uint64_t)raid_nfailed(g) * g->member_bytes;
  uint64_t cap = raid_capacity_bytes(g), nchunks = cap / g->chunk_bytes;
  uint64_t k = (uint64_t)g->members * (uint64_t)g->data_members, lost = 0;
  if (k > nchunks)
    k = nchunks;
  if (k == 0)
    return 0;
  struct raid_plan p;
  memset(&p, 0, sizeof p);
  for (uint64_t c = 0; c < k; c++) {
    raid_plan_reset(&p);
    raid_plan_read(g, c * g->chunk_bytes, g->chunk_bytes, NULL, &p);
    lost += (uint64_t)p.lost;
  }
  raid_plan_free(&p);
  return (uint64_t)((double)cap * (double)lost / (double)k);
}

uint64_t raid_plan_reshape(const struct raid_geom *o, const struct raid_geom *n, uint64_t moff,
                           uint64_t len, struct raid_plan *p)
{
  uint64_t od = (uint64_t)o->data_members, nd = (uint64_t)n->data_members;
  uint64_t cap = raid_capacity_bytes(o);
  uint64_t l0 = moff * nd, l1 = (moff + len) * nd;
  uint64_t rd = 0;
  if (l0 < cap) {
    if (l1 > cap)
      l1 = cap;
    /* floor at both ends: consecutive windows tile the old members exactly */
    uint64_t r0 = l0 / od, r1 = l1 / od;
    rd = r1 - r0;
    if (rd > 0)
      for (int m = 0; m < o->members; m++)
        raid_ext_add(&p->reads, m, r0, rd);
  }
  for (int m = 0; m < n->members; m++)
    raid_ext_add(&p->writes, m, moff, len);
  p->p_bytes += (double)(len * nd);
  if (n->parity_members == 2)
    p->q_bytes += (double)(len * nd);
  return rd;
}

void raid_plan_resync(const struct raid_geom *g, uint64_t moff, uint64_t len, struct raid_plan *p)
{
  const struct raid_ops *ops = raid_ops_of(g->level);
  if (ops->plan_resync != NULL) /* no redundancy: nothing to resync */
    ops->plan_resync(g, moff, len, p);
}

void raid_plan_rebuild(const struct raid_geom *g, int target, uint64_t moff, uint64_t len,
                       struct raid_plan *p)
{
  const struct raid_ops *ops = raid_ops_of(g->level);
  if (ops->plan_rebuild == NULL) {
    p->lost = 1; /* nothing to rebuild from */
    return;
  }
  ops->plan_rebuild(g, target, moff, len, p);
  raid_ext_add(&p->writes, target, moff, len);
}

int raid_redundant(const struct raid_geom *g)
{
  return raid_ops_of(g->level)->plan_rebuild != NULL;
}

/* md's grow paths as DSM uses them: RAID-5/6 and RAID-0 reshape onto added
 * disks (raid5 check_reshape / raid0 takeover to raid4 and back); migration
 * single/1-disk JBOD -> 2-disk RAID-1 (raid1 recovery onto the added disk)
 * and 2-disk RAID-1 -> RAID-5 (raid5 takeover_raid1: a 2-disk RAID-1 is a
 * 2-disk RAID-5 as it stands, then a reshape). */
int raid_grow_plan(const struct raid_geom *g, int reshape, int target_level, int new_members,
                   struct raid_geom *from, struct raid_geom *to, struct nw_err *err)
{
  int tl = raid_effective_level(reshape ? g->level : target_level, new_members);
  if (g->failed_mask != 0)
    return nw_fail(err, NULL, 0, 0, "reshape/migrate: the array is degraded");
  if (reshape && !raid_ops_of(g->level)->can_reshape)
    return nw_fail(err, NULL, 0, 0, "reshape: level %s cannot grow by reshape (5, 6, 0 can)",
                   raid_ops_of(g->level)->name);
  *from = *g;
  if (!reshape) {
    int from_single = (g->level == RAID_SINGLE || g->level == RAID_JBOD) && g->members == 1;
    if (!(from_single && tl == RAID_1 && new_members == 2) &&
        !(g->level == RAID_1 && g->members == 2 && tl == RAID_5))
      return nw_fail(err, NULL, 0, 0,
                     "migrate: supported are single/jbod(1 disk) -> 1 (2 disks) and "
                     "1 (2 disks) -> 5; got %s (%d) -> level index %d (%d)",
                     raid_ops_of(g->level)->name, g->members, target_level, new_members);
    if (g->level == RAID_1 &&
        raid_geom_init(from, RAID_5, RAID_LEFT_SYMMETRIC, 2, g->chunk_bytes, g->member_bytes, err) != 0)
      return -1;
  }
  return raid_geom_init(to, tl, from->level != g->level ? RAID_LEFT_SYMMETRIC : g->layout, new_members,
                        g->chunk_bytes, g->member_bytes, err);
}
