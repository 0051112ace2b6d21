/* test_validate.c - `nastwin validate` end to end on tiny data files.
 *
 * The measured figures below are made up (not review figures): they only
 * serve to check the arithmetic error = predicted / measured - 1. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TV_OUT_MAX (1 << 20)

struct tv_run {
  int rc;
  char out[TV_OUT_MAX];
  char err[8192];
};

/* Run `nastwin ARGS` (a shell-quoted string); capture stdout and stderr. */
static void tv_run(const char *args, struct tv_run *r)
{
  const char *bin = getenv("NASTWIN_BIN");
  ck_assert_msg(bin != NULL, "NASTWIN_BIN is not set (run through ctest)");
  char errpath[] = "/tmp/tv_errXXXXXX";
  int fd = mkstemp(errpath);
  ck_assert_int_ge(fd, 0);
  close(fd);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", bin, args, errpath);
  FILE *p = popen(cmd, "r");
  ck_assert_msg(p != NULL, "popen %s", cmd);
  size_t n = fread(r->out, 1, sizeof r->out - 1, p);
  r->out[n] = '\0';
  int st = pclose(p);
  r->rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  FILE *e = fopen(errpath, "r");
  size_t m = e ? fread(r->err, 1, sizeof r->err - 1, e) : 0;
  r->err[m] = '\0';
  if (e)
    fclose(e);
  unlink(errpath);
}

/* Write text to a fresh temp file; path into buf. */
static void tv_write(char *buf, size_t len, const char *text)
{
  snprintf(buf, len, "/tmp/tv_dataXXXXXX");
  int fd = mkstemp(buf);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq((int)write(fd, text, strlen(text)), (int)strlen(text));
  close(fd);
}

/* The number after "key": in s (first occurrence); NAN when absent. */
static double tv_num(const char *s, const char *key)
{
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *p = strstr(s, pat);
  if (!p)
    return NAN;
  return strtod(p + strlen(pat), NULL);
}

static const char tv_one_point[] =
    "version: 1\n"
    "experiments:\n"
    "  - id: ds1511plus-ts859pro-iscsi-single-link\n"
    "    source: test\n"
    "    systems: [ds1511plus, ts859pro]\n"
    "    results:\n"
    "      - {system: ds1511plus, metric: read_MBps, tool: ATTO, value: 100, note: made-up}\n"
    "  - id: made-up-unsupported\n"
    "    system: ds2015xs\n"
    "    results:\n"
    "      - {metric: aggregate_Gbps, value: 3, approx: true, skewed: \"test\"}\n";

/* A points file of the test's own: the ATTO point as validation/points.yaml
 * maps it (scenario path absolute), and an unsupported one; its text into
 * buf. */
static void tv_points(char *buf, size_t len)
{
  const char *src = getenv("NASTWIN_SOURCE_DIR");
  snprintf(buf, len,
           "version: 1\npoints:\n"
           "  - {experiment: ds1511plus-ts859pro-iscsi-single-link, match: {system: ds1511plus, metric: read_MBps, "
           "tool: ATTO}, scenario: %s/validation/scenarios/ds1511plus-iscsi-atto.yaml, steps: [atto-read-*], "
           "combine: max, field: read.MBps}\n"
           "  - {experiment: made-up-unsupported, match: {metric: aggregate_Gbps}, unsupported: \"a test\"}\n",
           src ? src : ".");
}

/* `nastwin validate --data D --points P EXTRA` on the data and points
 * texts, each written to a temp file removed after the run. */
static void tv_validate(const char *data, const char *points, const char *extra, struct tv_run *r)
{
  char dpath[64], ppath[64], args[512];
  tv_write(dpath, sizeof dpath, data);
  tv_write(ppath, sizeof ppath, points);
  snprintf(args, sizeof args, "validate --data %s --points %s %s", dpath, ppath, extra);
  tv_run(args, r);
  unlink(dpath);
  unlink(ppath);
}

START_TEST(test_validate_json_keys_and_error)
{
  char points[2048];
  tv_points(points, sizeof points);
  static struct tv_run r;
  tv_validate(tv_one_point, points, "--json -j 2", &r);
  ck_assert_msg(r.rc == 0, "exit %d, stderr: %s", r.rc, r.err);
  static const char *const keys[] = {"\"calibration\": {\"file\": \"validation/calibrated.yaml\", \"hash\": \"",
                                     "\"points\": [", "\"summary\": {", "\"experiment\": ", "\"case\": ",
                                     "\"system\": \"ds1511plus\"", "\"protocol\": ", "\"cache\": ",
                                     "\"tool\": \"ATTO\"", "\"metric\": \"read_MBps\"", "\"measured\": 100",
                                     "\"predicted\": ", "\"error\": ", "\"note\": ", "\"status\": \"unsupported\"",
                                     "\"throughput\": {\"points\": 1", NULL};
  for (int i = 0; keys[i]; i++)
    ck_assert_msg(strstr(r.out, keys[i]) != NULL, "missing %s in: %.2000s", keys[i], r.out);
  double pred = tv_num(r.out, "predicted");
  double error = tv_num(r.out, "error");
  ck_assert_msg(isfinite(pred) && pred > 0, "predicted %g", pred);
  ck_assert_msg(fabs(error - (pred / 100.0 - 1.0)) < 1e-9 * fmax(1.0, fabs(error)),
                "error %.10g != predicted %.10g / 100 - 1", error, pred);
}
END_TEST

