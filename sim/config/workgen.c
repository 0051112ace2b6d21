/* workgen.c - a job's next I/O (workgen.h). */
#include "sim/config/workgen.h"

#include <math.h>

void workgen_init(struct workgen *g, const struct job *spec, const struct replay_trace *replay,
                  double region_start, double region_bytes)
{
  *g = (struct workgen){.spec = spec, .replay = replay, .region_start = region_start,
                        .region_bytes = region_bytes};
}

int workgen_more(const struct workgen *g)
{
  if (g->replay)
    return g->next_rec < g->replay->n;
  double todo = g->spec->io_bytes > 0 ? g->spec->io_bytes : g->region_bytes; /* fio io_size */
  return g->spec->time_based || g->issued_bytes < todo;
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

static double workgen_pick_bs(const struct job *sp, gsl_rng *rng)
{
  if (sp->nbs <= 1)
    return sp->bs_bytes[0];
  double u = gsl_rng_uniform(rng), acc = 0.0;
  for (int i = 0; i < sp->nbs; i++) {
    acc += sp->bs_weight[i];
    if (u < acc)
      return sp->bs_bytes[i];
  }
  return sp->bs_bytes[sp->nbs - 1];
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
  g->next_rec++;
  g->issued_bytes += len;
}

void workgen_next(struct workgen *g, gsl_rng *rng, struct workgen_io *out)
{
  if (g->replay) {
    workgen_replay(g, out);
    return;
  }
  const struct job *sp = g->spec;
  double bs = workgen_pick_bs(sp, rng);
  if (bs > g->region_bytes)
    bs = g->region_bytes;
  int write = sp->read_frac >= 1.0 ? 0 : sp->read_frac <= 0.0 ? 1 : gsl_rng_uniform(rng) >= sp->read_frac;
  double off;
  double slots = floor(g->region_bytes / bs);
  switch (sp->access) {
  case JOB_RANDOM:
    if (sp->random_run > 1 && g->run_left > 0 && g->next_off + bs <= g->region_bytes) {
      off = g->next_off; /* fio rw=randread:N: the run goes on */
      g->run_left--;
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
  out->opens = sp->file_bytes > 0 && fmod(off, sp->file_bytes) < bs;
  g->issued_bytes += bs;
}
