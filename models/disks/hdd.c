/* hdd.c - model "hdd": a rotating disk with zoned recording, a seek curve,
 * a physical rotational phase, an on-drive read-ahead / write-back cache,
 * NCQ (shortest positioning time first) and a SATA link.
 *
 * Geometry.  The cylinder fraction c in [0, 1] runs from the outer (0) to
 * the inner (1) diameter and the media rate falls linearly,
 * R(c) = Ro - (Ro - Ri) c.  Bytes per unit of c are proportional to R, so
 * the byte offset of c is C (Ro c - (Ro - Ri) c^2 / 2) / ((Ro + Ri) / 2)
 * and reading from c1 to c2 takes K (c2 - c1) with K = C / ((Ro + Ri) / 2)
 * (K is the time to read the whole disk).  Sequential data winds round the
 * platters: offset -> revolution number rev = K c / T (T = 60 / rpm);
 * floor(rev) is the track, track / heads the cylinder, frac(rev) the angle.
 *
 * Rotation.  The platter angle under the heads at time t is
 * frac(t / T + phase0), phase0 drawn once from the device seed: rotational
 * latency is the real angular distance, so runs are deterministic and a
 * request issued exactly when the previous one ends, at the next sector,
 * waits nothing (a sequential stream costs neither seek nor rotation).
 *
 * Seek over d = (cylinder distance - 1) / (cylinders - 1):
 *   t(d) = t_tt + a sqrt(d)           for d <= d0
 *        = t(d0) + b (d - d0)          for d > d0,   t(1) = t_full,
 * C1 at d0 (b = a / (2 sqrt(d0))), and d0 solved so that the mean over
 * uniformly random cylinder pairs (distance density 2 (1 - d)) is t_avg.
 * Same cylinder, other track: head_switch.
 *
 * Read cache.  The buffer is split into `cache_segments` segments (each
 * cache / segments bytes), each holding one contiguous range read from
 * the media, replaced least recently used: drives made for several
 * concurrent streams keep 16-32 so interleaved sequential readers do not
 * evict each other.  A read that continues a segment (starts inside it or
 * at most HDD_STREAM_GAP_BYTES past its end) is a detected stream: the
 * drive keeps reading `stream_prefetch` bytes past it into that segment
 * before it takes the next command (look-ahead that queued commands do not
 * abort), and keeps it going: once a host read served from the segment
 * leaves less than `stream_prefetch` buffered past it, another
 * `stream_prefetch` is read into it when the drive has nothing else to do
 * (no host command, no write-back), so a sequential reader the buffer
 * serves never runs into its segment's end; any read is followed by
 * `read_ahead` while the drive is idle (hdd_cache.c).
 * With `zero_latency_read` a read (with its prefetch) starts with whatever
 * of its sectors passes under the head first (see hdd_plan_io).
 *
 * Write cache.  With `write_cache` on, a write is acknowledged once in the
 * buffer if the dirty bytes stay within `cache` and the dirty extents
 * (contiguous writes merge, up to HDD_DESTAGE_MERGE_MAX_BYTES) within
 * `write_cache_extents`, the firmware's table of cached writes; otherwise
 * it waits in the command queue and is written to the media when the
 * positioning scheduler picks it.  The scheduler sorts every held dirty
 * extent and every queued command by positioning time (RPO) and serves the
 * nearest.  hdd_precondition fills the buffer as a long run of writes
 * leaves it: full, extents scattered over the job's region (random) or
 * just behind its position (sequential).  */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/disks/hdd_impl.h"
#include "models/disks/hdd_layout.h"

static const char *const hdd_on_off[] = {"off", "on", NULL};

#define HDD_OFF(field) offsetof(struct hdd_params, field)

