/* fio_dir.c - fio options whose value may differ per direction, and
 * random_distribution, and fio's zones (zonemode=strided, zonemode=zbd).
 *
 * fio writes "READ,WRITE,TRIM" for bs, bssplit, rate and rate_iops: a
 * value not ended by a comma goes on to the next directions, an empty one
 * is the default ("bs=,8k": reads 4 KiB, writes 8 KiB).  nastwin models no
 * TRIM, so the third value is checked and not used.  random_distribution
 * follows fio 3.33 (lib/zipf.c, lib/gauss.c, options.c zone_split_ddir);
 * workgen.c draws the offsets. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/fio_lang.h"
#include "sim/config/workload.h"
#include "sim/config/workload_build.h"

/* v split at commas into the read and write values: *w NULL when writes
 * take the read value; "" for the default. */
static int fio_dir_split(const char *v, char *r, char *w, size_t n, int *w_set)
{
  const char *c1 = strchr(v, ',');
  snprintf(r, n, "%.*s", (int)(c1 ? (size_t)(c1 - v) : strlen(v)), v);
  *w_set = 0;
  w[0] = '\0';
  if (!c1)
    return 0;
  const char *c2 = strchr(c1 + 1, ',');
  snprintf(w, n, "%.*s", (int)(c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1)), c1 + 1);
  if (c2 && strchr(c2 + 1, ','))
    return -1; /* more than read, write, trim */
  *w_set = 1;
  return 0;
}

/* One bssplit list "4k/10:64k/50:32k/40" into bs/weight; empty shares
 * split what is left. */
static int fio_bssplit_list(const char *key, const char *v, double *bs_out, double *w_out, int *n_out,
                            char *msg, size_t msg_len)
{
  double bs[JOB_MAX_BS], pct[JOB_MAX_BS];
  int has_pct[JOB_MAX_BS];
  int n = 0;
  char buf[FIO_LINE_MAX];
  snprintf(buf, sizeof buf, "%s", v);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
    if (n >= JOB_MAX_BS)
      return fio_msg(msg, msg_len, "%s: bad value '%s' (at most %d block sizes)", key, v, JOB_MAX_BS);
    char *slash = strchr(tok, '/');
    if (slash)
      *slash = '\0';
    if (fio_parse_size(tok, &bs[n]) != 0 || bs[n] < 1.0 || bs[n] > FIO_MAX_BS_BYTES)
      return fio_msg(msg, msg_len, "%s: bad block size '%s' in '%s' (allowed: %s, 1 B .. 1 GiB)", key, tok, v,
                     FIO_SIZE_ALLOWED);
    has_pct[n] = slash && slash[1];
    pct[n] = 0.0;
    if (has_pct[n]) {
      long p = 0;
      if (fio_parse_int(slash + 1, 0, 100, &p) != 0)
        return fio_msg(msg, msg_len, "%s: bad percentage '%s' in '%s' (allowed: integer 0..100)", key,
                       slash + 1, v);
      pct[n] = (double)p;
    }
    n++;
  }
  if (n == 0)
    return fio_msg(msg, msg_len, "%s: empty value (allowed: 'size/percent:size/percent...')", key);
  double sum = 0.0;
  int nfree = 0;
  for (int i = 0; i < n; i++) {
    sum += pct[i];
    nfree += !has_pct[i];
  }
  if (sum > 100.0 || (nfree == 0 && sum != 100.0))
    return fio_msg(msg, msg_len, "%s: bad value '%s' (percentages add up to %g, must be 100)", key, v, sum);
  int kept = 0;
  memset(bs_out, 0, JOB_MAX_BS * sizeof *bs_out);
  memset(w_out, 0, JOB_MAX_BS * sizeof *w_out);
  for (int i = 0; i < n; i++) {
    double p = has_pct[i] ? pct[i] : (100.0 - sum) / nfree;
    if (p <= 0.0)
      continue;
    bs_out[kept] = bs[i];
    w_out[kept] = p / 100.0;
    kept++;
  }
  if (kept == 0)
    return fio_msg(msg, msg_len, "%s: bad value '%s' (no block size has a share above 0 %%)", key, v);
  *n_out = kept;
  return 0;
}