START_TEST(test_validate_table)
{
  char points[2048];
  tv_points(points, sizeof points);
  static struct tv_run r;
  tv_validate(tv_one_point, points, "--only made-up-unsupported", &r);
  ck_assert_msg(r.rc == 0, "exit %d, stderr: %s", r.rc, r.err);
  ck_assert_msg(strstr(r.out, "not modelled") && strstr(r.out, "skewed"), "table: %s", r.out);
  ck_assert_msg(strstr(r.out, "median") && strstr(r.out, "p90"), "no summary: %s", r.out);
}
END_TEST

/* A figure the review gives as a limit ("under X"): `upper_bound: true`
 * scores it against the limit (flag within-limit / limit-exceeded) and
 * leaves it out of the error statistics; a value other than true/false is
 * refused with its position.  The made-up limits sit far above and far
 * below the ATTO read's prediction. */
static void tv_bound_run(double limit, const char *ub, struct tv_run *r)
{
  char data[1024], text[2048];
  snprintf(data, sizeof data,
           "version: 1\nexperiments:\n  - id: ds1511plus-ts859pro-iscsi-single-link\n    source: test\n"
           "    systems: [ds1511plus, ts859pro]\n    results:\n"
           "      - {system: ds1511plus, metric: read_MBps, tool: ATTO, value: %g, note: made-up}\n",
           limit);
  const char *src = getenv("NASTWIN_SOURCE_DIR");
  snprintf(text, sizeof text,
           "version: 1\npoints:\n"
           "  - {experiment: ds1511plus-ts859pro-iscsi-single-link, match: {system: ds1511plus, metric: read_MBps, "
           "tool: ATTO}, scenario: %s/validation/scenarios/ds1511plus-iscsi-atto.yaml, steps: [atto-read-1MiB], "
           "field: read.MBps, upper_bound: %s}\n",
           src ? src : ".", ub);
  tv_validate(data, text, "", r);
}

START_TEST(test_validate_upper_bound)
{
  static struct tv_run r;
  tv_bound_run(1e6, "true", &r);
  ck_assert_msg(r.rc == 0, "exit %d, stderr: %s", r.rc, r.err);
  ck_assert_msg(strstr(r.out, "within-limit") && !strstr(r.out, "limit-exceeded"), "limit far above: %s", r.out);
  ck_assert_msg(strstr(r.out, "throughput          0"), "a limit counted among the errors: %s", r.out);
  tv_bound_run(1, "true", &r);
  ck_assert_msg(r.rc == 0 && strstr(r.out, "limit-exceeded"), "limit far below: exit %d, %s", r.rc, r.out);
  tv_bound_run(1e6, "maybe", &r);
  ck_assert_msg(r.rc == 2 && strstr(r.err, ":3:") && strstr(r.err, "upper_bound 'maybe'") &&
                    strstr(r.err, "true, false"),
                "bad value: exit %d, stderr: %s", r.rc, r.err);
  ck_assert_msg(r.out[0] == '\0', "bad value: stdout not empty: %s", r.out);
}
END_TEST

/* A point whose step's window is a transient (TS-859 Pro's file LUN: the
 * NAS page cache still absorbing an ATTO write in the scenario's 2 s) or
 * rests on too few I/Os says so (flags transient, few-ios; JSON
 * "transient", "few_ios"); the same step run to the file's end (30 s: the
 * 2 GB file at the link's rate) says neither. */