static const struct param_desc hdd_params_table[] = {
    {.key = "capacity", .dim = UNITS_BYTES, .offset = HDD_OFF(capacity_bytes), .min = 100e6,
     .max = 40e12, .help = "user capacity (bytes)"},
    {.key = "rpm", .dim = UNITS_ROTATION, .offset = HDD_OFF(rpm), .min = 3600, .max = 15000,
     .help = "spindle speed (rpm)"},
    {.key = "seek_track", .dim = UNITS_TIME, .offset = HDD_OFF(seek_track_s), .min = 0.1e-3,
     .max = 5e-3, .help = "track-to-track seek (s)"},
    {.key = "seek_avg", .dim = UNITS_TIME, .offset = HDD_OFF(seek_avg_s), .min = 1e-3,
     .max = 20e-3, .help = "average seek over random cylinder pairs (s)"},
    {.key = "seek_full", .dim = UNITS_TIME, .offset = HDD_OFF(seek_full_s), .min = 2e-3,
     .max = 40e-3, .help = "full-stroke seek (s)"},
    {.key = "heads", .dim = UNITS_NUMBER, .offset = HDD_OFF(heads), .min = 1, .max = 24,
     .optional = 1, .def = 4, .help = "recording surfaces (tracks per cylinder)"},
    {.key = "head_switch", .dim = UNITS_TIME, .offset = HDD_OFF(head_switch_s), .min = 0,
     .max = 5e-3, .optional = 1, .def = 1e-3,
     .help = "switch to another surface of the same cylinder (s)"},
    {.key = "rate_outer", .dim = UNITS_RATE, .offset = HDD_OFF(rate_outer_bytes_per_s),
     .min = 1e6, .max = 600e6, .help = "sustained media rate at the outer diameter (bytes/s)"},
    {.key = "rate_inner", .dim = UNITS_RATE, .offset = HDD_OFF(rate_inner_bytes_per_s),
     .min = 1e6, .max = 600e6, .help = "sustained media rate at the inner diameter (bytes/s)"},
    {.key = "cmd_overhead", .dim = UNITS_TIME, .offset = HDD_OFF(cmd_overhead_s), .min = 0,
     .max = 2e-3, .optional = 1, .def = 0,
     .help = "controller time per non-sequential command (s)"},
    {.key = "cache", .dim = UNITS_BYTES, .offset = HDD_OFF(cache_bytes), .min = 0, .max = 4e9,
     .optional = 1, .def = 64.0 * 1048576, .help = "drive buffer usable for write-back (bytes)"},
    {.key = "read_ahead", .dim = UNITS_BYTES, .offset = HDD_OFF(read_ahead_bytes), .min = 0,
     .max = 64.0 * 1048576, .optional = 1, .def = 1048576,
     .help = "bytes read ahead after a read while idle (bytes), 0 = off"},
    {.key = "cache_segments", .dim = UNITS_NUMBER, .offset = HDD_OFF(cache_segments), .min = 1,
     .max = HDD_SEGMENTS_MAX, .optional = 1, .def = 1,
     .help = "read-cache segments, one contiguous range each (1 = a single buffer)"},
    {.key = "stream_prefetch", .dim = UNITS_BYTES,
     .offset = HDD_OFF(stream_prefetch_bytes), .min = 0, .max = 64.0 * 1048576, .optional = 1,
     .def = 0,
     .help = "bytes read past a read that continues a cached segment, commands queued or not "
             "(bytes), 0 = read ahead only while idle"},
    {.key = "zero_latency_read", .offset = HDD_OFF(zero_latency_read), .optional = 1, .def = 0,
     .help = "a read spanning a whole track starts at the sector under the head: on or off",
     .choices = hdd_on_off},
    {.key = "write_cache", .offset = HDD_OFF(write_cache), .optional = 1, .def = 1,
     .help = "write-back cache: on or off", .choices = hdd_on_off},
    {.key = "write_cache_extents", .dim = UNITS_NUMBER, .offset = HDD_OFF(write_cache_extents),
     .min = 1, .max = 4096, .optional = 1, .def = 64,
     .help = "dirty write extents the firmware holds and sorts for destage (contiguous writes "
             "merge into one)"},
    {.key = "ncq_depth", .dim = UNITS_NUMBER, .offset = HDD_OFF(ncq_depth), .min = 1, .max = 32,
     .optional = 1, .def = 32, .help = "commands the drive holds and reorders (1 = FIFO)"},
    {.key = "ncq_max_wait", .dim = UNITS_TIME, .offset = HDD_OFF(ncq_max_wait_s), .min = 0.01,
     .max = 10, .optional = 1, .def = 1,
     .help = "a command older than this is served next, whatever its position (s)"},
    {.key = "link_rate", .dim = UNITS_RATE, .offset = HDD_OFF(link_rate_bytes_per_s),
     .min = 1.5e9 / 8, .max = 6e9 / 8, .optional = 1, .def = 6e9 / 8,
     .help = "SATA line rate, 1.5/3/6 Gbit/s (payload = 80 % after 8b/10b)"},
    {.key = "power_active", .dim = UNITS_POWER, .offset = HDD_OFF(power_active_W), .min = 0.5,
     .max = 30, .help = "power while seeking/transferring (W)"},
    {.key = "power_idle", .dim = UNITS_POWER, .offset = HDD_OFF(power_idle_W), .min = 0.2,
     .max = 20, .help = "power spinning idle (W)"},
    {.key = "power_standby", .dim = UNITS_POWER, .offset = HDD_OFF(power_standby_W), .min = 0,
     .max = 5, .optional = 1, .def = 1, .help = "power spun down (W)"},
    {.key = "standby_after", .dim = UNITS_TIME, .offset = HDD_OFF(standby_after_s), .min = 0,
     .max = 86400, .optional = 1, .def = 0, .help = "idle time before spin-down (s), 0 = never"},
    {.key = "spinup_time", .dim = UNITS_TIME, .offset = HDD_OFF(spinup_time_s), .min = 0,
     .max = 60, .optional = 1, .def = 10, .help = "spin-up delay out of standby (s)"},
    {.key = "spinup_power", .dim = UNITS_POWER, .offset = HDD_OFF(spinup_power_W), .min = 0,
     .max = 40, .optional = 1, .def = 20, .help = "average power during spin-up (W)"},
    {.key = "bus_sector_time", .dim = UNITS_TIME, .offset = HDD_OFF(bus_sector_s), .min = 0,
     .max = 10e-3, .optional = 1, .def = 0,
     .help = "host bus time per 512 B sector, any bus (s); 0 = the SATA link_rate"},
#define HDD_OVH(k, i, what)                                                                       \
  {.key = k, .dim = UNITS_TIME, .offset = HDD_OFF(ovh_s) + (i) * sizeof(double), .min = 0,       \
   .max = 5e-3, .optional = 1, .def = 0,                                                          \
   .help = "controller overhead of a " what " (s), added to cmd_overhead"}
    HDD_OVH("overhead_read_hit_after_read", 0, "read served from the buffer after a read"),
    HDD_OVH("overhead_read_hit_after_write", 1, "read served from the buffer after a write"),
    HDD_OVH("overhead_read_miss_after_read", 2, "read from the media after a read"),
    HDD_OVH("overhead_read_miss_after_write", 3, "read from the media after a write"),
    HDD_OVH("overhead_write_hit_after_read", 4, "write continuing buffered data after a read"),
    HDD_OVH("overhead_write_hit_after_write", 5, "write continuing buffered data after a write"),
    HDD_OVH("overhead_write_miss_after_read", 6, "other write after a read"),
    HDD_OVH("overhead_write_miss_after_write", 7, "other write after a write"),
#undef HDD_OVH
    {.key = "write_settle", .dim = UNITS_TIME, .offset = HDD_OFF(write_settle_s), .min = 0,
     .max = 5e-3, .optional = 1, .def = 0,
     .help = "extra settling before writing after the heads moved (s)"},
    {.key = "read_hits_on_write", .offset = HDD_OFF(read_hits_on_write), .optional = 1, .def = 0,
     .help = "written data stays in a buffer segment and serves reads: on or off",
     .choices = hdd_on_off},
    {.key = "read_ahead_within_segment", .offset = HDD_OFF(ra_within_segment), .optional = 1,
     .def = 0,
     .help = "read-ahead stops when it would push the requested data out of its segment: on or "
             "off",
     .choices = hdd_on_off},
    {.key = "read_frees_segment", .offset = HDD_OFF(read_frees), .optional = 1, .def = 0,
     .help = "a read served from a segment frees the data before it for read-ahead (DiskSim: "
             "read-ahead over requested): on or off",
     .choices = hdd_on_off},
    {.key = "settle_min", .dim = UNITS_TIME, .offset = HDD_OFF(settle_min_s), .min = 0,
     .max = 5e-3, .optional = 1, .def = 0,
     .help = "least time a command's repositioning takes before rotation counts, even on the "
             "track under the heads (a zero-distance seek settles) (s); 0 = a same-track access "
             "only waits for rotation"},
};

