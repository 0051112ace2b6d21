/* disksim.c - DiskSim 4.0 drive files -> hdd catalogue facts (disksim.h). */
#include "sim/config/disksim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "sim/config/libparam.h"

#define DS_SEEK_FILE_MAX_BYTES (1024 * 1024)

static const char *ds_base(const char *path)
{
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static const char *ds_kind(const struct lp_val *v)
{
  switch (v->kind) {
  case LP_NUM: return "a number";
  case LP_WORD: return "a word";
  case LP_BLOCK: return "a block";
  default: return "a list";
  }
}

/* Number under key: 0, 1 when absent and not required, -1 with err. */
static int ds_num(struct lp_val *b, const char *key, int required, double *out,
                  struct lp_val **node, struct nw_err *err)
{
  struct lp_val *v = lp_get(b, key);
  if (node)
    *node = v;
  if (v == NULL) {
    if (!required)
      return 1;
    return nw_fail(err, b->file, b->line, b->col, "DiskSim %s%s%s: missing key '%s'", b->word,
                   b->name ? " " : "", b->name ? b->name : "", key);
  }
  if (v->kind != LP_NUM)
    return nw_fail(err, v->file, v->line, v->col, "DiskSim key '%s': expected a number, got %s",
                   key, ds_kind(v));
  *out = v->num;
  return 0;
}

/* Block under key, of the given type. */
static struct lp_val *ds_block(struct lp_val *b, const char *key, const char *type,
                               struct nw_err *err)
{
  struct lp_val *v = lp_get(b, key);
  if (v == NULL) {
    nw_fail(err, b->file, b->line, b->col, "DiskSim %s: missing key '%s'", b->word, key);
    return NULL;
  }
  if (v->kind != LP_BLOCK || strcmp(v->word, type) != 0) {
    nw_fail(err, v->file, v->line, v->col,
            "DiskSim key '%s': '%s' is not supported: nastwin reads a %s block", key,
            v->kind == LP_BLOCK ? v->word : ds_kind(v), type);
    return NULL;
  }
  return v;
}

static struct ds_fact *ds_fact(struct ds_drive *d, const char *key, double value)
{
  for (int i = 0; i < d->nfacts; i++)
    if (strcmp(d->facts[i].key, key) == 0) {
      d->facts[i].value = value;
      return &d->facts[i];
    }
  if (d->nfacts >= DS_MAX_FACTS)
    return NULL;
  struct ds_fact *f = &d->facts[d->nfacts++];
  memset(f, 0, sizeof *f);
  f->key = key;
  f->value = value;
  return f;
}

/* A fact read from node v under DiskSim key dskey (shown as read). */
static void ds_set(struct ds_drive *d, const char *key, double value, const char *text,
                   const struct lp_val *v, const char *dskey)
{
  struct ds_fact *f = ds_fact(d, key, value);
  if (f == NULL)
    return;
  snprintf(f->text, sizeof f->text, "%s", text);
  snprintf(f->source, sizeof f->source, "%s:%d: %s = %.10g", ds_base(v->file), v->line, dskey,
           v->num);
}

static void ds_note(struct ds_drive *d, const char *fmt, const char *file, int line,
                    const char *what)
{
  if (d->nnotes >= DS_MAX_NOTES)
    return;
  snprintf(d->notes[d->nnotes++], sizeof d->notes[0], fmt, ds_base(file), line, what);
}

/* Every key of block b the importer did not map, listed. */
static void ds_unmapped(struct ds_drive *d, const struct lp_val *b)
{
  for (int i = 0; i < b->n; i++) {
    if (b->used[i])
      continue;
    const struct lp_val *v = b->kids[i];
    char what[160];
    if (v->kind == LP_NUM)
      snprintf(what, sizeof what, "%s = %g", b->keys[i], v->num);
    else if (v->kind == LP_WORD)
      snprintf(what, sizeof what, "%s = %s", b->keys[i], v->word);
    else
      snprintf(what, sizeof what, "%s (%s)", b->keys[i], ds_kind(v));
    ds_note(d, "%s:%d: %s", v->file, v->line, what);
  }
}

/* The extracted seek curve file: "Seek distances measured: N" then N
 * lines "distance, ms". */
static int ds_seek_file(const char *path, const struct lp_val *ref, struct disk_layout *l,
                        struct nw_err *err)
{
  char *buf = NULL;
  size_t len = 0;
  if (file_read_all(path, DS_SEEK_FILE_MAX_BYTES, &buf, &len) != FILE_READ_OK)
    return nw_fail(err, ref->file, ref->line, ref->col,
                   "DiskSim key 'Full seek curve': cannot read seek file '%s'", ref->word);
  int line = 1, count = -1, rc = 0;
  l->nseek = 0;
  for (char *p = buf, *nl; p && *p && rc == 0; p = nl ? nl + 1 : NULL, line++) {
    nl = strchr(p, '\n');
    if (nl)
      *nl = '\0';
    char *q = p;
    while (*q == ' ' || *q == '\t' || *q == '\r')
      q++;
    if (*q == '\0')
      continue;
    if (count < 0) {
      if (sscanf(q, "Seek distances measured: %d", &count) != 1 || count < 1 ||
          count > DISK_LAYOUT_MAX_SEEK)
        rc = nw_fail(err, path, line, 1,
                     "seek file: expected 'Seek distances measured: N' with N 1 to %d",
                     DISK_LAYOUT_MAX_SEEK);
      continue;
    }
    char *end;
    double dist = strtod(q, &end);
    while (*end == ' ' || *end == '\t')
      end++;
    double ms = -1;
    if (end != q && *end == ',')
      ms = strtod(end + 1, &end);
    while (*end == ' ' || *end == '\t' || *end == '\r')
      end++;
    if (!(dist >= 1 && ms >= 0 && ms < 1000) || *end != '\0')
      rc = nw_fail(err, path, line, 1, "seek file: expected 'distance, milliseconds', got '%s'", q);
    else if (l->nseek >= count)
      rc = nw_fail(err, path, line, 1, "seek file: more than the %d distances announced", count);
    else if (l->nseek > 0 && dist <= l->seek_cyl[l->nseek - 1])
      rc = nw_fail(err, path, line, 1, "seek file: distance %g does not ascend", dist);
    else {
      l->seek_cyl[l->nseek] = dist;
      l->seek_s[l->nseek++] = ms * 1e-3;
    }
  }
  free(buf);
  if (rc == 0 && l->nseek != count)
    rc = nw_fail(err, path, line, 1, "seek file: %d distances announced, %d given", count, l->nseek);
  return rc;
}

static double ds_seek_at(const struct disk_layout *l, double d)
{
  if (d <= l->seek_cyl[0])
    return l->seek_s[0];
  int i = 1;
  while (i < l->nseek - 1 && l->seek_cyl[i] < d)
    i++;
  return l->seek_s[i - 1] +
         (l->seek_s[i] - l->seek_s[i - 1]) * (d - l->seek_cyl[i - 1]) / (l->seek_cyl[i] - l->seek_cyl[i - 1]);
}

/* One dm_layout_g1_zone. */
static int ds_zone(struct ds_drive *d, struct lp_val *zb, struct nw_err *err)
{
  struct disk_layout *l = &d->layout;
  if (zb->kind != LP_BLOCK || strcmp(zb->word, "dm_layout_g1_zone") != 0)
    return nw_fail(err, zb->file, zb->line, zb->col,
                   "DiskSim key 'Zones': expected dm_layout_g1_zone blocks, got %s",
                   zb->kind == LP_BLOCK ? zb->word : ds_kind(zb));
  if (l->nzones >= DISK_LAYOUT_MAX_ZONES)
    return nw_fail(err, zb->file, zb->line, zb->col, "DiskSim key 'Zones': more than %d zones",
                   DISK_LAYOUT_MAX_ZONES);
  struct disk_zone *z = &l->zones[l->nzones];
  snprintf(d->zone_source[l->nzones], sizeof d->zone_source[0], "%s:%d", ds_base(zb->file),
           zb->line);
  struct {
    const char *key;
    double *out;
  } f[] = {{"First cylinder number", &z->first_cyl}, {"Last cylinder number", &z->last_cyl},
           {"Blocks per track", &z->spt},           {"Offset of first block", &z->first_offset},
           {"Empty space at zone front", &z->front_empty},
           {"Skew for track switch", &z->track_skew}, {"Skew for cylinder switch", &z->cyl_skew},
           {"Number of spares", &z->spares}};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
    if (ds_num(zb, f[i].key, 1, f[i].out, NULL, err) < 0)
      return -1;
  struct lp_val *slips = lp_get(zb, "slips");
  z->slip0 = l->nslips;
  z->nslips = 0;
  for (int i = 0; slips && i < slips->n; i++) {
    struct lp_val *s = slips->kids[i];
    if (s->kind != LP_NUM || s->num < 0 || s->num != floor(s->num) || s->num > 4e9)
      return nw_fail(err, s->file, s->line, s->col, "DiskSim key 'slips': expected sector numbers");
    if (l->nslips >= DISK_LAYOUT_MAX_SLIPS)
      return nw_fail(err, s->file, s->line, s->col, "DiskSim key 'slips': more than %d in all",
                     DISK_LAYOUT_MAX_SLIPS);
    if (z->nslips > 0 && (double)l->slips[l->nslips - 1] >= s->num)
      return nw_fail(err, s->file, s->line, s->col, "DiskSim key 'slips': %g does not ascend", s->num);
    l->slips[l->nslips++] = (uint32_t)s->num;
    z->nslips++;
  }
  struct lp_val *defects = lp_get(zb, "defects");
  if (defects && defects->n > 0)
    ds_note(d, "%s:%d: %s", defects->file, defects->line,
            "defects (remapped sectors): not modelled, the sectors stay in place");
  l->nzones++;
  ds_unmapped(d, zb);
  return 0;
}

/* dm_mech_g1: rotation, switches, settle, seeks. */
static int ds_mech(struct ds_drive *d, struct lp_val *mech, struct nw_err *err)
{
  double x;
  struct lp_val *v;
  char t[48];
  if (ds_num(mech, "Rotation speed (in rpms)", 1, &x, &v, err) < 0)
    return -1;
  snprintf(t, sizeof t, "%.10grpm", x);
  ds_set(d, "rpm", x, t, v, "Rotation speed (in rpms)");
  static const struct {
    const char *ds, *key;
  } ms[] = {{"Head switch time", "head_switch"},
            {"Single cylinder seek time", "seek_track"},
            {"Full strobe seek time", "seek_full"},
            {"Add. write settling delay", "write_settle"}};
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
    if (ds_num(mech, ms[i].ds, 1, &x, &v, err) < 0)
      return -1;
    snprintf(t, sizeof t, "%.10gms", x);
    ds_set(d, ms[i].key, x * 1e-3, t, v, ms[i].ds);
  }
  /* The drive re-seeks for every command it repositions for: even on the
   * track under the heads it settles as long as a one-cylinder seek before
   * rotation counts (hdd settle_min; the validate traces' same-track read
   * misses never cost less). */
  if (ds_num(mech, "Single cylinder seek time", 1, &x, &v, err) < 0)
    return -1;
  snprintf(t, sizeof t, "%.10gms", x);
  ds_set(d, "settle_min", x * 1e-3, t, v, "Single cylinder seek time (a zero-distance seek settles as long)");
  struct lp_val *at = lp_get(mech, "Access time type");
  if (at && !(at->kind == LP_WORD && strcmp(at->word, "trackSwitchPlusRotation") == 0))
    ds_note(d, "%s:%d: Access time type = %s: not modelled (nastwin: seek or head switch, then "
            "rotation)", at->file, at->line, at->kind == LP_WORD ? at->word : "?");
  struct lp_val *st = lp_get(mech, "Seek type");
  if (st == NULL || st->kind != LP_WORD || strcmp(st->word, "extracted") != 0)
    return nw_fail(err, st ? st->file : mech->file, st ? st->line : mech->line,
                   st ? st->col : mech->col,
                   "DiskSim key 'Seek type': '%s' is not supported: nastwin reads 'extracted' "
                   "(a measured seek curve file)",
                   st && st->kind == LP_WORD ? st->word : "(missing)");
  struct lp_val *sf = lp_get(mech, "Full seek curve");
  if (sf == NULL || sf->kind != LP_WORD)
    return nw_fail(err, sf ? sf->file : mech->file, sf ? sf->line : mech->line,
                   sf ? sf->col : mech->col, "DiskSim key 'Full seek curve': expected a file name");
  char path[1024];
  const char *slash = strrchr(sf->file, '/');
  if (sf->word[0] == '/' || slash == NULL)
    snprintf(path, sizeof path, "%s", sf->word);
  else
    snprintf(path, sizeof path, "%.*s/%s", (int)(slash - sf->file), sf->file, sf->word);
  if (ds_seek_file(path, sf, &d->layout, err) < 0)
    return -1;
  snprintf(d->seek_source, sizeof d->seek_source, "%s (%s:%d: Full seek curve)", sf->word,
           ds_base(sf->file), sf->line);
  struct lp_val *pe = lp_get(mech, "Percent error in rpms");
  if (pe && !(pe->kind == LP_NUM && pe->num == 0))
    ds_note(d, "%s:%d: %s", pe->file, pe->line, "Percent error in rpms: not modelled");
  ds_unmapped(d, mech);
  return 0;
}

