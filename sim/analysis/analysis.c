#include "sim/analysis/analysis.h"

#include <stdio.h>
#include <string.h>

int analysis_add(struct run_result *r, enum res_kind kind, const char *name, const char *who,
                 double busy_s)
{
  if (r->nres >= RES_MAX_RESOURCES)
    return -1;
  struct res_resource *x = &r->res[r->nres];
  memset(x, 0, sizeof *x);
  x->kind = kind;
  snprintf(x->name, sizeof x->name, "%s", name);
  snprintf(x->who, sizeof x->who, "%.*s", (int)sizeof x->who - 1, who ? who : ""); /* cut to fit */
  x->busy_s = busy_s;
  return r->nres++;
}

void analysis_cores(struct run_result *r, int cores)
{
  if (cores < 1)
    return;
  if (cores > 256)
    cores = 256;
  double load[256] = {0};
  char who[256][96];
  memset(who, 0, sizeof who);
  int n = r->nres;
  int used[RES_MAX_RESOURCES] = {0};
  double total = 0.0;
  /* Longest processing time first: repeatedly take the busiest unplaced thread. */
  for (;;) {
    int best = -1;
    for (int i = 0; i < n; i++)
      if (r->res[i].kind == RES_THREAD && !used[i] && r->res[i].busy_s > 0 &&
          (best < 0 || r->res[i].busy_s > r->res[best].busy_s))
        best = i;
    if (best < 0)
      break;
    used[best] = 1;
    int c = 0;
    for (int k = 1; k < cores; k++)
      if (load[k] < load[c])
        c = k;
    load[c] += r->res[best].busy_s;
    total += r->res[best].busy_s;
    size_t len = strlen(who[c]);
    if (len < sizeof who[c] - 4)
      snprintf(who[c] + len, sizeof who[c] - len, "%s%s", len ? ", " : "", r->res[best].who);
  }
  char name[64];
  for (int k = 0; k < cores; k++) {
    snprintf(name, sizeof name, "soc.core%d", k);
    analysis_add(r, RES_CORE, name, who[k][0] ? who[k] : "idle", load[k]);
  }
  char w[96];
  snprintf(w, sizeof w, "%d cores together", cores);
  analysis_add(r, RES_CPU, "soc.cpu", w, total / cores);
}

static const char *analysis_kind_word(enum res_kind k)
{
  switch (k) {
  case RES_CORE: return "core";
  case RES_THREAD: return "thread";
  case RES_CPU: return "CPU";
  case RES_LINK: return "link";
  case RES_DISK: return "disk";
  case RES_ENGINE: return "engine";
  case RES_SWITCH: return "switch";
  }
  return "resource";
}

double analysis_util(const struct res_resource *x, double window_s)
{
  double u = x->busy;
  if (x->kind == RES_THREAD && window_s > 0 && x->occupied_s / window_s > u)
    u = x->occupied_s / window_s;
  return u > 1.0 ? 1.0 : u;
}

int analysis_blocked(const struct res_resource *x)
{
  return x->kind == RES_THREAD && x->occupied_s > 2.0 * x->busy_s;
}

double analysis_demand_s(const struct res_resource *x, uint64_t ios)
{
  double b = x->busy_s;
  if (x->kind == RES_THREAD && x->occupied_s > b)
    b = x->occupied_s;
  return ios ? b / (double)ios : 0.0;
}

const char *analysis_bottleneck_name(const struct run_result *r)
{
  if (r->window_limited)
    return "window";
  return r->bottleneck >= 0 && r->bottleneck < r->nres ? r->res[r->bottleneck].name : "none";
}

static const char *analysis_what(const struct res_resource *b, double u, int blocked)
{
  int sat = u > 0.95;
  switch (b->kind) {
  case RES_THREAD:
    if (blocked)
      return "it serves one request at a time, mostly blocked waiting for I/O, so its "
             "occupancy, not its CPU, saturates";
    return sat ? "a single thread can use only one core, and this one is saturated"
               : "the busiest thread, not yet saturated";
  case RES_CPU:
    return sat ? "every core is busy: the SoC's total compute is the limit"
               : "the CPU as a whole is the most loaded resource";
  case RES_LINK:
    return sat ? "the link carries all it can at this MTU" : "the most loaded link";
  case RES_DISK:
    return sat ? "the drive is busy all the time" : "the most loaded drive";
  default:
    return sat ? "saturated" : "the most loaded resource";
  }
}