/* ---- seek curve ---- */

/* Mean seek (s) over random cylinder pairs when the knee is at d0. */
static double hdd_seek_mean_s(double tt, double dt, double d0)
{
  double a = 2.0 * sqrt(d0) * dt / (1.0 + d0);
  double b = dt / (1.0 + d0);
  double t_d0 = tt + a * sqrt(d0);
  double l = 1.0 - d0;
  double i1 = tt * (2.0 * d0 - d0 * d0) +
              2.0 * a * (2.0 / 3.0 * pow(d0, 1.5) - 2.0 / 5.0 * pow(d0, 2.5));
  double i2 = t_d0 * l * l + b * l * l * l / 3.0;
  return i1 + i2;
}

/* Solve the knee d0 for the parameters' average; 0 or -1 with msg. */
static int hdd_seek_solve(const struct hdd_params *p, double *a, double *d0, double *b, char *msg,
                          size_t msg_len)
{
  double tt = p->seek_track_s, dt = p->seek_full_s - p->seek_track_s;
  double lo = 1e-12, hi = 1.0;
  double mean_lo = hdd_seek_mean_s(tt, dt, lo), mean_hi = hdd_seek_mean_s(tt, dt, hi);
  if (p->seek_avg_s < mean_lo - 1e-12 || p->seek_avg_s > mean_hi + 1e-12) {
    snprintf(msg, msg_len,
             "hdd: seek_avg %g ms must be between %.4g and %.4g ms for seek_track %g ms and "
             "seek_full %g ms (sqrt-then-linear seek curve)",
             p->seek_avg_s * 1e3, mean_lo * 1e3, mean_hi * 1e3, tt * 1e3, p->seek_full_s * 1e3);
    return -1;
  }
  for (int i = 0; i < 200; i++) { /* the mean rises with d0 (more concave) */
    double mid = 0.5 * (lo + hi);
    if (hdd_seek_mean_s(tt, dt, mid) < p->seek_avg_s)
      lo = mid;
    else
      hi = mid;
  }
  *d0 = 0.5 * (lo + hi);
  *a = 2.0 * sqrt(*d0) * dt / (1.0 + *d0);
  *b = dt / (1.0 + *d0);
  return 0;
}

/* Seek time (s) over normalised distance d in [0, 1]. */
static double hdd_seek_curve_s(const struct hdd *h, double d)
{
  if (h->geom != NULL && h->geom->l.nseek > 0)
    return hdd_geom_seek_s(h->geom, 1.0 + d * (h->cylinders - 1.0));
  if (d <= h->seek_d0)
    return h->p.seek_track_s + h->seek_a * sqrt(d);
  return h->p.seek_track_s + h->seek_a * sqrt(h->seek_d0) + h->seek_b * (d - h->seek_d0);
}

/* ---- geometry ---- */

/* Cylinder fraction (0 outer .. 1 inner) of a byte offset. */
static double hdd_cyl(const struct hdd *h, uint64_t off_bytes)
{
  double f = (double)off_bytes / h->p.capacity_bytes;
  if (f > 1.0)
    f = 1.0;
  double ro = h->p.rate_outer_bytes_per_s, ri = h->p.rate_inner_bytes_per_s;
  /* root of (ro - ri)/2 c^2 - ro c + f (ro + ri)/2 = 0, in a form stable at ro = ri */
  return f * (ro + ri) / (ro + sqrt(ro * ro - f * (ro * ro - ri * ri)));
}

/* Media rate (B/s) at offset off. */
double hdd_rate_at(const struct hdd *h, uint64_t off_bytes)
{
  if (h->geom != NULL && h->geom->l.nzones > 0)
    return hdd_geom_rate(h->geom, off_bytes / 512);
  double c = hdd_cyl(h, off_bytes);
  return h->p.rate_outer_bytes_per_s - (h->p.rate_outer_bytes_per_s - h->p.rate_inner_bytes_per_s) * c;
}

