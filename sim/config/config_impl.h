/* config_impl.h - what the scenario's section readers share: config.c
 * loads the scenario and the catalogue and reads the hardware sections;
 * config_keys.c holds the key and value checks declared first below
 * (cfg_at .. cfg_word), which every reader uses; config_faults.c reads
 * `faults:`, config_operation.c `operation:`, config_workload.c
 * `workload:`.  Outside sim/config/, a reader of another of nastwin's
 * YAML files (sim/study/calib_ci.c: a calibration's intervals) uses the
 * same key and scalar checks, so its errors read as the scenario's.
 * Each reader returns 0, or -1 with err at the offending node
 * (file:line:column, the key, the value and what is allowed). */
#ifndef NASTWIN_CONFIG_IMPL_H
#define NASTWIN_CONFIG_IMPL_H

#include "base/err.h"
#include "sim/config/config.h"
#include "sim/config/ytree.h"

/* Fail at node n's position (n NULL: no position). */
int cfg_at(struct nw_err *err, const struct ynode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* 1 when key is in the NULL-terminated list (NULL: empty). */
int cfg_in_list(const char *const *list, const char *key);
/* Key i of map is unknown in section where: the closest of table's keys
 * and extra, or the list of valid keys. */
int cfg_unknown_key(const struct ynode *map, int i, const char *where, const struct param_desc *table, size_t n,
                    const char *const *extra, struct nw_err *err);
/* Every key of map is in allowed (NULL-terminated): 0, or -1 with err
 * at the first that is not (cfg_unknown_key). */
int cfg_only_keys(const struct ynode *map, const char *where, const char *const *allowed, struct nw_err *err);
/* Every required key of table (not optional, not in skip: NULL-terminated,
 * NULL empty) is in at least one of the nmaps maps (a NULL map is empty):
 * 0, or -1 with err at where_node naming the first that is missing. */
int cfg_require_skip(const struct ynode *const *maps, int nmaps, const struct ynode *where_node, const char *where,
                     const struct param_desc *table, size_t n, const char *const *skip, struct nw_err *err);
/* cfg_require_skip with nothing skipped. */
int cfg_require(const struct ynode *const *maps, int nmaps, const struct ynode *where_node, const char *where,
                const struct param_desc *table, size_t n, struct nw_err *err);
/* One parameter d's value node (a scalar, or a catalogue map {value,
 * source|fit}) into *out: its unit, its range; a fit recorded in s under
 * prefix (s NULL: none). */
int cfg_value(const struct ynode *v, const char *where, const struct param_desc *d, double *out, struct scenario *s,
              const char *prefix, struct nw_err *err);
/* A whole number key of map in [min, max]; def when absent unless required. */
int cfg_int(const struct ynode *map, const char *where, const char *key, long min, long max, int required,
            long def, long *out, struct nw_err *err);
/* A non-empty name key of map (*out NULL when absent and not required);
 * *node its node when node is given. */
int cfg_word(const struct ynode *map, const char *where, const char *key, int required, const char **out,
             const struct ynode **node, struct nw_err *err);

/* config_faults.c: the `faults:` list of R into s->faults, checked against
 * the network and against each other. */
int cfg_resolve_faults(const struct ynode *R, struct scenario *s, struct nw_err *err);
/* config_operation.c: the background md operation (`operation:`). */
int cfg_resolve_operation(const struct ynode *R, struct scenario *s, struct nw_err *err);

#endif
