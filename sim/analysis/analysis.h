/* analysis.h - utilisation, service demands and the bottleneck.
 *
 * Operational laws over the measured window T with C completed I/Os:
 * utilisation U_k = B_k / T (B_k: busy time of resource k), service
 * demand D_k = B_k / C, and the throughput bound X <= 1 / max_k D_k
 * (for a multi-core CPU pool: X <= cores / D_cpu).  The bottleneck is the
 * resource with the largest utilisation; the reason names what runs on it.
 *
 * A thread serialises the requests it holds: while it holds one (running,
 * waiting for a core or blocked on I/O) no other request gets it, so it is
 * a server whose utilisation is its occupancy (occupied_s / T), not its CPU
 * busy share; a thread blocked in a synchronous read saturates at 0 % CPU.
 * When no resource reaches ANALYSIS_SATURATED the run is window-limited:
 * the clients' N outstanding I/Os, not a resource, set X = N / (R + Z). */
#ifndef NASTWIN_ANALYSIS_H
#define NASTWIN_ANALYSIS_H

#include "sim/report/result.h"

/* Add a resource (busy_s within the window); returns its index or -1 when full. */
int analysis_add(struct run_result *r, enum res_kind kind, const char *name, const char *who,
                 double busy_s);

/* Place per-thread CPU demands on `cores` cores (longest first onto the
 * least loaded core, a thread never split) and add soc.coreN resources
 * plus the aggregate soc.cpu. */
void analysis_cores(struct run_result *r, int cores);

#define ANALYSIS_SATURATED 0.85

/* Utilisation of a resource: busy share, or for a thread its occupancy
 * share when larger (0..1). */
double analysis_util(const struct res_resource *x, double window_s);

/* Demand per I/O behind that utilisation (s): occupied or busy time / ios. */
double analysis_demand_s(const struct res_resource *x, uint64_t ios);

/* 1 for a thread that holds its requests far longer (> 2 x) than it
 * computes: it sleeps in a blocking call while it serialises them. */
int analysis_blocked(const struct res_resource *x);

/* "window" for a window-limited run, else the bottleneck's name ("none"). */
const char *analysis_bottleneck_name(const struct run_result *r);

/* Fill busy/demand for every resource, then the bottleneck, its reason and
 * the throughput bounds.  Uses r->window_s and r->all. */
void analysis_finish(struct run_result *r);

#endif
