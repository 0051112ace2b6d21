/* mva.c - exact MVA with multi-server stations (see mva.h).
 *
 * Multi-server station k (m servers) at population n, with p_k(j|n) the
 * probability of j customers there:
 *   R_k(n)   = D_k/m (1 + Q_k(n-1) + sum_{j=0}^{m-2} (m-1-j) p_k(j|n-1))
 *   p_k(j|n) = X(n) D_k / j * p_k(j-1|n-1)             for 1 <= j <= m-1
 *   p_k(0|n) = 1 - (X(n) D_k + sum_{j=1}^{m-1} (m-j) p_k(j|n)) / m
 * (Menasce, Almeida & Dowdy, "Performance by Design", ch. 14), which only
 * keeps p for j < m and is exact for load-dependent rate min(j, m). */
#include "sim/analysis/mva.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int mva_check_n(const struct mva_station *st, int nst, int customers, int max_customers,
                       double think_s, struct nw_err *err);

static int mva_check(const struct mva_station *st, int nst, int customers, double think_s,
                     struct nw_err *err)
{
  return mva_check_n(st, nst, customers, MVA_MAX_CUSTOMERS, think_s, err);
}

int mva_curve(const struct mva_station *st, int nst, int nmax, double think_s, double overlap_s,
              double *X, double *R, struct nw_err *err)
{
  if (mva_check_n(st, nst, nmax, MVA_CURVE_MAX, think_s, err) < 0)
    return -1;
  if (!(overlap_s >= 0.0) || !isfinite(overlap_s))
    return nw_fail(err, NULL, 0, 0, "mva: overlap %g s: must be >= 0", overlap_s);
  double Dsum = 0.0, Dmax = 0.0;
  for (int k = 0; k < nst; k++) {
    if (!(st[k].scv >= 0.0) || !isfinite(st[k].scv))
      return nw_fail(err, NULL, 0, 0, "mva: station '%s' scv %g: must be >= 0", st[k].name,
                     st[k].scv);
    Dsum += st[k].demand_s * (st[k].copies > 1 ? st[k].copies : 1);
    if (st[k].demand_s > Dmax)
      Dmax = st[k].demand_s;
  }
  double xmax = INFINITY;
  for (int k = 0; k < nst; k++)
    if (st[k].servers > 0 && st[k].demand_s > 0 && st[k].servers / st[k].demand_s < xmax)
      xmax = st[k].servers / st[k].demand_s;
  /* An I/O never takes less than its longest stage. */
  if (overlap_s > Dsum - Dmax)
    overlap_s = Dsum - Dmax;
  double *p[MVA_MAX_STATIONS] = {0};
  double Q[MVA_MAX_STATIONS] = {0}, Rk[MVA_MAX_STATIONS], pn[4097];
  int rc = 0;
  for (int k = 0; k < nst; k++)
    if (st[k].servers > 1) {
      if (!(p[k] = calloc((size_t)st[k].servers, sizeof *p[k]))) {
        rc = nw_fail(err, NULL, 0, 0, "mva: out of memory");
        goto done;
      }
      p[k][0] = 1.0;
    }
  double x = 0.0;
  for (int n = 1; n <= nmax; n++) {
    double sum = 0.0;
    for (int k = 0; k < nst; k++) {
      double D = st[k].demand_s;
      int m = st[k].servers;
      if (m == 0)
        Rk[k] = D;
      else if (m == 1) {
        double U = x * D > 1.0 ? 1.0 : x * D;
        Rk[k] = D * (1.0 + Q[k] - U) + U * D * (1.0 + st[k].scv) / 2.0;
      } else {
        double s = 1.0 + Q[k];
        for (int j = 0; j <= m - 2; j++)
          s += (m - 1 - j) * p[k][j];
        Rk[k] = D / m * s;
      }
      sum += Rk[k] * (st[k].copies > 1 ? st[k].copies : 1);
    }
    double cycle = sum + think_s - overlap_s;
    x = cycle > 0 ? n / cycle : 0.0;
    if (x > xmax)
      x = xmax; /* no station beyond utilisation 1 */
    X[n - 1] = x;
    R[n - 1] = x > 0 ? n / x - think_s : sum - overlap_s;
    if (n > 1 && x >= xmax * (1.0 - 1e-7) && x - X[n - 2] <= 1e-9 * x) {
      /* saturated: X stays within 1e-7 of the bound, R follows Little */
      for (int j = n + 1; j <= nmax; j++) {
        X[j - 1] = x;
        R[j - 1] = j / x - think_s;
      }
      break;
    }
    /* the n customers are spread over the stations in proportion to their
     * residence times (the overlap shortens the cycle, not the queues) */
    double qscale = sum + think_s > 0 ? n / (sum + think_s) : 0.0;
    for (int k = 0; k < nst; k++) {
      Q[k] = qscale * Rk[k];
      int m = st[k].servers;
      if (m > 1) {
        double D = st[k].demand_s, s = x * D;
        for (int j = 1; j <= m - 1; j++) {
          pn[j] = x * D / j * p[k][j - 1];
          s += (m - j) * pn[j];
        }
        pn[0] = 1.0 - s / m;
        if (pn[0] < 0.0)
          pn[0] = 0.0;
        memcpy(p[k], pn, (size_t)m * sizeof *pn);
      }
    }
  }
done:
  for (int k = 0; k < nst; k++)
    free(p[k]);
  return rc;
}

