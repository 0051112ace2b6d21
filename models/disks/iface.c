/* iface.c - interval schedules, shared upstream links, device ports. */
#include "models/disks/iface.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PCIe payload per lane and direction (B/s): 2.5 GT/s x 8/10 / 8 = 250 MB/s,
 * 5 GT/s x 8/10 / 8 = 500 MB/s, 8 GT/s x 128/130 / 8 = 984.6 MB/s, and
 * doubling for gen 4 (16 GT/s) and gen 5 (32 GT/s).  Source: PCI Express
 * base specifications 1.0-5.0 (signalling rate and line code). */
static const double iface_pcie_lane_bytes_per_s[] = {
    0.0, 250e6, 500e6, 8e9 * 128.0 / 130.0 / 8.0, 16e9 * 128.0 / 130.0 / 8.0,
    32e9 * 128.0 / 130.0 / 8.0,
};

double iface_pcie_lane_rate(int gen)
{
  if (gen < 1 || gen > 5)
    return 0.0;
  return iface_pcie_lane_bytes_per_s[gen];
}

void iface_sched_init(struct iface_sched *s)
{
  memset(s, 0, sizeof *s);
}

void iface_sched_free(struct iface_sched *s)
{
  free(s->start_s);
  free(s->end_s);
  memset(s, 0, sizeof *s);
}

/* Make room for one more entry at the end; 0 or -1 without memory. */
static int iface_sched_grow(struct iface_sched *s)
{
  if (s->head > 0 && s->head * 2 >= s->n) { /* compact */
    size_t live = s->n - s->head;
    memmove(s->start_s, s->start_s + s->head, live * sizeof *s->start_s);
    memmove(s->end_s, s->end_s + s->head, live * sizeof *s->end_s);
    s->n = live;
    s->head = 0;
  }
  if (s->n < s->cap)
    return 0;
  size_t cap = s->cap ? 2 * s->cap : 16;
  double *a = realloc(s->start_s, cap * sizeof *a);
  if (a == NULL)
    return -1;
  s->start_s = a;
  double *b = realloc(s->end_s, cap * sizeof *b);
  if (b == NULL)
    return -1;
  s->end_s = b;
  s->cap = cap;
  return 0;
}

/* The first live interval from `from` on that ends after t (intervals do
 * not overlap, so their ends are sorted like their starts): a binary
 * search, where a scan made long schedules (a reshape's batched windows
 * reserve thousands of transfers ahead) quadratic. */
