/* explain.c - nastwin explain: one run, the operational-law story, and the
 * suggested change checked by a second run (see explain.h). */
#include "sim/analysis/explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/analysis/analysis.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_opt.h"
#include "sim/engine/engine.h"
#include "sim/report/report.h"
#include "sim/study/calibrate.h"
#include "sim/study/runpool.h"

/* The change that relieves the limit, as a --set the model can re-run. */
static void explain_change(const struct scenario *s, int step, const struct run_result *r,
                           struct explain_story *e)
{
  e->change[0] = e->change_words[0] = 0;
  const struct res_resource *b = e->b >= 0 ? &r->res[e->b] : NULL;
  const struct job *j = s->workload.steps && step < s->workload.nsteps &&
                                s->workload.steps[step].njobs > 0
                            ? &s->workload.steps[step].jobs[0]
                            : NULL;
  if (!b)
    return;
  if (e->window) {
    if (j && j->iodepth < 4096) {
      snprintf(e->change, sizeof e->change, "workload.iodepth=%d", 2 * j->iodepth);
      snprintf(e->change_words, sizeof e->change_words,
               "twice the outstanding I/Os per job (iodepth %d -> %d): a window-limited run "
               "grows with its window until a resource saturates", j->iodepth, 2 * j->iodepth);
    }
  } else if (b->kind == RES_THREAD && e->blocked) {
    e->sync_read = j && proto_read_blocks(&s->proto, j->bs_bytes[0]);
    if (e->sync_read) {
      snprintf(e->change, sizeof e->change, "protocol.smb_aio_read_size=1B");
      snprintf(e->change_words, sizeof e->change_words,
               "an asynchronous read path (Samba aio read: smbd hands each pread to a helper "
               "and takes the next request instead of sleeping in the read)");
    } else {
      snprintf(e->change, sizeof e->change, "clients.count=%d", 2 * s->nclients);
      snprintf(e->change_words, sizeof e->change_words,
               "twice the clients: each session brings its own thread, so more requests block "
               "at once");
    }
  } else if (b->kind == RES_THREAD) {
    snprintf(e->change, sizeof e->change, "soc.clock=%.4gGHz", s->soc.clock_hz * 1.5 / 1e9);
    snprintf(e->change_words, sizeof e->change_words,
             "a 1.5 x faster clock (%.3g -> %.3g GHz): one thread runs on one core, so only a "
             "faster core (or cheaper per-request work) helps it",
             s->soc.clock_hz / 1e9, s->soc.clock_hz * 1.5 / 1e9);
  } else if (b->kind == RES_CPU || b->kind == RES_CORE) {
    snprintf(e->change, sizeof e->change, "soc.cores=%d", 2 * (int)s->soc.cores);
    snprintf(e->change_words, sizeof e->change_words, "twice the cores (%d -> %d)",
             (int)s->soc.cores, 2 * (int)s->soc.cores);
  } else if (b->kind == RES_LINK && s->net.mtu_bytes < 9000) {
    snprintf(e->change, sizeof e->change, "network.mtu=9000");
    snprintf(e->change_words, sizeof e->change_words,
             "jumbo frames (MTU %.0f -> 9000): fewer headers and interrupts per byte",
             s->net.mtu_bytes);
  } else if (b->kind == RES_LINK) {
    snprintf(e->change, sizeof e->change, "network.nas_links=%d", 2 * (int)s->net.nas_links);
    snprintf(e->change_words, sizeof e->change_words,
             "twice the NAS links (with LACP or MPIO the connections spread over them)");
  } else if (b->kind == RES_DISK && s->ndisks > 0) {
    snprintf(e->change, sizeof e->change, "disks.count=%d", s->ndisks + 2);
    snprintf(e->change_words, sizeof e->change_words,
             "two more member disks (%d -> %d): the load spreads over more spindles",
             s->ndisks, s->ndisks + 2);
  }
}

