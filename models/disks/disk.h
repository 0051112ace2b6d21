/* disk.h - the one interface every storage device model implements.
 *
 * A device model is pure C (no SimGrid): it keeps its own queue and
 * computes when each request completes from its mechanics.  The storage
 * stack drives it as a tiny event source:
 *
 *   submit(now, io)           queue a request at simulated time now
 *   next_completion_s()       earliest time a queued request completes
 *                             (INFINITY when nothing is queued)
 *   pop_completion(now, &io)  take one request whose completion time is
 *                             <= now; 0 when there is none
 *
 * Completion times are decided by the model (FIFO, or reordered by NCQ /
 * internal parallelism); they are never earlier than submit time plus the
 * model's minimum service time, and the caller never moves time backwards.
 * Models are chosen by the catalogue's `model:` name through
 * disk_model_find(); their numeric parameters are declared in a
 * struct param_desc table so the catalogue, --set and calibrate address
 * them by name. */
#ifndef NASTWIN_DISK_H
#define NASTWIN_DISK_H

#include <stddef.h>
#include <stdint.h>

#include "base/params.h"

struct disk_io {
  uint64_t offset_bytes; /* byte address on the device */
  uint64_t len_bytes;    /* > 0 */
  int write;             /* 0 read, 1 write */
  int discard;           /* 1 (with write 1): a discard (ATA TRIM, NVMe deallocate) of the
                            range: no data moves; only a model with .discard gets one */
  uint64_t tag;          /* caller's cookie, returned untouched */
};

/* The steady state a long run of one job leaves in a device (see
 * disk_precondition): the range the job wrote on this device and its
 * writes. */
struct disk_precond {
  uint64_t offset_bytes, len_bytes; /* the region the job touches on this device (sequential:
                                       the stretch it wrote last, ending at offset + len) */
  uint64_t run_bytes;               /* one write on this device: bs for random I/O */
  int sequential;                   /* 1: the writes follow each other up to offset + len */
  double write_fraction;            /* 0..1: share of the job's requests that write */
  double cache_share;               /* 0..1: part of the device's write cache this job's writes
                                       hold (several writers); 0: all of it */
};

struct disk_stats {
  uint64_t reads, writes;
  uint64_t read_bytes, write_bytes;
  uint64_t discards, discard_bytes; /* discard commands and the bytes they deallocated (not in
                                       writes) */
  double busy_s;   /* time with at least one request in service */
  double energy_J; /* energy since creation, all power states */
};

/* Optional shared upstream link (a SATA port multiplier, a PCIe switch's
 * upstream port): devices attached to the same link share its rate.
 * Defined in models/disks/iface.h. */
struct iface_link;

/* A rotating drive's measured geometry (DiskSim's dm_layout_g1 and
 * dm_mech_g1 "extracted" seek, or a catalogue entry's seek_curve and
 * zones), for models that place sectors physically (hdd).  Sectors are
 * 512 B.  A zone is a band of cylinders with one number of sectors per
 * track; its first `front_empty` sectors and its last `spares` sectors
 * hold no data and the physical sectors listed as slips (zone-relative
 * indices) are skipped.  The first sector of track k of the zone (cylinder
 * c = k / surfaces from the zone's first) starts first_offset + (k - c)
 * track_skew + c cyl_skew sectors past the index (modulo the track). */
#define DISK_LAYOUT_MAX_SEEK 256
#define DISK_LAYOUT_MAX_ZONES 96
#define DISK_LAYOUT_MAX_SLIPS 4096
struct disk_zone {
  double first_cyl, last_cyl;     /* inclusive */
  double spt;                     /* sectors per track */
  double first_offset;            /* sectors */
  double front_empty, spares;     /* sectors */
  double track_skew, cyl_skew;    /* sectors */
  int slip0, nslips;              /* slips[slip0 .. slip0 + nslips), ascending */
};
struct disk_layout {
  int nseek;                         /* 0: the model's own seek curve */
  double seek_cyl[DISK_LAYOUT_MAX_SEEK]; /* ascending cylinder distances, first >= 1 */
  double seek_s[DISK_LAYOUT_MAX_SEEK];   /* seek time at that distance (s) */
  int nzones;                        /* 0: no layout */
  struct disk_zone zones[DISK_LAYOUT_MAX_ZONES]; /* ascending cylinders */
  int nslips;
  uint32_t slips[DISK_LAYOUT_MAX_SLIPS];
};

