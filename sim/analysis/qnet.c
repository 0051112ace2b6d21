/* qnet.c - a run's measured demands as a closed queueing network (see qnet.h). */
#include "sim/analysis/qnet.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/analysis/analysis.h"

void qnet_shape_of(const struct scenario *s, int step, struct qnet_shape *out)
{
  out->disk_span = 1;
  out->think_s = 0.0;
  if (!s->workload.steps || step < 0 || step >= s->workload.nsteps ||
      s->workload.steps[step].njobs < 1)
    return;
  const struct job *j = &s->workload.steps[step].jobs[0];
  out->think_s = j->thinktime_s;
  double bs = 0.0;
  for (int i = 0; i < j->nbs; i++)
    bs += j->bs_bytes[i] / j->nbs;
  int nd = s->ndisks > 0 ? s->ndisks : 1;
  const char *lvl = raid_level_names[(int)s->volume.level];
  double chunk = s->volume.chunk_bytes;
  int span = 1;
  if (!strcmp(lvl, "1"))
    span = j->read_frac >= 0.5 ? 1 : nd; /* a mirror reads one copy, writes all */
  else if (chunk > 0 && strcmp(lvl, "single") && strcmp(lvl, "jbod"))
    span = (int)ceil(bs / chunk);
  out->disk_span = span < 1 ? 1 : span > nd ? nd : span;
}

int qnet_per_client(const char *name)
{
  for (const char *q = name; (q = strstr(q, "client")) != NULL; q++)
    if (q[6] >= '0' && q[6] <= '9')
      return 1;
  for (const char *q = name; (q = strstr(q, ".c")) != NULL; q++)
    if (q[2] >= '0' && q[2] <= '9')
      return 1;
  return 0;
}

static int qnet_add(struct qnet *net, const char *name, double d, int servers, double scv)
{
  if (net->nst >= MVA_MAX_STATIONS || !(d > 0))
    return -1;
  struct mva_station *x = &net->st[net->nst];
  snprintf(x->name, sizeof x->name, "%s", name);
  x->demand_s = d;
  x->servers = servers;
  x->scv = scv;
  return net->nst++;
}

/* n stations of equal share of a total demand (a group re-counted). */
static void qnet_spread(struct qnet *net, const char *name, double total, int n, double scv)
{
  int k = qnet_add(net, name, total / n, 1, scv);
  if (k >= 0)
    net->st[k].copies = n;
}

static int qnet_ends_with(const char *s, const char *suffix)
{
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !strcmp(s + a - b, suffix);
}

/* A per-client resource's role: its name with the client number made '#'
 * ("soc.smbd.c#.0", "soc.softirq.c#.0"). */
static void qnet_role(const char *name, char *out, size_t n)
{
  size_t o = 0;
  for (const char *q = name; *q && o + 1 < n; q++) {
    out[o++] = *q;
    int after = (q - name >= 5 && !strncmp(q - 5, "client", 6)) || (q > name && q[-1] == '.' && q[0] == 'c');
    if (after && q[1] >= '0' && q[1] <= '9') {
      if (o + 1 < n)
        out[o++] = '#';
      while (q[1] >= '0' && q[1] <= '9')
        q++;
    }
  }
  out[o] = 0;
}

#define QNET_MAX_ROLES 16

/* What the measured resources add up to, by group. */
struct qnet_sum {
  int ncores, nthreads, nports[2], npc_links[2], ndisks, nroles;
  double port_s[2], pc_link_s[2], disk_s, busy_thread_s, blocked_s;
  char role[QNET_MAX_ROLES][64]; /* per-client thread roles */
  int role_n[QNET_MAX_ROLES];
  double role_s[QNET_MAX_ROLES], role_busy_s[QNET_MAX_ROLES];
};

static void qnet_sum_role(struct qnet_sum *g, const char *name, double d, double busy)
{
  char role[64];
  qnet_role(name, role, sizeof role);
  int k = 0;
  while (k < g->nroles && strcmp(g->role[k], role))
    k++;
  if (k == QNET_MAX_ROLES)
    k = QNET_MAX_ROLES - 1; /* more roles than kept: the last one takes the rest */
  else if (k == g->nroles)
    snprintf(g->role[g->nroles++], sizeof g->role[0], "%s", role);
  g->role_n[k]++;
  g->role_s[k] += d;
  g->role_busy_s[k] += busy;
}

