/* MVA: textbook closed networks solved exactly, multi-server stations
 * against a birth-death chain, the curve solver against exact MVA and a
 * stochastic simulation. */
#include <check.h>
#include "ck_run.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <string.h>

#include "sim/analysis/mva.h"

static double mva_x(const struct mva_station *st, int n, int N, double Z)
{
  struct mva_result r;
  struct nw_err err = {0};
  int rc = mva_solve(st, n, N, Z, &r, &err);
  ck_assert_msg(rc == 0, "mva_solve failed: %s", err.msg);
  return r.throughput_per_s;
}

START_TEST(test_single_station)
{
  struct mva_station st[1] = {{.name = "cpu", .demand_s = 0.01, .servers = 1}};
  double x1 = mva_x(st, 1, 1, 0.09);
  ck_assert_msg(fabs(x1 - 10.0) < 1e-12, "X(1) = 1/(D+Z) = 10, got %.15g", x1);
  double x = mva_x(st, 1, 7, 0.0);
  ck_assert_msg(fabs(x - 100.0) < 1e-9, "no think: X(N) = 1/D = 100, got %.15g", x);
  double xbig = mva_x(st, 1, 500, 0.09);
  ck_assert_msg(fabs(xbig - 100.0) < 1e-6, "X(N) -> 1/D for large N, got %.15g", xbig);
  /* light load: X(N) close to N/(D+Z) */
  double x2 = mva_x(st, 1, 2, 10.0);
  ck_assert_msg(x2 < 2 / 10.01 && x2 > 0.99 * 2 / 10.01, "X(2) ~ N/(D+Z), got %.15g", x2);
}
END_TEST

START_TEST(test_two_stations_by_hand)
{
  /* D1 = 1, D2 = 0.5, Z = 0: X(1) = 2/3, X(2) = 6/7, X(3) = 14/15. */
  struct mva_station st[2] = {{.name = "a", .demand_s = 1.0, .servers = 1},
                              {.name = "b", .demand_s = 0.5, .servers = 1}};
  const double want[4] = {0, 2.0 / 3.0, 6.0 / 7.0, 14.0 / 15.0};
  for (int n = 1; n <= 3; n++) {
    double x = mva_x(st, 2, n, 0.0);
    ck_assert_msg(fabs(x - want[n]) < 1e-12, "X(%d) want %.15g got %.15g", n, want[n], x);
  }
  /* Balanced network: K stations of demand D, X(N) = N / ((N + K - 1) D). */
  struct mva_station b[4];
  for (int k = 0; k < 4; k++)
    b[k] = (struct mva_station){.name = "s", .demand_s = 0.002, .servers = 1};
  for (int n = 1; n <= 20; n++) {
    double x = mva_x(b, 4, n, 0.0);
    double w = n / ((n + 3) * 0.002);
    ck_assert_msg(fabs(x - w) < 1e-9 * w, "balanced X(%d) want %.12g got %.12g", n, w, x);
  }
  /* A delay station equals think time. */
  struct mva_station d[2] = {{.name = "a", .demand_s = 1.0, .servers = 1},
                             {.name = "z", .demand_s = 2.0, .servers = 0}};
  double xd = mva_x(d, 2, 5, 0.0), xz = mva_x(d, 1, 5, 2.0);
  ck_assert_msg(fabs(xd - xz) < 1e-12, "delay station %.15g vs think %.15g", xd, xz);
}
END_TEST

START_TEST(test_multiserver_exact)
{
  /* Machine repairman, N = 3, Z = 1, two servers of D = 1: birth-death
   * chain pi = (1, 3, 3, 1.5) / 8.5, X = (3 + 6 + 3) / 8.5. */
  struct mva_station st[1] = {{.name = "pool", .demand_s = 1.0, .servers = 2}};
  double x = mva_x(st, 1, 3, 1.0);
  ck_assert_msg(fabs(x - 12.0 / 8.5) < 1e-12, "X want %.15g got %.15g", 12.0 / 8.5, x);
  /* N <= m: no queueing at all. */
  struct mva_station q[1] = {{.name = "pool", .demand_s = 0.004, .servers = 8}};
  double x4 = mva_x(q, 1, 4, 0.0);
  ck_assert_msg(fabs(x4 - 1000.0) < 1e-9, "4 customers on 8 servers: %.15g", x4);
  double xs = mva_x(q, 1, 400, 0.0);
  ck_assert_msg(fabs(xs - 2000.0) < 1e-9 * 2000.0, "saturation m/D, got %.12g", xs);
}
END_TEST

