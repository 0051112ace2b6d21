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

#include "sim/cli/cli.h"
#include "sim/cli/cli_opt.h"
#include "sim/engine/engine.h"
#include "sim/analysis/explain.h"
#include "sim/report/htmlreport.h"
#include "sim/analysis/mva.h"
#include "sim/study/runpool.h"
#include "sim/study/sweep.h"

#define CLI_SWEEP_ROW_BYTES 8192

struct cli_sweep_opts {
  const char *file, *csv, *json, *html, *catalog;
  int jobs, shard_i, shard_n, resume, list, quiet, analytic, sample;
  double timeout_s;
};

struct cli_sweep_task {
  long point;
  int step;
  int clients;    /* the point's client count (analytic mode) */
  double think_s; /* the step's think time (analytic mode) */
};

/* MPI state: rank 0 hands out simulations, the other ranks run them. */
struct cli_sweep_mpi {
  int rank, size, active, stopped;
};

struct cli_sweep_ctx {
  const struct sweep *sw;
  const struct cli_sweep_opts *o;
  const struct cli_sweep_task *tasks; /* pending tasks */
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
                                       "--html",  "--timeout", "--catalog", "--sample", NULL};
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
    } else if (!strcmp(a, "--csv"))
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
  if (o->resume && !o->csv) {
    fprintf(stderr, "nastwin: error: --resume needs --csv FILE (the journal is FILE.partial)\n");
    return 2;
  }
  return 0;
}

/* Load point p's scenario (sets + axis values). */
static int cli_sweep_load(const struct sweep *sw, const char *catalog, long p, struct scenario *s,
                          struct nw_err *err)
{
  struct cfg_set sets[CFG_MAX_SETS];
  int n = sweep_point_sets(sw, p, sets, CFG_MAX_SETS);
  if (n < 0)
    return nw_fail(err, sw->file, 0, 0, "sweep: point %ld has more than %d overrides", p,
                   CFG_MAX_SETS);
  return cfg_load(sw->base, catalog, sets, n, NULL, s, err);
}

