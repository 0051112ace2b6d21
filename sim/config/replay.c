/* replay.c - trace loaders and the Ruemmler-Wilkes demerit (replay.h). */
#include "sim/config/replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"

#define REPLAY_MAX_FILE_BYTES ((size_t)1 << 31)

static const char *const replay_names[] = {"disksim-validate", "disksim-ascii", "fio-iolog",
                                           "blkparse"};

int replay_format_parse(const char *name, enum replay_format *out)
{
  for (int i = 0; i < 4; i++)
    if (strcmp(name, replay_names[i]) == 0) {
      *out = (enum replay_format)i;
      return 0;
    }
  return -1;
}

const char *replay_format_names(void)
{
  return "disksim-validate, disksim-ascii, fio-iolog, blkparse";
}

void replay_free(struct replay_trace *t)
{
  if (t == NULL)
    return;
  free(t->v);
  free(t);
}

static int replay_push(struct replay_trace *t, int *cap, const struct replay_rec *r)
{
  if (t->n == *cap) {
    int nc = *cap ? 2 * *cap : 1024;
    struct replay_rec *v = realloc(t->v, (size_t)nc * sizeof *v);
    if (v == NULL)
      return -1;
    t->v = v;
    *cap = nc;
  }
  t->v[t->n++] = *r;
  return 0;
}

/* Parser state of one line. */
struct replay_line {
  const char *path;
  int line;
  struct nw_err *err;
};

static int replay_bad(const struct replay_line *l, const char *what, const char *text)
{
  return nw_fail(l->err, l->path, l->line, 1, "trace: %s, got '%.80s'", what, text);
}

static int replay_sectors(const struct replay_line *l, double lbn, double blocks, const char *s,
                          struct replay_rec *r)
{
  if (!(lbn >= 0 && lbn < 1e15 && lbn == floor(lbn) && blocks >= 1 && blocks <= 1 << 24 &&
        blocks == floor(blocks)))
    return replay_bad(l, "sector address >= 0 and 1 to 16M whole sectors", s);
  r->offset_bytes = (uint64_t)lbn * 512;
  r->len_bytes = (uint64_t)blocks * 512;
  return 0;
}

/* R|W Hit|Miss LBN blocks service_us next_interarrival_us */
static int replay_validate_line(const struct replay_line *l, const char *s, double *clock,
                                struct replay_rec *r)
{
  char rw[8], hit[16];
  double lbn, blocks, svc, gap;
  char tail;
  if (sscanf(s, "%7s %15s %lf %lf %lf %lf %c", rw, hit, &lbn, &blocks, &svc, &gap, &tail) != 6 ||
      (strcmp(rw, "R") && strcmp(rw, "W")) || !(svc >= 0 && svc < 1e9) || !(gap >= 0 && gap < 1e12))
    return replay_bad(l, "expected 'R|W Hit|Miss LBN blocks service_us interarrival_us'", s);
  r->write = rw[0] == 'W';
  r->at_s = *clock;
  r->traced_s = svc * 1e-6;
  *clock += gap * 1e-6;
  return replay_sectors(l, lbn, blocks, s, r);
}

/* arrival_ms devno LBN blocks flags */
static int replay_ascii_line(const struct replay_line *l, const char *s, struct replay_rec *r)
{
  double t, dev, lbn, blocks, flags;
  char tail;
  if (sscanf(s, "%lf %lf %lf %lf %lf %c", &t, &dev, &lbn, &blocks, &flags, &tail) != 5 ||
      !(t >= 0 && t < 1e12) || flags != floor(flags) || flags < 0)
    return replay_bad(l, "expected 'arrival_ms devno LBN blocks flags'", s);
  r->at_s = t * 1e-3;
  r->write = !((long long)flags & 1);
  r->traced_s = -1;
  return replay_sectors(l, lbn, blocks, s, r);
}

/* [timestamp_us] filename action [offset length]; 1 when the line is no
 * I/O (file management, sync), 0 for an I/O, -1 error. */
