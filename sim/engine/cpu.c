/* cpu.c - the processor-sharing model of the NAS cores (cpu.h): the
 * running executions in one array (a host runs a few dozen at most), all
 * brought up to date and re-shared at each start and end, as SimGrid's
 * lazy CPU model does with the host's one constraint. */
#include "sim/engine/cpu.h"

#include <math.h>
#include <stdlib.h>

/* SimGrid 3.32's precisions: an action due within precision/timing of
 * now ends now; remaining work and capacity below precision/work-amount
 * (relative) are 0 (double_update). */
#define CPU_TIMING_S 1e-9
#define CPU_WORK_EPS 1e-5

struct cpu_exec {
  double rem;     /* cycles still to go (at t_upd) */
  double rate;    /* cycles/s */
  double penalty; /* sharing penalty: 1 / priority */
  double t_upd;   /* when rem was last brought up to date */
  double t_end;   /* its end if nothing changes */
  double t_start;
  unsigned long long seq; /* start order */
  void *tag;
};

struct cpu_host {
  int cores;
  double speed;
  double idle_W, eps_W, max_W;
  struct cpu_exec *x;
  int n, cap;
  struct cpu_exec *ended;
  int nended, capended;
  double next;    /* the earliest t_end */
  void *next_tag; /* an execution ending then (NULL: none) */
  double energy_J, t_energy;
  unsigned long long seq;
};

struct cpu_host *cpu_host_create(int cores, double speed, double idle_W, double eps_W, double max_W)
{
  struct cpu_host *h = calloc(1, sizeof *h);
  if (!h)
    return NULL;
  h->cores = cores > 0 ? cores : 1;
  h->speed = speed;
  h->idle_W = idle_W;
  h->eps_W = eps_W;
  h->max_W = max_W;
  h->next = INFINITY;
  h->next_tag = NULL;
  return h;
}

void cpu_host_destroy(struct cpu_host *h)
{
  if (!h)
    return;
  free(h->x);
  free(h->ended);
  free(h);
}

/* The host's power at its current rates (SimGrid's host energy plugin). */
static double cpu_power_W(const struct cpu_host *h)
{
  double sum = 0.0;
  for (int i = 0; i < h->n; i++)
    sum += h->x[i].rate;
  double load = h->speed > 0 ? sum / h->speed / h->cores : 1.0;
  if (load > 1)
    load = 1.0;
  return load > 0 ? h->eps_W + load * (h->max_W - h->eps_W) : h->idle_W;
}

double cpu_energy_J(const struct cpu_host *h, double now)
{
  return now > h->t_energy ? h->energy_J + cpu_power_W(h) * (now - h->t_energy) : h->energy_J;
}

/* Energy up to now at the rates that held since the last change, and
 * every execution's remaining cycles at its rate. */
static void cpu_catch_up(struct cpu_host *h, double now)
{
  h->energy_J = cpu_energy_J(h, now);
  if (now > h->t_energy)
    h->t_energy = now;
  for (int i = 0; i < h->n; i++) {
    struct cpu_exec *x = &h->x[i];
    if (x->rem > 0) {
      x->rem -= x->rate * (now - x->t_upd);
      if (x->rem < CPU_WORK_EPS * CPU_TIMING_S)
        x->rem = 0.0;
    }
    x->t_upd = now;
  }
}

/* Max-min over the host's constraint (capacity cores x speed), each
 * execution capped at one core, as SimGrid's LMM solves one constraint:
 * while an unfixed execution's cap times its penalty is below the level,
 * the lowest ones are fixed at their cap; the others then take the level
 * over their penalty.  Then the end dates. */
