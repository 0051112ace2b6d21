/* fio_lang.h - fio's job language below the options (internal to
 * sim/config/fio.c): value expansion as fio does it before an option sees
 * the value, and the classification of fio's option names and engines. */
#ifndef NASTWIN_FIO_LANG_H
#define NASTWIN_FIO_LANG_H

#include <stddef.h>

/* Expand a value: ${VAR} from the environment (an unset one stays as
 * written, as fio leaves it), the built-ins $pagesize, $mb_memory and
 * $ncpus (this machine's, as fio takes them), then an arithmetic
 * expression when the value starts with '(' (+ - * / % ^, parentheses,
 * numbers with size suffixes; for a time option plain numbers are
 * microseconds, as fio's expressions count time).  Anything after the
 * closing ')' stays (a unit: "(2*3)m").  0, or -1 with msg. */
int fio_expand(const char *in, int is_time, char *out, size_t n, char *msg, size_t msg_len);

/* A real fio option that nastwin accepts but does not model (named in a
 * warning): 1, else 0. */
int fio_option_known(const char *key);

/* A real fio option nastwin cannot honour: the reason, else NULL. */
const char *fio_option_refused(const char *key);

/* ioengine=NAME: NULL when it does block or file I/O (modelled as the
 * scenario's protocol), else why it is refused. */
const char *fio_engine_refused(const char *name);

/* Closest known or modelled option name to key within a small edit
 * distance, or NULL; modelled: the modelled keys (NULL-terminated). */
const char *fio_option_suggest(const char *key, const char *const *modelled);

#endif
