/* analysis.h - utilisation, service demands and the bottleneck.
 *
 * Operational laws over the measured window T with C completed I/Os:
 * utilisation U_k = B_k / T (B_k: busy time of resource k), service
 * demand D_k = B_k / C, and the throughput bound X <= 1 / max_k D_k
 * (for a multi-core CPU pool: X <= cores / D_cpu).  The bottleneck is the
 * resource with the largest demand relative to its capacity; the reason
 * names what runs on it. */
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

/* Fill busy/demand for every resource, then the bottleneck, its reason and
 * the throughput bounds.  Uses r->window_s and r->all. */
void analysis_finish(struct run_result *r);

#endif
