/* Sweeps: grid expansion (golden), parse errors, CSV identical whatever
 * -j and sharding, and an interrupted sweep resumed without losing or
 * repeating a point.  Runs the binary named by NASTWIN_BIN. */
#include <check.h>
#include "ck_run.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/study/sweep.h"
#include "sim/study/sweep_mva.h"

static const char *test_src(void)
{
  const char *s = getenv("NASTWIN_SOURCE_DIR");
  return s ? s : NASTWIN_SOURCE_DIR;
}

static char *test_slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  static const size_t cap = 1 << 20;
  char *buf = calloc(1, cap);
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static int test_sh(const char *fmt, const char *a, const char *b, const char *c)
{
  char cmd[4096];
  const char *bin = getenv("NASTWIN_BIN");
  ck_assert_msg(bin != NULL, "NASTWIN_BIN is not set");
  snprintf(cmd, sizeof cmd, fmt, bin, a, b, c);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(test_expansion_golden)
{
  char path[1024], golden[1024];
  snprintf(path, sizeof path, "%s/scenarios/sweeps/tiny-sweep.yaml", test_src());
  snprintf(golden, sizeof golden, "%s/tests/sweep/tiny-sweep.points", test_src());
  struct sweep sw;
  struct nw_err err = {0};
  ck_assert_msg(sweep_load(path, &sw, &err) == 0, "load: %s", err.msg);
  ck_assert_int_eq(sw.npoints, 6);
  ck_assert_int_eq(sweep_ncols(&sw), 3);
  char *got = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&got, &len);
  sweep_print_points(m, &sw);
  fclose(m);
  char *want = test_slurp(golden);
  ck_assert_msg(want != NULL, "cannot read %s", golden);
  /* the golden's base line is relative to the source tree */
  const char *gp = strstr(got, ", 6 point(s)"), *wp = strstr(want, ", 6 point(s)");
  ck_assert_msg(gp && wp && !strcmp(gp, wp), "expansion differs:\n%s\nwant:\n%s", got, want);
  struct cfg_set sets[16];
  int n = sweep_point_sets(&sw, 5, sets, 16);
  ck_assert_int_eq(n, 4);
  ck_assert_msg(!strcmp(sets[0].path, "network.mtu") && !strcmp(sets[0].value, "9000"), "set 0 %s=%s",
                sets[0].path, sets[0].value);
  ck_assert_msg(!strcmp(sets[1].value, "3") && !strcmp(sets[2].value, "6") &&
                    !strcmp(sets[3].value, "5"),
                "point 5: %s %s %s", sets[1].value, sets[2].value, sets[3].value);
  free(got);
  free(want);
  sweep_free(&sw);
}
END_TEST

static void test_bad(const char *yaml, const char *needle)
{
  struct nw_err err = {0};
  struct ynode *root = ytree_load_string(yaml, strlen(yaml), "bad.yaml", &err);
  ck_assert_msg(root != NULL, "yaml: %s", err.msg);
  struct sweep sw;
  int rc = sweep_parse(root, ".", &sw, &err);
  ytree_free(root);
  ck_assert_msg(rc == -1, "'%s' should be refused", yaml);
  ck_assert_msg(strstr(err.msg, needle) != NULL, "message for '%s' lacks '%s': %s", yaml, needle,
                err.msg);
  ck_assert_int_gt(err.line, 0);
}

START_TEST(test_parse_errors)
{
  test_bad("axes: [{path: a, values: [1]}]", "'base: SCENARIO.yaml' is required");
  test_bad("base: x.yaml\naxes: []", "'axes' must be a non-empty list");
  test_bad("base: x.yaml\naxes: [{path: a, values: [1], step: 2}]", "unknown key 'step'");
  test_bad("base: x.yaml\naxes: [{zip: [{path: a, values: [1, 2]}, {path: b, values: [1]}]}]",
           "equal lengths: 1 values here, 2 in the first");
  test_bad("base: x.yaml\naxes: [{path: a, values: [1]}]\nmetrics: [speed]", "unknown metric 'speed'");
  test_bad("base: x.yaml\naxes: [{path: a, range: [1, 2GHz, 1]}]", "must be a plain number");
  test_bad("base: x.yaml\nbogus: 1\naxes: [{path: a, values: [1]}]", "unknown key 'bogus'");
}
END_TEST