static void cli_sweep_task_fn(void *vctx, int task, struct run_result *out)
{
  struct cli_sweep_ctx *c = vctx;
  const struct cli_sweep_task *t = &c->tasks[task];
  struct scenario s;
  struct nw_err err = {0};
  memset(out, 0, sizeof *out);
  if (cli_sweep_load(c->sw, c->o->catalog, t->point, &s, &err) < 0) {
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
                                  const struct cli_sweep_task *tasks, int ntasks, char **rows)
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
    struct cli_sweep_task one = {.point = msg[1], .step = (int)msg[2]};
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

/* ---- analytic mode --------------------------------------------------- */

/* Is this axis column a closed-loop population (changes N proportionally)? */
static int cli_sweep_population(const char *path)
{
  return !strcmp(path, "clients.count") || !strcmp(path, "workload.iodepth") ||
         !strcmp(path, "workload.numjobs");
}

/* Sample stride: about 10 % of the points and at least 2 of them. */
static long cli_sweep_stride(const struct sweep *sw, int sample)
{
  if (sample > 0)
    return sample;
  long k = 10;
  if (sw->npoints >= 2 && (sw->npoints + k - 1) / k < 2)
    k = sw->npoints - 1;
  return k < 1 ? 1 : k;
}

/* Index of group gi's value at point p (the last axis varies fastest). */
static int cli_sweep_digit(const struct sweep *sw, long p, int gi)
{
  long div = 1;
  for (int i = sw->ngroups - 1; i > gi; i--)
    div *= sw->groups[i].nvalues;
  return (int)((p / div) % sw->groups[gi].nvalues);
}

/* Distance between points: a population axis is cheap to move along (N
 * is scaled), any other axis costs ten times more per step of its range. */
static double cli_sweep_distance(const struct sweep *sw, long a, long b)
{
  double d = 0.0;
  for (int g = 0; g < sw->ngroups; g++) {
    int n = sw->groups[g].nvalues;
    double step = fabs((double)(cli_sweep_digit(sw, a, g) - cli_sweep_digit(sw, b, g))) /
                  (n > 1 ? n - 1 : 1);
    d += step * (cli_sweep_population(sw->groups[g].path[0]) ? 1.0 : 10.0);
  }
  return d;
}

/* Append number v as a CSV cell (%.6g; empty when not finite). */
static size_t cli_sweep_num(char *buf, size_t n, size_t len, double v)
{
  char t[64];
  if (!isfinite(v))
    t[0] = 0;
  else
    snprintf(t, sizeof t, "%.6g", v == 0.0 ? 0.0 : v);
  return sweep_csv_cell(buf, n, len, t, 0);
}

/* MVA for stations st at population N, think Z. */
static int cli_sweep_mva(const struct mva_station *st, int nst, double N, double Z,
                         struct mva_result *m, const char **bott)
{
  struct nw_err err = {0};
  int n = (int)lround(N);
  if (n < 1)
    n = 1;
  if (n > MVA_MAX_CUSTOMERS)
    n = MVA_MAX_CUSTOMERS;
  if (nst < 1 || mva_solve(st, nst, n, Z, MVA_EXACT, m, &err) < 0)
    return -1;
  int b = 0;
  for (int k = 1; k < nst; k++)
    if (m->utilisation[k] > m->utilisation[b])
      b = k;
  *bott = st[b].name;
  return 0;
}

/* Header and one row per task: simulated rows for the sample, MVA for the rest. */
static int cli_sweep_analytic_rows(const struct sweep *sw, const struct cli_sweep_task *tasks,
                                   int ntasks, const int *res_of, const struct run_result *results,
                                   char *header, size_t hn, char **rows, int quiet)
{
  size_t len = 0;
  len = sweep_csv_cell(header, hn, len, "point", 1);
  len = sweep_csv_cell(header, hn, len, "step", 0);
  len = sweep_csv_cell(header, hn, len, "step_name", 0);
  for (int c = 0; c < sweep_ncols(sw); c++)
    len = sweep_csv_cell(header, hn, len, sweep_col_path(sw, c), 0);
  static const char *const cols[] = {"source", "from_point", "iops", "all_MBps", "lat_mean_ms",
                                     "bottleneck", "mva_iops", "mva_lat_mean_ms", "mva_err_pct",
                                     NULL};
  for (int k = 0; cols[k]; k++)
    len = sweep_csv_cell(header, hn, len, cols[k], 0);
  snprintf(header + len, hn > len ? hn - len : 0, "\n");
  struct mva_station st[MVA_MAX_STATIONS];
  struct mva_result m;
  double err_sum = 0.0, err_max = -1.0;
  long err_at = -1;
  int nerr = 0;
  for (int t = 0; t < ntasks; t++) {
    char row[CLI_SWEEP_ROW_BYTES];
    const struct cli_sweep_task *tk = &tasks[t];
    /* the task whose simulation this row uses: itself, or the nearest sampled one */
    int from = -1;
    if (res_of[t] >= 0)
      from = t;
    else {
      double best = INFINITY;
      for (int u = 0; u < ntasks; u++) {
        if (res_of[u] < 0 || tasks[u].step != tk->step || results[res_of[u]].failed)
          continue;
        double d = cli_sweep_distance(sw, tk->point, tasks[u].point);
        if (d < best) {
          best = d;
          from = u;
        }
      }
    }
    const struct run_result *r = from >= 0 ? &results[res_of[from]] : NULL;
    size_t rl = (size_t)snprintf(row, sizeof row, "%ld,%d", tk->point, tk->step);
    rl = sweep_csv_cell(row, sizeof row, rl, r ? r->step : "", 0);
    for (int c = 0; c < sweep_ncols(sw); c++)
      rl = sweep_csv_cell(row, sizeof row, rl, sweep_value(sw, tk->point, c), 0);
    const char *bott = "none";
    if (r && from == t) {
      /* simulated: the run's numbers, then MVA on its own demands */
      int nst = explain_stations(r, st, MVA_MAX_STATIONS);
      int ok = !r->failed &&
               cli_sweep_mva(st, nst, (double)r->clients * r->outstanding_per_client,
                             tk->think_s, &m, &bott) == 0;
      char fp[32];
      snprintf(fp, sizeof fp, "%ld", tk->point);
      rl = sweep_csv_cell(row, sizeof row, rl, r->failed ? "sim-failed" : "sim", 0);
      rl = sweep_csv_cell(row, sizeof row, rl, fp, 0);
      rl = cli_sweep_num(row, sizeof row, rl, r->all.iops);
      rl = cli_sweep_num(row, sizeof row, rl, r->all.MBps);
      rl = cli_sweep_num(row, sizeof row, rl, r->all.lat_mean_s * 1e3);
      rl = sweep_csv_cell(row, sizeof row, rl,
                          r->bottleneck >= 0 && r->bottleneck < r->nres
                              ? r->res[r->bottleneck].name
                              : "none",
                          0);
      double e = ok && r->all.iops > 0 ? 100.0 * (m.throughput_per_s / r->all.iops - 1.0) : NAN;
      rl = cli_sweep_num(row, sizeof row, rl, ok ? m.throughput_per_s : NAN);
      rl = cli_sweep_num(row, sizeof row, rl, ok ? m.response_s * 1e3 : NAN);
      rl = cli_sweep_num(row, sizeof row, rl, e);
      if (isfinite(e)) {
        err_sum += fabs(e);
        nerr++;
        if (fabs(e) > err_max) {
          err_max = fabs(e);
          err_at = tk->point;
        }
      }
    } else {
      /* predicted: the nearest simulated point's demands, N scaled by population axes */
      int ok = 0;
      char fp[32] = "";
      if (r) {
        const struct cli_sweep_task *tf = &tasks[from];
        double N = (double)r->clients * r->outstanding_per_client;
        for (int c = 0; c < sweep_ncols(sw); c++) {
          if (!cli_sweep_population(sweep_col_path(sw, c)))
            continue;
          double a = strtod(sweep_value(sw, tk->point, c), NULL);
          double b = strtod(sweep_value(sw, tf->point, c), NULL);
          if (a > 0 && b > 0)
            N *= a / b;
        }
        int nst = explain_stations_for(r, tk->clients, st, MVA_MAX_STATIONS);
        ok = cli_sweep_mva(st, nst, N, tk->think_s, &m, &bott) == 0;
        snprintf(fp, sizeof fp, "%ld", tf->point);
      }
      double bytes_per_io = r && r->all.iops > 0 ? r->all.MBps / r->all.iops : NAN;
      rl = sweep_csv_cell(row, sizeof row, rl, ok ? "mva" : "mva-failed", 0);
      rl = sweep_csv_cell(row, sizeof row, rl, fp, 0);
      rl = cli_sweep_num(row, sizeof row, rl, ok ? m.throughput_per_s : NAN);
      rl = cli_sweep_num(row, sizeof row, rl, ok ? m.throughput_per_s * bytes_per_io : NAN);
      rl = cli_sweep_num(row, sizeof row, rl, ok ? m.response_s * 1e3 : NAN);
      rl = sweep_csv_cell(row, sizeof row, rl, ok ? bott : "", 0);
      rl = cli_sweep_num(row, sizeof row, rl, ok ? m.throughput_per_s : NAN);
      rl = cli_sweep_num(row, sizeof row, rl, ok ? m.response_s * 1e3 : NAN);
      rl = cli_sweep_num(row, sizeof row, rl, NAN);
    }
    if (rl + 2 >= sizeof row)
      snprintf(row, sizeof row, "%ld,%d,row too long", tk->point, tk->step);
    else
      snprintf(row + rl, sizeof row - rl, "\n");
    rows[t] = strdup(row);
    if (!rows[t])
      return -1;
  }
  if (!quiet)
    fprintf(stderr,
            "sweep --analytic: MVA vs simulation on the %d simulated row(s): mean |error| %.1f%%, "
            "max %.1f%% (point %ld)\n",
            nerr, nerr ? err_sum / nerr : 0.0, err_max > 0 ? err_max : 0.0, err_at);
  return 0;
}

static int cli_sweep_main(int argc, char **argv, struct cli_sweep_mpi *mpi)
{
  int *res_of = NULL; /* freed at done: declared before the first goto */
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
  char header[CLI_SWEEP_ROW_BYTES];
  sweep_csv_header(&sw, header, sizeof header);
  /* Check every point of the shard and count its steps before running anything. */
  struct cli_sweep_task *tasks = NULL;
  char **rows = NULL;
  struct run_result *results = NULL;
  struct cli_sweep_task *pending = NULL;
  int ntasks = 0, cap = 0, journal_fd = -1, failed = 0;
  rc = 2;
  for (long p = o.shard_i; p < sw.npoints; p += o.shard_n) {
    struct scenario s;
    if (cli_sweep_load(&sw, o.catalog, p, &s, &err) < 0) {
      fprintf(stderr, "nastwin: error: sweep point %ld:\n", p);
      nw_err_print(&err, stderr);
      goto done;
    }
    int nsteps = s.op != STACK_OP_NONE && !s.op_with_workload ? 1 : s.workload.nsteps;
    double think_s[64];
    for (int st = 0; st < nsteps && st < 64; st++)
      think_s[st] = explain_think_s(&s, st);
    int nclients = s.nclients;
    cfg_free(&s);
    for (int st = 0; st < nsteps; st++) {
      if (ntasks == cap) {
        cap = cap ? cap * 2 : 64;
        struct cli_sweep_task *nt = realloc(tasks, (size_t)cap * sizeof *nt);
        if (!nt) {
          rc = 1;
          goto done;
        }
        tasks = nt;
      }
      tasks[ntasks++] = (struct cli_sweep_task){
          .point = p, .step = st, .clients = nclients, .think_s = st < 64 ? think_s[st] : 0.0};
    }
  }
  rc = 1;
  rows = calloc((size_t)ntasks + 1, sizeof *rows);
  pending = calloc((size_t)ntasks + 1, sizeof *pending);
  if (!rows || !pending)
    goto done;
  char jpath[1100] = "";
  res_of = calloc((size_t)ntasks + 1, sizeof *res_of);
  if (!res_of)
    goto done;
  long stride = o.analytic ? cli_sweep_stride(&sw, o.sample) : 1;
  if (o.csv && !o.analytic) {
    snprintf(jpath, sizeof jpath, "%s.partial", o.csv);
    int kept = 0;
    if (o.resume) {
      kept = cli_sweep_read_journal(jpath, header, tasks, ntasks, rows);
      if (kept < 0) {
        rc = 2;
        goto done;
      }
      if (!o.quiet)
        fprintf(stderr, "sweep: resuming: %d of %d row(s) already in %s\n", kept, ntasks, jpath);
    }
    /* Rewrite the journal with its header and the rows kept (drops cut rows). */
    size_t jlen = strlen(header) + 3;
    for (int t = 0; t < ntasks; t++)
      jlen += rows[t] ? strlen(rows[t]) : 0;
    char *jtext = malloc(jlen);
    if (!jtext)
      goto done;
    size_t off = (size_t)sprintf(jtext, "# %s", header);
    for (int t = 0; t < ntasks; t++)
      if (rows[t])
        off += (size_t)sprintf(jtext + off, "%s", rows[t]);
    int wr = sweep_write_atomic(jpath, jtext, off);
    free(jtext);
    if (wr < 0 || (journal_fd = open(jpath, O_WRONLY | O_APPEND)) < 0) {
      fprintf(stderr, "nastwin: error: %s: cannot write the journal: %s\n", jpath,
              strerror(errno));
      goto done;
    }
  }
  int npending = 0;
  for (int t = 0; t < ntasks; t++) {
    res_of[t] = -1;
    if (!rows[t] && tasks[t].point % stride == 0) {
      res_of[t] = npending;
      pending[npending++] = tasks[t];
    }
  }
  results = calloc((size_t)npending + 1, sizeof *results);
  if (!results)
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
    if (cli_sweep_analytic_rows(&sw, tasks, ntasks, res_of, results, header, sizeof header, rows,
                                o.quiet) < 0)
      goto done;
  }
  for (int t = 0, k = 0; t < ntasks; t++) {
    if (rows[t])
      continue;
    char row[CLI_SWEEP_ROW_BYTES];
    struct run_result *r = &results[k++];
    if (r->failed) {
      failed++;
      fprintf(stderr, "nastwin: error: point %ld step %d: %s\n", tasks[t].point, tasks[t].step,
              r->failure);
    }
    if (sweep_csv_row(&sw, tasks[t].point, tasks[t].step, r, row, sizeof row) < 0)
      snprintf(row, sizeof row, "%ld,%d,row too long\n", tasks[t].point, tasks[t].step);
    rows[t] = strdup(row);
    if (!rows[t])
      goto done;
  }
  for (int t = 0; t < ntasks; t++)
    if (strstr(rows[t], ",failed\n") && !failed)
      failed++;
  /* The CSV. */
  size_t total = strlen(header) + 1;
  for (int t = 0; t < ntasks; t++)
    total += strlen(rows[t]);
  char *text = malloc(total);
  if (!text)
    goto done;
  size_t len = (size_t)sprintf(text, "%s", header);
  for (int t = 0; t < ntasks; t++)
    len += (size_t)sprintf(text + len, "%s", rows[t]);
  if (o.csv) {
    if (sweep_write_atomic(o.csv, text, len) < 0) {
      fprintf(stderr, "nastwin: error: %s: %s\n", o.csv, strerror(errno));
      free(text);
      goto done;
    }
  } else
    fwrite(text, 1, len, stdout);
  free(text);
  if (o.json) {
    char hline[CLI_SWEEP_ROW_BYTES];
    snprintf(hline, sizeof hline, "%s", header);
    hline[strcspn(hline, "\n")] = 0;
    for (int t = 0; t < ntasks; t++)
      rows[t][strcspn(rows[t], "\n")] = 0;
    size_t jl = 0;
    char *js = cli_sweep_json(hline, rows, ntasks, &jl);
    if (!js || sweep_write_atomic(o.json, js, jl) < 0) {
      fprintf(stderr, "nastwin: error: %s: cannot write JSON\n", o.json);
      free(js);
      goto done;
    }
    free(js);
  }
  if (o.html) {
    if (htmlreport_sweep(o.html, &sw, header, rows, ntasks, &err) < 0) {
      nw_err_print(&err, stderr);
      goto done;
    }
  }
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
