/* test_cli_opt.c - the option helpers the subcommands share: an option's
 * value, a whole-number option, and that run, validate, calibrate and sweep
 * all reject a missing value and an out-of-range -j in the same words, as
 * explain and size do a missing value and explain an out-of-range --step. */
#include <check.h>
#include "ck_run.h"
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "cli_util.c.inc"
#include "sim/cli/cli_opt.h"

START_TEST(test_value)
{
  static const char *const valued[] = {"--out", "-j", NULL};
  char *argv[] = {"cmd", "--json", "--out", "x.csv", "-j", NULL};
  int argc = 5, i = 1;
  const char *val = "unset";
  ck_assert_int_eq(cli_opt_value(argc, argv, &i, valued, &val), 0);
  ck_assert_msg(val == NULL && i == 1, "a flag takes no value: val %s, i %d", val ? val : "NULL", i);
  i = 2;
  ck_assert_int_eq(cli_opt_value(argc, argv, &i, valued, &val), 0);
  ck_assert_msg(val && !strcmp(val, "x.csv") && i == 3, "--out: val %s, i %d", val ? val : "NULL", i);
  i = 4; /* -j is the last argument */
  ck_assert_int_eq(cli_opt_value(argc, argv, &i, valued, &val), -1);
  ck_assert_int_eq(i, 4);
}
END_TEST

START_TEST(test_int)
{
  long v = -7;
  ck_assert_int_eq(cli_opt_int("-j", "64", 1, 64, &v), 0);
  ck_assert_int_eq(v, 64);
  ck_assert_int_eq(cli_opt_int("--max-iter", "0", 0, 1000, &v), 0);
  ck_assert_int_eq(v, 0);
  static const char *const bad[] = {"0", "65", "", "3x", "abc", "-1", "99999999999999999999999"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    v = -7;
    ck_assert_msg(cli_opt_int("-j", bad[k], 1, 64, &v) == -1 && v == -7, "-j '%s' accepted (%ld)", bad[k], v);
  }
}
END_TEST

/* Every subcommand that takes -j words its usage errors alike (exit 2). */
START_TEST(test_same_words)
{
  static const char *const cmds[] = {"run", "validate", "calibrate", "sweep"};
  for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
    struct cli_out r;
    const char *range[] = {cmds[k], "-j", "65", NULL};
    cli_exec(NULL, range, &r);
    ck_assert_msg(r.status == 2 && strstr(r.err, "nastwin: error: -j '65': must be a whole number between 1 and 64"),
                  "%s -j 65: exit %d, stderr: %s", cmds[k], r.status, r.err);
    cli_out_free(&r);
    const char *missing[] = {cmds[k], "-j", NULL};
    cli_exec(NULL, missing, &r);
    ck_assert_msg(r.status == 2 && strstr(r.err, "nastwin: error: option -j needs a value"),
                  "%s -j: exit %d, stderr: %s", cmds[k], r.status, r.err);
    cli_out_free(&r);
  }
}
END_TEST

/* explain and size take no -j; their valued options fail in the same words. */
START_TEST(test_same_words_explain_size)
{
  static const char *const missing[][3] = {{"explain", "--set", NULL},    {"explain", "--step", NULL},
                                           {"explain", "--catalog", NULL}, {"size", "--target", NULL},
                                           {"size", "--vary", NULL},       {"size", "--set", NULL}};
  for (size_t k = 0; k < sizeof missing / sizeof missing[0]; k++) {
    struct cli_out r;
    char want[64];
    snprintf(want, sizeof want, "nastwin: error: option %s needs a value", missing[k][1]);
    cli_exec(NULL, missing[k], &r);
    ck_assert_msg(r.status == 2 && strstr(r.err, want), "%s %s: exit %d, stderr: %s", missing[k][0],
                  missing[k][1], r.status, r.err);
    cli_out_free(&r);
  }
  static const char *const steps[] = {"-1", "x", "", "100001"};
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
    struct cli_out r;
    char want[96];
    snprintf(want, sizeof want, "nastwin: error: --step '%s': must be a whole number between 0 and 100000",
             steps[k]);
    const char *argv[] = {"explain", "--step", steps[k], NULL};
    cli_exec(NULL, argv, &r);
    ck_assert_msg(r.status == 2 && strstr(r.err, want), "explain --step '%s': exit %d, stderr: %s",
                  steps[k], r.status, r.err);
    cli_out_free(&r);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("cli_opt");
  TCase *tc = tcase_create("helpers");
  tcase_add_test(tc, test_value);
  tcase_add_test(tc, test_int);
  suite_add_tcase(s, tc);
  tc = tcase_create("subcommands");
  tcase_set_timeout(tc, 60); /* per test, <= 10 runs of the binary: ~5 s under ASan on a loaded machine */
  tcase_add_test(tc, test_same_words);
  tcase_add_test(tc, test_same_words_explain_size);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