static int replay_iolog_line(const struct replay_line *l, const char *s, int version,
                             double *clock, struct replay_rec *r)
{
  char file[1024], act[16];
  double ts = 0, off = 0, len = 0;
  int n;
  if (version == 3)
    n = sscanf(s, "%lf %1023s %15s %lf %lf", &ts, file, act, &off, &len) - 1;
  else
    n = sscanf(s, "%1023s %15s %lf %lf", file, act, &off, &len);
  if (n < 2 || (version == 3 && !(ts >= 0 && ts < 1e15)))
    return replay_bad(l, version == 3 ? "expected 'timestamp filename action [offset length]'"
                                      : "expected 'filename action [offset length]'", s);
  if (version == 3)
    *clock = ts * 1e-6;
  if (!strcmp(act, "add") || !strcmp(act, "open") || !strcmp(act, "close") ||
      !strcmp(act, "sync") || !strcmp(act, "datasync"))
    return 1;
  if (!strcmp(act, "wait") && version == 2) {
    if (n < 3 || !(off >= 0 && off < 1e12))
      return replay_bad(l, "expected 'filename wait microseconds'", s);
    *clock += off * 1e-6;
    return 1;
  }
  if ((strcmp(act, "read") && strcmp(act, "write") && strcmp(act, "trim")) || n != 4 || !(off >= 0 && off < 1e18) ||
      !(len >= 1 && len <= 1 << 30) || off != floor(off) || len != floor(len))
    return replay_bad(l, "expected action add, open, close, read, write, sync, datasync, trim"
                         " (or wait in version 2), read/write/trim with offset and length in bytes", s);
  r->write = act[0] == 'w';
  r->trim = act[0] == 't';
  r->at_s = *clock;
  r->offset_bytes = (uint64_t)off;
  r->len_bytes = (uint64_t)len;
  r->traced_s = -1;
  return 0;
}

/* maj,min cpu seq time pid action rwbs sector + blocks [process].  1 when
 * the line is not a request event (other actions, summaries), 0 for Q. */
static int replay_blk_line(const struct replay_line *l, const char *s, struct replay_trace *t,
                           struct replay_rec *r)
{
  unsigned maj, mnr, cpu;
  double seq, ts, pid, sector, blocks;
  char act[8], rwbs[16];
  if (sscanf(s, "%u,%u %u %lf %lf %lf %7s %15s %lf + %lf", &maj, &mnr, &cpu, &seq, &ts, &pid, act,
             rwbs, &sector, &blocks) != 10)
    return 1; /* a summary line, or an event without a sector range */
  int write = strchr(rwbs, 'W') != NULL, read = strchr(rwbs, 'R') != NULL;
  int discard = !write && !read && strchr(rwbs, 'D') != NULL; /* blktrace's RWBS: D = discard */
  if (!(ts >= 0 && ts < 1e12) || (!write && !read && !discard))
    return 1;
  if (strcmp(act, "C") == 0) { /* complete: the oldest pending Q of that range */
    for (int i = 0; i < t->n; i++)
      if (t->v[i].traced_s < 0 && t->v[i].offset_bytes == (uint64_t)sector * 512 &&
          t->v[i].len_bytes == (uint64_t)blocks * 512) {
        t->v[i].traced_s = ts - t->v[i].at_s;
        break;
      }
    return 1;
  }
  if (strcmp(act, "Q") != 0)
    return 1;
  r->at_s = ts;
  r->write = write;
  r->trim = discard;
  r->traced_s = -1;
  return replay_sectors(l, sector, blocks, s, r);
}

