/* size: a question over RAID level and drive model with a cost, answered
 * by exhaustive search of the lists (branch and bound) and bisection of a
 * range: the answer meets the target, costs no more than any evaluated
 * configuration that meets it, and a "why not" names what caps the best
 * failing one.  Bad options exit 2.  Runs NASTWIN_BIN. */
#include <check.h>
#include "ck_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *test_src(void)
{
  const char *s = getenv("NASTWIN_SOURCE_DIR");
  return s ? s : NASTWIN_SOURCE_DIR;
}

static char *test_out(const char *args, int *status)
{
  char cmd[4096];
  const char *bin = getenv("NASTWIN_BIN");
  ck_assert_msg(bin != NULL, "NASTWIN_BIN is not set");
  snprintf(cmd, sizeof cmd, "%s %s 2>&1", bin, args);
  FILE *p = popen(cmd, "r");
  ck_assert_msg(p != NULL, "popen %s", cmd);
  size_t cap = 1 << 18;
  char *buf = calloc(1, cap);
  size_t n = fread(buf, 1, cap - 1, p);
  buf[n] = 0;
  int st = pclose(p);
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return buf;
}

/* The price of a configuration line under the test's --price values. */
static double test_price(const char *line)
{
  const char *d = strstr(line, "disks.drive="), *c = strstr(line, "disks.count=");
  if (!d || !c)
    return -1;
  double drive = !strncmp(d + 12, "wd-re-4tb", 9) ? 10.0 : 100.0;
  return 1000.0 + atof(c + 12) * drive;
}

START_TEST(test_raid_and_drive)
{
  char args[2048];
  snprintf(args, sizeof args,
           "size %s/scenarios/default.yaml --target 'read_MBps>=520' --set time=1s "
           "--vary volume.level=5,6,10 --vary disks.drive=ocz-vector-120,wd-re-4tb "
           "--vary disks.count=4..8 --price ds2015xs=1000 --price ocz-vector-120=100 "
           "--price wd-re-4tb=10",
           test_src());
  int st;
  char *out = test_out(args, &st);
  ck_assert_msg(st == 0, "exit %d:\n%s", st, out);
  const char *ans = strstr(out, "\nanswer (");
  ck_assert_msg(ans != NULL, "no answer:\n%s", out);
  double best = test_price(ans);
  ck_assert_msg(best > 0, "answer without drive and count:\n%s", out);
  const char *cost = strstr(ans, "price: ");
  ck_assert_msg(cost && atof(cost + 7) == best, "reported price vs %g:\n%s", best, out);
  int meets = 0, lists = 0;
  char *save = NULL;
  for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (strstr(line, "eval ") && strstr(line, " meets")) {
      meets++;
      ck_assert_msg(test_price(line) >= best, "cheaper than the answer (%g): %s", best, line);
    }
    lists += strstr(line, "eval ") && strstr(line, "disks.count=8") != NULL;
    /* every combination is real hardware, and the shipped calibration
     * must reach each drive as that drive (not the base scenario's) */
    ck_assert_msg(!strstr(line, "invalid configuration"), "%s", line);
    if (!strncmp(line, "why not ", 8))
      ck_assert_msg(strstr(line, "what caps it:"), "%s", line);
  }
  ck_assert_msg(meets >= 1, "nothing met");
  ck_assert_msg(lists >= 6, "not every RAID level x drive simulated: %d", lists);
  free(out);
}
END_TEST

START_TEST(test_bad_options)
{
  const char *bad[] = {"size x.yaml --target 'read_MBps>=1' --vary volume.level=5 --objective cheap",
                       "size x.yaml --target 'read_MBps>=1' --vary volume.level=5 --price ds2015xs=-3",
                       "size x.yaml --target 'read_MBps>=1' --vary volume.level=",
                       "size x.yaml --target 'nonsense>=1' --vary disks.count=2..4"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int st;
    char *out = test_out(bad[i], &st);
    ck_assert_msg(st == 2 && strstr(out, "error:"), "'%s': exit %d:\n%s", bad[i], st, out);
    free(out);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("size");
  TCase *tc = tcase_create("search");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_raid_and_drive);
  tcase_add_test(tc, test_bad_options);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
