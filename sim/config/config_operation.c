/* config_operation.c - the scenario's `operation:` section
 * (config_impl.h): a background md operation (resync, rebuild, reshape,
 * migrate) on the volume, the members and level it starts from, and
 * whether the workload runs during it. */
#include <string.h>

#include "sim/config/config_impl.h"

/* The background md operation (`operation:`). */
int cfg_resolve_operation(const struct ynode *R, struct scenario *s, struct nw_err *err)
{
  const struct ynode *on = ytree_get(R, "operation");
  s->op_from_members = s->ndisks;
  s->op_from_level = (int)s->volume.level;
  if (on) {
    if (on->kind != YNODE_MAP)
      return cfg_at(err, on, "operation: expected a map, got %s", ytree_kind_name(on));
    static const char *const okeys[] = {"kind", "from_members", "from_level", "with_workload", NULL};
    if (cfg_only_keys(on, "operation", okeys, err) < 0)
      return -1;
    const char *k = NULL;
    const struct ynode *kn = NULL;
    if (cfg_word(on, "operation", "kind", 1, &k, &kn, err) < 0)
      return -1;
    int ki = -1;
    for (int i = STACK_OP_RESYNC; stack_op_names[i]; i++)
      if (strcmp(stack_op_names[i], k) == 0)
        ki = i;
    if (ki < 0)
      return nw_fail(err, kn->file, kn->line, kn->col,
                     "operation.kind: '%s' is not allowed; one of: resync, rebuild, reshape, migrate", k);
    s->op = (enum stack_op_kind)ki;
    long fm, wl;
    if (cfg_int(on, "operation", "from_members", 1, 64, 0, s->ndisks, &fm, err) < 0 ||
        cfg_int(on, "operation", "with_workload", 0, 1, 0, 0, &wl, err) < 0)
      return -1;
    s->op_from_members = (int)fm;
    s->op_with_workload = (int)wl;
    s->op_members = s->ndisks;
    s->op_level = (int)s->volume.level;
    const struct ynode *fl = ytree_get(on, "from_level");
    if (fl) {
      const struct param_desc *ld = params_find(volume_param_table, volume_param_count, "level");
      double lv;
      if (cfg_value(fl, "operation", ld, &lv, NULL, "", err) < 0)
        return -1;
      s->op_from_level = (int)lv;
    }
    if ((s->op == STACK_OP_RESHAPE || s->op == STACK_OP_MIGRATE) && s->op_from_members > s->ndisks)
      return nw_fail(err, on->file, on->line, on->col,
                     "operation: from_members %d must not exceed disks.count %d", s->op_from_members,
                     s->ndisks);
  }
  return 0;
}
