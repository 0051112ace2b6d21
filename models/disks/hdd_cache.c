/* hdd_cache.c - the hdd model's read cache (see hdd.c's header): segments
 * and their ranges, the idle read-ahead, each detected stream's look-ahead
 * kept ahead of its reader. */
#include <math.h>
#include <stdint.h>

#include "models/disks/hdd_impl.h"

static double hdd_ra_end_s(const struct hdd *h);

/* Head position (offset) at time t_s, and whether read-ahead still runs. */
uint64_t hdd_head_at(const struct hdd *h, double t_s, int *streaming)
{
  *streaming = 0;
  if (!h->ra_active || t_s <= h->head_t_s)
    return h->head_off_bytes;
  double avail = (t_s - h->head_t_s) * hdd_rate_at(h, h->head_off_bytes);
  if (avail < h->ra_limit_bytes)
    *streaming = 1;
  else
    avail = h->ra_limit_bytes;
  uint64_t pos = h->head_off_bytes + (uint64_t)avail;
  return pos < (uint64_t)h->p.capacity_bytes ? pos : (uint64_t)h->p.capacity_bytes;
}

/* Buffered range [*lo, *hi) of segment i when the head is at pos (the
 * segment read ahead into grows with the head; a segment keeps its last
 * seg_cap bytes). */
void hdd_seg_range(const struct hdd *h, int i, uint64_t pos, uint64_t *lo, uint64_t *hi)
{
  *lo = h->seg[i].lo_bytes;
  *hi = h->seg[i].hi_bytes;
  if (i == h->cur && h->ra_active && pos > *hi)
    *hi = pos;
  if (*hi - *lo > h->seg_cap_bytes)
    *lo = *hi - h->seg_cap_bytes;
}

/* Segment i now holds a new range: a detected stream's or not; a pending
 * look-ahead into its old range is dropped. */
void hdd_seg_reset(struct hdd *h, int i, int stream)
{
  h->la_n -= h->seg[i].la;
  h->seg[i].la = 0;
  h->seg[i].stream = stream;
}

/* A host read served from stream segment j up to e: the drive keeps the
 * stream's look-ahead going, reading stream_prefetch more into the
 * segment once less than that is buffered past the read (and the segment
 * has room for it without dropping what the reader has not read), when it has
 * nothing else to do (hdd_advance: no host command or write-back waits),
 * so a sequential reader whose commands the buffer answers does not run
 * into the end of its segment and wait for a seek behind the other
 * streams' look-aheads (16 interleaved streams reach every segment's end
 * together and would each wait for all 16). */
void hdd_lookahead_want(struct hdd *h, int j, uint64_t e, double t_s)
{
  struct hdd_seg *sg = &h->seg[j];
  double ahead = (double)(sg->hi_bytes > e ? sg->hi_bytes - e : 0);
  if (!sg->stream || sg->la || h->p.stream_prefetch_bytes <= 0.0 || (h->ra_active && j == h->cur) ||
      sg->hi_bytes >= (uint64_t)h->p.capacity_bytes || ahead >= h->p.stream_prefetch_bytes ||
      ahead + h->p.stream_prefetch_bytes > (double)h->seg_cap_bytes) /* no room: it would push
                                                                          out unread data */
    return;
  sg->la = 1;
  sg->la_t = t_s;
  h->la_n++;
}

/* Empty every segment overlapping [o, e). */
void hdd_seg_invalidate(struct hdd *h, uint64_t o, uint64_t e)
{
  for (int i = 0; i < h->nseg; i++)
    if (h->seg[i].lo_bytes < e && o < h->seg[i].hi_bytes) {
      h->seg[i].lo_bytes = h->seg[i].hi_bytes = 0;
      hdd_seg_reset(h, i, 0);
    }
}

/* Written data [o, e) takes a buffer segment (read_hits_on_write): the
 * least recently used one, not the one being read ahead into. */
void hdd_seg_fill(struct hdd *h, uint64_t o, uint64_t e)
{
  int j = -1;
  for (int i = 0; i < h->nseg; i++)
    if (!(h->ra_active && i == h->cur) && (j < 0 || h->seg[i].used < h->seg[j].used))
      j = i;
  if (j < 0)
    return;
  h->seg[j].lo_bytes = e - o > h->seg_cap_bytes ? e - h->seg_cap_bytes : o;
  h->seg[j].hi_bytes = e;
  hdd_seg_reset(h, j, 0);
  h->seg[j].used = ++h->seg_clock;
}

