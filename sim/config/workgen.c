/* workgen.c - a job's next I/O (workgen.h). */
#include "sim/config/workgen.h"

#include <math.h>

static double workgen_copy_next_off(const struct workgen *g);

void workgen_init(struct workgen *g, const struct job *spec, const struct replay_trace *replay,
                  double region_start, double region_bytes)
{
  *g = (struct workgen){.spec = spec, .replay = replay, .region_start = region_start,
                        .region_bytes = region_bytes};
  g->handle_next = spec->file_handles && workgen_copy_next_off(g) >= 0.0; /* the first file's open */
}

int workgen_more(const struct workgen *g)
{
  if (g->replay)
    return g->next_rec < g->replay->n;
  double todo = g->spec->io_bytes > 0 ? g->spec->io_bytes : g->region_bytes; /* fio io_size */
  if (g->spec->loops > 1)
    todo *= g->spec->loops; /* fio loops: the whole job again */
  return g->spec->time_based || g->issued_bytes < todo || g->handle_next == 2; /* the last close */
}

int workgen_timed(const struct job *spec)
{
  return spec->rate_iops > 0 || spec->thinktime_s > 0 || (spec->replay && spec->replay_depth == 0);
}

double workgen_arrival_s(const struct workgen *g, double start_s, double prev_s)
{
  if (g->replay)
    return start_s + g->replay->v[g->next_rec < g->replay->n ? g->next_rec : g->replay->n - 1].at_s;
  return prev_s + 1.0 / g->spec->rate_iops;
}

static double workgen_pick(const double *bs, const double *w, int n, gsl_rng *rng)
{
  if (n <= 1)
    return bs[0];
  double u = gsl_rng_uniform(rng), acc = 0.0;
  for (int i = 0; i < n; i++) {
    acc += w[i];
    if (u < acc)
      return bs[i];
  }
  return bs[n - 1];
}

static double workgen_pick_bs(const struct job *sp, gsl_rng *rng)
{
  return workgen_pick(sp->bs_bytes, sp->bs_weight, sp->nbs, rng);
}

/* sum of k^-theta, k = 1..n: exact up to WORKGEN_ZETA_EXACT terms, the
 * rest by Euler-Maclaurin (integral, end terms, first derivative term),
 * well within fio's own precision (it stops summing at 10M terms). */
#define WORKGEN_ZETA_EXACT 10000.0
static double workgen_zeta(double n, double theta)
{
  double m = n < WORKGEN_ZETA_EXACT ? n : WORKGEN_ZETA_EXACT, z = 0.0;
  for (double k = 1.0; k <= m; k += 1.0)
    z += pow(k, -theta);
  if (n <= m)
    return z;
  double integral = (pow(n, 1.0 - theta) - pow(m, 1.0 - theta)) / (1.0 - theta);
  double ends = (pow(n, -theta) - pow(m, -theta)) / 2.0;
  double d1 = -theta * (pow(n, -theta - 1.0) - pow(m, -theta - 1.0)) / 12.0;
  return z + integral + ends + d1;
}

#define WORKGEN_GOLDEN_RATIO_64 0x61C8864680B583EBull /* fio hash.h __hash_u64 */

static void workgen_dist_init(struct workgen *g, gsl_rng *rng)
{
  const struct job *sp = g->spec;
  double unit = sp->bs_bytes[0];
  for (int i = 1; i < sp->nbs; i++)
    unit = sp->bs_bytes[i] < unit ? sp->bs_bytes[i] : unit;
  for (int i = 0; i < sp->nbs_w; i++)
    unit = sp->bs_bytes_w[i] < unit ? sp->bs_bytes_w[i] : unit;
  g->dist_unit = unit;
  g->dist_n = floor(g->region_bytes / unit);
  if (g->dist_n < 1.0)
    g->dist_n = 1.0;
  uint64_t n = (uint64_t)g->dist_n;
  if (sp->dist == JOB_DIST_ZIPF) {
    g->zeta_n = workgen_zeta(g->dist_n, sp->dist_param);
    g->zeta_2 = 1.0 + pow(0.5, sp->dist_param);
  }
  if (sp->dist_center >= 0.0)
    g->rand_off = sp->dist == JOB_DIST_NORMAL ? (uint64_t)(g->dist_n * sp->dist_center - g->dist_n * 0.5 + g->dist_n)
                                              : (uint64_t)(g->dist_n * sp->dist_center);
  else if (sp->dist != JOB_DIST_NORMAL && sp->dist != JOB_DIST_ZONED)
    g->rand_off = (uint64_t)gsl_rng_uniform_int(rng, n > 0xffffffffu ? 0xffffffffu : (unsigned long)n);
  g->dist_ready = 1;
}