START_TEST(test_csv_split_row)
{
  char line[] = "3,1,\"a,\"\"b\"\"\",x,,9";
  char *cells[8];
  int n = sweep_csv_split(line, cells, 8);
  ck_assert_int_eq(n, 6);
  ck_assert_msg(!strcmp(cells[2], "a,\"b\"") && !strcmp(cells[4], "") && !strcmp(cells[5], "9"),
                "cells: [%s] [%s] [%s]", cells[2], cells[4], cells[5]);
  long p;
  int st;
  ck_assert_int_eq(sweep_row_key("12,3,job", &p, &st), 0);
  ck_assert_msg(p == 12 && st == 3, "key %ld %d", p, st);
  ck_assert_int_eq(sweep_row_key("x,3,job", &p, &st), -1);
}
END_TEST

/* An input that opens but cannot be read (a directory) stops the merge: its
 * rows must not silently go missing from the merged CSV. */
START_TEST(test_merge_unreadable)
{
  char in[] = "/tmp/nastwin_merge_in_XXXXXX", out[] = "/tmp/nastwin_merge_out_XXXXXX";
  int fd = mkstemp(in), fo = mkstemp(out);
  ck_assert(fd >= 0 && fo >= 0);
  close(fo);
  FILE *f = fdopen(fd, "w");
  fputs("point,step,x\n0,0,a\n", f);
  fclose(f);
  char *paths[] = {in, "/tmp"};
  struct nw_err err = {0};
  ck_assert_int_eq(sweep_merge(out, 1, paths, &err), 0);
  ck_assert_int_eq(sweep_merge(out, 2, paths, &err), -1);
  ck_assert_msg(!strcmp(err.file, "/tmp") && strstr(err.msg, "merge: cannot read: "), "%s: %s",
                err.file, err.msg);
  unlink(in);
  unlink(out);
}
END_TEST

START_TEST(test_jobs_and_shards_identical)
{
  char dir[] = "/tmp/nastwin-sweep-XXXXXX";
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp");
  char sw[1024];
  snprintf(sw, sizeof sw, "%s/scenarios/sweeps/tiny-sweep.yaml", test_src());
  ck_assert_int_eq(test_sh("%s sweep %s -j 1 --quiet --csv %s/j1.csv", sw, dir, ""), 0);
  ck_assert_int_eq(test_sh("%s sweep %s -j 3 --quiet --csv %s/j3.csv --json %s/j3.json", sw, dir, dir), 0);
  ck_assert_int_eq(test_sh("%s sweep %s -j 2 --quiet --shard 0/2 --csv %s/s0.csv", sw, dir, ""), 0);
  ck_assert_int_eq(test_sh("%s sweep %s -j 2 --quiet --shard 1/2 --csv %s/s1.csv", sw, dir, ""), 0);
  ck_assert_int_eq(test_sh("%s merge %s/merged.csv %s/s1.csv %s/s0.csv", dir, dir, dir), 0);
  char p[1200];
  snprintf(p, sizeof p, "%s/j1.csv", dir);
  char *a = test_slurp(p);
  snprintf(p, sizeof p, "%s/j3.csv", dir);
  char *b = test_slurp(p);
  snprintf(p, sizeof p, "%s/merged.csv", dir);
  char *c = test_slurp(p);
  snprintf(p, sizeof p, "%s/j3.json", dir);
  char *j = test_slurp(p);
  ck_assert_msg(a && b && c && j, "missing outputs in %s", dir);
  ck_assert_msg(!strcmp(a, b), "-j 1 vs -j 3 differ:\n%s\n---\n%s", a, b);
  ck_assert_msg(!strcmp(a, c), "-j 1 vs merged shards differ:\n%s\n---\n%s", a, c);
  int lines = 0;
  for (const char *q = a; *q; q++)
    lines += *q == '\n';
  ck_assert_msg(lines == 7, "header + 6 rows expected, got %d lines:\n%s", lines, a);
  ck_assert_msg(strstr(j, "\"clients.count\": 3") && strstr(j, "\"status\": \"ok\""), "json:\n%s", j);
  snprintf(p, sizeof p, "%s/j1.csv.partial", dir);
  ck_assert_msg(access(p, F_OK) != 0, "journal %s should be gone after success", p);
  free(a);
  free(b);
  free(c);
  free(j);
  test_sh("rm -rf %s%s%s", dir, "", "");
}
END_TEST

static int test_journal_rows(const char *path)
{
  char *t = test_slurp(path);
  if (!t)
    return 0;
  int n = 0;
  for (const char *q = t; *q; q++)
    n += *q == '\n';
  free(t);
  return n - 1;
}

