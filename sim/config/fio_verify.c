/* fio_verify.c - fio's verify: every method reads the written data back
 * (fio backend.c do_verify, after the job's writes, once per loop), so
 * the method does not matter to the I/O, only whether there is one. */
#include <stdio.h>
#include <string.h>

#include "sim/config/fio_lang.h"
#include "sim/config/workload.h"

#define FIO_COUNT(t) (sizeof(t) / sizeof((t)[0]))

/* verify=METHOD (fio's list): any method reads the written data back,
 * so all are the same I/O; 0 or none turns it off. */
int fio_set_verify(struct job *j, const char *v, char *msg, size_t msg_len)
{
  static const char *const methods[] = {
      "md5",      "crc64",    "crc32",    "crc32c-intel", "crc32c", "crc16",   "crc7",
      "sha1",     "sha256",   "sha512",   "sha3-224",     "sha3-256", "sha3-384", "sha3-512",
      "xxhash",   "meta",     "pattern",  "pattern_hdr",  "null",   "none",    "0",
  };
  for (size_t i = 0; i < FIO_COUNT(methods); i++)
    if (!strcmp(methods[i], v)) {
      j->verify = strcmp(v, "none") != 0 && strcmp(v, "0") != 0;
      return 0;
    }
  return fio_msg(msg, msg_len, "verify: bad value '%s' (allowed: 0, none, md5, crc64, crc32, crc32c-intel, "
                 "crc32c, crc16, crc7, sha1, sha256, sha512, sha3-224, sha3-256, sha3-384, sha3-512, "
                 "xxhash, meta, pattern, pattern_hdr, null)", v);
}

int fio_verify_job(const struct job *j, struct job *rb)
{
  if (!j->verify || (j->no_verify && !j->verify_only) || (j->read_frac >= 1.0 && !j->verify_only) ||
      j->trim == 1) /* a trim-only job writes nothing to verify (fio: td_write is false) */
    return 0; /* no read-back: a read job checks what it reads as it goes */
  *rb = *j;
  snprintf(rb->name, sizeof rb->name, "%.50s-verify", j->name);
  double wf = j->verify_only ? 1.0 : 1.0 - j->read_frac;
  rb->read_frac = 1.0, rb->rw_mixed = 0, rb->trim = 0, rb->access = JOB_SEQ, rb->random_run = 0, rb->stride_bytes = 0.0;
  rb->dist = JOB_DIST_UNIFORM, rb->nzones = 0, rb->seq_frac = 0.0;
  if (j->nbs_w > 0) { /* each block is read back at the size it was written */
    memcpy(rb->bs_bytes, j->bs_bytes_w, sizeof rb->bs_bytes);
    memcpy(rb->bs_weight, j->bs_weight_w, sizeof rb->bs_weight);
    rb->nbs = j->nbs_w;
  }
  rb->nbs_w = 0;
  /* fio's do_verify: not paced by rate or thinktime, its own runtime
   * budget (td->start is reset), once per loop. */
  rb->rate_iops = 0.0, rb->thinktime_s = 0.0, rb->time_based = 0, rb->ramp_s = 0.0, rb->fsync_every = 0;
  rb->verify = rb->no_verify = rb->verify_only = 0;
  rb->stonewall = 1, rb->prep = 0;
  if (j->io_bytes > 0)
    rb->io_bytes = j->io_bytes * wf;
  else if (wf < 1.0 && j->size_bytes > 0)
    rb->io_bytes = j->size_bytes * wf;
  return 1;
}
