/* stack_ra.c - Linux's on-demand read-ahead (mm/readahead.c of the 3.10 /
 * 4.4 kernels DSM ships), one state per sequential stream as Linux keeps
 * one per open file (struct file_ra_state; Samba opens the file once per
 * client open, so fio's numjobs on one file are as many states):
 *
 * - a sequential read that misses starts a window at the missing page,
 *   get_init_ra_size(request) long (x4 / x2 of the request rounded to a
 *   power of two, at most the maximum), the pages past the request its
 *   asynchronous part, whose first page carries PG_readahead;
 * - a read that reaches the marked page (cached or still being read)
 *   pushes the window on: the next one starts where the current ends,
 *   get_next_ra_size (x4 below max/16, else x2, at most the maximum) long,
 *   all of it asynchronous, marked at its first page.  So a reader has a
 *   whole window ahead of it when the next is issued, and up to two
 *   windows are in flight: the next window is read while the reader
 *   consumes the current one;
 * - a miss at the expected place (the window's marker or end) ramps the
 *   same way; any other read is random and reads only its own pages.
 *
 * The maximum is the volume's read-ahead (s->ra_bytes, read_ahead_kb).
 * The pages a window reads are those neither cached nor in flight. */
#include "models/storage/readahead.h"
#include "models/storage/stack_impl.h"

#include <stdint.h>
#include <stdlib.h>

uint64_t linux_ra_init_pages(uint64_t req, uint64_t max)
{
  uint64_t n = 1;
  while (n < req)
    n <<= 1;
  if (n <= max / 32)
    return 4 * n;
  if (n <= max / 4)
    return 2 * n;
  return max;
}

uint64_t linux_ra_next_pages(uint64_t cur, uint64_t max)
{
  uint64_t n = cur < max / 16 ? 4 * cur : 2 * cur;
  return n < max ? n : max;
}

struct stk_req *stk_ra_holding(struct stack *s, uint64_t x)
{
  for (int k = 0; k < s->nra_fly; k++) {
    struct stk_req *q = s->ra_fly[k];
    if (x >= q->off && x < q->off + q->len)
      return q;
  }
  return NULL;
}

int stk_ra_track(struct stack *s, struct stk_req *r)
{
  if (s->nra_fly == s->ra_fly_cap) {
    int cap = s->ra_fly_cap ? 2 * s->ra_fly_cap : 64;
    struct stk_req **f = realloc(s->ra_fly, (size_t)cap * sizeof *f);
    if (f == NULL)
      return -1;
    s->ra_fly = f;
    s->ra_fly_cap = cap;
  }
  s->ra_fly[s->nra_fly++] = r;
  return 0;
}

void stk_ra_landed(struct stack *s, const struct stk_req *r)
{
  for (int k = 0; k < s->nra_fly; k++)
    if (s->ra_fly[k] == r) {
      s->ra_fly[k] = s->ra_fly[--s->nra_fly];
      return;
    }
}

struct stk_ra *stk_ra_stream(struct stack *s, uint64_t off, uint64_t len, int *seq)
{
  struct stk_ra *st = NULL, *lru = &s->ra[0];
  for (int k = 0; k < STK_RA_STREAMS; k++) {
    if (s->ra[k].last_end == off && s->ra[k].used > 0) {
      st = &s->ra[k];
      break;
    }
    if (s->ra[k].used < lru->used)
      lru = &s->ra[k];
  }
  *seq = st != NULL;
  if (st == NULL) { /* a new stream: a fresh state (windows in flight still land) */
    st = lru;
    st->start = st->size = st->async = 0;
    st->marked = 0;
  }
  st->last_end = off + len;
  st->used = ++s->ra_clock;
  return st;
}

/* Read [from, to) ahead: the pages neither cached nor in flight, in bios
 * of at most STK_RA_BIO_BYTES. */
static void ra_submit(struct stack *s, uint64_t from, uint64_t to, double t)
{
  if (to > s->capacity)
    to = s->capacity;
  if (from >= to)
    return;
  struct stk_req *inflight[STK_TRIM_WAITS];
  stk_read_trim(s, &from, &to, inflight);
  while (from < to) {
    uint64_t len = to - from < STK_RA_BIO_BYTES ? to - from : STK_RA_BIO_BYTES;
    struct stk_req *a = stk_req_new(s, RQ_RA, from, len, 0);
    if (a == NULL || stk_ra_track(s, a) != 0)
      return;
    from += len;
    stk_lower(s, a, t);
  }
}

/* The window [start, start + size) with its marker, read from `from` on
 * (ra_submit's readit; the sync case that would hit its own marker at
 * once merges the next window, as readit does). */
static void ra_readit(struct stack *s, struct stk_ra *st, uint64_t at, uint64_t from, double t)
{
  uint64_t pg = RAID_PAGE_BYTES, max = s->ra_bytes / pg;
  if (at == st->start && st->size == st->async) {
    st->async = linux_ra_next_pages(st->size, max);
    st->size += st->async;
  }
  st->marked = st->async > 0;
  uint64_t end = st->start + st->size * pg;
  ra_submit(s, from > st->start ? from : st->start, end, t);
}

/* Push the window on (the expected callback offset of ondemand_readahead). */
static void ra_ramp(struct stack *s, struct stk_ra *st)
{
  uint64_t pg = RAID_PAGE_BYTES;
  st->start += st->size * pg;
  st->size = linux_ra_next_pages(st->size, s->ra_bytes / pg);
  st->async = st->size;
}

/* The marked page within [off, end) reached (before `before`): the
 * asynchronous read-ahead, again for each window whose marker the read
 * reaches (a read longer than a window passes several). */
static void ra_async(struct stack *s, struct stk_ra *st, uint64_t off, uint64_t end, uint64_t before,
                     double t)
{
  uint64_t pg = RAID_PAGE_BYTES;
  for (;;) {
    uint64_t mark = st->start + (st->size - st->async) * pg;
    if (!st->marked || mark < off || mark >= end || mark >= before)
      return;
    st->marked = 0;
    ra_ramp(s, st);
    ra_readit(s, st, mark, st->start, t);
  }
}

void stk_ra_read(struct stack *s, struct stk_ra *st, int seq, uint64_t off, uint64_t end,
                 uint64_t miss_a, uint64_t miss_b, double t)
{
  uint64_t pg = RAID_PAGE_BYTES, max = s->ra_bytes / pg;
  if (max == 0)
    return;
  int miss = miss_a < miss_b;
  /* Linux walks the read page by page: marked pages before the first
   * missing one, then the miss (synchronous read-ahead), then the marks
   * of what it just submitted */
  ra_async(s, st, off, end, miss ? miss_a : end, t);
  if (!miss)
    return;
  uint64_t mark = st->start + (st->size - st->async) * pg;
  uint64_t wend = st->start + st->size * pg;
  uint64_t req = (end - miss_a + pg - 1) / pg;
  if (st->size > 0 && (miss_a == mark || miss_a == wend)) {
    ra_ramp(s, st);
  } else if (miss_a == 0 || req > max || (seq && miss_a <= off + pg)) {
    st->start = miss_a;
    st->size = linux_ra_init_pages(req, max);
    st->async = st->size > req ? st->size - req : st->size;
  } else {
    return; /* a small random read: its own pages only */
  }
  ra_readit(s, st, miss_a, miss_b, t);
  ra_async(s, st, miss_a, end, end, t);
}
