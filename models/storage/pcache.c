/* pcache.c - LRU block cache with dirty FIFO.  See pcache.h.
 *
 * Blocks live in a growable node array; an open-addressing hash table
 * (linear probing, backward-shift deletion) maps block number -> node.
 * Each slot keeps the low 32 bits of its block's hash beside the node
 * index, so a probe compares them without reading the node (a cache miss
 * in a large cache) and a deletion finds a slot's home bucket likewise;
 * the buckets are the same as with the index alone.
 * Two intrusive doubly linked lists: clean LRU and dirty FIFO.  Each
 * block carries a present mask and a dirty mask of its units (dirty is a
 * subset of present); RAM is counted in present units. */
#include "models/storage/pcache.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PCACHE_NIL UINT32_MAX

struct pcache_node {
  uint64_t block;
  uint32_t prev, next; /* in the clean LRU or the dirty FIFO */
  int dirty;           /* on the dirty FIFO: dirty_mask != 0 */
  uint64_t present_mask; /* bit u: unit u of the block is cached */
  uint64_t dirty_mask;   /* bit u: dirty unit u of the block */
  double dirty_s;
};

struct pcache_slot {
  uint32_t node; /* node index, PCACHE_NIL when empty */
  uint32_t hash; /* low 32 bits of pcache_hash(node's block) */
};

struct pcache {
  uint64_t block_bytes, cap_blocks;
  int block_shift, unit_shift; /* log2 of block_bytes / unit_bytes, -1 if not a power of two */
  uint64_t unit_bytes, units_per_block, cap_units; /* present/dirty granularity */
  int slots; /* 1: a block in use takes all its units of the capacity (pcache_set_slots) */
  struct pcache_node *node;
  uint32_t nnode, node_cap, free_head; /* free nodes chained through .next */
  struct pcache_slot *slot;            /* hash table */
  uint64_t nslot;                      /* power of two, <= 2^32 */
  uint64_t used, npresent, ndirty; /* blocks in use; present units; dirty units */
  uint32_t lru_head, lru_tail;         /* head = most recently used */
  uint32_t dirty_head, dirty_tail;     /* head = oldest */
  uint64_t hits, misses;
  /* write-back sweep (pcache_take_dirty_sweep): dirty blocks of this pass
   * in ascending order, the next one to look at, the cursor */
  uint64_t *sweep;
  size_t sweep_n, sweep_i, sweep_cap;
  uint64_t sweep_next_block;
};

static uint64_t pcache_hash(uint64_t b)
{
  b ^= b >> 33;
  b *= 0xff51afd7ed558ccdULL;
  b ^= b >> 33;
  return b;
}

static void pcache_slots_clear(struct pcache_slot *slot, uint64_t n)
{
  for (uint64_t i = 0; i < n; i++)
    slot[i] = (struct pcache_slot){.node = PCACHE_NIL, .hash = 0};
}

/* log2(x) for a power of two, else -1: the divisions by the block and
 * unit sizes on the look-up paths become shifts (the same quotients). */
static int pcache_log2(uint64_t x)
{
  if (x == 0 || (x & (x - 1)) != 0)
    return -1;
  int k = 0;
  while ((x >>= 1) != 0)
    k++;
  return k;
}

/* x / block_bytes */
static inline uint64_t pcache_blk(const struct pcache *c, uint64_t x)
{
  return c->block_shift >= 0 ? x >> c->block_shift : x / c->block_bytes;
}

/* x / unit_bytes */
static inline uint64_t pcache_unit(const struct pcache *c, uint64_t x)
{
  return c->unit_shift >= 0 ? x >> c->unit_shift : x / c->unit_bytes;
}