/* bs=SIZE or bssplit=LIST for one direction ("" = fio's default 4 KiB). */
static int fio_bs_one(const char *key, const char *v, int split, double *bs, double *w, int *n, char *msg,
                      size_t msg_len)
{
  if (split && *v)
    return fio_bssplit_list(key, v, bs, w, n, msg, msg_len);
  double d = 4096.0; /* fio's bs default */
  if (*v && (fio_parse_size(v, &d) != 0 || d < 1.0 || d > FIO_MAX_BS_BYTES))
    return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: %s, 1 B .. 1 GiB)",
                   key, v, FIO_SIZE_ALLOWED);
  memset(bs, 0, JOB_MAX_BS * sizeof *bs);
  memset(w, 0, JOB_MAX_BS * sizeof *w);
  bs[0] = d, w[0] = 1.0, *n = 1;
  return 0;
}

static int fio_set_bs_dirs(struct job *j, const char *key, const char *r, const char *w, int w_set,
                           const char *trim, char *msg, size_t msg_len)
{
  int split = !strcmp(key, "bssplit");
  double tb[JOB_MAX_BS], tw[JOB_MAX_BS];
  int tn = 0;
  if (trim && fio_bs_one(key, trim, split, tb, tw, &tn, msg, msg_len) != 0)
    return -1; /* checked, not used: no TRIM */
  if (fio_bs_one(key, r, split, j->bs_bytes, j->bs_weight, &j->nbs, msg, msg_len) != 0)
    return -1;
  j->nbs_w = 0;
  if (!w_set || !strcmp(r, w))
    return 0;
  return fio_bs_one(key, w, split, j->bs_bytes_w, j->bs_weight_w, &j->nbs_w, msg, msg_len);
}

/* rate (bytes/s) or rate_iops for one direction: "" = no limit (0). */
static int fio_rate_one(const char *key, const char *v, double *out, char *msg, size_t msg_len)
{
  *out = 0.0;
  if (!*v)
    return 0;
  if (!strcmp(key, "rate_iops")) {
    long n = 0;
    if (fio_parse_int(v, 0, 1L << 31, &n) != 0)
      return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: integer >= 0, READ,WRITE[,TRIM] per direction)",
                     key, v);
    *out = (double)n;
    return 0;
  }
  if (fio_parse_size(v, out) != 0 || *out < 0.0)
    return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: bytes per second, %s; READ,WRITE[,TRIM] per direction)",
                   key, v, FIO_SIZE_ALLOWED);
  return 0;
}

static int fio_set_rate_dirs(struct job *j, const char *key, const char *r, const char *w, int w_set,
                             const char *trim, char *msg, size_t msg_len)
{
  double rd = 0.0, wr = 0.0, tr = 0.0;
  if (fio_rate_one(key, r, &rd, msg, msg_len) != 0 || (w_set && fio_rate_one(key, w, &wr, msg, msg_len) != 0) ||
      (trim && fio_rate_one(key, trim, &tr, msg, msg_len) != 0))
    return -1;
  int iops = !strcmp(key, "rate_iops");
  *(iops ? &j->rate_iops : &j->rate_bytes) = rd;
  *(iops ? &j->rate_iops_w : &j->rate_bytes_w) = w_set ? wr : -1.0;
  return 0;
}

/* zoned:A/S:A/S... (shares of the I/Os / of the region in %, or sizes
 * for zoned_abs); empty shares split what is left, as fio does. */
