/* config_faults.h - cross-checks of the scenario's `faults:` list against
 * the network and against each other (config_faults.c; parsed in config.c). */
#ifndef NASTWIN_CONFIG_FAULTS_H
#define NASTWIN_CONFIG_FAULTS_H

#include "base/err.h"
#include "sim/config/config.h"
#include "sim/config/ytree.h"

/* f: the fault's map; cf: the fault read from it (a path_down or path_up). */
int cfg_fault_path_check(const struct ynode *f, const struct scenario *s, const struct cfg_fault *cf,
                         struct nw_err *err);
/* fl: the faults list, s->faults read from it in list order. */
int cfg_fault_sequence(const struct ynode *fl, const struct scenario *s, struct nw_err *err);

#endif
