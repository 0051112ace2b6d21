/* sweep_mva.h - the analytic sweep: a stratified sample of the grid is
 * simulated, every row gets an MVA prediction from the nearest simulated
 * point's demands (qnet.h), and the simulated rows show MVA beside the DES.
 *
 * Anchors: a Latin hypercube over the axes (every axis cut into as many
 * strata as there are anchors, each stratum used once, strata paired at
 * random with a fixed seed, the stratum's middle value taken), so every
 * value of a short axis (a RAID level) gets its share of the anchors and
 * no axis is aliased with the sampling.
 * MVA: one curve X(n), n = 1..N_max, per (anchor, client count, shape),
 * computed once and read for every population on it (mva_curve). */
#ifndef NASTWIN_SWEEP_MVA_H
#define NASTWIN_SWEEP_MVA_H

#include <stddef.h>

#include "sim/analysis/qnet.h"
#include "sim/study/sweep.h"

struct sweep_task {
  long point;
  int step;
  int clients;            /* the point's client count */
  struct qnet_shape shape; /* the step's think time and disk span */
};

/* Is this axis path a closed-loop population (N scales with its value)? */
int sweep_mva_population(const char *path);

/* Mark the anchors: anchor[p] = 1 for about npoints / sample points (at
 * least 2, or every point of a smaller grid; sample <= 0: 10 %).  anchor
 * has sw->npoints bytes, zeroed by the caller.  Returns the count. */
long sweep_mva_anchors(const struct sweep *sw, int sample, unsigned char *anchor);

/* Header and one row per task: simulated rows (res_of[t] >= 0 indexes
 * results) with MVA on their own demands, MVA rows from the nearest
 * simulated task of the same step.  0, or -1 when out of memory. */
int sweep_mva_rows(const struct sweep *sw, const struct sweep_task *tasks, int ntasks,
                   const int *res_of, const struct run_result *results, char *header, size_t hn,
                   char **rows, int quiet);

#endif
