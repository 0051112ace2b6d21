/* engine.h - run one workload step of a scenario as a SimGrid simulation.
 *
 * The only module that calls SimGrid.  It builds the platform, starts the
 * actors of the I/O path (client jobs, protocol daemons with their real
 * threading, the storage event source, md/flusher/crypto kernel threads,
 * background RAID operations) and measures what they did.
 *
 * SimGrid cannot be initialised twice in a process: call engine_run() in a
 * fresh (forked) process, once.  The run pool does that. */
#ifndef NASTWIN_ENGINE_H
#define NASTWIN_ENGINE_H

#include "sim/config/config.h"
#include "sim/report/result.h"

/* Simulate step `step` of s->workload (ignored for a pure background
 * operation).  log_args: extra SimGrid/XBT options ("--log=..."), may be
 * NULL.  Fills out; returns 0, or 1 when the simulation failed (deadlock,
 * unfinished requests: out->failed and out->failure say why). */
int engine_run(const struct scenario *s, int step, int nlog, char **log_args, struct run_result *out);

#endif