static double hdd_seek_cyl_s(const void *ctx, double dcyl)
{
  const struct hdd *h = ctx;
  return hdd_seek_curve_s(h, h->cylinders > 1.0 ? (dcyl - 1.0) / (h->cylinders - 1.0) : 0.0);
}

/* Media time (s) to read or write [off, off + len). */
double hdd_media_s(const struct hdd *h, uint64_t off_bytes, uint64_t len_bytes)
{
  if (h->geom != NULL && h->geom->l.nzones > 0)
    return hdd_geom_media_s(h->geom, off_bytes / 512, (len_bytes + 511) / 512, hdd_seek_cyl_s, h);
  return h->disk_s * (hdd_cyl(h, off_bytes + len_bytes) - hdd_cyl(h, off_bytes));
}

/* Seek (or head switch) time (s) from offset `from` to offset `to`, no rotation. */
static double hdd_seek_only_s(const struct hdd *h, uint64_t from, uint64_t to)
{
  if (h->geom != NULL && h->geom->l.nzones > 0) {
    struct hdd_loc a, b;
    hdd_geom_locate(h->geom, from / 512, &a);
    hdd_geom_locate(h->geom, to / 512, &b);
    if (a.cyl == b.cyl)
      return a.zone == b.zone && a.track == b.track ? 0.0 : h->p.head_switch_s;
    return hdd_seek_cyl_s(h, fabs(a.cyl - b.cyl));
  }
  double rev1 = h->disk_s * hdd_cyl(h, from) / h->rot_s;
  double rev2 = h->disk_s * hdd_cyl(h, to) / h->rot_s;
  double track1 = floor(rev1), track2 = floor(rev2);
  double dcyl = fabs(floor(track1 / h->p.heads) - floor(track2 / h->p.heads));
  if (dcyl == 0.0)
    return track1 == track2 ? 0.0 : h->p.head_switch_s;
  return hdd_seek_curve_s(h, h->cylinders > 1.0 ? (dcyl - 1.0) / (h->cylinders - 1.0) : 0.0);
}

/* Time (s) the heads take to be ready over offset `to` from offset `from`
 * before rotation counts: the seek or head switch, the extra write settle
 * when they moved, and at least settle_min (a command re-seeks even to the
 * track under the heads). */
static double hdd_reposition_s(const struct hdd *h, uint64_t from, uint64_t to, int write)
{
  double seek_s = hdd_seek_only_s(h, from, to);
  if (write && seek_s > 0.0)
    seek_s += h->p.write_settle_s;
  return seek_s > h->p.settle_min_s ? seek_s : h->p.settle_min_s;
}

/* Repositioning + rotation (s) from the head at offset `from` at time t_s
 * to the start of offset `to`. */
static double hdd_position_s(const struct hdd *h, uint64_t from, double t_s, uint64_t to,
                             int write)
{
  double rev2 = h->disk_s * hdd_cyl(h, to) / h->rot_s;
  if (h->geom != NULL && h->geom->l.nzones > 0) {
    struct hdd_loc b;
    hdd_geom_locate(h->geom, to / 512, &b);
    rev2 = b.angle_rev;
  }
  double seek_s = hdd_reposition_s(h, from, to, write);
  double arrive = t_s + seek_s;
  double theta = arrive / h->rot_s + h->phase0_rev;
  double wait_rev = (rev2 - floor(rev2)) - (theta - floor(theta));
  if (wait_rev < 0.0)
    wait_rev += 1.0;
  if (wait_rev > 1.0 - HDD_ROT_EPS_REV)
    wait_rev = 0.0;
  return seek_s + wait_rev * h->rot_s;
}

/* ---- params ---- */

static int hdd_check(const void *params, char *msg, size_t msg_len)
{
  const struct hdd_params *p = params;
  if (p->rate_inner_bytes_per_s > p->rate_outer_bytes_per_s) {
    snprintf(msg, msg_len, "hdd: rate_inner %g MB/s must be <= rate_outer %g MB/s",
             p->rate_inner_bytes_per_s / 1e6, p->rate_outer_bytes_per_s / 1e6);
    return -1;
  }
  if (!(p->seek_track_s <= p->seek_avg_s && p->seek_avg_s <= p->seek_full_s)) {
    snprintf(msg, msg_len,
             "hdd: seeks must satisfy seek_track (%g ms) <= seek_avg (%g ms) <= seek_full (%g ms)",
             p->seek_track_s * 1e3, p->seek_avg_s * 1e3, p->seek_full_s * 1e3);
    return -1;
  }
  if (p->heads != floor(p->heads) || p->ncq_depth != floor(p->ncq_depth) ||
      p->cache_segments != floor(p->cache_segments)) {
    snprintf(msg, msg_len,
             "hdd: heads (%g), ncq_depth (%g) and cache_segments (%g) must be whole numbers",
             p->heads, p->ncq_depth, p->cache_segments);
    return -1;
  }
  if (p->power_active_W < p->power_idle_W || p->power_standby_W > p->power_idle_W) {
    snprintf(msg, msg_len,
             "hdd: power must satisfy power_standby (%g W) <= power_idle (%g W) <= "
             "power_active (%g W)",
             p->power_standby_W, p->power_idle_W, p->power_active_W);
    return -1;
  }
  double a, d0, b;
  return hdd_seek_solve(p, &a, &d0, &b, msg, msg_len);
}

static double hdd_capacity_bytes(const void *params)
{
  return ((const struct hdd_params *)params)->capacity_bytes;
}