START_TEST(test_kill_and_resume)
{
  char dir[] = "/tmp/nastwin-resume-XXXXXX";
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp");
  char sw[1024], csv[1200], journal[1300], full[1200];
  snprintf(sw, sizeof sw, "%s/scenarios/sweeps/resume-test.yaml", test_src());
  snprintf(csv, sizeof csv, "%s/out.csv", dir);
  snprintf(journal, sizeof journal, "%s.partial", csv);
  snprintf(full, sizeof full, "%s/full.csv", dir);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    setpgid(0, 0); /* its own group: the kill reaches the run pool's children too */
    execl(getenv("NASTWIN_BIN"), "nastwin", "sweep", sw, "-j", "2", "--quiet", "--csv", csv,
          (char *)NULL);
    _exit(127);
  }
  setpgid(pid, pid);
  int rows = 0;
  for (int i = 0; i < 2000 && rows < 3; i++) {
    struct timespec ts = {0, 5000000};
    nanosleep(&ts, NULL);
    rows = test_journal_rows(journal);
  }
  kill(-pid, SIGKILL);
  int st;
  waitpid(pid, &st, 0);
  ck_assert_msg(rows >= 3, "journal never reached 3 rows (%d)", rows);
  ck_assert_msg(access(csv, F_OK) != 0, "no CSV may exist after the kill");
  int before = test_journal_rows(journal);
  ck_assert_msg(before < 12, "the sweep finished before the kill (%d rows)", before);
  ck_assert_int_eq(test_sh("%s sweep %s -j 2 --quiet --resume --csv %s", sw, csv, ""), 0);
  ck_assert_int_eq(test_sh("%s sweep %s -j 4 --quiet --csv %s", sw, full, ""), 0);
  char *a = test_slurp(csv), *b = test_slurp(full);
  ck_assert_msg(a && b, "outputs missing");
  ck_assert_msg(!strcmp(a, b), "resumed CSV differs from a clean run:\n%s\n---\n%s", a, b);
  /* every point exactly once, in order */
  char *save = NULL;
  int expect = 0;
  strtok_r(a, "\n", &save);
  for (char *line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    long p;
    int s;
    ck_assert_int_eq(sweep_row_key(line, &p, &s), 0);
    ck_assert_msg(p == expect, "row for point %ld where %d was expected", p, expect);
    expect++;
  }
  ck_assert_int_eq(expect, 12);
  free(a);
  free(b);
  test_sh("rm -rf %s%s%s", dir, "", "");
}
END_TEST

START_TEST(test_analytic)
{
  char dir[] = "/tmp/nastwin-analytic-XXXXXX";
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp");
  char sw[1024], p[1200];
  snprintf(sw, sizeof sw, "%s/scenarios/sweeps/resume-test.yaml", test_src());
  ck_assert_int_eq(test_sh("%s sweep %s --analytic --quiet --csv %s/a.csv", sw, dir, ""), 0);
  snprintf(p, sizeof p, "%s/a.csv", dir);
  char *a = test_slurp(p);
  ck_assert_msg(a != NULL, "no %s", p);
  ck_assert_msg(strstr(a, ",source,from_point,iops,all_MBps,lat_mean_ms,bottleneck,mva_iops,") != NULL,
                "header: %.300s", a);
  /* 12 points, k = 10: two anchors from a Latin hypercube (one per half of
   * the client axis, one per block size), the other 10 predicted */
  int sim = 0, mva = 0, rows = 0, bs_seen[2] = {0}, half_seen[2] = {0};
  char *save = NULL;
  strtok_r(a, "\n", &save);
  for (char *line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    long pt;
    int st;
    ck_assert_int_eq(sweep_row_key(line, &pt, &st), 0);
    ck_assert_msg(pt == rows, "row for point %ld where %d was expected", pt, rows);
    rows++;
    if (strstr(line, ",sim,")) {
      sim++;
      bs_seen[pt % 2]++;
      half_seen[pt / 2 >= 3]++;
    } else if (strstr(line, ",mva,"))
      mva++;
  }
  ck_assert_msg(rows == 12 && sim == 2 && mva == 10, "rows %d sim %d mva %d", rows, sim, mva);
  ck_assert_msg(bs_seen[0] == 1 && bs_seen[1] == 1 && half_seen[0] == 1 && half_seen[1] == 1,
                "anchors not stratified: bs %d/%d, client halves %d/%d", bs_seen[0], bs_seen[1],
                half_seen[0], half_seen[1]);
  free(a);
  /* deterministic */
  ck_assert_int_eq(test_sh("%s sweep %s --analytic --quiet --csv %s/b.csv", sw, dir, ""), 0);
  char q[1200];
  snprintf(p, sizeof p, "%s/a.csv", dir);
  snprintf(q, sizeof q, "%s/b.csv", dir);
  a = test_slurp(p);
  char *b = test_slurp(q);
  ck_assert_msg(a && b && !strcmp(a, b), "two --analytic runs differ");
  free(a);
  free(b);
  test_sh("rm -rf %s%s%s", dir, "", "");
}
END_TEST