/* dm_disk: capacity, surfaces, layout, mechanics. */
static int ds_model(struct ds_drive *d, struct lp_val *m, struct nw_err *err)
{
  double x, surfaces;
  struct lp_val *v;
  char t[48];
  if (ds_num(m, "Block count", 1, &x, &v, err) < 0)
    return -1;
  snprintf(t, sizeof t, "%.0fB", x * 512);
  ds_set(d, "capacity", x * 512, t, v, "Block count (x 512 B)");
  if (ds_num(m, "Number of data surfaces", 1, &surfaces, &v, err) < 0)
    return -1;
  snprintf(t, sizeof t, "%g", surfaces);
  ds_set(d, "heads", surfaces, t, v, "Number of data surfaces");
  double cyls;
  if (ds_num(m, "Number of cylinders", 1, &cyls, &v, err) < 0)
    return -1;
  struct lp_val *lay = ds_block(m, "Layout Model", "dm_layout_g1", err);
  if (lay == NULL)
    return -1;
  struct lp_val *zones = lp_get(lay, "Zones");
  if (zones == NULL || zones->kind != LP_LIST || zones->n == 0)
    return nw_fail(err, lay->file, lay->line, lay->col, "DiskSim key 'Zones': expected a list of zones");
  for (int i = 0; i < zones->n; i++)
    if (ds_zone(d, zones->kids[i], err) < 0)
      return -1;
  struct disk_zone *z0 = &d->layout.zones[0], *zn = &d->layout.zones[d->layout.nzones - 1];
  if (zn->last_cyl + 1 != cyls)
    ds_note(d, "%s:%d: %s", v->file, v->line,
            "Number of cylinders differs from the zones' last cylinder + 1: the zones are used");
  struct lp_val *sp = lp_get(lay, "Sparing scheme used");
  if (sp)
    ds_note(d, "%s:%d: %s", sp->file, sp->line,
            "Sparing scheme used: approximated, each zone's spares at its end, slips skipped");
  ds_unmapped(d, lay);
  struct lp_val *mech = ds_block(m, "Mechanical Model", "dm_mech_g1", err);
  if (mech == NULL || ds_mech(d, mech, err) < 0)
    return -1;
  double rpm = 0;
  for (int i = 0; i < d->nfacts; i++)
    if (strcmp(d->facts[i].key, "rpm") == 0)
      rpm = d->facts[i].value;
  struct ds_fact *ro = ds_fact(d, "rate_outer", z0->spt * 512 * rpm / 60);
  struct ds_fact *ri = ds_fact(d, "rate_inner", zn->spt * 512 * rpm / 60);
  snprintf(ro->text, sizeof ro->text, "%.6gMB/s", ro->value / 1e6);
  snprintf(ri->text, sizeof ri->text, "%.6gMB/s", ri->value / 1e6);
  snprintf(ro->source, sizeof ro->source, "derived: first zone %g sectors per track x 512 B x rpm / 60 (%s)",
           z0->spt, d->zone_source[0]);
  snprintf(ri->source, sizeof ri->source, "derived: last zone %g sectors per track x 512 B x rpm / 60 (%s)",
           zn->spt, d->zone_source[d->layout.nzones - 1]);
  /* mean seek over uniformly random cylinder pairs, from the curve */
  double sum = 0.0;
  for (double dist = 1; dist < cyls; dist++)
    sum += ds_seek_at(&d->layout, dist) * 2.0 * (cyls - dist) / (cyls * cyls);
  /* seek_avg only shapes the fitted curve, which the table replaces; keep
   * it inside the range that curve can take (see hdd_seek_solve) */
  double tt = 0, full = 0;
  for (int i = 0; i < d->nfacts; i++) {
    if (strcmp(d->facts[i].key, "seek_track") == 0)
      tt = d->facts[i].value;
    if (strcmp(d->facts[i].key, "seek_full") == 0)
      full = d->facts[i].value;
  }
  double dt = full - tt;
  double lo = tt + dt / 3.0, hi = tt + 8.0 / 15.0 * dt;
  double avg = sum < lo ? lo : sum > hi ? hi : sum;
  struct ds_fact *sa = ds_fact(d, "seek_avg", avg);
  snprintf(sa->text, sizeof sa->text, "%.6gms", avg * 1e3);
  snprintf(sa->source, sizeof sa->source,
           "derived: mean of the seek curve over random cylinder pairs%s (%.100s)",
           avg != sum ? ", clamped to the fitted curve's range" : "", d->seek_source);
  ds_unmapped(d, m);
  return 0;
}

