/* client_only.c - a step whose jobs do no I/O to the NAS's storage.
 *
 * fio's null and cpp_null engines complete every I/O in fio's own thread
 * (engines/null.c: FIO_Q_COMPLETED, or queued and completed at the next
 * commit, which fio makes after each queue at its default iodepth_batch
 * of 1, so one I/O is in flight whatever iodepth is); cpuio keeps cpuload % of a
 * core busy and does no I/O; a read-only job on emulated zbd zones with
 * read_beyond_wp=0 finds nothing written and ends at once; exec runs a
 * program for the runtime and does no I/O (what the program does is not
 * modelled: its thread counts as idle).  Such a job is
 * one server per fio thread with a fixed time per I/O (the catalogue's
 * fio_io_time, + fio_queue_time at iodepth > 1, + fio_clock_time without
 * gtod_reduce): its k-th I/O completes at k periods, every one after the
 * same time, so the step is computed in closed form, not event by event
 * (fio's null engine runs millions of I/Os a second).  The NAS sits idle
 * meanwhile: its power is the idle power of its SoC, drives, chassis and
 * ports.
 *
 * fio's net and netsplice engines stream bytes over one TCP connection
 * per fio thread to or from a peer on the NAS, with no protocol daemon
 * and no storage: each stream's rate on the modelled links and the NAS's
 * network stack is client_net.c's; a sender's write of bs bytes then takes
 * bs / rate (a full socket buffer drains at the stream's rate; fio's own
 * per-I/O time overlaps it, and bounds the I/O rate when longer); the
 * first writes filling the empty buffer and the connection's set-up are
 * not timed.  A UDP stream's datagrams that its receiver cannot take in
 * are lost once the receive buffer is full (frame.c net_udp_lost): a
 * reader counts only what it takes in, a sender every datagram it sent.  The SoC's power follows the busy cores.  A step mixing
 * these jobs with NAS storage jobs is refused (fio.c; here as a failed
 * run for a YAML workload). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/disks/disk.h"
#include "models/net/frame.h"
#include "sim/analysis/analysis.h"
#include "sim/engine/client_net.h"

/* The time one I/O of a null job takes on its thread (s). */
static double eng_null_io_s(const struct scenario *s, const struct job *j)
{
  return s->client.fio_io_s + (j->iodepth > 1 ? s->client.fio_queue_s : 0.0) +
         (j->gtod_reduce ? 0.0 : s->client.fio_clock_s);
}

static double eng_mean_bs(const double *bs, const double *w, int n)
{
  double m = 0.0;
  for (int i = 0; i < n; i++)
    m += bs[i] * w[i];
  return m;
}

/* One copy of job j over [ramp_s, its end]: I/Os per direction (fio's
 * read, write, trim) and their bytes, its end, its thread's busy time. */
struct eng_copy {
  double ios[3], bytes[3], dropped[3];
  double io_s, period_s, end_s, busy_s, sent_Bps;
};

/* A net copy's UDP datagrams lost over its window (a full receive buffer:
 * at the NAS for a sender, at fio's reader when it cannot keep up). */
static void eng_copy_udp_lost(const struct job *j, double bs, double taken_Bps, struct eng_copy *c)
{
  int v6, rd = j->read_frac > 0.5;
  if (!eng_net_udp(j, &v6) || j->net_pingpong || c->period_s <= 0)
    return;
  double window_s = (c->ios[0] + c->ios[1]) * c->period_s;
  double mine = 1.0 / c->period_s;            /* datagrams/s fio's thread sends or takes in */
  double peer = rd ? c->sent_Bps / bs : taken_Bps / bs; /* what the sender sends, the NAS takes in */
  c->dropped[rd ? 0 : 1] = rd ? net_udp_lost(peer, mine, eng_net_udp_buffer(j, bs), window_s)
                              : net_udp_lost(mine, peer, eng_net_udp_buffer(j, bs), window_s);
}

/* rate: a net copy's stream, [0] what its sender sends, [1] what its
 * receiver takes in (bytes/s). */