void explain_story_of(const struct scenario *s, int step, const struct run_result *r,
                      struct explain_story *e)
{
  memset(e, 0, sizeof *e);
  struct qnet_shape sh;
  qnet_shape_of(s, step, &sh);
  e->N = r->clients * r->outstanding_per_client;
  e->Z = sh.think_s;
  e->X = r->all.iops;
  e->R = r->all.lat_mean_s;
  e->R_little = e->X > 0 ? e->N / e->X - e->Z : 0.0;
  e->b = r->bottleneck >= 0 && r->bottleneck < r->nres ? r->bottleneck : -1;
  e->window = r->window_limited;
  e->next = -1;
  if (e->b >= 0) {
    const struct res_resource *b = &r->res[e->b];
    e->util = r->bottleneck_util;
    e->D = analysis_demand_s(b, r->all.ios);
    e->blocked = analysis_blocked(b);
    for (int i = 0; i < r->nres; i++) {
      const struct res_resource *x = &r->res[i];
      if (i == e->b || x->kind == RES_CORE || analysis_demand_s(x, r->all.ios) <= 0)
        continue;
      if (b->kind == RES_THREAD && x->kind == RES_CPU)
        continue; /* the CPU aggregate includes the bottleneck thread itself */
      if (e->next < 0 || analysis_util(x, r->window_s) > analysis_util(&r->res[e->next], r->window_s))
        e->next = i;
    }
  }
  qnet_build(r, &sh, 0, &e->net);
  double Dsum = 0.0, Dmax = 0.0;
  for (int k = 0; k < e->net.nst; k++) {
    const struct mva_station *st = &e->net.st[k];
    Dsum += st->demand_s * (st->copies > 1 ? st->copies : 1);
    if (st->servers > 0 && st->demand_s / st->servers > Dmax)
      Dmax = st->demand_s / st->servers;
  }
  e->D_sum = Dsum - e->net.overlap_s > Dmax ? Dsum - e->net.overlap_s : Dmax;
  e->D_path = e->D_sum;
  /* N outstanding cannot beat N / (one I/O alone + Z): a run that does has
   * I/Os whose stages overlap within one request, so the sum is no time of
   * one I/O; the run's own N / X - Z is one I/O's time at most */
  if (e->N > 0 && e->X > 0 && e->X * (e->D_sum + e->Z) > 1.01 * e->N) {
    e->pipelined = 1;
    e->D_path = e->R_little > Dmax ? e->R_little : Dmax;
  }
  e->bound_max = e->D > 0 ? 1.0 / e->D : INFINITY;
  e->bound_pop = e->D_path + e->Z > 0 ? e->N / (e->D_path + e->Z) : INFINITY;
  e->knee_N = e->D > 0 ? (e->D_path + e->Z) / e->D : 0.0;
  explain_change(s, step, r, e);
}

/* Where a resource sits on an I/O's path, client to disk and back. */
static int explain_path_rank(const struct res_resource *x)
{
  int client = qnet_per_client(x->name) && x->kind == RES_LINK;
  size_t n = strlen(x->name);
  int rx = n > 3 && !strcmp(x->name + n - 3, ".rx");
  switch (x->kind) {
  case RES_LINK: return client ? (rx ? 8 : 0) : (rx ? 1 : 7);
  case RES_THREAD: return strstr(x->name, "softirq") ? 2 : qnet_per_client(x->name) ? 3 : 4;
  case RES_ENGINE: return 5;
  case RES_DISK: return 6;
  default: return 4;
  }
}

/* The resources along an I/O's path, client to disk and back, that serve
 * it (demand > 0; cores and the CPU aggregate left out): their indices into
 * r->res in path order.  Returns how many (at most RES_MAX_RESOURCES). */
static int explain_chain(const struct run_result *r, int *order)
{
  int n = 0;
  for (int rank = 0; rank <= 8; rank++)
    for (int i = 0; i < r->nres; i++) {
      const struct res_resource *x = &r->res[i];
      if (x->kind != RES_CORE && x->kind != RES_CPU && analysis_demand_s(x, r->all.ios) > 0 &&
          explain_path_rank(x) == rank)
        order[n++] = i;
    }
  return n;
}