static int fio_set_zoned(struct job *j, const char *key, const char *v, int abs, char *msg, size_t msg_len)
{
  char buf[FIO_LINE_MAX];
  snprintf(buf, sizeof buf, "%s", strchr(v, ':') + 1);
  double acc[JOB_MAX_ZONES], span[JOB_MAX_ZONES];
  int n = 0, acc_free = 0, span_free = 0;
  double acc_sum = 0.0, span_sum = 0.0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
    if (n >= JOB_MAX_ZONES)
      return fio_msg(msg, msg_len, "%s: '%s' has more than %d zones", key, v, JOB_MAX_ZONES);
    char *slash = strchr(tok, '/');
    if (slash)
      *slash = '\0';
    long a = -1;
    if (*tok && fio_parse_int(tok, 0, 100, &a) != 0)
      return fio_msg(msg, msg_len, "%s: bad access share '%s' in '%s' (allowed: integer 0..100)", key, tok, v);
    double s = -1.0;
    const char *sv = slash ? slash + 1 : "";
    long sp = 0;
    if (*sv && (abs ? fio_parse_size(sv, &s) != 0 || s <= 0.0 : fio_parse_int(sv, 0, 100, &sp) != 0))
      return fio_msg(msg, msg_len, "%s: bad zone size '%s' in '%s' (allowed: %s)", key, sv, v,
                     abs ? FIO_SIZE_ALLOWED : "integer 0..100, a share of the region");
    if (*sv && !abs)
      s = (double)sp;
    acc[n] = (double)a, span[n] = s;
    acc_free += a < 0, span_free += s < 0.0;
    acc_sum += a < 0 ? 0.0 : (double)a, span_sum += s < 0.0 ? 0.0 : s;
    n++;
  }
  if (n == 0 || acc_sum > 100.0 || (!abs && span_sum > 100.0) || (acc_free == 0 && acc_sum < 100.0) ||
      (abs && span_free > 0))
    return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: %s:ACCESS/%s:..., access shares adding up to 100)",
                   key, v, abs ? "zoned_abs" : "zoned", abs ? "SIZE" : "SHARE");
  for (int i = 0; i < n; i++) {
    j->zone_access[i] = (acc[i] < 0 ? (100.0 - acc_sum) / acc_free : acc[i]) / 100.0;
    j->zone_span[i] = abs ? span[i] : (span[i] < 0.0 ? (100.0 - span_sum) / span_free : span[i]) / 100.0;
  }
  j->nzones = n;
  j->zone_abs = abs;
  j->dist = JOB_DIST_ZONED;
  return 0;
}

static int fio_set_distribution(struct job *j, const char *key, const char *v, char *msg, size_t msg_len)
{
  char r[FIO_LINE_MAX], w[FIO_LINE_MAX];
  int w_set = 0;
  if (fio_dir_split(v, r, w, sizeof r, &w_set) != 0 || (w_set && *w && strcmp(r, w) != 0))
    return fio_msg(msg, msg_len, "%s: '%s': a different distribution for writes is not modelled; give one",
                   key, v);
  j->dist = JOB_DIST_UNIFORM, j->nzones = 0, j->dist_center = -1.0;
  if (!strcmp(r, "random"))
    return 0;
  if (!strncmp(r, "zoned:", 6) || !strncmp(r, "zoned_abs:", 10))
    return fio_set_zoned(j, key, r, r[5] == '_', msg, msg_len);
  static const struct {
    const char *name;
    enum job_dist d;
  } names[] = {{"zipf", JOB_DIST_ZIPF}, {"pareto", JOB_DIST_PARETO}, {"normal", JOB_DIST_NORMAL},
               {"gauss", JOB_DIST_NORMAL}};
  char *colon = strchr(r, ':');
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (!colon || strncmp(r, names[i].name, (size_t)(colon - r)) || names[i].name[colon - r])
      continue;
    char *end = NULL;
    double p = strtod(colon + 1, &end), c = -1.0;
    if (end && *end == ':')
      c = strtod(end + 1, &end);
    int bad = end == colon + 1 || *end || !isfinite(p) || (c != -1.0 && !(c >= 0.0 && c <= 1.0));
    if (names[i].d == JOB_DIST_ZIPF)
      bad |= !(p > 0.0) || p == 1.0;
    else if (names[i].d == JOB_DIST_PARETO)
      bad |= !(p > 0.0 && p < 1.0);
    else
      bad |= !(p >= 0.0 && p <= 100.0);
    if (bad)
      return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: zipf:THETA > 0 not 1, pareto:H in (0, 1), "
                     "normal:DEV in 0..100, each [:CENTER in 0..1])", key, v);
    j->dist = names[i].d, j->dist_param = p, j->dist_center = c;
    return 0;
  }
  return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: random, zipf:THETA, pareto:H, normal:DEV, "
                 "zoned:A/S:..., zoned_abs:A/SIZE:...)", key, v);
}