/* The idle read-ahead into seg[cur] stops where the head is at t_s. */
void hdd_ra_stop(struct hdd *h, double t_s)
{
  if (!h->ra_active)
    return;
  if (h->ra_lookahead) /* the heads read for it: busy */
    disk_busy_add(&h->busy, h->head_t_s, fmin(t_s, hdd_ra_end_s(h)));
  h->ra_lookahead = 0;
  int streaming;
  uint64_t lo, hi;
  hdd_seg_range(h, h->cur, hdd_head_at(h, t_s, &streaming), &lo, &hi);
  h->seg[h->cur].lo_bytes = lo;
  h->seg[h->cur].hi_bytes = hi;
  h->ra_active = 0;
}

/* After a media read into segment j: the idle read-ahead follows it. */
void hdd_ra_start(struct hdd *h, int j)
{
  struct hdd_seg *sg = &h->seg[j];
  h->cur = j;
  h->ra_limit_bytes = h->p.read_ahead_bytes;
  if (h->p.ra_within_segment >= 1.0) {
    double room = (double)h->seg_cap_bytes - (double)(sg->hi_bytes - sg->lo_bytes);
    h->ra_limit_bytes = room < h->ra_limit_bytes ? (room > 0.0 ? room : 0.0) : h->ra_limit_bytes;
  }
  h->ra_active = h->ra_limit_bytes > 0.0;
  h->ra_lookahead = 0;
}

/* When the read-ahead under way (idle or a look-ahead) has read all it
 * will; -INFINITY when none runs. */
static double hdd_ra_end_s(const struct hdd *h)
{
  if (!h->ra_active)
    return -INFINITY;
  return h->head_t_s + h->ra_limit_bytes / hdd_rate_at(h, h->head_off_bytes);
}

double hdd_lookahead_first_s(const struct hdd *h)
{
  double t = INFINITY;
  for (int k = 0; k < h->nseg && h->la_n > 0; k++)
    if (h->seg[k].la && h->seg[k].la_t < t)
      t = h->seg[k].la_t;
  return t < INFINITY ? fmax(t, hdd_ra_end_s(h)) : t;
}

int hdd_lookahead_pick(const struct hdd *h, double t_s, struct hdd_plan *best)
{
  if (h->la_n == 0 || hdd_ra_end_s(h) > t_s)
    return -1;
  int j = -1;
  int streaming;
  uint64_t pos = hdd_head_at(h, t_s, &streaming), cap = (uint64_t)h->p.capacity_bytes;
  uint64_t n = (uint64_t)h->p.stream_prefetch_bytes;
  for (int k = 0; k < h->nseg; k++) {
    if (!h->seg[k].la || h->seg[k].la_t > t_s)
      continue;
    uint64_t o = h->seg[k].hi_bytes;
    struct disk_io io = {.offset_bytes = o, .len_bytes = o + n > cap ? cap - o : n};
    struct hdd_plan pl;
    hdd_plan_media(h, t_s, pos, &io, k, 0, &pl);
    if (j < 0 || pl.cost_s < best->cost_s) {
      *best = pl;
      j = k;
    }
  }
  return j;
}

/* Start the look-ahead into segment j as planned at t_s: the heads seek
 * to the segment's end, then read into it as the idle read-ahead does,
 * nothing to the host, until stream_prefetch is in or a command that
 * needs the heads takes them (hdd_ra_stop: what was read stays; a buffer
 * hit does not stop it).  Busy while they seek and read (the idle
 * read-ahead after a command is not counted). */
void hdd_lookahead_run(struct hdd *h, double t_s, int j, const struct hdd_plan *pl)
{
  struct hdd_seg *sg = &h->seg[j];
  hdd_ra_stop(h, t_s);
  disk_busy_add(&h->busy, t_s, pl->media_start_s);
  h->mech_free_s = pl->media_start_s;
  h->head_off_bytes = sg->hi_bytes;
  h->head_t_s = pl->media_start_s;
  uint64_t cap = (uint64_t)h->p.capacity_bytes;
  h->cur = j;
  h->ra_limit_bytes = fmin(h->p.stream_prefetch_bytes, (double)(cap - sg->hi_bytes));
  h->ra_active = 1;
  h->ra_lookahead = 1;
  sg->la = 0;
  h->la_n--;
  sg->used = ++h->seg_clock;
}

double hdd_lookahead_busy_s(const struct hdd *h, double now_s)
{
  if (!h->ra_active || !h->ra_lookahead)
    return 0.0;
  double a = fmax(h->head_t_s, h->busy.cover_end_s), b = fmin(now_s, hdd_ra_end_s(h));
  return b > a ? b - a : 0.0;
}
