/* run.c - one run: set up the platform, the storage and every actor,
 * run SimGrid, collect the results (totals, utilisation, power). */
#include <simgrid/engine.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xbt/config.h>
#include <xbt/log.h>

#include "models/disks/fault.h"
#include "models/disks/iface.h"
#include "sim/config/replay.h"
#include "models/storage/pcache.h"
#include "sim/analysis/analysis.h"
#include "sim/engine/eng_impl.h"

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(nastwin);

void eng_totals(struct res_totals *t, const struct stats_hist *h, double bytes, uint64_t ios, double window_s)
{
  memset(t, 0, sizeof *t);
  t->ios = ios;
  t->bytes = bytes;
  if (window_s > 0) {
    t->iops = (double)ios / window_s;
    t->MBps = bytes / window_s / 1e6;
  }
  if (stats_hist_count(h) == 0)
    return;
  t->lat_mean_s = stats_hist_mean(h);
  t->lat_stddev_s = stats_hist_stddev(h);
  t->lat_min_s = stats_hist_min(h);
  t->lat_max_s = stats_hist_max(h);
  for (int i = 0; i < RES_NPCT; i++)
    t->lat_pct_s[i] = stats_hist_quantile(h, res_percentiles[i]);
  for (int i = 0; i < RES_FIO_NPCT; i++)
    t->fio_pct_s[i] = stats_hist_quantile(h, res_fio_percentiles[i] / 100.0);
  for (int i = 0; i < RES_FIO_NEDGES; i++)
    t->fio_lat_le[i] = stats_hist_count_le(h, res_fio_lat_edges_s[i]);
  t->nbins = stats_hist_bins(h, t->bin_s, t->bin_count, RES_MAX_BINS);
}

/* The per-direction slices of bytes and I/Os wholly inside [from_s, to_s]
 * (times from the window's start). */
static void eng_samples(struct res_totals *t, const struct stats_series *bytes,
                        const struct stats_series *ios, double from_s, double to_s)
{
  const double eps = 1e-9;
  for (int k = 0; (k + 1) * bytes->bin_s <= to_s + eps && t->nsamples < RES_MAX_SAMPLES; k++) {
    if (k * bytes->bin_s < from_s - eps)
      continue;
    t->sample_bytes[t->nsamples] = k < bytes->nbins ? bytes->values[k] : 0.0;
    t->sample_ios[t->nsamples++] = k < ios->nbins ? ios->values[k] : 0.0;
  }
}

/* ---- the measured window: warm-up, Little's law, batch means ---------- */

#define ENG_NEVER 1e300    /* ramp_s / t_end_s while the window waits */
#define ENG_WIN_BINS 4096  /* in-window series: bins before halving the resolution */
#define ENG_FEW_IOS 1000   /* fewer I/Os: "too few I/Os for a stable figure" */

double eng_job_run_s(const struct eng *e, const struct job *spec)
{
  return spec->runtime_s > 0 && spec->runtime_s < e->s->time_s ? spec->runtime_s : e->s->time_s;
}

/* A job of the step writes buffered through a client cache whose lazy
 * writer writes behind it (clients.lazy_write_share). */
static int eng_writes_behind(const struct eng *e)
{
  for (int i = 0; i < e->njobs; i++) {
    const struct eng_job *j = &e->jobs[i];
    if (eng_client_lazy(e, j->client) && !j->spec->direct && j->spec->read_frac < 1.0)
      return 1;
  }
  return 0;
}

/* The window of a step.  A time-based step with a closed-loop job (and
 * no prep job) measures from the end of its first round: the queues start empty, so until
 * every one of the first depth I/Os of each job has completed the
 * latencies belong to the fill, not to the steady state (a 16 x 16 SMB
 * read at 1.6 s per I/O: X R / N = 0.90 over 10 s from time 0).  The
 * window keeps the step's length, so the run gets longer by the fill.
 * A sized step (no prep job) whose buffered writes a lazy writer writes
 * behind measures from the moment a writer first waits at the client's
 * dirty threshold, for the step's length, to the last client I/O: before
 * it the client's cache takes the copy at the client's own rate (the
 * first gigabytes of a folder copy, as many as its RAM allows), after it
 * the copy goes at the write-behind's pace (the steady copy). */
static void eng_warm_setup(struct eng *e)
{
  const struct workload_step *st = e->step;
  int closed = 0, prep = 0;
  for (int i = 0; i < st->njobs; i++) {
    prep |= st->jobs[i].prep;
    closed |= !workgen_timed(&st->jobs[i]);
    if (!st->jobs[i].prep && !st->jobs[i].time_based)
      e->size_based = 1;
  }
  /* A sized step is measured to its last completion: the time limit
   * stops the issuing, the I/Os in flight then still count. */
  if (e->size_based)
    e->t_end_s = ENG_NEVER;
  if (e->size_based && !prep && eng_writes_behind(e)) {
    e->throttle_pending = e->warm_pending = 1;
    e->warm_ramp_s = e->ramp_s;
    e->ramp_s = ENG_NEVER;
    for (int i = 0; i < e->njobs; i++)
      e->jobs[i].t_end = ENG_NEVER;
    return;
  }
  if (!closed || prep || e->size_based)
    return;
  e->warm_pending = 1;
  e->warm_ramp_s = e->ramp_s;
  e->ramp_s = e->t_end_s = ENG_NEVER;
  for (int i = 0; i < e->njobs; i++)
    e->jobs[i].t_end = ENG_NEVER;
}

