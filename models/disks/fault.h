/* fault.h - fault injection as a device stacked on a real one.
 *
 * A hung device accepts requests but, from at_s on, never completes the
 * ones submitted after that time (a firmware hang, a dead cable without
 * timeouts).  The engine must then report unfinished work rather than a
 * result.  The wrapped device keeps serving what it had before at_s. */
#ifndef NASTWIN_DISK_FAULT_H
#define NASTWIN_DISK_FAULT_H

#include "models/disks/disk.h"

/* Wrap `inner` (ownership moves to the wrapper); NULL when out of memory
 * (inner is then destroyed). */
struct disk *disk_fault_hang(struct disk *inner, double at_s);

#endif
