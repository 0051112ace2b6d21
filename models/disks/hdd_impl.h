/* hdd_impl.h - private to models/disks/hdd*.c: the hdd model's state and
 * the functions its files share (hdd.c: geometry, seeks, planning,
 * dispatch, the write cache; hdd_cache.c: the read cache's segments,
 * the idle read-ahead and each stream's look-ahead). */
#ifndef NASTWIN_HDD_IMPL_H
#define NASTWIN_HDD_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "models/disks/disk_impl.h"
#include "models/disks/iface.h"

/* Contiguous write-back writes merge into one extent up to this size. */
#define HDD_DESTAGE_MERGE_MAX_BYTES (1u << 20)
/* A read starting at most this far past a segment's end continues it
 * (stream detection tolerates the parity chunks md skips on a RAID-5/6
 * member: up to 2 x 64 KiB chunks, rounded up). */
#define HDD_STREAM_GAP_BYTES (256u << 10)
#define HDD_SEGMENTS_MAX 64
/* A rotational wait within this fraction of a revolution of a full turn
 * is float noise on a sector that is exactly under the head: no wait. */
#define HDD_ROT_EPS_REV 1e-6

struct hdd_params {
  double capacity_bytes;
  double rpm;
  double seek_track_s;
  double seek_avg_s;
  double seek_full_s;
  double heads;
  double head_switch_s;
  double rate_outer_bytes_per_s;
  double rate_inner_bytes_per_s;
  double cmd_overhead_s;
  double cache_bytes;
  double read_ahead_bytes;
  double cache_segments;
  double stream_prefetch_bytes;
  double zero_latency_read; /* index into hdd_on_off */
  double write_cache; /* index into hdd_on_off */
  double write_cache_extents;
  double ncq_depth;
  double ncq_max_wait_s;
  double link_rate_bytes_per_s;
  double power_active_W;
  double power_idle_W;
  double power_standby_W;
  double standby_after_s;
  double spinup_time_s;
  double spinup_power_W;
  double bus_sector_s;      /* host bus time per 512 B sector; 0 = link_rate */
  double ovh_s[8];          /* controller overhead, index hdd_ovh_index() */
  double write_settle_s;
  double read_hits_on_write; /* index into hdd_on_off */
  double ra_within_segment;  /* index into hdd_on_off */
  double read_frees;         /* index into hdd_on_off */
  double settle_min_s;       /* least repositioning time, same track included */
};

struct hdd_cmd {
  struct disk_io io;
  double submit_s;
};

struct hdd {
  struct hdd_params p;
  double rot_s;      /* one revolution (s) */
  double disk_s;     /* K: media time of the whole disk (s) */
  double cylinders;
  double phase0_rev; /* platter angle at t = 0 (revolutions) */
  uint64_t seed;     /* the device's random stream (phase0, preconditioned extents) */
  double seek_a, seek_d0, seek_b;
  struct hdd_geom *geom;     /* measured layout and seek table, NULL: the fitted curve */
  int last_write;            /* the previous host command wrote (selects overheads) */
  double ra_limit_bytes;     /* this read-ahead's length */
  struct hdd_cmd *hq; /* host commands not yet dispatched, FIFO */
  size_t hq_n, hq_cap;
  struct hdd_cmd *dq; /* dirty extents awaiting destage, oldest first */
  size_t dq_n, dq_cap;
  double dirty_bytes;
  double mech_free_s;        /* the actuator is free from then on */
  uint64_t head_off_bytes;   /* offset under the head at head_t_s */
  double head_t_s;
  int ra_active;             /* reading ahead from head_off since head_t into seg[cur] */
  int ra_lookahead;          /* ... for a stream's look-ahead (busy), not idle read-ahead */
  struct hdd_seg {
    uint64_t lo_bytes, hi_bytes; /* [lo, hi) is in the buffer; lo == hi: empty */
    uint64_t used;               /* LRU clock */
    int stream;                  /* a detected stream's (its look-ahead is kept up) */
    int la;                      /* a look-ahead into it is pending since la_t */
    double la_t;
  } seg[HDD_SEGMENTS_MAX];
  int la_n;                    /* segments with a look-ahead pending */
  int nseg, cur;               /* segments in use; the one read ahead into */
  uint64_t seg_clock;
  uint64_t seg_cap_bytes;      /* cache / segments */
  struct iface_port port;
  struct iface_link *link;
  struct disk_heap done;
  struct disk_busy busy;
  struct disk_power power;
  struct disk_stats counts; /* reads, writes and their bytes */
};

enum hdd_kind { HDD_HIT, HDD_STREAM, HDD_MECH };

struct hdd_plan {
  enum hdd_kind kind;
  int seg;              /* HIT/STREAM: the segment; MECH: the stream it continues, -1 none */
  uint64_t prefetch_bytes; /* MECH: read past the request before the next command */
  double cost_s;        /* positioning time before data moves */
  double media_start_s; /* data starts to move */
  double data_end_s;    /* the requested data has passed under the head */
  double media_end_s;   /* actuator free again */
};

/* hdd.c */
double hdd_rate_at(const struct hdd *h, uint64_t off_bytes);
double hdd_media_s(const struct hdd *h, uint64_t off_bytes, uint64_t len_bytes);
double hdd_overhead_s(const struct hdd *h, int write, int hit);
void hdd_plan_media(const struct hdd *h, double t_s, uint64_t pos, const struct disk_io *io,
                    int cont, uint64_t pf, struct hdd_plan *pl);
void hdd_execute(struct hdd *h, double t_s, const struct disk_io *io, int host,
                 const struct hdd_plan *pl);
void hdd_cmd_remove(struct hdd_cmd *v, size_t *n, size_t i);

/* hdd_cache.c */
uint64_t hdd_head_at(const struct hdd *h, double t_s, int *streaming);
void hdd_seg_range(const struct hdd *h, int i, uint64_t pos, uint64_t *lo, uint64_t *hi);
void hdd_seg_reset(struct hdd *h, int i, int stream);
void hdd_lookahead_want(struct hdd *h, int j, uint64_t e, double t_s);
void hdd_seg_invalidate(struct hdd *h, uint64_t o, uint64_t e);
void hdd_seg_fill(struct hdd *h, uint64_t o, uint64_t e);
void hdd_ra_stop(struct hdd *h, double t_s);
void hdd_ra_start(struct hdd *h, int j);
/* Earliest time a pending look-ahead may start (none before the
 * read-ahead under way has ended); INFINITY when none is pending. */
double hdd_lookahead_first_s(const struct hdd *h);
/* The pending look-ahead due at t_s that positions soonest, planned in
 * *best; its segment, or -1 when none may start at t_s. */
int hdd_lookahead_pick(const struct hdd *h, double t_s, struct hdd_plan *best);
/* Busy time of the look-ahead under way up to now_s not yet in h->busy. */
double hdd_lookahead_busy_s(const struct hdd *h, double now_s);
void hdd_lookahead_run(struct hdd *h, double t_s, int j, const struct hdd_plan *pl);

#endif