static void explain_text_chain(FILE *out, const struct run_result *r, const struct explain_story *e)
{
  fprintf(out, "\n1. The chain of demands: service each I/O needs along its path (busy time per\n"
               "   I/O; for a thread that holds a request while blocked, its occupied time).\n");
  static int order[RES_MAX_RESOURCES];
  int n = explain_chain(r, order), shown = 0, hidden = 0;
  for (int k = 0; k < n; k++) {
    int i = order[k];
    const struct res_resource *x = &r->res[i];
    if (shown >= 24 && i != e->b) {
      hidden++;
      continue;
    }
    shown++;
    fprintf(out, "   %-26s D = %9.4g ms  U = %5.1f%%%s  %s%s\n", x->name, analysis_demand_s(x, r->all.ios) * 1e3,
            analysis_util(x, r->window_s) * 100.0, analysis_blocked(x) ? " occupied" : "", x->who,
            i == e->b ? "   <- the most utilised" : "");
  }
  if (hidden)
    fprintf(out, "   ... and %d more resources of the same kinds (one per client)\n", hidden);
  fprintf(out, "   One I/O alone: D = %.4g ms (the sum, less %.4g ms spent at two places at once:\n"
               "   the same bytes on the NAS port and the client NIC, a thread blocked while a\n"
               "   disk serves it).\n",
          e->D_sum * 1e3, e->net.overlap_s * 1e3);
  if (e->pipelined)
    fprintf(out,
            "   Yet %d outstanding I/O(s) ran at X = %.6g I/O per s, more than N / (D + Z) allows:\n"
            "   one I/O's own stages overlap (the protocol streams its data in segments, the\n"
            "   stripe's members work at once), so one I/O alone takes at most N / X - Z =\n"
            "   %.4g ms, which the bounds below use.\n",
            e->N, e->X, e->D_path * 1e3);
}

static void explain_text_bottleneck(FILE *out, const struct run_result *r, const struct explain_story *e)
{
  const struct res_resource *b = &r->res[e->b];
  char prog[sizeof b->who];
  snprintf(prog, sizeof prog, "%s", b->who);
  prog[strcspn(prog, " ")] = 0;
  fprintf(out, "\n2. The limit.\n");
  if (e->window) {
    fprintf(out,
            "   Window-limited: no resource is near saturation (the most utilised, %s, is at\n"
            "   %.0f%%).  The clients keep only N = %d I/O(s) outstanding, and Little's law\n"
            "   N = X (R + Z) fixes X = %d / (%.4g ms + %.4g ms) = %.6g I/O per s: the window\n"
            "   of outstanding I/Os, not a resource, sets the throughput.\n",
            b->name, e->util * 100.0, e->N, e->N, e->R_little * 1e3, e->Z * 1e3, e->X);
    return;
  }
  if (b->kind == RES_THREAD && e->blocked)
    fprintf(out,
            "   Thread %s (%s) is the bottleneck: it holds a client\n"
            "   request %.1f%% of the time although its CPU is busy only %.1f%%.  It serves one\n"
            "   request at a time and sleeps in a blocking read while the disk works\n"
            "   (%s), so no other request of its session\n"
            "   can start: a server saturated by its occupancy, D = %.4g ms per I/O.\n"
            "   The utilisation table's 0%% busy hides it: count the time a thread holds a\n"
            "   request, not only the time it computes.\n",
            b->name, b->who, e->util * 100.0, b->busy * 100.0,
            e->sync_read ? "smbd's synchronous pread below protocol.smb_aio_read_size"
                : "a synchronous read",
            e->D * 1e3);
  else if (b->kind == RES_THREAD) {
    const char *core = "one core";
    for (int i = 0; i < r->nres; i++)
      if (r->res[i].kind == RES_CORE && b->who[0] && strstr(r->res[i].who, b->who))
        core = r->res[i].name;
    int ncores = 0;
    for (int i = 0; i < r->nres; i++)
      ncores += r->res[i].kind == RES_CORE;
    fprintf(out,
            "   %s is the bottleneck: it runs thread %s (%s),\n"
            "   busy %.1f%% of the time.\n"
            "   %s is single-threaded per session, so one client's session can use only\n"
            "   one of the %d cores: the other cores have nothing of it to run (the CPU as a whole\n"
            "   is only as busy as its cores' average).\n",
            core, b->name, b->who, e->util * 100.0, prog, ncores);
  } else
    fprintf(out, "   %s (%s) is the bottleneck, busy %.1f%% of the time.\n", b->name, b->who,
            e->util * 100.0);
  fprintf(out, "   Utilisation law: U = X * D, so D = U / X = %.4g ms per I/O.\n", e->D * 1e3);
}

