/* presets.c - the reviewers' benchmark tools as workload presets.
 *
 * Each preset is a const table of settings (key, kind, range, default,
 * help) and an expand function that turns the settled values into steps.
 * Tool parameters that are facts of the tool (ATTO's size ladder,
 * CrystalDiskMark's four tests, IOZone's thirteen tests and -a grid,
 * StorageReview's thread/queue ladder) are constants here; everything
 * the reviews do not state is a setting with a documented, assumed default
 * (see workloads/README.md).  No measured figure appears here. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/params.h"
#include "base/units.h"
#include "sim/config/workload.h"
#include "sim/config/workload_build.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)
#define PRESET_MAX_SETTINGS 16
#define PRESET_MAX_LIST 64

enum preset_kind { PS_INT, PS_BYTES, PS_TIME, PS_WORD, PS_SIZELIST, PS_WORDLIST };

struct preset_setting {
  const char *key;
  enum preset_kind kind;
  double min, max, def;          /* PS_INT/BYTES/TIME; PS_WORD: def = word index */
  const char *const *words;      /* PS_WORD, PS_WORDLIST: NULL-terminated */
  const char *def_list;          /* PS_SIZELIST, PS_WORDLIST: default text */
  const char *help;
};

/* Settled values: v[i] for scalar settings; the (single) list setting. */
struct preset_values {
  double v[PRESET_MAX_SETTINGS];
  double list[PRESET_MAX_LIST]; /* PS_SIZELIST: bytes; PS_WORDLIST: word indices */
  int nlist;
};

struct preset_ctx {
  const char *name;
  const struct preset_values *pv;
  struct workload *out;
  char *msg;
  size_t msg_len;
};

struct preset_def {
  const char *name;
  const struct preset_setting *settings;
  int nsettings;
  enum workload_combine combine;
  int (*expand)(struct preset_ctx *c);
};

