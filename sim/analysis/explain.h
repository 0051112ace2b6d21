/* explain.h - the bottleneck of one run told with operational laws, and
 * checked by running the model again with the suggested change.
 *
 * The story: the chain of service demands per I/O along the path (each a
 * measured busy or occupied time per client I/O), the bottleneck (the
 * highest occupancy-based utilisation) or "window-limited" when nothing
 * is near saturation, the bounds X <= 1/D_max and X <= N/(D + Z) and
 * where the run sits between them, Little's law against the measured R,
 * one change that relieves the limit and its gain measured by a second
 * simulation, and with --analytic the MVA curve of the same network. */
#ifndef NASTWIN_EXPLAIN_H
#define NASTWIN_EXPLAIN_H

#include <stdio.h>

#include "sim/analysis/qnet.h"
#include "sim/config/config.h"
#include "sim/report/result.h"

struct explain_story {
  int N;                /* outstanding I/Os in the loop */
  double Z, X, R;       /* think time, throughput, mean response (s) */
  double R_little;      /* N / X - Z (s) */
  int b;                /* bottleneck index in r->res, -1: none */
  int next;             /* the next most utilised resource, -1: none */
  double util, D;       /* its utilisation and (occupancy-based) demand per I/O */
  int blocked;          /* the bottleneck is a thread blocked on I/O */
  int sync_read;        /* ... by smbd's synchronous read (below Samba's aio read size) */
  int window;           /* window-limited */
  struct qnet net;      /* the queueing network of the run */
  double D_sum;         /* sum of demands minus the overlap qnet knows (s) */
  int pipelined;        /* X beat N / (D_sum + Z): one I/O's own stages overlap (a protocol
                           streaming its data in segments, a stripe's members at once) */
  double D_path;        /* one I/O alone: D_sum, or N / X - Z when pipelined (an upper
                           estimate: it includes any queueing) (s) */
  double bound_max;     /* 1 / D_max (I/O per s) */
  double bound_pop;     /* N / (D_path + Z) */
  double knee_N;        /* (D_path + Z) / D_max: where the two bounds cross */
  char change[160];     /* a --set PATH=VALUE that relieves the limit, "" none */
  char change_words[200];
};

/* Compute the story of run r of scenario s, step `step`. */
void explain_story_of(const struct scenario *s, int step, const struct run_result *r,
                      struct explain_story *e);

/* Text for a student; after: the run with e->change (NULL: not re-run);
 * analytic: also the MVA curve. */
void explain_text(FILE *out, const struct run_result *r, const struct explain_story *e,
                  const struct run_result *after, int analytic);

/* The same as one JSON object. */
void explain_json(FILE *out, const struct run_result *r, const struct explain_story *e,
                  const struct run_result *after, int analytic);

#endif
