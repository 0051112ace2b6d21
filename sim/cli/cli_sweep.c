/* nastwin sweep / merge: run a what-if grid through the run pool. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef NASTWIN_HAVE_MPI
#include <mpi.h>
#endif

#include "base/file.h"
#include "sim/cli/cli.h"
#include "sim/study/calibrate.h"
#include "sim/cli/cli_opt.h"
#include "sim/engine/engine.h"
#include "sim/report/htmlreport.h"
#include "sim/study/runpool.h"
#include "sim/study/sweep.h"
#include "sim/study/sweep_mva.h"

#define CLI_SWEEP_ROW_BYTES 8192

struct cli_sweep_opts {
  const char *file, *csv, *json, *html, *catalog;
  int jobs, shard_i, shard_n, resume, list, quiet, analytic, sample, custom_hardware;
  double timeout_s;
  struct calib_use calib;   /* --calibrated FILE / --uncalibrated */
  struct calib_which which; /* resolved after parsing */
};


/* MPI state: rank 0 hands out simulations, the other ranks run them. */
struct cli_sweep_mpi {
  int rank, size, active, stopped;
};

struct cli_sweep_ctx {
  const struct sweep *sw;
  const struct cli_sweep_opts *o;
  const struct sweep_task *tasks; /* pending tasks */
  int journal_fd;                     /* -1: none */
  double start_s;
  int tty;
};

static double cli_sweep_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void cli_sweep_usage(FILE *out)
{
  fputs("usage: nastwin sweep SWEEP.yaml [options]\n"
        "\n"
        "Runs every point of a what-if grid (one simulation per point and workload step)\n"
        "and writes one CSV row per (point, step), sorted by point whatever -j or sharding.\n"
        "\n"
        "options:\n"
        "  -j N            simulations at once (default: CPUs)\n"
        "  --shard I/N     run only points with index % N == I (0 <= I < N); merge the\n"
        "                  shards' CSVs with `nastwin merge OUT.csv IN.csv...`\n"
        "  --csv FILE      write the CSV atomically to FILE (default: stdout); finished\n"
        "                  rows are journaled in FILE.partial while the sweep runs\n"
        "  --resume        keep the rows already in FILE.partial, run only the rest\n"
        "  --json FILE     the same rows as a JSON array\n"
        "  --html DIR      DIR/index.html: plots vs the first axis (inline SVG)\n"
        "  --timeout S     seconds per simulation before it counts as failed\n"
        "  --analytic      simulate every K-th point only (about 10 %, at least 2 points)\n"
        "                  and predict the others by MVA from the nearest simulated\n"
        "                  point's service demands (population axes clients.count,\n"
        "                  workload.iodepth, workload.numjobs scale N); the CSV has\n"
        "                  a source column (sim|mva) and MVA vs simulation on the\n"
        "                  simulated points.  See reports/README.md\n"
        "  --sample K      the K of --analytic\n"
        "  --list          print the expanded points and exit\n"
        "  --quiet         no progress on stderr\n"
        "  --catalog DIR   catalogue folder\n"
        "  --custom-hardware  accept points beyond the chassis's hardware (ports, bays,\n"
        "                  RAM) with a warning\n"
        "  --calibrated FILE  this calibration instead of the shipped validation/calibrated.yaml\n"
        "  --uncalibrated  catalogue values, no calibration\n"
        "\n"
        "Under mpirun (built with MPI) rank 0 hands points out to the other ranks and\n"
        "writes the outputs, byte-identical to -j 1.\n"
        "\n"
        "Sweep file: base: SCENARIO.yaml; axes: [{path: P, values: [...]} | {path: P,\n"
        "range: [from, to, step]} | {zip: [{path, values}, ...]}]; sets: {P: V};\n"
        "metrics: [read_MBps, ...].  See sim/study/sweep.h and scenarios/sweeps/.\n",
        out);
}