static void hdd_destroy(void *priv)
{
  struct hdd *h = priv;
  if (h == NULL)
    return;
  free(h->hq);
  free(h->dq);
  free(h->geom);
  disk_heap_free(&h->done);
  iface_port_free(&h->port);
  free(h);
}

static void *hdd_create(const void *params, uint64_t seed)
{
  struct hdd *h = calloc(1, sizeof *h);
  if (h == NULL)
    return NULL;
  h->p = *(const struct hdd_params *)params;
  char msg[256];
  if (hdd_seek_solve(&h->p, &h->seek_a, &h->seek_d0, &h->seek_b, msg, sizeof msg) != 0) {
    /* unchecked params: fall back to a straight line rather than fail */
    h->seek_d0 = 0.0;
    h->seek_a = 0.0;
    h->seek_b = h->p.seek_full_s - h->p.seek_track_s;
  }
  h->rot_s = 60.0 / h->p.rpm;
  h->disk_s =
      h->p.capacity_bytes / (0.5 * (h->p.rate_outer_bytes_per_s + h->p.rate_inner_bytes_per_s));
  h->cylinders = floor(h->disk_s / h->rot_s / h->p.heads);
  if (h->cylinders < 1.0)
    h->cylinders = 1.0;
  h->phase0_rev = disk_seed_unit(seed);
  h->seed = seed;
  h->nseg = (int)h->p.cache_segments;
  if (h->nseg < 1 || h->nseg > HDD_SEGMENTS_MAX)
    h->nseg = 1;
  h->seg_cap_bytes = (uint64_t)(h->p.cache_bytes / h->nseg);
  disk_heap_init(&h->done);
  iface_port_init(&h->port,
                  h->p.bus_sector_s > 0.0 ? 512.0 / h->p.bus_sector_s
                                          : h->p.link_rate_bytes_per_s * IFACE_8B10B_PAYLOAD_FRACTION,
                  0);
  h->ra_limit_bytes = h->p.read_ahead_bytes;
  h->power = (struct disk_power){.active_W = h->p.power_active_W,
                                 .idle_W = h->p.power_idle_W,
                                 .standby_W = h->p.power_standby_W,
                                 .standby_after_s = h->p.standby_after_s,
                                 .wake_s = h->p.spinup_time_s,
                                 .wake_W = h->p.spinup_power_W};
  return h;
}

/* ---- queues ---- */

static int hdd_cmd_append(struct hdd_cmd **v, size_t *n, size_t *cap, const struct hdd_cmd *c)
{
  if (*n == *cap) {
    size_t ncap = *cap ? 2 * *cap : 32;
    struct hdd_cmd *nv = realloc(*v, ncap * sizeof *nv);
    if (nv == NULL)
      return -1;
    *v = nv;
    *cap = ncap;
  }
  (*v)[(*n)++] = *c;
  return 0;
}

void hdd_cmd_remove(struct hdd_cmd *v, size_t *n, size_t i)
{
  memmove(v + i, v + i + 1, (*n - i - 1) * sizeof *v);
  (*n)--;
}

/* ---- planning and dispatch ---- */

/* Controller overhead (s) of a command: read or write x buffer hit or
 * miss x after a read or a write. */
double hdd_overhead_s(const struct hdd *h, int write, int hit)
{
  return h->p.ovh_s[(write ? 4 : 0) + (hit ? 0 : 2) + (h->last_write ? 1 : 0)];
}

/* A media access: io from the head at pos (t_s), then pf bytes past it
 * into segment cont before the actuator is free. */
void hdd_plan_media(const struct hdd *h, double t_s, uint64_t pos, const struct disk_io *io,
                           int cont, uint64_t pf, struct hdd_plan *pl)
{
  uint64_t o = io->offset_bytes, e = io->offset_bytes + io->len_bytes;
  if (e + pf > (uint64_t)h->p.capacity_bytes)
    pf = e < (uint64_t)h->p.capacity_bytes ? (uint64_t)h->p.capacity_bytes - e : 0;
  double media_s = hdd_media_s(h, o, io->len_bytes);
  double pf_s = pf > 0 ? hdd_media_s(h, e, pf) : 0.0;
  double start = t_s;
  double ovh_s = hdd_overhead_s(h, io->write, 0);
  if (!(o == pos && t_s == h->head_t_s && ovh_s == 0.0)) { /* not the next sector right now */
    double t0 = t_s + (o == pos ? 0.0 : h->p.cmd_overhead_s) + ovh_s;
    start = t0 + hdd_position_s(h, pos, t0, o, io->write);
    /* zero-latency read: the drive reads whatever sector of the transfer
     * (F revolutions long) arrives under the head first and the rest of
     * that track on the next pass, so the first track is done one
     * revolution after arrival; it gains when the head arrives inside the
     * transfer (x revolutions past its start, x < F) */
    if (!io->write && h->p.zero_latency_read >= 1.0) {
      double seek_s = hdd_reposition_s(h, pos, o, 0);
      double wait_rev = (start - t0 - seek_s) / h->rot_s;
      double f_rev = (media_s + pf_s) / h->rot_s;
      if (wait_rev > 0.0 && 1.0 - wait_rev < f_rev)
        start = t0 + seek_s + (f_rev < 1.0 ? (1.0 - f_rev) * h->rot_s : 0.0);
    }
  }
  *pl = (struct hdd_plan){.kind = HDD_MECH, .seg = cont, .prefetch_bytes = pf,
                          .cost_s = start - t_s, .media_start_s = start,
                          .data_end_s = start + media_s, .media_end_s = start + media_s + pf_s};
}