/* fio's zoned: a zone by its share of the I/Os, uniform inside it. */
static double workgen_zoned(const struct workgen *g, gsl_rng *rng)
{
  const struct job *sp = g->spec;
  double u = gsl_rng_uniform(rng), acc = 0.0, start = 0.0, span = 0.0;
  for (int i = 0; i < sp->nzones; i++) {
    span = sp->zone_abs ? sp->zone_span[i] : sp->zone_span[i] * g->region_bytes;
    acc += sp->zone_access[i];
    if (u < acc || i == sp->nzones - 1)
      break;
    start += span;
  }
  if (start >= g->region_bytes)
    start = 0.0, span = g->region_bytes; /* zoned_abs past the region: fio wraps into the file */
  double ranges = floor((start + span < g->region_bytes ? span : g->region_bytes - start) / g->dist_unit);
  double k = floor(start / g->dist_unit);
  return k + (ranges >= 1.0 ? (double)gsl_rng_uniform_int(rng, (unsigned long)ranges) : 0.0);
}

/* A range index in [0, dist_n) as fio 3.33 draws it (lib/zipf.c, lib/gauss.c). */
static double workgen_dist_range(struct workgen *g, gsl_rng *rng)
{
  const struct job *sp = g->spec;
  if (!g->dist_ready)
    workgen_dist_init(g, rng);
  if (sp->dist == JOB_DIST_ZONED)
    return workgen_zoned(g, rng);
  double n = g->dist_n;
  uint64_t val = 0;
  if (sp->dist == JOB_DIST_ZIPF) {
    double theta = sp->dist_param, alpha = 1.0 / (1.0 - theta);
    double eta = (1.0 - pow(2.0 / n, 1.0 - theta)) / (1.0 - g->zeta_2 / g->zeta_n);
    double u = gsl_rng_uniform(rng), z = u * g->zeta_n;
    val = z < 1.0 ? 1 : z < 1.0 + pow(0.5, theta) ? 2 : 1 + (uint64_t)(n * pow(eta * u - eta + 1.0, alpha));
    val--;
  } else if (sp->dist == JOB_DIST_PARETO) {
    double h = sp->dist_param;
    val = (uint64_t)((n - 1.0) * pow(gsl_rng_uniform(rng), log(h) / log(1.0 - h)));
  } else { /* normal: the mean of 12 uniform draws, then fio's deviation */
    double sum = 0.0;
    unsigned long top = n + 1.0 > 4294967295.0 ? 4294967295ul : (unsigned long)(n + 1.0);
    for (int i = 0; i < 12; i++)
      sum += (double)gsl_rng_uniform_int(rng, top);
    sum = floor((sum + 11.0) / 12.0);
    double sd = ceil(n * sp->dist_param / 100.0);
    sd = sd > floor(n / 2.0) ? floor(n / 2.0) : sd;
    if (sd > 0.0) {
      double dev = floor(sd * gsl_rng_uniform(rng)) - floor(sd / 2.0);
      while (dev + sum >= n && dev != 0.0)
        dev = trunc(dev / 2.0);
      sum += dev;
    }
    val = sum > 0.0 ? (uint64_t)sum : 0;
  }
  val *= WORKGEN_GOLDEN_RATIO_64; /* fio's hash spreads the hot ranges (mod 2^64) */
  return (double)((val + g->rand_off) % (uint64_t)n);
}