void eng_little_step(struct eng *e, int d)
{
  double now = simgrid_get_clock();
  double a = fmin(fmax(e->little_t, e->ramp_s), e->t_end_s), b = fmin(fmax(now, e->ramp_s), e->t_end_s);
  e->little_area += e->little_n * (b > a ? b - a : 0.0);
  e->little_t = now;
  e->little_n += d;
}

void eng_warm_issue(struct eng *e, struct eng_req *r, int first)
{
  const struct job *spec = r->job->spec;
  if (!r->flush && !spec->prep)
    eng_little_step(e, 1);
  if (e->warm_pending && first && !r->flush && !spec->prep && !workgen_timed(spec)) {
    r->first_round = 1;
    e->warm_left++;
  }
}

/* The window opens now, or at the step's ramp if that is later. */
static void eng_warm_open(struct eng *e, double now_s)
{
  double off = now_s > e->warm_ramp_s ? now_s - e->warm_ramp_s : 0.0;
  e->warm_pending = 0;
  e->ramp_s = e->warm_ramp_s + off;
  e->t_end_s = e->s->time_s + off;
  for (int i = 0; i < e->njobs; i++)
    e->jobs[i].t_end = eng_job_run_s(e, e->jobs[i].spec) + off;
  eng_window_wake(e);
}

/* Every client I/O's time inside the window adds to L x window; an I/O
 * completed in the window adds to the window's series per direction
 * (0 read, 1 write, 2 all): count and latency sum per bin. */
void eng_warm_done(struct eng *e, struct eng_req *r, double now_s)
{
  if (!r->flush && !r->job->spec->prep)
    eng_little_step(e, -1);
  if (!r->flush && !r->error && !r->job->spec->prep && e->nprep == 0) {
    double lo = r->t_issue_s > e->ramp_s ? r->t_issue_s : e->ramp_s;
    double hi = now_s < e->t_end_s ? now_s : e->t_end_s;
    if (hi > lo)
      e->resid_s += hi - lo;
    double t = now_s - e->ramp_s;
    if (t >= 0.0 && now_s <= e->t_end_s) {
      while (t >= e->win_ios[2].bin_s * ENG_WIN_BINS)
        for (int k = 0; k < 3; k++) {
          stats_series_fold(&e->win_ios[k]);
          stats_series_fold(&e->win_lat[k]);
        }
      e->dirty_last = (double)stack_dirty_bytes(e->stack);
      if (!e->win_seen)
        e->dirty_first = e->dirty_last, e->win_seen = 1;
      int dirs[2] = {r->write ? 1 : 0, 2};
      for (int k = 0; k < 2; k++) {
        stats_series_add(&e->win_ios[dirs[k]], t, 1.0);
        stats_series_add(&e->win_lat[dirs[k]], t, now_s - r->t_issue_s);
      }
    }
  }
  if (r->first_round && --e->warm_left == 0 && e->warm_pending && !e->throttle_pending)
    eng_warm_open(e, now_s);
}

/* A writer waits at its client cache's dirty threshold with the lazy
 * writer running (it has scanned once: before, only the writers' waits
 * start write-backs): the window of a step that waited for it
 * (eng_warm_setup) opens now, the jobs' time limit counted from here; the
 * window ends at the measured jobs' last client I/O (eng_window_last). */
void eng_window_throttled(struct eng *e)
{
  if (!e->throttle_pending)
    return;
  double now = simgrid_get_clock();
  e->throttle_pending = e->warm_pending = 0;
  e->throttle_window = 1;
  e->ramp_s = now > e->warm_ramp_s ? now : e->warm_ramp_s;
  for (int i = 0; i < e->njobs; i++)
    if (!e->jobs[i].spec->prep)
      e->jobs[i].t_end = e->ramp_s + eng_job_run_s(e, e->jobs[i].spec);
  eng_window_wake(e);
}

/* Direction k's bins of the window, zero-padded to nb whole bins. */
static double *eng_win_bins(const struct stats_series *s, int nb)
{
  double *v = calloc((size_t)(nb > 0 ? nb : 1), sizeof *v);
  for (int i = 0; v && i < nb && i < s->nbins; i++)
    v[i] = s->values[i];
  return v;
}

/* Batch-means half-widths of one direction: batches at least one round
 * of requests (the mean latency) long, 20 at most. */