static size_t iface_sched_first_after(const struct iface_sched *s, size_t from, double t)
{
  size_t lo = from, hi = s->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->end_s[mid] <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

double iface_sched_reserve_any(struct iface_sched *s, double now_s, double ready_s, double dur_s)
{
  /* forget what ended by now_s; the head still ending after now_s is the
   * common case (a large transfer reserves page after page at one now_s) */
  if (s->head < s->n && !(s->end_s[s->head] > now_s))
    s->head = iface_sched_first_after(s, s->head, now_s);
  if (s->head == s->n)
    s->head = s->n = 0;
  if (dur_s <= 0.0)
    return ready_s;
  double t = ready_s;
  /* At or past the last end (a run of pages appended to a channel): the
   * binary search's own answer, n, without it. */
  size_t i = s->n > s->head && !(t >= s->end_s[s->n - 1]) ? iface_sched_first_after(s, s->head, t) : s->n;
  for (; i < s->n; i++) {
    if (s->end_s[i] <= t)
      continue;
    if (s->start_s[i] >= t + dur_s)
      break; /* fits in the gap before interval i */
    t = s->end_s[i];
  }
  /* Extend the previous interval when contiguous (keeps the list short). */
  if (i > s->head && s->end_s[i - 1] == t) {
    s->end_s[i - 1] = t + dur_s;
    return t;
  }
  if (iface_sched_grow(s) != 0) {
    if (s->n > s->head) { /* no memory: extend the last interval instead */
      double last = s->end_s[s->n - 1];
      double start = t > last ? t : last;
      s->end_s[s->n - 1] = start + dur_s;
      return start;
    }
    return t;
  }
  /* grow() may have compacted: find the insertion point again (the end
   * when the last interval starts before t: the search's answer). */
  size_t j = s->n > s->head && !(s->start_s[s->n - 1] < t) ? s->head : s->n;
  size_t hi = s->n; /* first interval starting at or after t */
  while (j < hi) {
    size_t mid = j + (hi - j) / 2;
    if (s->start_s[mid] < t)
      j = mid + 1;
    else
      hi = mid;
  }
  if (j < s->n) {
    memmove(s->start_s + j + 1, s->start_s + j, (s->n - j) * sizeof *s->start_s);
    memmove(s->end_s + j + 1, s->end_s + j, (s->n - j) * sizeof *s->end_s);
  }
  s->start_s[j] = t;
  s->end_s[j] = t + dur_s;
  s->n++;
  return t;
}

int iface_link_check(double rate_bytes_per_s, double reserved_bytes_per_s, char *msg,
                     size_t msg_len)
{
  if (!(rate_bytes_per_s > 0.0) || !isfinite(rate_bytes_per_s)) {
    snprintf(msg, msg_len, "iface link: rate %g B/s must be > 0", rate_bytes_per_s);
    return -1;
  }
  if (!(reserved_bytes_per_s >= 0.0) || reserved_bytes_per_s >= rate_bytes_per_s) {
    snprintf(msg, msg_len, "iface link: reserved %g B/s must be in [0, %g) (the link rate)",
             reserved_bytes_per_s, rate_bytes_per_s);
    return -1;
  }
  return 0;
}

struct iface_link *iface_link_create(const char *name, double rate_bytes_per_s,
                                     double reserved_bytes_per_s)
{
  char msg[160];
  if (iface_link_check(rate_bytes_per_s, reserved_bytes_per_s, msg, sizeof msg) != 0)
    return NULL;
  struct iface_link *l = calloc(1, sizeof *l);
  if (l == NULL)
    return NULL;
  snprintf(l->name, sizeof l->name, "%s", name ? name : "link");
  l->rate_bytes_per_s = rate_bytes_per_s;
  l->reserved_bytes_per_s = reserved_bytes_per_s;
  iface_sched_init(&l->dir[0]);
  iface_sched_init(&l->dir[1]);
  return l;
}

void iface_link_destroy(struct iface_link *l)
{
  if (l == NULL)
    return;
  iface_sched_free(&l->dir[0]);
  iface_sched_free(&l->dir[1]);
  free(l);
}

double iface_link_payload_rate(const struct iface_link *l)
{
  return l->rate_bytes_per_s - l->reserved_bytes_per_s;
}

double iface_link_transfer(struct iface_link *l, enum iface_dir dir, double now_s, double ready_s,
                           double bytes)
{
  double dur_s = bytes / iface_link_payload_rate(l);
  double start = iface_sched_reserve(&l->dir[dir], now_s, ready_s, dur_s);
  l->bytes[dir] += bytes;
  return start + dur_s;
}

void iface_port_init(struct iface_port *p, double rate_bytes_per_s, int full_duplex)
{
  p->rate_bytes_per_s = rate_bytes_per_s;
  p->full_duplex = full_duplex;
  iface_sched_init(&p->dir[0]);
  iface_sched_init(&p->dir[1]);
}

void iface_port_free(struct iface_port *p)
{
  iface_sched_free(&p->dir[0]);
  iface_sched_free(&p->dir[1]);
}

double iface_port_transfer(struct iface_port *p, struct iface_link *link, enum iface_dir dir,
                           double now_s, double ready_s, double bytes)
{
  double dur_s = bytes / p->rate_bytes_per_s;
  struct iface_sched *s = &p->dir[p->full_duplex ? dir : 0];
  double start = iface_sched_reserve(s, now_s, ready_s, dur_s);
  double end = start + dur_s;
  if (link != NULL) {
    double link_end = iface_link_transfer(link, dir, now_s, start, bytes);
    if (link_end > end)
      end = link_end;
  }
  return end;
}