/* zonemode (none, strided, zbd), zonesize, zonerange, zoneskip,
 * zonecapacity, max_open_zones, job_max_open_zones, read_beyond_wp. */
static int fio_set_zone_option(struct job *j, const char *key, const char *v, char *msg, size_t msg_len)
{
  if (!strcmp(key, "zonemode")) {
    static const char *const modes[] = {"none", "strided", "zbd"};
    for (int i = 0; i < 3; i++)
      if (!strcmp(v, modes[i])) {
        j->zone_mode = i + 1;
        return 0;
      }
    return fio_msg(msg, msg_len, "zonemode: bad value '%s' (allowed: none, strided, zbd)", v);
  }
  if (!strcmp(key, "read_beyond_wp")) {
    if (strcmp(v, "0") && strcmp(v, "1"))
      return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: 0 or 1)", key, v);
    j->read_beyond_wp = v[0] == '1';
    return 0;
  }
  if (!strcmp(key, "max_open_zones") || !strcmp(key, "job_max_open_zones")) {
    long n = 0;
    if (fio_parse_int(v, 0, 1L << 20, &n) != 0)
      return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: integer >= 0, 0 = no limit)", key, v);
    *(key[0] == 'm' ? &j->max_open_zones : &j->job_max_open_zones) = (int)n;
    return 0;
  }
  double d = 0.0;
  if (fio_parse_size(v, &d) != 0 || d < (strcmp(key, "zoneskip") ? 1.0 : 0.0) || d > FIO_MAX_SIZE_BYTES)
    return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: %s, %s .. 1 PiB)", key, v, FIO_SIZE_ALLOWED,
                   strcmp(key, "zoneskip") ? "1 B" : "0");
  *(!strcmp(key, "zonesize")       ? &j->zone_size_bytes
    : !strcmp(key, "zonerange")    ? &j->zone_range_bytes
    : !strcmp(key, "zonecapacity") ? &j->zbd_cap_bytes
                                   : &j->zone_skip_bytes) = d;
  return 0;
}

/* zonemode=zbd once the job's options are all set: zones as fio emulates
 * them on a target that is not zoned (a NAS file or LUN). */
int fio_zbd_finish(struct job *j, char *msg, size_t msg_len)
{
  if ((j->size_zones > 0 || j->offset_zones > 0) && j->zone_mode != 3)
    return fio_msg(msg, msg_len, "size or offset in zones ('Nz') needs zonemode=zbd");
  if (j->zone_mode != 3)
    return 0;
  if (j->zone_size_bytes <= 0.0) /* the device's own zones: fio_zbd_default_note says which */
    j->zone_size_bytes = FIO_ZBD_DEVICE_ZONE_BYTES;
  if (j->zone_size_bytes < 512.0)
    return fio_msg(msg, msg_len, "zonemode=zbd: zonesize %.0f B is too small (allowed: at least 512 B; fio: \"zone "
                   "size must be at least 512 bytes\")", j->zone_size_bytes);
  /* zbd.c zbd_adjust_block: a read needs written data below a write
   * pointer; on emulated zones (init_zone_info: wp = start, all empty) a
   * read-only job finds none (zbd_find_zone fails), so fio ends it at
   * once (io_u_eof) with no I/O. */
  if (j->read_frac >= 1.0 && !j->read_beyond_wp && !j->trim)
    j->client_only = JOB_CLIENT_EOF;
  else if (j->read_frac > 0.0 && !j->read_beyond_wp)
    return fio_msg(msg, msg_len, "zonemode=zbd: a job that reads and writes with read_beyond_wp=0 reads only "
                   "what it wrote below the zones' write pointers, which is not modelled; give read_beyond_wp=1");
  if (j->trim == 1) /* fio io_u.c do_io_u_trim -> zbd_do_io_u_trim: __zbd_reset_zone issues nothing for
                       an emulated zone (ZBD_NONE) and the trim completes at once; zbd_adjust_block sends a
                       random trim only to a zone with data, paced by what the writers (flow) fill */
    return fio_msg(msg, msg_len, "zonemode=zbd: a trim resets its zone's write pointer, which on the zones "
                   "fio emulates on a NAS file or LUN is fio's own bookkeeping: no I/O reaches the NAS, and "
                   "how many trims fio makes depends on the zones its writers fill at the same time (flow), "
                   "which is not modelled (not supported)");
  j->zbd_zone_bytes = j->zone_size_bytes;
  if (j->size_zones > 0)
    j->size_bytes = j->size_zones * j->zone_size_bytes, j->size_frac = 0.0;
  if (j->offset_zones > 0)
    j->offset_bytes = j->offset_zones * j->zone_size_bytes, j->offset_frac = 0.0;
  j->size_zones = j->offset_zones = 0.0;
  j->zone_size_bytes = j->zone_range_bytes = j->zone_skip_bytes = 0.0; /* not strided */
  return 0;
}

