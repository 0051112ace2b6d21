/* cli_util.h - run the nastwin binary from a test and capture its output. */
#ifndef NASTWIN_TEST_CLI_UTIL_H
#define NASTWIN_TEST_CLI_UTIL_H

#include <stddef.h>

struct cli_out {
  int status;   /* exit code, or 128 + signal */
  char *out;    /* stdout (malloc'd, NUL-terminated) */
  char *err;    /* stderr */
};

/* Run NASTWIN_BIN with args (NULL-terminated) in directory cwd (NULL =
 * current); output capped at a few MiB. */
int cli_exec(const char *cwd, const char *const *args, struct cli_out *r);
void cli_out_free(struct cli_out *r);

/* Path of a file in the source tree (static buffer per call site is the caller's). */
void cli_source_path(const char *rel, char *buf, size_t len);

/* Write text to a temporary fio job file, run `nastwin run --no-ci --fio
 * FILE --time TIME EXTRA...` (extra NULL-terminated, or NULL) and remove
 * the file: 0 with r filled (its status is the exit code), or -1. */
int cli_run_fio(const char *text, const char *time, const char *const *extra, struct cli_out *r);
/* Append "--set" SET for each of the NULL-ended sets to args[0..n) and
 * end args with NULL, never past args[max - 1]: the new count. */
int cli_add_sets(const char **args, int n, int max, const char *const *sets);

/* The number after "key": in a JSON text (first occurrence after `from`). */
double cli_json_number(const char *json, const char *from, const char *key);

#endif
