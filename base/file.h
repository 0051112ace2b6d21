/* file.h - reading a whole file into memory (fio job files, sweep CSVs), and
 * writing one whole or not at all (calibrated.yaml, golden.json, reports). */
#ifndef NASTWIN_FILE_H
#define NASTWIN_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

enum file_read_status {
  FILE_READ_OK = 0,
  FILE_READ_CANNOT_OPEN = -1, /* fopen failed; errno says why */
  FILE_READ_FAILED = -2,      /* read error (errno), larger than max_bytes (EFBIG), or no memory */
};

/* Read the file at `path` whole: *buf = its bytes plus a terminating NUL
 * (malloc'd; the caller frees it), *len_bytes = its length (bytes).  Files of
 * up to max_bytes are read; SIZE_MAX means no limit but memory.  Returns
 * FILE_READ_OK, or a failure status with *buf = NULL and errno set.  Callers
 * word their own messages (what the file is) from the status. */
enum file_read_status file_read_all(const char *path, size_t max_bytes, char **buf,
                                    size_t *len_bytes);

/* A file written whole or not at all: the bytes go to a temporary beside
 * the destination (PATH.PID.tmp, same directory, so the rename is atomic)
 * and take PATH's place only when every write, the flush to disk and the
 * close succeeded; a reader never sees half a file, and a failed run
 * leaves the old file as it was. */
struct file_atomic {
  FILE *f; /* write the contents here */
  char path[1024];
  char tmp[1100];
};

/* Open a's temporary for writing PATH.  0, or -1 with errno and err (may be
 * NULL: "cannot write"). */
int file_atomic_open(struct file_atomic *a, const char *path, struct nw_err *err);

/* Flush, sync, close and rename into place when no write failed and `bad`
 * is 0 (the caller's own failure); otherwise remove the temporary.  0, or
 * -1 with errno and err (may be NULL) naming the file and why. */
int file_atomic_commit(struct file_atomic *a, int bad, struct nw_err *err);

/* len bytes of text as the whole of path, the same way.  0, or -1 with errno. */
int file_write_atomic(const char *path, const char *text, size_t len);

#endif
