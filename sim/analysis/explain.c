/* explain.c - nastwin explain: one run, then the operational-law story. */
#include "sim/analysis/explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/cli/cli_opt.h"
#include "sim/engine/engine.h"
#include "sim/study/runpool.h"

static int explain_is_station(const struct res_resource *x)
{
  return x->kind != RES_CORE && x->kind != RES_CPU && x->demand_s_per_io > 0;
}

int explain_stations(const struct run_result *r, struct mva_station *st, int max)
{
  int n = 0, ncores = 0, nthreads = 0, ndisks = 0;
  double thread_s = 0.0, disk_s = 0.0;
  for (int i = 0; i < r->nres; i++) {
    const struct res_resource *x = &r->res[i];
    ncores += x->kind == RES_CORE;
    if (!explain_is_station(x))
      continue;
    if (x->kind == RES_THREAD) {
      nthreads++;
      thread_s += x->demand_s_per_io;
    } else if (x->kind == RES_DISK) {
      ndisks++;
      disk_s += x->demand_s_per_io;
    }
  }
  int pool = ncores > 0 && nthreads > ncores;
  if (pool && n < max)
    st[n++] = (struct mva_station){.name = "soc.cpu (threads pooled)", .demand_s = thread_s,
                                   .servers = ncores};
  if (ndisks && n < max)
    st[n++] = (struct mva_station){.name = "member disks", .demand_s = disk_s, .servers = ndisks};
  for (int i = 0; i < r->nres && n < max; i++) {
    const struct res_resource *x = &r->res[i];
    if (!explain_is_station(x) || x->kind == RES_DISK || (pool && x->kind == RES_THREAD))
      continue;
    st[n] = (struct mva_station){.demand_s = x->demand_s_per_io, .servers = 1};
    snprintf(st[n].name, sizeof st[n].name, "%s", x->name);
    n++;
  }
  return n;
}

/* A resource that exists once per client ("net.client3.nic0.rx", "soc.smbd.c2.0"). */
static int explain_per_client(const char *name)
{
  for (const char *q = name; (q = strstr(q, "client")) != NULL; q++)
    if (q[6] >= '0' && q[6] <= '9')
      return 1;
  for (const char *q = name; (q = strstr(q, ".c")) != NULL; q++)
    if (q[2] >= '0' && q[2] <= '9')
      return 1;
  return 0;
}

int explain_stations_for(const struct run_result *r, int clients, struct mva_station *st,
                         int max)
{
  if (clients <= 0 || clients == r->clients || r->clients <= 0)
    return explain_stations(r, st, max);
  int n = 0, ncores = 0, nthreads = 0, ncthreads = 0, ndisks = 0, nclink = 0;
  double thread_s = 0.0, cthread_s = 0.0, disk_s = 0.0, clink_s = 0.0;
  for (int i = 0; i < r->nres; i++) {
    const struct res_resource *x = &r->res[i];
    ncores += x->kind == RES_CORE;
    if (!explain_is_station(x))
      continue;
    int pc = explain_per_client(x->name);
    if (x->kind == RES_THREAD) {
      thread_s += x->demand_s_per_io;
      nthreads += !pc;
      ncthreads += pc;
      cthread_s += pc ? x->demand_s_per_io : 0.0;
    } else if (x->kind == RES_DISK) {
      ndisks++;
      disk_s += x->demand_s_per_io;
    } else if (pc) {
      nclink++;
      clink_s += x->demand_s_per_io;
    }
  }
  /* per-client resources scale with the client count */
  int cthreads = (int)lround((double)ncthreads * clients / r->clients);
  int clinks = (int)lround((double)nclink * clients / r->clients);
  int pool = ncores > 0 && nthreads + cthreads > ncores;
  if (pool && n < max)
    st[n++] = (struct mva_station){.name = "soc.cpu (threads pooled)", .demand_s = thread_s,
                                   .servers = ncores};
  if (!pool && ncthreads && n < max)
    st[n++] = (struct mva_station){.name = "per-client threads", .demand_s = cthread_s,
                                   .servers = cthreads > 0 ? cthreads : 1};
  if (ndisks && n < max)
    st[n++] = (struct mva_station){.name = "member disks", .demand_s = disk_s, .servers = ndisks};
  if (nclink && n < max)
    st[n++] = (struct mva_station){.name = "per-client links", .demand_s = clink_s,
                                   .servers = clinks > 0 ? clinks : 1};
  for (int i = 0; i < r->nres && n < max; i++) {
    const struct res_resource *x = &r->res[i];
    if (!explain_is_station(x) || x->kind == RES_DISK || (pool && x->kind == RES_THREAD) ||
        explain_per_client(x->name))
      continue;
    st[n] = (struct mva_station){.demand_s = x->demand_s_per_io, .servers = 1};
    snprintf(st[n].name, sizeof st[n].name, "%s", x->name);
    n++;
  }
  return n;
}

