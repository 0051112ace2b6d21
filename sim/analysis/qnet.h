/* qnet.h - the closed queueing network of one run, from its measured demands.
 *
 * One place turns a run_result into MVA stations, for explain and for the
 * analytic sweep alike.  Every station's demand is a measured busy (or, for
 * a thread holding requests while blocked, occupied) time per client I/O:
 *  - a thread is a single-server FCFS station (deterministic service: the
 *    CPU cycles of a request do not vary); when the threads outnumber the
 *    cores they pool onto one load-dependent station with one server per
 *    core (rate min(j, cores)).  A thread blocked in a synchronous read is a
 *    station of its occupancy: it serves one request at a time;
 *  - member disks: an I/O of span k (the members one request touches at
 *    once, a fork-join over a stripe) makes the ndisks members behave as
 *    round(ndisks / k) independent stations of the per-disk demand, so one
 *    I/O alone takes the per-disk time, not the sum over the members;
 *  - links are processor-sharing stations (SimGrid shares a link's bandwidth
 *    among its flows), per NAS port and per client NIC;
 *  - the same bytes cross the NAS port and the client NIC at once, and a
 *    blocked thread waits while the disk works: that time is counted at two
 *    stations, so the smaller of each pair is the network's overlap_s, taken
 *    off every cycle (mva_curve);
 *  - think time is a delay centre.
 * For another client count the per-client threads and NICs are re-counted
 * (the total demand per I/O stays), and the NAS ports share the load over
 * as many of them as the clients can use.  Pure: no simulation here. */
#ifndef NASTWIN_QNET_H
#define NASTWIN_QNET_H

#include "sim/analysis/mva.h"
#include "sim/config/config.h"
#include "sim/report/result.h"

struct qnet_shape {
  int disk_span;  /* member disks one I/O keeps busy at once, >= 1 */
  double think_s; /* think time per I/O (delay centre, s) */
};

struct qnet {
  struct mva_station st[MVA_MAX_STATIONS];
  int nst;
  double overlap_s; /* demand counted twice per I/O (s), see above */
  double think_s;
};

/* The shape of workload step `step` of a scenario (its first job). */
void qnet_shape_of(const struct scenario *s, int step, struct qnet_shape *out);

/* The network of run r re-shaped for `clients` clients (<= 0: r->clients).
 * Returns the number of stations (0: nothing was busy). */
int qnet_build(const struct run_result *r, const struct qnet_shape *sh, int clients,
               struct qnet *net);

/* A resource that exists once per client ("net.client3.nic0.rx", "soc.smbd.c2.0"). */
int qnet_per_client(const char *name);

#endif
