/* drive_layout.c - seek_curve and zones of a catalogue drive (drive_layout.h). */
#include "sim/config/drive_layout.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "models/disks/iface.h"
#include "sim/config/disksim.h"

__attribute__((format(printf, 3, 4))) static int dl_node_fail(struct nw_err *err,
                                                              const struct ynode *n,
                                                              const char *fmt, ...)
{
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return nw_fail(err, n ? n->file : "", n ? n->line : 0, n ? n->col : 0, "%s", msg);
}

static int dl_at(struct nw_err *err, const struct ynode *n, const char *name, const char *what)
{
  return nw_fail(err, n->file, n->line, n->col, "drive '%s': %s", name, what);
}

/* A whole number >= 0 (or any number when frac) from a scalar. */
static int dl_num(const struct ynode *n, const char *name, const char *key, int frac, double *out,
                  struct nw_err *err)
{
  if (n == NULL || n->kind != YNODE_SCALAR)
    return nw_fail(err, n ? n->file : "", n ? n->line : 0, n ? n->col : 0,
                   "drive '%s': %s: expected a number", name, key);
  char *end;
  errno = 0;
  double x = strtod(n->scalar, &end);
  if (end == n->scalar || *end != '\0' || errno == ERANGE || !isfinite(x) || x < 0 ||
      (!frac && x != floor(x)) || x > 4e9)
    return nw_fail(err, n->file, n->line, n->col,
                   "drive '%s': %s: '%s' is not allowed: must be a %s number >= 0", name, key,
                   n->scalar, frac ? "" : "whole");
  *out = x;
  return 0;
}

static int dl_seek(const struct ynode *sc, const char *name, struct disk_layout *out,
                   struct nw_err *err)
{
  if (sc->kind != YNODE_MAP)
    return dl_at(err, sc, name, "seek_curve: expected a map {source, points}");
  for (int i = 0; i < sc->n; i++)
    if (strcmp(sc->keys[i], "source") && strcmp(sc->keys[i], "points"))
      return nw_fail(err, sc->file, sc->key_line[i], sc->key_col[i],
                     "drive '%s': seek_curve: unknown key '%s'; valid: source, points", name,
                     sc->keys[i]);
  const struct ynode *p = ytree_get(sc, "points");
  if (p == NULL || p->kind != YNODE_SEQ || p->n < 1 || p->n > DISK_LAYOUT_MAX_SEEK)
    return dl_at(err, p ? p : sc, name, "seek_curve.points: expected a list of 1 to 256 [cylinders, time] pairs");
  for (int i = 0; i < p->n; i++) {
    const struct ynode *pt = p->kids[i];
    if (pt->kind != YNODE_SEQ || pt->n != 2 || pt->kids[1]->kind != YNODE_SCALAR)
      return dl_at(err, pt, name, "seek_curve.points: each point is [cylinders, time]");
    char msg[256];
    double d, t;
    if (dl_num(pt->kids[0], name, "seek_curve distance", 1, &d, err) < 0)
      return -1;
    if (units_parse(pt->kids[1]->scalar, UNITS_TIME, &t, msg, sizeof msg) < 0)
      return nw_fail(err, pt->kids[1]->file, pt->kids[1]->line, pt->kids[1]->col,
                     "drive '%s': seek_curve time: %s", name, msg);
    if (d < 1 || (i > 0 && d <= out->seek_cyl[i - 1]) || t > 0.1)
      return dl_at(err, pt, name,
                   "seek_curve.points: distances must be >= 1 and ascend, times <= 100 ms");
    out->seek_cyl[i] = d;
    out->seek_s[i] = t;
  }
  out->nseek = p->n;
  return 0;
}

