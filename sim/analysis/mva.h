/* mva.h - mean-value analysis of a closed single-class network: the
 * approximate whole-curve solver the analytic sweep and explain use
 * (mva_curve), and the exact one it is checked against (mva_solve).
 *
 * N customers (outstanding I/Os) circulate through K queueing stations
 * with service demands D_k (seconds of service per I/O at station k,
 * visits folded in) and a delay station (think time Z, seconds).  A
 * station may have m_k > 1 identical servers (a CPU pool, a set of
 * equivalent member disks): it is solved exactly with load-dependent MVA
 * (Reiser & Lavenberg 1980; rate min(j, m) with j customers present,
 * marginal queue-length probabilities carried from n-1 to n).  Single-server
 * stations use the classic recursion R = D (1 + Q(n-1)).  Pure C. */
#ifndef NASTWIN_MVA_H
#define NASTWIN_MVA_H

#include "base/err.h"

#define MVA_MAX_STATIONS 64
#define MVA_MAX_CUSTOMERS 4096

struct mva_station {
  char name[64];
  double demand_s; /* total service demand per customer cycle (s), >= 0 */
  int servers;     /* >= 1; 0 = a delay station (infinite servers) */
  double scv;      /* mva_curve only: squared coefficient of variation of one
                    * service at a single-server FCFS station (0 deterministic,
                    * 1 exponential or processor sharing) */
  int copies;      /* mva_curve only: identical stations this one stands for,
                    * each with this demand (one per client, per disk group);
                    * 0 or 1: one */
};

struct mva_result {
  int customers;
  double throughput_per_s;                /* X(N), cycles (I/Os) per second */
  double response_s;                      /* R(N): sum of station residence times (no think) */
  double residence_s[MVA_MAX_STATIONS];   /* R_k(N) (s) */
  double queue[MVA_MAX_STATIONS];         /* mean customers at k, Q_k(N) */
  double utilisation[MVA_MAX_STATIONS];   /* per server: X D_k / m_k */
};

/* Solve the network for N customers (1..MVA_MAX_CUSTOMERS) and think time
 * think_s (s, >= 0).  0, or -1 with err naming the bad value. */
int mva_solve(const struct mva_station *st, int nst, int customers, double think_s,
              struct mva_result *out, struct nw_err *err);

/* The whole curve X(n), R(n) for n = 1..nmax in one pass (O(nmax K)),
 * for the analytic sweep, which reads many populations off one network.
 * Approximate MVA for general service: at a single-server station the
 * customer found in service has a mean residual D (1 + scv) / 2 instead
 * of D (Reiser's correction; scv = 1 is exact MVA), multi-server stations
 * are load-dependent (rate min(j, m)), exactly as mva_solve.  overlap_s
 * (>= 0) is time counted at two stations that one I/O spends at both at
 * once (the same bytes on the NAS port and the client NIC, a thread
 * blocked while the disk serves its read): subtracted from every cycle,
 * never below the largest single demand.  Once X is within 1e-7 of the
 * bound 1/D_max and no longer moves, the rest of the curve is that X and
 * R = n / X - Z (Little).  X[n-1] (I/O per s) and R[n-1]
 * (s, without think time); 0, or -1 with err. */
#define MVA_CURVE_MAX 65536
int mva_curve(const struct mva_station *st, int nst, int nmax, double think_s, double overlap_s,
              double *X, double *R, struct nw_err *err);

#endif