/* What serving io at t_s costs. */
static void hdd_plan_io(const struct hdd *h, double t_s, const struct disk_io *io,
                        struct hdd_plan *pl)
{
  uint64_t o = io->offset_bytes, e = io->offset_bytes + io->len_bytes;
  int streaming;
  uint64_t pos = hdd_head_at(h, t_s, &streaming);
  int cont = -1; /* the segment this read continues */
  if (!io->write) {
    for (int i = 0; i < h->nseg; i++) {
      uint64_t lo, hi;
      hdd_seg_range(h, i, pos, &lo, &hi);
      if (hi == lo)
        continue;
      double t_hit = t_s + hdd_overhead_s(h, 0, 1);
      if (o >= lo && e <= hi) {
        *pl = (struct hdd_plan){.kind = HDD_HIT, .seg = i, .media_start_s = t_hit,
                                .data_end_s = t_hit, .media_end_s = t_hit};
        return;
      }
      if (i == h->cur && streaming && o >= lo && o <= pos) {
        double end = h->head_t_s + hdd_media_s(h, h->head_off_bytes, e - h->head_off_bytes);
        end = end > t_hit ? end : t_hit;
        *pl = (struct hdd_plan){.kind = HDD_STREAM, .seg = i, .media_start_s = t_hit,
                                .data_end_s = end, .media_end_s = end};
        return;
      }
      if (o >= lo && o <= hi + HDD_STREAM_GAP_BYTES)
        cont = i;
    }
  }
  uint64_t pf = cont >= 0 ? (uint64_t)h->p.stream_prefetch_bytes : 0;
  hdd_plan_media(h, t_s, pos, io, cont, pf, pl);
}

/* Serve io as planned at t_s; host says whether to report a completion. */
void hdd_execute(struct hdd *h, double t_s, const struct disk_io *io, int host,
                        const struct hdd_plan *pl)
{
  double n = (double)io->len_bytes;
  uint64_t e = io->offset_bytes + io->len_bytes;
  double port_s = n / h->port.rate_bytes_per_s;
  double done_s = pl->media_end_s;
  if (pl->kind != HDD_HIT) {
    hdd_ra_stop(h, t_s);
    disk_busy_add(&h->busy, t_s, pl->media_end_s);
    h->mech_free_s = pl->media_end_s;
    h->head_off_bytes = e + pl->prefetch_bytes;
    h->head_t_s = pl->media_end_s;
  }
  if (!io->write) {
    int j = pl->seg;
    if (pl->kind == HDD_MECH) {
      if (j < 0) { /* a new stream: the least recently used segment */
        j = 0;
        for (int i = 1; i < h->nseg; i++)
          if (h->seg[i].used < h->seg[j].used)
            j = i;
      }
      struct hdd_seg *sg = &h->seg[j];
      if (!(pl->seg >= 0 && io->offset_bytes <= sg->hi_bytes))
        sg->lo_bytes = io->offset_bytes;
      hdd_seg_reset(h, j, (pl->seg >= 0 && sg->stream) || pl->prefetch_bytes > 0);
      sg->hi_bytes = e + pl->prefetch_bytes;
    } else if (pl->kind == HDD_STREAM && e > h->seg[j].hi_bytes) {
      h->seg[j].hi_bytes = e;
    }
    struct hdd_seg *sg = &h->seg[j];
    if (h->p.read_frees >= 1.0) { /* the host took it: refill ahead */
      int streaming;
      uint64_t lo, hi;
      hdd_seg_range(h, j, hdd_head_at(h, t_s, &streaming), &lo, &hi);
      sg->lo_bytes = e > lo ? e : lo;
      sg->hi_bytes = hi > sg->lo_bytes ? hi : sg->lo_bytes;
    }
    if (sg->hi_bytes - sg->lo_bytes > h->seg_cap_bytes)
      sg->lo_bytes = sg->hi_bytes - h->seg_cap_bytes;
    sg->used = ++h->seg_clock;
    if (pl->kind != HDD_HIT)
      hdd_ra_start(h, j);
    if (host)
      hdd_lookahead_want(h, j, e, t_s);
    double ready = pl->data_end_s - port_s > pl->media_start_s ? pl->data_end_s - port_s
                                                               : pl->media_start_s;
    done_s = iface_port_transfer(&h->port, h->link, IFACE_TO_HOST, t_s, ready, n);
    if (done_s < pl->data_end_s)
      done_s = pl->data_end_s;
  } else {
    if (h->p.read_hits_on_write < 1.0)
      hdd_seg_invalidate(h, io->offset_bytes, e);
    else if (host)
      hdd_seg_fill(h, io->offset_bytes, e);
    if (host) {
      double link_end = iface_port_transfer(&h->port, h->link, IFACE_TO_DEVICE, t_s, t_s, n);
      if (link_end > done_s)
        done_s = link_end;
    } else {
      h->dirty_bytes -= n;
    }
  }
  if (host) {
    disk_heap_push(&h->done, done_s, io);
    h->last_write = io->write;
  }
}

/* Take write io into the write-back cache at t_s if it has room (bytes
 * and extents); acknowledged once its data is in the buffer.  1 when
 * taken, 0 when it must wait in the command queue. */
