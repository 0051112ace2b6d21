/* hdd_cache.c - the hdd model's read cache (see hdd.c's header): segments
 * and their ranges, the idle read-ahead, each detected stream's look-ahead
 * kept ahead of its reader, and the reads the buffer answers while the
 * actuator is busy. */
#include <math.h>
#include <stdint.h>

#include "models/disks/hdd_impl.h"

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
  if (!sg->stream || sg->la || h->p.stream_prefetch_bytes <= 0.0 ||
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
}

/* A queued read whose bytes segment j holds, or will hold once the media
 * read in progress into it reaches them (zero-latency read: the request's
 * bytes at once at data_end_s, the prefetch behind them at the media
 * rate), while the actuator is busy until mech_free_s: when they are all
 * in the buffer, else INFINITY. */
static double hdd_buffered_s(const struct hdd *h, int j, uint64_t o, uint64_t e)
{
  const struct hdd_seg *sg = &h->seg[j];
  uint64_t lo = sg->hi_bytes - sg->lo_bytes > h->seg_cap_bytes ? sg->hi_bytes - h->seg_cap_bytes
                                                                : sg->lo_bytes;
  if (sg->hi_bytes == lo || o < lo || e > sg->hi_bytes)
    return INFINITY;
  if (j != h->fill.seg || e <= h->fill.req_start_bytes)
    return 0.0;
  if (e <= h->fill.req_end_bytes)
    return h->fill.data_end_s;
  return h->fill.data_end_s + hdd_media_s(h, h->fill.req_end_bytes, e - h->fill.req_end_bytes);
}

/* While the actuator is busy (a media read and its look-ahead, a seek,
 * a destage), the controller answers the queued reads the buffer holds:
 * the buffer and the host interface work beside the heads, so a cache
 * hit does not wait for the mechanics (NCQ completes commands in any
 * order).  A hit on data the read in progress is bringing in completes
 * when it has passed under the head. */
void hdd_serve_hits(struct hdd *h, double t_s)
{
  size_t win = h->hq_n < (size_t)h->p.ncq_depth ? h->hq_n : (size_t)h->p.ncq_depth;
  for (size_t i = 0; i < win && h->mech_free_s > t_s;) {
    const struct hdd_cmd *c = &h->hq[i];
    double ready = INFINITY;
    int seg = -1;
    uint64_t o = c->io.offset_bytes, e = o + c->io.len_bytes;
    for (int k = 0; !c->io.write && c->submit_s <= t_s && k < h->nseg && ready == INFINITY; k++) {
      ready = hdd_buffered_s(h, k, o, e);
      seg = k;
    }
    if (ready == INFINITY) {
      i++;
      continue;
    }
    double t_hit = fmax(t_s, ready) + hdd_overhead_s(h, 0, 1);
    struct hdd_plan pl = {.kind = HDD_HIT, .seg = seg, .media_start_s = t_hit,
                          .data_end_s = t_hit, .media_end_s = t_hit};
    struct hdd_cmd cmd = *c;
    hdd_cmd_remove(h->hq, &h->hq_n, i);
    win = h->hq_n < (size_t)h->p.ncq_depth ? h->hq_n : (size_t)h->p.ncq_depth;
    hdd_execute(h, t_s, &cmd.io, 1, &pl);
  }
}

/* The pending look-ahead into segment j, planned at t_s. */
void hdd_lookahead_plan(const struct hdd *h, double t_s, int j, struct hdd_plan *pl)
{
  int streaming;
  uint64_t pos = hdd_head_at(h, t_s, &streaming);
  uint64_t o = h->seg[j].hi_bytes, cap = (uint64_t)h->p.capacity_bytes;
  uint64_t n = (uint64_t)h->p.stream_prefetch_bytes;
  struct disk_io io = {.offset_bytes = o, .len_bytes = o + n > cap ? cap - o : n};
  hdd_plan_media(h, t_s, pos, &io, j, 0, pl);
}

/* Run the look-ahead into segment j as planned at t_s: the actuator reads
 * it, nothing goes to the host; reads of it find it as it arrives, at the
 * media rate from its start (the zero-latency reorder of its first track
 * is not followed). */
void hdd_lookahead_run(struct hdd *h, double t_s, int j, const struct hdd_plan *pl)
{
  struct hdd_seg *sg = &h->seg[j];
  uint64_t o = sg->hi_bytes;
  hdd_ra_stop(h, t_s);
  disk_busy_add(&h->busy, t_s, pl->media_end_s);
  h->mech_free_s = pl->media_end_s;
  uint64_t n = (uint64_t)h->p.stream_prefetch_bytes, cap = (uint64_t)h->p.capacity_bytes;
  uint64_t e = o + n > cap ? cap : o + n;
  h->head_off_bytes = e;
  h->head_t_s = pl->media_end_s;
  h->fill = (struct hdd_fill){.seg = j, .req_start_bytes = o, .req_end_bytes = o,
                              .data_end_s = pl->media_start_s};
  sg->hi_bytes = e;
  if (sg->hi_bytes - sg->lo_bytes > h->seg_cap_bytes)
    sg->lo_bytes = sg->hi_bytes - h->seg_cap_bytes;
  sg->la = 0;
  h->la_n--;
  sg->used = ++h->seg_clock;
  hdd_ra_start(h, j);
}
