/* explain: stations from measured demands, the default scenario's story
 * (smbd's core is the bottleneck, and why), and the operational bound
 * X <= 1/D_max never beaten by a simulation.  Runs NASTWIN_BIN. */
#include <check.h>
#include "ck_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sim/analysis/explain.h"
#include "sim/study/sweep.h"

static char *test_run(const char *args)
{
  char cmd[2048];
  const char *bin = getenv("NASTWIN_BIN");
  ck_assert_msg(bin != NULL, "NASTWIN_BIN is not set");
  snprintf(cmd, sizeof cmd, "%s %s", bin, args);
  FILE *p = popen(cmd, "r");
  ck_assert_msg(p != NULL, "popen %s", cmd);
  size_t cap = 1 << 18, n = 0;
  char *buf = calloc(1, cap);
  n = fread(buf, 1, cap - 1, p);
  buf[n] = 0;
  int st = pclose(p);
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "'%s' failed:\n%s", cmd, buf);
  return buf;
}

START_TEST(test_stations)
{
  static struct run_result r;
  memset(&r, 0, sizeof r);
  const struct {
    enum res_kind kind;
    const char *name;
    double d;
  } res[] = {{RES_THREAD, "t0", 1e-3}, {RES_THREAD, "t1", 1e-3}, {RES_THREAD, "t2", 1e-3},
             {RES_CORE, "soc.core0", 1.5e-3}, {RES_CORE, "soc.core1", 1.5e-3},
             {RES_CPU, "soc.cpu", 1.5e-3}, {RES_DISK, "disk0", 2e-3}, {RES_DISK, "disk1", 2e-3},
             {RES_LINK, "net", 0.5e-3}};
  for (size_t i = 0; i < sizeof res / sizeof res[0]; i++) {
    r.res[i].kind = res[i].kind;
    snprintf(r.res[i].name, sizeof r.res[i].name, "%s", res[i].name);
    r.res[i].demand_s_per_io = res[i].d;
  }
  r.nres = (int)(sizeof res / sizeof res[0]);
  struct mva_station st[8];
  int n = explain_stations(&r, st, 8);
  ck_assert_int_eq(n, 3);
  ck_assert_msg(st[0].servers == 2 && st[0].demand_s == 3e-3, "cpu pool: %d servers, %g s",
                st[0].servers, st[0].demand_s);
  ck_assert_msg(st[1].servers == 2 && st[1].demand_s == 4e-3, "disks: %d servers, %g s",
                st[1].servers, st[1].demand_s);
  ck_assert_msg(st[2].servers == 1 && !strcmp(st[2].name, "net"), "link: %s %d", st[2].name,
                st[2].servers);
}
END_TEST

START_TEST(test_default_story)
{
  char *out = test_run("explain --analytic 2>&1");
  ck_assert_msg(strstr(out, "soc.core0 is the bottleneck"), "core not named:\n%s", out);
  ck_assert_msg(strstr(out, "smbd is single-threaded"), "no why:\n%s", out);
  ck_assert_msg(strstr(out, "X <= 1 / D_max") && strstr(out, "X <= N / (D_total + Z)"),
                "bounds missing:\n%s", out);
  ck_assert_msg(strstr(out, "Next in line:"), "no next bottleneck:\n%s", out);
  ck_assert_msg(strstr(out, "MVA X ="), "no analytic part:\n%s", out);
  free(out);
}
END_TEST

START_TEST(test_bounds_hold)
{
  char args[1024];
  snprintf(args, sizeof args,
           "sweep %s/scenarios/sweeps/bounds-test.yaml -j 4 --quiet",
           getenv("NASTWIN_SOURCE_DIR") ? getenv("NASTWIN_SOURCE_DIR") : NASTWIN_SOURCE_DIR);
  char *csv = test_run(args);
  char *save = NULL;
  char *line = strtok_r(csv, "\n", &save);
  char *cells[32];
  int rows = 0;
  ck_assert_int_eq(sweep_csv_split(line, cells, 32), 10);
  ck_assert_msg(!strcmp(cells[6], "iops") && !strcmp(cells[7], "bound_iops"), "header %s %s",
                cells[6], cells[7]);
  while ((line = strtok_r(NULL, "\n", &save))) {
    ck_assert_int_eq(sweep_csv_split(line, cells, 32), 10);
    double x = atof(cells[6]), b = atof(cells[7]);
    ck_assert_msg(x > 0 && x <= b * 1.01, "point %s: X = %g exceeds 1/D_max = %g", cells[0], x, b);
    rows++;
  }
  ck_assert_int_eq(rows, 8);
  free(csv);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("explain");
  TCase *tu = tcase_create("stations");
  tcase_add_test(tu, test_stations);
  suite_add_tcase(s, tu);
  TCase *tr = tcase_create("runs");
  tcase_set_timeout(tr, 60);
  tcase_add_test(tr, test_default_story);
  tcase_add_test(tr, test_bounds_hold);
  suite_add_tcase(s, tr);
  return ck_run(s);
}
