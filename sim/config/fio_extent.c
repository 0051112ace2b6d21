/* fio_extent.c - fio's size, filesize, offset, offset_increment and
 * bsrange values (fio_lang.h): bytes, a percentage of the target, whole
 * zones, a range of block sizes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/config/fio_lang.h"

/* size=N% / offset=N%: a share of the target in [lo, 100]. */
static int fio_percent(const char *v, double lo, double *frac)
{
  double d = 0.0;
  const char *e = NULL;
  if (fio_number(v, &d, &e) != 0 || strcmp(e, "%") != 0 || d < lo || d > 100.0 || (lo > 0 && d <= 0))
    return -1;
  *frac = d / 100.0;
  return 0;
}

/* bsrange=LO-HI (or LO:HI): fio draws a multiple of LO up to HI, uniformly. */
int fio_set_bsrange(struct job *j, const char *key, const char *v, char *msg, size_t msg_len)
{
  char buf[128];
  snprintf(buf, sizeof buf, "%s", v);
  char *sep = strpbrk(buf, "-:");
  double lo = 0.0, hi = 0.0;
  if (strchr(v, ',') || !sep)
    return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: LO-HI, one range for reads and writes)", key, v);
  *sep = '\0';
  if (fio_parse_size(buf, &lo) != 0 || fio_parse_size(sep + 1, &hi) != 0 || lo < 1.0 || hi > FIO_MAX_BS_BYTES)
    return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: LO-HI, each %s, 1 B .. 1 GiB)", key, v,
                   FIO_SIZE_ALLOWED);
  if (lo > hi) {
    double t = lo;
    lo = hi, hi = t; /* fio swaps them */
  }
  int n = (int)floor(hi / lo);
  if (n > JOB_MAX_BS)
    return fio_msg(msg, msg_len, "%s: '%s' spans %d block sizes (multiples of %.0f B); at most %d are "
                   "modelled, use bssplit", key, v, n, lo, JOB_MAX_BS);
  memset(j->bs_bytes, 0, sizeof j->bs_bytes);
  memset(j->bs_weight, 0, sizeof j->bs_weight);
  for (int i = 0; i < n; i++) {
    j->bs_bytes[i] = lo * (i + 1);
    j->bs_weight[i] = 1.0 / n;
  }
  j->nbs = n;
  return 0;
}

/* size, filesize, offset, offset_increment: bytes, a percentage of the
 * target (not offset_increment) or Nz zones. */
int fio_set_extent(struct job *j, const char *key, const char *v, char *msg, size_t msg_len)
{
  double d = 0.0;
  int is_offset = !strcmp(key, "offset") || !strcmp(key, "offset_increment");
  double frac = 0.0;
  if (strchr(v, '%') && strcmp(key, "offset_increment") != 0) {
    if (fio_percent(v, is_offset ? 0.0 : 1e-9, &frac) != 0)
      return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: a percentage of the target, %s .. 100%%)",
                     key, v, is_offset ? "0%" : "above 0%");
    if (is_offset)
      j->offset_frac = frac, j->offset_bytes = 0.0;
    else
      j->size_frac = frac, j->size_bytes = 0.0;
    return 0;
  }
  size_t vl = strlen(v);
  if (vl > 1 && (v[vl - 1] == 'z' || v[vl - 1] == 'Z') && strcmp(key, "offset_increment") != 0) {
    char num[64];
    snprintf(num, sizeof num, "%.*s", (int)(vl - 1 < sizeof num ? vl - 1 : sizeof num - 1), v);
    long nz = 0;
    if (fio_parse_int(num, 0, 1L << 40, &nz) != 0)
      return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: Nz, a whole number of zones)", key, v);
    *(is_offset ? &j->offset_zones : &j->size_zones) = (double)nz; /* zones: bytes in fio_job_finish */
    return 0;
  }
  if (strchr(v, '%') || strchr(v, '-') || fio_parse_size(v, &d) != 0 ||
      d < (is_offset ? 0.0 : 1.0) || d > FIO_MAX_SIZE_BYTES)
    return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: %s, %s .. 1 PiB; percentages "
                   "and ranges are not modelled)",
                   key, v, FIO_SIZE_ALLOWED, is_offset ? "0" : "1 B");
  if (!strcmp(key, "offset_increment"))
    j->offset_increment_bytes = d;
  else if (is_offset)
    j->offset_bytes = d, j->offset_frac = 0.0;
  else
    j->size_bytes = d, j->size_frac = 0.0;
  return 0;
}