static int hdd_cache_write(struct hdd *h, double t_s, const struct disk_io *io)
{
  double n = (double)io->len_bytes;
  struct hdd_cmd *tail = h->dq_n > 0 ? &h->dq[h->dq_n - 1] : NULL;
  int merge = tail != NULL && tail->io.offset_bytes + tail->io.len_bytes == io->offset_bytes &&
              tail->io.len_bytes + io->len_bytes <= HDD_DESTAGE_MERGE_MAX_BYTES;
  if (!io->write || h->p.write_cache < 1.0 || h->dirty_bytes + n > h->p.cache_bytes ||
      !(merge || (double)h->dq_n < h->p.write_cache_extents))
    return 0;
  double ready = t_s + hdd_overhead_s(h, 1, 1); /* immediately reported: a write hit */
  double ack = iface_port_transfer(&h->port, h->link, IFACE_TO_DEVICE, t_s, ready, n);
  disk_heap_push(&h->done, ack, io);
  h->last_write = 1;
  if (h->p.read_hits_on_write >= 1.0)
    hdd_seg_fill(h, io->offset_bytes, io->offset_bytes + io->len_bytes);
  h->dirty_bytes += n;
  if (merge) {
    tail->io.len_bytes += io->len_bytes;
  } else {
    struct hdd_cmd c = {.io = *io, .submit_s = t_s};
    c.io.tag = 0;
    if (hdd_cmd_append(&h->dq, &h->dq_n, &h->dq_cap, &c) != 0)
      h->dirty_bytes -= n; /* no memory: the extent is dropped from the destage model */
  }
  return 1;
}

/* Queued host writes move into the cache, oldest first, as destaging
 * frees room (the drive fetches their data then). */
static void hdd_cache_admit(struct hdd *h, double t_s)
{
  if (h->p.write_cache < 1.0)
    return;
  for (size_t i = 0; i < h->hq_n;) {
    if (h->hq[i].submit_s <= t_s && hdd_cache_write(h, t_s, &h->hq[i].io))
      hdd_cmd_remove(h->hq, &h->hq_n, i);
    else if (h->hq[i].io.write)
      return; /* no room (or not yet arrived): later writes wait behind it */
    else
      i++;
  }
}

/* Make every scheduling decision due at or before now_s. */
static void hdd_advance(struct hdd *h, double now_s)
{
  while ((h->hq_n > 0 || h->dq_n > 0 || h->la_n > 0) && h->mech_free_s <= now_s) {
    double first = INFINITY;
    if (h->hq_n > 0)
      first = h->hq[0].submit_s;
    if (h->dq_n > 0 && h->dq[0].submit_s < first)
      first = h->dq[0].submit_s;
    first = fmin(first, hdd_lookahead_first_s(h));
    double t = h->mech_free_s > first ? h->mech_free_s : first;
    if (t > now_s)
      break; /* only a look-ahead, not before the read-ahead under way ends */
    if (t > h->mech_free_s) { /* the actuator was idle: maybe spun down */
      double wake_s = disk_power_gap(&h->power, t - h->mech_free_s);
      if (wake_s > 0.0) {
        h->ra_active = h->ra_lookahead = 0;
        for (int i = 0; i < h->nseg; i++)
          h->seg[i] = (struct hdd_seg){0};
        h->la_n = 0;
        h->head_t_s = t + wake_s;
      }
      t += wake_s;
    }
    hdd_cache_admit(h, t);
    if (h->hq_n == 0 && h->dq_n == 0 && h->la_n == 0)
      break;
    size_t win = h->hq_n < (size_t)h->p.ncq_depth ? h->hq_n : (size_t)h->p.ncq_depth;
    int best_dirty = 0;
    size_t best = (size_t)-1;
    struct hdd_plan best_plan = {.cost_s = INFINITY}, pl;
    if (h->hq_n > 0 && t - h->hq[0].submit_s > h->p.ncq_max_wait_s) {
      best = 0;
      hdd_plan_io(h, t, &h->hq[0].io, &best_plan);
    } else {
      for (size_t i = 0; i < win; i++) {
        if (h->hq[i].submit_s > t)
          break;
        hdd_plan_io(h, t, &h->hq[i].io, &pl);
        if (pl.cost_s < best_plan.cost_s) {
          best_plan = pl;
          best = i;
        }
      }
      /* the firmware serves host reads before destaging its write cache:
       * a held extent is written back only while no read waits */
      int read_waits = 0;
      for (size_t i = 0; i < win && !read_waits; i++)
        read_waits = !h->hq[i].io.write && h->hq[i].submit_s <= t;
      for (size_t i = 0; i < h->dq_n && !read_waits; i++) {
        if (h->dq[i].submit_s > t)
          continue;
        hdd_plan_io(h, t, &h->dq[i].io, &pl);
        if (pl.cost_s < best_plan.cost_s) {
          best_plan = pl;
          best = i;
          best_dirty = 1;
        }
      }
      int k = best == (size_t)-1 ? hdd_lookahead_pick(h, t, &best_plan) : -1;
      if (k >= 0) { /* nothing else to do: a stream's look-ahead */
        best = (size_t)k;
        best_dirty = 2;
      }
    }
    if (best == (size_t)-1)
      return; /* a look-ahead not yet due (a host command is always eligible at t) */
    if (best_dirty == 2) {
      hdd_lookahead_run(h, t, (int)best, &best_plan);
      continue;
    }
    struct hdd_cmd c = best_dirty ? h->dq[best] : h->hq[best];
    if (best_dirty)
      hdd_cmd_remove(h->dq, &h->dq_n, best);
    else
      hdd_cmd_remove(h->hq, &h->hq_n, best);
    hdd_execute(h, t, &c.io, !best_dirty, &best_plan);
    if (best_plan.kind == HDD_HIT && h->mech_free_s < t)
      h->mech_free_s = t; /* the controller moved on to t */
  }
}


