/* calib_reachrec.c - the recorded reach: the (simulation, free parameter)
 * pairs a fit measured inert (calib_reach.c), written beside its output
 * (OUT without .yaml, then .reach.yaml) and read by the next fit as a
 * hypothesis.  The next fit trusts a task's recorded pairs only after one
 * group simulation with all of them moved gives the unmoved result bit for
 * bit (the simulator is deterministic); a group that moves is split as
 * any other.  So a stale record (a model, a scenario or the catalogue
 * changed since) costs simulations, never a wrong reach: no hash decides.
 *
 * Format: `version: 1`, then `tasks:`, one flow map per task with a
 * recorded inert pair: {task: "SCENARIO|SETS|FIO|STEP", inert: ["ENTRY.KEY",
 * ...]} (SETS with ';' between the --set items); every task the fit
 * needed is named, an empty list when none of its pairs is inert. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "sim/config/ytree.h"
#include "sim/study/calib_impl.h"

#define CALIB_LABEL_BYTES 2048 /* a task label "SCENARIO|SETS|FIO|STEP" */

/* The record's path beside o->out; 0, or -1 when there is no output. */
int calib_reach_record_path(const struct calib *c, char *buf, size_t len)
{
  const char *out = c->o->out;
  if (!out || !*out)
    return -1;
  size_t n = strlen(out);
  if (n > 5 && !strcmp(out + n - 5, ".yaml"))
    n -= 5;
  snprintf(buf, len, "%.*s.reach.yaml", (int)n, out);
  return 0;
}

/* path relative to the points file's folder (as the points file names it):
 * the record does not depend on where the tree is. */
static const char *calib_points_rel(const struct calib *c, const char *path)
{
  const char *pts = c->o->points ? c->o->points : val_default_points(), *slash = strrchr(pts, '/');
  size_t n = slash ? (size_t)(slash - pts) : 0;
  return n && !strncmp(path, pts, n) && path[n] == '/' ? path + n + 1 : path;
}

/* Task t's label "SCENARIO|SETS|FIO|STEP"; 0, or -1 when it cannot be
 * written as a plain quoted scalar (then the task is not recorded). */
static int calib_task_label(const struct calib *c, int t, char *buf, size_t len)
{
  const struct val_cfg *g = &c->v.cfgs[c->v.tasks[t].cfg];
  int st = c->v.tasks[t].step;
  const char *step = st >= 0 && st < g->s.workload.nsteps ? g->s.workload.steps[st].name : "";
  int n = snprintf(buf, len, "%s|%s|%s|%s", calib_points_rel(c, g->scenario), g->sets, calib_points_rel(c, g->fio),
                   step);
  if (n < 0 || (size_t)n >= len)
    return -1;
  for (char *p = buf; *p; p++) {
    if (*p == '\n')
      *p = ';';
    else if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
      return -1;
  }
  return 0;
}

/* Is (t, j) a recorded pair: free, declared by t, out of its reach? */
static int calib_task_inert(const struct calib *c, const unsigned char *decl, int t, int j)
{
  size_t k = (size_t)t * (size_t)c->np + (size_t)j;
  return c->par[j].free_ && decl[k] && !c->reach[k];
}

int calib_reach_record_write(const struct calib *c, const unsigned char *decl, const unsigned char *need,
                             struct nw_err *err)
{
  char path[1100], label[CALIB_LABEL_BYTES];
  if (calib_reach_record_path(c, path, sizeof path) < 0)
    return 0;
  struct file_atomic a;
  if (file_atomic_open(&a, path, err) != 0)
    return -1;
  FILE *f = a.f;
  fprintf(f, "# written by `nastwin calibrate --reach scenario`; do not edit by hand.\n"
             "# The (simulation, free parameter) pairs measured inert at the fit's start\n"
             "# point; the next fit tests each task's pairs as one group before trusting\n"
             "# them (validation/README.md, \"Reach tests\").\n"
             "version: 1\ntasks:");
  int ntasks = 0;
  for (int t = 0; t < c->v.ntasks; t++) {
    if (!need[t] || calib_task_label(c, t, label, sizeof label) < 0)
      continue;
    fprintf(f, "\n  - {task: \"%s\", inert: [", label);
    for (int j = 0, k = 0; j < c->np; j++)
      if (calib_task_inert(c, decl, t, j))
        fprintf(f, "%s\"%s.%s\"", k++ ? ", " : "", c->par[j].entry, c->par[j].key);
    fputs("]}", f);
    ntasks++;
  }
  fputs(ntasks ? "\n" : " []\n", f);
  return file_atomic_commit(&a, 0, err);
}

