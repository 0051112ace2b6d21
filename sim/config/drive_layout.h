/* drive_layout.h - a catalogue drive's measured geometry in YAML:
 *
 *   seek_curve: {source: "...", points: [[1, 0.831ms], [2, 1.003ms], ...]}
 *   zones:
 *     - {cylinders: [0, 846], sectors_per_track: 254, first_offset: 0,
 *        front_empty: 0, track_skew: 97, cylinder_skew: 133, spares: 1270,
 *        slips: [168317, ...], source: "..."}
 *
 * (distances in cylinders, skews and counts in 512 B sectors; see struct
 * disk_layout).  What `nastwin drives import --disksim` prints. */
#ifndef NASTWIN_DRIVE_LAYOUT_H
#define NASTWIN_DRIVE_LAYOUT_H

#include "base/err.h"
#include "models/disks/disk.h"
#include "sim/config/ytree.h"

/* Read `seek_curve` and `zones` of catalogue entry e (either may be
 * absent) into *out.  0, or -1 with err at the offending node. */
int drive_layout_read(const struct ynode *e, const char *name, struct disk_layout *out,
                      struct nw_err *err);

#endif