START_TEST(test_validate_flags_transients)
{
  static const char data[] =
           "version: 1\nexperiments:\n  - id: ds1511plus-ts859pro-iscsi-single-link\n    source: test\n"
           "    systems: [ds1511plus, ts859pro]\n    results:\n"
           "      - {system: ts859pro, metric: write_MBps, tool: short, value: 100, note: made-up}\n"
           "      - {system: ts859pro, metric: write_MBps, tool: long, value: 100, note: made-up}\n";
  char text[2048];
  const char *src = getenv("NASTWIN_SOURCE_DIR");
  snprintf(text, sizeof text,
           "version: 1\npoints:\n"
           "  - {experiment: ds1511plus-ts859pro-iscsi-single-link, match: {system: ts859pro, metric: write_MBps, "
           "tool: short}, scenario: %s/validation/scenarios/ts859pro-iscsi-atto.yaml, steps: [atto-write-1MiB], "
           "field: write.MBps}\n"
           "  - {experiment: ds1511plus-ts859pro-iscsi-single-link, match: {system: ts859pro, metric: write_MBps, "
           "tool: long}, scenario: %s/validation/scenarios/ts859pro-iscsi-atto.yaml, set: [time=30s], "
           "steps: [atto-write-1MiB], field: write.MBps}\n",
           src ? src : ".", src ? src : ".");
  static struct tv_run r;
  tv_validate(data, text, "--json", &r);
  ck_assert_msg(r.rc == 0, "exit %d, stderr: %s", r.rc, r.err);
  const char *a = strstr(r.out, "\"tool\": \"short\""), *b = strstr(r.out, "\"tool\": \"long\"");
  ck_assert_msg(a && b, "points missing: %s", r.out);
  const char *ae = strchr(a, '}'), *be = strchr(b, '}');
  const char *at = strstr(a, "\"transient\": true"), *af = strstr(a, "\"few_ios\": true");
  ck_assert_msg(at && at < ae && af && af < ae, "the 2 s window: want transient and few_ios: %.*s", (int)(ae - a), a);
  const char *bt = strstr(b, "\"transient\": false"), *bf = strstr(b, "\"few_ios\": false");
  ck_assert_msg(bt && bt < be && bf && bf < be, "the whole file: want neither flag: %.*s", (int)(be - b), b);
}
END_TEST

START_TEST(test_validate_bad_input)
{
  static const char *const bad[] = {
      /* value not a number, on line 5 */
      "experiments:\n  - id: ds2015xs-iperf\n    system: ds2015xs\n    results:\n      - {metric: aggregate_Gbps, value: lots}\n",
      /* results is a scalar */
      "experiments:\n  - id: x\n    results: 3\n",
      /* not YAML */
      "experiments: [\n",
  };
  static const char *const where[] = {":5:", ":3:", ":"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char path[64];
    tv_write(path, sizeof path, bad[i]);
    char args[256];
    snprintf(args, sizeof args, "validate --data %s", path);
    static struct tv_run r;
    tv_run(args, &r);
    unlink(path);
    ck_assert_msg(r.rc == 2, "case %zu: exit %d, stderr: %s", i, r.rc, r.err);
    char pos[128];
    snprintf(pos, sizeof pos, "%s%s", path, where[i]);
    ck_assert_msg(strstr(r.err, pos) && strstr(r.err, "error:"), "case %zu: no %s...error in: %s", i, pos, r.err);
    ck_assert_msg(r.out[0] == '\0', "case %zu: stdout not empty: %s", i, r.out);
  }
  static struct tv_run r;
  tv_run("validate --only no-such-experiment", &r);
  ck_assert_msg(r.rc == 2, "--only unknown: exit %d", r.rc);
}
END_TEST

START_TEST(test_validate_html)
{
  char path[64];
  tv_write(path, sizeof path, tv_one_point);
  char dir[] = "/tmp/tv_htmlXXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char args[512];
  snprintf(args, sizeof args, "validate --data %s --html %s -j 2", path, dir);
  static struct tv_run r;
  tv_run(args, &r);
  unlink(path);
  ck_assert_msg(r.rc == 0, "exit %d: %s", r.rc, r.err);
  char file[600];
  snprintf(file, sizeof file, "%s/index.html", dir);
  FILE *f = fopen(file, "r");
  ck_assert_msg(f != NULL, "no %s", file);
  static char html[1 << 16];
  size_t n = fread(html, 1, sizeof html - 1, f);
  html[n] = '\0';
  fclose(f);
  unlink(file);
  rmdir(dir);
  ck_assert_msg(strstr(html, "<svg") && strstr(html, "<circle") && strstr(html, "</html>"), "html: %.500s", html);
}
END_TEST

static Suite *validate_suite(void)
{
  Suite *s = suite_create("validate");
  TCase *tc = tcase_create("json");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_validate_json_keys_and_error);
  suite_add_tcase(s, tc);
  tc = tcase_create("table");
  tcase_add_test(tc, test_validate_table);
  suite_add_tcase(s, tc);
  tc = tcase_create("bad_input");
  tcase_add_test(tc, test_validate_bad_input);
  tcase_add_test(tc, test_validate_upper_bound);
  tcase_add_test(tc, test_validate_flags_transients);
  suite_add_tcase(s, tc);
  tc = tcase_create("html");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_validate_html);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return ck_run(validate_suite());
}
