/* file.h - reading a whole file into memory (fio job files, sweep CSVs). */
#ifndef NASTWIN_FILE_H
#define NASTWIN_FILE_H

#include <stddef.h>

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

#endif
