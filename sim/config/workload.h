/* workload.h - what the clients do: fio-like jobs, grouped into steps.
 *
 * A job is fio's job section (rw, bs/bssplit, iodepth, numjobs, ...).
 * A step is one simulation: every client host runs every job of the step
 * at once (numjobs copies each, iodepth outstanding I/Os per copy: a
 * closed loop, or open loop when rate_iops > 0).  A workload is a list of
 * steps; reviewers' tools (ATTO's size ladder, CrystalDiskMark's four
 * tests, IOZone's thirteen tests, ...) are presets that expand into
 * steps, each step naming the metric it reports.  The engine runs one
 * step per simulation; the run pool runs the steps. */
#ifndef NASTWIN_WORKLOAD_H
#define NASTWIN_WORKLOAD_H

#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

struct replay_trace;

#define JOB_MAX_BS 16
#define STEP_MAX_JOBS 256

enum job_access { JOB_SEQ = 0, JOB_RANDOM = 1, JOB_BACKWARD = 2, JOB_STRIDE = 3 };
/* fio random_distribution (fio 3.33 lib/zipf.c, lib/gauss.c). */
/* fio's metadata engines (engines/fileoperations.c, ftruncate.c): each I/O
 * is one file operation with no data, timed; 0 = block or file data I/O. */
enum job_meta {
  JOB_META_NONE = 0,
  JOB_META_CREATE, /* filecreate, dircreate: open(O_CREAT) / mkdir */
  JOB_META_STAT,   /* filestat, dirstat: stat() */
  JOB_META_DELETE, /* filedelete, dirdelete: unlink() / rmdir() */
  JOB_META_TRUNC,  /* ftruncate: ftruncate(fd, offset + len) on each write */
  JOB_META_FALLOC, /* falloc: fallocate() per I/O, a trim = PUNCH_HOLE|KEEP_SIZE (SMB2
                      FSCTL_SET_ZERO_DATA, NFS 4.2 DEALLOCATE), others allocate: no data,
                      an extent update of the file (engines/falloc.c) */
};
#define JOB_META_UPDATE_BYTES 4096.0 /* the NAS filesystem's metadata (journal) block a create,
                                        delete or truncate writes */
/* Jobs whose I/O never leaves the client (s9h3): fio runs them in its own
 * thread and the NAS sees nothing; sim/engine/client_only.c times them. */
enum job_client {
  JOB_CLIENT_NAS = 0, /* the I/O goes to the NAS (every other engine) */
  JOB_CLIENT_NULL,    /* ioengine=null/cpp_null: each I/O completes in fio's memory, costing fio's
                         own per-I/O work */
  JOB_CLIENT_CPU,     /* ioengine=cpuio: no I/O, cpuload % of a client core per copy */
  JOB_CLIENT_EOF,     /* reads of emulated zbd zones with read_beyond_wp=0: fio finds no written
                         data below the (empty) write pointers and ends the job with no I/O */
  JOB_CLIENT_NET,     /* ioengine=net/netsplice: a TCP stream to (write) or from (read) a peer on
                         the NAS, over the modelled links; no protocol daemon, no storage */
  JOB_CLIENT_EXEC,    /* ioengine=exec: runs a program on the client for the runtime, no I/O; what
                         the program does is not modelled */
};
enum job_dist { JOB_DIST_UNIFORM = 0, JOB_DIST_ZIPF, JOB_DIST_PARETO, JOB_DIST_NORMAL, JOB_DIST_ZONED };
#define JOB_MAX_ZONES 16