struct pcache *pcache_create(uint64_t capacity_bytes, uint64_t block_bytes)
{
  if (block_bytes == 0 || capacity_bytes < block_bytes)
    return NULL;
  struct pcache *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  c->block_bytes = block_bytes;
  c->cap_blocks = capacity_bytes / block_bytes;
  c->unit_bytes = block_bytes;
  c->block_shift = c->unit_shift = pcache_log2(block_bytes);
  c->units_per_block = 1;
  c->cap_units = c->cap_blocks;
  c->nslot = 64;
  c->slot = malloc(c->nslot * sizeof *c->slot);
  if (c->slot == NULL) {
    pcache_destroy(c);
    return NULL;
  }
  pcache_slots_clear(c->slot, c->nslot);
  c->free_head = c->lru_head = c->lru_tail = c->dirty_head = c->dirty_tail = PCACHE_NIL;
  return c;
}

void pcache_destroy(struct pcache *c)
{
  if (c == NULL)
    return;
  free(c->node);
  free(c->slot);
  free(c->sweep);
  free(c);
}

uint64_t pcache_block_bytes(const struct pcache *c)
{
  return c->block_bytes;
}

uint64_t pcache_capacity_bytes(const struct pcache *c)
{
  return c->cap_blocks * c->block_bytes;
}

uint64_t pcache_unit_bytes(const struct pcache *c)
{
  return c->unit_bytes;
}

int pcache_set_unit(struct pcache *c, uint64_t unit_bytes)
{
  if (unit_bytes == 0 || c->block_bytes % unit_bytes != 0 || c->block_bytes / unit_bytes > 64 ||
      c->used > 0)
    return -1;
  c->unit_bytes = unit_bytes;
  c->unit_shift = pcache_log2(unit_bytes);
  c->units_per_block = c->block_bytes / unit_bytes;
  c->cap_units = c->cap_blocks * c->units_per_block;
  return 0;
}

int pcache_set_slots(struct pcache *c)
{
  if (c->used > 0)
    return -1;
  c->slots = 1;
  return 0;
}

/* Units of the capacity taken now. */
static uint64_t pcache_taken(const struct pcache *c)
{
  return c->slots ? c->used * c->units_per_block : c->npresent;
}

/* Mask of the units of block b that [off, off+len) covers (len > 0). */
static uint64_t pcache_unit_mask(const struct pcache *c, uint64_t b, uint64_t off, uint64_t len)
{
  uint64_t lo = b * c->block_bytes, hi = lo + c->block_bytes;
  uint64_t a = off > lo ? off : lo, z = off + len < hi ? off + len : hi;
  uint64_t u0 = pcache_unit(c, a - lo), u1 = pcache_unit(c, z - 1 - lo);
  uint64_t n = u1 - u0 + 1;
  return (n >= 64 ? ~0ULL : ((1ULL << n) - 1)) << u0;
}

static uint64_t pcache_popcount(uint64_t m)
{
  uint64_t n = 0;
  for (; m; m &= m - 1)
    n++;
  return n;
}

/* The slot of block (hashed h) or the empty slot ending its probe. */
static uint64_t pcache_find_slot_h(const struct pcache *c, uint64_t block, uint64_t h)
{
  uint64_t mask = c->nslot - 1, i = h & mask;
  uint32_t h32 = (uint32_t)h;
  for (;;) {
    const struct pcache_slot *sl = &c->slot[i];
    if (sl->node == PCACHE_NIL || (sl->hash == h32 && c->node[sl->node].block == block))
      return i;
    i = (i + 1) & mask;
  }
}

static uint64_t pcache_find_slot(const struct pcache *c, uint64_t block)
{
  return pcache_find_slot_h(c, block, pcache_hash(block));
}

static uint32_t pcache_get(const struct pcache *c, uint64_t block)
{
  return c->slot[pcache_find_slot(c, block)].node;
}