double explain_think_s(const struct scenario *s, int step)
{
  if (!s->workload.steps || step < 0 || step >= s->workload.nsteps ||
      s->workload.steps[step].njobs < 1)
    return 0.0;
  return s->workload.steps[step].jobs[0].thinktime_s;
}

/* The core a thread was placed on (its `who` appears in the core's list). */
static int explain_core_of(const struct run_result *r, const struct res_resource *t)
{
  for (int i = 0; i < r->nres; i++)
    if (r->res[i].kind == RES_CORE && t->who[0] && strstr(r->res[i].who, t->who))
      return i;
  return -1;
}

static const char *explain_advice(const struct res_resource *b)
{
  switch (b->kind) {
  case RES_THREAD:
    return "a faster clock (soc.clock) or cheaper per-request work helps this one thread; more "
           "clients or sessions spread the load over more threads and cores";
  case RES_CPU:
  case RES_CORE:
    return "more cores (soc.cores), a faster clock (soc.clock), or offload engines";
  case RES_LINK:
    return "more or faster links (network.nas_links with LACP/MPIO, network.nas_link_rate) or "
           "jumbo frames (network.mtu: 9000)";
  case RES_DISK:
    return "more member disks (disks.count), faster drives, another RAID level or an SSD cache";
  case RES_ENGINE:
    return "a faster offload engine, or doing the work on the CPU cores";
  case RES_SWITCH:
    return "a faster switch or fewer hops";
  }
  return "";
}