static int cli_sweep_parse(int argc, char **argv, struct cli_sweep_opts *o)
{
  memset(o, 0, sizeof *o);
  o->shard_n = 1;
  static const char *const valued[] = {"-j",      "--shard",   "--csv",    "--json",
                                       "--html",  "--timeout", "--catalog", "--sample", "--calibrated", NULL};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val;
    if (cli_opt_value(argc, argv, &i, valued, &val) < 0)
      return 2;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cli_sweep_usage(stdout);
      return 1;
    } else if (!strcmp(a, "-j")) {
      long j;
      if (cli_opt_int(a, val, 1, 64, &j) < 0)
        return 2;
      o->jobs = (int)j;
    } else if (!strcmp(a, "--shard")) {
      int si, sn;
      char tail;
      if (sscanf(val, "%d/%d%c", &si, &sn, &tail) != 2 || sn < 1 || si < 0 || si >= sn) {
        fprintf(stderr, "nastwin: error: --shard '%s': expected I/N with 0 <= I < N, e.g. 0/4\n",
                val);
        return 2;
      }
      o->shard_i = si;
      o->shard_n = sn;
    } else if (calib_use_opt(&o->calib, a, val))
      continue;
    else if (!strcmp(a, "--csv"))
      o->csv = val;
    else if (!strcmp(a, "--json"))
      o->json = val;
    else if (!strcmp(a, "--html"))
      o->html = val;
    else if (!strcmp(a, "--catalog"))
      o->catalog = val;
    else if (!strcmp(a, "--timeout")) {
      char *end;
      o->timeout_s = strtod(val, &end);
      if (*end || !(o->timeout_s > 0)) {
        fprintf(stderr, "nastwin: error: --timeout '%s': must be a number of seconds > 0\n", val);
        return 2;
      }
    } else if (!strcmp(a, "--sample")) {
      char *end;
      long k = strtol(val, &end, 10);
      if (*end || k < 1 || k > 1000000) {
        fprintf(stderr, "nastwin: error: --sample '%s': must be a whole number >= 1\n", val);
        return 2;
      }
      o->sample = (int)k;
    } else if (!strcmp(a, "--analytic"))
      o->analytic = 1;
    else if (!strcmp(a, "--resume"))
      o->resume = 1;
    else if (!strcmp(a, "--list"))
      o->list = 1;
    else if (!strcmp(a, "--quiet"))
      o->quiet = 1;
    else if (!strcmp(a, "--custom-hardware"))
      o->custom_hardware = 1;
    else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "nastwin: error: unknown option '%s' (see nastwin sweep --help)\n", a);
      return 2;
    } else if (!o->file)
      o->file = a;
    else {
      fprintf(stderr, "nastwin: error: more than one sweep file ('%s' and '%s')\n", o->file, a);
      return 2;
    }
  }
  if (!o->file) {
    fprintf(stderr, "nastwin: error: sweep needs a sweep file (see nastwin sweep --help)\n");
    return 2;
  }
  if (o->analytic && (o->resume || o->shard_n > 1)) {
    fprintf(stderr, "nastwin: error: --analytic runs the whole grid's sample: no --resume or "
                    "--shard\n");
    return 2;
  }
  struct nw_err err = {0};
  if (calib_use_resolve(&o->calib, &o->which, &err) < 0) {
    nw_err_print(&err, stderr);
    return 2;
  }
  if (o->resume && !o->csv) {
    fprintf(stderr, "nastwin: error: --resume needs --csv FILE (the journal is FILE.partial)\n");
    return 2;
  }
  return 0;
}

/* Load point p's scenario (sets + axis values). */
static int cli_sweep_load(const struct sweep *sw, const struct cli_sweep_opts *o, long p,
                          struct scenario *s, struct nw_err *err)
{
  struct cfg_set sets[CFG_MAX_SETS];
  int n = sweep_point_sets(sw, p, sets, CFG_MAX_SETS - 1);
  if (n < 0)
    return nw_fail(err, sw->file, 0, 0, "sweep: point %ld has more than %d overrides", p,
                   CFG_MAX_SETS - 1);
  if (o->custom_hardware)
    sets[n++] = (struct cfg_set){.path = "custom_hardware", .value = "true"};
  return calib_cfg_load(&o->which, sw->base, o->catalog, sets, n, NULL, s, err);
}

