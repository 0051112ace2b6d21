/* test_golden.c - golden predictions: every validation point's prediction
 * at the shipped calibration is pinned by validation/golden.json; a point
 * that moves more than 2 % fails this test until the file is regenerated
 * (`nastwin validate --golden-update`) and the commit says why it moved.
 * Runs NASTWIN_BIN. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "cli_util.c.inc"

/* The whole validation set against the shipped golden file. */
START_TEST(test_golden_holds)
{
  const char *args[] = {"validate", "--golden-check", "-j", "2", NULL};
  struct cli_out r;
  cli_exec(NULL, args, &r);
  ck_assert_msg(r.status == 0 && strstr(r.out, "golden: 0 of ") != NULL,
                "predictions moved from validation/golden.json (exit %d); if on purpose, run "
                "`nastwin validate --golden-update` and say why in the commit:\n%s%s",
                r.status, r.out, r.err);
  cli_out_free(&r);
}
END_TEST

/* Write golden text to path with the first point's prediction times f. */
static void tg_scaled(const char *golden, const char *path, double f, char *key, size_t keylen)
{
  FILE *in = fopen(golden, "r"), *out = fopen(path, "w");
  ck_assert(in && out);
  char line[4096];
  int done = 0;
  while (fgets(line, sizeof line, in)) {
    char *p = strstr(line, "\"predicted\": ");
    const char *k = strstr(line, "{\"key\": \"");
    if (p && k && !done && strncmp(p + 13, "null", 4)) {
      double x = strtod(p + 13, NULL);
      const char *e = strstr(k + 9, "\", ");
      snprintf(key, keylen, "%.*s", (int)(e - k - 9), k + 9);
      fprintf(out, "%.*s\"predicted\": %.10g}%s", (int)(p - line), line, x * f, strchr(p, ',') ? ",\n" : "\n");
      done = 1;
    } else
      fputs(line, out);
  }
  fclose(in);
  fclose(out);
  ck_assert_msg(done, "no prediction in %s", golden);
}

/* The check can fail: the first point of the golden file moved by 5 %
 * is reported (exit 1), by 1 % it is not; the bad files of tests/golden/
 * are bad input. */
START_TEST(test_golden_detects_a_move)
{
  char golden[1024], tmp[] = "/tmp/tg_goldXXXXXX", path[1100], key[1024];
  cli_source_path("validation/golden.json", golden, sizeof golden);
  ck_assert(mkdtemp(tmp) != NULL);
  snprintf(path, sizeof path, "%s/golden.json", tmp);
  tg_scaled(golden, path, 1.05, key, sizeof key);
  char only[128];
  snprintf(only, sizeof only, "%.*s", (int)strcspn(key, " "), key);
  const char *args[] = {"validate", "--golden-check", "--golden", path, "--only", only, "-j", "2", NULL};
  struct cli_out r;
  cli_exec(NULL, args, &r);
  ck_assert_msg(r.status == 1 && strstr(r.out, key) && strstr(r.out, "(-4.76 %)"),
                "a 5 %% move of %s not reported (exit %d):\n%s%s", key, r.status, r.out, r.err);
  cli_out_free(&r);
  tg_scaled(golden, path, 1.01, key, sizeof key);
  cli_exec(NULL, args, &r);
  ck_assert_msg(r.status == 0, "a 1 %% move of %s reported (exit %d):\n%s%s", key, r.status, r.out, r.err);
  cli_out_free(&r);
  unlink(path);
  /* Bad golden files (tests/golden/): file:line:column, exit 2. */
  static const char *const bad[][2] = {{"bad-number.json", ":2:29: error: "},
                                       {"no-key.json", ":2:17: error: "},
                                       {"no-points-list.json", ":1:1: error: "}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char rel[128];
    snprintf(rel, sizeof rel, "tests/golden/%s", bad[i][0]);
    cli_source_path(rel, path, sizeof path);
    cli_exec(NULL, args, &r);
    ck_assert_msg(r.status == 2 && strstr(r.err, bad[i][1]) && strstr(r.err, "golden predictions"),
                  "bad golden file %s: exit %d:\n%s", bad[i][0], r.status, r.err);
    cli_out_free(&r);
  }
  rmdir(tmp);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("golden");
  TCase *t = tcase_create("detect");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_golden_detects_a_move);
  suite_add_tcase(s, t);
  t = tcase_create("holds");
  tcase_set_timeout(t, 290);
  tcase_add_test(t, test_golden_holds);
  suite_add_tcase(s, t);
  return ck_run(s);
}