void explain_text(FILE *out, const struct scenario *s, int step, const struct run_result *r,
                  int analytic)
{
  int N = r->clients * r->outstanding_per_client;
  double Z = explain_think_s(s, step);
  double X = r->all.iops, R = r->all.lat_mean_s;
  int ncores = 0;
  for (int i = 0; i < r->nres; i++)
    ncores += r->res[i].kind == RES_CORE;
  fprintf(out, "Scenario %s, step %s: %d client(s) x %d outstanding I/O = N = %d in the loop",
          r->scenario, r->step, r->clients, r->outstanding_per_client, N);
  if (Z > 0)
    fprintf(out, ", think time Z = %.3g ms", Z * 1e3);
  fprintf(out, ".\nSimulated: X = %.6g I/O per s (%.6g MB/s), mean response time R = %.4g ms.\n",
          X, r->all.MBps, R * 1e3);
  if (r->failed)
    fprintf(out, "WARNING: the simulation failed: %s\n", r->failure);
  if (r->bottleneck < 0 || r->bottleneck >= r->nres) {
    fprintf(out, "Nothing was busy: no bottleneck to explain.\n");
    return;
  }
  const struct res_resource *b = &r->res[r->bottleneck];
  /* 1. Which resource saturates. */
  fprintf(out, "\n1. The bottleneck.\n");
  if (b->kind == RES_THREAD) {
    int c = explain_core_of(r, b);
    const char *core = c >= 0 ? r->res[c].name : "one core";
    char prog[sizeof b->who];
    snprintf(prog, sizeof prog, "%s", b->who);
    prog[strcspn(prog, " ")] = 0;
    fprintf(out,
            "   %s is the bottleneck: it runs thread %s (%s), busy %.1f%% of the time.\n"
            "   %s is single-threaded per session, so one client's %s session can use only\n"
            "   one of the %d cores: the other cores have nothing of it to run (the CPU as a whole\n"
            "   is only as busy as its cores' average).\n",
            core, b->name, b->who, b->busy * 100.0, prog,
            proto_ops_of(&s->proto)->label, ncores);
  } else
    fprintf(out, "   %s (%s) is the bottleneck, busy %.1f%% of the time.\n", b->name, b->who,
            b->busy * 100.0);
  fprintf(out,
          "   Utilisation law: U = X * D, so its service demand is D = U / X = %.4g ms per I/O.\n",
          b->demand_s_per_io * 1e3);
  /* 2. Operational bounds. */
  struct mva_station st[MVA_MAX_STATIONS];
  int nst = explain_stations(r, st, MVA_MAX_STATIONS);
  double Dsum = 0.0;
  for (int k = 0; k < nst; k++)
    Dsum += st[k].demand_s;
  double bmax = r->bound_iops, bpop = Dsum + Z > 0 ? N / (Dsum + Z) : INFINITY;
  fprintf(out, "\n2. Operational-law bounds (D measured in this run).\n");
  fprintf(out, "   X <= 1 / D_max        = 1 / %.4g ms = %.6g I/O per s\n",
          b->demand_s_per_io * 1e3, bmax);
  fprintf(out, "   X <= N / (D_total + Z) = %d / (%.4g + %.4g) ms = %.6g I/O per s\n", N,
          Dsum * 1e3, Z * 1e3, bpop);
  fprintf(out,
          "   (D_total adds every station an I/O visits; stages that overlap in time, such as\n"
          "   the NAS port and the client NIC carrying the same bytes, make this bound loose.)\n");
  fprintf(out, "   Simulated X = %.6g I/O per s = %.1f%% of the tighter bound.\n", X,
          100.0 * X / fmin(bmax, bpop));
  /* 3. Share of the response time. */
  fprintf(out, "\n3. Where the time goes.\n");
  if (R > 0)
    fprintf(out,
            "   Each I/O needs %.4g ms of service on the bottleneck: %.0f%% of the %.4g ms response\n"
            "   time; the rest is service elsewhere and queueing (Little: N = X (R + Z) gives\n"
            "   R = %.4g ms).\n",
            b->demand_s_per_io * 1e3, 100.0 * b->demand_s_per_io / R, R * 1e3,
            X > 0 ? (N / X - Z) * 1e3 : 0.0);
  /* 4. What would move it. */
  int next = -1;
  for (int i = 0; i < r->nres; i++) {
    const struct res_resource *x = &r->res[i];
    if (i == r->bottleneck || x->kind == RES_CORE || x->demand_s_per_io <= 0)
      continue;
    if (b->kind == RES_THREAD && x->kind == RES_CPU)
      continue; /* the CPU aggregate includes the bottleneck thread itself */
    if (next < 0 || x->busy > r->res[next].busy)
      next = i;
  }
  fprintf(out, "\n4. What would move the bottleneck.\n   Relief: %s.\n", explain_advice(b));
  /* (advice text is one long line on purpose: terminals wrap it) */
  if (next >= 0) {
    const struct res_resource *x = &r->res[next];
    double cap = x->kind == RES_CPU ? 1.0 / x->demand_s_per_io : 1.0 / x->demand_s_per_io;
    fprintf(out,
            "   Next in line: %s (%s), busy %.1f%%, D = %.4g ms per I/O:\n"
            "   once %s is relieved, throughput can grow to about %.6g I/O per s (%+.0f%%) before %s saturates.\n",
            x->name, x->who, x->busy * 100.0, x->demand_s_per_io * 1e3, b->name, cap,
            X > 0 ? 100.0 * (cap / X - 1.0) : 0.0, x->name);
  }
  if (!analytic)
    return;
  fprintf(out, "\n5. Analytic model (exact MVA on these demands; multi-server stations for member\n"
               "   disks and, when threads outnumber cores, for the CPU).\n");
  struct mva_result m;
  struct nw_err err = {0};
  if (N >= 1 && mva_solve(st, nst, N, Z, MVA_EXACT, &m, &err) == 0)
    fprintf(out, "   N = %d: MVA X = %.6g I/O per s, R = %.4g ms (simulation: %.6g, %.4g ms; %+.1f%%)\n",
            N, m.throughput_per_s, m.response_s * 1e3, X, R * 1e3,
            X > 0 ? 100.0 * (m.throughput_per_s / X - 1.0) : 0.0);
  fprintf(out, "   what-if population:  N    X (I/O per s)   R (ms)\n");
  const int pops[] = {1, 2, 4, 8, 16, 32, 64};
  for (int i = 0; i < 7; i++)
    if (mva_solve(st, nst, pops[i], Z, MVA_EXACT, &m, &err) == 0)
      fprintf(out, "                      %3d  %14.6g  %8.4g\n", pops[i], m.throughput_per_s,
              m.response_s * 1e3);
}