static void cpu_share(struct cpu_host *h, double now)
{
  double cap = h->cores * h->speed, remaining = cap, usage = 0.0;
  for (int i = 0; i < h->n; i++) {
    h->x[i].rate = -1.0;
    usage += 1.0 / h->x[i].penalty;
  }
  int left = h->n;
  while (left > 0) {
    double level = usage > 0 ? remaining / usage : 0.0, min_bound = -1.0;
    for (int i = 0; i < h->n; i++) {
      double b = h->speed * h->x[i].penalty;
      if (h->x[i].rate < 0 && b < level && (min_bound < 0 || b < min_bound))
        min_bound = b;
    }
    for (int i = 0; i < h->n; i++) {
      struct cpu_exec *x = &h->x[i];
      if (x->rate >= 0)
        continue;
      if (min_bound < 0) {
        x->rate = level / x->penalty;
      } else if (fabs(min_bound - h->speed * x->penalty) < CPU_WORK_EPS) {
        x->rate = h->speed;
        remaining -= h->speed;
        if (remaining < cap * CPU_WORK_EPS)
          remaining = 0.0;
        usage -= 1.0 / x->penalty;
        if (usage < CPU_WORK_EPS)
          usage = 0.0;
      } else {
        continue;
      }
      left--;
    }
  }
  h->next = INFINITY;
  h->next_tag = NULL;
  for (int i = 0; i < h->n; i++) {
    struct cpu_exec *x = &h->x[i];
    x->t_end = x->rate > 0 ? now + (x->rem > 0 ? x->rem / x->rate : 0.0) : INFINITY;
    if (x->t_end < h->next) {
      h->next = x->t_end;
      h->next_tag = x->tag;
    }
  }
}

int cpu_start(struct cpu_host *h, double now, double cycles, double priority, void *tag)
{
  if (h->n == h->cap) {
    int cap = h->cap ? h->cap * 2 : 16;
    struct cpu_exec *v = realloc(h->x, (size_t)cap * sizeof *v);
    if (!v)
      return -1;
    h->x = v;
    h->cap = cap;
  }
  cpu_catch_up(h, now);
  struct cpu_exec *x = &h->x[h->n++];
  x->rem = cycles > 0 ? cycles : 0.0;
  x->rate = 0.0;
  x->penalty = 1.0 / (priority > 0 ? priority : 1.0);
  x->t_upd = x->t_start = now;
  x->seq = h->seq++;
  x->tag = tag;
  cpu_share(h, now);
  return 0;
}

double cpu_next_s(const struct cpu_host *h)
{
  return h->next;
}

void *cpu_next_tag(const struct cpu_host *h)
{
  return h->next_tag;
}

int cpu_uncontended(const struct cpu_host *h)
{
  return h->n <= h->cores;
}

double cpu_end_of(const struct cpu_host *h, const void *tag)
{
  for (int i = 0; i < h->n; i++)
    if (h->x[i].tag == tag)
      return h->x[i].t_end;
  return -1.0;
}

/* Ties (measured on SimGrid 3.32): the last started instant first, then
 * the first started. */
static int cpu_end_cmp(const void *pa, const void *pb)
{
  const struct cpu_exec *a = pa, *b = pb;
  if (a->t_end != b->t_end)
    return a->t_end < b->t_end ? -1 : 1;
  if (a->t_start != b->t_start)
    return a->t_start > b->t_start ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int cpu_advance(struct cpu_host *h, double now, void (*done)(void *ctx, void *tag), void *ctx)
{
  if (!(h->next < now + CPU_TIMING_S))
    return 0;
  if (h->capended < h->n) {
    struct cpu_exec *v = realloc(h->ended, (size_t)h->n * sizeof *v);
    if (!v)
      return -1;
    h->ended = v;
    h->capended = h->n;
  }
  cpu_catch_up(h, now);
  h->nended = 0;
  for (int i = 0; i < h->n;) {
    if (h->x[i].t_end < now + CPU_TIMING_S) {
      h->ended[h->nended++] = h->x[i];
      h->x[i] = h->x[--h->n];
    } else {
      i++;
    }
  }
  cpu_share(h, now);
  if (h->nended > 1) /* one end (the common case) needs no order */
    qsort(h->ended, (size_t)h->nended, sizeof *h->ended, cpu_end_cmp);
  int k = h->nended; /* done() may start executions, not advance */
  for (int i = 0; i < k; i++)
    done(ctx, h->ended[i].tag);
  return 0;
}

double cpu_rate_of(const struct cpu_host *h, const void *tag)
{
  for (int i = 0; i < h->n; i++)
    if (h->x[i].tag == tag)
      return h->x[i].rate;
  return -1.0;
}