/* The disk spec block: overheads, bus, buffer, queue. */
static int ds_disk(struct ds_drive *d, struct lp_val *b, struct nw_err *err)
{
  double x, scale = 1.0, per_req = 0.0;
  struct lp_val *v;
  char t[48];
  if (ds_num(b, "Time scale for overheads", 0, &scale, NULL, err) < 0 ||
      ds_num(b, "Per-request overhead time", 0, &per_req, NULL, err) < 0)
    return -1;
  static const char *const ovh[][2] = {
      {"Read hit over. after read", "overhead_read_hit_after_read"},
      {"Read hit over. after write", "overhead_read_hit_after_write"},
      {"Read miss over. after read", "overhead_read_miss_after_read"},
      {"Read miss over. after write", "overhead_read_miss_after_write"},
      {"Write hit over. after read", "overhead_write_hit_after_read"},
      {"Write hit over. after write", "overhead_write_hit_after_write"},
      {"Write miss over. after read", "overhead_write_miss_after_read"},
      {"Write miss over. after write", "overhead_write_miss_after_write"}};
  for (size_t i = 0; i < sizeof ovh / sizeof ovh[0]; i++) {
    if (ds_num(b, ovh[i][0], 1, &x, &v, err) < 0)
      return -1;
    double s = (x + per_req) * scale * 1e-3;
    snprintf(t, sizeof t, "%.10gms", s * 1e3);
    ds_set(d, ovh[i][1], s, t, v, ovh[i][0]);
  }
  if (ds_num(b, "Bulk sector transfer time", 1, &x, &v, err) < 0)
    return -1;
  snprintf(t, sizeof t, "%.10gms", x);
  ds_set(d, "bus_sector_time", x * 1e-3, t, v, "Bulk sector transfer time");
  double segs, seg_blks, ra = 0, caching = 1, fast = 0;
  if (ds_num(b, "Number of buffer segments", 1, &segs, &v, err) < 0)
    return -1;
  snprintf(t, sizeof t, "%g", segs);
  ds_set(d, "cache_segments", segs, t, v, "Number of buffer segments");
  if (ds_num(b, "Segment size (in blks)", 1, &seg_blks, &v, err) < 0)
    return -1;
  snprintf(t, sizeof t, "%.0fB", segs * seg_blks * 512);
  ds_set(d, "cache", segs * seg_blks * 512, t, v, "Segment size (in blks) (x segments x 512 B)");
  if (ds_num(b, "Enable caching in buffer", 0, &caching, NULL, err) < 0)
    return -1;
  if (ds_num(b, "Maximum read-ahead (blks)", 0, &ra, &v, err) < 0)
    return -1;
  if (v) {
    snprintf(t, sizeof t, "%.0fB", caching ? ra * 512 : 0);
    ds_set(d, "read_ahead", caching ? ra * 512 : 0, t, v, "Maximum read-ahead (blks) (x 512 B)");
  }
  static const struct {
    const char *ds, *key;
    int invert;
  } sw[] = {{"Read-ahead over requested", "read_ahead_within_segment", 1},
            {"Read-ahead over requested", "read_frees_segment", 0},
            {"Allow read hits on write data", "read_hits_on_write", 0},
            {"Fast write level", "write_cache", 0}};
  for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++) {
    if (ds_num(b, sw[i].ds, 0, &x, &v, err) < 0)
      return -1;
    if (v == NULL)
      continue;
    int on = (x != 0) != sw[i].invert;
    if (i == 3)
      fast = x, on = caching && x > 0;
    ds_set(d, sw[i].key, on, on ? "on" : "off", v, sw[i].ds);
  }
  (void)fast;
  if (ds_num(b, "Maximum number of write segments", 0, &x, &v, err) < 0)
    return -1;
  if (v && x >= 1) {
    snprintf(t, sizeof t, "%g", x);
    ds_set(d, "write_cache_extents", x, t, v, "Maximum number of write segments");
  }
  if (ds_num(b, "Max queue length", 0, &x, &v, err) < 0)
    return -1;
  if (v) {
    double q = x < 1 ? 1 : x > 32 ? 32 : x;
    snprintf(t, sizeof t, "%g", q);
    ds_set(d, "ncq_depth", q, t, v, "Max queue length");
  }
  lp_get(b, "Enable caching in buffer");
  struct lp_val *m = lp_get(b, "Model");
  if (m == NULL || m->kind != LP_BLOCK || strcmp(m->word, "dm_disk") != 0)
    return nw_fail(err, m ? m->file : b->file, m ? m->line : b->line, m ? m->col : b->col,
                   "DiskSim key 'Model': expected 'source FILE' naming a dm_disk block");
  if (ds_model(d, m, err) < 0)
    return -1;
  ds_unmapped(d, b);
  return 0;
}