START_TEST(test_anchors_stratified)
{
  /* 10 clients x 5 depths x 2 RAID levels (innermost): every 4th point
   * would simulate RAID-5 only; the Latin hypercube gives each value of
   * every axis its share of the 25 anchors. */
  static struct sweep sw;
  memset(&sw, 0, sizeof sw);
  const char *paths[3] = {"clients.count", "workload.iodepth", "volume.level"};
  const int nv[3] = {10, 5, 2};
  sw.ngroups = 3;
  sw.npoints = 100;
  for (int g = 0; g < 3; g++) {
    sw.groups[g].npaths = 1;
    snprintf(sw.groups[g].path[0], sizeof sw.groups[g].path[0], "%s", paths[g]);
    sw.groups[g].nvalues = nv[g];
  }
  unsigned char anchor[100] = {0};
  long n = sweep_mva_anchors(&sw, 4, anchor);
  ck_assert_msg(n >= 20 && n <= 25, "%ld anchors", n);
  int count[3][10] = {{0}};
  for (long p = 0; p < 100; p++)
    if (anchor[p]) {
      count[0][p / 10]++;
      count[1][(p / 2) % 5]++;
      count[2][p % 2]++;
    }
  for (int g = 0; g < 3; g++)
    for (int v = 0; v < nv[g]; v++) {
      int want = 25 / nv[g];
      ck_assert_msg(count[g][v] >= want - 1 && count[g][v] <= want + 1,
                    "axis %s value %d: %d anchors, %d expected", paths[g], v, count[g][v], want);
    }
  /* deterministic and at least 2 anchors on a small grid */
  unsigned char again[100] = {0};
  sweep_mva_anchors(&sw, 4, again);
  ck_assert_msg(!memcmp(anchor, again, sizeof anchor), "anchors differ between calls");
  unsigned char few[100] = {0};
  ck_assert_int_eq(sweep_mva_anchors(&sw, 5000, few), 2);
}
END_TEST

START_TEST(test_mpi_identical)
{
#ifdef NASTWIN_HAVE_MPI
  if (system("command -v mpirun >/dev/null 2>&1") != 0) {
    printf("test_sweep: mpirun not found: MPI check skipped\n");
    return;
  }
  char dir[] = "/tmp/nastwin-mpi-XXXXXX";
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp");
  char sw[1024];
  snprintf(sw, sizeof sw, "%s/scenarios/sweeps/tiny-sweep.yaml", test_src());
  ck_assert_int_eq(test_sh("%s sweep %s -j 1 --quiet --csv %s/j1.csv", sw, dir, ""), 0);
  ck_assert_int_eq(test_sh("ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe -n 2 "
                           "%s sweep %s --quiet --csv %s/mpi.csv >/dev/null 2>&1",
                           sw, dir, ""),
                   0);
  char p[1200], q[1200];
  snprintf(p, sizeof p, "%s/j1.csv", dir);
  snprintf(q, sizeof q, "%s/mpi.csv", dir);
  char *a = test_slurp(p), *b = test_slurp(q);
  ck_assert_msg(a && b && !strcmp(a, b), "MPI CSV differs from -j 1:\n%s\n---\n%s", a, b);
  free(a);
  free(b);
  test_sh("rm -rf %s%s%s", dir, "", "");
#else
  printf("test_sweep: built without MPI: MPI check skipped\n");
#endif
}
END_TEST

int main(void)
{
  Suite *s = suite_create("sweep");
  TCase *tg = tcase_create("grid");
  tcase_add_test(tg, test_expansion_golden);
  tcase_add_test(tg, test_parse_errors);
  tcase_add_test(tg, test_csv_split_row);
  tcase_add_test(tg, test_merge_unreadable);
  suite_add_tcase(s, tg);
  TCase *tr = tcase_create("runs");
  tcase_set_timeout(tr, 60);
  tcase_add_test(tr, test_jobs_and_shards_identical);
  tcase_add_test(tr, test_kill_and_resume);
  tcase_add_test(tr, test_analytic);
  tcase_add_test(tr, test_anchors_stratified);
  tcase_add_test(tr, test_mpi_identical);
  suite_add_tcase(s, tr);
  return ck_run(s);
}