struct job {
  char name[64];
  double read_frac;         /* rwmixread / 100: 1 = reads only, 0 = writes only */
  enum job_access access;   /* sequential, random, backward, stride */
  double stride_bytes;      /* JOB_STRIDE: distance between I/O starts */
  int nbs;                  /* block sizes (bs or bssplit), >= 1 */
  double bs_bytes[JOB_MAX_BS];
  double bs_weight[JOB_MAX_BS]; /* sum to 1 */
  int iodepth;              /* outstanding I/Os per job copy, >= 1 */
  int numjobs;              /* copies of the job per client, >= 1 */
  double size_bytes;        /* region each copy works in (fio size/filesize) */
  double offset_bytes;      /* start of the region */
  int shared_file;          /* 1: the copies open one file (fio filename=): they share the
                               region; 0: each copy (and client) its own file, fio's default
                               jobname.N.M files, laid out one after the other */
  double offset_increment_bytes; /* fio offset_increment: copy k starts k times this further */
  double runtime_s;         /* 0: until size_bytes done (or time_based) */
  double ramp_s;            /* warm-up excluded from the statistics */
  int time_based;           /* 1: run for runtime_s, wrapping in the region */
  int direct;               /* 1: O_DIRECT, bypass the client's page cache */
  int sync;                 /* 1: every write is stable on return (NFS sync, FUA) */
  double thinktime_s;       /* pause after each I/O completes */
  double rate_iops;         /* > 0: open loop at this rate per job copy */
  int stonewall;            /* wait for previous jobs to finish first */
  /* File copies (robocopy-like): files of file_bytes each, opened and
   * closed around their I/O; 0 = plain block I/O. */
  double file_bytes;
  double nfiles;
  int file_handles;         /* file copies: each file's open (SMB2 CREATE) and close are
                               requests of their own, the next I/O waits for each (a copy
                               tool's CreateFile / CloseHandle); 0: the open's cost rides on
                               the file's first I/O */
  int open_untimed;         /* the tool opens its file before its timer starts (IOZone: the
                               open is outside the timed loop, -c adds only the close): a
                               sized step's window opens when the measured job's first data
                               goes, its file open (engine.c eng_lane_rx_main) */
  /* Additive (h-workloads): */
  double rwmixread_frac;    /* fio rwmixread / 100, used when rw_mixed (default 0.5) */
  int rw_mixed;             /* 1: rw=rw/randrw (read_frac = rwmixread_frac) */
  double seq_frac;          /* JOB_RANDOM only: fraction of I/Os that continue
                               sequentially (1 - fio percentage_random/100); 0 = all random */
  int fsync_every;          /* fio fsync=N: flush the file after every N writes; 0 = never */
  int net_only;             /* 1: raw TCP stream (iperf): the NAS discards the data, no storage */
  int prep;                 /* 1: preparatory job (lays out / warms the region, e.g. the
                               write before IOZone's re-read); excluded from the step's figures */
  /* Additive (h5, fio's job language): */
  double size_frac;         /* fio size=N%: the region is this share of the target (0: size_bytes) */
  double offset_frac;       /* fio offset=N%: the region starts this share into the target */
  double io_bytes;          /* fio io_size/io_limit (number_ios x the mean block): I/O done before
                               the job ends, wrapping in the region; 0 = the region once */
  double rate_bytes;        /* fio rate (bytes/s per copy): fio_job_finish makes it rate_iops */
  double number_ios;        /* fio number_ios: fio_job_finish makes it io_bytes */
  double rw_modifier;       /* fio rw=MODE:N: sequential, a hole of N bytes after each I/O;
                               random, a new random offset every N I/Os; 0 = none */
  int random_run;           /* JOB_RANDOM: a new random offset every random_run I/Os, the
                               ones between follow on sequentially (fio rw=randread:N); <= 1 = every I/O */
  int norandommap;          /* JOB_RANDOM: 1 = each random offset drawn with replacement (fio
                               norandommap); 0 = fio's random map, every block once per pass
                               (sim/config/workgen.c workgen_maps says when it applies) */
  int replay;               /* 1: the I/O is the workload's trace (struct workload.replay) */
  int replay_depth;         /* replay: 0 = open loop by the trace's timestamps; N = closed
                               loop, N outstanding, timestamps ignored */
  /* Additive (h7, fio's per-direction values and offset distributions): */
  int nbs_w;                /* > 0: writes take these block sizes (fio bs=R,W or bssplit=R,W);
                               0 = writes take the reads' (bs_bytes) */
  double bs_bytes_w[JOB_MAX_BS];
  double bs_weight_w[JOB_MAX_BS];
  double rate_bytes_w, rate_iops_w; /* fio rate=R,W / rate_iops=R,W: the writes' limits (-1 = as
                               the reads'); fio_job_finish folds both into rate_iops */
  enum job_dist dist;       /* JOB_RANDOM: where random offsets fall (fio random_distribution) */
  double dist_param;        /* zipf theta, pareto h, normal deviation (% of the region) */
  double dist_center;       /* fio's :center, 0..1; -1 = a random rotation (fio's default) */
  int nzones;               /* JOB_DIST_ZONED: zones, in region order */
  double zone_access[JOB_MAX_ZONES]; /* share of the I/Os (sum 1) */
  double zone_span[JOB_MAX_ZONES];   /* share of the region (sum 1), or bytes when zone_abs */
  int zone_abs;             /* fio zoned_abs: zone_span in bytes */
  double zone_size_bytes;   /* fio zonemode=strided: bytes done in a zone before the next; 0 = off */
  double zone_range_bytes;  /* the zone (fio zonerange; 0 = zone_size_bytes) */
  double zone_skip_bytes;   /* skipped after each zone (fio zoneskip) */
  int zone_mode;            /* fio zonemode: 0 not given, 1 none, 2 strided */
  /* Additive (h4, fio loops and verify): */
  int loops;                /* fio loops: the job's I/O (io_size or the region) done this many
                               times over; 0 or 1 = once */
  int verify;               /* fio verify=METHOD (not none): a job that writes reads back what it
                               wrote once its writes are done (fio_parse_* adds that read as a
                               step of its own); 0 = no verify */
  int no_verify;            /* fio do_verify=0: verify names a method but no read-back runs */
  int verify_only;          /* fio verify_only: no writes, only the read-back of the region */
  /* zonemode=zbd on the target a NAS serves (a file on a share, a LUN: not
   * zoned), as fio emulates it (zbd.c init_zone_info): zones of zbd_zone_bytes
   * with a write pointer each; random writes go to the write pointer of one
   * of the open zones, at most max_open_zones open; reads need
   * read_beyond_wp (fio reads only below the pointers, which start empty). */
  double zbd_zone_bytes;    /* > 0: zonemode=zbd with this zone size */
  double zbd_cap_bytes;     /* fio zonecapacity: writable bytes of a zone (0 = the zone size) */
  int max_open_zones;       /* fio max_open_zones (per target; 0 = no limit) */
  int job_max_open_zones;   /* fio job_max_open_zones (per job; 0 = no limit) */
  int read_beyond_wp;       /* fio read_beyond_wp */
  double size_zones, offset_zones; /* fio size=Nz / offset=Nz: fio_job_finish makes them bytes */
  /* Additive (s7h1, fio's metadata engines): */
  enum job_meta meta_op;    /* != NONE: every I/O is this file operation (no data on the wire) */
  double nrfiles;           /* fio nrfiles: a metadata job does one operation per file */
  int nrfiles_line;         /* its line, for the warning on a data job (nrfiles not modelled) */
  /* fio latency_target: the depth search (sim/engine/lat_target.h); 0 = off */
  double lat_target_s;      /* latency_target */
  double lat_window_s;      /* latency_window: how long each depth is tried */
  double lat_pct;           /* latency_percentile: share (%) of I/Os that must meet the target */
  int lat_run;              /* latency_run: keep searching after the depth is found */
  /* Additive (s8h1, fio's trim direction): */
  int trim;                 /* 0: none; 1: every I/O trims (rw=trim, randtrim); 2: each block
                               trimmed then written (trimwrite, randtrimwrite) */
  char engine[24];          /* fio ioengine as given ("" = fio's default, psync) */
  /* Additive (s9h3, jobs that stay inside the client): */
  enum job_client client_only; /* != JOB_CLIENT_NAS: timed on the client alone */
  double cpuload;           /* ioengine=cpuio: share of a core each copy keeps busy (fio cpuload/100) */
  int gtod_reduce;          /* fio gtod_reduce: fio reads no clock per I/O (a null job's per-I/O work) */
  char net_proto[8];        /* ioengine=net: fio's protocol= ("" = fio's default, tcp) */
  double net_window_bytes;  /* ioengine=net: fio's window_size= (socket buffers; 0 = the scenario's window) */
  int net_pingpong;         /* ioengine=net: fio's pingpong= (each message waits for its echo) */
  int exec_program;         /* ioengine=exec: program= given (fio requires it) */
  /* Additive (s12h4, fio's http engine): */
  int http_mode;            /* fio http_mode: index into proto_http_api_names (0 webdav, fio's default) */
  int http_https;           /* fio https: 0 off, 1 on, 2 insecure */
  /* Additive (s14h3, NVMe passthrough): */
  int xnvme_cmd;            /* ioengine=xnvme's xnvme_async=io_uring_cmd given */
  int nvme_passthrough;     /* NVMe commands to a local namespace: io_uring_cmd, or xnvme through
                               io_uring_cmd (set when the job ends, fio_job_finish) */
};

