/* pcache.h - an LRU block cache with dirty accounting (pure data, no time
 * of its own).  Used as the NAS page cache, as the SSD cache directory, and
 * reusable as a client-side cache (e.g. IOZone on the client host).
 *
 * The address space is cut into blocks of block_bytes, and each block into
 * at most 64 units (pcache_set_unit; default one unit = the block).  A
 * block records which of its units are present (cached) and which are
 * dirty: the NAS page cache uses 64 KiB blocks of 4 KiB units, so a 4 KiB
 * write or read miss caches one page, as Linux caches pages, while the
 * bookkeeping stays per block.  RAM is accounted in present units: a block
 * with one present page takes 4 KiB of the capacity, not 64 KiB.
 *
 * Clean blocks sit on an LRU list and are evicted (all their units) from
 * its cold end until the present units fit; dirty blocks sit on a FIFO
 * ordered by the time they were first dirtied and are never evicted: they
 * leave only through pcache_take_dirty (write-back), after which they are
 * clean and most recently used.  Memory grows with the blocks in use, not
 * with the capacity. */
#ifndef NASTWIN_PCACHE_H
#define NASTWIN_PCACHE_H

#include <stdint.h>

struct pcache;

/* New empty cache of capacity_bytes (>= one block) in blocks of block_bytes
 * (> 0); NULL on bad sizes or out of memory. */
struct pcache *pcache_create(uint64_t capacity_bytes, uint64_t block_bytes);
void pcache_destroy(struct pcache *c); /* accepts NULL */

/* Block size (bytes). */
uint64_t pcache_block_bytes(const struct pcache *c);
/* Capacity (bytes, whole blocks). */
uint64_t pcache_capacity_bytes(const struct pcache *c);

/* Cache and dirty-track data in units of unit_bytes inside each block
 * (default: the block): a page cache with large blocks still holds, and
 * writes back, only the 4 KiB pages that were read or written, as Linux
 * keeps pages.  unit_bytes must divide the block into at most 64 units;
 * call before anything is cached.  0, or -1 on a bad unit. */
int pcache_set_unit(struct pcache *c, uint64_t unit_bytes);
/* Account the capacity in whole blocks (a block with any present unit
 * takes its slot, as an SSD cache allocates a block's space however few
 * of its sectors are valid); call before anything is cached.  0, or -1. */
int pcache_set_slots(struct pcache *c);
/* Unit size (bytes). */
uint64_t pcache_unit_bytes(const struct pcache *c);

/* Blocks of [off, off+len) that are cached (*hit_blocks) out of
 * *total_blocks: a block hits only when every unit of it that the range
 * touches is present (partial blocks are misses; with unit = block this is
 * plain block presence).  touch=1 makes the clean blocks with any present
 * unit most recently used and counts the lookup in the hit/miss
 * statistics. */
void pcache_lookup(struct pcache *c, uint64_t off, uint64_t len, int touch, uint64_t *hit_blocks,
                   uint64_t *total_blocks);

/* A walk over the units from the one holding byte x upwards while each
 * is present, one unit at a time as long as the next unit starts below
 * limit: returns where it stops, the start of the first absent unit or
 * the first unit boundary at or past limit (x itself when x >= limit or
 * its unit is absent).  No LRU touch.  pcache_present_run_start is the
 * same walk downwards from the unit holding byte y - 1 while y > limit:
 * the start of the lowest present unit of the run (y when y <= limit or
 * that unit is absent), never below the unit boundary at or below
 * limit. */
uint64_t pcache_present_run_end(const struct pcache *c, uint64_t x, uint64_t limit);
uint64_t pcache_present_run_start(const struct pcache *c, uint64_t y, uint64_t limit);

/* Hints that the block holding byte off is looked up soon (no effect on
 * the cache's contents): pcache_prefetch_slot brings its hash slot into
 * the processor's cache; pcache_prefetch_node, some look-ups later, reads
 * that slot and brings the block's node, and pcache_prefetch_links, later
 * still, its neighbours on the LRU list or dirty FIFO (which a look-up
 * relinks).  For loops over many blocks in a known order. */
void pcache_prefetch_slot(const struct pcache *c, uint64_t off);
void pcache_prefetch_node(const struct pcache *c, uint64_t off);
void pcache_prefetch_links(const struct pcache *c, uint64_t off);

/* Make the units of [off, off+len) present (dirty=1: and dirty, the block
 * dirty at now_s unless it was already, keeping the earlier time).  Clean
 * LRU blocks are evicted until the present units fit; returns the number
 * of blocks whose new units could not be inserted because the cache is
 * full of dirty blocks (those blocks are left as they were). */
uint64_t pcache_insert(struct pcache *c, uint64_t off, uint64_t len, int dirty, double now_s);

/* Drop the units of [off, off+len) (dirty ones too); a block with no
 * present unit left goes. */
void pcache_invalidate(struct pcache *c, uint64_t off, uint64_t len);

/* Bytes cached (present units) / dirty (dirty units). */
uint64_t pcache_used_bytes(const struct pcache *c);
uint64_t pcache_dirty_bytes(const struct pcache *c);

/* Dirty bytes (unit granularity) of units overlapping [off, off+len);
 * walks the dirty blocks. */
uint64_t pcache_dirty_bytes_in(const struct pcache *c, uint64_t off, uint64_t len);

/* Blocks of [off, off+len) with no dirty unit (absent ones included): a
 * write there turns them dirty.  One hash look-up per block. */
uint64_t pcache_clean_blocks_in(const struct pcache *c, uint64_t off, uint64_t len);

/* Dirty time of the oldest dirty block (s); INFINITY when none. */
double pcache_oldest_dirty_s(const struct pcache *c);

/* Take the first run of dirty units of the oldest dirty block, continued
 * into the blocks right after it while they are dirty from their start
 * (up to max_bytes, at least one unit), mark them clean and return their
 * range; 0 when nothing is dirty.  A block with dirty units left stays
 * the oldest. */
int pcache_take_dirty(struct pcache *c, uint64_t max_bytes, uint64_t *off, uint64_t *len);

/* As pcache_take_dirty, but the first run of dirty units inside [off,
 * off+len), in ascending order (up to max_bytes, at least one unit), as a
 * write-back of one file's pages walks them by index (filemap_flush ->
 * write_cache_pages over the file's range); 0 when none of the range is
 * dirty.  Walks the range's blocks. */
int pcache_take_dirty_in(struct pcache *c, uint64_t off, uint64_t len, uint64_t max_bytes,
                         uint64_t *run_off, uint64_t *run_len);

/* As pcache_take_dirty, but in ascending block order from a cursor, as the
 * kernel's background write-back walks a file's dirty pages by index from
 * its writeback_index and wraps (write_cache_pages, range_cyclic): a pass
 * takes the blocks dirty when it began, from the cursor up, then wraps;
 * blocks dirtied during the pass wait for the next one (unless they extend
 * a run being taken).  Falls back to oldest-first if out of memory. */
int pcache_take_dirty_sweep(struct pcache *c, uint64_t max_bytes, uint64_t *off, uint64_t *len);

/* Lookup statistics in blocks (touching lookups only; a partly present
 * block counts as a miss). */
uint64_t pcache_hit_blocks(const struct pcache *c);
uint64_t pcache_miss_blocks(const struct pcache *c);

#endif