START_TEST(test_rejections)
{
  struct mva_station st[1] = {{.name = "x", .demand_s = -1.0, .servers = 1}};
  struct mva_result r;
  struct nw_err err = {0};
  ck_assert_int_eq(mva_solve(st, 1, 1, 0.0, &r, &err), -1);
  ck_assert_msg(strstr(err.msg, "'x' demand -1") != NULL, "message: %s", err.msg);
  st[0].demand_s = 1.0;
  ck_assert_int_eq(mva_solve(st, 1, 0, 0.0, &r, &err), -1);
  ck_assert_msg(strstr(err.msg, "0 customers") != NULL, "message: %s", err.msg);
}
END_TEST

/* Simulate the closed network as a continuous-time Markov chain: customers
 * visit stations 0..K-1 in turn, then think (exponential, mean Z). */
static double mva_test_simulate(const struct mva_station *st, int K, int N, double Z, long events)
{
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 12345);
  int n[MVA_MAX_STATIONS + 1] = {0};
  n[K] = N; /* everyone starts thinking */
  double t_s = 0.0, done = 0.0, warm_t_s = 0.0;
  for (long e = 0; e < events; e++) {
    double rate[MVA_MAX_STATIONS + 1], total = 0.0;
    for (int k = 0; k < K; k++) {
      int busy = n[k] < st[k].servers ? n[k] : st[k].servers;
      rate[k] = busy / st[k].demand_s;
      total += rate[k];
    }
    rate[K] = Z > 0 ? n[K] / Z : (n[K] ? 1e12 : 0.0);
    total += rate[K];
    t_s += gsl_ran_exponential(rng, 1.0 / total);
    double u = gsl_rng_uniform(rng) * total;
    int k = 0;
    while (k < K && u >= rate[k])
      u -= rate[k++];
    n[k]--;
    n[(k + 1) % (K + 1)]++;
    if (e == events / 10) {
      warm_t_s = t_s;
      done = 0.0;
    }
    if (k == K - 1)
      done += 1.0;
  }
  gsl_rng_free(rng);
  return done / (t_s - warm_t_s);
}

START_TEST(test_against_simulation)
{
  struct mva_station st[3] = {{.name = "smbd", .demand_s = 1.2e-3, .servers = 1},
                              {.name = "cpu", .demand_s = 2.0e-3, .servers = 4},
                              {.name = "disk", .demand_s = 0.8e-3, .servers = 1}};
  const int Ns[3] = {1, 4, 16};
  for (int i = 0; i < 3; i++) {
    double xm = mva_x(st, 3, Ns[i], 1e-3);
    double xs = mva_test_simulate(st, 3, Ns[i], 1e-3, 400000);
    ck_assert_msg(fabs(xm - xs) < 0.10 * xs, "N=%d: MVA %.6g vs simulated %.6g I/O/s", Ns[i], xm,
                  xs);
    struct mva_station sc[3];
    for (int k = 0; k < 3; k++)
      sc[k] = (struct mva_station){.demand_s = st[k].demand_s, .servers = st[k].servers, .scv = 1.0};
    double X[16], R[16];
    struct nw_err err = {0};
    ck_assert_int_eq(mva_curve(sc, 3, Ns[i], 1e-3, 0.0, X, R, &err), 0);
    double xsd = X[Ns[i] - 1];
    ck_assert_msg(fabs(xsd - xs) < 0.10 * xs, "N=%d: mva_curve %.6g vs simulated %.6g", Ns[i], xsd,
                  xs);
  }
}
END_TEST