static int mva_check_n(const struct mva_station *st, int nst, int customers, int max_customers,
                       double think_s, struct nw_err *err)
{
  if (nst < 0 || nst > MVA_MAX_STATIONS)
    return nw_fail(err, NULL, 0, 0, "mva: %d stations: must be between 0 and %d inclusive", nst,
                   MVA_MAX_STATIONS);
  if (customers < 1 || customers > max_customers)
    return nw_fail(err, NULL, 0, 0, "mva: %d customers: must be between 1 and %d inclusive",
                   customers, max_customers);
  if (!(think_s >= 0.0) || !isfinite(think_s))
    return nw_fail(err, NULL, 0, 0, "mva: think time %g s: must be >= 0", think_s);
  for (int k = 0; k < nst; k++) {
    if (!(st[k].demand_s >= 0.0) || !isfinite(st[k].demand_s))
      return nw_fail(err, NULL, 0, 0, "mva: station '%s' demand %g s: must be >= 0", st[k].name,
                     st[k].demand_s);
    if (st[k].servers < 0 || st[k].servers > 4096)
      return nw_fail(err, NULL, 0, 0,
                     "mva: station '%s' has %d servers: must be between 0 (delay) and 4096",
                     st[k].name, st[k].servers);
  }
  return 0;
}

int mva_solve(const struct mva_station *st, int nst, int customers, double think_s,
              struct mva_result *out, struct nw_err *err)
{
  if (mva_check(st, nst, customers, think_s, err) < 0)
    return -1;
  memset(out, 0, sizeof *out);
  out->customers = customers;
  double D[MVA_MAX_STATIONS];
  int m[MVA_MAX_STATIONS];
  for (int k = 0; k < nst; k++) {
    D[k] = st[k].demand_s;
    m[k] = st[k].servers;
  }
  /* p[k] holds p_k(0..m-1 | n) for multi-server stations. */
  double *p[MVA_MAX_STATIONS] = {0};
  double *pn = NULL;
  int rc = 0;
  int mmax = 1;
  for (int k = 0; k < nst; k++) {
    if (m[k] > 1) {
      p[k] = calloc((size_t)m[k], sizeof *p[k]);
      if (!p[k]) {
        rc = nw_fail(err, NULL, 0, 0, "mva: out of memory");
        goto done;
      }
      p[k][0] = 1.0;
      if (m[k] > mmax)
        mmax = m[k];
    }
  }
  pn = calloc((size_t)mmax, sizeof *pn);
  if (!pn) {
    rc = nw_fail(err, NULL, 0, 0, "mva: out of memory");
    goto done;
  }
  double Q[MVA_MAX_STATIONS] = {0};
  double R[MVA_MAX_STATIONS] = {0};
  double X = 0.0;
  for (int n = 1; n <= customers; n++) {
    double Rsum = 0.0;
    for (int k = 0; k < nst; k++) {
      if (m[k] == 0)
        R[k] = D[k];
      else if (m[k] == 1)
        R[k] = D[k] * (1.0 + Q[k]);
      else {
        double s = 1.0 + Q[k];
        for (int j = 0; j <= m[k] - 2; j++)
          s += (m[k] - 1 - j) * p[k][j];
        R[k] = D[k] / m[k] * s;
      }
      Rsum += R[k];
    }
    double cycle_s = Rsum + think_s;
    X = cycle_s > 0 ? n / cycle_s : 0.0;
    for (int k = 0; k < nst; k++) {
      Q[k] = X * R[k];
      if (m[k] > 1) {
        double s = X * D[k];
        for (int j = 1; j <= m[k] - 1; j++) {
          pn[j] = X * D[k] / j * p[k][j - 1];
          s += (m[k] - j) * pn[j];
        }
        pn[0] = 1.0 - s / m[k];
        if (pn[0] < 0.0)
          pn[0] = 0.0;
        memcpy(p[k], pn, (size_t)m[k] * sizeof *pn);
      }
    }
    out->response_s = Rsum;
  }
  out->throughput_per_s = X;
  for (int k = 0; k < nst; k++) {
    out->residence_s[k] = R[k];
    out->queue[k] = Q[k];
    int servers = st[k].servers > 0 ? st[k].servers : 1;
    out->utilisation[k] = st[k].servers > 0 ? X * st[k].demand_s / servers : 0.0;
  }
done:
  for (int k = 0; k < nst; k++)
    free(p[k]);
  free(pn);
  return rc;
}