/* The disk of the topology (disksim_disk NAME), its spec via instantiate. */
static const char *ds_topo_disk(const struct lp_val *v)
{
  if (v->kind == LP_TOPO && strcmp(v->word, "disksim_disk") == 0)
    return v->name;
  for (int i = 0; i < v->n; i++)
    if (v->kind == LP_TOPO || v->kind == LP_LIST) {
      const char *n = ds_topo_disk(v->kids[i]);
      if (n)
        return n;
    }
  return NULL;
}

static struct lp_val *ds_find_spec(struct lp_val *top, struct nw_err *err)
{
  const char *inst = ds_topo_disk(top);
  for (int i = 0; inst && i < top->n; i++) {
    struct lp_val *s = top->kids[i];
    for (int k = 0; s->kind == LP_INST && k < s->n; k++)
      if (s->kids[k]->kind == LP_WORD && strcmp(s->kids[k]->word, inst) == 0) {
        struct lp_val *b = lp_find_block(top, s->word);
        if (b == NULL || strcmp(b->word, "disksim_disk") != 0) {
          nw_fail(err, s->file, s->line, s->col,
                  "instantiate: '%s' is not a disksim_disk block of these files", s->word);
          return NULL;
        }
        return b;
      }
  }
  struct lp_val *only = NULL;
  for (int i = 0; i < top->n; i++)
    if (top->kids[i]->kind == LP_BLOCK && strcmp(top->kids[i]->word, "disksim_disk") == 0) {
      if (only) {
        nw_fail(err, top->kids[i]->file, top->kids[i]->line, top->kids[i]->col,
                "several disksim_disk blocks and no topology naming one");
        return NULL;
      }
      only = top->kids[i];
    }
  if (only == NULL)
    nw_fail(err, top->file, 1, 1, "no disksim_disk block in the DiskSim files");
  return only;
}

