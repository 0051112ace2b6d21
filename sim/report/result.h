/* result.h - what one simulation (one workload step) produces.
 *
 * A plain struct with bounded arrays, so a forked child can hand it to
 * its parent through a pipe byte for byte; the report module renders it
 * as text or JSON.  Times in seconds, sizes in bytes, rates per second. */
#ifndef NASTWIN_RESULT_H
#define NASTWIN_RESULT_H

#include <stdint.h>

#define RES_MAX_RESOURCES 320
#define RES_MAX_OPS 8
#define RES_MAX_SERIES 600

/* Percentiles reported: p50, p90, p99, p99.9, p99.99. */
#define RES_NPCT 5
extern const double res_percentiles[RES_NPCT];
extern const char *const res_percentile_names[RES_NPCT];

/* fio's view of the same histogram (for --output-format=json): its 17
 * default completion-latency percentiles, the I/O counts at or below its
 * latency bucket edges (2 ns .. 2000 ms), and the histogram's non-empty
 * buckets (json+ "bins"; neighbours merged past RES_MAX_BINS). */
#define RES_FIO_NPCT 17
extern const double res_fio_percentiles[RES_FIO_NPCT]; /* percent: 1, 5, ..., 99.99 */
#define RES_FIO_NEDGES 31
extern const double res_fio_lat_edges_s[RES_FIO_NEDGES];
#define RES_MAX_BINS 256
/* Per-direction bytes and I/Os completed in each RES_SAMPLE_S slice lying
 * wholly inside the measured window (fio's bwavgtime/iopsavgtime default). */
#define RES_SAMPLE_S 0.5
#define RES_MAX_SAMPLES 1200

/* The figures of a direction that get a 90 % prediction interval. */
enum res_ci { RES_CI_IOPS, RES_CI_MBPS, RES_CI_LAT_MEAN, RES_NCI };
#define RES_CI_SOURCE_LEN 400 /* where an interval comes from, or why there is none */

struct res_totals {
  uint64_t ios;
  double bytes;
  double iops;
  double MBps; /* 10^6 bytes/s */
  double lat_mean_s, lat_stddev_s, lat_min_s, lat_max_s;
  double lat_pct_s[RES_NPCT];
  double fio_pct_s[RES_FIO_NPCT];
  uint64_t fio_lat_le[RES_FIO_NEDGES]; /* I/Os with latency <= edge */
  int nbins;
  double bin_s[RES_MAX_BINS];          /* a bucket's value (count-weighted midpoint) */
  uint64_t bin_count[RES_MAX_BINS];
  int nsamples;
  double sample_bytes[RES_MAX_SAMPLES];
  double sample_ios[RES_MAX_SAMPLES];
  /* 90 % prediction intervals [lo, hi] of iops, MBps and lat_mean_s (s)
   * from the calibration's cross-validation (sim/study calib_ci.c); NaN
   * when none is available (run_result.ci90_source says why). */
  double ci90[RES_NCI][2];
  uint64_t errors; /* I/Os ended with an error (failed volume): not in ios, bytes or latency */
  uint64_t dropped; /* UDP datagrams (fio net, protocol=udp) sent and lost at a full receive
                     * buffer (fio's drop_ios): not in a reader's ios and bytes; a sender
                     * counts them as written */
  /* Batch means (sim/engine/run.c): 95 % half-widths relative to iops
   * and lat_mean_s over the window's batches; < 0: too few batches. */
  double iops_hw95_rel, lat_mean_hw95_rel;
};

enum res_kind { RES_CORE, RES_THREAD, RES_CPU, RES_LINK, RES_DISK, RES_ENGINE, RES_SWITCH };