static int dl_zone(const struct ynode *z, const char *name, struct disk_layout *out,
                   struct nw_err *err)
{
  static const char *const keys[] = {"cylinders", "sectors_per_track", "first_offset",
                                     "front_empty", "track_skew", "cylinder_skew", "spares",
                                     "slips", "source", NULL};
  if (z->kind != YNODE_MAP)
    return dl_at(err, z, name, "zones: each zone is a map");
  for (int i = 0; i < z->n; i++) {
    int ok = 0;
    for (int k = 0; keys[k]; k++)
      ok |= !strcmp(z->keys[i], keys[k]);
    if (!ok)
      return nw_fail(err, z->file, z->key_line[i], z->key_col[i],
                     "drive '%s': zones: unknown key '%s'; valid: cylinders, sectors_per_track, "
                     "first_offset, front_empty, track_skew, cylinder_skew, spares, slips, source",
                     name, z->keys[i]);
  }
  if (out->nzones >= DISK_LAYOUT_MAX_ZONES)
    return dl_at(err, z, name, "zones: too many zones (at most 96)");
  struct disk_zone *zn = &out->zones[out->nzones];
  const struct ynode *c = ytree_get(z, "cylinders");
  if (c == NULL || c->kind != YNODE_SEQ || c->n != 2)
    return dl_at(err, c ? c : z, name, "zones.cylinders: expected [first, last]");
  if (dl_num(c->kids[0], name, "zones.cylinders", 0, &zn->first_cyl, err) < 0 ||
      dl_num(c->kids[1], name, "zones.cylinders", 0, &zn->last_cyl, err) < 0)
    return -1;
  struct {
    const char *key;
    double *v;
    int required, frac;
  } f[] = {{"sectors_per_track", &zn->spt, 1, 0}, {"first_offset", &zn->first_offset, 0, 1},
           {"front_empty", &zn->front_empty, 0, 0}, {"track_skew", &zn->track_skew, 0, 1},
           {"cylinder_skew", &zn->cyl_skew, 0, 1},  {"spares", &zn->spares, 0, 0}};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    const struct ynode *v = ytree_get(z, f[i].key);
    if (v == NULL && f[i].required)
      return dl_at(err, z, name, "zones: missing sectors_per_track");
    if (v && dl_num(v, name, f[i].key, f[i].frac, f[i].v, err) < 0)
      return -1;
  }
  const struct ynode *sl = ytree_get(z, "slips");
  zn->slip0 = out->nslips;
  if (sl && sl->kind != YNODE_SEQ)
    return dl_at(err, sl, name, "zones.slips: expected a list of sector numbers");
  for (int i = 0; sl && i < sl->n; i++) {
    double x;
    if (dl_num(sl->kids[i], name, "zones.slips", 0, &x, err) < 0)
      return -1;
    if (out->nslips >= DISK_LAYOUT_MAX_SLIPS || (i > 0 && x <= out->slips[out->nslips - 1]))
      return dl_at(err, sl->kids[i], name, "zones.slips: must ascend, at most 4096 in all");
    out->slips[out->nslips++] = (uint32_t)x;
  }
  zn->nslips = out->nslips - zn->slip0;
  out->nzones++;
  return 0;
}

int drive_layout_read(const struct ynode *e, const char *name, struct disk_layout *out,
                      struct nw_err *err)
{
  memset(out, 0, sizeof *out);
  const struct ynode *sc = ytree_get(e, "seek_curve");
  if (sc && dl_seek(sc, name, out, err) < 0)
    return -1;
  const struct ynode *zs = ytree_get(e, "zones");
  if (zs && zs->kind != YNODE_SEQ)
    return dl_at(err, zs, name, "zones: expected a list of zones");
  for (int i = 0; zs && i < zs->n; i++)
    if (dl_zone(zs->kids[i], name, out, err) < 0)
      return -1;
  return 0;
}

/* The drive's measured layout fits its parameters (a trial device). */
int drive_layout_check(const struct cfg_drive *d, const struct ynode *at,
                                  struct nw_err *err)
{
  if (d->layout.nzones == 0 && d->layout.nseek == 0)
    return 0;
  if (!d->model->set_layout)
    return dl_node_fail(err, at, "drive '%s': model '%s' takes no seek_curve or zones", d->name,
                  d->model->name);
  struct disk *t = disk_create(d->model, d->params, "check", 0);
  if (!t)
    return dl_node_fail(err, at, "out of memory");
  char msg[512];
  int rc = disk_set_layout(t, &d->layout, msg, sizeof msg);
  disk_destroy(t);
  return rc < 0 ? dl_node_fail(err, at, "drive '%s': %s", d->name, msg) : 0;
}

/* drive: {disksim: FILE.parv}: a DiskSim drive imported as an hdd, then
 * the section's overrides (keys not in skip). */
