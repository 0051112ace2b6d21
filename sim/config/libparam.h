/* libparam.h - DiskSim 4.0 parameter files (libparam syntax) as a tree.
 *
 * Syntax: `#` comments; top-level statements `TYPE NAME { body }`,
 * `source FILE` (another file, relative to the including one),
 * `instantiate [ NAMES ] as SPEC` and `topology TYPE NAME [ ... ]`; a body
 * is `Key words = value` pairs separated by commas; a value is a number,
 * a word, `source FILE` (the first block of that file), `TYPE { body }`
 * or a `[ list ]` of values.  Every value keeps its file, line and
 * column.  Hostile input: files over LP_MAX_FILE_BYTES, nesting deeper
 * than LP_MAX_DEPTH or `source` chains deeper than LP_MAX_SOURCES are
 * refused with a message. */
#ifndef NASTWIN_LIBPARAM_H
#define NASTWIN_LIBPARAM_H

#include "base/err.h"

#define LP_MAX_FILE_BYTES (4 * 1024 * 1024)
#define LP_MAX_DEPTH 16
#define LP_MAX_SOURCES 8

enum lp_kind { LP_NUM, LP_WORD, LP_BLOCK, LP_LIST, LP_INST, LP_TOPO };

struct lp_val {
  enum lp_kind kind;
  double num;       /* LP_NUM */
  char *word;       /* LP_WORD: the word; LP_BLOCK/LP_TOPO: the type; LP_INST: the spec */
  char *name;       /* top-level LP_BLOCK / LP_TOPO: the instance name, else NULL */
  char *file;       /* owned */
  int line, col;
  int n;            /* LP_BLOCK: pairs; LP_LIST/LP_INST/LP_TOPO: items */
  char **keys;      /* LP_BLOCK: key of each pair */
  int *key_line, *key_col;
  int *used;        /* LP_BLOCK: the importer marks the keys it mapped */
  struct lp_val **kids;
};

/* Parse a file and the files it sources into one top-level LP_LIST of
 * statements.  NULL with err "file:line:col: ..." on any problem. */
struct lp_val *lp_load(const char *path, struct nw_err *err);
void lp_free(struct lp_val *v); /* accepts NULL */

/* Value of key in a block (case-insensitive, blanks collapsed); marks it
 * used.  NULL when absent. */
struct lp_val *lp_get(struct lp_val *block, const char *key);
/* Top-level block named `name` (any type); NULL when absent. */
struct lp_val *lp_find_block(const struct lp_val *top, const char *name);

#endif