static void eng_batch_means(struct res_totals *t, const struct stats_series *ios, const struct stats_series *lat,
                            double window_s, double round_s)
{
  t->iops_hw95_rel = t->lat_mean_hw95_rel = -1.0;
  int nb = (int)floor(window_s / ios->bin_s + 1e-9);
  int k = round_s > 0 ? (int)floor(window_s / round_s) : 0;
  k = k > 20 ? 20 : k;
  double *n = eng_win_bins(ios, nb), *y = eng_win_bins(lat, nb);
  if (n && y && t->ios > 0 &&
      stats_batch_means(n, y, nb, k < nb ? k : nb, &t->iops_hw95_rel, &t->lat_mean_hw95_rel) != 0)
    t->iops_hw95_rel = t->lat_mean_hw95_rel = -1.0;
  free(n);
  free(y);
}

/* Little's L, the batch means, MSER-5 on the throughput series and the
 * warnings of the window. */
static void eng_window_stats(struct eng *e, struct run_result *out, int never_opened)
{
  out->window_start_s = e->ramp_s;
  /* a run stopped at the window's end: the I/Os abandoned then were in
   * flight too (their residence never completes into resid_s) */
  double resid = e->stopped ? e->little_area : e->resid_s;
  out->outstanding_avg = out->window_s > 0 ? resid / out->window_s : 0.0;
  /* Bins as eng_warm_done keeps them, up to the window's end: at most
   * ENG_WIN_BINS whole bins over the window (a 28-hour rebuild with no
   * client I/O would otherwise ask for 10^9 empty 0.1 ms bins). */
  while (out->window_s >= e->win_ios[2].bin_s * ENG_WIN_BINS)
    for (int k = 0; k < 3; k++) {
      stats_series_fold(&e->win_ios[k]);
      stats_series_fold(&e->win_lat[k]);
    }
  double round_s = out->all.lat_mean_s;
  struct res_totals *dirs[3] = {&out->read, &out->write, &out->all};
  for (int k = 0; k < 3; k++)
    eng_batch_means(dirs[k], &e->win_ios[k], &e->win_lat[k], out->window_s, round_s);
  out->mser_s = -1.0;
  out->steady = !never_opened;
  int nb = (int)floor(out->window_s / e->win_ios[2].bin_s + 1e-9);
  double *x = eng_win_bins(&e->win_ios[2], nb);
  int d = x ? stats_mser5(x, nb) : -1;
  if (d >= 0) {
    out->mser_s = d * e->win_ios[2].bin_s;
    if (STATS_MSER5_UNSETTLED(d, nb) || stats_drifts(x, d, nb, out->all.iops_hw95_rel))
      out->steady = 0;
  }
  free(x);
  /* Dirty pages at equilibrium: in a steady state the flusher writes back
   * what the clients write; pages piling up over the window mean the
   * page cache, not the disks, took the writes. */
  out->absorbed_share = out->write.bytes > 0 ? (e->dirty_last - e->dirty_first) / out->write.bytes : 0.0;
  if (out->absorbed_share > 0.1)
    out->steady = 0;
  out->few_ios = e->step && (out->all.ios < ENG_FEW_IOS || out->window_s < round_s);
}

/* A replay of a trace with measured response times: the demerit of the
 * simulated ones against them. */
static void eng_replay_result(struct eng *e, struct run_result *out)
{
  const struct replay_trace *t = e->s->workload.replay;
  double *traced = malloc((size_t)t->n * sizeof *traced);
  if (!traced)
    return;
  double sum_t = 0.0, sum_s = 0.0;
  for (int i = 0; i < t->n; i++)
    sum_t += (traced[i] = t->v[i].traced_s);
  for (int i = 0; i < e->nreplay_lat; i++)
    sum_s += e->replay_lat[i];
  out->replay.traced = 1;
  out->replay.requests = e->nreplay_lat;
  out->replay.traced_mean_s = sum_t / t->n;
  out->replay.simulated_mean_s = sum_s / e->nreplay_lat;
  out->replay.demerit_s = replay_demerit_s(e->replay_lat, e->nreplay_lat, traced, t->n);
  free(traced);
}

