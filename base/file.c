#include "base/file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum file_read_status file_read_all(const char *path, size_t max_bytes, char **buf,
                                    size_t *len_bytes)
{
  *buf = NULL;
  *len_bytes = 0;
  FILE *f = fopen(path, "rb");
  if (!f)
    return FILE_READ_CANNOT_OPEN;
  errno = 0;
  size_t cap_bytes = 4096, len = 0;
  char *b = malloc(cap_bytes);
  int failed_errno = 0;
  while (b) {
    len += fread(b + len, 1, cap_bytes - len - 1, f);
    if (len + 1 < cap_bytes)
      break; /* end of file, or a read error (ferror below) */
    if (len > max_bytes || cap_bytes > SIZE_MAX / 2) {
      failed_errno = EFBIG;
      break;
    }
    char *grown = realloc(b, cap_bytes * 2);
    if (!grown) {
      failed_errno = ENOMEM;
      break;
    }
    b = grown;
    cap_bytes *= 2;
  }
  if (!b)
    failed_errno = ENOMEM;
  else if (!failed_errno && ferror(f))
    failed_errno = errno ? errno : EIO;
  else if (!failed_errno && len > max_bytes)
    failed_errno = EFBIG;
  fclose(f);
  if (failed_errno) {
    free(b);
    errno = failed_errno;
    return FILE_READ_FAILED;
  }
  b[len] = '\0';
  *buf = b;
  *len_bytes = len;
  return FILE_READ_OK;
}

int file_atomic_open(struct file_atomic *a, const char *path, struct nw_err *err)
{
  a->f = NULL;
  if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path)
    return nw_fail(err, path, 0, 0, "cannot write: the path is longer than %zu bytes", sizeof a->path - 1);
  snprintf(a->tmp, sizeof a->tmp, "%s.%ld.tmp", path, (long)getpid());
  a->f = fopen(a->tmp, "w");
  if (!a->f) {
    int why = errno;
    nw_fail(err, a->tmp, 0, 0, "cannot write: %s", strerror(why));
    errno = why;
    return -1;
  }
  return 0;
}

int file_atomic_commit(struct file_atomic *a, int bad, struct nw_err *err)
{
  errno = 0;
  int failed = bad || fflush(a->f) != 0 || ferror(a->f) || fsync(fileno(a->f)) != 0;
  int why = errno;
  if (fclose(a->f) != 0 && !failed) {
    failed = 1;
    why = errno;
  }
  a->f = NULL;
  if (failed) {
    unlink(a->tmp);
    nw_fail(err, a->tmp, 0, 0, "write failed%s%s", why ? ": " : "", why ? strerror(why) : "");
  } else if (rename(a->tmp, a->path) != 0) {
    why = errno;
    unlink(a->tmp);
    nw_fail(err, a->path, 0, 0, "cannot rename into place: %s", strerror(why));
  } else
    return 0;
  errno = why ? why : EIO;
  return -1;
}

int file_write_atomic(const char *path, const char *text, size_t len)
{
  struct file_atomic a;
  if (file_atomic_open(&a, path, NULL) != 0)
    return -1;
  return file_atomic_commit(&a, fwrite(text, 1, len, a.f) != len, NULL);
}
