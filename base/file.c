#include "base/file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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
