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

/* An execution's blocked actor: released when its cycles are done.  An
 * execution that ends first on uncontended cores (each running one has a
 * core: no end speeds another up) is timed by its own actor, which
 * sleeps until its end and ends what is due then itself, rather than
 * waking the scheduler to sleep for it: one SimGrid activity instead of
 * three (the scheduler's wake, its timed sleep, the actor's wait). */
struct eng_cpu_wait {
  sg_sem_t sem;
  int done;      /* its cycles are done */
  int released;  /* its semaphore was released for that */
  int timer;     /* its actor sleeps until armed_s, then advances the model */
  double armed_s;
  struct eng_cpu_wait *next;
};

struct eng_cpu {
  struct cpu_host *host;
  struct eng_sched sched;
  struct eng_cpu_wait *free_w;
  struct eng_cpu_wait *self; /* the timed execution whose actor advances the model, NULL: the scheduler */
};

static void eng_cpu_done(void *ctx, void *tag)
{
  struct eng_cpu *c = ctx;
  struct eng_cpu_wait *w = tag;
  w->done = 1;
  if (w != c->self) {
    w->released = 1;
    sg_sem_release(w->sem);
  }
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
    if (s->covered && s->covered(s->model))
      t = INFINITY; /* its own timer ends it; the ends after it are seen then */
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
  if (s->next_s(s->model) < s->deadline && !(s->covered && s->covered(s->model))) {
    /* an earlier end than the scheduler sleeps for */
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

static int eng_cpu_covered(const void *model)
{
  const struct eng_cpu_wait *w = cpu_next_tag(model);
  return w && w->timer && w->armed_s <= cpu_next_s(model);
}

int eng_cpu_setup(struct eng *e)
{
  const struct soc_params *soc = &e->s->soc;
  struct eng_cpu *c = eng_own(e, sizeof *c);
  if (!c)
    return -1;
  /* The SoC's power as SimGrid's host energy plugin took it
   * (wattage_per_state idle : one core : all cores, cpu.h). */
  int cores = e->local ? PLAT_CLIENT_CORES : e->map.nas_cores;
  double speed = e->local ? PLAT_CLIENT_SPEED : e->map.nas_speed_cycles_per_s;
  double idle = soc_power_idle_W(soc), core = soc_power_core_busy_W(soc);
  c->host = cpu_host_create(cores, speed, idle, idle + core, idle + core * cores);
  if (!c->host)
    return -1;
  e->cpu = c;
  c->sched = (struct eng_sched){.model = c->host, .advance = eng_cpu_advance, .next_s = eng_cpu_next_s,
                            .covered = eng_cpu_covered, .ctx = c};
  eng_sched_start(e, &c->sched, "cores", eng_nas_host(e));
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

/* Sleep from now until w's end, then end what is due; 1 when w is done
 * (*now_out: the clock then), 0 when its end moved later (more
 * executions than cores meanwhile). */
static int eng_cpu_timed(struct eng_cpu *c, struct eng_cpu_wait *w, double now, double end, double *now_out)
{
  w->timer = 1;
  w->armed_s = end;
  int timed_out = sg_sem_acquire_timeout(w->sem, end - now) != 0;
  w->timer = 0;
  now = simgrid_get_clock();
  *now_out = now;
  if (!timed_out)
    return 1; /* another's advance ended it */
  c->self = w;
  int rc = cpu_advance(c->host, end > now ? end : now, eng_cpu_done, c); /* the clock may land an ulp short */
  c->self = NULL;
  if (rc < 0)
    xbt_die("out of memory");
  if (w->released) {
    sg_sem_acquire(w->sem); /* ended by another at this instant after the timeout */
    *now_out = simgrid_get_clock();
  }
  eng_sched_poke(&c->sched); /* the next end, if it has no timer of its own (a release: no wait) */
  return w->done;
}

double eng_cpu_run(struct eng *e, double now, double cycles, double priority)
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
  w->done = w->released = w->timer = 0;
  if (cpu_start(c->host, now, cycles, priority, w) < 0)
    xbt_die("out of memory");
  double end = cpu_end_of(c->host, w);
  struct eng_sched *s = &c->sched;
  /* Timed by its actor: it has a core of its own (its rate can only fall
   * from here, so its end can only move later), it ends first,
   * later than SimGrid's 1 ns timing precision (cpu.c: due now, else),
   * and the scheduler does not wake for it anyway. */
  int timed = cpu_uncontended(c->host) && cpu_next_tag(c->host) == w && end >= now + 1e-9 &&
              !(s->deadline >= 0 && s->deadline <= end);
  double at = now;
  if (!timed || !eng_cpu_timed(c, w, now, end, &at)) {
    eng_sched_poke(s);
    if (!w->done)
      sg_sem_acquire(w->sem);
    at = simgrid_get_clock();
  }
  w->next = c->free_w;
  c->free_w = w;
  return at;
}
