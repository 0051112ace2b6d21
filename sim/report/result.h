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

struct res_totals {
  uint64_t ios;
  double bytes;
  double iops;
  double MBps; /* 10^6 bytes/s */
  double lat_mean_s, lat_stddev_s, lat_min_s, lat_max_s;
  double lat_pct_s[RES_NPCT];
  uint64_t errors; /* I/Os ended with an error (failed volume): not in ios, bytes or latency */
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
};

struct run_result {
  char scenario[128];
  char step[64];
  char metric[32];
  uint64_t seed;
  double simulated_s;  /* simulated time at the end of the run */
  double window_s;     /* measured window (after ramp) */
  struct res_totals read, write, all;
  int nres;
  struct res_resource res[RES_MAX_RESOURCES];
  int bottleneck;               /* index into res, -1 when idle */
  char bottleneck_reason[320];
  double bound_iops;            /* operational law: 1 / max demand per I/O */
  double bound_MBps;
  double avg_power_W, energy_J;
  int nops;
  struct res_op ops[RES_MAX_OPS];
  int nseries;                  /* per-second MB/s of all I/O */
  double series_MBps[RES_MAX_SERIES];
  uint64_t issued, completed;   /* client I/Os */
  int outstanding_per_client;   /* closed-loop population per client */
  int clients;
  int volume_failed;            /* 1: more members failed than the level survives */
  double volume_failed_at_s;    /* < 0 when not failed */
  double volume_lost_bytes;     /* estimate of the data lost (see stack_volume_get) */
  int failed;                   /* 1 when the simulation did not finish cleanly */
  char failure[512];
};

#endif