/* ---- CLI ------------------------------------------------------------- */

struct explain_ctx {
  const struct scenario *s;
  int step;
};

static void explain_task(void *vctx, int task, struct run_result *out)
{
  struct explain_ctx *c = vctx;
  (void)task;
  engine_run(c->s, c->step, 0, NULL, out);
}

int cli_explain(int argc, char **argv)
{
  const char *file = NULL, *catalog = NULL;
  struct cfg_set sets[CFG_MAX_SETS];
  int nsets = 0, step = 0, analytic = 0, rc = 2;
  static const char *const valued[] = {"--set", "--step", "--catalog", NULL};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val;
    if (cli_opt_value(argc, argv, &i, valued, &val) < 0)
      goto out;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      puts("usage: nastwin explain [SCENARIO.yaml] [--set PATH=VALUE]... [--step N] [--analytic]\n"
           "Simulates one workload step, then explains its bottleneck: utilisation and demand,\n"
           "the operational-law bounds beside the simulated throughput, the share of the\n"
           "response time, what runs there and what would move it.  --analytic adds an exact\n"
           "MVA prediction from the measured demands.  No file: the built-in default scenario.");
      rc = 0;
      goto out;
    } else if (!strcmp(a, "--set")) {
      const char *eq = strchr(val, '=');
      if (!eq || eq == val || nsets == CFG_MAX_SETS || eq - val >= 128) {
        fprintf(stderr, "nastwin: error: --set '%s': expected PATH=VALUE, e.g. soc.cores=8\n", val);
        goto out;
      }
      char *path = strndup(val, (size_t)(eq - val));
      if (!path) {
        rc = 1;
        goto out;
      }
      sets[nsets++] = (struct cfg_set){.path = path, .value = eq + 1};
    } else if (!strcmp(a, "--step")) {
      long v;
      if (cli_opt_int(a, val, 0, 100000, &v) < 0)
        goto out;
      step = (int)v;
    } else if (!strcmp(a, "--catalog"))
      catalog = val;
    else if (!strcmp(a, "--analytic"))
      analytic = 1;
    else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "nastwin: error: unknown option '%s' (see nastwin explain --help)\n", a);
      goto out;
    } else if (!file)
      file = a;
    else {
      fprintf(stderr, "nastwin: error: more than one scenario given ('%s' and '%s')\n", file, a);
      goto out;
    }
  }
  struct scenario s;
  struct nw_err err = {0};
  if (cfg_load(file, catalog, sets, nsets, NULL, &s, &err) < 0) {
    nw_err_print(&err, stderr);
    goto out;
  }
  if (step >= s.workload.nsteps) {
    fprintf(stderr, "nastwin: error: --step %d: the scenario has %d step(s)\n", step,
            s.workload.nsteps);
    cfg_free(&s);
    goto out;
  }
  struct run_result *r = calloc(1, sizeof *r);
  if (!r) {
    cfg_free(&s);
    rc = 1;
    goto out;
  }
  struct explain_ctx ctx = {.s = &s, .step = step};
  runpool_run(1, 1, 0.0, explain_task, &ctx, r, NULL);
  explain_text(stdout, &s, step, r, analytic);
  rc = r->failed ? 1 : 0;
  free(r);
  cfg_free(&s);
out:
  for (int i = 0; i < nsets; i++)
    free((char *)sets[i].path);
  return rc;
}
