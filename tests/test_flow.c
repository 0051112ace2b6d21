/* test_flow.c - the fluid network model's stars (sim/engine/flow_star.c):
 * a component of many flows on one bottleneck, timed in virtual time, ends
 * its flows when the re-solve of every flow per event does (the same
 * max-min rates), in the same order, including when it has to give the
 * form up (another constraint or a bound reached) and take it again. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "sim/engine/flow.h"

#define NF 900

struct run {
  double now, end[NF];
  int order[NF], nended;
  int max_stars, lost_star; /* most stars at once; a star given up with flows left */
};

static void run_done(void *ctx, void *tag)
{
  struct run *r = ctx;
  int i = *(int *)tag;
  r->end[i] = r->now;
  r->order[r->nended++] = i;
}

/* NF flows from a fixed pseudo-random draw: a NAS port (constraint 0,
 * 1.25e9 B/s) shared by every flow, 30 client links (1..30, 1.25e8 B/s;
 * client 1 at 5e7: the tighter once its flows outlast others), each
 * flow's bound 2.5e7 B/s (reached as the port's share grows), latency 20
 * us; starts in three bursts. */
static void run_mix(struct run *r, int star_min)
{
  static int ids[NF];
  struct flow_net *fn = flow_net_create(31);
  ck_assert_ptr_nonnull(fn);
  flow_net_stars(fn, star_min);
  flow_cons_set(fn, 0, 1.25e9);
  for (int j = 1; j <= 30; j++)
    flow_cons_set(fn, j, j == 1 ? 5e7 : 1.25e8);
  double start[NF], size[NF];
  unsigned long long x = 12345;
  for (int i = 0; i < NF; i++) {
    ids[i] = i;
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    size[i] = 4096.0 + (double)(x >> 40) / (double)(1ULL << 24) * 1.5e6;
    start[i] = (i / 300) * 0.4 + (i % 300) * 1e-5;
  }
  int next = 0, had = 0;
  for (;;) {
    double t = flow_next_s(fn), ts = next < NF ? start[next] : INFINITY;
    if (isinf(t) && isinf(ts))
      break;
    r->now = ts <= t ? ts : t;
    if (ts <= t) {
      int cons[2] = {1 + next % 30, 0};
      ck_assert_int_eq(flow_start(fn, ts, size[next], cons, 2, 2e-5, 2e-5, 2.5e7, &ids[next]), 0);
      next++;
    } else {
      ck_assert_int_eq(flow_advance(fn, t, run_done, r), 0);
    }
    int s = flow_stars(fn);
    r->max_stars = s > r->max_stars ? s : r->max_stars;
    had |= s > 0;
    if (had && s == 0 && r->nended < NF)
      r->lost_star = 1;
  }
  flow_net_destroy(fn);
}

START_TEST(test_star_ends_as_the_solve)
{
  static struct run solve, star;
  run_mix(&solve, 0);
  run_mix(&star, 64);
  ck_assert_int_eq(solve.nended, NF);
  ck_assert_int_eq(star.nended, NF);
  ck_assert_int_eq(solve.max_stars, 0);
  ck_assert_int_eq(star.max_stars, 1); /* the bursts did run as a star */
  ck_assert_int_eq(star.lost_star, 1); /* and gave it up (bound, client 1) */
  double worst = 0.0;
  for (int i = 0; i < NF; i++) {
    double d = fabs(star.end[i] - solve.end[i]);
    worst = d > worst ? d : worst;
  }
  ck_assert_msg(worst < 1e-12, "a star's end %.3g s off the re-solve's", worst);
  int same = 0;
  for (int i = 0; i < NF; i++)
    same += star.order[i] == solve.order[i];
  ck_assert_int_eq(same, NF);
}
END_TEST

struct order {
  int got[256], n;
};

static void order_done(void *ctx, void *tag)
{
  struct order *o = ctx;
  o->got[o->n++] = *(int *)tag;
}

/* 200 equal flows started at one instant end at one instant, the last
 * started first (SimGrid's order), as a star as in the re-solve. */
START_TEST(test_star_ties_last_started_first)
{
  static int ids[200];
  for (int pass = 0; pass < 2; pass++) {
    struct flow_net *fn = flow_net_create(1);
    flow_net_stars(fn, pass ? 64 : 0);
    flow_cons_set(fn, 0, 1e9);
    int c0[1] = {0};
    for (int i = 0; i < 200; i++) {
      ids[i] = i;
      ck_assert_int_eq(flow_start(fn, 0.0, 8000, c0, 1, 2e-5, 2e-5, 1e9, &ids[i]), 0);
    }
    struct order o = {0};
    int stars = 0;
    while (!isinf(flow_next_s(fn))) {
      flow_advance(fn, flow_next_s(fn), order_done, &o);
      stars = flow_stars(fn) > stars ? flow_stars(fn) : stars;
    }
    ck_assert_int_eq(stars, pass);
    ck_assert_int_eq(o.n, 200);
    for (int i = 0; i < 200; i++)
      ck_assert_int_eq(o.got[i], 199 - i);
    flow_net_destroy(fn);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("flow");
  TCase *tc = tcase_create("stars");
  tcase_add_test(tc, test_star_ends_as_the_solve);
  tcase_add_test(tc, test_star_ties_last_started_first);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
