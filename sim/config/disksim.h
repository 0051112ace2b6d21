/* disksim.h - a DiskSim 4.0 drive (its .parv, the .diskspecs it sources,
 * the .model and .seek files they name) as an hdd catalogue entry.
 *
 * The validation setup's disk (the disksim_disk of the topology) maps to
 * the hdd model's keys, each fact with the file and line it came from:
 * dm_disk geometry (surfaces, block count, dm_layout_g1 zones with skews,
 * spares and slips), dm_mech_g1 mechanics (rotation, head switch, write
 * settle, the extracted seek curve), the controller's overheads per case,
 * bulk sector transfer time, buffer segments, read-ahead, fast writes and
 * queue length.  Facts the hdd model has no key for are listed. */
#ifndef NASTWIN_DISKSIM_H
#define NASTWIN_DISKSIM_H

#include <stdio.h>

#include "base/err.h"
#include "models/disks/disk.h"

#define DS_MAX_FACTS 48
#define DS_MAX_NOTES 200

struct ds_fact {
  const char *key;    /* hdd parameter key */
  double value;       /* canonical units (s, B, B/s, rpm, count; choices: index) */
  char text[48];      /* the YAML value with its unit */
  char source[240];   /* "file:line: DiskSim key = value" or how it was derived */
  int fit;            /* 1: not in the DiskSim files, a bounded guess */
};

struct ds_drive {
  char spec[96];      /* DiskSim's disk spec name */
  char parv[128];     /* base name of the .parv */
  int nfacts;
  struct ds_fact facts[DS_MAX_FACTS];
  struct disk_layout layout;
  char seek_source[240];
  char zone_source[DISK_LAYOUT_MAX_ZONES][96];
  int nnotes;         /* facts not mapped */
  char notes[DS_MAX_NOTES][200];
};

/* Import the drive of a .parv.  0, or -1 with err ("file:line:col" of the
 * offending key or value). */
int disksim_import(const char *parv_path, struct ds_drive *out, struct nw_err *err);

/* Print the catalogue entry `name:` (YAML, indented for drives.yaml). */
void disksim_print_entry(const struct ds_drive *d, const char *name, FILE *out);

#endif
