/* sweep_mva.c - the analytic sweep's sample and rows (see sweep_mva.h). */
#include "sim/study/sweep_mva.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/analysis/analysis.h"

#define SWEEP_MVA_ROW_BYTES 8192

int sweep_mva_population(const char *path)
{
  return !strcmp(path, "clients.count") || !strcmp(path, "workload.iodepth") ||
         !strcmp(path, "workload.numjobs");
}

static uint64_t sweep_mva_rand(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

long sweep_mva_anchors(const struct sweep *sw, int sample, unsigned char *anchor)
{
  long np = sw->npoints, k = sample > 0 ? sample : 10;
  long n = (np + k - 1) / k;
  if (n < 2)
    n = 2;
  if (n > np)
    n = np;
  int G = sw->ngroups;
  long *perm = malloc((size_t)(n > 0 ? n : 1) * sizeof *perm);
  long *pt = calloc((size_t)(n > 0 ? n : 1), sizeof *pt);
  if (!perm || !pt) {
    free(perm);
    free(pt);
    return -1;
  }
  uint64_t seed = 0x6e61737477696eULL ^ (uint64_t)np;
  for (int g = 0; g < G; g++) {
    /* axis g: n strata in a random order, stratum s -> its middle value */
    for (long i = 0; i < n; i++)
      perm[i] = i;
    for (long i = n - 1; i > 0; i--) {
      long j = (long)(sweep_mva_rand(&seed) % (uint64_t)(i + 1)), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    long nv = sw->groups[g].nvalues;
    for (long i = 0; i < n; i++)
      pt[i] = pt[i] * nv + (long)((perm[i] + 0.5) * (double)nv / (double)n);
  }
  long count = 0;
  for (long i = 0; i < n; i++)
    if (!anchor[pt[i]]) {
      anchor[pt[i]] = 1;
      count++;
    }
  free(perm);
  free(pt);
  return count;
}

/* Distance between points: a population axis is cheap to move along (N
 * is scaled), any other axis costs ten times more per step of its range. */
static double sweep_mva_distance(const struct sweep *sw, long a, long b)
{
  double d = 0.0;
  for (int g = 0; g < sw->ngroups; g++) {
    int n = sw->groups[g].nvalues;
    double step = fabs((double)(sweep_digit(sw, a, g) - sweep_digit(sw, b, g))) /
                  (n > 1 ? n - 1 : 1);
    d += step * (sweep_mva_population(sw->groups[g].path[0]) ? 1.0 : 10.0);
  }
  return d;
}

/* Append number v as a CSV cell (%.6g; empty when not finite). */
static size_t sweep_mva_num(char *buf, size_t n, size_t len, double v)
{
  char t[64];
  if (!isfinite(v))
    t[0] = 0;
  else
    snprintf(t, sizeof t, "%.6g", v == 0.0 ? 0.0 : v);
  return sweep_csv_cell(buf, n, len, t, 0);
}

/* One MVA curve: a network (an anchor's demands for a client count and
 * shape) solved once for n = 1..nmax. */
struct sweep_mva_curve {
  int from, clients, span;
  double think_s;
  int nmax;
  double *X, *R;
  char bott[64]; /* the station of highest utilisation at nmax */
};

struct sweep_mva_plan {
  int *from, *curve, *n; /* per task */
  struct sweep_mva_curve *c;
  int nc;
  int *hash;
  size_t hmask;
};

static int sweep_mva_curve_of(struct sweep_mva_plan *pl, int from, int clients,
                              const struct qnet_shape *sh)
{
  uint64_t h = (uint64_t)from * 0x9e3779b97f4a7c15ULL ^ (uint64_t)clients * 0xc2b2ae3d27d4eb4fULL ^
               (uint64_t)sh->disk_span * 0x165667b19e3779f9ULL;
  uint64_t tb;
  memcpy(&tb, &sh->think_s, sizeof tb);
  h ^= tb * 0x27d4eb2f165667c5ULL;
  for (size_t i = (size_t)(h >> 17) & pl->hmask;; i = (i + 1) & pl->hmask) {
    int c = pl->hash[i];
    if (c < 0) {
      c = pl->nc++;
      pl->c[c] = (struct sweep_mva_curve){
          .from = from, .clients = clients, .span = sh->disk_span, .think_s = sh->think_s};
      pl->hash[i] = c;
      return c;
    }
    const struct sweep_mva_curve *x = &pl->c[c];
    if (x->from == from && x->clients == clients && x->span == sh->disk_span &&
        x->think_s == sh->think_s)
      return c;
  }
}

/* Which simulated task each row uses, its population and its curve. */
static int sweep_mva_plan(const struct sweep *sw, const struct sweep_task *tasks, int ntasks,
                          const int *res_of, const struct run_result *results,
                          struct sweep_mva_plan *pl)
{
  size_t hs = 16;
  while (hs < 2 * (size_t)ntasks)
    hs *= 2;
  pl->from = malloc((size_t)ntasks * sizeof *pl->from);
  pl->curve = malloc((size_t)ntasks * sizeof *pl->curve);
  pl->n = malloc((size_t)ntasks * sizeof *pl->n);
  pl->c = calloc((size_t)ntasks, sizeof *pl->c);
  pl->hash = malloc(hs * sizeof *pl->hash);
  pl->hmask = hs - 1;
  if (!pl->from || !pl->curve || !pl->n || !pl->c || !pl->hash)
    return -1;
  for (size_t i = 0; i < hs; i++)
    pl->hash[i] = -1;
  /* the simulated tasks that worked, the only candidates */
  int nsim = 0;
  for (int u = 0; u < ntasks; u++)
    if (res_of[u] >= 0 && !results[res_of[u]].failed)
      pl->from[nsim++] = u;
  int *sim = malloc(((size_t)nsim + 1) * sizeof *sim);
  if (!sim)
    return -1;
  memcpy(sim, pl->from, (size_t)nsim * sizeof *sim);
  for (int t = 0; t < ntasks; t++) {
    const struct sweep_task *tk = &tasks[t];
    int from = -1;
    if (res_of[t] >= 0)
      from = t;
    else {
      double best = INFINITY;
      for (int i = 0; i < nsim; i++) {
        int u = sim[i];
        if (tasks[u].step != tk->step)
          continue;
        double d = sweep_mva_distance(sw, tk->point, tasks[u].point);
        if (d < best) {
          best = d;
          from = u;
        }
      }
    }
    pl->from[t] = from;
    pl->curve[t] = -1;
    if (from < 0 || results[res_of[from]].failed)
      continue;
    const struct run_result *r = &results[res_of[from]];
    double N = (double)r->clients * r->outstanding_per_client;
    for (int c = 0; c < sweep_ncols(sw) && from != t; c++) {
      if (!sweep_mva_population(sweep_col_path(sw, c)))
        continue;
      double a = strtod(sweep_value(sw, tk->point, c), NULL);
      double b = strtod(sweep_value(sw, tasks[from].point, c), NULL);
      if (a > 0 && b > 0)
        N *= a / b;
    }
    long n = lround(N);
    pl->n[t] = (int)(n < 1 ? 1 : n > MVA_CURVE_MAX ? MVA_CURVE_MAX : n);
    int c = sweep_mva_curve_of(pl, from, from == t ? r->clients : tk->clients, &tk->shape);
    pl->curve[t] = c;
    if (pl->n[t] > pl->c[c].nmax)
      pl->c[c].nmax = pl->n[t];
  }
  free(sim);
  return 0;
}

static int sweep_mva_solve(const int *res_of, const struct run_result *results,
                           struct sweep_mva_plan *pl)
{
  struct qnet net;
  for (int i = 0; i < pl->nc; i++) {
    struct sweep_mva_curve *c = &pl->c[i];
    const struct run_result *r = &results[res_of[c->from]];
    struct qnet_shape sh = {.disk_span = c->span, .think_s = c->think_s};
    if (qnet_build(r, &sh, c->clients, &net) < 1)
      continue;
    c->X = malloc((size_t)c->nmax * sizeof *c->X);
    c->R = malloc((size_t)c->nmax * sizeof *c->R);
    if (!c->X || !c->R)
      return -1;
    struct nw_err err = {0};
    if (mva_curve(net.st, net.nst, c->nmax, net.think_s, net.overlap_s, c->X, c->R, &err) < 0) {
      free(c->X);
      free(c->R);
      c->X = c->R = NULL;
      continue;
    }
    int b = 0;
    for (int k = 1; k < net.nst; k++)
      if (net.st[k].demand_s / (net.st[k].servers > 0 ? net.st[k].servers : 1e9) >
          net.st[b].demand_s / (net.st[b].servers > 0 ? net.st[b].servers : 1e9))
        b = k;
    snprintf(c->bott, sizeof c->bott, "%s", net.st[b].name);
  }
  return 0;
}

static void sweep_mva_plan_free(struct sweep_mva_plan *pl)
{
  for (int i = 0; pl->c && i < pl->nc; i++) {
    free(pl->c[i].X);
    free(pl->c[i].R);
  }
  free(pl->from);
  free(pl->curve);
  free(pl->n);
  free(pl->c);
  free(pl->hash);
}

/* The row of task t (with '\n'); err_pct: MVA vs DES on a simulated row, else NAN. */
static void sweep_mva_row(const struct sweep *sw, const struct sweep_task *tasks, int t,
                          const int *res_of, const struct run_result *results,
                          const struct sweep_mva_plan *pl, char *row, size_t n, double *err_pct)
{
  const struct sweep_task *tk = &tasks[t];
  int from = pl->from[t];
  const struct run_result *r = from >= 0 ? &results[res_of[from]] : NULL;
  const struct sweep_mva_curve *c = pl->curve[t] >= 0 ? &pl->c[pl->curve[t]] : NULL;
  int ok = c && c->X;
  double mx = ok ? c->X[pl->n[t] - 1] : NAN, mr = ok ? c->R[pl->n[t] - 1] : NAN;
  size_t rl = (size_t)snprintf(row, n, "%ld,%d", tk->point, tk->step);
  rl = sweep_csv_cell(row, n, rl, r ? r->step : "", 0);
  for (int k = 0; k < sweep_ncols(sw); k++)
    rl = sweep_csv_cell(row, n, rl, sweep_value(sw, tk->point, k), 0);
  char fp[32] = "";
  if (r)
    snprintf(fp, sizeof fp, "%ld", tasks[from].point);
  *err_pct = NAN;
  if (r && from == t) {
    /* simulated: the run's numbers, then MVA on its own demands */
    rl = sweep_csv_cell(row, n, rl, r->failed ? "sim-failed" : "sim", 0);
    rl = sweep_csv_cell(row, n, rl, fp, 0);
    rl = sweep_mva_num(row, n, rl, r->all.iops);
    rl = sweep_mva_num(row, n, rl, r->all.MBps);
    rl = sweep_mva_num(row, n, rl, r->all.lat_mean_s * 1e3);
    rl = sweep_csv_cell(row, n, rl, analysis_bottleneck_name(r), 0);
    if (ok && !r->failed && r->all.iops > 0)
      *err_pct = 100.0 * (mx / r->all.iops - 1.0);
  } else {
    /* predicted: the nearest simulated point's demands, N scaled by population axes */
    double bytes_per_io = r && r->all.iops > 0 ? r->all.MBps / r->all.iops : NAN;
    rl = sweep_csv_cell(row, n, rl, ok ? "mva" : "mva-failed", 0);
    rl = sweep_csv_cell(row, n, rl, fp, 0);
    rl = sweep_mva_num(row, n, rl, mx);
    rl = sweep_mva_num(row, n, rl, mx * bytes_per_io);
    rl = sweep_mva_num(row, n, rl, mr * 1e3);
    rl = sweep_csv_cell(row, n, rl, ok ? c->bott : "", 0);
  }
  rl = sweep_mva_num(row, n, rl, mx);
  rl = sweep_mva_num(row, n, rl, mr * 1e3);
  rl = sweep_mva_num(row, n, rl, *err_pct);
  if (rl + 2 >= n)
    snprintf(row, n, "%ld,%d,row too long\n", tk->point, tk->step);
  else
    snprintf(row + rl, n - rl, "\n");
}

int sweep_mva_rows(const struct sweep *sw, const struct sweep_task *tasks, int ntasks,
                   const int *res_of, const struct run_result *results, char *header, size_t hn,
                   char **rows, int quiet)
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
  struct sweep_mva_plan pl = {0};
  int rc = -1;
  if (sweep_mva_plan(sw, tasks, ntasks, res_of, results, &pl) < 0 ||
      sweep_mva_solve(res_of, results, &pl) < 0)
    goto done;
  double errs_sum = 0.0, err_max = -1.0;
  long err_at = -1;
  int nerr = 0;
  for (int t = 0; t < ntasks; t++) {
    char row[SWEEP_MVA_ROW_BYTES];
    double e;
    sweep_mva_row(sw, tasks, t, res_of, results, &pl, row, sizeof row, &e);
    if (isfinite(e)) {
      errs_sum += fabs(e);
      nerr++;
      if (fabs(e) > err_max) {
        err_max = fabs(e);
        err_at = tasks[t].point;
      }
    }
    if (!(rows[t] = strdup(row)))
      goto done;
  }
  if (!quiet)
    fprintf(stderr,
            "sweep --analytic: MVA vs simulation on the %d simulated row(s): mean |error| %.1f%%, "
            "max %.1f%% (point %ld); %d MVA curve(s)\n",
            nerr, nerr ? errs_sum / nerr : 0.0, err_max > 0 ? err_max : 0.0, err_at, pl.nc);
  rc = 0;
done:
  sweep_mva_plan_free(&pl);
  return rc;
}