uint64_t pcache_present_run_end(const struct pcache *c, uint64_t x, uint64_t limit)
{
  uint64_t ub = c->unit_bytes, upb = c->units_per_block;
  while (x < limit) {
    uint64_t gu = pcache_unit(c, x), b = gu / upb, u = gu % upb;
    uint32_t n = pcache_get(c, b);
    if (n == PCACHE_NIL)
      break;
    uint64_t m = ~(c->node[n].present_mask >> u); /* bit k clear: unit u + k present */
    uint64_t run = m == 0 ? 64 - u : (uint64_t)__builtin_ctzll(m);
    if (run > upb - u)
      run = upb - u;
    if (run == 0)
      break;
    uint64_t end = (gu + run) * ub, stop = (limit + ub - 1) / ub * ub; /* unit boundary at or past limit */
    x = end < stop ? end : stop;
    if (u + run < upb)
      break; /* an absent unit in this block */
  }
  return x;
}

uint64_t pcache_present_run_start(const struct pcache *c, uint64_t y, uint64_t limit)
{
  uint64_t ub = c->unit_bytes, upb = c->units_per_block;
  while (y > limit) {
    uint64_t gu = pcache_unit(c, y - 1), b = gu / upb, u = gu % upb;
    uint32_t n = pcache_get(c, b);
    if (n == PCACHE_NIL)
      break;
    uint64_t m = ~(c->node[n].present_mask << (63 - u)); /* bit 63 - k clear: unit u - k present */
    uint64_t run = m == 0 ? u + 1 : (uint64_t)__builtin_clzll(m);
    if (run > u + 1)
      run = u + 1;
    if (run == 0)
      break;
    uint64_t start = (gu + 1 - run) * ub, stop = limit / ub * ub; /* unit boundary at or below limit */
    y = start > stop ? start : stop;
    if (run < u + 1)
      break; /* an absent unit in this block */
  }
  return y;
}

void pcache_prefetch_slot(const struct pcache *c, uint64_t off)
{
  __builtin_prefetch(&c->slot[pcache_hash(pcache_blk(c, off)) & (c->nslot - 1)]);
}

/* The node of block b if its probe's first slot holds it, else NIL
 * (reads no node but the one it returns). */
static uint32_t pcache_first_probe(const struct pcache *c, uint64_t b)
{
  uint64_t h = pcache_hash(b);
  const struct pcache_slot *sl = &c->slot[h & (c->nslot - 1)];
  return sl->node != PCACHE_NIL && sl->hash == (uint32_t)h ? sl->node : PCACHE_NIL;
}

void pcache_prefetch_node(const struct pcache *c, uint64_t off)
{
  uint32_t x = pcache_first_probe(c, pcache_blk(c, off));
  if (x != PCACHE_NIL)
    __builtin_prefetch(&c->node[x]);
}

void pcache_prefetch_links(const struct pcache *c, uint64_t off)
{
  uint32_t x = pcache_first_probe(c, pcache_blk(c, off));
  if (x == PCACHE_NIL)
    return;
  const struct pcache_node *n = &c->node[x];
  if (n->prev != PCACHE_NIL)
    __builtin_prefetch(&c->node[n->prev]);
  if (n->next != PCACHE_NIL)
    __builtin_prefetch(&c->node[n->next]);
}

uint64_t pcache_clean_blocks_in(const struct pcache *c, uint64_t off, uint64_t len)
{
  if (len == 0)
    return 0;
  uint64_t n = 0;
  for (uint64_t b = pcache_blk(c, off); b <= pcache_blk(c, off + len - 1); b++) {
    uint32_t x = pcache_get(c, b);
    n += x == PCACHE_NIL || !c->node[x].dirty;
  }
  return n;
}