/* The trace's next record, its offset wrapped into the region. */
static void workgen_replay(struct workgen *g, struct workgen_io *out)
{
  const struct replay_rec *r = &g->replay->v[g->next_rec];
  double len = (double)r->len_bytes < g->region_bytes ? (double)r->len_bytes : g->region_bytes;
  double off = (double)r->offset_bytes;
  if (off + len > g->region_bytes)
    off = fmod(off, g->region_bytes - len + 1.0);
  *out = (struct workgen_io){.offset_bytes = (uint64_t)(g->region_start + off),
                             .len_bytes = (uint64_t)len, .write = r->write, .rec = g->next_rec};
  if (r->trim) /* no data on the wire, the range to discard */
    out->trim = 1, out->range_bytes = out->len_bytes, out->len_bytes = 0;
  g->next_rec++;
  g->issued_bytes += len;
}

static void workgen_next_in_region(struct workgen *g, gsl_rng *rng, struct workgen_io *out);

/* fio zonemode=strided (io_u.c setup_strided_zone_mode): zone_size bytes
 * in a zone of zone_range, then the next zone zone_range + zone_skip on,
 * from the start again past the region; the skipped bytes count as done
 * (fio io_skip_bytes). */
/* zonemode=zbd, a random write of bs bytes (fio zbd.c zbd_adjust_block,
 * zbd_convert_to_write_zone): below the open limit it opens the zone its
 * random offset falls in (empty: fio reset it when the job started, and
 * resets a full one without I/O) and writes at its start; at the limit it
 * writes at the pointer of a random open zone.  A zone without room for
 * another block is closed.  The offset in the region. */
static double workgen_zbd_write(struct workgen *g, gsl_rng *rng, double bs)
{
  const struct job *sp = g->spec;
  double zs = sp->zbd_zone_bytes < g->region_bytes ? sp->zbd_zone_bytes : g->region_bytes;
  double cap = sp->zbd_cap_bytes > 0 && sp->zbd_cap_bytes < zs ? sp->zbd_cap_bytes : zs;
  double nz = floor(g->region_bytes / zs);
  int limit = sp->max_open_zones > 0 ? sp->max_open_zones : WORKGEN_ZBD_OPEN;
  if (sp->max_open_zones > 0 && sp->shared_file) /* the copies share the target's limit */
    limit = (limit + sp->numjobs - 1) / sp->numjobs;
  if (sp->job_max_open_zones > 0 && sp->job_max_open_zones < limit)
    limit = sp->job_max_open_zones;
  limit = limit > WORKGEN_ZBD_OPEN ? WORKGEN_ZBD_OPEN : limit < 1 ? 1 : limit;
  if (limit > nz)
    limit = (int)nz;
  int i = -1;
  if (g->zbd_nopen < limit) {
    double z = floor(gsl_rng_uniform(rng) * nz) * zs;
    for (int k = 0; k < g->zbd_nopen && i < 0; k++)
      i = g->zbd_zone[k] == z ? k : -1;
    if (i < 0) {
      i = g->zbd_nopen++;
      g->zbd_zone[i] = z, g->zbd_wp[i] = 0.0;
    }
  } else {
    i = (int)gsl_rng_uniform_int(rng, (unsigned long)g->zbd_nopen);
  }
  double off = g->zbd_zone[i] + g->zbd_wp[i];
  g->zbd_wp[i] += bs;
  if (g->zbd_wp[i] + bs > cap) { /* full: closed */
    g->zbd_nopen--;
    g->zbd_zone[i] = g->zbd_zone[g->zbd_nopen], g->zbd_wp[i] = g->zbd_wp[g->zbd_nopen];
  }
  return off;
}

int workgen_meta_writes(enum job_meta m)
{
  return m == JOB_META_CREATE || m == JOB_META_DELETE || m == JOB_META_TRUNC || m == JOB_META_FALLOC;
}

