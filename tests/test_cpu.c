/* The processor-sharing model of the NAS cores (sim/engine/cpu.h) against
 * SimGrid 3.32's CPU model and host energy plugin. */
#include <check.h>
#include "ck_run.h"
#include <math.h>

#include "sim/engine/cpu.h"

#define NX 22

struct cpu_probe {
  double now, end[NX];
  int order[NX], n;
};

static void cpu_probe_done(void *ctx, void *tag)
{
  struct cpu_probe *p = ctx;
  int id = *(int *)tag;
  p->end[id] = p->now;
  p->order[p->n++] = id;
}

/* Start execution i (cycles, priority) at start[i] (ascending), process
 * every end: end times and the order of the ends into p. */
static void cpu_probe_run(struct cpu_host *h, struct cpu_probe *p, int n, const double *start, const double *cycles,
                          const double *prio)
{
  static int ids[NX];
  int next = 0;
  for (;;) {
    double t = cpu_next_s(h), ts = next < n ? start[next] : INFINITY;
    if (isinf(t) && isinf(ts))
      break;
    if (ts <= t) {
      ids[next] = next;
      ck_assert_int_eq(cpu_start(h, ts, cycles[next], prio[next], &ids[next]), 0);
      next++;
    } else {
      p->now = t;
      ck_assert_int_eq(cpu_advance(h, t, cpu_probe_done, p), 0);
    }
  }
}

/* A 4-core 1e9 cycles/s host, wattage_per_state "10:12:25"; the
 * executions below (a probe actor per execution: sg_actor_sleep_until its
 * start, sg_actor_execute or sg_actor_execute_with_priority); the end
 * times and the order SimGrid woke the actors in, and the host's energy
 * at the last end.  Up to 7 executions share the 4 cores (priority 2 and
 * a softirq's 1e6 among them); the ties end the last started instant
 * first, then in start order. */
