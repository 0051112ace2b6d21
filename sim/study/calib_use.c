/* calib_use.c - applying a calibrated.yaml: the shipped one by default,
 * another with --calibrated FILE, none with --uncalibrated (calibrate.h). */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "sim/study/calibrate.h"

/* FNV-1a 64 of a file; 0 when unreadable. */
uint64_t calib_fnv_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return 0;
  uint64_t h = 1469598103934665603ULL;
  int ch;
  while ((ch = fgetc(f)) != EOF) {
    h ^= (uint64_t)(unsigned char)ch;
    h *= 1099511628211ULL;
  }
  fclose(f);
  return h;
}

int calib_use_opt(struct calib_use *u, const char *arg, const char *val)
{
  if (!strcmp(arg, "--calibrated")) {
    u->file = val;
    u->none = 0;
    return 1;
  }
  if (!strcmp(arg, "--uncalibrated")) {
    u->none = 1;
    u->file = NULL;
    return 1;
  }
  return 0;
}

int calib_use_resolve(const struct calib_use *u, struct calib_which *w, struct nw_err *err)
{
  memset(w, 0, sizeof *w);
  if (u->none)
    return 0;
  if (u->file)
    snprintf(w->path, sizeof w->path, "%s", u->file);
  else
    nw_data_path(w->path, sizeof w->path, "validation/calibrated.yaml");
  FILE *f = fopen(w->path, "rb");
  if (!f)
    return nw_fail(err, w->path, 0, 0, "%s calibration cannot be read; give --calibrated FILE or --uncalibrated",
                   u->file ? "the" : "the shipped");
  fclose(f);
  const char *dir = nw_data_dir();
  size_t nd = strlen(dir);
  const char *shown = w->path;
  if (!strncmp(w->path, dir, nd) && w->path[nd] == '/')
    shown = w->path + nd + 1;
  snprintf(w->name, sizeof w->name, "%.255s", shown);
  snprintf(w->hash, sizeof w->hash, "%016" PRIx64, calib_fnv_file(w->path));
  return 0;
}

int calib_sets(const struct calib_which *w, const char *path, const char *catalog, const struct cfg_set *sets,
               int nsets, const char *fio, struct cfg_set *all, int max, char *text, size_t text_len,
               struct nw_err *err)
{
  if (nsets > max)
    return nw_fail(err, path ? path : "scenario", 0, 0, "more than %d overrides", max);
  int n = 0;
  if (w->path[0]) {
    struct scenario s;
    if (cfg_load(path, catalog, sets, nsets, fio, &s, err) < 0)
      return -1;
    n = calib_load(w->path, &s, all, max - nsets, text, text_len, err);
    cfg_free(&s);
    if (n < 0)
      return -1;
  }
  for (int i = 0; i < nsets; i++)
    all[n + i] = sets[i];
  return n + nsets;
}

int calib_cfg_load(const struct calib_which *w, const char *path, const char *catalog, const struct cfg_set *sets,
                   int nsets, const char *fio, struct scenario *s, struct nw_err *err)
{
  struct cfg_set all[CFG_MAX_SETS];
  char *text = malloc(65536);
  if (!text)
    return nw_fail(err, path ? path : "scenario", 0, 0, "out of memory");
  int n = calib_sets(w, path, catalog, sets, nsets, fio, all, CFG_MAX_SETS, text, 65536, err);
  int rc = n < 0 ? -1 : cfg_load(path, catalog, all, n, fio, s, err);
  free(text);
  if (rc == 0) {
    snprintf(s->calib_file, sizeof s->calib_file, "%s", w->name);
    snprintf(s->calib_hash, sizeof s->calib_hash, "%s", w->hash);
  }
  return rc;
}

/* ---- using a calibrated.yaml ---- */

const char *calib_scalar(const struct ynode *map, const char *key)
{
  const struct ynode *n = ytree_get(map, key);
  return n && n->kind == YNODE_SCALAR ? n->scalar : NULL;
}

