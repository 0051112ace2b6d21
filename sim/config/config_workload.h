/* config_workload.h - the scenario's `workload:` section (internal to sim/config/). */
#ifndef NASTWIN_CONFIG_WORKLOAD_H
#define NASTWIN_CONFIG_WORKLOAD_H

#include "base/err.h"
#include "sim/config/config.h"
#include "sim/config/workload.h"
#include "sim/config/ytree.h"

/* Read w (NULL: the section is missing, an error at scenario_path) into
 * *out: a preset with its settings, a fio job file (relative to the
 * scenario's folder) or inline fio keys.  fio warnings go to stderr.
 * 0, or -1 with err (out may hold steps: workload_free it). */
int cfg_workload(const struct ynode *w, const char *scenario_path, struct workload *out,
                 struct nw_err *err);

/* After the scenario is read: no job asks its protocol for what it does
 * not serve (a file operation over a block protocol, a trim of a file on
 * a share); R the scenario's tree (for the protocol.kind position). */
int cfg_workload_check(const struct ynode *R, const struct scenario *s, struct nw_err *err);

#endif