struct disk_model {
  const char *name;                 /* catalogue `model:` value, e.g. "hdd" */
  const struct param_desc *params;  /* numeric parameters */
  size_t nparams;
  size_t params_size;               /* sizeof the model's params struct */
  /* Cross-field checks after every parameter passed its range check
   * (e.g. track-to-track <= average <= full stroke).  0, or -1 with msg. */
  int (*check)(const void *params, char *msg, size_t msg_len);
  /* Capacity in bytes for the given parameters. */
  double (*capacity_bytes)(const void *params);
  /* New device; params are copied.  seed gives the device its own RNG
   * stream.  NULL only when out of memory. */
  void *(*create)(const void *params, uint64_t seed);
  void (*destroy)(void *priv); /* accepts NULL */
  void (*submit)(void *priv, double now_s, const struct disk_io *io);
  /* 1: the device deallocates a discarded range (flash); 0: it advertises
   * no discard (a rotating drive), so the block layer above never sends one */
  int discard;
  double (*next_completion_s)(const void *priv);
  int (*pop_completion)(void *priv, double now_s, struct disk_io *done);
  void (*stats)(const void *priv, double now_s, struct disk_stats *out);
  /* Share an upstream link with other devices (NULL detaches). */
  void (*attach_link)(void *priv, struct iface_link *link);
  /* Optional (NULL: the device keeps no state a long run changes): put
   * the device's caches in the state a long run of the job leaves, before
   * any I/O at time 0. */
  void (*precondition)(void *priv, const struct disk_precond *p);
  /* Optional (NULL: the model has no physical layout): use the measured
   * geometry l from now on (copied).  0, or -1 with msg when l does not fit
   * the parameters (capacity, surfaces). */
  int (*set_layout)(void *priv, const struct disk_layout *l, char *msg, size_t msg_len);
};

/* A device instance: the model's table plus its state. */
struct disk {
  const struct disk_model *model;
  void *priv;
  char name[48]; /* "disk3", "cache0" */
};

/* Look a model up by its catalogue name; NULL when unknown. */
const struct disk_model *disk_model_find(const char *name);

/* "hdd, sata_ssd, nvme, fixed": the valid names, for error messages. */
const char *disk_model_names(void);

/* Create a device of model m; NULL when out of memory. */
struct disk *disk_create(const struct disk_model *m, const void *params, const char *name,
                         uint64_t seed);
void disk_destroy(struct disk *d); /* accepts NULL */

static inline void disk_submit(struct disk *d, double now_s, const struct disk_io *io)
{
  d->model->submit(d->priv, now_s, io);
}
static inline double disk_next_completion_s(const struct disk *d)
{
  return d->model->next_completion_s(d->priv);
}
static inline int disk_pop_completion(struct disk *d, double now_s, struct disk_io *done)
{
  return d->model->pop_completion(d->priv, now_s, done);
}
/* Steady state of a long run of the job p (nothing for models without it). */
static inline void disk_precondition(struct disk *d, const struct disk_precond *p)
{
  if (d->model->precondition != NULL)
    d->model->precondition(d->priv, p);
}
/* Give the device a measured geometry (a no-op for models without one and
 * for l NULL or empty).  0, or -1 with msg. */
static inline int disk_set_layout(struct disk *d, const struct disk_layout *l, char *msg,
                                  size_t msg_len)
{
  if (l == NULL || (l->nzones == 0 && l->nseek == 0) || d->model->set_layout == NULL)
    return 0;
  return d->model->set_layout(d->priv, l, msg, msg_len);
}
static inline void disk_stats(const struct disk *d, double now_s, struct disk_stats *out)
{
  *out = (struct disk_stats){0}; /* a model without discards leaves their counts 0 */
  d->model->stats(d->priv, now_s, out);
}

#endif
