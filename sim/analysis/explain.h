/* explain.h - the bottleneck of one run told with operational laws. */
#ifndef NASTWIN_EXPLAIN_H
#define NASTWIN_EXPLAIN_H

#include <stdio.h>

#include "sim/config/config.h"
#include "sim/analysis/mva.h"
#include "sim/report/result.h"

/* Queueing stations from a run's measured demands (s per client I/O):
 * every busy thread, link, disk and engine is a single-server station,
 * except that member disks (RES_DISK) form one station with one server
 * per disk and the summed demand, and when more threads are busy than
 * there are cores the threads become one CPU station with one server per
 * core.  Returns the number of stations written (<= max). */
int explain_stations(const struct run_result *r, struct mva_station *st, int max);

/* The same stations re-shaped for `clients` clients (the run had
 * r->clients): per-client resources (names with "client<k>" or ".c<k>.",
 * such as a session thread or a client NIC) keep their summed demand per
 * I/O but become one station with as many servers as those resources
 * would number with `clients` clients; threads still pool onto the cores
 * when they would outnumber them.  clients <= 0 or equal to r->clients:
 * explain_stations.  Returns the number of stations written (<= max). */
int explain_stations_for(const struct run_result *r, int clients, struct mva_station *st,
                         int max);

/* Think time per I/O (s) of a workload step: the first job's thinktime. */
double explain_think_s(const struct scenario *s, int step);

/* The narrative for a student: bottleneck, utilisation, demand, bounds
 * (X <= 1/D_max, X <= N/(D_total+Z)), the bottleneck's share of the
 * response time, what runs on it, what would move it; with analytic = 1
 * also the MVA prediction for the run's population and a few others. */
void explain_text(FILE *out, const struct scenario *s, int step, const struct run_result *r,
                  int analytic);

#endif