static void qnet_sum(const struct run_result *r, struct qnet_sum *g)
{
  memset(g, 0, sizeof *g);
  uint64_t C = r->all.ios;
  for (int i = 0; i < r->nres; i++) {
    const struct res_resource *x = &r->res[i];
    int dir = qnet_ends_with(x->name, ".rx") ? 0 : 1; /* 0: towards the NAS (for a NAS port) */
    g->ncores += x->kind == RES_CORE;
    if (x->kind == RES_LINK && !strncmp(x->name, "net.nas", 7))
      g->nports[dir]++; /* idle ports count: a client more may use them */
    double d = analysis_demand_s(x, C);
    if (!(d > 0))
      continue;
    if (x->kind == RES_THREAD) {
      g->nthreads++;
      g->busy_thread_s += x->demand_s_per_io;
      if (analysis_blocked(x))
        g->blocked_s += d - x->demand_s_per_io;
      if (qnet_per_client(x->name))
        qnet_sum_role(g, x->name, d, x->demand_s_per_io);
    } else if (x->kind == RES_DISK && !strncmp(x->name, "disk", 4)) {
      g->ndisks++;
      g->disk_s += d;
    } else if (x->kind == RES_LINK && !strncmp(x->name, "net.nas", 7))
      g->port_s[dir] += d;
    else if (x->kind == RES_LINK && qnet_per_client(x->name)) {
      /* a client NIC's tx carries what a NAS port receives */
      g->npc_links[dir ^ 1]++;
      g->pc_link_s[dir ^ 1] += d;
    }
  }
}

int qnet_build(const struct run_result *r, const struct qnet_shape *sh, int clients,
               struct qnet *net)
{
  memset(net, 0, sizeof *net);
  net->think_s = sh->think_s;
  struct qnet_sum g;
  qnet_sum(r, &g);
  int same = clients <= 0 || clients == r->clients || r->clients <= 0;
  double scale = same ? 1.0 : (double)clients / r->clients;
  int copies[QNET_MAX_ROLES], threads = g.nthreads;
  for (int k = 0; k < g.nroles; k++) {
    copies[k] = same ? g.role_n[k] : (int)lround(g.role_n[k] * scale);
    if (copies[k] < 1)
      copies[k] = 1;
    threads += copies[k] - g.role_n[k];
  }
  int pool = g.ncores > 0 && threads > g.ncores;
  uint64_t C = r->all.ios;
  if (pool)
    qnet_add(net, "soc.cpu (threads pooled)", g.busy_thread_s, g.ncores, 1.0);
  /* A thread serves its requests one at a time: a station of its own.
   * Pooled, its CPU time is also in the CPU station, so that part is
   * overlap (the pool's queue is the cores', the thread's the thread's). */
  for (int k = 0; k < g.nroles; k++) {
    qnet_spread(net, g.role[k], g.role_s[k], copies[k], 0.0);
    if (pool)
      net->overlap_s += g.role_busy_s[k];
  }
  if (g.ndisks) {
    int groups = (int)lround((double)g.ndisks / sh->disk_span);
    if (groups < 1)
      groups = 1;
    /* one I/O alone keeps span disks busy for the per-disk demand */
    /* scv 0.5: a drive's service (a transfer plus a positioning bounded by a
     * stroke and a revolution) varies less than an exponential one */
    qnet_spread(net, "member disks", g.disk_s / sh->disk_span, groups, 0.5);
  }
  for (int d = 0; d < 2; d++) {
    int links = (int)lround(g.npc_links[d] * scale);
    if (g.npc_links[d])
      qnet_spread(net, d ? "client NICs in" : "client NICs out", g.pc_link_s[d],
                  links > 0 ? links : 1, 1.0);
    if (same)
      continue;
    int ports = g.nports[d] < clients ? g.nports[d] : clients;
    qnet_spread(net, d ? "NAS ports out" : "NAS ports in", g.port_s[d], ports > 0 ? ports : 1,
                1.0);
  }
  for (int i = 0; i < r->nres; i++) {
    const struct res_resource *x = &r->res[i];
    double d = analysis_demand_s(x, C);
    int pc = qnet_per_client(x->name);
    if (x->kind == RES_CORE || x->kind == RES_CPU ||
        (x->kind == RES_DISK && !strncmp(x->name, "disk", 4)))
      continue;
    if (x->kind == RES_THREAD) {
      if (!pc && qnet_add(net, x->name, d, 1, 0.0) >= 0 && pool)
        net->overlap_s += x->demand_s_per_io;
      continue;
    }
    if (x->kind == RES_LINK && (pc || (!same && !strncmp(x->name, "net.nas", 7))))
      continue;
    qnet_add(net, x->name, d, 1, x->kind == RES_LINK || !strcmp(x->name, "soc.memory") ? 1.0 : 0.0);
  }
  /* the same bytes on the NAS port and the client NIC, at once */
  for (int d = 0; d < 2; d++)
    net->overlap_s += fmin(g.port_s[d], g.pc_link_s[d]);
  net->overlap_s += g.blocked_s;
  return net->nst;
}