struct workload_step {
  char name[64];            /* "atto-64KiB", "cdm-seq", "iozone-read", ... */
  char metric[32];          /* what the step reports: read_MBps, write_MBps, iops, ... */
  int njobs;
  struct job jobs[STEP_MAX_JOBS];
  /* Additive (h-workloads): */
  char group[48];           /* steps with equal group are combined by the workload's
                               combine rule (best of N iterations, mean over a grid);
                               "" = the step stands alone */
  int clients;              /* client hosts running this step; 0 = the scenario's count */
  int precondition;         /* 1: bring the target to steady state (fill it and run the
                               step's own mix unmeasured) before measuring */
};

/* How a preset combines its steps into reported figures. */
enum workload_combine { COMBINE_EACH = 0, COMBINE_BEST = 1, COMBINE_MEAN = 2 };

struct workload {
  char preset[32];          /* "" for a plain fio-like job list */
  enum workload_combine combine;
  int nsteps;
  struct workload_step *steps; /* owned */
  struct replay_trace *replay; /* owned: the trace replay jobs take their I/O from, or NULL */
};

/* 1 when steps a and b simulate the same: every field but their name and
 * group equal (a run depends on nothing else of its step, and the twin
 * is deterministic: CrystalDiskMark's iterations are one simulation). */
