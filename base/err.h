/* err.h - one error record for every parser and constructor.
 *
 * Parsing and model construction never exit or assert on bad input: they
 * fill a struct nw_err and return -1.  The CLI prints it as
 * "file:line:column: error: message" and exits 2.  Line and column count
 * from 1; 0 means "not known" and is left out of the printed form. */
#ifndef NASTWIN_ERR_H
#define NASTWIN_ERR_H

#include <stdio.h>

struct nw_err {
  char file[512];
  int line;
  int col;
  char msg[4096]; /* room for every error of a fio job file, one line each */
};

/* Fill err (may be NULL) with a position and a printf-style message;
 * always returns -1 so callers can `return nw_fail(...)`. */
int nw_fail(struct nw_err *err, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Print "file:line:col: error: msg\n" (parts that are unknown are left out). */
void nw_err_print(const struct nw_err *err, FILE *out);

/* Clear an error record. */
void nw_err_clear(struct nw_err *err);

#endif
