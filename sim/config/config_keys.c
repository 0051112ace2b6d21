/* config_keys.c - the checks every reader of nastwin's YAML shares
 * (declared in config_impl.h; cfg_fill in config.h): a map's keys
 * (unknown keys with the closest valid one, or the list of valid keys;
 * required keys), one parameter's value with its unit, range and
 * catalogue fit, a whole table of parameters filled from a map, and
 * whole numbers and names.  The scenario's section readers use them, and
 * so do readers of nastwin's other YAML files, so every error names the
 * file, line and column, the key, the bad value and what is allowed in
 * the same words. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/config_impl.h"

/* Fail at node n's position. */
int cfg_at(struct nw_err *err, const struct ynode *n, const char *fmt, ...)
{
  char msg[sizeof err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return nw_fail(err, n ? n->file : "", n ? n->line : 0, n ? n->col : 0, "%s", msg);
}

/* Position of key i of map m.  The key's line and column are used when
 * the value came from the same file as the map; after merging (system
 * defaults overlaid by the scenario, --set) the value's own position is
 * the one that names the right file. */
static int cfg_key_fail(struct nw_err *err, const struct ynode *m, int i, const char *msg)
{
  const struct ynode *v = m->kids[i];
  if (strcmp(v->file, m->file) != 0 || m->key_line[i] == 0)
    return nw_fail(err, v->file, v->line, v->col, "%s", msg);
  return nw_fail(err, m->file, m->key_line[i], m->key_col[i], "%s", msg);
}

int cfg_in_list(const char *const *list, const char *key)
{
  for (int i = 0; list && list[i]; i++)
    if (strcmp(list[i], key) == 0)
      return 1;
  return 0;
}

/* Closest of table keys and extra words. */
static const char *cfg_suggest(const struct param_desc *table, size_t n, const char *const *extra,
                               const char *key)
{
  const char *best = table ? params_suggest(table, n, key) : NULL;
  size_t best_d = best ? params_edit_distance(key, best) : (size_t)-1;
  size_t len = strlen(key);
  size_t limit = len < 6 ? 2 : len / 3 + 1;
  for (int i = 0; extra && extra[i]; i++) {
    size_t d = params_edit_distance(key, extra[i]);
    if (d < best_d && d <= limit) {
      best_d = d;
      best = extra[i];
    }
  }
  return best;
}

static void cfg_list_keys(const struct param_desc *table, size_t n, const char *const *extra,
                          char *buf, size_t len)
{
  buf[0] = '\0';
  size_t used = 0;
  for (int i = 0; extra && extra[i]; i++)
    used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s", used ? ", " : "", extra[i]);
  for (size_t i = 0; i < n; i++)
    used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s", used ? ", " : "",
                             table[i].key);
  if (used >= len && len > 4)
    strcpy(buf + len - 4, "...");
}

int cfg_unknown_key(const struct ynode *map, int i, const char *where,
                           const struct param_desc *table, size_t n, const char *const *extra,
                           struct nw_err *err)
{
  char msg[900], keys[600];
  const char *sug = cfg_suggest(table, n, extra, map->keys[i]);
  if (sug)
    snprintf(msg, sizeof msg, "%s: unknown key '%s' (did you mean '%s'?)", where, map->keys[i], sug);
  else {
    cfg_list_keys(table, n, extra, keys, sizeof keys);
    snprintf(msg, sizeof msg, "%s: unknown key '%s'; valid keys: %s", where, map->keys[i], keys);
  }
  return cfg_key_fail(err, map, i, msg);
}

int cfg_only_keys(const struct ynode *map, const char *where, const char *const *allowed, struct nw_err *err)
{
  for (int i = 0; i < map->n; i++)
    if (!cfg_in_list(allowed, map->keys[i]))
      return cfg_unknown_key(map, i, where, NULL, 0, allowed, err);
  return 0;
}

static void cfg_choices(const char *const *choices, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; choices[i]; i++)
    used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s", i ? ", " : "", choices[i]);
}

