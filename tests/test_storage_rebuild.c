/* Storage stack at scale: an 8 x 14 TB RAID-6 rebuild must be cheap in
 * events (windows of MiBs), and still exact in simulated time.  Same
 * FIFO fake devices as test_stack.c. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "storage_harness.c.inc"

#define GiB (1024.0 * 1024.0 * 1024.0)

/* ---- tests ------------------------------------------------------------- */

START_TEST(test_big_rebuild_events)
{
  /* 8 x 14 TB RAID-6 rebuild: windows of MiBs keep it to ~10^6 events */
  struct stack_cfg c;
  env_defaults(&c);
  c.volume.level = 5;
  c.member_bytes = 14000000000000ull;
  struct accel eng;
  accel_init(&eng, "raid6", 2e9, 0);
  c.parity_engine = &eng;
  struct env *e = env_new(&c, 8, 1e-3, 250e6);
  struct stack_op_cfg op = {.kind = STACK_OP_REBUILD, .failed_member = 3};
  struct nw_err err;
  clock_t t0 = clock();
  ck_assert_int_eq(stack_start_op(e->s, 0.0, &op, &err), 0);
  env_run(e, INFINITY);
  double wall = (double)(clock() - t0) / CLOCKS_PER_SEC;
  struct stack_op_report r;
  stack_op_get(e->s, 0, &r);
  double want = 14e12 / (200000.0 * 1024); /* speed_limit_max < 250 MB/s */
  ck_assert_msg(fabs((r.end_s - r.start_s) / want - 1) < 0.02, "14 TB rebuild %g s, want %g s",
                r.end_s - r.start_s, want);
  ck_assert_msg(wall < 5.0, "14 TB rebuild took %g s of wall time", wall);
  env_free(e);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("storage_rebuild");
  TCase *tc = tcase_create("scale");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_big_rebuild_events);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