static int pcache_rehash(struct pcache *c, uint64_t nslot)
{
  if (nslot > (uint64_t)1 << 32)
    return -1;
  struct pcache_slot *ns = malloc(nslot * sizeof *ns);
  if (ns == NULL)
    return -1;
  pcache_slots_clear(ns, nslot);
  struct pcache_slot *old = c->slot;
  uint64_t oldn = c->nslot, mask = nslot - 1;
  c->slot = ns;
  c->nslot = nslot;
  /* every block differs: each goes to the first empty slot of its probe */
  for (uint64_t i = 0; i < oldn; i++)
    if (old[i].node != PCACHE_NIL) {
      uint64_t j = pcache_hash(c->node[old[i].node].block) & mask;
      while (ns[j].node != PCACHE_NIL)
        j = (j + 1) & mask;
      ns[j] = old[i];
    }
  free(old);
  return 0;
}

static void pcache_hash_del(struct pcache *c, uint64_t block)
{
  uint64_t mask = c->nslot - 1, i = pcache_find_slot(c, block);
  if (c->slot[i].node == PCACHE_NIL)
    return;
  c->slot[i].node = PCACHE_NIL;
  uint64_t j = i;
  for (;;) { /* backward-shift deletion */
    j = (j + 1) & mask;
    if (c->slot[j].node == PCACHE_NIL)
      return;
    uint64_t h = c->slot[j].hash & mask; /* mask < 2^32: the hash's low bits */
    int move = (i <= j) ? (h <= i || h > j) : (h <= i && h > j);
    if (move) {
      c->slot[i] = c->slot[j];
      c->slot[j].node = PCACHE_NIL;
      i = j;
    }
  }
}

static void pcache_unlink(struct pcache *c, uint32_t x)
{
  struct pcache_node *n = &c->node[x];
  uint32_t *head = n->dirty ? &c->dirty_head : &c->lru_head;
  uint32_t *tail = n->dirty ? &c->dirty_tail : &c->lru_tail;
  if (n->prev != PCACHE_NIL)
    c->node[n->prev].next = n->next;
  else
    *head = n->next;
  if (n->next != PCACHE_NIL)
    c->node[n->next].prev = n->prev;
  else
    *tail = n->prev;
  n->prev = n->next = PCACHE_NIL;
}

/* Clean: push at the LRU head.  Dirty: append at the FIFO tail. */
static void pcache_link(struct pcache *c, uint32_t x)
{
  struct pcache_node *n = &c->node[x];
  if (!n->dirty) {
    n->prev = PCACHE_NIL;
    n->next = c->lru_head;
    if (c->lru_head != PCACHE_NIL)
      c->node[c->lru_head].prev = x;
    c->lru_head = x;
    if (c->lru_tail == PCACHE_NIL)
      c->lru_tail = x;
  } else {
    n->next = PCACHE_NIL;
    n->prev = c->dirty_tail;
    if (c->dirty_tail != PCACHE_NIL)
      c->node[c->dirty_tail].next = x;
    c->dirty_tail = x;
    if (c->dirty_head == PCACHE_NIL)
      c->dirty_head = x;
  }
}

static void pcache_remove(struct pcache *c, uint32_t x)
{
  pcache_unlink(c, x);
  pcache_hash_del(c, c->node[x].block);
  c->ndirty -= pcache_popcount(c->node[x].dirty_mask);
  c->npresent -= pcache_popcount(c->node[x].present_mask);
  c->used--;
  c->node[x].next = c->free_head;
  c->free_head = x;
}

static uint32_t pcache_alloc(struct pcache *c)
{
  if (c->free_head != PCACHE_NIL) {
    uint32_t x = c->free_head;
    c->free_head = c->node[x].next;
    return x;
  }
  if (c->nnode == c->node_cap) {
    uint32_t cap = c->node_cap ? 2 * c->node_cap : 64;
    struct pcache_node *v = realloc(c->node, (size_t)cap * sizeof *v);
    if (v == NULL)
      return PCACHE_NIL;
    c->node = v;
    c->node_cap = cap;
  }
  return c->nnode++;
}

