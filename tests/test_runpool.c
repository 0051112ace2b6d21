/* The run pool: results land by task whatever the order, a crashing or
 * hanging child becomes a failed result with the reason and its stderr,
 * and the other tasks still complete. */
#define _XOPEN_SOURCE 700 /* posix_openpt, ptsname */
#define _DEFAULT_SOURCE /* usleep */
#include <check.h>
#include "ck_run.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
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

/* The bar's text: the share done, the counts and an ETA from the rate so far. */
START_TEST(test_meter_line)
{
  char line[160];
  runpool_meter_line(3, 10, 2, 15.0, line, sizeof line);
  ck_assert_str_eq(line, "[#########.....................] 3/10 simulations, 15 s elapsed, ETA 35 s");
  runpool_meter_line(0, 1, 1, 4.0, line, sizeof line);
  ck_assert_str_eq(line, "[..............................] 0/1 simulations, 1 running, 4 s elapsed, ETA after the first");
}
END_TEST

static void slow_task(void *ctx, int task, struct run_result *out)
{
  (void)ctx;
  usleep(1200000); /* 1.2 s: two in a row pass the bar's 2 s threshold */
  snprintf(out->step, sizeof out->step, "slow%d", task);
}

/* Run two slow tasks one at a time with stderr on fd; return what the
 * pool wrote there (read back through rd). */
static void meter_run(int fd, int rd, char *got, size_t len)
{
  int saved = dup(2);
  dup2(fd, 2);
  struct run_result res[2];
  memset(res, 0, sizeof res);
  int failed = runpool_run(2, 1, 0.0, slow_task, NULL, res, NULL);
  dup2(saved, 2);
  close(saved);
  ck_assert_int_eq(failed, 0);
  size_t n = 0;
  struct pollfd p = {.fd = rd, .events = POLLIN};
  while (n + 1 < len && poll(&p, 1, 100) > 0) {
    ssize_t r = read(rd, got + n, len - 1 - n);
    if (r <= 0)
      break;
    n += (size_t)r;
  }
  got[n] = '\0';
}

/* On a terminal (a pty) a pool longer than 2 s draws the bar with an ETA
 * and erases it at the end. */
START_TEST(test_meter_on_tty)
{
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  ck_assert_msg(master >= 0, "posix_openpt failed");
  ck_assert(grantpt(master) == 0 && unlockpt(master) == 0);
  int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  ck_assert(slave >= 0);
  static char got[8192];
  meter_run(slave, master, got, sizeof got);
  const char *bar = strstr(got, "\r[###############...............] 1/2 simulations, ");
  ck_assert_msg(bar != NULL && strstr(bar, " s elapsed, ETA ") != NULL, "tty got: '%s'", got);
  ck_assert_msg(strstr(got, "\r\033[K") != NULL, "the bar is not erased: '%s'", got);
  close(slave);
  close(master);
}
END_TEST

/* Not a terminal: not one byte, so redirected outputs stay byte-identical. */
START_TEST(test_meter_not_on_pipe)
{
  int fds[2];
  ck_assert(pipe(fds) == 0);
  static char got[8192];
  meter_run(fds[1], fds[0], got, sizeof got);
  ck_assert_msg(got[0] == '\0', "pipe got: '%s'", got);
  close(fds[0]);
  close(fds[1]);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("runpool");
  TCase *tc = tcase_create("children");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_failures_are_results);
  tcase_add_test(tc, test_order_independent_of_jobs);
  tcase_add_test(tc, test_meter_line);
  tcase_add_test(tc, test_meter_on_tty);
  tcase_add_test(tc, test_meter_not_on_pipe);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
