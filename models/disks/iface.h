/* iface.h - host interfaces: a device's own port (SATA link, PCIe link)
 * and shared upstream links (a PCIe switch's upstream port).
 *
 * A transfer of n bytes occupies a resource exclusively for n / rate
 * seconds.  Each resource keeps a sorted list of reserved intervals and a
 * transfer takes the earliest free gap at or after the time its data is
 * ready (gap filling: devices compute completions ahead of time, so a
 * transfer reserved later may still go first if the link is free then).
 * Reserved intervals never overlap, so the bytes moved through a resource
 * in any window never exceed rate x window plus one transfer. */
#ifndef NASTWIN_IFACE_H
#define NASTWIN_IFACE_H

#include <stddef.h>

/* 8b/10b line code carries 8 payload bits per 10 line bits (SATA 1.5, 3
 * and 6 Gbit/s; PCIe gen 1 and 2).  Source: SATA 3.x and PCIe base specs. */
#define IFACE_8B10B_PAYLOAD_FRACTION 0.8

/* Data direction on a link. */
enum iface_dir { IFACE_TO_HOST = 0, IFACE_TO_DEVICE = 1 };

/* Intervals of exclusive use of one resource in one direction. */
struct iface_sched {
  double *start_s, *end_s; /* sorted, non-overlapping */
  size_t head, n, cap;     /* live entries are [head, n) */
};

/* Empty schedule (no allocation). */
void iface_sched_init(struct iface_sched *s);
/* Free the storage (the schedule is empty afterwards). */
void iface_sched_free(struct iface_sched *s);
/* Reserve dur_s seconds at the earliest free time >= ready_s; intervals
 * that ended before now_s are forgotten.  Returns the start time (s).
 * Never fails: without memory the reservation goes after the last one. */
double iface_sched_reserve_any(struct iface_sched *s, double now_s, double ready_s, double dur_s);

/* iface_sched_reserve_any, its common case first (a flash channel's run
 * of pages: each ready at or past the last end, nothing to forget, room
 * at the end): the same interval, extended or appended. */
static inline double iface_sched_reserve(struct iface_sched *s, double now_s, double ready_s,
                                         double dur_s)
{
  if (s->head < s->n && s->end_s[s->head] > now_s && dur_s > 0.0 &&
      ready_s >= s->end_s[s->n - 1]) {
    if (s->end_s[s->n - 1] == ready_s) { /* contiguous: extend the last */
      s->end_s[s->n - 1] = ready_s + dur_s;
      return ready_s;
    }
    if (s->n < s->cap && !(s->head > 0 && s->head * 2 >= s->n)) { /* no compaction due */
      s->start_s[s->n] = ready_s;
      s->end_s[s->n] = ready_s + dur_s;
      s->n++;
      return ready_s;
    }
  }
  return iface_sched_reserve_any(s, now_s, ready_s, dur_s);
}

/* A shared upstream link with a rate per direction, part of it reserved
 * for another function on the same card (a NIC). */
struct iface_link {
  char name[48];
  double rate_bytes_per_s;     /* per direction */
  double reserved_bytes_per_s; /* not available to attached devices */
  struct iface_sched dir[2];
  double bytes[2]; /* moved per direction */
};

/* Check a link's rates: 0, or -1 with a message naming the bad value
 * (rate must be > 0 and reserved in [0, rate)). */
int iface_link_check(double rate_bytes_per_s, double reserved_bytes_per_s, char *msg,
                     size_t msg_len);
/* New link of rate_bytes_per_s per direction (B/s) of which
 * reserved_bytes_per_s (B/s) is never given to devices.  NULL when the
 * rates fail iface_link_check or when out of memory. */
struct iface_link *iface_link_create(const char *name, double rate_bytes_per_s,
                                     double reserved_bytes_per_s);
void iface_link_destroy(struct iface_link *l); /* accepts NULL */
/* Rate available to the attached devices together (B/s): rate - reserved. */
double iface_link_payload_rate(const struct iface_link *l);
/* Move bytes in direction dir, data ready at ready_s; returns the end (s). */
double iface_link_transfer(struct iface_link *l, enum iface_dir dir, double now_s, double ready_s,
                           double bytes);

/* A device's own port: its link rate, half duplex (SATA: one FIS at a
 * time) or full duplex (PCIe). */
struct iface_port {
  double rate_bytes_per_s; /* payload rate, after line coding */
  int full_duplex;
  struct iface_sched dir[2];
};
void iface_port_init(struct iface_port *p, double rate_bytes_per_s, int full_duplex);
void iface_port_free(struct iface_port *p);
/* Move bytes through the port and then, when link is not NULL, through
 * the shared link (cut-through: the link leg may start when the port leg
 * starts).  Data ready at ready_s; returns when the last byte is through (s). */
double iface_port_transfer(struct iface_port *p, struct iface_link *link, enum iface_dir dir,
                           double now_s, double ready_s, double bytes);

/* PCIe payload rate per lane (B/s) for generation gen 1..5 after line
 * coding (8b/10b for 1-2, 128b/130b for 3-5); 0 for another gen.
 * Spec arithmetic: 2.5, 5, 8, 16, 32 GT/s per lane. */
double iface_pcie_lane_rate(int gen);

#endif