static int eng_setup_storage(struct eng *e, struct nw_err *err)
{
  const struct scenario *s = e->s;
  int n = s->ndisks;
  e->disks = calloc((size_t)n, sizeof *e->disks);
  e->cache = calloc((size_t)(s->ncache_devs > 0 ? s->ncache_devs : 1), sizeof *e->cache);
  if (!e->disks || !e->cache)
    return nw_fail(err, s->path, 0, 0, "out of memory");
  for (int i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "disk%d", i);
    e->disks[i] = disk_create(s->drive.model, s->drive.params, name, s->seed * 1000003u + (uint64_t)i);
    char msg[256];
    if (e->disks[i] && disk_set_layout(e->disks[i], &s->drive.layout, msg, sizeof msg) != 0)
      return nw_fail(err, s->path, 0, 0, "drive '%s': %s", s->drive.name, msg);
    for (int f = 0; f < s->nfaults && e->disks[i]; f++)
      if (s->faults[f].kind == CFG_FAULT_DISK_HANG && s->faults[f].target == i)
        e->disks[i] = disk_fault_hang(e->disks[i], s->faults[f].at_s);
    if (!e->disks[i])
      return nw_fail(err, s->path, 0, 0, "out of memory");
  }
  for (int i = 0; i < s->ncache_devs; i++) {
    char name[32];
    snprintf(name, sizeof name, "cache%d", i);
    e->cache[i] = disk_create(s->cache_drive.model, s->cache_drive.params, name,
                              s->seed * 1000003u + 500u + (uint64_t)i);
    if (!e->cache[i])
      return nw_fail(err, s->path, 0, 0, "out of memory");
  }
  const struct cfg_drive *secs[2] = {&s->drive, &s->cache_drive};
  struct disk **devs[2] = {e->disks, e->cache};
  int ndevs[2] = {n, s->ncache_devs};
  for (int k = 0; k < 2; k++) { /* devices behind one PCIe slot or SATA port */
    if (!(secs[k]->link_rate_bytes_per_s > 0) || ndevs[k] == 0)
      continue;
    e->links[k] = iface_link_create(k ? "cache-link" : "disk-link", secs[k]->link_rate_bytes_per_s,
                                    secs[k]->link_reserved_bytes_per_s);
    if (!e->links[k])
      return nw_fail(err, s->path, 0, 0, "out of memory");
    for (int i = 0; i < ndevs[k]; i++)
      if (devs[k][i]->model->attach_link)
        devs[k][i]->model->attach_link(devs[k][i]->priv, e->links[k]);
  }
  struct stack_cfg cfg = {.volume = s->volume, .pcache = s->pcache, .ssdcache = s->ssdcache,
                          .crypt = s->crypt, .members = e->disks, .cache_devs = e->cache,
                          .ncache_devs = s->ncache_devs, .seed = s->seed};
  cfg.member_bytes = (uint64_t)s->drive.model->capacity_bytes(s->drive.params);
  if (s->op != STACK_OP_NONE) {
    cfg.volume.members = s->op_from_members;
    cfg.spares = e->disks + s->op_from_members;
    cfg.nspares = s->ndisks - s->op_from_members;
    if (s->op == STACK_OP_MIGRATE)
      cfg.volume.level = s->op_from_level;
  }
  if (s->soc.parity_engine_rate_bytes_per_s > 0) {
    accel_init(&e->parity, "soc.parity_engine", s->soc.parity_engine_rate_bytes_per_s,
               s->soc.parity_engine_setup_s);
    cfg.parity_engine = &e->parity;
  }
  cfg.crypto_engine_decrypt_speedup = s->soc.crypto_engine_decrypt_speedup;
  cfg.disk_request_cycles = s->soc.disk_request_cycles;
  cfg.ssdcache_io_cycles = s->soc.ssdcache_io_cycles;
  cfg.stripe_cycles = s->soc.md_stripe_cycles;
  cfg.stripe_dev_cycles = s->soc.md_stripe_dev_cycles;
  if (s->soc.crypto_engine_rate_bytes_per_s > 0) {
    accel_init(&e->crypto, "soc.crypto_engine", s->soc.crypto_engine_rate_bytes_per_s,
               s->soc.crypto_engine_setup_s);
    accel_set_queues(&e->crypto, (int)s->soc.crypto_engine_queues);
    cfg.crypto_engine = &e->crypto;
  }
  /* RAM copies of page-cache hits share the SoC's memory bandwidth (in
   * local mode, the client's: the client-pc system's SoC entry). */
  accel_init(&e->mem_bus, "soc.memory", 1.0 / soc_mem_copy_s(&s->soc, 1.0), 0.0);
  cfg.mem_bus = &e->mem_bus;
  struct stack_hooks hooks = {.ctx = e, .io_done = eng_hook_done, .cpu_work = eng_hook_cpu,
                             .io_error = eng_hook_error};
  e->stack = stack_create(&cfg, &hooks, err);
  return e->stack ? 0 : -1;
}

static void eng_destroy(struct eng *e)
{
  eng_net_destroy(e);
  eng_cpu_destroy(e);
  stack_destroy(e->stack);
  for (int i = 0; e->disks && i < e->s->ndisks; i++)
    disk_destroy(e->disks[i]);
  for (int i = 0; e->cache && i < e->s->ncache_devs; i++)
    disk_destroy(e->cache[i]);
  free(e->disks);
  free(e->cache);
  iface_link_destroy(e->links[0]);
  iface_link_destroy(e->links[1]);
  for (int i = 0; i < e->njobs; i++) {
    if (e->jobs[i].rng)
      gsl_rng_free(e->jobs[i].rng);
    mpio_destroy(e->jobs[i].mpio);
    free(e->jobs[i].ra.done);
    free(e->jobs[i].pgc.present);
  }
  free(e->jobs);
  free(e->conns);
  for (int i = 0; e->clients && i < e->s->nclients; i++)
    pcache_destroy(e->clients[i].cache);
  free(e->clients);
  for (int i = 0; i < e->nthreads; i++)
    free(e->threads[i]);
  stats_hist_destroy(e->h_read);
  stats_hist_destroy(e->h_write);
  stats_hist_destroy(e->h_trim);
  stats_hist_destroy(e->h_all);
  free(e->replay_lat);
  stats_series_free(&e->series);
  for (int k = 0; k < 3; k++) {
    stats_series_free(&e->win_ios[k]);
    stats_series_free(&e->win_lat[k]);
  }
  for (int k = 0; k < 6; k++)
    stats_series_free(&e->fio_samples[k]);
  for (int i = 0; i < e->nowned; i++)
    free(e->owned[i]);
  free(e->owned);
  for (int i = 0; i < e->nsems; i++)
    sg_sem_destroy(e->sems[i]);
  free(e->sems);
}