struct res_resource {
  enum res_kind kind;
  char name[64];  /* "soc.core0", "net.nas0.rx", "disk3", "soc.parity_engine" */
  char who[96];   /* what runs there / what it carries: "smbd (client 0)" */
  double busy;    /* 0..1 over the measured window */
  double busy_s;  /* service time in the window (s) */
  double demand_s_per_io; /* busy_s / completed client I/Os (s) */
  double occupied_s; /* threads: time in the window holding a client request,
                     * running, waiting for a core or blocked on I/O (s); a
                     * thread that serialises requests saturates when this
                     * reaches the window even at 0 % CPU.  0 when not measured */
};

struct res_op {
  char kind[16];  /* resync, rebuild, reshape, migrate */
  double duration_s;
  double avg_power_W;
  int stopped;    /* 1: ended unfinished (the volume or the member being rebuilt failed) */
  int nphases;    /* its phases in order (storage stack_op_report.phases) */
  struct res_op_phase {
    char name[16];
    double duration_s;
  } phases[6];
};

struct run_result {
  char scenario[128];
  char step[64];
  char metric[32];
  uint64_t seed;
  double simulated_s;  /* simulated time at the end of the run */
  double window_s;     /* measured window (after ramp) */
  double window_start_s; /* when it opened: the ramp, or the end of a closed loop's first round */
  double outstanding_avg; /* client I/Os in flight, time-averaged over the window (Little's L) */
  int steady;          /* 0: no steady state in the window (warm-up never ended, or MSER-5
                        * truncates past half of it) */
  double absorbed_share; /* dirty page-cache growth over the window / bytes written in it
                          * (> 0.1: not steady, the cache took the writes) */
  double mser_s;       /* MSER-5 truncation of the window's throughput series (s), < 0 none */
  int few_ios;         /* 1: under 1,000 I/Os or a window shorter than one round of requests */
  struct res_totals read, write, all;
  struct res_totals trim; /* fio's trim direction (rw=trim, randtrim, trimwrite): in all */
  int nres;
  struct res_resource res[RES_MAX_RESOURCES];
  int bottleneck;               /* index into res, -1 when idle: the resource with the
                                 * highest utilisation (a thread's occupancy counts) */
  int window_limited;           /* 1: no resource near saturation, the clients' window
                                 * of outstanding I/Os limits X (Little: N = X (R + Z)) */
  double bottleneck_util;       /* its utilisation, occupancy-based for a thread (0..1) */
  char bottleneck_reason[512];
  double bound_iops;            /* operational law: 1 / max demand per I/O (occupancy-based) */
  double bound_MBps;
  double avg_power_W, energy_J;
  int nops;
  struct res_op ops[RES_MAX_OPS];
  int nseries;                  /* per-second MB/s of all I/O */
  double series_MBps[RES_MAX_SERIES];
  uint64_t issued, completed;   /* client I/Os */
  uint64_t protocol_requests;   /* protocol requests the NAS received in the window (count;
                                 * a file operation's several, a split I/O's pieces) */
  int outstanding_per_client;   /* closed-loop population per client */
  int latency_depth;            /* fio latency_target: the depth the first job's search reached; 0 = none */
  int clients;
  struct res_replay {           /* a replayed trace with measured response times */
    int traced;                 /* 1: the fields below are set */
    int requests;               /* simulated requests compared */
    double demerit_s;           /* Ruemmler-Wilkes demerit (s) */
    double traced_mean_s, simulated_mean_s;
  } replay;
  int volume_failed;            /* 1: more members failed than the level survives */
  double volume_failed_at_s;    /* < 0 when not failed */
  double volume_lost_bytes;     /* estimate of the data lost (see stack_volume_get) */
  int failed;                   /* 1 when the simulation did not finish cleanly */
  char failure[512];
  /* 1: a calibrated run looked for prediction intervals (not --no-ci):
   * the report shows each direction's ci90 and where it comes from.
   * ci90_from_cv 1: the calibration's cross-validation was found (an
   * interval may still be missing for a kind with too few points). */
  int has_ci, ci90_from_cv;
  char ci90_source[RES_NCI][RES_CI_SOURCE_LEN];
};

#endif
