/* hdd_layout.h - the hdd model's measured geometry (not for callers):
 * logical block -> (zone, cylinder, surface, sector, angle) through a zone
 * table with skews, spares and slips, media time over track and cylinder
 * switches, and an extracted seek curve.  See struct disk_layout. */
#ifndef NASTWIN_HDD_LAYOUT_H
#define NASTWIN_HDD_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "models/disks/disk.h"

struct hdd_geom {
  struct disk_layout l;
  double surfaces;
  double rot_s;
  double head_switch_s;
  double cylinders;                       /* last zone's last cylinder + 1 */
  uint64_t blocks;                        /* mapped logical blocks */
  uint64_t lbn0[DISK_LAYOUT_MAX_ZONES];   /* first block of each zone */
  uint64_t nlbn[DISK_LAYOUT_MAX_ZONES];   /* blocks in each zone */
};

/* Where a logical block lies. */
struct hdd_loc {
  int zone;
  double track;    /* zone-relative track index */
  double cyl;      /* absolute cylinder */
  double sector;   /* physical sector index on the track */
  double spt;      /* sectors per track of the zone */
  double angle_rev; /* start of the sector past the index, [0, 1) revolutions */
};

/* Build g from l for a drive of `surfaces` heads at rot_s per revolution
 * whose user area is `blocks` sectors.  0, or -1 with msg (zones out of
 * order, too few sectors for the capacity, seek table not ascending). */
int hdd_geom_init(struct hdd_geom *g, const struct disk_layout *l, double surfaces, double rot_s,
                  double head_switch_s, uint64_t blocks, char *msg, size_t msg_len);
/* Locate logical block lbn (clamped to the last block). */
void hdd_geom_locate(const struct hdd_geom *g, uint64_t lbn, struct hdd_loc *out);
/* Seek time (s) over dcyl >= 1 cylinders: the extracted table, linear
 * between its points and along its last segment beyond it; without a
 * table -1. */
double hdd_geom_seek_s(const struct hdd_geom *g, double dcyl);
/* Media time (s) from the start of block lbn to the end of block lbn + n - 1,
 * over every track and cylinder switch (the skew, or a whole extra turn
 * when the switch is slower than the skew). */
double hdd_geom_media_s(const struct hdd_geom *g, uint64_t lbn, uint64_t n,
                        double (*seek_s)(const void *ctx, double dcyl), const void *ctx);
/* Media rate (B/s) at block lbn (sectors per track x 512 per revolution). */
double hdd_geom_rate(const struct hdd_geom *g, uint64_t lbn);

#endif