/* Name the run and pick its workload step; 0, or 1 with out->failure. */
static int eng_begin(struct eng *e, const struct scenario *s, int step, struct run_result *out)
{
  memset(out, 0, sizeof *out);
  snprintf(out->scenario, sizeof out->scenario, "%s", s->name);
  out->seed = s->seed;
  out->bottleneck = -1;
  e->s = s;
  e->ops = proto_ops_of(&s->proto);
  e->local = e->ops->shape == PROTO_SHAPE_NONE;
  e->header_bytes = e->ops->header_bytes;
  int with_workload = s->op == STACK_OP_NONE || s->op_with_workload;
  if (with_workload) {
    if (step < 0 || step >= s->workload.nsteps) {
      snprintf(out->failure, sizeof out->failure, "no workload step %d", step);
      out->failed = 1;
      return 1;
    }
    e->step = &s->workload.steps[step];
    for (int i = 0; i < e->step->njobs; i++)
      e->net_only |= e->step->jobs[i].net_only;
    if (e->net_only) {
      e->header_bytes = 0.0; /* a raw stream: no protocol messages */
      if (e->local) {
        snprintf(out->failure, sizeof out->failure, "an iperf step needs a network: protocol kind %s has none",
                 e->ops->name);
        out->failed = 1;
        return 1;
      }
    }
    snprintf(out->step, sizeof out->step, "%s", e->step->name);
    snprintf(out->metric, sizeof out->metric, "%s", e->step->metric);
  } else {
    snprintf(out->step, sizeof out->step, "%s", stack_op_names[s->op]);
    snprintf(out->metric, sizeof out->metric, "duration_s");
  }

  return 0;
}

/* SimGrid: quiet unless asked, CM02 (no LV08 latency/bandwidth factors:
 * they distort small RPCs), no cross-traffic penalty on full duplex; the
 * trace-integration CPU model, as SimGrid only times the actors' waits
 * (platform.h): its sleeps cost no max-min variable each. */
static void eng_simgrid_init(const struct scenario *s, int nlog, char **log_args)
{
  xbt_log_control_set("root.thres:critical");
  xbt_log_control_set("nastwin.thres:warning");
  char *argv[64] = {"nastwin"};
  int argc = 1;
  for (int i = 0; i < nlog && argc < 63; i++)
    argv[argc++] = log_args[i];
  simgrid_init(&argc, argv);
  sg_cfg_set_string("network/model", "CM02");
  sg_cfg_set_boolean("network/crosstraffic", "no");
  sg_cfg_set_string("cpu/optim", "TI");
  if (s->net.tcp_window_bytes > 0)
    sg_cfg_set_double("network/TCP-gamma", s->net.tcp_window_bytes);
}