void analysis_finish(struct run_result *r)
{
  double T = r->window_s;
  uint64_t C = r->all.ios;
  r->bottleneck = -1;
  r->window_limited = 0;
  r->bottleneck_util = 0.0;
  double best = -1.0;
  for (int i = 0; i < r->nres; i++) {
    struct res_resource *x = &r->res[i];
    x->busy = T > 0 ? x->busy_s / T : 0.0;
    if (x->busy > 1.0)
      x->busy = 1.0;
    x->demand_s_per_io = C ? x->busy_s / (double)C : 0.0;
    /* Cores are a presentation of the thread placement; rank threads (by
     * occupancy when they hold requests while blocked), the aggregate CPU,
     * links, disks and engines. */
    if (x->kind == RES_CORE)
      continue;
    double u = analysis_util(x, T);
    if (u > best + 1e-9) {
      best = u;
      r->bottleneck = i;
    }
  }
  r->bound_iops = 0.0;
  r->bound_MBps = 0.0;
  if (r->bottleneck < 0 || best <= 0.0) {
    r->bottleneck = -1;
    snprintf(r->bottleneck_reason, sizeof r->bottleneck_reason, "nothing was busy");
    return;
  }
  struct res_resource *b = &r->res[r->bottleneck];
  r->bottleneck_util = best;
  double D = analysis_demand_s(b, C);
  if (D > 0) {
    r->bound_iops = 1.0 / D;
    r->bound_MBps = C ? r->bound_iops * r->all.bytes / (double)C / 1e6 : 0.0;
  }
  int blocked = analysis_blocked(b);
  if (C == 0) {
    /* No client I/O in the window (a rebuild alone): no demand per I/O and
     * no window of outstanding I/Os; the background operation is the load. */
    snprintf(r->bottleneck_reason, sizeof r->bottleneck_reason,
             "%s %s (%s) busy %.0f%% of the time: %s; no client I/O, the background operation keeps it busy",
             analysis_kind_word(b->kind), b->name, b->who, best * 100.0, analysis_what(b, best, 0));
    return;
  }
  if (best < ANALYSIS_SATURATED) {
    /* Nothing saturates: the population of outstanding I/Os is the limit. */
    r->window_limited = 1;
    int N = r->clients * r->outstanding_per_client;
    snprintf(r->bottleneck_reason, sizeof r->bottleneck_reason,
             "window-limited: L = %.4g I/O(s) in flight on average (N = %d allowed) = X %.4g I/O "
             "per s x R %.4g ms (Little's law); no resource is near saturation (the most loaded, "
             "%s %s, is %.0f%% %s), so more outstanding I/Os (clients, iodepth, numjobs) would "
             "raise throughput up to %.4g IOPS",
             r->outstanding_avg, N, r->all.iops, r->all.lat_mean_s * 1e3, analysis_kind_word(b->kind), b->name,
             best * 100.0, blocked ? "occupied" : "busy", r->bound_iops);
    return;
  }
  if (blocked)
    snprintf(r->bottleneck_reason, sizeof r->bottleneck_reason,
             "thread %s (%s) holds a client request %.0f%% of the time, CPU busy %.0f%%: %s; "
             "occupancy %.3g ms per I/O bounds throughput at %.4g IOPS",
             b->name, b->who, best * 100.0, b->busy * 100.0, analysis_what(b, best, 1), D * 1e3,
             r->bound_iops);
  else
    snprintf(r->bottleneck_reason, sizeof r->bottleneck_reason,
             "%s %s (%s) busy %.0f%% of the time: %s; demand %.3g ms per I/O bounds throughput at "
             "%.4g IOPS",
             analysis_kind_word(b->kind), b->name, b->who, best * 100.0,
             analysis_what(b, best, 0), D * 1e3, r->bound_iops);
}