void pcache_lookup(struct pcache *c, uint64_t off, uint64_t len, int touch, uint64_t *hit_blocks,
                   uint64_t *total_blocks)
{
  uint64_t b0 = pcache_blk(c, off), b1 = pcache_blk(c, off + len - 1), hit = 0;
  for (uint64_t b = b0; len > 0 && b <= b1; b++) {
    uint32_t x = pcache_get(c, b);
    if (x == PCACHE_NIL)
      continue;
    uint64_t want = pcache_unit_mask(c, b, off, len);
    if ((c->node[x].present_mask & want) == want)
      hit++; /* a block with some requested unit missing is a miss */
    if (touch && !c->node[x].dirty) {
      pcache_unlink(c, x);
      pcache_link(c, x);
    }
  }
  uint64_t total = len > 0 ? b1 - b0 + 1 : 0;
  if (touch) {
    c->hits += hit;
    c->misses += total - hit;
  }
  *hit_blocks = hit;
  *total_blocks = total;
}

/* Evict clean blocks from the LRU's cold end until `need` more units fit;
 * -1 when the rest is dirty.  The caller unlinks a clean block it is
 * growing, so that it is not evicted. */
static int pcache_make_room(struct pcache *c, uint64_t need)
{
  while (pcache_taken(c) + need > c->cap_units) {
    if (c->lru_tail == PCACHE_NIL)
      return -1;
    pcache_remove(c, c->lru_tail);
  }
  return 0;
}

uint64_t pcache_insert(struct pcache *c, uint64_t off, uint64_t len, int dirty, double now_s)
{
  if (len == 0)
    return 0;
  uint64_t b0 = pcache_blk(c, off), b1 = pcache_blk(c, off + len - 1), refused = 0;
  for (uint64_t b = b0; b <= b1; b++) {
    uint32_t x = pcache_get(c, b);
    uint64_t mask = pcache_unit_mask(c, b, off, len);
    if (x != PCACHE_NIL) {
      struct pcache_node *n = &c->node[x];
      uint64_t add = mask & ~n->present_mask;
      if (!n->dirty)
        pcache_unlink(c, x); /* relinked below: most recently used or dirty */
      if (add != 0 && !c->slots && pcache_make_room(c, pcache_popcount(add)) != 0) {
        if (!n->dirty)
          pcache_link(c, x);
        refused++;
        continue;
      }
      n->present_mask |= add;
      c->npresent += pcache_popcount(add);
      if (dirty && !n->dirty) {
        n->dirty = 1;
        n->dirty_mask = mask;
        n->dirty_s = now_s;
        c->ndirty += pcache_popcount(mask);
        pcache_link(c, x);
      } else if (dirty) { /* keeps its place in the FIFO (first dirtied) */
        c->ndirty += pcache_popcount(mask & ~n->dirty_mask);
        n->dirty_mask |= mask;
      } else if (!n->dirty) {
        pcache_link(c, x);
      }
      continue;
    }
    if (pcache_make_room(c, c->slots ? c->units_per_block : pcache_popcount(mask)) != 0) {
      refused++;
      continue;
    }
    if ((c->used + 1) * 2 > c->nslot && pcache_rehash(c, c->nslot * 2) != 0) {
      refused++;
      continue;
    }
    x = pcache_alloc(c);
    if (x == PCACHE_NIL) {
      refused++;
      continue;
    }
    c->node[x] = (struct pcache_node){.block = b, .prev = PCACHE_NIL, .next = PCACHE_NIL, .dirty = dirty,
                                      .present_mask = mask, .dirty_mask = dirty ? mask : 0, .dirty_s = now_s};
    uint64_t h = pcache_hash(b);
    c->slot[pcache_find_slot_h(c, b, h)] = (struct pcache_slot){.node = x, .hash = (uint32_t)h};
    c->used++;
    c->npresent += pcache_popcount(mask);
    c->ndirty += dirty ? pcache_popcount(mask) : 0;
    pcache_link(c, x);
  }
  return refused;
}

