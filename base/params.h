/* params.h - declarative parameter tables (name, unit, range, default).
 *
 * Every model declares its numeric parameters in a const table of
 * struct param_desc; the config loader fills the model's parameter struct
 * from YAML with it (units checked, ranges enforced, unknown keys
 * rejected with the closest valid key suggested), and --set / calibrate
 * address the same names.  Each described field is a double. */
#ifndef NASTWIN_PARAMS_H
#define NASTWIN_PARAMS_H

#include <stddef.h>

#include "base/units.h"

struct param_desc {
  const char *key;     /* YAML key, lower_snake_case */
  enum units_dim dim;  /* what unit the YAML value must carry */
  size_t offset;       /* offsetof(struct model_params, field); field is a double */
  double min, max;     /* allowed range, inclusive, canonical units */
  int optional;        /* 1: may be absent, then def is used */
  double def;          /* default, canonical units (only when optional) */
  const char *help;    /* one line: meaning and unit */
  const char *const *choices; /* non-NULL: the value is one of these words
                                 (NULL-terminated list); the field holds its
                                 index as a double.  dim is then ignored. */
  int whole;           /* 1: a whole number (a count, a switch, an index):
                          the loader rejects 2.5 at the value's line */
};

#define PARAM_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* Find a key in a table; NULL when absent. */
const struct param_desc *params_find(const struct param_desc *table, size_t n, const char *key);

/* Set every optional field of out to its default (required ones to 0). */
void params_defaults(const struct param_desc *table, size_t n, void *out);

/* Closest key of the table to `key` (edit distance), or NULL if nothing is close. */
const char *params_suggest(const struct param_desc *table, size_t n, const char *key);

/* Edit distance between two strings (for "did you mean"). */
size_t params_edit_distance(const char *a, const char *b);

#endif