/* Parse one value node (scalar, or catalogue map {value, source|fit}) into *out. */
int cfg_value(const struct ynode *v, const char *where, const struct param_desc *d,
                     double *out, struct scenario *s, const char *prefix, struct nw_err *err)
{
  const struct ynode *val = v;
  const struct ynode *fit = NULL;
  if (v->kind == YNODE_MAP) {
    static const char *const meta[] = {"value", "source", "fit", "note", NULL};
    if (cfg_only_keys(v, where, meta, err) < 0)
      return -1;
    val = ytree_get(v, "value");
    if (!val)
      return nw_fail(err, v->file, v->line, v->col, "%s.%s: a catalogue value needs 'value:'",
                     where, d->key);
    fit = ytree_get(v, "fit");
    if (!fit && !ytree_get(v, "source"))
      return nw_fail(err, v->file, v->line, v->col,
                     "%s.%s: a catalogue value needs 'source:' or 'fit: [lo, hi]'", where, d->key);
  }
  if (val->kind != YNODE_SCALAR)
    return nw_fail(err, val->file, val->line, val->col, "%s.%s: expected a value, got %s", where,
                   d->key, ytree_kind_name(val));
  char msg[600];
  if (d->choices) {
    for (int i = 0; d->choices[i]; i++)
      if (strcmp(d->choices[i], val->scalar) == 0) {
        *out = i;
        return 0;
      }
    char list[300];
    cfg_choices(d->choices, list, sizeof list);
    return nw_fail(err, val->file, val->line, val->col, "%s.%s: '%s' is not allowed; one of: %s",
                   where, d->key, val->scalar, list);
  }
  if (units_parse(val->scalar, d->dim, out, msg, sizeof msg) < 0)
    return nw_fail(err, val->file, val->line, val->col, "%s.%s: %s", where, d->key, msg);
  if (*out < d->min || *out > d->max) {
    char lo[64], hi[64], got[64];
    units_format(d->min, d->dim, lo, sizeof lo);
    units_format(d->max, d->dim, hi, sizeof hi);
    units_format(*out, d->dim, got, sizeof got);
    return nw_fail(err, val->file, val->line, val->col,
                   "%s.%s: %s is out of range: must be between %s and %s inclusive (%s)", where,
                   d->key, got, lo, hi, d->help ? d->help : "");
  }
  if (d->whole && *out != floor(*out))
    return nw_fail(err, val->file, val->line, val->col,
                   "%s.%s: '%s' is not allowed: must be a whole number (%s)", where, d->key, val->scalar,
                   d->help ? d->help : "");
  if (fit) {
    if (fit->kind != YNODE_SEQ || fit->n != 2 || fit->kids[0]->kind != YNODE_SCALAR ||
        fit->kids[1]->kind != YNODE_SCALAR)
      return nw_fail(err, fit->file, fit->line, fit->col, "%s.%s: fit must be a list [lo, hi]",
                     where, d->key);
    double lo, hi;
    if (units_parse(fit->kids[0]->scalar, d->dim, &lo, msg, sizeof msg) < 0 ||
        units_parse(fit->kids[1]->scalar, d->dim, &hi, msg, sizeof msg) < 0)
      return nw_fail(err, fit->file, fit->line, fit->col, "%s.%s: fit bound: %s", where, d->key, msg);
    if (!(lo <= *out && *out <= hi && lo >= d->min && hi <= d->max))
      return nw_fail(err, fit->file, fit->line, fit->col,
                     "%s.%s: fit bounds [%s, %s] must hold the value and lie in the model's range",
                     where, d->key, fit->kids[0]->scalar, fit->kids[1]->scalar);
    if (s && s->nfits < CFG_MAX_FITS) {
      struct cfg_fit *f = &s->fits[s->nfits++];
      snprintf(f->path, sizeof f->path, "%s.%s", prefix, d->key);
      f->value = *out;
      f->lo = lo;
      f->hi = hi;
      f->dim = d->dim;
      snprintf(f->file, sizeof f->file, "%s", val->file);
      f->line = val->line;
      f->col = val->col;
    }
  }
  return 0;
}

/* Drop an earlier fit record for path (a scenario value overrides the catalogue's). */
static void cfg_unfit(struct scenario *s, const char *prefix, const char *key)
{
  if (!s)
    return;
  char path[128];
  snprintf(path, sizeof path, "%s.%s", prefix, key);
  for (int i = 0; i < s->nfits; i++)
    if (strcmp(s->fits[i].path, path) == 0) {
      s->fits[i] = s->fits[--s->nfits];
      return;
    }
}