static void eng_copy_run(const struct scenario *s, const struct job *j, double ramp_s, const double *rate,
                         struct eng_copy *c)
{
  memset(c, 0, sizeof *c);
  double run_s = j->runtime_s > 0 && j->runtime_s < s->time_s ? j->runtime_s : s->time_s;
  if (j->client_only == JOB_CLIENT_EOF)
    return;
  if (j->client_only == JOB_CLIENT_CPU || j->client_only == JOB_CLIENT_EXEC) { /* exec: cpuload 0 */
    c->end_s = run_s;
    c->busy_s = j->cpuload * run_s;
    return;
  }
  double mean_r = eng_mean_bs(j->bs_bytes, j->bs_weight, j->nbs);
  double mean_w = j->nbs_w > 0 ? eng_mean_bs(j->bs_bytes_w, j->bs_weight_w, j->nbs_w) : mean_r;
  double cpu_s = eng_null_io_s(s, j); /* fio's own work per I/O, on its thread */
  c->io_s = cpu_s;
  if (j->client_only == JOB_CLIENT_NET) { /* a sync engine: no queue.  fio's own work overlaps the */
    cpu_s = s->client.fio_io_s + (j->gtod_reduce ? 0.0 : s->client.fio_clock_s); /* socket draining */
    double bs = j->read_frac > 0.5 ? mean_r : mean_w;
    c->sent_Bps = rate[0];
    c->io_s = fmax(cpu_s, bs / rate[0]); /* pingpong: the rate holds the echo's wait (client_net.c) */
  }
  c->period_s = c->io_s + j->thinktime_s;
  if (j->rate_iops > 0 && 1.0 / j->rate_iops > c->period_s)
    c->period_s = 1.0 / j->rate_iops;
  double n = floor(run_s / c->period_s);
  if (!j->time_based) {
    double todo = (j->io_bytes > 0 ? j->io_bytes : j->size_bytes) * (j->loops > 1 ? j->loops : 1);
    double mean = j->trim ? mean_w : j->read_frac * mean_r + (1.0 - j->read_frac) * mean_w;
    double need = ceil(todo / mean);
    n = need < n ? need : n;
  }
  c->end_s = n * c->period_s;
  double in = c->end_s > ramp_s ? floor((c->end_s - ramp_s) / c->period_s) : 0.0; /* in the window */
  c->busy_s = in * cpu_s;
  if (j->trim) { /* trim: every I/O; trimwrite: a trim, then a write of the block */
    c->ios[2] = j->trim == 1 ? in : ceil(in / 2.0);
    c->ios[1] = in - c->ios[2];
  } else {
    c->ios[0] = floor(in * j->read_frac + 0.5);
    c->ios[1] = in - c->ios[0];
  }
  c->bytes[0] = c->ios[0] * mean_r;
  c->bytes[1] = c->ios[1] * mean_w;
  c->bytes[2] = c->ios[2] * mean_w;
  if (j->client_only == JOB_CLIENT_NET)
    eng_copy_udp_lost(j, j->read_frac > 0.5 ? mean_r : mean_w, rate[1], c);
}

/* The NAS's power for window_s with busy_cores of its SoC busy (idle
 * drives, chassis and ports), at the wall. */
static void eng_idle_power(const struct scenario *s, double window_s, double busy_cores, struct run_result *out)
{
  int local = proto_ops_of(&s->proto)->shape == PROTO_SHAPE_NONE;
  double J = (local ? 0.0 : soc_power_W(&s->soc, busy_cores)) * window_s;
  J += (s->system.power_base_W + (local ? 0.0 : s->net.nas_links * s->system.power_nic_port_W)) * window_s;
  const struct cfg_drive *secs[2] = {&s->drive, &s->cache_drive};
  int n[2] = {s->ndisks, s->ncache_devs};
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < n[k]; i++) {
      struct disk *d = disk_create(secs[k]->model, secs[k]->params, "idle", s->seed);
      struct disk_stats ds = {0};
      if (d)
        disk_stats(d, window_s, &ds);
      disk_destroy(d);
      J += ds.energy_J;
    }
  out->energy_J = J / s->system.power_psu_efficiency;
  out->avg_power_W = window_s > 0 ? out->energy_J / window_s : 0.0;
}

/* What the threads of a step with no I/O do. */
static const char *eng_no_io_why(const struct workload_step *st)
{
  int cpu = 0, exec = 0;
  for (int i = 0; i < st->njobs; i++) {
    cpu |= st->jobs[i].client_only == JOB_CLIENT_CPU;
    exec |= st->jobs[i].client_only == JOB_CLIENT_EXEC;
  }
  return cpu ? "cpuio's share of a client core" : exec ? "a program run on the client (not modelled)"
                                                       : "reads of empty zones end at once";
}

