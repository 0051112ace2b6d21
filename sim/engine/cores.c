/* cores.c - the engine's glue to the fluid models: the NAS cores on
 * cpu.c's processor-sharing model (an execution blocks its actor on a
 * pooled semaphore until the model ends it) and the scheduler actor that
 * drives a fluid model's ends in simulated time (eng_sched: the cores
 * here, the links in chan.c). */
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <xbt/asserts.h>

#include "sim/engine/cpu.h"
#include "sim/engine/eng_impl.h"

/* ---- the NAS cores on the processor-sharing model (cpu.h) -------------- */

/* An execution's blocked actor: released when its cycles are done. */
struct eng_cpu_wait {
  sg_sem_t sem;
  struct eng_cpu_wait *next;
};

struct eng_cpu {
  struct cpu_host *host;
  struct eng_sched sched;
  struct eng_cpu_wait *free_w;
};

static void eng_cpu_done(void *ctx, void *tag)
{
  (void)ctx;
  sg_sem_release(((struct eng_cpu_wait *)tag)->sem);
}

/* ---- fluid models' scheduler ------------------------------------------ */

static void eng_sched_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_sched *s = sg_actor_self_get_data();
  double at = simgrid_get_clock();
  for (;;) {
    if (s->advance(s->model, at, s->ctx) < 0)
      xbt_die("out of memory");
    double now = simgrid_get_clock();
    double t = s->next_s(s->model);
    if (t <= now) {
      at = now;
      continue;
    }
    s->deadline = t;
    int timed_out = 0;
    if (isinf(t))
      sg_sem_acquire(s->wake);
    else
      timed_out = sg_sem_acquire_timeout(s->wake, t - now) != 0;
    s->deadline = -1.0;
    now = simgrid_get_clock();
    at = timed_out && t > now ? t : now; /* the clock may land an ulp short of t */
  }
}

void eng_sched_start(struct eng *e, struct eng_sched *s, const char *name, sg_host_t host)
{
  s->wake = eng_sem(e);
  s->deadline = -1.0;
  eng_spawn(name, host, eng_sched_main, s, 1);
}

void eng_sched_poke(struct eng_sched *s)
{
  if (s->next_s(s->model) < s->deadline) { /* an earlier end than the scheduler sleeps for */
    s->deadline = -1.0;
    sg_sem_release(s->wake);
  }
}

/* ---- the NAS cores (cpu.h) --------------------------------------------- */

static int eng_cpu_advance(void *model, double now_s, void *ctx)
{
  return cpu_advance(model, now_s, eng_cpu_done, ctx);
}

static double eng_cpu_next_s(const void *model)
{
  return cpu_next_s(model);
}

int eng_cpu_setup(struct eng *e)
{
  const struct soc_params *soc = &e->s->soc;
  struct eng_cpu *c = eng_own(e, sizeof *c);
  if (!c)
    return -1;
  /* The SoC's power as SimGrid's host energy plugin took it
   * (wattage_per_state idle : one core : all cores, cpu.h). */
  int cores = sg_host_core_count(e->nas);
  double idle = soc_power_idle_W(soc), core = soc_power_core_busy_W(soc);
  c->host = cpu_host_create(cores, sg_host_get_speed(e->nas), idle, idle + core, idle + core * cores);
  if (!c->host)
    return -1;
  e->cpu = c;
  c->sched = (struct eng_sched){.model = c->host, .advance = eng_cpu_advance, .next_s = eng_cpu_next_s, .ctx = c};
  eng_sched_start(e, &c->sched, "cores", e->nas);
  return 0;
}

void eng_cpu_destroy(struct eng *e)
{
  if (e->cpu)
    cpu_host_destroy(e->cpu->host);
}

double eng_cpu_energy_J(const struct eng *e, double now_s)
{
  return cpu_energy_J(e->cpu->host, now_s);
}

void eng_cpu_run(struct eng *e, double cycles, double priority)
{
  struct eng_cpu *c = e->cpu;
  struct eng_cpu_wait *w = c->free_w;
  if (w) {
    c->free_w = w->next;
  } else {
    if (!(w = eng_own(e, sizeof *w)))
      xbt_die("out of memory");
    w->sem = eng_sem(e);
  }
  if (cpu_start(c->host, simgrid_get_clock(), cycles, priority, w) < 0)
    xbt_die("out of memory");
  eng_sched_poke(&c->sched);
  sg_sem_acquire(w->sem);
  w->next = c->free_w;
  c->free_w = w;
}