void pcache_invalidate(struct pcache *c, uint64_t off, uint64_t len)
{
  if (len == 0)
    return;
  uint64_t b0 = pcache_blk(c, off), b1 = pcache_blk(c, off + len - 1);
  for (uint64_t b = b0; b <= b1; b++) {
    uint32_t x = pcache_get(c, b);
    if (x == PCACHE_NIL)
      continue;
    struct pcache_node *n = &c->node[x];
    uint64_t mask = pcache_unit_mask(c, b, off, len);
    if ((n->present_mask & ~mask) == 0) {
      pcache_remove(c, x);
      continue;
    }
    /* only some of its units: the others stay, dirty or not */
    c->npresent -= pcache_popcount(n->present_mask & mask);
    c->ndirty -= pcache_popcount(n->dirty_mask & mask);
    n->present_mask &= ~mask;
    n->dirty_mask &= ~mask;
    if (n->dirty && n->dirty_mask == 0) {
      pcache_unlink(c, x);
      n->dirty = 0;
      pcache_link(c, x);
    }
  }
}

uint64_t pcache_used_bytes(const struct pcache *c)
{
  return c->npresent * c->unit_bytes;
}

uint64_t pcache_dirty_bytes(const struct pcache *c)
{
  return c->ndirty * c->unit_bytes;
}

uint64_t pcache_dirty_bytes_in(const struct pcache *c, uint64_t off, uint64_t len)
{
  if (len == 0)
    return 0;
  uint64_t n = 0;
  for (uint32_t x = c->dirty_head; x != PCACHE_NIL; x = c->node[x].next) {
    uint64_t b = c->node[x].block, lo = b * c->block_bytes;
    if (lo + c->block_bytes <= off || lo >= off + len)
      continue;
    n += pcache_popcount(c->node[x].dirty_mask & pcache_unit_mask(c, b, off, len));
  }
  return n * c->unit_bytes;
}

double pcache_oldest_dirty_s(const struct pcache *c)
{
  return c->dirty_head == PCACHE_NIL ? INFINITY : c->node[c->dirty_head].dirty_s;
}

/* Take the first run of dirty units of block node x, continued into the
 * following blocks while they are dirty from their first unit on. */
static void pcache_take_from(struct pcache *c, uint32_t x, uint64_t max_bytes, uint64_t *off, uint64_t *len)
{
  uint64_t maxu = max_bytes / c->unit_bytes, taken = 0;
  if (maxu == 0)
    maxu = 1;
  uint64_t b = c->node[x].block, u = 0;
  while (!(c->node[x].dirty_mask >> u & 1u))
    u++;
  *off = b * c->block_bytes + u * c->unit_bytes;
  for (;;) {
    struct pcache_node *n = &c->node[x];
    while (u < c->units_per_block && (n->dirty_mask >> u & 1u) && taken < maxu) {
      n->dirty_mask &= ~(1ULL << u);
      c->ndirty--;
      taken++;
      u++;
    }
    if (n->dirty_mask == 0) {
      pcache_unlink(c, x);
      n->dirty = 0;
      pcache_link(c, x);
    }
    if (u < c->units_per_block || taken >= maxu)
      break;
    x = pcache_get(c, ++b);
    u = 0;
    if (x == PCACHE_NIL || !(c->node[x].dirty_mask & 1u))
      break;
  }
  *len = taken * c->unit_bytes;
}

int pcache_take_dirty(struct pcache *c, uint64_t max_bytes, uint64_t *off, uint64_t *len)
{
  if (c->dirty_head == PCACHE_NIL)
    return 0;
  pcache_take_from(c, c->dirty_head, max_bytes, off, len);
  return 1;
}

