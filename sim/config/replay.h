/* replay.h - block I/O traces replayed as a workload, and the
 * Ruemmler-Wilkes demerit of simulated against measured response times.
 *
 * Formats (one request a line; blank lines and '#' comments skipped):
 *   disksim-validate  R|W Hit|Miss LBN blocks service_us next_interarrival_us
 *                     (DiskSim's validation traces: the service time is what
 *                     the real drive took, so the trace carries measured
 *                     response times; the first request arrives at 0)
 *   disksim-ascii     arrival_ms devno LBN blocks flags (flags bit 0: read)
 *   fio-iolog         fio's write_iolog: "fio version 2 iolog" (filename
 *                     action [offset length]; no times: issued back to back,
 *                     "wait" actions excepted) or "fio version 3 iolog"
 *                     (timestamp_ms filename action [offset length])
 *   blkparse          blkparse's default text output: "maj,min cpu seq time
 *                     pid action rwbs sector + blocks [process]"; requests are
 *                     the Q (queued) events, and a C (complete) event of the
 *                     same sector gives the measured response time
 * Offsets are bytes (512 B sectors for the block formats). */
#ifndef NASTWIN_REPLAY_H
#define NASTWIN_REPLAY_H

#include <stdint.h>

#include "base/err.h"

enum replay_format { REPLAY_DISKSIM_VALIDATE, REPLAY_DISKSIM_ASCII, REPLAY_FIO_IOLOG, REPLAY_BLKPARSE };

#define REPLAY_MAX_RECORDS 10000000

struct replay_rec {
  double at_s;            /* arrival, from the trace's start */
  uint64_t offset_bytes;
  uint64_t len_bytes;     /* > 0 */
  int write;
  int trim;               /* a discard (fio-iolog trim, blkparse RWBS with D): write 0 */
  double traced_s;        /* measured response time; < 0 when the trace has none */
};

struct replay_trace {
  int n;
  struct replay_rec *v;
  int traced;             /* 1: every record has a measured response time */
  double span_s;          /* last arrival */
  int one_at_a_time;      /* measured one request at a time (DiskSim validate): each is
                           * issued (its at_s - the previous at_s) after the previous
                           * completes */
};

/* Parse the format's name ("disksim-validate", ...): 0 or -1. */
int replay_format_parse(const char *name, enum replay_format *out);
/* "disksim-validate, disksim-ascii, fio-iolog, blkparse", for messages. */
const char *replay_format_names(void);

/* Load a trace.  NULL with err "file:line:col: ..." on a malformed line. */
struct replay_trace *replay_load(const char *path, enum replay_format fmt, struct nw_err *err);
void replay_free(struct replay_trace *t); /* accepts NULL */

/* Ruemmler-Wilkes demerit (s): RMS over K = max(n_sim, n_traced) equal
 * quantiles (i + 0.5) / K of the difference between the simulated and the
 * measured response time at that quantile.  Sorts both arrays in place.
 * 0 when either is empty. */
double replay_demerit_s(double *sim_s, int n_sim, double *traced_s, int n_traced);

struct ynode;
struct workload;
/* workload: {replay: FILE, replay_format: F, replay_depth: N} (w; FILE
 * relative to the file w came from): one step of one job replaying the
 * trace, open loop by its timestamps (depth 0) or closed loop at depth N.
 * 0, or -1 with err at the offending key. */
int replay_workload_read(const struct ynode *w, const char *scenario_path, struct workload *out,
                         struct nw_err *err);

#endif