/* A metadata operation (fio's file/dir create, stat, delete, ftruncate): no
 * data travels; the direction is the job's, as fio counts it.  A create or
 * delete appends one metadata block to the NAS filesystem's journal (the
 * region walked sequentially, JOB_META_UPDATE_BYTES at a time); a stat
 * reads the inode block at the region's start, which stays in the NAS's
 * page cache after the first; a truncate rewrites that inode block. */
static void workgen_meta(struct workgen *g, gsl_rng *rng, struct workgen_io *out)
{
  const struct job *sp = g->spec;
  int write = sp->read_frac >= 1.0 ? 0 : sp->read_frac <= 0.0 ? 1 : gsl_rng_uniform(rng) >= sp->read_frac;
  double blk = JOB_META_UPDATE_BYTES, off = 0.0;
  if (sp->meta_op == JOB_META_CREATE || sp->meta_op == JOB_META_DELETE) {
    if (g->next_off + blk > g->region_bytes)
      g->next_off = 0.0;
    off = g->next_off;
    g->next_off += blk;
  }
  /* a truncate is one request on an open file (SET_INFO, SETATTR) */
  static const enum proto_fop fop[] = {[JOB_META_CREATE] = PROTO_FOP_CREATE, [JOB_META_STAT] = PROTO_FOP_STAT,
                                       [JOB_META_DELETE] = PROTO_FOP_DELETE, [JOB_META_TRUNC] = PROTO_FOP_NONE,
                                       [JOB_META_FALLOC] = PROTO_FOP_NONE};
  *out = (struct workgen_io){.offset_bytes = (uint64_t)(g->region_start + off), .len_bytes = 0,
                             .write = write, .rec = -1, .meta = sp->meta_op,
                             .opens = sp->meta_op != JOB_META_TRUNC, .fop = fop[sp->meta_op]};
  g->issued_bytes += sp->bs_bytes[0];
}

static void workgen_next_plain(struct workgen *g, gsl_rng *rng, struct workgen_io *out)
{
  const struct job *sp = g->spec;
  if (!g->replay && sp->meta_op != JOB_META_NONE && sp->meta_op != JOB_META_FALLOC) {
    workgen_meta(g, rng, out);
    return;
  }
  if (!g->replay && sp->zbd_zone_bytes > 0) {
    workgen_next_in_region(g, rng, out);
    if (out->write && sp->access == JOB_RANDOM && (double)out->len_bytes <= g->region_bytes)
      out->offset_bytes = (uint64_t)(g->region_start + workgen_zbd_write(g, rng, (double)out->len_bytes));
    return;
  }
  if (g->replay || sp->zone_size_bytes <= 0) {
    workgen_next_in_region(g, rng, out);
    return;
  }
  double range = sp->zone_range_bytes > 0 ? sp->zone_range_bytes : sp->zone_size_bytes;
  if (g->next_off >= range)
    g->next_off = 0.0; /* zone_size > zone_range: the zone again */
  double start = g->region_start, bytes = g->region_bytes;
  g->region_start = start + g->zone_start;
  g->region_bytes = bytes - g->zone_start < range ? bytes - g->zone_start : range;
  workgen_next_in_region(g, rng, out);
  g->region_start = start, g->region_bytes = bytes;
  g->zone_done += (double)out->len_bytes;
  if (g->zone_done >= sp->zone_size_bytes) { /* the zone is done: on to the next */
    g->zone_done = 0.0;
    g->zone_start += range + sp->zone_skip_bytes;
    g->issued_bytes += sp->zone_skip_bytes;
    if (g->zone_start >= g->region_bytes)
      g->zone_start = 0.0;
    g->next_off = 0.0;
  }
}

/* As workgen_next_in_region's sequential walk and its `opens`: the
 * next data offset in the region (wrapping at its end), or -1 when the
 * job is not a sequential file copy. */