int eng_client_only(const struct scenario *s, const struct workload_step *st, struct run_result *out)
{
  int n_client = 0, nstreams = 0;
  for (int i = 0; i < st->njobs; i++) {
    n_client += st->jobs[i].client_only != JOB_CLIENT_NAS;
    nstreams += st->jobs[i].client_only == JOB_CLIENT_NET ? s->nclients * st->jobs[i].numjobs : 0;
  }
  if (n_client == 0)
    return 0;
  if (n_client < st->njobs) {
    out->failed = 1;
    snprintf(out->failure, sizeof out->failure,
             "step '%s' runs jobs that do no I/O to the NAS's storage (ioengine=null, cpuio, exec or net, reads of "
             "emulated zbd zones) at once with jobs that do: not modelled, put them in separate steps",
             st->name);
    return 1;
  }
  struct eng_net_load ld = {0};
  if (nstreams > 0 && eng_net_load(s, st, nstreams, &ld, out) != 0) {
    eng_net_load_free(&ld);
    return 1;
  }
  double ramp_s = 0.0;
  for (int i = 0; i < st->njobs; i++)
    ramp_s = st->jobs[i].ramp_s > ramp_s && st->jobs[i].ramp_s < s->time_s ? st->jobs[i].ramp_s : ramp_s;
  struct stats_hist *h[4];
  for (int d = 0; d < 4; d++)
    h[d] = stats_hist_create();
  double ios[3] = {0}, bytes[3] = {0}, dropped[3] = {0}, end_s = ramp_s, resid_s = 0.0, busy[STEP_MAX_JOBS] = {0};
  for (int i = 0, x = 0; i < st->njobs; i++) {
    const struct job *j = &st->jobs[i];
    int net = j->client_only == JOB_CLIENT_NET;
    /* Every copy of a job alike, except a stream's rate on its links. */
    int runs = net ? s->nclients * j->numjobs : 1;
    double copies = net ? 1.0 : (double)s->nclients * j->numjobs;
    for (int r = 0; r < runs; r++) {
      struct eng_copy cp;
      double rate[2] = {net ? ld.sent[x] : 0.0, net ? ld.Bps[x] : 0.0};
      x += net;
      eng_copy_run(s, j, ramp_s, rate, &cp);
      end_s = cp.end_s > end_s ? cp.end_s : end_s;
      busy[i] = cp.busy_s; /* one copy's thread */
      for (int d = 0; d < 3; d++) {
        ios[d] += copies * cp.ios[d];
        dropped[d] += copies * cp.dropped[d];
        bytes[d] += copies * cp.bytes[d];
        for (double k = 0; k < copies * cp.ios[d]; k += 1.0) { /* every one takes the same time */
          stats_hist_add(h[d], cp.io_s);
          stats_hist_add(h[3], cp.io_s);
        }
      }
      resid_s += copies * (cp.ios[0] + cp.ios[1] + cp.ios[2]) * cp.io_s;
    }
  }
  double T = end_s - ramp_s;
  out->simulated_s = end_s;
  out->window_start_s = ramp_s;
  out->window_s = T;
  out->outstanding_avg = T > 0 ? resid_s / T : 0.0;
  out->steady = 1; /* every period alike from the first */
  out->mser_s = -1.0;
  eng_totals(&out->read, h[0], bytes[0], (uint64_t)ios[0], T);
  eng_totals(&out->write, h[1], bytes[1], (uint64_t)ios[1], T);
  eng_totals(&out->trim, h[2], bytes[2], (uint64_t)ios[2], T);
  eng_totals(&out->all, h[3], bytes[0] + bytes[1] + bytes[2], (uint64_t)(ios[0] + ios[1] + ios[2]), T);
  for (int d = 0; d < 4; d++)
    stats_hist_destroy(h[d]);
  out->read.dropped = (uint64_t)dropped[0];
  out->write.dropped = (uint64_t)dropped[1];
  out->all.dropped = out->read.dropped + out->write.dropped;
  struct res_totals *tot[4] = {&out->read, &out->write, &out->trim, &out->all};
  for (int d = 0; d < 4; d++) {
    tot[d]->iops_hw95_rel = tot[d]->lat_mean_hw95_rel = 0.0; /* deterministic: no sampling error */
    for (int k = 0; (k + 1) * RES_SAMPLE_S <= T + 1e-9 && k < RES_MAX_SAMPLES; k++) { /* fio's slices */
      tot[d]->sample_ios[k] = tot[d]->ios * RES_SAMPLE_S / T;
      tot[d]->sample_bytes[k] = tot[d]->bytes * RES_SAMPLE_S / T;
      tot[d]->nsamples = k + 1;
    }
  }
  out->few_ios = out->all.ios < 1000;
  out->issued = out->completed = out->all.ios;
  out->clients = s->nclients;
  out->outstanding_per_client = st->jobs[0].numjobs * st->jobs[0].iodepth;
  double busy_cores = 0.0; /* the NAS's threads first: analysis_cores places every thread so far */
  if (nstreams > 0) {
    busy_cores = eng_net_account(s, st, &ld, T, out);
    eng_net_load_free(&ld);
  }
  char name[64], who[96];
  for (int i = 0; i < st->njobs; i++) {
    const struct job *j = &st->jobs[i];
    snprintf(name, sizeof name, "client.fio.%.40s", j->name);
    snprintf(who, sizeof who, "each of the %d fio thread(s): %s", s->nclients * j->numjobs,
             j->client_only == JOB_CLIENT_CPU    ? "cpuio's share of a core"
             : j->client_only == JOB_CLIENT_EXEC ? "exec's program (not modelled)"
                                                 : "fio's own per-I/O work");
    int x = analysis_add(out, RES_THREAD, name, who, busy[i]);
    if (x >= 0)
      out->res[x].occupied_s = busy[i];
  }
  analysis_finish(out);
  if (out->all.ios == 0 && out->bottleneck >= 0) /* cpuio, exec: no background operation either */
    snprintf(out->bottleneck_reason, sizeof out->bottleneck_reason,
             "thread %s (%s) busy %.0f%% of the time: no I/O, %s; the NAS idles", out->res[out->bottleneck].name,
             out->res[out->bottleneck].who, out->bottleneck_util * 100.0,
             eng_no_io_why(st));
  eng_idle_power(s, end_s, busy_cores, out);
  out->nseries = T > 0 ? (int)fmin(ceil(T), RES_MAX_SERIES) : 0;
  for (int k = 0; k < out->nseries; k++)
    out->series_MBps[k] = out->all.MBps;
  return 1;
}
