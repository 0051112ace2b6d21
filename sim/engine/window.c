/* window.c - what the measured window's utilisation and power are taken
 * over, and the end of a time-based run.
 *
 * The devices (disks, cache devices, the SoC's engines) and the energy
 * counters are cumulative; a meter reads them at the window's start and
 * at its end, so their busy time and energy are the window's, not the
 * whole run's scaled down (which counted the first round's fill and the
 * drain).  A time-based step stops at its window's end: the I/Os still
 * outstanding are abandoned (issued, never completed: run_result issued -
 * completed), not drained, as a benchmark stops at its runtime; a sized
 * step, or a run with a background operation, runs to its end. */
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/analysis/analysis.h"
#include "sim/engine/eng_impl.h"

/* The counters at the calling instant. */
static void eng_meter_take(struct eng *e, struct eng_meter *m)
{
  const struct scenario *s = e->s;
  double now = simgrid_get_clock();
  m->at_s = now;
  m->soc_J = e->local ? 0.0 : eng_cpu_energy_J(e, now);
  m->dev_J = 0.0;
  for (int i = 0; i < s->ndisks + s->ncache_devs; i++) {
    struct disk_stats ds;
    disk_stats(i < s->ndisks ? e->disks[i] : e->cache[i - s->ndisks], now, &ds);
    m->dev_busy_s[i] = ds.busy_s;
    m->dev_J += ds.energy_J;
  }
  m->parity_s = accel_utilization(&e->parity, now) * now;
  m->crypto_s = accel_utilization(&e->crypto, now) * now;
  m->mem_s = accel_utilization(&e->mem_bus, now) * now;
}

/* Waits for the window to be placed (the first round's end, the prep
 * jobs' end), reads the meter at its start and, for a time-based step, at
 * its end, then ends every job: the run stops there. */
static void eng_window_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng *e = sg_actor_self_get_data();
  while (e->warm_pending || e->nprep > 0)
    sg_sem_acquire(e->window_sem);
  if (e->ramp_s > simgrid_get_clock())
    sg_actor_sleep_until(e->ramp_s);
  eng_meter_take(e, &e->win[0]);
  e->nwin = 1;
  if (!e->stop_at_end)
    return;
  /* past the end, so that every completion at the end's instant counts
   * (a timer may land an ulp short) */
  while (simgrid_get_clock() <= e->t_end_s)
    sg_actor_sleep_for(e->t_end_s - simgrid_get_clock() + 1e-9);
  eng_meter_take(e, &e->win[1]);
  e->nwin = 2;
  eng_little_step(e, 0); /* the outstanding ones' time up to the end */
  e->stopped = 1;
  for (int i = 0; i < e->njobs; i++)
    if (!e->jobs[i].finished) {
      e->jobs[i].finished = 1;
      sg_sem_release(e->jobs[i].done);
    }
}

/* A window that waited for a writer at the client's dirty threshold
 * (run.c eng_window_throttled) ends now if no measured job has a client
 * I/O outstanding or to issue: its end's meter, and nothing after it
 * counts (the lazy writer's write-behind of what is left dirty goes on
 * until the run ends: the copy tool does not wait for it). */
void eng_window_last(struct eng *e)
{
  for (int i = 0; i < e->njobs; i++) {
    const struct eng_job *j = &e->jobs[i];
    if (!j->spec->prep && (j->outstanding > 0 || eng_may_issue(j)))
      return;
  }
  e->throttle_window = 0;
  e->t_end_s = simgrid_get_clock();
  eng_meter_take(e, &e->win[1]);
  e->nwin = 2;
}

void eng_window_wake(struct eng *e)
{
  if (e->window_sem)
    sg_sem_release(e->window_sem);
}

int eng_window_setup(struct eng *e)
{
  const struct scenario *s = e->s;
  int n = s->ndisks + s->ncache_devs;
  for (int k = 0; k < 2; k++) {
    e->win[k].dev_busy_s = eng_own(e, (size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!e->win[k].dev_busy_s)
      return -1;
  }
  int time_based = e->step->njobs > 0;
  for (int i = 0; i < e->step->njobs; i++)
    time_based &= e->step->jobs[i].time_based != 0;
  e->stop_at_end = time_based && s->op == STACK_OP_NONE;
  e->window_sem = eng_sem(e);
  eng_spawn("window", eng_nas_host(e), eng_window_main, e, 1);
  return 0;
}

/* The window's meters: its start's (or the run's start, none taken: a
 * run with a background operation, or a window that never opened) and
 * its end's (or now). */
static void eng_window_meters(struct eng *e, struct eng_meter *from, struct eng_meter *to)
{
  eng_meter_take(e, to);
  if (e->nwin == 2)
    *to = e->win[1];
  if (e->nwin >= 1 && e->s->op == STACK_OP_NONE) {
    *from = e->win[0];
    return;
  }
  from->at_s = from->soc_J = from->dev_J = from->parity_s = from->crypto_s = from->mem_s = 0.0;
  for (int i = 0; i < e->s->ndisks + e->s->ncache_devs; i++)
    from->dev_busy_s[i] = 0.0;
}

void eng_window_collect(struct eng *e, struct run_result *out)
{
  const struct scenario *s = e->s;
  int n = s->ndisks + s->ncache_devs;
  double *busy = calloc((size_t)(2 * n + 2), sizeof *busy);
  if (!busy) {
    out->failed = 1;
    snprintf(out->failure, sizeof out->failure, "out of memory");
    return;
  }
  struct eng_meter from = {.dev_busy_s = busy}, to = {.dev_busy_s = busy + n + 1};
  eng_window_meters(e, &from, &to);
  /* the resources' busy time over the metered span, as a share of the window */
  double span = to.at_s - from.at_s, T = out->window_s, scale = span > 0 ? T / span : 0.0;
  for (int i = 0; i < n; i++)
    analysis_add(out, RES_DISK, i < s->ndisks ? e->disks[i]->name : e->cache[i - s->ndisks]->name,
                 i < s->ndisks ? s->drive.name : s->cache_drive.name,
                 (to.dev_busy_s[i] - from.dev_busy_s[i]) * scale);
  if (s->soc.parity_engine_rate_bytes_per_s > 0)
    analysis_add(out, RES_ENGINE, "soc.parity_engine", "XOR / RAID-6 P+Q offload",
                 (to.parity_s - from.parity_s) * scale);
  if (s->soc.crypto_engine_rate_bytes_per_s > 0)
    analysis_add(out, RES_ENGINE, "soc.crypto_engine", "AES offload", (to.crypto_s - from.crypto_s) * scale);
  analysis_add(out, RES_ENGINE, "soc.memory", "page-cache copies over the memory bus", (to.mem_s - from.mem_s) * scale);
  analysis_finish(out);

  /* Power: SoC from its cores' load (cpu.h), drives from their models,
   * chassis and NIC ports from the system catalogue; at the wall, the DC
   * load over the power supply's efficiency. */
  int ports = e->local ? 0 : e->map.nas_ports;
  out->energy_J = (to.soc_J - from.soc_J + to.dev_J - from.dev_J +
                   (s->system.power_base_W + ports * s->system.power_nic_port_W) * span) /
                  s->system.power_psu_efficiency;
  out->avg_power_W = span > 0 ? out->energy_J / span : 0.0;
  free(busy);
}