static int preset_fail(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int preset_fail(char *msg, size_t len, const char *fmt, ...)
{
  if (msg && len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* ------------------------------------------------------------ job helpers */

static void preset_job(struct job *j, const char *name, double read_frac, enum job_access access,
                       double bs_bytes, int iodepth, int numjobs, double size_bytes, int direct)
{
  job_defaults(j);
  snprintf(j->name, sizeof j->name, "%s", name);
  j->read_frac = read_frac;
  j->rwmixread_frac = read_frac;
  j->rw_mixed = read_frac > 0.0 && read_frac < 1.0;
  j->access = access;
  workload_job_set_bs(j, bs_bytes);
  j->iodepth = iodepth;
  j->numjobs = numjobs;
  j->size_bytes = size_bytes;
  j->direct = direct;
}

/* Random offsets: fio keeps its map of the blocks done (every block once
 * per pass, sim/config/workgen.c), and so do IOZone's random tests (each
 * record once per pass in shuffled order, iozone.c random_perf_test;
 * recalled, medium confidence).  IOMeter's Dynamo (also inside VMware I/O
 * Analyzer's VMs) and CrystalDiskMark 3.x draw each random offset afresh,
 * without such a map (recalled from their sources, medium confidence):
 * their random jobs set norandommap, as fio's option of that name. */
#define PRESET_NO_RANDOM_MAP 1

/* Append a step; NULL (with msg) when out of memory. */
static struct workload_step *preset_step(struct preset_ctx *c, const char *metric, const char *group,
                                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static struct workload_step *preset_step(struct preset_ctx *c, const char *metric, const char *group,
                                         const char *fmt, ...)
{
  struct workload_step *s = workload_add_step(c->out);
  if (!s) {
    preset_fail(c->msg, c->msg_len, "%s: out of memory expanding the preset", c->name);
    return NULL;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->name, sizeof s->name, fmt, ap);
  va_end(ap);
  snprintf(s->metric, sizeof s->metric, "%s", metric);
  snprintf(s->group, sizeof s->group, "%s", group ? group : "");
  return s;
}

/* Add jobs in order; every job after the first waits for the previous ones. */
static void preset_add_jobs(struct workload_step *s, struct job *jobs, int n)
{
  for (int i = 0; i < n && s->njobs < STEP_MAX_JOBS; i++) {
    jobs[i].stonewall = s->njobs > 0;
    workload_step_add_job(s, &jobs[i]);
  }
}

static int preset_has_word(const struct preset_values *pv, int idx)
{
  for (int i = 0; i < pv->nlist; i++)
    if ((int)pv->list[i] == idx)
      return 1;
  return 0;
}

/* ------------------------------------------------------------------ ATTO */

enum { ATTO_QD, ATTO_FILE, ATTO_SIZES, ATTO_OVERLAPPED, ATTO_DIRECT, ATTO_N };
static const struct preset_setting atto_settings[] = {
    [ATTO_QD] = {.key = "queue_depth", .kind = PS_INT, .min = 1, .max = 256, .def = 4,
                 .help = "outstanding I/Os (ATTO default 4; reviews used 8 and 10)"},
    [ATTO_FILE] = {.key = "file_size", .kind = PS_BYTES, .min = 64 * KIB, .max = 1024 * GIB,
                   .def = 256 * MIB, .help = "test file, ATTO 'Total Length' (default 256 MiB)"},
    [ATTO_SIZES] = {.key = "sizes", .kind = PS_SIZELIST, .min = 512, .max = 8 * MIB,
                    .def_list = "512B..8MiB",
                    .help = "transfer sizes: list and/or lo..hi power-of-two ranges"},
    [ATTO_OVERLAPPED] = {.key = "overlapped", .kind = PS_INT, .min = 0, .max = 1, .def = 1,
                         .help = "1: overlapped I/O (queue_depth applies); 0: one I/O at a time"},
    [ATTO_DIRECT] = {.key = "direct", .kind = PS_INT, .min = 0, .max = 1, .def = 1,
                     .help = "ATTO 'Direct I/O' (default on: bypass the client cache)"},
};

static int atto_expand(struct preset_ctx *c)
{
  const struct preset_values *pv = c->pv;
  int qd = pv->v[ATTO_OVERLAPPED] > 0 ? (int)pv->v[ATTO_QD] : 1;
  double file_bytes = pv->v[ATTO_FILE];
  int direct = (int)pv->v[ATTO_DIRECT];
  for (int i = 0; i < pv->nlist; i++) {
    double bs = pv->list[i];
    char sz[32];
    workload_format_bytes(bs, sz, sizeof sz);
    struct job jobs[2];
    /* ATTO writes the test file with each transfer size, then reads it back. */
    preset_job(&jobs[0], "write", 0.0, JOB_SEQ, bs, qd, 1, file_bytes, direct);
    struct workload_step *s = preset_step(c, "write_MBps", NULL, "atto-write-%s", sz);
    if (!s)
      return -1;
    preset_add_jobs(s, jobs, 1);
    jobs[0].prep = 1;
    preset_job(&jobs[1], "read", 1.0, JOB_SEQ, bs, qd, 1, file_bytes, direct);
    s = preset_step(c, "read_MBps", NULL, "atto-read-%s", sz);
    if (!s)
      return -1;
    preset_add_jobs(s, jobs, 2);
  }
  return 0;
}

/* ------------------------------------------------------- CrystalDiskMark */

static const char *const cdm_test_words[] = {"seq", "512k", "4k", "4k-qd32", NULL};
enum { CDM_FILE, CDM_ITER, CDM_TIME, CDM_TESTS, CDM_N };
static const struct preset_setting cdm_settings[] = {
    [CDM_FILE] = {.key = "file_size", .kind = PS_BYTES, .min = 1 * MIB, .max = 1024 * GIB,
                  .def = 1 * GIB, .help = "test file (CDM menu: 50MB .. 4000MB; default 1 GiB)"},
    [CDM_ITER] = {.key = "iterations", .kind = PS_INT, .min = 1, .max = 9, .def = 5,
                  .help = "runs of each test; the best is reported (CDM: 1..9, default 5)"},
    [CDM_TIME] = {.key = "test_time", .kind = PS_TIME, .min = 0.1, .max = 3600, .def = 5,
                  .help = "duration of each random test (assumed 5 s)"},
    [CDM_TESTS] = {.key = "tests", .kind = PS_WORDLIST, .words = cdm_test_words,
                   .def_list = "seq,512k,4k,4k-qd32", .help = "which of the four tests to run"},
};

static int cdm_expand(struct preset_ctx *c)
{
  static const struct {
    double bs_bytes;
    enum job_access access;
    int qd;
  } tests[] = {
      {1024 * KIB, JOB_SEQ, 1},  /* Seq: 1024 KiB blocks, QD1, one pass over the file */
      {512 * KIB, JOB_RANDOM, 1}, /* 512K random, QD1 */
      {4 * KIB, JOB_RANDOM, 1},   /* 4K random, QD1 */
      {4 * KIB, JOB_RANDOM, 32},  /* 4K random, QD32 (one thread) */
  };
  const struct preset_values *pv = c->pv;
  double file_bytes = pv->v[CDM_FILE];
  int iters = (int)pv->v[CDM_ITER];
  for (int t = 0; t < 4; t++) {
    if (!preset_has_word(pv, t))
      continue;
    for (int dir = 0; dir < 2; dir++) { /* CDM runs read, then write */
      const char *dname = dir == 0 ? "read" : "write";
      char group[48];
      snprintf(group, sizeof group, "cdm-%s-%s", cdm_test_words[t], dname);
      for (int it = 1; it <= iters; it++) {
        struct job jobs[2];
        int n = 0;
        if (dir == 0) { /* the test file exists (CDM fills it first) */
          preset_job(&jobs[n], "fill", 0.0, JOB_SEQ, 1024 * KIB, 1, 1, file_bytes, 1);
          jobs[n++].prep = 1;
        }
        preset_job(&jobs[n], dname, dir == 0 ? 1.0 : 0.0, tests[t].access, tests[t].bs_bytes,
                   tests[t].qd, 1, file_bytes, 1);
        if (tests[t].access == JOB_RANDOM) {
          jobs[n].norandommap = PRESET_NO_RANDOM_MAP;
          jobs[n].time_based = 1;
          jobs[n].runtime_s = pv->v[CDM_TIME];
        }
        n++;
        struct workload_step *s =
            preset_step(c, dir == 0 ? "read_MBps" : "write_MBps", group, "%s-i%d", group, it);
        if (!s)
          return -1;
        preset_add_jobs(s, jobs, n);
      }
    }
  }
  return 0;
}

/* ---------------------------------------------------------------- IOMeter */

static const char *const iometer_trace_words[] = {"seq-read", "seq-write", "random-8k-70r",
                                                  "reallife", NULL};
enum { IOM_CLIENTS, IOM_FROM, IOM_QD, IOM_SEQ_BS, IOM_RAND_BS, IOM_FILE, IOM_RUNTIME, IOM_RAMP,
       IOM_TRACES, IOM_N };
static const struct preset_setting iometer_settings[] = {
    [IOM_CLIENTS] = {.key = "clients", .kind = PS_INT, .min = 1, .max = 1024, .def = 25,
                     .help = "last client count of the ramp (AnandTech: 25 VMs)"},
    [IOM_FROM] = {.key = "clients_from", .kind = PS_INT, .min = 1, .max = 1024, .def = 1,
                  .help = "first client count of the ramp"},
    [IOM_QD] = {.key = "queue_depth", .kind = PS_INT, .min = 1, .max = 1024, .def = 1,
                .help = "outstanding I/Os per client (IOMeter default 1; assumed)"},
    [IOM_SEQ_BS] = {.key = "seq_bs", .kind = PS_BYTES, .min = 512, .max = 64 * MIB, .def = 32 * KIB,
                    .help = "sequential traces' transfer size (assumed 32 KiB)"},
    [IOM_RAND_BS] = {.key = "random_bs", .kind = PS_BYTES, .min = 512, .max = 64 * MIB,
                     .def = 8 * KIB, .help = "random and real-life traces' transfer size (8 KiB)"},
    [IOM_FILE] = {.key = "file_size", .kind = PS_BYTES, .min = 1 * MIB, .max = 1024 * GIB,
                  .def = 10 * GIB, .help = "test file per client (assumed 10 GiB)"},
    [IOM_RUNTIME] = {.key = "runtime", .kind = PS_TIME, .min = 1, .max = 86400, .def = 60,
                     .help = "measured time per step (assumed 60 s)"},
    [IOM_RAMP] = {.key = "ramp", .kind = PS_TIME, .min = 0, .max = 3600, .def = 5,
                  .help = "warm-up excluded from the figures (assumed 5 s)"},
    [IOM_TRACES] = {.key = "traces", .kind = PS_WORDLIST, .words = iometer_trace_words,
                    .def_list = "seq-read,seq-write,random-8k-70r,reallife",
                    .help = "which traces to run"},
};

static int iometer_expand(struct preset_ctx *c)
{
  const struct preset_values *pv = c->pv;
  int from = (int)pv->v[IOM_FROM], to = (int)pv->v[IOM_CLIENTS];
  if (from > to)
    return preset_fail(c->msg, c->msg_len,
                       "iometer: clients_from (%d) must be <= clients (%d)", from, to);
  static const struct {
    double read_frac, seq_frac;
    enum job_access access;
    int random_bs;
  } traces[] = {
      {1.0, 0.0, JOB_SEQ, 0},     /* 100 % sequential reads */
      {0.0, 0.0, JOB_SEQ, 0},     /* 100 % sequential writes */
      {0.7, 0.0, JOB_RANDOM, 1},  /* 8K random, 70 % reads */
      {0.65, 0.4, JOB_RANDOM, 1}, /* real life: 8K, 65 % reads, 60 % random */
  };
  for (int t = 0; t < 4; t++) {
    if (!preset_has_word(pv, t))
      continue;
    for (int n = from; n <= to; n++) {
      struct job j;
      double bs = traces[t].random_bs ? pv->v[IOM_RAND_BS] : pv->v[IOM_SEQ_BS];
      preset_job(&j, iometer_trace_words[t], traces[t].read_frac, traces[t].access, bs,
                 (int)pv->v[IOM_QD], 1, pv->v[IOM_FILE], 1);
      j.seq_frac = traces[t].seq_frac;
      j.norandommap = PRESET_NO_RANDOM_MAP;
      j.time_based = 1;
      j.runtime_s = pv->v[IOM_RUNTIME];
      j.ramp_s = pv->v[IOM_RAMP];
      struct workload_step *s =
          preset_step(c, "aggregate_MBps", NULL, "iometer-%s-c%02d", iometer_trace_words[t], n);
      if (!s)
        return -1;
      s->clients = n;
      preset_add_jobs(s, &j, 1);
    }
  }
  return 0;
}

/* ----------------------------------------------------------------- IOZone */

static const char *const iozone_test_words[] = {
    "init-write",  "re-write",      "read",            "re-read",     "random-read",
    "random-write", "backward-read", "record-re-write", "stride-read", "file-write",
    "file-re-write", "file-read",   "file-re-read",    NULL};
enum { IOZ_MAX_FILE, IOZ_MIN_FILE, IOZ_MIN_REC, IOZ_MAX_REC, IOZ_SAMPLE, IOZ_STRIDE, IOZ_TESTS,
       IOZ_N };
static const struct preset_setting iozone_settings[] = {
    [IOZ_MAX_FILE] = {.key = "max_file", .kind = PS_BYTES, .min = 64 * KIB, .max = 1024 * GIB,
                      .def = 2 * GIB, .help = "-g: largest file (review: -g 2097152 KiB = 2 GiB)"},
    [IOZ_MIN_FILE] = {.key = "min_file", .kind = PS_BYTES, .min = 4 * KIB, .max = 1024 * GIB,
                      .def = 64 * KIB, .help = "-n: smallest file (iozone -a: 64 KiB)"},
    [IOZ_MIN_REC] = {.key = "min_record", .kind = PS_BYTES, .min = 4 * KIB, .max = 16 * MIB,
                     .def = 4 * KIB, .help = "-y: smallest record (iozone -a: 4 KiB)"},
    [IOZ_MAX_REC] = {.key = "max_record", .kind = PS_BYTES, .min = 4 * KIB, .max = 16 * MIB,
                     .def = 16 * MIB, .help = "-q: largest record (iozone -a: 16 MiB)"},
    [IOZ_SAMPLE] = {.key = "sample", .kind = PS_INT, .min = 1, .max = 1000, .def = 1,
                    .help = "keep every Nth (file, record) pair of the grid (1 = all)"},
    [IOZ_STRIDE] = {.key = "stride_records", .kind = PS_INT, .min = 1, .max = 1024, .def = 17,
                    .help = "-j: stride read distance in records (iozone default 17)"},
    [IOZ_TESTS] = {.key = "tests", .kind = PS_WORDLIST, .words = iozone_test_words,
                   .def_list = "all", .help = "which of the thirteen tests to run"},
};

enum iozone_op { IOZ_W, IOZ_R };
static int iozone_expand(struct preset_ctx *c)
{
  const struct preset_values *pv = c->pv;
  double fmin = pv->v[IOZ_MIN_FILE], fmax = pv->v[IOZ_MAX_FILE];
  double rmin = pv->v[IOZ_MIN_REC], rmax = pv->v[IOZ_MAX_REC];
  if (fmin > fmax || rmin > rmax)
    return preset_fail(c->msg, c->msg_len,
                       "iozone: min_file must be <= max_file and min_record <= max_record");
  /* Test t: preparatory passes then the measured one; JOB_STRIDE with
   * stride 0 is record re-write (the same record over and over). */
  static const struct {
    int nprep_reads;       /* reads before the measured job (re-read warms the cache) */
    int prep_write;        /* the file is written first */
    double read_frac;
    enum job_access access;
    int stride;            /* 1: stride = stride_records x record; 0 otherwise */
  } tests[] = {
      {0, 0, 0.0, JOB_SEQ, 0},      {0, 1, 0.0, JOB_SEQ, 0},      {0, 1, 1.0, JOB_SEQ, 0},
      {1, 1, 1.0, JOB_SEQ, 0},      {0, 1, 1.0, JOB_RANDOM, 0},   {0, 1, 0.0, JOB_RANDOM, 0},
      {0, 1, 1.0, JOB_BACKWARD, 0}, {0, 1, 0.0, JOB_STRIDE, 0},   {0, 1, 1.0, JOB_STRIDE, 1},
      {0, 0, 0.0, JOB_SEQ, 0},      {0, 1, 0.0, JOB_SEQ, 0},      {0, 1, 1.0, JOB_SEQ, 0},
      {1, 1, 1.0, JOB_SEQ, 0},
  };
  for (int t = 0; t < 13; t++) {
    if (!preset_has_word(pv, t))
      continue;
    char group[48];
    snprintf(group, sizeof group, "iozone-%s", iozone_test_words[t]);
    long pair = 0;
    for (double f = fmin; f <= fmax; f *= 2.0) {
      for (double r = rmin; r <= rmax && r <= f; r *= 2.0, pair++) {
        if (pair % (long)pv->v[IOZ_SAMPLE] != 0)
          continue;
        struct job jobs[3];
        int n = 0;
        if (tests[t].prep_write) {
          preset_job(&jobs[n], "write", 0.0, JOB_SEQ, r, 1, 1, f, 0);
          jobs[n++].prep = 1;
        }
        for (int k = 0; k < tests[t].nprep_reads; k++) {
          preset_job(&jobs[n], "read", 1.0, JOB_SEQ, r, 1, 1, f, 0);
          jobs[n++].prep = 1;
        }
        preset_job(&jobs[n], iozone_test_words[t], tests[t].read_frac, tests[t].access, r, 1, 1,
                   f, 0);
        jobs[n].stride_bytes = tests[t].stride ? pv->v[IOZ_STRIDE] * r : 0.0;
        n++;
        for (int k = 0; k < n; k++) { /* each pass opens its file before its timer; -c puts
                                         the close in the timing */
          jobs[k].file_bytes = f;
          jobs[k].nfiles = 1;
          jobs[k].open_untimed = 1;
        }
        char fs[32], rs[32];
        workload_format_bytes(f, fs, sizeof fs);
        workload_format_bytes(r, rs, sizeof rs);
        struct workload_step *s = preset_step(c, "MBps", group, "%s-f%s-r%s", group, fs, rs);
        if (!s)
          return -1;
        preset_add_jobs(s, jobs, n);
      }
    }
  }
  return 0;
}

/* ---------------------------------------------------------- StorageReview */

enum { SR_THREADS, SR_QUEUE, SR_FILE, SR_SHARED, SR_RUNTIME, SR_RAMP, SR_PRECOND, SR_N };
static const struct preset_setting sr_settings[] = {
    [SR_THREADS] = {.key = "threads", .kind = PS_INT, .min = 1, .max = 256, .def = 16,
                    .help = "workers for the fixed-load tests (16T16Q)"},
    [SR_QUEUE] = {.key = "queue", .kind = PS_INT, .min = 1, .max = 1024, .def = 16,
                  .help = "outstanding I/Os per worker for the fixed-load tests"},
    [SR_FILE] = {.key = "file_size", .kind = PS_BYTES, .min = 1 * MIB, .max = 1024 * 1024 * GIB,
                 .def = 25 * GIB, .help = "test region (assumed 25 GiB)"},
    [SR_SHARED] = {.key = "shared_file", .kind = PS_INT, .min = 0, .max = 1, .def = 1,
                   .help = "1: the threads are fio numjobs on one test file (fio filename=), "
                           "each in its own slice of it (offset_increment = size = "
                           "file_size / threads); 0: a file per thread"},
    [SR_RUNTIME] = {.key = "runtime", .kind = PS_TIME, .min = 1, .max = 86400, .def = 60,
                    .help = "measured time per step (assumed 60 s)"},
    [SR_RAMP] = {.key = "ramp", .kind = PS_TIME, .min = 0, .max = 3600, .def = 5,
                 .help = "warm-up excluded from the figures (assumed 5 s)"},
    [SR_PRECOND] = {.key = "precondition", .kind = PS_INT, .min = 0, .max = 1, .def = 1,
                    .help = "1: steady-state preconditioning before each step"},
};

static int sr_add(struct preset_ctx *c, const char *name, const char *metric, double read_frac,
                  enum job_access access, double bs, int threads, int queue)
{
  const struct preset_values *pv = c->pv;
  struct job j;
  preset_job(&j, name, read_frac, access, bs, queue, threads, pv->v[SR_FILE], 1);
  j.shared_file = (int)pv->v[SR_SHARED];
  if (j.shared_file) {
    /* fio numjobs on one file with offset_increment = file / threads and
     * size = file / threads: thread k works in its own slice starting k
     * slices in (its own stream, its own pages); together they span the
     * file.  Whole 4 KiB pages. */
    double slice = floor(pv->v[SR_FILE] / threads / 4096.0) * 4096.0;
    j.size_bytes = slice;
    j.offset_increment_bytes = slice;
  }
  j.time_based = 1;
  j.runtime_s = pv->v[SR_RUNTIME];
  j.ramp_s = pv->v[SR_RAMP];
  struct workload_step *s = preset_step(c, metric, NULL, "sr-%s", name);
  if (!s)
    return -1;
  s->precondition = (int)pv->v[SR_PRECOND];
  preset_add_jobs(s, &j, 1);
  return 0;
}

static int sr_expand(struct preset_ctx *c)
{
  int t = (int)c->pv->v[SR_THREADS], q = (int)c->pv->v[SR_QUEUE];
  if (sr_add(c, "4k-random-read", "read_iops", 1.0, JOB_RANDOM, 4 * KIB, t, q) ||
      sr_add(c, "4k-random-write", "write_iops", 0.0, JOB_RANDOM, 4 * KIB, t, q) ||
      sr_add(c, "8k-seq-read", "read_iops", 1.0, JOB_SEQ, 8 * KIB, t, q) ||
      sr_add(c, "8k-seq-write", "write_iops", 0.0, JOB_SEQ, 8 * KIB, t, q))
    return -1;
  static const int ladder[] = {2, 4, 8, 16}; /* StorageReview's 8K 70/30 load ladder */
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 4; k++) {
      char name[48];
      snprintf(name, sizeof name, "8k-70-30-%dt%dq", ladder[i], ladder[k]);
      if (sr_add(c, name, "iops", 0.7, JOB_RANDOM, 8 * KIB, ladder[i], ladder[k]))
        return -1;
    }
  if (sr_add(c, "128k-seq-read", "read_MBps", 1.0, JOB_SEQ, 128 * KIB, t, q) ||
      sr_add(c, "128k-seq-write", "write_MBps", 0.0, JOB_SEQ, 128 * KIB, t, q))
    return -1;
  return 0;
}

/* --------------------------------------------------------------- filecopy */

static const char *const filecopy_set_words[] = {"photos", "videos", "bluray", NULL};
enum { FC_SETS, FC_FOLDER, FC_PHOTO, FC_VIDEO, FC_BLURAY, FC_BS, FC_QD, FC_DIRECT, FC_N };
static const struct preset_setting filecopy_settings[] = {
    [FC_SETS] = {.key = "sets", .kind = PS_WORDLIST, .words = filecopy_set_words,
                 .def_list = "photos,videos,bluray", .help = "which folders to copy"},
    [FC_FOLDER] = {.key = "folder_size", .kind = PS_BYTES, .min = 1 * MIB, .max = 1024 * GIB,
                   .def = 10 * GIB, .help = "bytes per folder (assumed 10 GiB)"},
    [FC_PHOTO] = {.key = "photo_file_size", .kind = PS_BYTES, .min = 4 * KIB, .max = 1024 * MIB,
                  .def = 4 * MIB, .help = "photo file size (assumed 4 MiB)"},
    [FC_VIDEO] = {.key = "video_file_size", .kind = PS_BYTES, .min = 1 * MIB, .max = 64 * GIB,
                  .def = 256 * MIB, .help = "video file size (assumed 256 MiB)"},
    [FC_BLURAY] = {.key = "bluray_file_size", .kind = PS_BYTES, .min = 1 * MIB, .max = 256 * GIB,
                   .def = 4 * GIB, .help = "Blu-ray stream file size (assumed 4 GiB)"},
    [FC_BS] = {.key = "bs", .kind = PS_BYTES, .min = 4 * KIB, .max = 64 * MIB, .def = 1 * MIB,
               .help = "copy chunk (assumed 1 MiB)"},
    [FC_QD] = {.key = "queue_depth", .kind = PS_INT, .min = 1, .max = 64, .def = 1,
               .help = "chunks in flight (assumed 1: single-threaded copy)"},
    [FC_DIRECT] = {.key = "direct", .kind = PS_INT, .min = 0, .max = 1, .def = 0,
                   .help = "0: buffered copy through the client cache (default)"},
};

static int filecopy_expand(struct preset_ctx *c)
{
  const struct preset_values *pv = c->pv;
  static const int file_setting[] = {FC_PHOTO, FC_VIDEO, FC_BLURAY};
  for (int set = 0; set < 3; set++) {
    if (!preset_has_word(pv, set))
      continue;
    double file_bytes = pv->v[file_setting[set]];
    double nfiles = ceil(pv->v[FC_FOLDER] / file_bytes);
    double bs = pv->v[FC_BS] < file_bytes ? pv->v[FC_BS] : file_bytes;
    struct job jobs[2];
    for (int dir = 0; dir < 2; dir++) { /* copy to the NAS, then back */
      int n = 0;
      if (dir == 1) {
        preset_job(&jobs[n], "copy-to-nas", 0.0, JOB_SEQ, bs, (int)pv->v[FC_QD], 1,
                   file_bytes * nfiles, (int)pv->v[FC_DIRECT]);
        jobs[n++].prep = 1;
      }
      preset_job(&jobs[n], dir == 0 ? "copy-to-nas" : "copy-from-nas", dir == 0 ? 0.0 : 1.0,
                 JOB_SEQ, bs, (int)pv->v[FC_QD], 1, file_bytes * nfiles, (int)pv->v[FC_DIRECT]);
      n++;
      for (int k = 0; k < n; k++) {
        jobs[k].file_bytes = file_bytes;
        jobs[k].nfiles = nfiles;
        jobs[k].file_handles = 1;
      }
      struct workload_step *s = preset_step(c, dir == 0 ? "write_MBps" : "read_MBps", NULL,
                                            "filecopy-%s-%s", filecopy_set_words[set],
                                            dir == 0 ? "write" : "read");
      if (!s)
        return -1;
      preset_add_jobs(s, jobs, n);
    }
  }
  return 0;
}

/* ------------------------------------------------------ VMware I/O Analyzer */

static const char *const vmio_rw_words[] = {"both", "read", "write", NULL};
enum { VM_SIZES, VM_RW, VM_OIO, VM_DISK, VM_RUNTIME, VM_RAMP, VM_N };
static const struct preset_setting vmio_settings[] = {
    [VM_SIZES] = {.key = "bs", .kind = PS_SIZELIST, .min = 512, .max = 16 * MIB,
                  .def_list = "4KiB,8KiB,64KiB", .help = "transfer sizes (review: 4K, 8K, 64K)"},
    [VM_RW] = {.key = "rw", .kind = PS_WORD, .words = vmio_rw_words, .def = 0,
               .help = "read, write, or both (one step each)"},
    [VM_OIO] = {.key = "outstanding", .kind = PS_INT, .min = 1, .max = 1024, .def = 16,
                .help = "outstanding I/Os of the VM's IOMeter worker (assumed 16)"},
    [VM_DISK] = {.key = "disk_size", .kind = PS_BYTES, .min = 1 * MIB, .max = 64 * 1024 * GIB,
                 .def = 16 * GIB, .help = "the VM's test virtual disk (review: 16 GB)"},
    [VM_RUNTIME] = {.key = "runtime", .kind = PS_TIME, .min = 1, .max = 86400, .def = 120,
                    .help = "measured time per step (assumed 120 s)"},
    /* IOmeter's ramp-up time, 0 s unless set: a short simulated window
     * stands for the steady state of a long run with a ramp (the NAS page
     * cache full of dirty data under random writes) */
    [VM_RAMP] = {.key = "ramp", .kind = PS_TIME, .min = 0, .max = 3600, .def = 0,
                 .help = "warm-up excluded from the figures (IOmeter ramp-up, 0 s)"},
};

static int vmio_expand(struct preset_ctx *c)
{
  const struct preset_values *pv = c->pv;
  int rw = (int)pv->v[VM_RW];
  for (int i = 0; i < pv->nlist; i++) {
    char sz[32];
    workload_format_bytes(pv->list[i], sz, sizeof sz);
    for (int dir = 1; dir <= 2; dir++) {
      if (rw != 0 && rw != dir)
        continue;
      struct job j;
      preset_job(&j, vmio_rw_words[dir], dir == 1 ? 1.0 : 0.0, JOB_RANDOM, pv->list[i],
                 (int)pv->v[VM_OIO], 1, pv->v[VM_DISK], 1);
      j.norandommap = PRESET_NO_RANDOM_MAP; /* IOMeter in the VMs */
      j.time_based = 1;
      j.runtime_s = pv->v[VM_RUNTIME];
      j.ramp_s = pv->v[VM_RAMP];
      struct workload_step *s = preset_step(c, "MBps", NULL, "vmio-%s-random-%s", sz, vmio_rw_words[dir]);
      if (!s)
        return -1;
      preset_add_jobs(s, &j, 1);
    }
  }
  return 0;
}

/* -------------------------------------------------------------------- iperf */

/* iperf: raw TCP streams between the clients and the NAS, no storage, to
 * check the network (and the per-packet CPU cost) on its own.  One stream
 * per client host (step clients), each its own TCP connection served by
 * one server thread, as iperf's server does.  Defaults are iperf 2's:
 * 128 KiB writes, 10 s. */
static const char *const iperf_dir_words[] = {"to-nas", "from-nas", NULL};
enum { IP_STREAMS, IP_DIR, IP_LEN, IP_WINDOW_MSGS, IP_RUNTIME, IP_N };
static const struct preset_setting iperf_settings[] = {
    [IP_STREAMS] = {.key = "streams", .kind = PS_INT, .min = 1, .max = 1024, .def = 1,
                    .help = "parallel streams, one client host and TCP connection each"},
    [IP_DIR] = {.key = "direction", .kind = PS_WORD, .words = iperf_dir_words, .def = 0,
                .help = "to-nas (client sends) or from-nas (iperf -R)"},
    [IP_LEN] = {.key = "len", .kind = PS_BYTES, .min = 1024, .max = 16 * MIB, .def = 128 * KIB,
                .help = "bytes per write (iperf -l, default 128 KiB)"},
    [IP_WINDOW_MSGS] = {.key = "in_flight", .kind = PS_INT, .min = 1, .max = 4096, .def = 16,
                        .help = "writes in flight per stream (socket buffer / len)"},
    [IP_RUNTIME] = {.key = "runtime", .kind = PS_TIME, .min = 0.001, .max = 86400, .def = 10,
                    .help = "test time (iperf -t, default 10 s)"},
};

static int iperf_expand(struct preset_ctx *c)
{
  const struct preset_values *pv = c->pv;
  int to_nas = (int)pv->v[IP_DIR] == 0;
  struct job j;
  preset_job(&j, to_nas ? "iperf-to-nas" : "iperf-from-nas", to_nas ? 0.0 : 1.0, JOB_SEQ,
             pv->v[IP_LEN], (int)pv->v[IP_WINDOW_MSGS], 1, 1.0 * GIB, 1);
  j.net_only = 1;
  j.time_based = 1;
  j.runtime_s = pv->v[IP_RUNTIME];
  struct workload_step *s = preset_step(c, "MBps", NULL, "iperf-%d-streams-%s", (int)pv->v[IP_STREAMS],
                                        iperf_dir_words[(int)pv->v[IP_DIR]]);
  if (!s)
    return -1;
  s->clients = (int)pv->v[IP_STREAMS];
  preset_add_jobs(s, &j, 1);
  return 0;
}

/* ---------------------------------------------------------------- registry */

#define PRESET_DEF(nm, tbl, comb, fn) \
  {.name = nm, .settings = tbl, .nsettings = (int)(sizeof(tbl) / sizeof((tbl)[0])), .combine = comb, .expand = fn}
static const struct preset_def preset_defs[] = {
    PRESET_DEF("atto", atto_settings, COMBINE_EACH, atto_expand),
    PRESET_DEF("crystaldiskmark", cdm_settings, COMBINE_BEST, cdm_expand),
    PRESET_DEF("iometer", iometer_settings, COMBINE_EACH, iometer_expand),
    PRESET_DEF("iozone", iozone_settings, COMBINE_MEAN, iozone_expand),
    PRESET_DEF("storagereview", sr_settings, COMBINE_EACH, sr_expand),
    PRESET_DEF("filecopy", filecopy_settings, COMBINE_EACH, filecopy_expand),
    PRESET_DEF("vmware-io-analyzer", vmio_settings, COMBINE_EACH, vmio_expand),
    PRESET_DEF("iperf", iperf_settings, COMBINE_EACH, iperf_expand),
};
#define PRESET_NDEFS ((int)(sizeof preset_defs / sizeof preset_defs[0]))

const char *workload_preset_names(void)
{
  return "atto, crystaldiskmark, iometer, iozone, storagereview, filecopy, vmware-io-analyzer, iperf";
}

static int preset_word_index(const char *const *words, const char *w)
{
  for (int i = 0; words[i]; i++)
    if (strcmp(words[i], w) == 0)
      return i;
  return -1;
}

static void preset_words_joined(const char *const *words, char *buf, size_t len)
{
  buf[0] = '\0';
  for (int i = 0; words[i]; i++) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", i ? ", " : "", words[i]);
  }
}

static char *preset_trim(char *s)
{
  while (*s == ' ' || *s == '\t')
    s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
    s[--n] = '\0';
  return s;
}

/* Parse a list setting ("4KiB,1MiB", "512B..8MiB", "seq,4k", "all") into pv->list. */
static int preset_parse_list(const struct preset_def *d, const struct preset_setting *st,
                             const char *text, struct preset_values *pv, char *msg, size_t len)
{
  char buf[1024];
  if (strlen(text) >= sizeof buf)
    return preset_fail(msg, len, "%s: setting %s: value too long", d->name, st->key);
  snprintf(buf, sizeof buf, "%s", text);
  pv->nlist = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    tok = preset_trim(tok);
    if (st->kind == PS_WORDLIST) {
      if (strcmp(tok, "all") == 0) {
        pv->nlist = 0;
        for (int i = 0; st->words[i] && i < PRESET_MAX_LIST; i++)
          pv->list[pv->nlist++] = i;
        continue;
      }
      int idx = preset_word_index(st->words, tok);
      if (idx < 0) {
        char words[512];
        preset_words_joined(st->words, words, sizeof words);
        return preset_fail(msg, len, "%s: setting %s: unknown value '%s' (allowed: %s, all)",
                           d->name, st->key, tok, words);
      }
      if (pv->nlist < PRESET_MAX_LIST)
        pv->list[pv->nlist++] = idx;
      continue;
    }
    char umsg[256];
    double lo = 0.0, hi = 0.0;
    char *dots = strstr(tok, "..");
    if (dots) {
      *dots = '\0';
      if (units_parse(preset_trim(tok), UNITS_BYTES, &lo, umsg, sizeof umsg) != 0 ||
          units_parse(preset_trim(dots + 2), UNITS_BYTES, &hi, umsg, sizeof umsg) != 0)
        return preset_fail(msg, len, "%s: setting %s: %s", d->name, st->key, umsg);
    } else {
      if (units_parse(tok, UNITS_BYTES, &lo, umsg, sizeof umsg) != 0)
        return preset_fail(msg, len, "%s: setting %s: %s", d->name, st->key, umsg);
      hi = lo;
    }
    if (lo < st->min || hi > st->max || lo > hi)
      return preset_fail(msg, len,
                         "%s: setting %s: '%s' out of range (sizes between %g and %g bytes, "
                         "ranges written lo..hi)",
                         d->name, st->key, text, st->min, st->max);
    for (double v = lo; v <= hi; v *= 2.0) {
      if (pv->nlist >= PRESET_MAX_LIST)
        return preset_fail(msg, len, "%s: setting %s: more than %d sizes", d->name, st->key,
                           PRESET_MAX_LIST);
      pv->list[pv->nlist++] = v;
    }
  }
  if (pv->nlist == 0)
    return preset_fail(msg, len, "%s: setting %s: empty list", d->name, st->key);
  return 0;
}

static int preset_parse_setting(const struct preset_def *d, const struct preset_setting *st, int i,
                                const char *value, struct preset_values *pv, char *msg, size_t len)
{
  if (!value)
    return preset_fail(msg, len, "%s: setting %s has no value", d->name, st->key);
  if (st->kind == PS_SIZELIST || st->kind == PS_WORDLIST)
    return preset_parse_list(d, st, value, pv, msg, len);
  if (st->kind == PS_WORD) {
    int idx = preset_word_index(st->words, value);
    if (idx < 0) {
      char words[512];
      preset_words_joined(st->words, words, sizeof words);
      return preset_fail(msg, len, "%s: setting %s: unknown value '%s' (allowed: %s)", d->name,
                         st->key, value, words);
    }
    pv->v[i] = idx;
    return 0;
  }
  static const enum units_dim dims[] = {[PS_INT] = UNITS_NUMBER, [PS_BYTES] = UNITS_BYTES,
                                        [PS_TIME] = UNITS_TIME};
  char umsg[256];
  double v = 0.0;
  if (units_parse(value, dims[st->kind], &v, umsg, sizeof umsg) != 0)
    return preset_fail(msg, len, "%s: setting %s: %s", d->name, st->key, umsg);
  if (st->kind == PS_INT && v != floor(v))
    return preset_fail(msg, len, "%s: setting %s: '%s' is not a whole number", d->name, st->key,
                       value);
  if (v < st->min || v > st->max) {
    char lo[32], hi[32];
    if (st->kind == PS_INT) {
      snprintf(lo, sizeof lo, "%g", st->min);
      snprintf(hi, sizeof hi, "%g", st->max);
    } else {
      units_format(st->min, dims[st->kind], lo, sizeof lo);
      units_format(st->max, dims[st->kind], hi, sizeof hi);
    }
    return preset_fail(msg, len, "%s: setting %s: '%s' out of range (must be between %s and %s inclusive)",
                       d->name, st->key, value, lo, hi);
  }
  pv->v[i] = v;
  return 0;
}

int workload_preset(const char *name, const char *const *keys, const char *const *values, int nkv,
                    struct workload *out, char *msg, size_t msg_len)
{
  memset(out, 0, sizeof *out);
  const struct preset_def *d = NULL;
  for (int i = 0; i < PRESET_NDEFS && name; i++)
    if (strcmp(preset_defs[i].name, name) == 0)
      d = &preset_defs[i];
  if (!d) {
    const char *near = NULL;
    size_t best = (size_t)-1;
    for (int i = 0; i < PRESET_NDEFS && name; i++) {
      size_t dist = params_edit_distance(name, preset_defs[i].name);
      if (dist < best)
        best = dist, near = preset_defs[i].name;
    }
    if (near && best <= 3)
      return preset_fail(msg, msg_len, "unknown workload preset '%s' (did you mean '%s'?; valid: %s)",
                         name ? name : "", near, workload_preset_names());
    return preset_fail(msg, msg_len, "unknown workload preset '%s' (valid: %s)", name ? name : "",
                       workload_preset_names());
  }
  struct preset_values pv;
  memset(&pv, 0, sizeof pv);
  for (int i = 0; i < d->nsettings; i++) {
    const struct preset_setting *st = &d->settings[i];
    if (st->kind == PS_SIZELIST || st->kind == PS_WORDLIST) {
      if (preset_parse_list(d, st, st->def_list, &pv, msg, msg_len) != 0)
        return -1;
    } else {
      pv.v[i] = st->def;
    }
  }
  for (int k = 0; k < nkv; k++) {
    const struct preset_setting *st = NULL;
    int idx = -1;
    for (int i = 0; i < d->nsettings && keys && keys[k]; i++)
      if (strcmp(d->settings[i].key, keys[k]) == 0)
        st = &d->settings[i], idx = i;
    if (!st) {
      char all[512] = "";
      const char *near = NULL;
      size_t best = (size_t)-1;
      for (int i = 0; i < d->nsettings; i++) {
        size_t used = strlen(all);
        snprintf(all + used, sizeof all - used, "%s%s", i ? ", " : "", d->settings[i].key);
        size_t dist = keys && keys[k] ? params_edit_distance(keys[k], d->settings[i].key) : 99;
        if (dist < best)
          best = dist, near = d->settings[i].key;
      }
      const char *key = keys && keys[k] ? keys[k] : "";
      size_t klen = strlen(key);
      if (near && best <= (klen < 6 ? 2 : klen / 3 + 1))
        return preset_fail(msg, msg_len, "%s: unknown setting '%s' (did you mean '%s'?; settings: %s)",
                           d->name, key, near, all);
      return preset_fail(msg, msg_len, "%s: unknown setting '%s' (settings: %s)", d->name, key, all);
    }
    if (preset_parse_setting(d, st, idx, values ? values[k] : NULL, &pv, msg, msg_len) != 0)
      return -1;
  }
  snprintf(out->preset, sizeof out->preset, "%s", d->name);
  out->combine = d->combine;
  struct preset_ctx c = {.name = d->name, .pv = &pv, .out = out, .msg = msg, .msg_len = msg_len};
  if (d->expand(&c) != 0) {
    workload_free(out);
    return -1;
  }
  return 0;
}