int drive_disksim_load(const struct ynode *dn, const struct ynode *over, const char *where,
                             const char *const *skip, struct cfg_drive *d, struct scenario *s,
                             struct nw_err *err)
{
  const struct ynode *pn = ytree_get(dn, "disksim");
  if (!pn || pn->kind != YNODE_SCALAR || dn->n != 1)
    return dl_node_fail(err, dn, "%s.drive: expected a catalogue name or {disksim: FILE.parv}", where);
  char path[1100];
  const char *slash = strrchr(pn->file, '/');
  if (pn->scalar[0] == '/' || !slash)
    snprintf(path, sizeof path, "%s", pn->scalar);
  else
    snprintf(path, sizeof path, "%.*s/%s", (int)(slash - pn->file), pn->file, pn->scalar);
  struct ds_drive *ds = malloc(sizeof *ds);
  if (!ds)
    return dl_node_fail(err, pn, "out of memory");
  if (disksim_import(path, ds, err) < 0) {
    free(ds);
    return -1;
  }
  d->model = disk_model_find("hdd");
  snprintf(d->name, sizeof d->name, "%.63s", ds->spec);
  params_defaults(d->model->params, d->model->nparams, d->params);
  for (int i = 0; i < ds->nfacts; i++) {
    const struct param_desc *pd = params_find(d->model->params, d->model->nparams, ds->facts[i].key);
    if (!pd)
      continue;
    double v = ds->facts[i].value;
    if (!pd->choices && !(v >= pd->min && v <= pd->max)) {
      nw_fail(err, pn->file, pn->line, pn->col,
              "drive '%s': %s = %s (%s) is outside the hdd model's range [%g, %g]", pn->scalar,
              pd->key, ds->facts[i].text, ds->facts[i].source, pd->min, pd->max);
      free(ds);
      return -1;
    }
    memcpy((char *)d->params + pd->offset, &v, sizeof(double));
  }
  d->layout = ds->layout;
  free(ds);
  if (cfg_fill(over, where, d->model->params, d->model->nparams, d->params, skip, s, where, err) < 0)
    return -1;
  char msg[512];
  if (d->model->check(d->params, msg, sizeof msg) < 0)
    return nw_fail(err, pn->file, pn->line, pn->col, "drive '%s': %s", pn->scalar, msg);
  return drive_layout_check(d, pn, err);
}

struct dl_link {
  double rate_bytes_per_s, reserved_bytes_per_s;
};

static const struct param_desc dl_link_table[] = {
    {.key = "rate", .dim = UNITS_RATE, .offset = offsetof(struct dl_link, rate_bytes_per_s),
     .min = 1e6, .max = 1e12, .help = "payload rate of the shared link per direction (B/s)"},
    {.key = "reserved", .dim = UNITS_RATE, .offset = offsetof(struct dl_link, reserved_bytes_per_s),
     .min = 0, .max = 1e12, .optional = 1, .def = 0,
     .help = "part of it used by another function of the card, e.g. its NIC (B/s)"},
};

int drive_link_read(const struct ynode *sec, const char *where, struct cfg_drive *d,
                    struct scenario *s, struct nw_err *err)
{
  d->link_rate_bytes_per_s = d->link_reserved_bytes_per_s = 0;
  const struct ynode *ln = ytree_get(sec, "link");
  if (!ln)
    return 0;
  char lw[96];
  snprintf(lw, sizeof lw, "%s.link", where);
  struct dl_link l;
  params_defaults(dl_link_table, PARAM_COUNT(dl_link_table), &l);
  if (ln->kind != YNODE_MAP)
    return dl_node_fail(err, ln, "%s: expected a map {rate, reserved}", lw);
  if (!ytree_get(ln, "rate"))
    return dl_node_fail(err, ln, "%s: missing required key 'rate'", lw);
  if (cfg_fill(ln, lw, dl_link_table, PARAM_COUNT(dl_link_table), &l, NULL, s, lw, err) < 0)
    return -1;
  char msg[256];
  if (iface_link_check(l.rate_bytes_per_s, l.reserved_bytes_per_s, msg, sizeof msg) < 0)
    return dl_node_fail(err, ln, "%s: %s", lw, msg);
  d->link_rate_bytes_per_s = l.rate_bytes_per_s;
  d->link_reserved_bytes_per_s = l.reserved_bytes_per_s;
  return 0;
}
