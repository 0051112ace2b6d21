/* stack_precond.c - the steady state a long run of the step's jobs leaves
 * in the page cache, the member disks' caches and the SSD cache
 * (stack_precondition; see the README). */
#include "models/storage/stack_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* splitmix64: the preconditioning's random streams (seeded per job) */
static uint64_t stk_splitmix(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Mark `dirty_bytes` of [off, off+len) dirty in cache c, in runs of `unit`
 * bytes at uniformly random places of the range (the state random writes
 * leave): exactly that many units, each subset equally likely (selection
 * sampling, Knuth's algorithm S, from the stream `seed`).  Evenly spaced
 * units instead alias with the RAID stripe period (a fixed stride puts
 * the pages on a few members' data and parity), so their write-back loads
 * some disks far more than a long run's random pages do: a 4K 70/30 mix
 * on 8-disk RAID-6 settled 22 % slower than the long run. */
static void stk_precond_spread(struct pcache *c, uint64_t off, uint64_t len, uint64_t unit,
                               double dirty_bytes, uint64_t seed)
{
  uint64_t nblk = (len + unit - 1) / unit;
  double want = floor(dirty_bytes / (double)unit + 1e-9);
  uint64_t need = want < (double)nblk ? (uint64_t)want : nblk;
  uint64_t run_start = 0, run_len = 0, x = seed;
  for (uint64_t b = 0; b < nblk && need > 0; b++) {
    double u = (double)(stk_splitmix(&x) >> 11) * 0x1.0p-53;
    if (!(u * (double)(nblk - b) < (double)need))
      continue;
    need--;
    if (run_len > 0 && run_start + run_len == b) {
      run_len++;
    } else {
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
                               double dirty_bytes, int job)
{
  if (p->run_bytes < len) { /* in whole writes: pages of run_bytes together */
    uint64_t unit = (p->run_bytes + RAID_PAGE_BYTES - 1) / RAID_PAGE_BYTES * RAID_PAGE_BYTES;
    stk_precond_spread(s->pc, off, len, unit, dirty_bytes, s->cfg.seed * 0x100000001b3ULL + (uint64_t)job + 0x51);
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

/* Does an earlier job have job i's region and kind of access (fio numjobs
 * on one file)?  They precondition the region together: once. */
static int stk_precond_same_region(const struct stack_precond *jobs, int i)
{
  for (int k = 0; k < i; k++)
    if (jobs[k].offset_bytes == jobs[i].offset_bytes && jobs[k].len_bytes == jobs[i].len_bytes &&
        jobs[k].run_bytes == jobs[i].run_bytes && jobs[k].write_fraction == jobs[i].write_fraction)
      return 1;
  return 0;
}

/* fio's random map: a random job touches every bs-piece of its region
 * once per pass, in a random order (fio keeps an axmap of the blocks done).
 * The order here is a full-period LCG over the next power of two, values
 * past the region skipped (no memory); its constants come from the seed. */
struct stk_perm {
  uint64_t x, a, c, mask, n;
};

/* The SSD cache's preconditioning looks STK_PF_AHEAD pieces ahead: it
 * prefetches the directory's hash slot STK_PF_SLOT pieces before a piece's
 * turn, its node STK_PF_NODE before, the node's list neighbours
 * STK_PF_LINKS before (each stage needs the one before it in cache). */
#define STK_PF_AHEAD 32u
#define STK_PF_SLOT 24u
#define STK_PF_NODE 12u
#define STK_PF_LINKS 4u

static void stk_perm_init(struct stk_perm *p, uint64_t n, uint64_t seed)
{
  uint64_t m = 1;
  while (m < n)
    m <<= 1;
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
  z ^= z >> 31;
  p->mask = m - 1;
  p->n = n;
  p->a = ((z & p->mask) | 1u) << 2 | 1u; /* a = 1 mod 4: full period mod 2^k */
  p->c = (z >> 17) | 1u;                  /* odd */
  p->x = (z >> 7) & p->mask;
}

static uint64_t stk_perm_next(struct stk_perm *p)
{
  do
    p->x = (p->a * p->x + p->c) & p->mask;
  while (p->x >= p->n);
  return p->x;
}

/* SSD cache after a long run of the job: the job's own accesses run
 * through the cache's admission (stk_ssd_touch), precond_passes of them per
 * I/O-sized piece of min(region, capacity), so what is cached and dirty
 * emerges from the capacity, the working set and the write share.  A
 * random job visits its region's bs-pieces in a random order, each once a
 * pass (fio's random map); a sequential one in address order. */
static void stk_precond_ssd(struct stack *s, uint64_t off, uint64_t len, const struct stack_precond *p, int job)
{
  const struct ssdcache_params *sp = &s->cfg.ssdcache;
  uint64_t bs = p->run_bytes < len && p->run_bytes > 0 ? p->run_bytes : (uint64_t)sp->block_bytes;
  int seq = p->run_bytes >= len;
  if (sp->seq_bypass_bytes > 0 && (double)p->run_bytes > sp->seq_bypass_bytes)
    return; /* the bypass never lets this job's runs in */
  double span = fmin((double)len, sp->capacity_bytes);
  uint64_t n = (uint64_t)ceil(sp->precond_passes * span / (double)bs);
  uint64_t slots = len / bs > 0 ? len / bs : 1;
  struct stk_perm perm;
  stk_perm_init(&perm, slots, s->cfg.seed * 0x100000001b3ULL + (uint64_t)job + 1);
  /* the pieces' order drawn STK_PF_AHEAD ahead, so that the directory's
   * hash slots, nodes and their LRU neighbours are fetched into the
   * processor's cache before their turn (a hint only) */
  uint64_t ahead[STK_PF_AHEAD];
  for (uint64_t i = 0; i < STK_PF_AHEAD && i < n; i++)
    ahead[i] = seq ? i % slots : stk_perm_next(&perm);
  double wacc = 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t k = ahead[i % STK_PF_AHEAD];
    if (i + STK_PF_AHEAD < n)
      ahead[i % STK_PF_AHEAD] = seq ? (i + STK_PF_AHEAD) % slots : stk_perm_next(&perm);
    if (i + STK_PF_SLOT < n)
      pcache_prefetch_slot(s->sc, off + ahead[(i + STK_PF_SLOT) % STK_PF_AHEAD] * bs);
    if (i + STK_PF_NODE < n)
      pcache_prefetch_node(s->sc, off + ahead[(i + STK_PF_NODE) % STK_PF_AHEAD] * bs);
    if (i + STK_PF_LINKS < n)
      pcache_prefetch_links(s->sc, off + ahead[(i + STK_PF_LINKS) % STK_PF_AHEAD] * bs);
    /* the write share as an even interleave (error diffusion): no draw */
    wacc += p->write_fraction;
    int w = wacc >= 1.0 - 1e-9;
    if (w)
      wacc -= 1.0;
    stk_ssd_touch(s, off + k * bs, bs, w, 0.0);
  }
  /* the destager looks again when the oldest dirty block comes of age */
  if (!s->destage_timer && pcache_dirty_bytes(s->sc) > 0) {
    s->destage_timer = 1;
    stk_tm_push(s, sp->fallow_s, TM_DESTAGE, NULL);
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
  /* A pure buffered writer outruns the disks (RAM takes its writes at
   * the client's speed), so balance_dirty_pages holds the dirty level at
   * the limit.  Writers that also read are paced by their own reads,
   * which the disks serve alongside the write-back, so write-back keeps
   * up and the background flusher holds the level at
   * dirty_background_ratio (a 4K 70/30 mix on RAID-6 HDDs settles there
   * in a long cold run).  Each writer's part of it is its write rate x
   * how long a page stays dirty, the same for all (one write-back queue):
   * in proportion to its rate */
  uint64_t level = s->dirty_bg;
  for (int i = 0; i < njobs; i++)
    if (claim[i] > 0 && jobs[i].write_fraction >= 1.0)
      level = s->dirty_limit;
  double room = 0;
  if (s->pc != NULL && pcache_dirty_bytes(s->pc) < level)
    room = (double)(level - pcache_dirty_bytes(s->pc));
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
      stk_precond_pcache(s, off, len, &jobs[i], dirty[i], i);
    stk_precond_members(s, off, len, &jobs[i], dirty[i], share[i]);
    if (s->sc != NULL && !stk_precond_same_region(jobs, i))
      stk_precond_ssd(s, off, len, &jobs[i], i);
  }
  free(v);
  return 0;
}