int workload_steps_same(const struct workload_step *a, const struct workload_step *b);

/* Defaults for one job: fio's own (rw=read, bs=4KiB, iodepth=1, numjobs=1). */
void job_defaults(struct job *j);

/* Parse a fio job file into a workload (one step per stonewall group).
 * Options nastwin does not model are accepted and named in *warnings
 * (malloc'd, "" when none; caller frees); unknown options are an error
 * "file:line:col: error: ...".  0 or -1. */
int fio_parse_file(const char *path, struct workload *out, char **warnings, struct nw_err *err);
int fio_parse_string(const char *text, const char *name, struct workload *out, char **warnings,
                     struct nw_err *err);

/* Print warnings (lines) to out, each line once per process: a
 * calibrated run loads the scenario twice (calib_cfg_load), its warnings
 * are said once. */
void fio_print_warnings(FILE *out, const char *warnings);

/* A note, printed once (fio_print_warnings), for every job of w whose
 * runtime is longer than time_s, the scenario's simulated time that caps
 * every job: which job, its runtime, what is simulated and how to get
 * the whole of it.  file names the job file. */
void fio_note_time_cap(FILE *out, const char *file, const struct workload *w, double time_s);

/* Set one fio option (key=value, fio spelling) on a job: used by the fio
 * parser and by YAML workloads that inline the same keys.  0, or -1 with
 * msg naming the key, the value and what is allowed.  Sets *unmodelled
 * to 1 for an option that is accepted but not modelled (ioengine, ...). */
int fio_set_option(struct job *j, const char *key, const char *value, int *unmodelled, char *msg,
                   size_t msg_len);

/* Resolve what a fio job's options give only together, once they are
 * all set (fio reads them in any order): rate in bytes/s into rate_iops
 * at the mean block size, number_ios into io_bytes, rw=MODE:N into a
 * stride or a sequential share.  0, or -1 with msg. */
int fio_job_finish(struct job *j, char *msg, size_t msg_len);

/* A job with verify=METHOD that writes (or verify_only): its read-back
 * into *rb, the job as fio's do_verify runs it once the writes are done
 * (sequential reads of the written bytes, at the written block sizes, not
 * paced); 1, else 0. */
int fio_verify_job(const struct job *j, struct job *rb);

/* Expand a named preset ("atto", "crystaldiskmark", "iometer", "iozone",
 * "storagereview", "filecopy", "vmware-io-analyzer") with its settings
 * (key/value pairs, may be NULL) into steps.  -1 with msg when the name
 * or a setting is unknown. */
int workload_preset(const char *name, const char *const *keys, const char *const *values, int nkv,
                    struct workload *out, char *msg, size_t msg_len);
/* "atto, crystaldiskmark, ...": the valid preset names, for messages. */
const char *workload_preset_names(void);

void workload_free(struct workload *w); /* frees steps; accepts zeroed */

#endif
