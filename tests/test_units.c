/* Units parser: exact values for every dimension, and every rejection. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <string.h>

#include "base/units.h"

static double parse_ok(const char *text, enum units_dim dim)
{
  double v = -1.0;
  char msg[256] = "";
  int rc = units_parse(text, dim, &v, msg, sizeof msg);
  ck_assert_msg(rc == 0, "'%s' should parse, got: %s", text, msg);
  return v;
}

static void parse_bad(const char *text, enum units_dim dim, const char *needle)
{
  double v = 0.0;
  char msg[256] = "";
  int rc = units_parse(text, dim, &v, msg, sizeof msg);
  ck_assert_msg(rc == -1, "'%s' should be rejected", text);
  ck_assert_msg(strstr(msg, needle) != NULL, "message for '%s' lacks '%s': %s", text, needle, msg);
}

START_TEST(test_exact_values)
{
  ck_assert_double_eq(parse_ok("10Gbit/s", UNITS_RATE), 1.25e9);
  ck_assert_double_eq(parse_ok("1Gbit/s", UNITS_RATE), 125e6);
  ck_assert_double_eq(parse_ok("200MB/s", UNITS_RATE), 2e8);
  ck_assert_double_eq(parse_ok("4KiB", UNITS_BYTES), 4096.0);
  ck_assert_double_eq(parse_ok("1MiB", UNITS_BYTES), 1048576.0);
  ck_assert_double_eq(parse_ok("14TB", UNITS_BYTES), 14e12);
  ck_assert_double_eq(parse_ok("512 B", UNITS_BYTES), 512.0);
  ck_assert_double_eq(parse_ok("1sector", UNITS_BYTES), 512.0);
  ck_assert_double_eq(parse_ok("8.5ms", UNITS_TIME), 8.5e-3);
  ck_assert_double_eq(parse_ok("150us", UNITS_TIME), 150e-6);
  ck_assert_double_eq(parse_ok("2min", UNITS_TIME), 120.0);
  ck_assert_double_eq(parse_ok("1.7GHz", UNITS_FREQ), 1.7e9);
  ck_assert_double_eq(parse_ok("7200rpm", UNITS_ROTATION), 7200.0);
  ck_assert_double_eq(parse_ok("18.64W", UNITS_POWER), 18.64);
  ck_assert_double_eq(parse_ok("1Wh", UNITS_ENERGY), 3600.0);
  ck_assert_double_eq(parse_ok("70%", UNITS_NUMBER), 0.7);
  ck_assert_double_eq(parse_ok("32", UNITS_NUMBER), 32.0);
  ck_assert_double_eq(parse_ok("1e3MB/s", UNITS_RATE), 1e9);
  ck_assert_double_eq(parse_ok("-3", UNITS_NUMBER), -3.0);
}
END_TEST

START_TEST(test_rejections)
{
  parse_bad("10", UNITS_RATE, "has no unit");
  parse_bad("10Gbit/s", UNITS_BYTES, "is a rate, but a size is expected");
  parse_bad("4 KiBs", UNITS_BYTES, "unknown unit 'KiBs'");
  parse_bad("nan", UNITS_NUMBER, "not a number");
  parse_bad("inf", UNITS_NUMBER, "not a number");
  parse_bad("0x10", UNITS_NUMBER, "unknown unit");
  parse_bad("", UNITS_TIME, "not a time");
  parse_bad("ms", UNITS_TIME, "not a time");
  parse_bad("1e999B", UNITS_BYTES, "out of range");
  parse_bad("3 Mb/s", UNITS_RATE, "unknown unit 'Mb/s'");
}
END_TEST

START_TEST(test_format)
{
  char buf[64];
  ck_assert_str_eq(units_format(1.25e9, UNITS_RATE, buf, sizeof buf), "1.25 GB/s");
  ck_assert_str_eq(units_format(4096, UNITS_BYTES, buf, sizeof buf), "4 KiB");
  ck_assert_str_eq(units_format(8.5e-3, UNITS_TIME, buf, sizeof buf), "8.5 ms");
  ck_assert_str_eq(units_format(1.7e9, UNITS_FREQ, buf, sizeof buf), "1.7 GHz");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("units");
  TCase *tc = tcase_create("parse");
  tcase_add_test(tc, test_exact_values);
  tcase_add_test(tc, test_rejections);
  tcase_add_test(tc, test_format);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
