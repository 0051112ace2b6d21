/* config_faults.c - the scenario's `faults:` list (config_impl.h): each
 * fault's kind, target and time, and the cross-checks: the faults must
 * name paths that exist and follow each other in a way the model can
 * simulate. */
#include <string.h>

#include "sim/config/config_impl.h"

/* A path fault names a path that exists: with network.mode lacp a NAS
 * port of a bond of two or more (the rest take over), with mpio one of
 * min(nas_links, client_nics) paths; mode single has no second path. */
static int cfg_fault_path_check(const struct ynode *f, const struct scenario *s, const struct cfg_fault *cf,
                                struct nw_err *err)
{
  const struct ynode *t = ytree_get(f, "target");
  enum net_mode mode = (enum net_mode)s->net.mode;
  const char *kind = cf->kind == CFG_FAULT_PATH_DOWN ? "path_down" : "path_up";
  int n = mode == NET_MODE_LACP ? (int)s->net.nas_links : mode == NET_MODE_MPIO ? net_mpio_paths(&s->net) : 0;
  if (mode == NET_MODE_SINGLE)
    return nw_fail(err, t->file, t->line, t->col,
                   "faults.kind: %s needs network.mode lacp or mpio; mode single has one path and no failover",
                   kind);
  if (n < 2)
    return nw_fail(err, t->file, t->line, t->col,
                   "faults.target: %s on a %s of %d %s leaves nothing to fail over to; give 2 or more", kind,
                   mode == NET_MODE_LACP ? "bond" : "multipath set", n, mode == NET_MODE_LACP ? "port" : "path");
  if (cf->target >= n)
    return nw_fail(err, t->file, t->line, t->col,
                   "faults.target: '%d' is not allowed: network.mode %s has %s 0 .. %d", cf->target,
                   mode == NET_MODE_LACP ? "lacp" : "mpio", mode == NET_MODE_LACP ? "NAS ports" : "paths", n - 1);
  return 0;
}

/* The faults in time order (list order on ties) must each change
 * something the model can follow: a disk fails or hangs once, never both
 * (a hung disk's requests never return: no SCSI timeout is modelled, so a
 * later failure cannot be simulated); a path goes down only when up and up
 * only when down, and never all paths at once (an unreachable NAS, I/O
 * queued until a path returns, is not modelled). */
static int cfg_fault_sequence(const struct ynode *fl, const struct scenario *s, struct nw_err *err)
{
  int order[CFG_MAX_FAULTS], n = s->nfaults;
  for (int i = 0; i < n; i++) {
    int k = i;
    while (k > 0 && s->faults[order[k - 1]].at_s > s->faults[i].at_s)
      order[k] = order[k - 1], k--;
    order[k] = i;
  }
  static const char *const names[] = {"disk_fail", "disk_hang", "path_down", "path_up"};
  int npaths = (enum net_mode)s->net.mode == NET_MODE_LACP ? (int)s->net.nas_links : net_mpio_paths(&s->net);
  unsigned down = 0;
  for (int a = 0; a < n; a++) {
    const struct cfg_fault *f = &s->faults[order[a]];
    const struct ynode *at = fl->kids[order[a]];
    int path = f->kind == CFG_FAULT_PATH_DOWN || f->kind == CFG_FAULT_PATH_UP;
    for (int b = 0; b < a && !path; b++) {
      const struct cfg_fault *g = &s->faults[order[b]];
      if ((g->kind == CFG_FAULT_DISK_FAIL || g->kind == CFG_FAULT_DISK_HANG) && g->target == f->target)
        return nw_fail(err, at->file, at->line, at->col,
                       "faults: %s of disk %d at %g s follows its %s at %g s; a disk fails or hangs once "
                       "(a hung disk's requests never return, no SCSI timeout is modelled)",
                       names[f->kind], f->target, f->at_s, names[g->kind], g->at_s);
    }
    if (!path)
      continue;
    unsigned bit = 1u << f->target;
    if ((f->kind == CFG_FAULT_PATH_DOWN) == !!(down & bit))
      return nw_fail(err, at->file, at->line, at->col, "faults: %s of path %d at %g s: it is already %s",
                     names[f->kind], f->target, f->at_s, f->kind == CFG_FAULT_PATH_DOWN ? "down" : "up");
    down ^= bit;
    if (npaths > 0 && down == (1u << npaths) - 1)
      return nw_fail(err, at->file, at->line, at->col,
                     "faults: path_down of path %d at %g s leaves no path up (all %d down); an unreachable "
                     "NAS is not modelled", f->target, f->at_s, npaths);
  }
  return 0;
}