/* The platform, the storage stack, its kernel threads and the window. */
static int eng_setup_platform(struct eng *e, struct nw_err *err)
{
  const struct scenario *s = e->s;
  int with_workload = e->step != NULL;
  if (plat_build(s, &e->map, err) < 0)
    return -1;
  char path[256];
  if (plat_write(s, &e->map, path, sizeof path, err) < 0)
    return -1;
  simgrid_load_platform(path);
  unlink(path);
  int local = e->local;
  e->nas_hosts = eng_own(e, (size_t)e->map.nas_hosts * sizeof *e->nas_hosts);
  if (!e->nas_hosts)
    return nw_fail(err, s->path, 0, 0, "out of memory");
  for (int k = 0; k < e->map.nas_hosts; k++) {
    char name[32];
    plat_nas_host_name(k, name, sizeof name);
    e->nas_hosts[k] = sg_host_by_name(name);
  }
  if (eng_cpu_setup(e) < 0)
    return nw_fail(err, s->path, 0, 0, "out of memory");

  if (eng_setup_storage(e, err) < 0)
    return -1;
  e->storage_wake = eng_sem(e);
  e->storage_deadline = -1.0;
  e->h_read = stats_hist_create();
  e->h_write = stats_hist_create();
  e->h_trim = stats_hist_create();
  e->h_all = stats_hist_create();
  if (with_workload && s->workload.replay) {
    int copies = 0;
    for (int i = 0; i < e->step->njobs; i++)
      copies += e->step->jobs[i].replay ? e->step->jobs[i].numjobs : 0;
    e->replay_cap = s->workload.replay->n * copies * (s->nclients > 0 ? s->nclients : 1);
    e->replay_lat = malloc((size_t)e->replay_cap * sizeof *e->replay_lat);
    if (!e->replay_lat)
      e->replay_cap = 0;
  }
  stats_series_init(&e->series, 1.0);
  for (int k = 0; k < 3; k++) {
    stats_series_init(&e->win_ios[k], 1e-4);
    stats_series_init(&e->win_lat[k], 1e-4);
  }
  for (int k = 0; k < 6; k++)
    stats_series_init(&e->fio_samples[k], RES_SAMPLE_S);
  double speed = local ? PLAT_CLIENT_SPEED : e->map.nas_speed_cycles_per_s;
  static const char *const kt_names[STACK_THREAD_COUNT] = {"md_raid", "flush", "kcryptd", "blk", "ssdcache"};
  static const char *const kt_who[STACK_THREAD_COUNT] = {
      "md raid5d/6d parity thread", "page-cache flusher", "kcryptd AES",
      "disk requests: block layer, SATA driver, completion IRQ",
      "SSD-cache layer: look-up, LRU, remap, metadata"};
  for (int k = 0; k < STACK_THREAD_COUNT; k++) {
    struct eng_kthread *kt = &e->kthreads[k];
    kt->e = e;
    kt->kind = (enum stack_thread)k;
    snprintf(kt->acct.name, sizeof kt->acct.name, "soc.%s", kt_names[k]);
    snprintf(kt->acct.who, sizeof kt->acct.who, "%s", kt_who[k]);
    kt->acct.speed = speed;
    kt->sem = eng_sem(e);
    eng_spawn(kt_names[k], eng_nas_host(e), eng_kthread_main, kt, 1);
  }
  eng_spawn("storage", eng_nas_host(e), eng_storage_main, e, 1);

  e->ramp_s = 0.0;
  e->t_end_s = s->time_s;
  if (with_workload) {
    const struct workload_step *st = e->step;
    double ramp = 0.0;
    for (int i = 0; i < st->njobs; i++)
      if (st->jobs[i].ramp_s > ramp)
        ramp = st->jobs[i].ramp_s;
    e->ramp_s = ramp < s->time_s ? ramp : 0.0;
  }

  return 0;
}

/* The throughput per bin of simulated time (bin i: [i, i + 1) x bin_s):
 * the bytes done in it over the part of it the window covers, so the
 * window's first and last partial bins are rates like the others (a
 * window ending 0.3 s into a second holds 0.3 s of bytes); 0 outside the
 * window. */
static void eng_collect_series(const struct eng *e, struct run_result *out)
{
  double bin = e->series.bin_s, from = e->ramp_s, to = e->ramp_s + out->window_s;
  out->nseries = e->series.nbins < RES_MAX_SERIES ? e->series.nbins : RES_MAX_SERIES;
  for (int i = 0; i < out->nseries; i++) {
    double lo = fmax((double)i * bin, from), hi = fmin((double)(i + 1) * bin, to);
    out->series_MBps[i] = hi > lo ? e->series.values[i] / (hi - lo) / 1e6 : 0.0;
  }
}

/* The client I/O figures of the measured window: totals per direction,
 * fio's slices, a replay's demerit, errored I/Os and the volume's state. */
static void eng_collect_totals(struct eng *e, struct run_result *out)
{
  const struct scenario *s = e->s;
  eng_totals(&out->read, e->h_read, e->bytes_read, e->ios_read, out->window_s);
  eng_totals(&out->write, e->h_write, e->bytes_write, e->ios_write, out->window_s);
  eng_totals(&out->trim, e->h_trim, e->bytes_trim, e->ios_trim, out->window_s);
  eng_totals(&out->all, e->h_all, e->bytes_read + e->bytes_write + e->bytes_trim,
             e->ios_read + e->ios_write + e->ios_trim, out->window_s);
  eng_samples(&out->read, &e->fio_samples[0], &e->fio_samples[1], 0.0, out->window_s);
  eng_samples(&out->write, &e->fio_samples[2], &e->fio_samples[3], 0.0, out->window_s);
  eng_samples(&out->trim, &e->fio_samples[4], &e->fio_samples[5], 0.0, out->window_s);
  if (e->replay_lat && s->workload.replay->traced && e->nreplay_lat > 0)
    eng_replay_result(e, out);
  out->read.errors = e->err_read;
  out->write.errors = e->err_write;
  out->trim.errors = e->err_trim;
  out->all.errors = e->err_read + e->err_write + e->err_trim;
  struct stack_volume_state vol;
  stack_volume_get(e->stack, &vol);
  out->volume_failed = vol.failed;
  out->volume_failed_at_s = vol.failed_at_s;
  out->volume_lost_bytes = vol.lost_bytes_estimate;
  eng_collect_series(e, out);
}

/* The background operations and their phases (an unfinished one up to
 * now), at the run's average power. */
