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
#include "sim/config/config.h"
#include "sim/config/ytree.h"

/* Read `seek_curve` and `zones` of catalogue entry e (either may be
 * absent) into *out.  0, or -1 with err at the offending node. */
int drive_layout_read(const struct ynode *e, const char *name, struct disk_layout *out,
                      struct nw_err *err);

/* The layout of drive d fits its parameters (tried on a trial device);
 * errors point at node at.  0 or -1. */
int drive_layout_check(const struct cfg_drive *d, const struct ynode *at, struct nw_err *err);

/* drive: {disksim: FILE.parv} (dn; FILE relative to dn's file): the DiskSim
 * drive imported as an hdd (each fact range-checked), then the overrides
 * of map over (keys in skip excepted) under `where`.  0 or -1. */
int drive_disksim_load(const struct ynode *dn, const struct ynode *over, const char *where,
                       const char *const *skip, struct cfg_drive *d, struct scenario *s,
                       struct nw_err *err);

/* `link: {rate: R, reserved: X}` of a drive section (absent: no shared
 * link): R per direction (B/s) shared by the section's devices, X of it
 * never given to them.  0 or -1 with err. */
int drive_link_read(const struct ynode *sec, const char *where, struct cfg_drive *d,
                    struct scenario *s, struct nw_err *err);

#endif