const struct ynode *calib_record_of_fit(const struct ynode *list, const struct scenario *s, int i)
{
  char entry[96];
  const char *key;
  if (!list || list->kind != YNODE_SEQ || calib_entry_of_fit(s, &s->fits[i], entry, sizeof entry, &key) < 0)
    return NULL;
  for (int k = 0; k < list->n; k++) {
    const char *pe = calib_scalar(list->kids[k], "entry"), *pk = calib_scalar(list->kids[k], "key");
    if (pe && pk && !strcmp(pe, entry) && !strcmp(pk, key))
      return list->kids[k];
  }
  return NULL;
}

int calib_load(const char *path, const struct scenario *s, struct cfg_set *sets, int max, char *text,
               size_t text_len, struct nw_err *err)
{
  struct ynode *root = ytree_load_file(path, err);
  if (!root)
    return -1;
  const struct ynode *list = ytree_get(root, "parameters");
  if (!list || list->kind != YNODE_SEQ) {
    nw_fail(err, path, root->line, root->col, "calibrated file: expected a 'parameters' list");
    ytree_free(root);
    return -1;
  }
  for (int k = 0; s->nfits > 0 && k < list->n; k++) {
    const struct ynode *e = list->kids[k];
    if (!calib_scalar(e, "entry") || !calib_scalar(e, "key") || !calib_scalar(e, "value")) {
      nw_fail(err, e->file, e->line, e->col, "calibrated file: a parameter needs entry, key and value");
      ytree_free(root);
      return -1;
    }
  }
  int n = 0;
  size_t used = 0;
  for (int i = 0; i < s->nfits; i++) {
    const struct ynode *e = calib_record_of_fit(list, s, i);
    if (!e)
      continue;
    const char *pv = calib_scalar(e, "value");
    size_t lp = strlen(s->fits[i].path) + 1, lv = strlen(pv) + 1;
    if (n >= max || used + lp + lv > text_len) {
      nw_fail(err, path, 0, 0, "calibrated file: more sets than room for (%d)", max);
      ytree_free(root);
      return -1;
    }
    memcpy(text + used, s->fits[i].path, lp);
    memcpy(text + used + lp, pv, lv);
    sets[n++] = (struct cfg_set){.path = text + used, .value = text + used + lp};
    used += lp + lv;
  }
  ytree_free(root);
  return n;
}

int calib_apply(struct val_set *v, const struct calib_which *w, const char *catalog, struct nw_err *err)
{
  snprintf(v->calib_name, sizeof v->calib_name, "%s", w->name);
  snprintf(v->calib_hash, sizeof v->calib_hash, "%s", w->hash);
  if (!w->path[0])
    return 0;
  const char *path = w->path;
  struct cfg_set sets[CFG_MAX_SETS];
  char *text = malloc(65536);
  if (!text)
    return nw_fail(err, path, 0, 0, "out of memory");
  for (int i = 0; i < v->ncfgs; i++) {
    int n = calib_load(path, &v->cfgs[i].s, sets, CFG_MAX_SETS, text, 65536, err);
    if (n < 0) {
      free(text);
      return -1;
    }
    snprintf(v->cfgs[i].s.calib_file, sizeof v->cfgs[i].s.calib_file, "%s", w->name);
    snprintf(v->cfgs[i].s.calib_hash, sizeof v->cfgs[i].s.calib_hash, "%s", w->hash);
    if (n == 0)
      continue;
    struct scenario s;
    memset(&s, 0, sizeof s);
    if (val_cfg_reload(v, i, catalog, sets, n, &s, err) < 0) {
      cfg_free(&s);
      free(text);
      return -1;
    }
    snprintf(s.calib_file, sizeof s.calib_file, "%s", w->name);
    snprintf(s.calib_hash, sizeof s.calib_hash, "%s", w->hash);
    cfg_free(&v->cfgs[i].s);
    v->cfgs[i].s = s;
  }
  free(text);
  return 0;
}