int disksim_import(const char *parv_path, struct ds_drive *out, struct nw_err *err)
{
  memset(out, 0, sizeof *out);
  snprintf(out->parv, sizeof out->parv, "%s", ds_base(parv_path));
  struct lp_val *top = lp_load(parv_path, err);
  if (top == NULL)
    return -1;
  struct lp_val *spec = ds_find_spec(top, err);
  int rc = spec ? 0 : -1;
  if (spec) {
    snprintf(out->spec, sizeof out->spec, "%s", spec->name);
    rc = ds_disk(out, spec, err);
  }
  if (rc == 0) {
    static const char *const guess[][3] = {
        {"power_active", "12W", "unknown: not in the DiskSim files; a 3.5-inch drive seeking"},
        {"power_idle", "8W", "unknown: not in the DiskSim files; a 3.5-inch drive spinning"}};
    for (size_t i = 0; i < sizeof guess / sizeof guess[0]; i++) {
      struct ds_fact *f = ds_fact(out, guess[i][0], atof(guess[i][1]));
      snprintf(f->text, sizeof f->text, "%s", guess[i][1]);
      snprintf(f->source, sizeof f->source, "%s", guess[i][2]);
      f->fit = 1;
    }
  }
  lp_free(top);
  return rc;
}

static void ds_print_zones(const struct ds_drive *d, FILE *out)
{
  const struct disk_layout *l = &d->layout;
  fprintf(out, "    zones:\n");
  for (int i = 0; i < l->nzones; i++) {
    const struct disk_zone *z = &l->zones[i];
    fprintf(out,
            "      - {cylinders: [%.0f, %.0f], sectors_per_track: %g, first_offset: %g, "
            "front_empty: %g, track_skew: %g, cylinder_skew: %g, spares: %g, source: \"%s\",\n"
            "         slips: [",
            z->first_cyl, z->last_cyl, z->spt, z->first_offset, z->front_empty, z->track_skew,
            z->cyl_skew, z->spares, d->zone_source[i]);
    for (int k = 0; k < z->nslips; k++)
      fprintf(out, "%s%u", k ? ", " : "", (unsigned)l->slips[z->slip0 + k]);
    fprintf(out, "]}\n");
  }
}