static void explain_text_bounds(FILE *out, const struct explain_story *e)
{
  fprintf(out, "\n3. Operational-law bounds (D measured in this run).\n");
  fprintf(out, "   X <= 1 / D_max        = 1 / %.4g ms = %.6g I/O per s\n", e->D * 1e3,
          e->bound_max);
  fprintf(out, "   X <= N / (D_total + Z) = %d / (%.4g + %.4g) ms = %.6g I/O per s\n", e->N,
          e->D_path * 1e3, e->Z * 1e3, e->bound_pop);
  double tight = fmin(e->bound_max, e->bound_pop);
  fprintf(out,
          "   Simulated X = %.6g I/O per s = %.1f%% of the tighter bound.  The bounds cross at\n"
          "   N* = (D_total + Z) / D_max = %.1f outstanding I/Os:\n   %s\n",
          e->X, tight > 0 ? 100.0 * e->X / tight : 0.0, e->knee_N,
          e->N < e->knee_N ? "below it the window limits, and this run is below it."
                           : "above it the bottleneck limits, and this run is above it.");
  /* Little's law against the measured mean response time */
  fprintf(out, "\n4. Little's law: N = X (R + Z) gives R = N / X - Z = %.4g ms;\n   measured R = %.4g ms",
          e->R_little * 1e3, e->R * 1e3);
  double gap = e->R > 0 ? e->R_little / e->R - 1.0 : 0.0;
  if (fabs(gap) <= 0.05)
    fprintf(out, ": they agree.\n");
  else
    fprintf(out,
            " (%+.0f%%).\n"
            "   They differ because the measured R averages only the I/Os that completed in the\n"
            "   window, while N counts every I/O outstanding.\n   %s\n",
            gap * 100.0,
            gap > 0 ? "The first I/Os found the queues empty and finished fast (the start\n"
                      "   transient), and the I/Os still in flight at the window's end, which have\n"
                      "   waited longest, are not in R yet: a longer run brings the two together."
                    : "Part of the window the clients had fewer I/Os outstanding than N (a ramp,\n"
                      "   think time or a step that ends): the loop was not full all the time.");
}

static const char *explain_advice(const struct res_resource *b, int window)
{
  if (window)
    return "more outstanding I/Os: a deeper queue (workload.iodepth), more jobs "
           "(workload.numjobs) or more clients (clients.count), until a resource saturates";
  switch (b->kind) {
  case RES_THREAD:
    return "a faster clock (soc.clock) or cheaper per-request work helps this one thread; more "
           "clients or sessions spread the load over more threads and cores; a thread that "
           "blocks needs an asynchronous path so it can take the next request";
  case RES_CPU:
  case RES_CORE:
    return "more cores (soc.cores), a faster clock (soc.clock), or offload engines";
  case RES_LINK:
    return "more or faster links (network.nas_links with LACP/MPIO, network.nas_link_rate) or "
           "jumbo frames (network.mtu: 9000)";
  case RES_DISK:
    return "more member disks (disks.count), faster drives, another RAID level or an SSD cache";
  case RES_ENGINE:
    return "a faster offload engine, or doing the work on the CPU cores";
  case RES_SWITCH:
    return "a faster switch or fewer hops";
  }
  return "";
}

static void explain_text_change(FILE *out, const struct run_result *r,
                                const struct explain_story *e, const struct run_result *after)
{
  const struct res_resource *b = &r->res[e->b];
  fprintf(out, "\n5. What would move the limit.\n   Relief: %s.\n", explain_advice(b, e->window));
  if (e->next >= 0 && !e->window) {
    const struct res_resource *x = &r->res[e->next];
    double Dx = analysis_demand_s(x, r->all.ios), cap = Dx > 0 ? 1.0 / Dx : INFINITY;
    fprintf(out,
            "   Next in line: %s (%s), at %.1f%%, D = %.4g ms per I/O: once %s is relieved,\n"
            "   the bound 1 / D says throughput can grow to about %.6g I/O per s (%+.0f%%).\n",
            x->name, x->who, analysis_util(x, r->window_s) * 100.0, Dx * 1e3, b->name, cap,
            e->X > 0 ? 100.0 * (cap / e->X - 1.0) : 0.0);
  }
  if (!e->change[0])
    return;
  fprintf(out, "   Try %s: %s.\n", e->change, e->change_words);
  if (!after)
    return;
  if (after->failed) {
    fprintf(out, "   Re-running the model with it failed: %s\n", after->failure);
    return;
  }
  fprintf(out,
          "   Checked by re-running the model with --set %s: X = %.6g I/O per s (%.6g MB/s),\n"
          "   %+.1f%% against this run's %.6g; mean R = %.4g ms.  The limit then: %s.\n",
          e->change, after->all.iops, after->all.MBps,
          e->X > 0 ? 100.0 * (after->all.iops / e->X - 1.0) : 0.0, e->X,
          after->all.lat_mean_s * 1e3, after->bottleneck_reason);
}