void fio_zbd_default_note(const struct job *j, const char *file, int line, char *out, size_t n)
{
  out[0] = '\0';
  if (j->zone_mode == 3 && j->zone_size_bytes <= 0.0)
    snprintf(out, n, "%s:%d: warning: job '%s': zonemode=zbd without zonesize: fio takes the zone size from "
             "the zoned device, and nastwin's drive models declare no write zones, so it assumes %.0f MiB "
             "zones, a host-managed SMR drive's (give zonesize= for another device)\n",
             file, line, j->name, FIO_ZBD_DEVICE_ZONE_BYTES / 1048576.0);
}

int fio_set_direction_option(struct job *j, const char *key, const char *v, char *msg, size_t msg_len)
{
  if (!strcmp(key, "zonemode") || !strcmp(key, "zonesize") || !strcmp(key, "zonerange") ||
      !strcmp(key, "zoneskip") || !strcmp(key, "zonecapacity") || !strcmp(key, "max_open_zones") ||
      !strcmp(key, "job_max_open_zones") || !strcmp(key, "read_beyond_wp"))
    return fio_set_zone_option(j, key, v, msg, msg_len);
  int bs = !strcmp(key, "bs") || !strcmp(key, "blocksize") || !strcmp(key, "bssplit");
  int rate = !strcmp(key, "rate") || !strcmp(key, "rate_iops");
  if (!strcmp(key, "random_distribution"))
    return fio_set_distribution(j, key, v, msg, msg_len);
  if (!bs && !rate)
    return 1;
  char r[FIO_LINE_MAX], w[FIO_LINE_MAX];
  int w_set = 0;
  if (fio_dir_split(v, r, w, sizeof r, &w_set) != 0)
    return fio_msg(msg, msg_len, "%s: bad value '%s' (at most READ,WRITE,TRIM)", key, v);
  const char *c1 = strchr(v, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
  const char *trim = c2 ? c2 + 1 : NULL;
  if (bs)
    return fio_set_bs_dirs(j, key, r, w, w_set, trim, msg, msg_len);
  return fio_set_rate_dirs(j, key, r, w, w_set, trim, msg, msg_len);
}

/* The mean block size of a bs/weight list (weights summing to 1). */
double fio_mean_bs(const double *bs, const double *w, int n)
{
  double m = 0.0;
  for (int i = 0; i < n; i++)
    m += bs[i] * w[i];
  return m > 0.0 ? m : (bs[0] > 0 ? bs[0] : 4096.0);
}

/* Each direction's limit (rate in bytes/s at its mean block, rate_iops;
 * the lower wins, as fio caps both) into one rate_iops for the job.  fio
 * paces each direction on its own and, when one is ahead of its rate,
 * issues the other (io_u.c rate_ddir): a mixed job with both directions
 * capped runs at the sum of the caps, in their ratio, whatever rwmixread
 * says.  With one direction capped the other runs free in fio; nastwin's
 * single open loop keeps the mix and paces the job by the capped one. */
void fio_fold_rates(struct job *j, double mean_r, double mean_w)
{
  double lim[2];
  double bytes[2] = {j->rate_bytes, j->rate_bytes_w >= 0 ? j->rate_bytes_w : j->rate_bytes};
  double iops[2] = {j->rate_iops, j->rate_iops_w >= 0 ? j->rate_iops_w : j->rate_iops};
  double mean[2] = {mean_r, mean_w}, share[2] = {j->read_frac, 1.0 - j->read_frac};
  double total = 0.0;
  for (int d = 0; d < 2; d++) {
    double b = bytes[d] > 0 ? bytes[d] / mean[d] : 0.0;
    lim[d] = b > 0 && (iops[d] <= 0 || b < iops[d]) ? b : iops[d];
    if (lim[d] > 0 && share[d] > 0) {
      double t = lim[d] / share[d];
      total = total > 0 && total < t ? total : t;
    }
  }
  if (share[0] > 0 && share[1] > 0 && lim[0] > 0 && lim[1] > 0) {
    total = lim[0] + lim[1];
    j->read_frac = lim[0] / total;
  }
  j->rate_iops = total;
  j->rate_bytes = 0.0, j->rate_bytes_w = -1.0, j->rate_iops_w = -1.0;
}

int fio_meta_finish(struct job *j, char *msg, size_t msg_len)
{
  if (j->meta_op == JOB_META_NONE || j->meta_op == JOB_META_FALLOC)
    return 0; /* falloc: one fallocate per block of the job's region, as fio issues them */
  if (j->meta_op == JOB_META_TRUNC) { /* fio's ftruncate.c: a read completes doing nothing */
    if (j->read_frac > 0.0)
      return fio_msg(msg, msg_len, "ioengine=ftruncate: fio's engine completes reads without any operation "
                     "(only writes truncate); give rw=write or rw=randwrite");
    return 0; /* an ftruncate(offset + len) per block of the job's size */
  }
  /* fileoperations.c: the open/stat/unlink of each file is the timed
   * operation, counted as a read unless the job only writes (td_read
   * first); its data I/O is fake (completes at once) and not simulated. */
  if (j->read_frac > 0.0)
    j->read_frac = 1.0, j->rw_mixed = 0;
  double n = j->nrfiles > 1 ? j->nrfiles : 1.0;
  j->nbs = 1, j->nbs_w = 0;
  j->bs_bytes[0] = JOB_META_UPDATE_BYTES, j->bs_weight[0] = 1.0;
  j->size_bytes = n * JOB_META_UPDATE_BYTES, j->size_frac = 0.0;
  j->io_bytes = 0.0, j->number_ios = 0.0, j->rw_modifier = 0.0;
  j->access = JOB_SEQ;
  return 0;
}

int fio_set_latency(struct job *j, const char *key, const char *v, char *msg, size_t msg_len)
{
  double d = 0.0;
  if (!strcmp(key, "latency_run")) {
    j->lat_run = !v || !*v || strcmp(v, "0") != 0;
    return 0;
  }
  if (!strcmp(key, "latency_percentile")) {
    char *end = NULL;
    d = v ? strtod(v, &end) : 0.0;
    if (!v || end == v || *end || !(d >= 0.0 && d <= 100.0))
      return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: a percentage 0 .. 100)", key, v ? v : "");
    j->lat_pct = d;
    return 0;
  }
  if (!v || fio_parse_time(v, 1e-6, &d) != 0 || d < 0.0 || d > 86400.0)
    return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: a time >= 0, plain number = microseconds, or "
                   "with suffix us, ms, s, m, h)", key, v ? v : "");
  *(!strcmp(key, "latency_target") ? &j->lat_target_s : &j->lat_window_s) = d;
  return 0;
}