static double workgen_copy_next_off(const struct workgen *g)
{
  const struct job *sp = g->spec;
  if (g->replay || sp->file_bytes <= 0 || sp->access != JOB_SEQ || sp->nbs != 1 || sp->nbs_w > 0 ||
      sp->zone_size_bytes > 0 || sp->zbd_zone_bytes > 0 || sp->meta_op != JOB_META_NONE || sp->trim)
    return -1.0;
  double bs = sp->bs_bytes[0] < g->region_bytes ? sp->bs_bytes[0] : g->region_bytes;
  return g->next_off + bs > g->region_bytes ? 0.0 : g->next_off;
}

/* The next data I/O of a sequential file copy starts a file. */
static int workgen_next_opens(const struct workgen *g)
{
  double off = workgen_copy_next_off(g);
  double bs = g->spec->bs_bytes[0] < g->region_bytes ? g->spec->bs_bytes[0] : g->region_bytes;
  return off >= 0.0 && fmod(off, g->spec->file_bytes) < bs;
}

void workgen_local_files(struct workgen *g)
{
  g->handle_next = -1;
}

int workgen_waits(const struct workgen *g)
{
  return g->handle_next > 0 || g->handle_last || workgen_next_opens(g);
}

/* file_handles: the open of the file the next data I/O starts (a lookup
 * of an existing file to read it, a create to write it: the NAS side of
 * workgen_meta's operations, at the file's first block) or the close of
 * the one just done (no filesystem work: the handle's state only). */
static void workgen_handle(struct workgen *g, struct workgen_io *out)
{
  const struct job *sp = g->spec;
  double off = workgen_copy_next_off(g);
  double at = g->handle_next == 1 ? off : g->last_file_off;
  int write = sp->read_frac < 1.0;
  *out = (struct workgen_io){.offset_bytes = (uint64_t)(g->region_start + at), .len_bytes = 0,
                             .write = write, .rec = -1};
  if (g->handle_next == 1) {
    out->meta = write ? JOB_META_CREATE : JOB_META_STAT;
    out->opens = 1;
    out->fop = write ? PROTO_FOP_CREATE : PROTO_FOP_OPEN;
    g->last_file_off = off;
    g->handle_next = 0;
  } else {
    out->meta = JOB_META_STAT;
    out->fop = write ? PROTO_FOP_CLOSE_WRITTEN : PROTO_FOP_CLOSE;
    g->handle_next = 1;
  }
  g->handle_last = 1;
}

/* fio's trim directions (io_u.c get_rw_ddir): trim and randtrim trim
 * every block; trimwrite trims a block, then writes the same block (the
 * write's last_pos trails the trim's by one block), then moves on.  A
 * falloc job's I/Os are fallocate() calls: no data, their range counted. */
void workgen_next(struct workgen *g, gsl_rng *rng, struct workgen_io *out)
{
  const struct job *sp = g->spec;
  if (g->handle_next > 0) {
    workgen_handle(g, out);
    return;
  }
  if (g->replay || (sp->trim == 0 && sp->meta_op != JOB_META_FALLOC)) {
    workgen_next_plain(g, rng, out);
    if (sp->file_handles && g->handle_next >= 0 && workgen_copy_next_off(g) >= 0.0) {
      out->opens = 0, out->fop = PROTO_FOP_NONE; /* its file's open carried it */
      g->handle_last = 0;
      if (workgen_next_opens(g))
        g->handle_next = 2; /* the file is done: its close */
    }
    return;
  }
  if (g->tw_pending) { /* trimwrite: the write of the block just trimmed */
    g->tw_pending = 0;
    *out = (struct workgen_io){.offset_bytes = g->tw_off, .len_bytes = g->tw_len, .write = 1, .rec = -1};
    g->issued_bytes += (double)g->tw_len;
  } else {
    workgen_next_plain(g, rng, out);
    if (sp->trim) {
      out->trim = 1, out->write = 0;
      if (sp->trim == 2) { /* fio io_bytes_exceeded counts a trimwrite job's writes only */
        g->tw_pending = 1, g->tw_off = out->offset_bytes, g->tw_len = out->len_bytes;
        g->issued_bytes -= (double)out->len_bytes;
      }
    }
  }
  if (sp->meta_op == JOB_META_FALLOC) /* a file operation on the NAS (cycles_per_open), as the
                                         metadata engines'; workgen_meta_writes: its extent block */
    out->meta = JOB_META_FALLOC, out->opens = 1, out->fop = PROTO_FOP_NONE; /* one request */
  if (out->trim || out->meta == JOB_META_FALLOC)
    out->range_bytes = out->len_bytes, out->len_bytes = 0;
}