static void eng_collect_ops(struct eng *e, double now, struct run_result *out)
{
  for (int i = 0; i < stack_op_count(e->stack) && out->nops < RES_MAX_OPS; i++) {
    struct stack_op_report rep;
    stack_op_get(e->stack, i, &rep);
    struct res_op *o = &out->ops[out->nops++];
    snprintf(o->kind, sizeof o->kind, "%s", stack_op_names[rep.kind]);
    o->duration_s = (rep.end_s >= 0 ? rep.end_s : now) - rep.start_s;
    o->stopped = rep.stopped;
    o->avg_power_W = out->avg_power_W;
    for (int k = 0; k < rep.nphases && k < (int)(sizeof o->phases / sizeof o->phases[0]); k++) {
      snprintf(o->phases[k].name, sizeof o->phases[k].name, "%s", rep.phases[k].name);
      o->phases[k].duration_s = (rep.phases[k].end_s >= 0 ? rep.phases[k].end_s : now) - rep.phases[k].start_s;
      o->nphases = k + 1;
    }
  }
}

/* Totals, utilisation of every resource, power and operations into out. */
static void eng_collect(struct eng *e, struct run_result *out)
{
  const struct scenario *s = e->s;
  int with_workload = e->step != NULL;
  int local = e->local;
  int nconns = local ? 0 : e->map.nconns;
  char name[96];
  double now = simgrid_get_clock();
  out->simulated_s = now;
  uint64_t issued = 0, completed = 0;
  int jobs_done = 1;
  for (int i = 0; i < e->njobs; i++) {
    issued += e->jobs[i].issued;
    completed += e->jobs[i].completed;
    jobs_done &= e->jobs[i].finished != 0;
  }
  out->issued = issued;
  out->protocol_requests = e->proto_requests;
  out->completed = completed;
  out->clients = s->nclients;
  if (with_workload && e->step->njobs > 0) {
    out->outstanding_per_client = e->njobs / (s->nclients > 0 ? s->nclients : 1) * e->jobs[0].depth;
    out->latency_depth = e->jobs[0].lat.on ? e->jobs[0].lat.qd : 0;
  }
  /* A time-based run stopped at its window's end abandons what is
   * outstanding; unless a device hung before (its requests would never
   * complete: the figures are not a measurement). */
  int hung = -1;
  for (int i = 0; i < s->nfaults; i++)
    if (s->faults[i].kind == CFG_FAULT_DISK_HANG && s->faults[i].at_s <= now)
      hung = i;
  if ((issued != completed && (!e->stopped || hung >= 0)) || !jobs_done ||
      (s->op != STACK_OP_NONE && stack_ops_running(e->stack))) {
    out->failed = 1;
    snprintf(out->failure, sizeof out->failure,
             "simulation did not finish: %llu of %llu client I/Os completed%s%s", (unsigned long long)completed,
             (unsigned long long)issued,
             s->op != STACK_OP_NONE && stack_ops_running(e->stack) ? ", background operation unfinished" : "",
             hung >= 0 ? " (a disk hung: its requests never complete)" : " (deadlock in the model?)");
  }
  if (e->throttle_pending && !out->failed) {
    out->failed = 1;
    snprintf(out->failure, sizeof out->failure,
             "no steady copy to measure: the client cache took every write (its dirty threshold, clients.ram "
             "x clients.dirty_ratio = %.4g GB, was never reached); a larger folder or a smaller clients.ram",
             s->client.ram_bytes * s->client.dirty_ratio / 1e9);
  }
  int never_opened = e->warm_pending; /* the first round never ended */
  if (never_opened)
    e->ramp_s = e->t_end_s = now;
  /* Measured window: [ramp, end of issuing] for time-based runs, [ramp,
   * last completion] otherwise. */
  double wend = e->last_done_s;
  int time_based = with_workload;
  for (int i = 0; i < (with_workload ? e->step->njobs : 0); i++)
    if (!e->step->jobs[i].time_based)
      time_based = 0;
  if (time_based)
    wend = e->t_end_s < now ? e->t_end_s : now;
  if (!with_workload)
    wend = now;
  out->window_s = wend - e->ramp_s > 0 ? wend - e->ramp_s : 0.0;
  eng_collect_totals(e, out);
  eng_window_stats(e, out, never_opened);

  /* Utilisation: threads, links, then disks and engines (window.c). */
  for (int i = 0; i < e->nthreads + STACK_THREAD_COUNT; i++) {
    const struct eng_thread *t = i < e->nthreads ? e->threads[i] : &e->kthreads[i - e->nthreads].acct;
    int x = analysis_add(out, RES_THREAD, t->name, t->who, t->cycles / t->speed);
    if (x >= 0)
      out->res[x].occupied_s = eng_occupied_s(e, t, now);
  }
  if (!local)
    analysis_cores(out, e->map.nas_cores);
  if (!local) {
    int np = e->map.nas_ports;
    double up[64] = {0}, down[64] = {0};
    int nc = e->map.client_nics;
    for (int i = 0; i < nconns; i++) {
      const struct eng_conn *c = &e->conns[i];
      up[c->pc->nas_rx % 64] += c->bytes_up;
      down[c->pc->nas_tx % 64] += c->bytes_down;
      for (int m = 0; m < np && m < PLAT_MAX_BOND; m++)
        if (e->map.failover & (1u << m)) {
          up[c->pc->alt_rx[m]] += c->alt_up[m];
          down[c->pc->alt_tx[m]] += c->alt_down[m];
        }
    }
    for (int m = 0; m < np && m < 64; m++) {
      snprintf(name, sizeof name, "net.nas%d.rx", m);
      analysis_add(out, RES_LINK, name, "NAS port, client->NAS payload",
                   up[m] / e->map.nas_port_payload_bytes_per_s);
      snprintf(name, sizeof name, "net.nas%d.tx", m);
      analysis_add(out, RES_LINK, name, "NAS port, NAS->client payload",
                   down[m] / e->map.nas_port_payload_bytes_per_s);
    }
    for (int c = 0; c < s->nclients; c++)
      for (int n = 0; n < nc; n++) {
        double tx = 0, rx = 0;
        for (int i = 0; i < nconns; i++) {
          const struct eng_conn *cn = &e->conns[i];
          if (cn->pc->client != c)
            continue;
          for (int m = -1; m < np && m < PLAT_MAX_BOND; m++) {
            if (m >= 0 && !(e->map.failover & (1u << m)))
              continue;
            if (cn->pc->client_tx == n)
              tx += m < 0 ? cn->bytes_up : cn->alt_up[m];
            if (cn->pc->client_rx == n)
              rx += m < 0 ? cn->bytes_down : cn->alt_down[m];
          }
        }
        snprintf(name, sizeof name, "net.client%d.nic%d.tx", c, n);
        analysis_add(out, RES_LINK, name, "client NIC, towards the NAS",
                     tx / e->map.client_nic_payload_bytes_per_s);
        snprintf(name, sizeof name, "net.client%d.nic%d.rx", c, n);
        analysis_add(out, RES_LINK, name, "client NIC, from the NAS",
                     rx / e->map.client_nic_payload_bytes_per_s);
      }
  }
  eng_window_collect(e, out);
  eng_collect_ops(e, now, out);
}