START_TEST(test_cpu_matches_simgrid)
{
  /* in start order: SimGrid's actor i is execution order[i] here */
  const double start[NX] = {0, 0.1, 0.2, 0.2, 0.3, 0.3, 0.35, 3, 3, 3, 3, 3, 3, 3,
                            5, 5.0625, 5.125, 7, 7.0625, 7.0625, 7.0625, 7.125};
  const double cycles[NX] = {1e9, 2e9, 1e9, 5e8, 1e9, 1e9, 3e8, 1e8, 1e8, 1e8, 1e8, 1e8, 1e8, 1e8,
                             2.5e8, 1.875e8, 1.25e8, 2.5e8, 1.875e8, 1.875e8, 1.875e8, 1.25e8};
  const double prio[NX] = {1, 1, 1e6, 1, 1, 2, 1, 1, 1, 1, 1e6, 1e6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const double simgrid[NX] = {1.5, 2.6000000000000001, 1.2, 1.2, 1.7999999999999998, 1.3999999999999999,
                              1.0499999999999998, 3.1749999999999998, 3.1749999999999998, 3.1749999999999998,
                              3.1000000000000001, 3.1000000000000001, 3.1749999999999998, 3.1749999999999998,
                              5.25, 5.25, 5.25, 7.28125, 7.28125, 7.28125, 7.28125, 7.28125};
  const int woke[NX] = {6, 2, 3, 5, 0, 4, 1, 10, 11, 7, 8, 9, 12, 13, 16, 15, 14, 21, 18, 19, 20, 17};
  struct cpu_host *h = cpu_host_create(4, 1e9, 10, 12, 25);
  ck_assert_ptr_nonnull(h);
  struct cpu_probe p = {0};
  cpu_probe_run(h, &p, NX, start, cycles, prio);
  ck_assert_int_eq(p.n, NX);
  for (int i = 0; i < NX; i++)
    ck_assert_msg(fabs(p.end[i] - simgrid[i]) < 1e-12, "execution %d ends at %.17g s, SimGrid %.17g s", i, p.end[i],
                  simgrid[i]);
  for (int i = 0; i < NX; i++)
    ck_assert_msg(p.order[i] == woke[i], "end %d: execution %d, SimGrid woke %d", i, p.order[i], woke[i]);
  ck_assert_msg(fabs(cpu_energy_J(h, 7.28125) - 108.675) < 1e-9, "energy %.12g J, SimGrid 108.675 J",
                cpu_energy_J(h, 7.28125));
  cpu_host_destroy(h);
}
END_TEST

/* The sharing itself at one instant: a softirq (priority 1e6) takes a
 * whole core whatever the processes; 3 processes and one of priority 2
 * share the 3 others by weight, each capped at a core; idle energy. */
START_TEST(test_cpu_weighted_shares)
{
  struct cpu_host *h = cpu_host_create(4, 1e9, 10, 12, 25);
  int ids[6];
  const double prio[6] = {1e6, 1, 1, 1, 2, 1};
  for (int i = 0; i < 6; i++)
    ck_assert_int_eq(cpu_start(h, 0.0, 1e9, prio[i], &ids[i]), 0);
  const double want[6] = {1e9, 0.5e9, 0.5e9, 0.5e9, 1e9, 0.5e9};
  for (int i = 0; i < 6; i++)
    ck_assert_msg(fabs(cpu_rate_of(h, &ids[i]) - want[i]) < 1e-3, "execution %d at %.6g cycles/s, want %.6g", i,
                  cpu_rate_of(h, &ids[i]), want[i]);
  cpu_host_destroy(h);
  h = cpu_host_create(4, 1e9, 10, 12, 25);
  ck_assert_msg(fabs(cpu_energy_J(h, 2.0) - 20.0) < 1e-12, "idle host: %.6g J", cpu_energy_J(h, 2.0));
  ck_assert_int_eq(cpu_start(h, 2.0, 1e9, 1, &ids[0]), 0);
  ck_assert_msg(fabs(cpu_energy_J(h, 3.0) - (20.0 + 12 + 0.25 * 13)) < 1e-12, "one core busy: %.6g J",
                cpu_energy_J(h, 3.0));
  cpu_host_destroy(h);
}
END_TEST

/* What an execution's own timer relies on (cores.c): its end, the next
 * end's tag, and whether every execution has a core of its own (an end
 * then speeds no other up); a third execution on two cores shares them
 * and moves the others' ends later. */
START_TEST(test_cpu_own_timer)
{
  struct cpu_host *h = cpu_host_create(2, 1e9, 10, 12, 25);
  int ids[3], never = 0;
  ck_assert_int_eq(cpu_start(h, 0.0, 2e9, 1, &ids[0]), 0);
  ck_assert_int_eq(cpu_start(h, 0.0, 1e9, 1, &ids[1]), 0);
  ck_assert_msg(cpu_uncontended(h), "2 executions on 2 cores: contended");
  ck_assert_msg(cpu_next_tag(h) == &ids[1], "next end not the shorter execution's");
  ck_assert_msg(fabs(cpu_end_of(h, &ids[0]) - 2.0) < 1e-12 && fabs(cpu_end_of(h, &ids[1]) - 1.0) < 1e-12,
                "ends %.9g %.9g, want 2 1", cpu_end_of(h, &ids[0]), cpu_end_of(h, &ids[1]));
  ck_assert_int_eq(cpu_start(h, 0.0, 1e9, 1, &ids[2]), 0);
  ck_assert_msg(!cpu_uncontended(h), "3 executions on 2 cores: uncontended");
  /* 2/3 core each: the 1e9-cycle ones end at 1.5 s */
  ck_assert_msg(fabs(cpu_end_of(h, &ids[1]) - 1.5) < 1e-12, "end %.9g, want 1.5", cpu_end_of(h, &ids[1]));
  ck_assert_msg(cpu_end_of(h, &never) < 0, "a tag never started has an end");
  cpu_host_destroy(h);
  h = cpu_host_create(2, 1e9, 10, 12, 25);
  ck_assert_msg(cpu_next_tag(h) == NULL && cpu_uncontended(h), "idle host: a next end, or contended");
  cpu_host_destroy(h);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("cpu");
  TCase *tc = tcase_create("sharing");
  tcase_add_test(tc, test_cpu_matches_simgrid);
  tcase_add_test(tc, test_cpu_weighted_shares);
  tcase_add_test(tc, test_cpu_own_timer);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
