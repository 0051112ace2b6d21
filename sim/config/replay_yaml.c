/* replay_yaml.c - workload: {replay: FILE, replay_format: F, replay_depth: N}. */
#include "sim/config/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/workload.h"
#include "sim/config/ytree.h"

static int rw_word(const struct ynode *w, const char *key, const char **out,
                   const struct ynode **node, struct nw_err *err)
{
  const struct ynode *v = ytree_get(w, key);
  *node = v;
  if (!v)
    return nw_fail(err, w->file, w->line, w->col, "workload: missing required key '%s'", key);
  if (v->kind != YNODE_SCALAR || !v->scalar[0])
    return nw_fail(err, v->file, v->line, v->col, "workload.%s: expected a name, got %s", key,
                   ytree_kind_name(v));
  *out = v->scalar;
  return 0;
}

/* workload: {replay: FILE, replay_format: F, replay_depth: N}: one job replaying a trace. */
int replay_workload_read(const struct ynode *w, const char *scenario_path, struct workload *out,
                      struct nw_err *err)
{
  static const char *const keys[] = {"replay", "replay_format", "replay_depth", NULL};
  for (int i = 0; i < w->n; i++)
    if (strcmp(w->keys[i], keys[0]) && strcmp(w->keys[i], keys[1]) && strcmp(w->keys[i], keys[2]))
      return nw_fail(err, w->file, w->key_line[i], w->key_col[i],
                     "workload: unknown key '%s' beside replay; valid: replay, replay_format, "
                     "replay_depth", w->keys[i]);
  const char *file = NULL, *fmt = NULL;
  const struct ynode *fn = NULL, *fmn = NULL;
  if (rw_word(w, "replay", &file, &fn, err) < 0 || rw_word(w, "replay_format", &fmt, &fmn, err) < 0)
    return -1;
  enum replay_format f;
  if (replay_format_parse(fmt, &f) < 0)
    return nw_fail(err, fmn->file, fmn->line, fmn->col,
                   "workload.replay_format: '%s' is not allowed; valid: %s", fmt, replay_format_names());
  long depth = 0;
  const struct ynode *dn = ytree_get(w, "replay_depth");
  if (dn) {
    char *end = NULL;
    depth = dn->kind == YNODE_SCALAR ? strtol(dn->scalar, &end, 10) : -1;
    if (dn->kind != YNODE_SCALAR || end == dn->scalar || *end || depth < 0 || depth > 4096)
      return nw_fail(err, dn->file, dn->line, dn->col,
                     "workload.replay_depth: '%s' is not allowed: must be a whole number between 0 "
                     "(open loop by the trace's timestamps) and 4096",
                     dn->kind == YNODE_SCALAR ? dn->scalar : ytree_kind_name(dn));
  }
  char path[1100];
  const char *slash = strrchr(fn->file[0] ? fn->file : scenario_path, '/');
  const char *base = fn->file[0] ? fn->file : scenario_path;
  if (file[0] == '/' || !slash)
    snprintf(path, sizeof path, "%s", file);
  else
    snprintf(path, sizeof path, "%.*s/%s", (int)(slash - base), base, file);
  if (!(out->replay = replay_load(path, f, err)))
    return -1;
  if (!(out->steps = calloc(1, sizeof *out->steps)))
    return nw_fail(err, w->file, w->line, w->col, "out of memory");
  out->nsteps = 1;
  struct workload_step *st = &out->steps[0];
  snprintf(st->name, sizeof st->name, "replay");
  snprintf(st->metric, sizeof st->metric, "lat_ms");
  st->njobs = 1;
  struct job *j = &st->jobs[0];
  job_defaults(j);
  snprintf(j->name, sizeof j->name, "replay");
  j->replay = 1;
  j->replay_depth = (int)depth;
  j->iodepth = depth > 0 ? (int)depth : 1;
  j->direct = 1; /* a block trace is what reached the device */
  return 0;
}