static int eng_run(const struct scenario *s, int step, int nlog, char **log_args, struct run_result *out);

int engine_run(const struct scenario *s, int step, int nlog, char **log_args, struct run_result *out)
{
  /* A step may name its own client count (IOMeter's ramp adds clients one
   * at a time): simulate a copy of the scenario with that many clients. */
  int with_workload = s->op == STACK_OP_NONE || s->op_with_workload;
  if (with_workload && step >= 0 && step < s->workload.nsteps && s->workload.steps[step].clients > 0 &&
      s->workload.steps[step].clients != s->nclients) {
    struct scenario *copy = malloc(sizeof *copy);
    if (!copy) {
      memset(out, 0, sizeof *out);
      out->failed = 1;
      snprintf(out->failure, sizeof out->failure, "out of memory");
      return 1;
    }
    *copy = *s; /* shares the workload: not freed through the copy */
    copy->nclients = s->workload.steps[step].clients;
    int rc = eng_run(copy, step, nlog, log_args, out);
    free(copy);
    return rc;
  }
  return eng_run(s, step, nlog, log_args, out);
}

static int eng_run(const struct scenario *s, int step, int nlog, char **log_args, struct run_result *out)
{
  struct nw_err err = {0};
  struct eng E = {0}, *e = &E;
  if (eng_begin(e, s, step, out) != 0)
    return 1;
  if (e->step && eng_client_only(s, e->step, out)) /* no I/O reaches the NAS (client_only.c) */
    return out->failed ? 1 : 0;
  eng_simgrid_init(s, nlog, log_args);
  if (eng_setup_platform(e, &err) < 0 || eng_setup_daemons(e, &err) < 0 ||
      (e->step && eng_setup_jobs(e, &err) < 0))
    goto fail;
  if (e->step) {
    eng_warm_setup(e);
    if (eng_window_setup(e) < 0) {
      nw_fail(&err, s->path, 0, 0, "out of memory");
      goto fail;
    }
  }
  if (e->step && e->step->precondition && eng_precondition(e) != 0) {
    nw_fail(&err, s->path, 0, 0, "out of memory");
    goto fail;
  }
  if (s->op != STACK_OP_NONE)
    eng_spawn("md-operation", eng_nas_host(e), eng_op_main, e, 0);
  if (s->nfaults > 0)
    eng_spawn("faults", eng_nas_host(e), eng_faults_main, e, 1);

  simgrid_run();

  eng_collect(e, out);
  eng_destroy(e);
  return out->failed ? 1 : 0;

fail:
  out->failed = 1;
  snprintf(out->failure, sizeof out->failure, "%.500s", err.msg);
  eng_destroy(e);
  return 1;
}