static double hdd_next_completion_s(const void *priv)
{
  const struct hdd *h = priv;
  double t = disk_heap_min_s(&h->done);
  /* Queued host commands: the next scheduling decision is due when the
   * actuator frees; pop_completion() at that time makes it (and may
   * return 0). */
  if (h->hq_n > 0 && h->mech_free_s < t)
    t = h->mech_free_s;
  return t;
}

static int hdd_pop_completion(void *priv, double now_s, struct disk_io *done)
{
  struct hdd *h = priv;
  hdd_advance(h, now_s);
  return disk_heap_pop_due(&h->done, now_s, done, &h->counts);
}

static void hdd_stats(const void *priv, double now_s, struct disk_stats *out)
{
  const struct hdd *h = priv;
  out->reads = h->counts.reads;
  out->writes = h->counts.writes;
  out->read_bytes = h->counts.read_bytes;
  out->write_bytes = h->counts.write_bytes;
  out->busy_s = disk_busy_at(&h->busy, now_s) + hdd_lookahead_busy_s(h, now_s);
  double idle_since = h->mech_free_s < now_s ? h->mech_free_s : now_s;
  if (h->hq_n > 0 || h->dq_n > 0)
    idle_since = now_s;
  out->energy_J = disk_power_energy_J(&h->power, now_s, out->busy_s, idle_since);
}

static int hdd_set_layout(void *priv, const struct disk_layout *l, char *msg, size_t msg_len)
{
  struct hdd *h = priv;
  struct hdd_geom *g = malloc(sizeof *g);
  if (g == NULL) {
    snprintf(msg, msg_len, "hdd: out of memory for the layout");
    return -1;
  }
  uint64_t blocks = (uint64_t)(h->p.capacity_bytes / 512.0);
  if (hdd_geom_init(g, l, h->p.heads, h->rot_s, h->p.head_switch_s, blocks, msg, msg_len) != 0) {
    free(g);
    return -1;
  }
  free(h->geom);
  h->geom = g;
  if (l->nzones > 0)
    h->cylinders = g->cylinders;
  else if (l->nseek > 0)
    h->cylinders = fmax(h->cylinders, l->seek_cyl[l->nseek - 1] + 1.0);
  return 0;
}

static void hdd_attach_link(void *priv, struct iface_link *link)
{
  ((struct hdd *)priv)->link = link;
}

/* A long run of writes leaves the write cache full: the host writes faster
 * than the drive destages, so every slot freed is taken again.  With
 * several writers this job holds cache_share of it (bytes and extents).
 * The held extents are the job's writes (run_bytes each): random ones
 * scattered uniformly over the region (drawn from the device's stream, so
 * the run is deterministic), sequential ones the most recent, contiguous
 * up to the end of the range.  Read-only jobs leave it as it is. */
static void hdd_precondition(void *priv, const struct disk_precond *p)
{
  struct hdd *h = priv;
  uint64_t run = p->run_bytes;
  if (h->p.write_cache < 1.0 || !(p->write_fraction > 0.0) || run == 0 || run > p->len_bytes ||
      (!p->sequential && run == p->len_bytes))
    return;
  double share = p->cache_share > 0 && p->cache_share < 1 ? p->cache_share : 1.0;
  double max_bytes = fmin(h->p.cache_bytes, h->dirty_bytes + share * h->p.cache_bytes);
  double max_extents = fmin(h->p.write_cache_extents, (double)h->dq_n + share * h->p.write_cache_extents);
  uint64_t slots = p->len_bytes / run;
  for (uint64_t k = 0; (double)h->dq_n < max_extents && h->dirty_bytes + (double)run <= max_bytes; k++) {
    uint64_t at;
    if (p->sequential) { /* backwards from the end of the range */
      if (k >= slots)
        break;
      at = p->offset_bytes + p->len_bytes - (k + 1) * run;
    } else {
      at = p->offset_bytes +
           (uint64_t)(disk_seed_unit(h->seed ^ (0x9e3779b97f4a7c15ULL * (k + 1))) * (double)slots) * run;
    }
    struct hdd_cmd c = {.io = {.offset_bytes = at, .len_bytes = run, .write = 1}, .submit_s = 0.0};
    if (hdd_cmd_append(&h->dq, &h->dq_n, &h->dq_cap, &c) != 0)
      return;
    h->dirty_bytes += (double)run;
  }
}

static void hdd_submit(void *priv, double now_s, const struct disk_io *io)
{
  struct hdd *h = priv;
  hdd_advance(h, now_s);
  hdd_cache_admit(h, now_s);
  if (!hdd_cache_write(h, now_s, io)) {
    struct hdd_cmd c = {.io = *io, .submit_s = now_s};
    hdd_cmd_append(&h->hq, &h->hq_n, &h->hq_cap, &c);
  }
  hdd_advance(h, now_s);
}

const struct disk_model hdd_model = {
    .name = "hdd",
    .params = hdd_params_table,
    .nparams = PARAM_COUNT(hdd_params_table),
    .params_size = sizeof(struct hdd_params),
    .check = hdd_check,
    .capacity_bytes = hdd_capacity_bytes,
    .create = hdd_create,
    .destroy = hdd_destroy,
    .submit = hdd_submit,
    .next_completion_s = hdd_next_completion_s,
    .pop_completion = hdd_pop_completion,
    .stats = hdd_stats,
    .attach_link = hdd_attach_link,
    .precondition = hdd_precondition,
    .set_layout = hdd_set_layout,
};