static int replay_parse(char *buf, const char *path, enum replay_format fmt,
                        struct replay_trace *t, struct nw_err *err)
{
  int cap = 0, version = 0;
  double clock = 0;
  struct replay_line l = {.path = path, .err = err};
  for (char *s = buf, *nl; s; s = nl ? nl + 1 : NULL) {
    l.line++;
    nl = strchr(s, '\n');
    if (nl)
      *nl = '\0';
    size_t len = strlen(s);
    if (len && s[len - 1] == '\r')
      s[len - 1] = '\0';
    while (*s == ' ' || *s == '\t')
      s++;
    if (*s == '\0' || *s == '#')
      continue;
    if (fmt == REPLAY_FIO_IOLOG && version == 0) {
      if (sscanf(s, "fio version %d iolog", &version) != 1 || (version != 2 && version != 3))
        return replay_bad(&l, "expected 'fio version 2 iolog' or 'fio version 3 iolog'", s);
      continue;
    }
    struct replay_rec r = {0};
    int rc;
    switch (fmt) {
    case REPLAY_DISKSIM_VALIDATE: rc = replay_validate_line(&l, s, &clock, &r); break;
    case REPLAY_DISKSIM_ASCII: rc = replay_ascii_line(&l, s, &r); break;
    case REPLAY_FIO_IOLOG: rc = replay_iolog_line(&l, s, version, &clock, &r); break;
    default: rc = replay_blk_line(&l, s, t, &r); break;
    }
    if (rc < 0)
      return -1;
    if (rc > 0)
      continue;
    if (t->n >= REPLAY_MAX_RECORDS)
      return nw_fail(err, path, l.line, 1, "trace: more than %d requests", REPLAY_MAX_RECORDS);
    if (replay_push(t, &cap, &r) < 0)
      return nw_fail(err, path, l.line, 1, "out of memory");
  }
  if (t->n == 0)
    return nw_fail(err, path, l.line, 1, "trace: no read or write request");
  return 0;
}

struct replay_trace *replay_load(const char *path, enum replay_format fmt, struct nw_err *err)
{
  char *buf = NULL;
  size_t len = 0;
  if (file_read_all(path, REPLAY_MAX_FILE_BYTES, &buf, &len) != FILE_READ_OK) {
    nw_fail(err, path, 0, 0, "cannot read trace file");
    return NULL;
  }
  struct replay_trace *t = calloc(1, sizeof *t);
  if (t == NULL || replay_parse(buf, path, fmt, t, err) < 0) {
    if (t == NULL)
      nw_fail(err, path, 0, 0, "out of memory");
    free(buf);
    replay_free(t);
    return NULL;
  }
  free(buf);
  double t0 = t->v[0].at_s;
  t->traced = 1;
  /* DiskSim's validate traces were measured one request at a time (a
   * request's service can exceed the gap to the next, whose measured time
   * then holds no wait) and DiskSim replays them so */
  t->one_at_a_time = fmt == REPLAY_DISKSIM_VALIDATE;
  for (int i = 0; i < t->n; i++) {
    if (t->v[i].at_s < t0)
      t0 = t->v[i].at_s;
    t->traced &= t->v[i].traced_s >= 0;
  }
  for (int i = 0; i < t->n; i++) {
    t->v[i].at_s -= t0; /* the first request arrives at 0 */
    if (i > 0 && t->v[i].at_s < t->v[i - 1].at_s)
      t->v[i].at_s = t->v[i - 1].at_s; /* per-CPU blkparse streams: keep issue order */
    if (t->v[i].at_s > t->span_s)
      t->span_s = t->v[i].at_s;
  }
  return t;
}

static int replay_cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double replay_demerit_s(double *sim_s, int n_sim, double *traced_s, int n_traced)
{
  if (n_sim <= 0 || n_traced <= 0)
    return 0.0;
  qsort(sim_s, (size_t)n_sim, sizeof *sim_s, replay_cmp);
  qsort(traced_s, (size_t)n_traced, sizeof *traced_s, replay_cmp);
  int k = n_sim > n_traced ? n_sim : n_traced;
  double sum = 0.0;
  for (int i = 0; i < k; i++) {
    double q = (i + 0.5) / k;
    double d = sim_s[(int)(q * n_sim)] - traced_s[(int)(q * n_traced)];
    sum += d * d;
  }
  return sqrt(sum / k);
}