int pcache_take_dirty_in(struct pcache *c, uint64_t off, uint64_t len, uint64_t max_bytes,
                         uint64_t *run_off, uint64_t *run_len)
{
  if (len == 0 || c->dirty_head == PCACHE_NIL)
    return 0;
  uint64_t unit = c->unit_bytes, upb = c->units_per_block;
  uint64_t maxu = max_bytes / unit > 0 ? max_bytes / unit : 1;
  uint64_t gu = off / unit, end = (off + len + unit - 1) / unit, first = 0, taken = 0;
  while (gu < end && taken < maxu) {
    uint64_t b = gu / upb, u = gu % upb;
    uint32_t x = pcache_get(c, b);
    if (x == PCACHE_NIL || !c->node[x].dirty || !(c->node[x].dirty_mask >> u & 1u)) {
      if (taken > 0)
        break; /* the run ends */
      gu = x == PCACHE_NIL || !c->node[x].dirty ? (b + 1) * upb : gu + 1;
      continue;
    }
    struct pcache_node *n = &c->node[x];
    if (taken == 0)
      first = gu;
    n->dirty_mask &= ~(1ULL << u);
    c->ndirty--;
    taken++;
    gu++;
    if (n->dirty_mask == 0) { /* clean now: most recently used */
      pcache_unlink(c, x);
      n->dirty = 0;
      pcache_link(c, x);
    }
  }
  if (taken == 0)
    return 0;
  *run_off = first * unit;
  *run_len = taken * unit;
  return 1;
}

static int pcache_u64_cmp(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* A new pass: the blocks dirty now, ascending from the cursor, wrapping. */
static int pcache_sweep_rebuild(struct pcache *c)
{
  size_t n = 0;
  for (uint32_t x = c->dirty_head; x != PCACHE_NIL; x = c->node[x].next)
    n++;
  if (n > c->sweep_cap) {
    uint64_t *v = realloc(c->sweep, n * sizeof *v);
    if (v == NULL)
      return -1;
    c->sweep = v;
    c->sweep_cap = n;
  }
  n = 0;
  for (uint32_t x = c->dirty_head; x != PCACHE_NIL; x = c->node[x].next)
    c->sweep[n++] = c->node[x].block;
  qsort(c->sweep, n, sizeof *c->sweep, pcache_u64_cmp);
  size_t k = 0; /* first block at or after the cursor */
  while (k < n && c->sweep[k] < c->sweep_next_block)
    k++;
  if (k > 0 && k < n) { /* rotate: [k, n) then [0, k) */
    uint64_t *tmp = malloc(k * sizeof *tmp);
    if (tmp == NULL)
      return -1;
    memcpy(tmp, c->sweep, k * sizeof *tmp);
    memmove(c->sweep, c->sweep + k, (n - k) * sizeof *tmp);
    memcpy(c->sweep + (n - k), tmp, k * sizeof *tmp);
    free(tmp);
  }
  c->sweep_n = n;
  c->sweep_i = 0;
  return 0;
}

int pcache_take_dirty_sweep(struct pcache *c, uint64_t max_bytes, uint64_t *off, uint64_t *len)
{
  if (c->dirty_head == PCACHE_NIL)
    return 0;
  for (int pass = 0; pass < 2; pass++) {
    while (c->sweep_i < c->sweep_n) {
      uint32_t x = pcache_get(c, c->sweep[c->sweep_i]);
      if (x == PCACHE_NIL || !c->node[x].dirty) {
        c->sweep_i++; /* written back or dropped since the pass began */
        continue;
      }
      pcache_take_from(c, x, max_bytes, off, len);
      c->sweep_next_block = (*off + *len + c->block_bytes - 1) / c->block_bytes;
      return 1;
    }
    if (pcache_sweep_rebuild(c) != 0)
      break;
  }
  /* no memory for the pass (or nothing found): oldest first */
  return pcache_take_dirty(c, max_bytes, off, len);
}

uint64_t pcache_hit_blocks(const struct pcache *c)
{
  return c->hits;
}

uint64_t pcache_miss_blocks(const struct pcache *c)
{
  return c->misses;
}
