/* plausible.h - a resolved scenario against its chassis's hardware limits.
 *
 * The catalogue (catalog/systems.yaml) records what the chassis can hold:
 * drive bays (plus expansion units) and their interface, M.2 slots, the
 * most RAM, the network ports and their line rates.  A scenario asking for
 * more (a 10GB/s port on a 10GbE system, 24 disks in 8 bays, an NVMe drive
 * in a SATA bay) is refused with file:line:col naming the value and the
 * limit, or, when the scenario is marked custom hardware (scenario key
 * `custom_hardware: true`, command-line option --custom-hardware), accepted
 * with a warning on stderr. */
#ifndef NASTWIN_PLAUSIBLE_H
#define NASTWIN_PLAUSIBLE_H

#include <stdio.h>

#include "base/err.h"
#include "sim/config/config.h"
#include "sim/config/ytree.h"

/* Check s (resolved from the merged tree R) against s->system's limits.
 * Limits of 0 are not known and not checked.  When R's `custom_hardware`
 * is true every violation is printed as "file:line:col: warning: ..." to
 * warn_out and accepted.  0, or -1 with err at the offending value (or at
 * a custom_hardware value that is not true/false). */
int cfg_plausible(const struct ynode *R, const struct scenario *s, FILE *warn_out,
                  struct nw_err *err);

#endif
