/* disk_impl.h - shared machinery of the device models (not for callers).
 *
 * The model tables exported by each model file, a completion heap ordered
 * by (time, submission order), a busy-time accumulator, power-state
 * accounting, and a seed-to-phase hash.  Implemented in disk.c. */
#ifndef NASTWIN_DISK_IMPL_H
#define NASTWIN_DISK_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "models/disks/disk.h"

extern const struct disk_model fixed_model;    /* fixed.c: "fixed" */
extern const struct disk_model hdd_model;      /* hdd.c: "hdd" */
extern const struct disk_model sata_ssd_model; /* ssd.c: "sata_ssd" */
extern const struct disk_model nvme_model;     /* nvme.c: "nvme" */

/* A min-heap of requests keyed by time (s); ties pop in push order. */
struct disk_heap_ent {
  double key_s;
  uint64_t seq;
  struct disk_io io;
};
struct disk_heap {
  struct disk_heap_ent *v;
  size_t n, cap;
  uint64_t next_seq;
};

/* Empty heap (no allocation). */
void disk_heap_init(struct disk_heap *h);
/* Free the storage; the heap is empty and reusable afterwards. */
void disk_heap_free(struct disk_heap *h);
/* Insert io with key key_s (s).  0, or -1 when out of memory (nothing inserted). */
int disk_heap_push(struct disk_heap *h, double key_s, const struct disk_io *io);
/* Smallest key (s); INFINITY when empty. */
double disk_heap_min_s(const struct disk_heap *h);
/* Remove the smallest entry into *out (may be NULL).  1, or 0 when empty. */
int disk_heap_pop(struct disk_heap *h, struct disk_heap_ent *out);
/* Pop the earliest completion due at or before now_s into *done and count
 * it in counts (reads/writes and their bytes; other fields untouched).
 * 1, or 0 when none is due.  The pop_completion of every model. */
int disk_heap_pop_due(struct disk_heap *h, double now_s, struct disk_io *done,
                      struct disk_stats *counts);

/* Length (s) of the union of intervals [start, end] added with
 * nondecreasing starts: the time with at least one request in service. */
struct disk_busy {
  double total_s;     /* union length, including the part after "now" */
  double cover_end_s; /* end of the union so far */
};
/* Add [start_s, end_s]; start_s must not precede an earlier start. */
void disk_busy_add(struct disk_busy *b, double start_s, double end_s);
/* Union length up to now_s (s). */
double disk_busy_at(const struct disk_busy *b, double now_s);

/* Power states of a device: active while busy, idle otherwise, standby
 * after standby_after_s of idleness (0 = never), and a wake-up (spin-up)
 * of wake_s at wake_W when a request arrives in standby. */
struct disk_power {
  double active_W, idle_W, standby_W;
  double standby_after_s, wake_s, wake_W;
  double standby_s;  /* accumulated standby time (closed gaps) */
  double wake_total_s;
  uint64_t wakes;
};
/* A request arrives at the end of an idle gap of gap_s (s): account the
 * standby part and return the wake-up delay to add (s, 0 when awake). */
double disk_power_gap(struct disk_power *pw, double gap_s);
/* Energy (J) over [0, now_s] given busy time busy_s and the current idle
 * gap open since idle_since_s (pass now_s when the device is busy). */
double disk_power_energy_J(const struct disk_power *pw, double now_s, double busy_s,
                           double idle_since_s);

/* Deterministic number in [0, 1) derived from seed (splitmix64). */
double disk_seed_unit(uint64_t seed);

#endif