/* MVA on the run's network: X(n), R(n) for n = 1..nmax. */
static int explain_curve(const struct explain_story *e, int nmax, double *X, double *R)
{
  struct nw_err err = {0};
  return mva_curve(e->net.st, e->net.nst, nmax, e->net.think_s, e->net.overlap_s, X, R, &err);
}

static const int explain_pops[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
#define EXPLAIN_NPOPS 9

static void explain_text_mva(FILE *out, const struct explain_story *e)
{
  int nmax = e->N > 256 ? e->N : 256;
  double *X = malloc((size_t)nmax * sizeof *X), *R = malloc((size_t)nmax * sizeof *R);
  fprintf(out, "\n6. Analytic model (MVA on this network: the stations of the chain above, the\n"
               "   disks as fork-join groups, threads pooled onto the cores when they outnumber\n"
               "   them, think time as a delay centre).\n");
  if (X && R && e->N >= 1 && explain_curve(e, nmax, X, R) == 0) {
    fprintf(out, "   N = %d: MVA X = %.6g I/O per s, R = %.4g ms (simulation: %.6g, %.4g ms; %+.1f%%)\n",
            e->N, X[e->N - 1], R[e->N - 1] * 1e3, e->X, e->R * 1e3,
            e->X > 0 ? 100.0 * (X[e->N - 1] / e->X - 1.0) : 0.0);
    fprintf(out, "   what-if population:  N    X (I/O per s)   R (ms)\n");
    for (int i = 0; i < EXPLAIN_NPOPS; i++)
      fprintf(out, "                      %3d  %14.6g  %8.4g\n", explain_pops[i],
              X[explain_pops[i] - 1], R[explain_pops[i] - 1] * 1e3);
  } else
    fprintf(out, "   (no network to solve)\n");
  free(X);
  free(R);
}

void explain_text(FILE *out, const struct run_result *r, const struct explain_story *e,
                  const struct run_result *after, int analytic)
{
  fprintf(out, "Scenario %s, step %s: %d client(s) x %d outstanding I/O = N = %d in the loop",
          r->scenario, r->step, r->clients, r->outstanding_per_client, e->N);
  if (e->Z > 0)
    fprintf(out, ", think time Z = %.3g ms", e->Z * 1e3);
  fprintf(out, ".\nSimulated: X = %.6g I/O per s (%.6g MB/s), mean response time R = %.4g ms.\n",
          e->X, r->all.MBps, e->R * 1e3);
  if (r->failed)
    fprintf(out, "WARNING: the simulation failed: %s\n", r->failure);
  if (e->b < 0) {
    fprintf(out, "Nothing was busy: no bottleneck to explain.\n");
    return;
  }
  explain_text_chain(out, r, e);
  explain_text_bottleneck(out, r, e);
  explain_text_bounds(out, e);
  explain_text_change(out, r, e, after);
  if (analytic)
    explain_text_mva(out, e);
}

static void explain_json_num(FILE *out, const char *key, double v)
{
  fprintf(out, ", \"%s\": ", key);
  if (isfinite(v))
    fprintf(out, "%.6g", v);
  else
    fputs("null", out);
}

void explain_json(FILE *out, const struct run_result *r, const struct explain_story *e,
                  const struct run_result *after, int analytic)
{
  fputs("{\"scenario\": ", out);
  report_json_string(out, r->scenario);
  fputs(", \"step\": ", out);
  report_json_string(out, r->step);
  fprintf(out, ", \"N\": %d", e->N);
  explain_json_num(out, "think_ms", e->Z * 1e3);
  explain_json_num(out, "iops", e->X);
  explain_json_num(out, "MBps", r->all.MBps);
  explain_json_num(out, "lat_mean_ms", e->R * 1e3);
  explain_json_num(out, "little_R_ms", e->R_little * 1e3);
  fputs(",\n \"chain\": [", out);
  static int order[RES_MAX_RESOURCES];
  int n = explain_chain(r, order);
  for (int k = 0; k < n; k++) {
    const struct res_resource *x = &r->res[order[k]];
    fputs(k == 0 ? "{\"resource\": " : ", {\"resource\": ", out);
    report_json_string(out, x->name);
    explain_json_num(out, "demand_ms", analysis_demand_s(x, r->all.ios) * 1e3);
    explain_json_num(out, "util", analysis_util(x, r->window_s));
    fprintf(out, ", \"occupied\": %s}", analysis_blocked(x) ? "true" : "false");
  }
  fputs("],\n \"limit\": {\"window_limited\": ", out);
  fputs(e->window ? "true" : "false", out);
  fputs(", \"resource\": ", out);
  report_json_string(out, e->b >= 0 ? r->res[e->b].name : "");
  fprintf(out, ", \"blocked\": %s", e->blocked ? "true" : "false");
  explain_json_num(out, "util", e->util);
  explain_json_num(out, "demand_ms", e->D * 1e3);
  fputs(", \"reason\": ", out);
  report_json_string(out, r->bottleneck_reason);
  fputs("},\n \"bounds\": {", out);
  fprintf(out, "\"path_demand_ms\": %.6g", e->D_path * 1e3);
  explain_json_num(out, "demand_sum_ms", e->D_sum * 1e3);
  fprintf(out, ", \"pipelined\": %s", e->pipelined ? "true" : "false");
  explain_json_num(out, "overlap_ms", e->net.overlap_s * 1e3);
  explain_json_num(out, "one_over_dmax", e->bound_max);
  explain_json_num(out, "population", e->bound_pop);
  explain_json_num(out, "knee_N", e->knee_N);
  explain_json_num(out, "share_of_bound", e->X / fmin(e->bound_max, e->bound_pop));
  fputs("},\n \"change\": {\"set\": ", out);
  report_json_string(out, e->change);
  fputs(", \"what\": ", out);
  report_json_string(out, e->change_words);
  if (after && !after->failed) {
    explain_json_num(out, "iops_after", after->all.iops);
    explain_json_num(out, "gain_pct", e->X > 0 ? 100.0 * (after->all.iops / e->X - 1.0) : NAN);
    fputs(", \"limit_after\": ", out);
    report_json_string(out, analysis_bottleneck_name(after));
  }
  fputs("}", out);
  int nmax = e->N > 256 ? e->N : 256;
  double *X = analytic ? malloc((size_t)nmax * sizeof *X) : NULL;
  double *R = analytic ? malloc((size_t)nmax * sizeof *R) : NULL;
  if (X && R && e->N >= 1 && explain_curve(e, nmax, X, R) == 0) {
    fputs(",\n \"mva\": {", out);
    fprintf(out, "\"iops\": %.6g", X[e->N - 1]);
    explain_json_num(out, "lat_mean_ms", R[e->N - 1] * 1e3);
    fputs(", \"curve\": [", out);
    for (int i = 0; i < EXPLAIN_NPOPS; i++)
      fprintf(out, "%s{\"N\": %d, \"iops\": %.6g}", i ? ", " : "", explain_pops[i],
              X[explain_pops[i] - 1]);
    fputs("]}", out);
  }
  free(X);
  free(R);
  fputs("}\n", out);
}

/* ---- CLI ------------------------------------------------------------- */

struct explain_ctx {
  const struct scenario *s;
  int step;
};

static void explain_task(void *vctx, int task, struct run_result *out)
{
  struct explain_ctx *c = vctx;
  (void)task;
  engine_run(c->s, c->step, 0, NULL, out);
}

/* Simulate step `step` of the scenario with the sets given.  0, or 2 with
 * the error printed (bad input). */
static int explain_simulate(const struct calib_which *w, const char *file, const char *catalog,
                            const struct cfg_set *sets, int nsets, int step, struct scenario *s,
                            struct run_result *r)
{
  struct nw_err err = {0};
  if (calib_cfg_load(w, file, catalog, sets, nsets, NULL, s, &err) < 0) {
    nw_err_print(&err, stderr);
    return 2;
  }
  if (step >= s->workload.nsteps) {
    fprintf(stderr, "nastwin: error: --step %d: the scenario has %d step(s)\n", step,
            s->workload.nsteps);
    cfg_free(s);
    return 2;
  }
  struct explain_ctx ctx = {.s = s, .step = step};
  runpool_run(1, 1, 0.0, explain_task, &ctx, r, NULL);
  return 0;
}

/* The baseline, its story, the change re-run, the output. */
static int explain_main(const struct calib_which *w, const char *file, const char *catalog,
                        struct cfg_set *sets, int nsets, int step, int analytic, int json)
{
  struct run_result *r = calloc(2, sizeof *r);
  struct explain_story *e = calloc(1, sizeof *e);
  struct scenario s;
  int rc = 1;
  if (!r || !e)
    goto out;
  if ((rc = explain_simulate(w, file, catalog, sets, nsets, step, &s, &r[0])) != 0)
    goto out;
  explain_story_of(&s, step, &r[0], e);
  const struct run_result *after = NULL;
  if (e->change[0] && !r[0].failed && nsets < CFG_MAX_SETS) {
    /* the change as one more --set, later wins */
    char path[128];
    const char *eq = strchr(e->change, '=');
    snprintf(path, sizeof path, "%.*s", (int)(eq - e->change), e->change);
    sets[nsets] = (struct cfg_set){.path = path, .value = eq + 1};
    struct scenario s2;
    if (explain_simulate(w, file, catalog, sets, nsets + 1, step, &s2, &r[1]) == 0) {
      after = &r[1];
      cfg_free(&s2);
    } else
      fprintf(stderr, "nastwin: note: the suggested change %s could not be re-run\n", e->change);
  }
  if (json)
    explain_json(stdout, &r[0], e, after, analytic);
  else {
    explain_text(stdout, &r[0], e, after, analytic);
    if (w->path[0])
      printf("Calibration %s (fnv1a64 %s).\n", w->name, w->hash);
    else
      printf("Uncalibrated: catalogue values.\n");
  }
  rc = r[0].failed ? 1 : 0;
  cfg_free(&s);
out:
  free(r);
  free(e);
  return rc;
}

int cli_explain(int argc, char **argv)
{
  const char *file = NULL, *catalog = NULL;
  struct cfg_set sets[CFG_MAX_SETS + 1];
  int nsets = 0, step = 0, analytic = 0, json = 0, rc = 2;
  static const char *const valued[] = {"--set", "--step", "--catalog", "--calibrated", NULL};
  struct calib_use calib = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val;
    if (cli_opt_value(argc, argv, &i, valued, &val) < 0)
      goto out;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      puts("usage: nastwin explain [SCENARIO.yaml] [--set PATH=VALUE]... [--step N] [--analytic]\n"
           "                       [--json]\n"
           "Simulates one workload step, then explains its limit: the chain of service demands\n"
           "per I/O, the bottleneck (a thread blocked on I/O counts by the time it holds a\n"
           "request) or a window-limited run, the operational-law bounds and where the run\n"
           "sits between them, Little's law against the measured response time, and one change\n"
           "that would relieve the limit, checked by simulating again with it.  --analytic adds\n"
           "the MVA curve of the same network; --json prints one JSON object instead.\n"
           "No file: the built-in default scenario.\n"
           "The shipped validation/calibrated.yaml applies unless --calibrated FILE or --uncalibrated.");
      rc = 0;
      goto out;
    } else if (!strcmp(a, "--set")) {
      const char *eq = strchr(val, '=');
      if (!eq || eq == val || nsets == CFG_MAX_SETS || eq - val >= 128) {
        fprintf(stderr, "nastwin: error: --set '%s': expected PATH=VALUE, e.g. soc.cores=8\n", val);
        goto out;
      }
      char *path = strndup(val, (size_t)(eq - val));
      if (!path) {
        rc = 1;
        goto out;
      }
      sets[nsets++] = (struct cfg_set){.path = path, .value = eq + 1};
    } else if (calib_use_opt(&calib, a, val)) {
      continue;
    } else if (!strcmp(a, "--step")) {
      long v;
      if (cli_opt_int(a, val, 0, 100000, &v) < 0)
        goto out;
      step = (int)v;
    } else if (!strcmp(a, "--catalog"))
      catalog = val;
    else if (!strcmp(a, "--analytic"))
      analytic = 1;
    else if (!strcmp(a, "--json"))
      json = 1;
    else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "nastwin: error: unknown option '%s' (see nastwin explain --help)\n", a);
      goto out;
    } else if (!file)
      file = a;
    else {
      fprintf(stderr, "nastwin: error: more than one scenario given ('%s' and '%s')\n", file, a);
      goto out;
    }
  }
  {
    struct nw_err err = {0};
    struct calib_which w;
    if (calib_use_resolve(&calib, &w, &err) < 0) {
      nw_err_print(&err, stderr);
      goto out;
    }
    rc = explain_main(&w, file, catalog, sets, nsets, step, analytic, json);
  }
out:
  for (int i = 0; i < nsets; i++)
    free((char *)sets[i].path);
  return rc;
}
