/* The run pool: results land by task whatever the order, a crashing or
 * hanging child becomes a failed result with the reason and its stderr,
 * and the other tasks still complete. */
#include <check.h>
#include "ck_run.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/study/runpool.h"

static void pool_task(void *ctx, int task, struct run_result *out)
{
  (void)ctx;
  switch (task) {
  case 1:
    fprintf(stderr, "about to crash\n");
    abort();
  case 2:
    for (;;)
      pause(); /* hangs until the pool's timeout kills it */
  case 3:
    _exit(7); /* exits without a result */
  default:
    out->simulated_s = 10.0 * task;
    snprintf(out->step, sizeof out->step, "task%d", task);
  }
}

START_TEST(test_failures_are_results)
{
  struct run_result res[6];
  memset(res, 0, sizeof res);
  int failed = runpool_run(6, 2, 1.0, pool_task, NULL, res, NULL);
  ck_assert_int_eq(failed, 3);
  for (int t = 0; t < 6; t++) {
    if (t >= 1 && t <= 3)
      continue;
    ck_assert_msg(!res[t].failed && res[t].simulated_s == 10.0 * t,
                  "task %d: failed %d simulated %g", t, res[t].failed, res[t].simulated_s);
  }
  ck_assert_msg(res[1].failed && strstr(res[1].failure, "crashed (signal 6)") &&
                    strstr(res[1].failure, "about to crash"),
                "crash: %s", res[1].failure);
  ck_assert_msg(res[2].failed && strstr(res[2].failure, "timed out"), "hang: %s", res[2].failure);
  ck_assert_msg(res[3].failed && strstr(res[3].failure, "exited with status 7 without a result"), "exit: %s",
                res[3].failure);
}
END_TEST

START_TEST(test_order_independent_of_jobs)
{
  struct run_result a[8], b[8];
  memset(a, 0, sizeof a);
  memset(b, 0, sizeof b);
  ck_assert_int_eq(runpool_run(8, 1, 1.0, pool_task, NULL, a, NULL), 3);
  ck_assert_int_eq(runpool_run(8, 2, 1.0, pool_task, NULL, b, NULL), 3);
  for (int t = 4; t < 8; t++)
    ck_assert_msg(a[t].simulated_s == b[t].simulated_s && !strcmp(a[t].step, b[t].step), "task %d differs", t);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("runpool");
  TCase *tc = tcase_create("children");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_failures_are_results);
  tcase_add_test(tc, test_order_independent_of_jobs);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