static void cli_sweep_task_fn(void *vctx, int task, struct run_result *out)
{
  struct cli_sweep_ctx *c = vctx;
  const struct sweep_task *t = &c->tasks[task];
  struct scenario s;
  struct nw_err err = {0};
  memset(out, 0, sizeof *out);
  if (cli_sweep_load(c->sw, c->o, t->point, &s, &err) < 0) {
    out->failed = 1;
    snprintf(out->failure, sizeof out->failure, "%.500s", err.msg);
    return;
  }
  engine_run(&s, t->step, 0, NULL, out);
  cfg_free(&s);
  if (c->journal_fd >= 0) {
    char row[CLI_SWEEP_ROW_BYTES];
    int len = sweep_csv_row(c->sw, t->point, t->step, out, row, sizeof row);
    /* One O_APPEND write per row: rows from concurrent children never interleave. */
    if (len > 0 && write(c->journal_fd, row, (size_t)len) == len)
      fsync(c->journal_fd);
  }
}

static void cli_sweep_progress(void *vctx, int done, int total)
{
  struct cli_sweep_ctx *c = vctx;
  if (c->o->quiet)
    return;
  double el = cli_sweep_now() - c->start_s;
  double rate = el > 0 ? done / el : 0.0;
  double eta = rate > 0 ? (total - done) / rate : 0.0;
  if (c->tty) {
    char bar[31];
    int fill = total ? done * 30 / total : 30;
    for (int i = 0; i < 30; i++)
      bar[i] = i < fill ? '#' : '.';
    bar[30] = 0;
    fprintf(stderr, "\r[%s] %d/%d  %.2f sim/s  ETA %.0f s ", bar, done, total, rate, eta);
    if (done == total)
      fputc('\n', stderr);
  } else
    fprintf(stderr, "sweep: %d/%d done (%.2f sim/s, ETA %.0f s)\n", done, total, rate, eta);
  fflush(stderr);
}