START_TEST(test_curve)
{
  /* scv = 1 everywhere: the curve is exact MVA, population by population */
  struct mva_station st[3] = {{.name = "a", .demand_s = 1.2e-3, .servers = 1, .scv = 1.0},
                              {.name = "b", .demand_s = 2.0e-3, .servers = 4, .scv = 1.0},
                              {.name = "c", .demand_s = 0.8e-3, .servers = 1, .scv = 1.0}};
  double X[40], R[40];
  struct nw_err err = {0};
  ck_assert_int_eq(mva_curve(st, 3, 40, 1e-3, 0.0, X, R, &err), 0);
  for (int n = 1; n <= 40; n++) {
    double x = mva_x(st, 3, n, 1e-3);
    ck_assert_msg(fabs(X[n - 1] - x) < 1e-9 * x, "n=%d: curve %.12g, exact %.12g", n, X[n - 1], x);
  }
  /* copies: one station standing for 3 identical ones */
  struct mva_station three[3], one[1] = {{.name = "d", .demand_s = 1e-3, .servers = 1,
                                          .scv = 1.0, .copies = 3}};
  for (int k = 0; k < 3; k++)
    three[k] = (struct mva_station){.name = "d", .demand_s = 1e-3, .servers = 1, .scv = 1.0};
  double X1[20], R1[20];
  ck_assert_int_eq(mva_curve(one, 1, 20, 0.0, 0.0, X1, R1, &err), 0);
  for (int n = 1; n <= 20; n++) {
    double x = mva_x(three, 3, n, 0.0);
    ck_assert_msg(fabs(X1[n - 1] - x) < 1e-9 * x, "copies n=%d: %.12g vs %.12g", n, X1[n - 1], x);
  }
  /* deterministic service: a closed loop of one D station and a delay Z
   * has no queueing until N > (D + Z) / D; MVA with scv = 0 is closer to
   * that than exponential MVA, and never above the bound */
  struct mva_station det[1] = {{.name = "t", .demand_s = 1e-3, .servers = 1, .scv = 0.0}};
  struct mva_station ex[1] = {{.name = "t", .demand_s = 1e-3, .servers = 1, .scv = 1.0}};
  double Xd[8], Rd[8], Xe[8], Re[8];
  mva_curve(det, 1, 8, 3e-3, 0.0, Xd, Rd, &err);
  mva_curve(ex, 1, 8, 3e-3, 0.0, Xe, Re, &err);
  for (int n = 2; n <= 8; n++) {
    ck_assert_msg(Xd[n - 1] > Xe[n - 1], "n=%d deterministic %g <= exponential %g", n, Xd[n - 1],
                  Xe[n - 1]);
    ck_assert_msg(Xd[n - 1] <= 1000.0 + 1e-9, "n=%d: %g above 1/D", n, Xd[n - 1]);
  }
  /* overlap: two stations the I/O holds at once cost the larger alone at
   * N = 1, and the bound 1/D_max still holds at large N */
  struct mva_station ov[2] = {{.name = "port", .demand_s = 2e-3, .servers = 1, .scv = 1.0},
                              {.name = "nic", .demand_s = 1e-3, .servers = 1, .scv = 1.0}};
  double Xo[500], Ro[500];
  ck_assert_int_eq(mva_curve(ov, 2, 500, 0.0, 1e-3, Xo, Ro, &err), 0);
  ck_assert_msg(fabs(Ro[0] - 2e-3) < 1e-12, "R(1) = %g, want the larger demand", Ro[0]);
  ck_assert_msg(Xo[499] <= 500.0 + 1e-9 && Xo[499] > 490.0, "X(500) = %g, bound 500", Xo[499]);
  /* bad input */
  ck_assert_int_eq(mva_curve(ov, 2, MVA_CURVE_MAX + 1, 0.0, 0.0, Xo, Ro, &err), -1);
  ck_assert_int_eq(mva_curve(ov, 2, 10, 0.0, -1.0, Xo, Ro, &err), -1);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("mva");
  TCase *tc = tcase_create("textbook");
  tcase_add_test(tc, test_single_station);
  tcase_add_test(tc, test_two_stations_by_hand);
  tcase_add_test(tc, test_multiserver_exact);
  tcase_add_test(tc, test_rejections);
  tcase_add_test(tc, test_curve);
  suite_add_tcase(s, tc);
  TCase *ts = tcase_create("simulation");
  tcase_add_test(ts, test_against_simulation);
  suite_add_tcase(s, ts);
  return ck_run(s);
}
