/* hdd_layout.c - zone table, skews, slips and the extracted seek curve of
 * the hdd model (see hdd_layout.h and struct disk_layout in disk.h). */
#include "models/disks/hdd_layout.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A switch that fits in the skew to within this fraction of a revolution
 * makes it (float noise on skews designed to just cover the switch). */
#define HDD_GEOM_EPS_REV 1e-9

/* Slips of zone z strictly below physical index p (zone-relative). */
static double hdd_geom_slips_below(const struct hdd_geom *g, int z, double p)
{
  const struct disk_zone *zn = &g->l.zones[z];
  int lo = 0, hi = zn->nslips;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if ((double)g->l.slips[zn->slip0 + mid] < p)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (double)lo;
}

int hdd_geom_init(struct hdd_geom *g, const struct disk_layout *l, double surfaces, double rot_s,
                  double head_switch_s, uint64_t blocks, char *msg, size_t msg_len)
{
  memset(g, 0, sizeof *g);
  g->l = *l;
  g->surfaces = surfaces;
  g->rot_s = rot_s;
  g->head_switch_s = head_switch_s;
  for (int i = 1; i < l->nseek; i++)
    if (!(l->seek_cyl[i] > l->seek_cyl[i - 1])) {
      snprintf(msg, msg_len, "hdd: seek_curve distances must ascend (%g after %g cylinders)",
               l->seek_cyl[i], l->seek_cyl[i - 1]);
      return -1;
    }
  if (l->nseek > 0 && l->seek_cyl[0] < 1.0) {
    snprintf(msg, msg_len, "hdd: seek_curve starts at %g cylinders, must be >= 1", l->seek_cyl[0]);
    return -1;
  }
  uint64_t total = 0;
  for (int z = 0; z < l->nzones; z++) {
    const struct disk_zone *zn = &l->zones[z];
    if (zn->last_cyl < zn->first_cyl || zn->spt < 1 ||
        (z > 0 && zn->first_cyl <= l->zones[z - 1].last_cyl)) {
      snprintf(msg, msg_len,
               "hdd: zone %d (cylinders %g-%g, %g sectors per track) must have first <= last, "
               ">= 1 sector per track and follow the previous zone",
               z, zn->first_cyl, zn->last_cyl, zn->spt);
      return -1;
    }
    double phys = (zn->last_cyl - zn->first_cyl + 1.0) * surfaces * zn->spt;
    double data = phys - zn->front_empty - zn->spares - zn->nslips;
    if (data < 0)
      data = 0;
    g->lbn0[z] = total;
    g->nlbn[z] = (uint64_t)data;
    total += (uint64_t)data;
    g->cylinders = zn->last_cyl + 1.0;
  }
  if (l->nzones > 0 && total < blocks) {
    snprintf(msg, msg_len, "hdd: the zones hold %llu sectors, fewer than the capacity's %llu",
             (unsigned long long)total, (unsigned long long)blocks);
    return -1;
  }
  g->blocks = blocks;
  return 0;
}

void hdd_geom_locate(const struct hdd_geom *g, uint64_t lbn, struct hdd_loc *out)
{
  if (lbn >= g->blocks && g->blocks > 0)
    lbn = g->blocks - 1;
  int lo = 0, hi = g->l.nzones - 1;
  while (lo < hi) { /* last zone whose first block <= lbn */
    int mid = (lo + hi + 1) / 2;
    if (g->lbn0[mid] <= lbn)
      lo = mid;
    else
      hi = mid - 1;
  }
  const struct disk_zone *zn = &g->l.zones[lo];
  double p = zn->front_empty + (double)(lbn - g->lbn0[lo]);
  for (int i = 0; i < zn->nslips && (double)g->l.slips[zn->slip0 + i] <= p; i++)
    p += 1.0;
  double track = floor(p / zn->spt);
  double c = floor(track / g->surfaces);
  double sector = p - track * zn->spt;
  double start = zn->first_offset + (track - c) * zn->track_skew + c * zn->cyl_skew;
  double a = fmod(start + sector, zn->spt) / zn->spt;
  *out = (struct hdd_loc){.zone = lo, .track = track, .cyl = zn->first_cyl + c, .sector = sector,
                          .spt = zn->spt, .angle_rev = a < 0 ? a + 1.0 : a};
}

double hdd_geom_seek_s(const struct hdd_geom *g, double dcyl)
{
  int n = g->l.nseek;
  if (n == 0)
    return -1.0;
  const double *x = g->l.seek_cyl, *y = g->l.seek_s;
  if (n == 1 || dcyl <= x[0])
    return y[0];
  int i = 1;
  while (i < n - 1 && x[i] < dcyl)
    i++;
  return y[i - 1] + (y[i] - y[i - 1]) * (dcyl - x[i - 1]) / (x[i] - x[i - 1]);
}

/* First block at or after zone-relative physical index p of zone z. */
static uint64_t hdd_geom_lbn_at(const struct hdd_geom *g, int z, double p)
{
  const struct disk_zone *zn = &g->l.zones[z];
  double l = p - zn->front_empty - hdd_geom_slips_below(g, z, p);
  if (l < 0)
    l = 0;
  return g->lbn0[z] + (uint64_t)l;
}

double hdd_geom_media_s(const struct hdd_geom *g, uint64_t lbn, uint64_t n,
                        double (*seek_s)(const void *ctx, double dcyl), const void *ctx)
{
  struct hdd_loc at;
  hdd_geom_locate(g, lbn, &at);
  double t = 0.0;
  uint64_t left = n;
  for (;;) {
    uint64_t next = hdd_geom_lbn_at(g, at.zone, (at.track + 1.0) * at.spt); /* next track's first */
    if (next > g->lbn0[at.zone] + g->nlbn[at.zone])
      next = g->lbn0[at.zone] + g->nlbn[at.zone];
    uint64_t on_track = next > lbn ? next - lbn : 1;
    if (left <= on_track || lbn + on_track >= g->blocks) {
      struct hdd_loc last;
      hdd_geom_locate(g, lbn + (left < on_track ? left : on_track) - 1, &last);
      return t + (last.sector + 1.0 - at.sector) / at.spt * g->rot_s;
    }
    t += (at.spt - at.sector) / at.spt * g->rot_s;
    double end_rev = fmod(at.angle_rev + (at.spt - at.sector) / at.spt, 1.0);
    left -= on_track;
    lbn += on_track;
    struct hdd_loc nx;
    hdd_geom_locate(g, lbn, &nx);
    double sw = nx.cyl == at.cyl ? g->head_switch_s : seek_s(ctx, fabs(nx.cyl - at.cyl));
    double gap = nx.angle_rev - end_rev;
    gap -= floor(gap);
    while (gap * g->rot_s < sw - HDD_GEOM_EPS_REV * g->rot_s)
      gap += 1.0;
    t += gap * g->rot_s;
    at = nx;
  }
}

double hdd_geom_rate(const struct hdd_geom *g, uint64_t lbn)
{
  struct hdd_loc at;
  hdd_geom_locate(g, lbn, &at);
  return at.spt * 512.0 / g->rot_s;
}