/* fio's random map (its default; off with norandommap): within a pass over
 * the region every block is done once, in random order, before any block
 * repeats (man fio, norandommap: "Normally fio will cover every block of
 * the file when doing random I/O"; fio 3.33 lib/axmap.c keeps a bitmap of
 * the blocks done and takes the next free block after a random pick that
 * lands on a done one).  IOZone's random tests likewise do each record
 * once per pass in shuffled order (iozone.c random_perf_test; recalled,
 * medium confidence).  Here a pass is a keyed pseudo-random permutation of
 * its units, in O(1) memory: a balanced Feistel network over the smallest
 * power of four >= n, cycle-walked back below n (Black and Rogaway,
 * "Ciphers with arbitrary finite domains", CT-RSA 2002: the domain is
 * < 4n, so fewer than 4 steps on average).  Each pass draws a new key. */
#define WORKGEN_FEISTEL_ROUNDS 6 /* Luby-Rackoff: 4 rounds make a strong pseudo-random
                                    permutation; 2 more margin for a hash, not a random
                                    function, as the round */

/* splitmix64's finaliser (Steele, Lea and Flood, OOPSLA 2014): the round function. */
static uint64_t workgen_mix64(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* The pass's unit i, for a pass over n units keyed key: a bijection of [0, n). */
static uint64_t workgen_perm(uint64_t key, uint64_t n, uint64_t i)
{
  int half = 0; /* bits of each half: 4^half >= n (n < 2^62: a region below 4 EiB) */
  while (half < 31 && (1ull << (2 * half)) < n)
    half++;
  uint64_t mask = (1ull << half) - 1;
  do {
    uint64_t l = i >> half, r = i & mask;
    for (int k = 0; k < WORKGEN_FEISTEL_ROUNDS; k++) {
      uint64_t t = l ^ (workgen_mix64(r ^ (key + (uint64_t)(k + 1) * WORKGEN_GOLDEN_RATIO_64)) & mask);
      l = r, r = t;
    }
    i = l << half | r;
  } while (i >= n); /* cycle-walk: i came from [0, n), so the walk returns to it */
  return i;
}

/* The next unit of the pass over n units of the region, a new pass (and key)
 * when the last is done or the units changed. */
static uint64_t workgen_map_next(struct workgen *g, gsl_rng *rng, uint64_t n)
{
  if (g->map_i >= g->map_n || g->map_n != n || g->map_start != g->region_start) {
    uint64_t hi = (uint64_t)(gsl_rng_uniform(rng) * 4294967296.0);
    g->map_key = hi << 32 | (uint64_t)(gsl_rng_uniform(rng) * 4294967296.0);
    g->map_n = n, g->map_i = 0, g->map_start = g->region_start;
  }
  return workgen_perm(g->map_key, n, g->map_i++);
}

/* Whether the job's random offsets follow the map.  Not with norandommap
 * (each offset drawn with replacement), nor with a non-uniform
 * random_distribution (man fio: "If a non-uniform model is used, fio will
 * disable use of the random map").  Nor with mixed block sizes: fio keeps
 * its map at the smallest block and cuts an I/O short at the first block
 * already done (io_u.c mark_random_map), which needs a bitmap of the
 * region; those draw with replacement here. */
static int workgen_maps(const struct job *sp)
{
  if (sp->norandommap || sp->dist != JOB_DIST_UNIFORM || sp->nbs > 1)
    return 0;
  for (int i = 0; i < sp->nbs_w; i++)
    if (sp->bs_bytes_w[i] != sp->bs_bytes[0])
      return 0;
  return 1;
}

static void workgen_next_in_region(struct workgen *g, gsl_rng *rng, struct workgen_io *out)
{
  if (g->replay) {
    workgen_replay(g, out);
    return;
  }
  const struct job *sp = g->spec;
  double bs;
  int write;
  if (sp->nbs_w > 0) { /* per-direction sizes: the direction first */
    write = sp->read_frac >= 1.0 ? 0 : sp->read_frac <= 0.0 ? 1 : gsl_rng_uniform(rng) >= sp->read_frac;
    bs = write ? workgen_pick(sp->bs_bytes_w, sp->bs_weight_w, sp->nbs_w, rng) : workgen_pick_bs(sp, rng);
  } else {
    bs = workgen_pick_bs(sp, rng);
    write = sp->read_frac >= 1.0 ? 0 : sp->read_frac <= 0.0 ? 1 : gsl_rng_uniform(rng) >= sp->read_frac;
  }
  if (bs > g->region_bytes)
    bs = g->region_bytes;
  double off;
  double slots = floor(g->region_bytes / bs);
  switch (sp->access) {
  case JOB_RANDOM:
    if (sp->random_run > 1 && g->run_left > 0 && g->next_off + bs <= g->region_bytes) {
      off = g->next_off; /* fio rw=randread:N: the run goes on */
      g->run_left--;
    } else if (sp->dist != JOB_DIST_UNIFORM) {
      off = workgen_dist_range(g, rng) * g->dist_unit; /* aligned to the smallest block, as fio */
      if (off + bs > g->region_bytes)
        off = g->region_bytes >= bs ? floor((g->region_bytes - bs) / g->dist_unit) * g->dist_unit : 0.0;
      g->run_left = sp->random_run - 1;
    } else if (workgen_maps(sp)) { /* a unit is a block, or a rw=randread:N run of N blocks */
      double run = sp->random_run > 1 ? sp->random_run : 1.0, units = ceil(slots / run);
      off = bs * run * (double)workgen_map_next(g, rng, (uint64_t)(units > 1.0 ? units : 1.0));
      g->run_left = sp->random_run - 1;
    } else {
      off = bs * (double)gsl_rng_uniform_int(rng, (unsigned long)(slots > 1 ? slots : 1));
      g->run_left = sp->random_run - 1;
    }
    g->next_off = off + bs;
    break;
  case JOB_BACKWARD:
    if (g->next_off < bs)
      g->next_off = slots * bs;
    g->next_off -= bs;
    off = g->next_off;
    break;
  case JOB_STRIDE: {
    if (sp->stride_bytes <= 0) { /* stride 0: the same record again (IOZone record re-write) */
      off = 0.0;
      break;
    }
    double stride = sp->stride_bytes > bs ? sp->stride_bytes : bs;
    off = g->next_off;
    g->next_off += stride;
    if (g->next_off + bs > g->region_bytes)
      g->next_off = fmod(g->next_off, stride) + bs < stride ? fmod(g->next_off, stride) + bs : 0.0;
    break;
  }
  default:
    if (g->next_off + bs > g->region_bytes)
      g->next_off = 0.0;
    off = g->next_off;
    g->next_off += bs;
    break;
  }
  *out = (struct workgen_io){.offset_bytes = (uint64_t)(g->region_start + off),
                             .len_bytes = (uint64_t)bs, .write = write, .rec = -1};
  /* a pass over its file (file_bytes issued, in whatever order) opens it
   * first; a sequential pass's first I/O is at the file's start */
  out->opens = sp->file_bytes > 0 && fmod(g->issued_bytes, sp->file_bytes) < bs;
  out->fop = out->opens ? PROTO_FOP_OPEN : PROTO_FOP_NONE;
  g->issued_bytes += bs;
}
