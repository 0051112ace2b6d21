/* config_workload.c - the scenario's `workload:` section (see config_workload.h). */
#include "sim/config/config_workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/config/replay.h"
#include "sim/config/workload_build.h"

/* workload: {preset: NAME, settings...} | {fio: FILE} | {jobs: [..]} | inline fio keys. */
int cfg_workload(const struct ynode *w, const char *scenario_path, struct workload *out,
                        struct nw_err *err)
{
  memset(out, 0, sizeof *out);
  if (!w)
    return nw_fail(err, scenario_path, 0, 0, "missing required section 'workload'");
  if (w->kind != YNODE_MAP)
    return nw_fail(err, w->file, w->line, w->col, "workload: expected a map, got %s",
                   ytree_kind_name(w));
  const struct ynode *preset = ytree_get(w, "preset");
  const struct ynode *fio = ytree_get(w, "fio");
  if (ytree_get(w, "replay"))
    return replay_workload_read(w, scenario_path, out, err);
  if (preset) {
    if (preset->kind != YNODE_SCALAR)
      return nw_fail(err, preset->file, preset->line, preset->col, "workload.preset: expected a name");
    const char *keys[64], *vals[64];
    int nkv = 0;
    for (int i = 0; i < w->n; i++) {
      if (strcmp(w->keys[i], "preset") == 0)
        continue;
      if (w->kids[i]->kind != YNODE_SCALAR)
        return nw_fail(err, w->kids[i]->file, w->kids[i]->line, w->kids[i]->col,
                       "workload.%s: expected a value, got %s", w->keys[i], ytree_kind_name(w->kids[i]));
      if (nkv == 64)
        return nw_fail(err, w->file, w->line, w->col, "workload: too many settings");
      keys[nkv] = w->keys[i];
      vals[nkv++] = w->kids[i]->scalar;
    }
    char msg[600];
    if (workload_preset(preset->scalar, keys, vals, nkv, out, msg, sizeof msg) < 0)
      return nw_fail(err, preset->file, preset->line, preset->col, "workload: %s", msg);
    return 0;
  }
  if (fio) {
    if (fio->kind != YNODE_SCALAR)
      return nw_fail(err, fio->file, fio->line, fio->col, "workload.fio: expected a file name");
    if (w->n != 1)
      return nw_fail(err, w->file, w->line, w->col,
                     "workload: 'fio:' names a job file; put the job's options in that file");
    char path[1024];
    if (fio->scalar[0] == '/')
      snprintf(path, sizeof path, "%s", fio->scalar);
    else {
      const char *slash = strrchr(scenario_path, '/');
      int dirlen = slash ? (int)(slash - scenario_path) : 1;
      snprintf(path, sizeof path, "%.*s/%s", dirlen, slash ? scenario_path : ".", fio->scalar);
    }
    struct stat st;
    if (stat(path, &st) != 0)
      return nw_fail(err, fio->file, fio->line, fio->col, "workload.fio: cannot open '%s': %s", path,
                     strerror(errno));
    if (!S_ISREG(st.st_mode))
      return nw_fail(err, fio->file, fio->line, fio->col, "workload.fio: '%s' is %s, not a fio job file",
                     path, S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket");
    char *warnings = NULL;
    int rc = fio_parse_file(path, out, &warnings, err);
    fio_print_warnings(stderr, warnings);
    free(warnings);
    return rc;
  }
  /* Inline fio keys: one step with one job. */
  out->steps = calloc(1, sizeof *out->steps);
  if (!out->steps)
    return nw_fail(err, w->file, w->line, w->col, "out of memory");
  out->nsteps = 1;
  struct workload_step *st = &out->steps[0];
  snprintf(st->name, sizeof st->name, "job");
  st->njobs = 1;
  job_defaults(&st->jobs[0]);
  for (int i = 0; i < w->n; i++) {
    const struct ynode *v = w->kids[i];
    if (v->kind != YNODE_SCALAR)
      return nw_fail(err, v->file, v->line, v->col, "workload.%s: expected a value, got %s",
                     w->keys[i], ytree_kind_name(v));
    char msg[600];
    int unmodelled = 0;
    if (strcmp(w->keys[i], "precondition") == 0) {
      /* nastwin's own key beside fio's: measure in steady state (caches
       * as a long run of the job leaves them) */
      if (strcmp(v->scalar, "0") != 0 && strcmp(v->scalar, "1") != 0)
        return nw_fail(err, v->file, v->line, v->col, "workload.precondition: '%s' is not allowed; 0 or 1",
                       v->scalar);
      st->precondition = v->scalar[0] == '1';
      continue;
    }
    if (fio_set_option(&st->jobs[0], w->keys[i], v->scalar, &unmodelled, msg, sizeof msg) < 0)
      return nw_fail(err, w->file, w->key_line[i], w->key_col[i], "workload: %s", msg);
    if (unmodelled)
      fprintf(stderr, "%s:%d:%d: warning: workload.%s is accepted but not modelled\n", w->file,
              w->key_line[i], w->key_col[i], w->keys[i]);
  }
  char fmsg[600];
  if (fio_job_finish(&st->jobs[0], fmsg, sizeof fmsg) != 0)
    return nw_fail(err, w->file, w->line, w->col, "workload: %s", fmsg);
  snprintf(st->name, sizeof st->name, "%s", st->jobs[0].name[0] ? st->jobs[0].name : "job");
  /* verify: the read-back of what the job wrote, a step after it (fio's
   * do_verify); verify_only: only the read-back. */
  struct job rb;
  if (fio_verify_job(&st->jobs[0], &rb)) {
    if (st->jobs[0].verify_only) {
      st->jobs[0] = rb;
    } else {
      st = workload_add_step(out);
      if (!st)
        return nw_fail(err, w->file, w->line, w->col, "out of memory");
      snprintf(st->name, sizeof st->name, "%s", rb.name);
      st->njobs = 1, st->jobs[0] = rb;
      snprintf(st->metric, sizeof st->metric, "%s", workload_default_metric(st));
    }
  }
  st = &out->steps[0];
  snprintf(st->metric, sizeof st->metric, "%s", workload_default_metric(st));
  return 0;
}

/* fio's file operations (filecreate, filestat, filedelete, the dir* engines,
 * ftruncate, falloc) act on files the NAS serves: a block protocol (iSCSI)
 * serves a LUN whose filesystem is the client's own, so there is no NAS
 * request.  A trim of another engine is fio's BLKDISCARD ioctl, which a
 * file on a share refuses (ENOTTY): fio fails, so the scenario is refused. */
/* An NVMe passthrough job (fio's io_uring_cmd, xnvme through io_uring_cmd) sends NVMe commands to an
 * NVMe namespace's character device: only a local NVMe drive (protocol
 * kind local, volume single on one drive of model nvme) has one; a share,
 * an iSCSI LUN (a SCSI disk) or an md array of the client's does not. */
static int cfg_passthrough_check(const struct ynode *R, const struct scenario *s, const struct job *j,
                                 struct nw_err *err)
{
  int local = (int)s->proto.kind == PROTO_LOCAL;
  int nvme = s->drive.model && !strcmp(s->drive.model->name, "nvme");
  if (local && nvme && s->ndisks == 1)
    return 0;
  const struct ynode *n = ytree_path(R, local ? (nvme ? "disks.count" : "disks.drive") : "protocol.kind");
  n = n ? n : R;
  return nw_fail(err, n->file, n->line, n->col,
                 "job '%s' (ioengine=%s) sends NVMe commands to an NVMe namespace's character "
                 "device (/dev/ngXnY) of the machine fio runs on; %s (allowed: protocol.kind local with "
                 "one drive of model nvme, as scenarios/drive-datasheet.yaml)", j->name, j->engine,
                 !local ? "a share or an iSCSI LUN has none"
                 : !nvme ? "the scenario's drive is not an NVMe drive"
                         : "an array of several drives has none (each member has its own)");
}

int cfg_workload_check(const struct ynode *R, const struct scenario *s, struct nw_err *err)
{
  int files = proto_ops_of(&s->proto)->opens_files;
  const struct workload *w = &s->workload;
  for (int i = 0; i < w->nsteps; i++)
    for (int k = 0; k < w->steps[i].njobs; k++) {
      const struct job *j = &w->steps[i].jobs[k];
      if (j->nvme_passthrough && cfg_passthrough_check(R, s, j, err) < 0)
        return -1;
      int meta = j->meta_op != JOB_META_NONE, discard = j->trim && !meta;
      if ((files ? !discard : !meta) || j->client_only != JOB_CLIENT_NAS) /* a null engine's trim stays in fio */
        continue;
      const struct ynode *n = ytree_path(R, "protocol.kind");
      n = n ? n : R;
      const char *kind = n->kind == YNODE_SCALAR ? n->scalar : "?";
      if (discard)
        return nw_fail(err, n->file, n->line, n->col,
                       "protocol.kind: '%s' serves files, and job '%s' trims with ioengine=%s: fio trims "
                       "with the BLKDISCARD ioctl (an NVMe passthrough engine with a Dataset Management "
                       "command to an NVMe namespace), which a file on an SMB or NFS share does not "
                       "support (ENOTTY), so fio fails; use ioengine=falloc (a hole punch: SMB2 "
                       "FSCTL_SET_ZERO_DATA, NFS 4.2 DEALLOCATE) or an iSCSI LUN (SCSI UNMAP)",
                       kind, j->name, j->engine[0] ? j->engine : "psync");
      return nw_fail(err, n->file, n->line, n->col,
                     "protocol.kind: '%s' serves no files, but job '%s' does file operations (fio's "
                     "filecreate/filestat/filedelete/dircreate/dirstat/dirdelete/ftruncate/falloc "
                     "engines); they need a file protocol (smb, nfs)",
                     kind, j->name);
    }
  return 0;
}
