/* workload.c - job defaults, workload ownership, step building helpers. */
#include "sim/config/workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/replay.h"
#include "sim/config/workload_build.h"

#define WORKLOAD_FIO_DEFAULT_BS_BYTES 4096.0 /* fio's bs default (fio HOWTO) */

void job_defaults(struct job *j)
{
  memset(j, 0, sizeof *j);
  snprintf(j->name, sizeof j->name, "job");
  j->read_frac = 1.0; /* fio rw=read */
  j->access = JOB_SEQ;
  j->nbs = 1;
  j->bs_bytes[0] = WORKLOAD_FIO_DEFAULT_BS_BYTES;
  j->bs_weight[0] = 1.0;
  j->iodepth = 1;
  j->numjobs = 1;
  j->rwmixread_frac = 0.5; /* fio rwmixread=50 */
  j->rate_bytes_w = -1.0;  /* the writes' limits: as the reads' */
  j->rate_iops_w = -1.0;
  j->dist_center = -1.0;   /* fio: a random rotation of the hot spots */
  j->lat_pct = 100.0;      /* fio latency_percentile */
}

void workload_free(struct workload *w)
{
  if (!w)
    return;
  free(w->steps);
  w->steps = NULL;
  replay_free(w->replay);
  w->replay = NULL;
  w->nsteps = 0;
}

struct workload_step *workload_add_step(struct workload *w)
{
  /* Capacity is implicit: the next power of two >= nsteps, so grow when
   * nsteps is 0 or a power of two (amortised O(1) per step). */
  int n = w->nsteps;
  if (n == 0 || (n & (n - 1)) == 0) {
    size_t cap = n == 0 ? 1 : (size_t)n * 2;
    struct workload_step *grown = realloc(w->steps, cap * sizeof *grown);
    if (!grown)
      return NULL;
    w->steps = grown;
  }
  struct workload_step *s = &w->steps[w->nsteps++];
  memset(s, 0, sizeof *s);
  return s;
}

int workload_step_add_job(struct workload_step *s, const struct job *j)
{
  if (s->njobs >= STEP_MAX_JOBS)
    return -1;
  s->jobs[s->njobs++] = *j;
  return 0;
}

int workload_steps_same(const struct workload_step *a, const struct workload_step *b)
{
  if (a == b)
    return 1;
  if (strcmp(a->metric, b->metric) != 0 || a->njobs != b->njobs || a->clients != b->clients ||
      a->precondition != b->precondition)
    return 0;
  /* struct job holds no pointers: equal bytes, equal jobs (bytes that
   * differ in padding only miss a repeat, never take a wrong one) */
  return memcmp(a->jobs, b->jobs, (size_t)a->njobs * sizeof *a->jobs) == 0;
}

void workload_job_set_bs(struct job *j, double bs_bytes)
{
  j->nbs = 1;
  j->nbs_w = 0;
  memset(j->bs_bytes, 0, sizeof j->bs_bytes);
  memset(j->bs_weight, 0, sizeof j->bs_weight);
  j->bs_bytes[0] = bs_bytes;
  j->bs_weight[0] = 1.0;
}

char *workload_format_bytes(double bytes, char *buf, size_t len)
{
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (u < 5 && bytes >= 1024.0 && fmod(bytes, 1024.0) == 0.0) {
    bytes /= 1024.0;
    u++;
  }
  if (u < 5 && bytes >= 1024.0) { /* not a whole multiple: one decimal */
    double b = bytes;
    int v = u;
    while (v < 5 && b >= 1024.0) {
      b /= 1024.0;
      v++;
    }
    snprintf(buf, len, "%.4g%s", b, units[v]);
    return buf;
  }
  snprintf(buf, len, "%.4g%s", bytes, units[u]);
  return buf;
}

const char *workload_default_metric(const struct workload_step *s)
{
  int reads = 0, writes = 0;
  for (int i = 0; i < s->njobs; i++) {
    if (s->jobs[i].prep)
      continue;
    if (s->jobs[i].trim) { /* trims (with trimwrite's writes): all directions together */
      reads = writes = 1;
      continue;
    }
    if (s->jobs[i].read_frac > 0.0)
      reads = 1;
    if (s->jobs[i].read_frac < 1.0)
      writes = 1;
  }
  if (reads && !writes)
    return "read_MBps";
  if (writes && !reads)
    return "write_MBps";
  return "MBps";
}