/* The `faults:` list. */
int cfg_resolve_faults(const struct ynode *R, struct scenario *s, struct nw_err *err)
{
  const struct ynode *fl = ytree_get(R, "faults");
  if (fl) {
    if (fl->kind != YNODE_SEQ)
      return cfg_at(err, fl, "faults: expected a list of {kind, target, at}, got %s", ytree_kind_name(fl));
    if (fl->n > CFG_MAX_FAULTS)
      return nw_fail(err, fl->file, fl->line, fl->col, "faults: at most %d faults", CFG_MAX_FAULTS);
    static const char *const fkeys[] = {"kind", "target", "at", NULL};
    static const char *const fkinds[] = {"disk_fail", "disk_hang", "path_down", "path_up", NULL};
    for (int i = 0; i < fl->n; i++) {
      const struct ynode *f = fl->kids[i];
      if (f->kind != YNODE_MAP)
        return cfg_at(err, f, "faults: each fault is a map {kind, target, at}, got %s", ytree_kind_name(f));
      if (cfg_only_keys(f, "faults", fkeys, err) < 0)
        return -1;
      const char *k = NULL;
      const struct ynode *kn = NULL;
      if (cfg_word(f, "faults", "kind", 1, &k, &kn, err) < 0)
        return -1;
      int ki = -1;
      for (int j = 0; fkinds[j]; j++)
        if (!strcmp(fkinds[j], k))
          ki = j;
      if (ki < 0)
        return nw_fail(err, kn->file, kn->line, kn->col,
                       "faults.kind: '%s' is not allowed; one of: disk_fail, disk_hang, path_down, path_up", k);
      struct cfg_fault *cf = &s->faults[s->nfaults++];
      cf->kind = (enum cfg_fault_kind)ki;
      long target;
      int path = cf->kind == CFG_FAULT_PATH_DOWN || cf->kind == CFG_FAULT_PATH_UP;
      long max = path ? 15 : s->ndisks - 1;
      if (cfg_int(f, "faults", "target", 0, max, 1, 0, &target, err) < 0)
        return -1;
      cf->target = (int)target;
      if (path && cfg_fault_path_check(f, s, cf, err) < 0)
        return -1;
      const struct ynode *at = ytree_get(f, "at");
      char msg[512];
      if (!at || at->kind != YNODE_SCALAR || units_parse(at->scalar, UNITS_TIME, &cf->at_s, msg, sizeof msg) < 0 ||
          cf->at_s < 0)
        return nw_fail(err, at ? at->file : f->file, at ? at->line : f->line, at ? at->col : f->col,
                       "faults.at: %s", at && at->kind == YNODE_SCALAR ? (cf->at_s < 0 ? "must be >= 0" : msg)
                                                                       : "needs a time like 1.5s");
      if (ytree_get(R, "time") && cf->at_s >= s->time_s) /* a replay's own span is known later */
        return nw_fail(err, at->file, at->line, at->col,
                       "faults.at: '%s' is not before the end of the simulated time (time %g s): the fault "
                       "would never happen", at->scalar, s->time_s);
    }
    return cfg_fault_sequence(fl, s, err);
  }
  return 0;
}