/* Rows as a JSON array of objects (numbers where the cell is a number). */
static char *cli_sweep_json(const char *header, char **rows, int nrows, size_t *lenp)
{
  size_t cap = 4096, len = 0;
  char *out = malloc(cap);
  char hcopy[CLI_SWEEP_ROW_BYTES], rcopy[CLI_SWEEP_ROW_BYTES];
  char *hc[256], *rc[256];
  snprintf(hcopy, sizeof hcopy, "%s", header);
  int nh = sweep_csv_split(hcopy, hc, 256);
  if (!out || nh < 0) {
    free(out);
    return NULL;
  }
  len += (size_t)snprintf(out, cap, "[");
  for (int i = 0; i < nrows; i++) {
    snprintf(rcopy, sizeof rcopy, "%s", rows[i]);
    int nr = sweep_csv_split(rcopy, rc, 256);
    for (int k = 0; k < nh && k < nr; k++) {
      /* worst case every char escaped */
      size_t need = len + 2 * strlen(hc[k]) + 2 * strlen(rc[k]) + 32;
      if (need >= cap) {
        while (cap <= need)
          cap *= 2;
        char *no = realloc(out, cap);
        if (!no) {
          free(out);
          return NULL;
        }
        out = no;
      }
      char *end;
      strtod(rc[k], &end);
      int num = rc[k][0] && !*end && strcmp(rc[k], "nan") && strcmp(rc[k], "inf");
      len += (size_t)snprintf(out + len, cap - len, "%s\"", k ? ", " : (i ? ",\n {" : "\n {"));
      for (const char *p = hc[k]; *p; p++)
        len += (size_t)snprintf(out + len, cap - len, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
      len += (size_t)snprintf(out + len, cap - len, "\": %s", num ? "" : "\"");
      for (const char *p = rc[k]; *p; p++)
        len += (size_t)snprintf(out + len, cap - len, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
      len += (size_t)snprintf(out + len, cap - len, "%s", num ? "" : "\"");
    }
    len += (size_t)snprintf(out + len, cap - len, "}");
  }
  if (len + 4 >= cap) {
    char *no = realloc(out, cap + 8);
    if (!no) {
      free(out);
      return NULL;
    }
    out = no;
    cap += 8;
  }
  len += (size_t)snprintf(out + len, cap - len, "\n]\n");
  *lenp = len;
  return out;
}

/* Read the journal: rows land in rows[task] for tasks it holds. */
static int cli_sweep_read_journal(const char *jpath, const char *header,
                                  const struct sweep_task *tasks, int ntasks, char **rows)
{
  FILE *f = fopen(jpath, "r");
  if (!f)
    return 0;
  char line[CLI_SWEEP_ROW_BYTES];
  int lineno = 0, kept = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    size_t len = strlen(line);
    if (len == 0 || line[len - 1] != '\n')
      continue; /* a row cut short by the interruption */
    if (lineno == 1) {
      if (line[0] != '#' || strcmp(line + 2, header)) {
        fclose(f);
        fprintf(stderr,
                "nastwin: error: %s: journal of a different sweep (header differs); remove it "
                "or run without --resume\n",
                jpath);
        return -1;
      }
      continue;
    }
    long p;
    int st;
    if (sweep_row_key(line, &p, &st) < 0)
      continue;
    for (int t = 0; t < ntasks; t++)
      if (tasks[t].point == p && tasks[t].step == st && !rows[t]) {
        rows[t] = strdup(line);
        kept++;
        break;
      }
  }
  fclose(f);
  return kept;
}

/* ---- execution: the run pool, or MPI ranks ----------------------------- */

#ifdef NASTWIN_HAVE_MPI
enum { CLI_SWEEP_TAG_WORK = 1, CLI_SWEEP_TAG_STOP = 2, CLI_SWEEP_TAG_IDX = 3,
       CLI_SWEEP_TAG_RES = 4 };

static void cli_sweep_mpi_stop(struct cli_sweep_mpi *mpi)
{
  if (!mpi->active || mpi->rank != 0 || mpi->stopped)
    return;
  long msg[3] = {-1, -1, -1};
  for (int w = 1; w < mpi->size; w++)
    MPI_Send(msg, 3, MPI_LONG, w, CLI_SWEEP_TAG_STOP, MPI_COMM_WORLD);
  mpi->stopped = 1;
}

/* Rank > 0: run what rank 0 sends until it says stop. */
static int cli_sweep_mpi_worker(const struct sweep *sw, const struct cli_sweep_opts *o)
{
  struct run_result *res = calloc(1, sizeof *res);
  if (!res)
    return 1;
  for (;;) {
    long msg[3];
    MPI_Status st;
    MPI_Recv(msg, 3, MPI_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    if (st.MPI_TAG != CLI_SWEEP_TAG_WORK)
      break;
    struct sweep_task one = {.point = msg[1], .step = (int)msg[2]};
    struct cli_sweep_ctx ctx = {.sw = sw, .o = o, .tasks = &one, .journal_fd = -1};
    runpool_run(1, 1, o->timeout_s, cli_sweep_task_fn, &ctx, res, NULL);
    int idx = (int)msg[0];
    MPI_Send(&idx, 1, MPI_INT, 0, CLI_SWEEP_TAG_IDX, MPI_COMM_WORLD);
    MPI_Send(res, (int)sizeof *res, MPI_BYTE, 0, CLI_SWEEP_TAG_RES, MPI_COMM_WORLD);
  }
  free(res);
  return 0;
}

/* Rank 0: hand out task indices as ranks become free; results in task order. */
static void cli_sweep_mpi_master(struct cli_sweep_ctx *c, struct cli_sweep_mpi *mpi, int n,
                                 struct run_result *results)
{
  int next = 0, busy = 0, done = 0;
  for (int w = 1; w < mpi->size && next < n; w++, next++, busy++) {
    long msg[3] = {next, c->tasks[next].point, c->tasks[next].step};
    MPI_Send(msg, 3, MPI_LONG, w, CLI_SWEEP_TAG_WORK, MPI_COMM_WORLD);
  }
  while (busy > 0) {
    int idx;
    MPI_Status st;
    MPI_Recv(&idx, 1, MPI_INT, MPI_ANY_SOURCE, CLI_SWEEP_TAG_IDX, MPI_COMM_WORLD, &st);
    int src = st.MPI_SOURCE;
    MPI_Recv(&results[idx], (int)sizeof results[idx], MPI_BYTE, src, CLI_SWEEP_TAG_RES,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    busy--;
    done++;
    if (c->journal_fd >= 0) {
      char row[CLI_SWEEP_ROW_BYTES];
      int len = sweep_csv_row(c->sw, c->tasks[idx].point, c->tasks[idx].step, &results[idx], row,
                              sizeof row);
      if (len > 0 && write(c->journal_fd, row, (size_t)len) == len)
        fsync(c->journal_fd);
    }
    cli_sweep_progress(c, done, n);
    if (next < n) {
      long msg[3] = {next, c->tasks[next].point, c->tasks[next].step};
      MPI_Send(msg, 3, MPI_LONG, src, CLI_SWEEP_TAG_WORK, MPI_COMM_WORLD);
      next++;
      busy++;
    }
  }
  cli_sweep_mpi_stop(mpi);
}
#endif

/* Run tasks c->tasks[0..n-1] into results[] (task order). */
static void cli_sweep_execute(struct cli_sweep_ctx *c, struct cli_sweep_mpi *mpi, int n,
                              struct run_result *results)
{
#ifdef NASTWIN_HAVE_MPI
  if (mpi->active && mpi->size > 1) {
    cli_sweep_mpi_master(c, mpi, n, results);
    return;
  }
#else
  (void)mpi;
#endif
  runpool_run(n, c->o->jobs, c->o->timeout_s, cli_sweep_task_fn, c, results, cli_sweep_progress);
}

/* What one loaded point tells the tasks: its steps, their shapes, its clients. */
struct cli_sweep_tmpl {
  int loaded, nsteps, nclients;
  struct qnet_shape shape[64];
};

static int cli_sweep_tmpl_load(const struct sweep *sw, const struct cli_sweep_opts *o, long p,
                               struct cli_sweep_tmpl *t, struct nw_err *err)
{
  struct scenario s;
  if (cli_sweep_load(sw, o, p, &s, err) < 0) {
    fprintf(stderr, "nastwin: error: sweep point %ld:\n", p);
    nw_err_print(err, stderr);
    return -1;
  }
  t->loaded = 1;
  t->nsteps = s.op != STACK_OP_NONE && !s.op_with_workload ? 1 : s.workload.nsteps;
  for (int st = 0; st < t->nsteps && st < 64; st++)
    qnet_shape_of(&s, st, &t->shape[st]);
  t->nclients = s.nclients;
  cfg_free(&s);
  return 0;
}

/* Analytic mode: points that differ only in population axes share one
 * load (their steps and shapes are the same); a population axis's smallest
 * and largest value are each checked by one load (a count's checks are a
 * range, so the values between pass too); the client count is the
 * clients.count column's value.  tmpl[key] for the non-population digits. */
static long cli_sweep_key(const struct sweep *sw, long p, long *nkeys)
{
  long key = 0, n = 1, div = sw->npoints;
  for (int g = 0; g < sw->ngroups; g++) {
    long nv = sw->groups[g].nvalues;
    div /= nv;
    if (sweep_mva_population(sw->groups[g].path[0]) && sw->groups[g].npaths == 1)
      continue;
    key = key * nv + (p / div) % nv;
    n *= nv;
  }
  if (nkeys)
    *nkeys = n;
  return key;
}

/* Check every point of the shard and list its (point, step) tasks.  0, 1
 * (out of memory) or 2 (bad input, printed). */
static int cli_sweep_tasks(const struct sweep *sw, const struct cli_sweep_opts *o,
                           struct sweep_task **tasksp, int *ntasksp)
{
  struct nw_err err = {0};
  long nkeys = 1;
  cli_sweep_key(sw, 0, &nkeys);
  struct cli_sweep_tmpl *tmpl = calloc(o->analytic ? (size_t)nkeys : 1, sizeof *tmpl);
  unsigned char *seen[SWEEP_MAX_GROUPS] = {0};
  int rc = 1, ntasks = 0, cap = 0, clients_col = -1;
  struct sweep_task *tasks = NULL;
  for (int c = 0; c < sweep_ncols(sw); c++)
    if (!strcmp(sweep_col_path(sw, c), "clients.count"))
      clients_col = c;
  for (int g = 0; g < sw->ngroups; g++) {
    if (!(seen[g] = calloc((size_t)sw->groups[g].nvalues, 1)))
      goto done;
    /* 2: still to load.  Every value of an axis that is not a population,
     * the extremes of one that is (see above). */
    const struct sweep_group *gr = &sw->groups[g];
    int pop = sweep_mva_population(gr->path[0]) && gr->npaths == 1, lo = 0, hi = 0;
    for (int v = 0; v < gr->nvalues; v++) {
      char *end;
      double x = strtod(gr->values[v], &end);
      if (*end || end == gr->values[v])
        pop = 0; /* not a number: every value is loaded and checked */
      lo = x < strtod(gr->values[lo], NULL) ? v : lo;
      hi = x > strtod(gr->values[hi], NULL) ? v : hi;
    }
    for (int v = 0; v < gr->nvalues; v++)
      seen[g][v] = !pop || v == lo || v == hi ? 2 : 1;
  }
  if (!tmpl)
    goto done;
  for (long p = o->shard_i; p < sw->npoints; p += o->shard_n) {
    struct cli_sweep_tmpl one = {0}, *t = o->analytic ? &tmpl[cli_sweep_key(sw, p, NULL)] : &one;
    int need = !o->analytic || !t->loaded;
    for (long g = 0, div = sw->npoints; g < sw->ngroups; g++) {
      div /= sw->groups[g].nvalues;
      long v = (p / div) % sw->groups[g].nvalues;
      if (seen[g][v] == 2) {
        need = 1; /* a population extreme not loaded yet */
        seen[g][v] = 1;
      }
    }
    int nclients = t->nclients;
    if (need) {
      struct cli_sweep_tmpl now = {0};
      if (cli_sweep_tmpl_load(sw, o, p, &now, &err) < 0) {
        rc = 2;
        goto done;
      }
      if (!t->loaded)
        *t = now;
      nclients = now.nclients;
    } else if (clients_col >= 0)
      nclients = atoi(sweep_value(sw, p, clients_col));
    for (int st = 0; st < t->nsteps; st++) {
      if (ntasks == cap) {
        cap = cap ? cap * 2 : 64;
        struct sweep_task *nt = realloc(tasks, (size_t)cap * sizeof *nt);
        if (!nt)
          goto done;
        tasks = nt;
      }
      tasks[ntasks++] = (struct sweep_task){
          .point = p, .step = st, .clients = nclients,
          .shape = st < 64 ? t->shape[st] : (struct qnet_shape){.disk_span = 1}};
    }
  }
  rc = 0;
done:
  for (int g = 0; g < sw->ngroups; g++)
    free(seen[g]);
  free(tmpl);
  if (rc) {
    free(tasks);
    tasks = NULL;
    ntasks = 0;
  }
  *tasksp = tasks;
  *ntasksp = ntasks;
  return rc;
}

/* Journal FILE.partial: keep the rows already there (--resume), rewrite it
 * with the header and those rows.  The open fd, or -1 with *rc set. */
static int cli_sweep_journal(const struct cli_sweep_opts *o, const char *jpath,
                             const char *header, const struct sweep_task *tasks, int ntasks,
                             char **rows, int *rc)
{
  int kept = 0;
  *rc = 1;
  if (o->resume) {
    kept = cli_sweep_read_journal(jpath, header, tasks, ntasks, rows);
    if (kept < 0) {
      *rc = 2;
      return -1;
    }
    if (!o->quiet)
      fprintf(stderr, "sweep: resuming: %d of %d row(s) already in %s\n", kept, ntasks, jpath);
  }
  /* Rewrite the journal with its header and the rows kept (drops cut rows). */
  size_t jlen = strlen(header) + 3;
  for (int t = 0; t < ntasks; t++)
    jlen += rows[t] ? strlen(rows[t]) : 0;
  char *jtext = malloc(jlen);
  if (!jtext)
    return -1;
  size_t off = (size_t)sprintf(jtext, "# %s", header);
  for (int t = 0; t < ntasks; t++)
    if (rows[t])
      off += (size_t)sprintf(jtext + off, "%s", rows[t]);
  int wr = file_write_atomic(jpath, jtext, off), fd = -1;
  free(jtext);
  if (wr < 0 || (fd = open(jpath, O_WRONLY | O_APPEND)) < 0)
    fprintf(stderr, "nastwin: error: %s: cannot write the journal: %s\n", jpath, strerror(errno));
  return fd;
}

/* The CSV (file or stdout), JSON and HTML outputs.  0, or -1 (printed). */
static int cli_sweep_write(const struct sweep *sw, const struct cli_sweep_opts *o,
                           const char *header, char **rows, int ntasks)
{
  struct nw_err err = {0};
  size_t total = strlen(header) + 1;
  for (int t = 0; t < ntasks; t++)
    total += strlen(rows[t]);
  char *text = malloc(total);
  if (!text)
    return -1;
  size_t len = (size_t)sprintf(text, "%s", header);
  for (int t = 0; t < ntasks; t++) {
    size_t l = strlen(rows[t]);
    memcpy(text + len, rows[t], l + 1);
    len += l;
  }
  if (o->csv) {
    if (file_write_atomic(o->csv, text, len) < 0) {
      fprintf(stderr, "nastwin: error: %s: %s\n", o->csv, strerror(errno));
      free(text);
      return -1;
    }
  } else
    fwrite(text, 1, len, stdout);
  free(text);
  if (o->json) {
    char hline[CLI_SWEEP_ROW_BYTES];
    snprintf(hline, sizeof hline, "%s", header);
    hline[strcspn(hline, "\n")] = 0;
    for (int t = 0; t < ntasks; t++)
      rows[t][strcspn(rows[t], "\n")] = 0;
    size_t jl = 0;
    char *js = cli_sweep_json(hline, rows, ntasks, &jl);
    if (!js || file_write_atomic(o->json, js, jl) < 0) {
      fprintf(stderr, "nastwin: error: %s: cannot write JSON\n", o->json);
      free(js);
      return -1;
    }
    free(js);
  }
  if (o->html) {
    struct scenario first; /* point 0's configuration, for the page's table and footer */
    int loaded = cli_sweep_load(sw, o, 0, &first, &err) == 0;
    int rc = htmlreport_sweep(o->html, sw, loaded ? &first : NULL, header, rows, ntasks, &err);
    if (loaded)
      cfg_free(&first);
    if (rc < 0) {
      nw_err_print(&err, stderr);
      return -1;
    }
  }
  return 0;
}

/* Rows of the simulated tasks (those without one yet); counts failures. */
static int cli_sweep_sim_rows(const struct sweep *sw, const struct sweep_task *tasks, int ntasks,
                              const struct run_result *results, char **rows, int *failed)
{
  for (int t = 0, k = 0; t < ntasks; t++) {
    if (rows[t])
      continue;
    char row[CLI_SWEEP_ROW_BYTES];
    const struct run_result *r = &results[k++];
    if (r->failed) {
      (*failed)++;
      fprintf(stderr, "nastwin: error: point %ld step %d: %s\n", tasks[t].point, tasks[t].step,
              r->failure);
    }
    if (sweep_csv_row(sw, tasks[t].point, tasks[t].step, r, row, sizeof row) < 0)
      snprintf(row, sizeof row, "%ld,%d,row too long\n", tasks[t].point, tasks[t].step);
    if (!(rows[t] = strdup(row)))
      return -1;
  }
  return 0;
}

/* Which tasks to simulate: all without a row, or the analytic anchors.
 * res_of[t]: index into the pending list, or -1.  Count, or -1. */
static int cli_sweep_pick(const struct sweep *sw, const struct cli_sweep_opts *o,
                          const struct sweep_task *tasks, int ntasks, char **rows, int *res_of,
                          struct sweep_task *pending)
{
  unsigned char *anchor = NULL;
  if (o->analytic) {
    anchor = calloc((size_t)sw->npoints, 1);
    if (!anchor || sweep_mva_anchors(sw, o->sample, anchor) < 0) {
      free(anchor);
      return -1;
    }
  }
  int npending = 0;
  for (int t = 0; t < ntasks; t++) {
    res_of[t] = -1;
    if (!rows[t] && (!anchor || anchor[tasks[t].point])) {
      res_of[t] = npending;
      pending[npending++] = tasks[t];
    }
  }
  free(anchor);
  return npending;
}

static int cli_sweep_main(int argc, char **argv, struct cli_sweep_mpi *mpi)
{
  struct cli_sweep_opts o;
  int rc = cli_sweep_parse(argc, argv, &o);
  if (rc)
    return rc == 1 ? 0 : rc;
  struct sweep sw;
  struct nw_err err = {0};
  if (sweep_load(o.file, &sw, &err) < 0) {
    nw_err_print(&err, stderr);
    return 2;
  }
  if (o.list) {
    if (mpi->rank == 0)
      sweep_print_points(stdout, &sw);
    sweep_free(&sw);
    return 0;
  }
#ifdef NASTWIN_HAVE_MPI
  if (mpi->active && mpi->rank > 0) {
    rc = cli_sweep_mpi_worker(&sw, &o);
    sweep_free(&sw);
    return rc;
  }
#endif
  char header[CLI_SWEEP_ROW_BYTES], jpath[1100] = "";
  sweep_csv_header(&sw, header, sizeof header);
  struct sweep_task *tasks = NULL, *pending = NULL;
  char **rows = NULL;
  struct run_result *results = NULL;
  int *res_of = NULL, ntasks = 0, journal_fd = -1, failed = 0;
  rc = cli_sweep_tasks(&sw, &o, &tasks, &ntasks);
  if (rc)
    goto done;
  rc = 1;
  rows = calloc((size_t)ntasks + 1, sizeof *rows);
  pending = calloc((size_t)ntasks + 1, sizeof *pending);
  res_of = calloc((size_t)ntasks + 1, sizeof *res_of);
  if (!rows || !pending || !res_of)
    goto done;
  if (o.csv && !o.analytic) {
    snprintf(jpath, sizeof jpath, "%s.partial", o.csv);
    if ((journal_fd = cli_sweep_journal(&o, jpath, header, tasks, ntasks, rows, &rc)) < 0)
      goto done;
    rc = 1;
  }
  int npending = cli_sweep_pick(&sw, &o, tasks, ntasks, rows, res_of, pending);
  if (npending < 0 || !(results = calloc((size_t)npending + 1, sizeof *results)))
    goto done;
  struct cli_sweep_ctx ctx = {.sw = &sw, .o = &o, .tasks = pending, .journal_fd = journal_fd,
                              .start_s = cli_sweep_now(), .tty = isatty(2)};
  if (!o.quiet)
    fprintf(stderr, "sweep: %ld point(s) in the grid, %d simulation(s) in this shard, %d to run%s\n",
            sw.npoints, ntasks, npending, o.analytic ? " (the analytic sample)" : "");
  if (npending)
    cli_sweep_execute(&ctx, mpi, npending, results);
  if (o.analytic) {
    for (int t = 0; t < ntasks; t++)
      if (res_of[t] >= 0 && results[res_of[t]].failed) {
        failed++;
        fprintf(stderr, "nastwin: error: point %ld step %d: %s\n", tasks[t].point, tasks[t].step,
                results[res_of[t]].failure);
      }
    if (sweep_mva_rows(&sw, tasks, ntasks, res_of, results, header, sizeof header, rows,
                       o.quiet) < 0)
      goto done;
  }
  if (cli_sweep_sim_rows(&sw, tasks, ntasks, results, rows, &failed) < 0)
    goto done;
  for (int t = 0; t < ntasks; t++)
    if (strstr(rows[t], ",failed\n") && !failed)
      failed++;
  if (cli_sweep_write(&sw, &o, header, rows, ntasks) < 0)
    goto done;
  if (journal_fd >= 0 && !failed) {
    close(journal_fd);
    journal_fd = -1;
    unlink(jpath);
  }
  rc = failed ? 1 : 0;
done:
#ifdef NASTWIN_HAVE_MPI
  cli_sweep_mpi_stop(mpi);
#endif
  free(res_of);
  if (journal_fd >= 0)
    close(journal_fd);
  if (rows)
    for (int t = 0; t < ntasks; t++)
      free(rows[t]);
  free(rows);
  free(tasks);
  free(pending);
  free(results);
  sweep_free(&sw);
  return rc;
}

int cli_sweep(int argc, char **argv)
{
  struct cli_sweep_mpi mpi = {.rank = 0, .size = 1};
#ifdef NASTWIN_HAVE_MPI
  /* Only under a launcher: a plain run never initialises MPI. */
  if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK")) {
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi.size);
    mpi.active = 1;
  }
#endif
  int rc = cli_sweep_main(argc, argv, &mpi);
#ifdef NASTWIN_HAVE_MPI
  if (mpi.active)
    MPI_Finalize();
#endif
  return rc;
}

int cli_merge(int argc, char **argv)
{
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    puts("usage: nastwin merge OUT.csv IN.csv...\n"
         "Merge the CSVs of sweep shards (or a sweep and its resumption): same header\n"
         "required, rows sorted by (point, step), duplicates dropped; written atomically.");
    return 0;
  }
  if (argc < 3) {
    fprintf(stderr, "nastwin: error: usage: nastwin merge OUT.csv IN.csv...\n");
    return 2;
  }
  struct nw_err err = {0};
  if (sweep_merge(argv[1], argc - 2, argv + 2, &err) < 0) {
    nw_err_print(&err, stderr);
    return 2;
  }
  return 0;
}