void disksim_print_entry(const struct ds_drive *d, const char *name, FILE *out)
{
  fprintf(out, "  %s:\n    model: hdd\n", name);
  fprintf(out, "    description: \"DiskSim 4.0 validated drive %s (%s)\"\n", d->spec, d->parv);
  fprintf(out, "    source: \"imported by nastwin drives import --disksim %s\"\n", d->parv);
  fprintf(out, "    params:\n");
  for (int i = 0; i < d->nfacts; i++) {
    const struct ds_fact *f = &d->facts[i];
    if (f->fit)
      fprintf(out, "      %s: {value: %s, fit: [%gW, %gW], source: \"%s\"}\n", f->key, f->text,
              f->value / 2, f->value * 1.5, f->source);
    else
      fprintf(out, "      %s: {value: %s, source: \"%s\"}\n", f->key, f->text, f->source);
  }
  const struct disk_layout *l = &d->layout;
  fprintf(out, "    seek_curve:\n      source: \"%s\"\n      points: [", d->seek_source);
  for (int i = 0; i < l->nseek; i++)
    fprintf(out, "%s[%g, %.10gms]", i ? (i % 6 ? ", " : ",\n        ") : "", l->seek_cyl[i],
            l->seek_s[i] * 1e3);
  fprintf(out, "]\n");
  ds_print_zones(d, out);
}