/* Parameter index of "ENTRY.KEY", or -1. */
static int calib_param_of(const struct calib *c, const char *name)
{
  const char *dot = strrchr(name, '.');
  char entry[128];
  if (!dot || dot - name >= (long)sizeof entry)
    return -1;
  snprintf(entry, sizeof entry, "%.*s", (int)(dot - name), name);
  return calib_find_param(c, entry, dot + 1);
}

/* The record's item it (a map) into hyp; labels: every task's label
 * (CALIB_LABEL_BYTES each, "" when it has none).  0, or -1 with err. */
static int calib_reach_record_item(const struct calib *c, const struct ynode *it, const char *labels,
                                   unsigned char *hyp, unsigned char *rec, int *ntasks, struct nw_err *err)
{
  const struct ynode *task = it->kind == YNODE_MAP ? ytree_get(it, "task") : NULL;
  const struct ynode *inert = it->kind == YNODE_MAP ? ytree_get(it, "inert") : NULL;
  if (!task || task->kind != YNODE_SCALAR || !inert || inert->kind != YNODE_SEQ)
    return nw_fail(err, it->file, it->line, it->col, "reach record: a task needs `task: LABEL` and an `inert` list");
  int t = 0;
  const char *l = labels;
  while (t < c->v.ntasks && (!*l || strcmp(l, task->scalar))) {
    t++;
    l += CALIB_LABEL_BYTES;
  }
  if (t == c->v.ntasks)
    return 0; /* a task this fit does not simulate */
  *ntasks += !rec[t];
  rec[t] = 1;
  for (int k = 0; k < inert->n; k++) {
    const struct ynode *q = inert->kids[k];
    if (q->kind != YNODE_SCALAR)
      return nw_fail(err, q->file, q->line, q->col, "reach record: expected ENTRY.KEY");
    int j = calib_param_of(c, q->scalar);
    if (j >= 0) /* a parameter no longer fitted: left out */
      hyp[(size_t)t * (size_t)c->np + (size_t)j] = 1;
  }
  return 0;
}

int calib_reach_record_read(const struct calib *c, unsigned char *hyp, unsigned char *rec, int *ntasks,
                            struct nw_err *err)
{
  char path[1100];
  *ntasks = 0;
  if (calib_reach_record_path(c, path, sizeof path) < 0 || access(path, F_OK) != 0)
    return 0; /* no record: the lead steps stand in */
  struct ynode *root = ytree_load_file(path, err);
  if (!root)
    return -1;
  const struct ynode *ver = ytree_get(root, "version"), *tasks = ytree_get(root, "tasks");
  int rc = 0;
  if (!ver || ver->kind != YNODE_SCALAR || strcmp(ver->scalar, "1") || !tasks || tasks->kind != YNODE_SEQ)
    rc = nw_fail(err, path, root->line, root->col, "reach record: expected `version: 1` and a `tasks` list");
  char *labels = rc == 0 ? malloc((size_t)(c->v.ntasks > 0 ? c->v.ntasks : 1) * CALIB_LABEL_BYTES) : NULL;
  if (rc == 0 && !labels)
    rc = nw_fail(err, path, 0, 0, "reach record: out of memory");
  for (int t = 0; rc == 0 && t < c->v.ntasks; t++) {
    char *l = labels + (size_t)t * CALIB_LABEL_BYTES;
    if (calib_task_label(c, t, l, CALIB_LABEL_BYTES) < 0)
      *l = 0; /* not recordable: matches no record */
  }
  for (int i = 0; rc == 0 && i < tasks->n; i++)
    rc = calib_reach_record_item(c, tasks->kids[i], labels, hyp, rec, ntasks, err);
  free(labels);
  ytree_free(root);
  return rc;
}
