/* runpool.h - one simulation per forked child, several at once.
 *
 * SimGrid cannot be initialised twice in a process, so every simulation
 * runs in its own child.  The child computes a struct run_result and
 * writes it to a pipe; its stderr is captured.  A child that crashes,
 * exits without a result or runs past the timeout becomes a failed result
 * with the reason and the tail of its stderr, and the pool goes on.
 * Results land in results[task] whatever the completion order, so output
 * does not depend on -j. */
#ifndef NASTWIN_RUNPOOL_H
#define NASTWIN_RUNPOOL_H

#include <stddef.h>

#include "sim/report/result.h"

/* Compute task `task` into *out (in the child).  Return value ignored;
 * out->failed says whether it worked. */
typedef void (*runpool_fn)(void *ctx, int task, struct run_result *out);

/* Run tasks 0..ntasks-1 with at most njobs children at once (njobs < 1:
 * the number of online CPUs).  timeout_s <= 0: no timeout.  progress is
 * called in the parent after each finished task; NULL = the pool's own
 * bar (finished/total, elapsed, ETA) on stderr when stderr is a terminal
 * and the pool has run 2 s, erased at the end, nothing when stderr is not
 * a terminal; runpool_no_progress = nothing.  Returns the number of failed
 * tasks. */
int runpool_run(int ntasks, int njobs, double timeout_s, runpool_fn fn, void *ctx,
                struct run_result *results, void (*progress)(void *ctx, int done, int total));

/* A progress callback that shows nothing (for --quiet). */
void runpool_no_progress(void *ctx, int done, int total);

/* The pool bar's text for done of total finished tasks, running in
 * flight, after elapsed_s of wall time (exposed for tests). */
void runpool_meter_line(int done, int total, int running, double elapsed_s, char *buf, size_t len);

/* Online CPUs (>= 1). */
int runpool_cpus(void);

#endif