int cfg_fill(const struct ynode *map, const char *where, const struct param_desc *table, size_t n,
             void *out, const char *const *extra, struct scenario *s, const char *prefix,
             struct nw_err *err)
{
  if (!map)
    return 0;
  if (map->kind != YNODE_MAP)
    return cfg_at(err, map, "%s: expected a map of keys, got %s", where, ytree_kind_name(map));
  for (int i = 0; i < map->n; i++) {
    if (cfg_in_list(extra, map->keys[i]))
      continue;
    const struct param_desc *d = params_find(table, n, map->keys[i]);
    if (!d)
      return cfg_unknown_key(map, i, where, table, n, extra, err);
    cfg_unfit(s, prefix, d->key);
    if (cfg_value(map->kids[i], where, d, (double *)((char *)out + d->offset), s, prefix, err) < 0)
      return -1;
  }
  return 0;
}

/* Mark which required keys were given: fills from several maps in turn,
 * then checks every required key appeared in at least one. */
int cfg_require_skip(const struct ynode *const *maps, int nmaps, const struct ynode *where_node, const char *where,
                     const struct param_desc *table, size_t n, const char *const *skip, struct nw_err *err)
{
  for (size_t k = 0; k < n; k++) {
    if (table[k].optional || cfg_in_list(skip, table[k].key))
      continue;
    int found = 0;
    for (int m = 0; m < nmaps && !found; m++)
      found = maps[m] && ytree_get(maps[m], table[k].key) != NULL;
    if (!found)
      return nw_fail(err, where_node ? where_node->file : "", where_node ? where_node->line : 0,
                     where_node ? where_node->col : 0, "%s: missing required key '%s' (%s)", where,
                     table[k].key, table[k].help ? table[k].help : "");
  }
  return 0;
}

int cfg_require(const struct ynode *const *maps, int nmaps, const struct ynode *where_node, const char *where,
                const struct param_desc *table, size_t n, struct nw_err *err)
{
  return cfg_require_skip(maps, nmaps, where_node, where, table, n, NULL, err);
}

/* Read an integer key of a map: kind check, range check. def when absent (required < 0 => required). */
int cfg_int(const struct ynode *map, const char *where, const char *key, long min, long max,
                   int required, long def, long *out, struct nw_err *err)
{
  const struct ynode *v = ytree_get(map, key);
  if (!v) {
    if (required)
      return nw_fail(err, map ? map->file : "", map ? map->line : 0, map ? map->col : 0,
                     "%s: missing required key '%s'", where, key);
    *out = def;
    return 0;
  }
  if (v->kind != YNODE_SCALAR)
    return nw_fail(err, v->file, v->line, v->col, "%s.%s: expected a whole number, got %s", where,
                   key, ytree_kind_name(v));
  char *end = NULL;
  errno = 0;
  long long x = strtoll(v->scalar, &end, 10);
  if (end == v->scalar || *end != '\0' || errno == ERANGE || x < min || x > max)
    return nw_fail(err, v->file, v->line, v->col,
                   "%s.%s: '%s' is not allowed: must be a whole number between %ld and %ld inclusive",
                   where, key, v->scalar, min, max);
  *out = (long)x;
  return 0;
}

int cfg_word(const struct ynode *map, const char *where, const char *key, int required,
                    const char **out, const struct ynode **node, struct nw_err *err)
{
  const struct ynode *v = ytree_get(map, key);
  *out = NULL;
  if (node)
    *node = v;
  if (!v) {
    if (required)
      return nw_fail(err, map ? map->file : "", map ? map->line : 0, map ? map->col : 0,
                     "%s: missing required key '%s'", where, key);
    return 0;
  }
  if (v->kind != YNODE_SCALAR || !v->scalar[0])
    return nw_fail(err, v->file, v->line, v->col, "%s.%s: expected a name, got %s", where, key,
                   v->kind == YNODE_SCALAR ? "an empty value" : ytree_kind_name(v));
  *out = v->scalar;
  return 0;
}
