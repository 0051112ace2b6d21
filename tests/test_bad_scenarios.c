/* Every file in scenarios/bad/ is rejected with exactly its expected
 * message, exit code 2 and nothing on stdout. */
#include <check.h>
#include "ck_run.h"
#include <dirent.h>
#include <math.h>

#include "cli_util.h"
#include "cli_util.c.inc"

static char *read_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = calloc(1, 65536);
  size_t n = fread(buf, 1, 65535, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

START_TEST(test_bad_corpus)
{
  char dir[1024];
  cli_source_path("scenarios/bad", dir, sizeof dir);
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "cannot open %s", dir);
  int checked = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len < 6 || strcmp(de->d_name + len - 5, ".yaml") != 0)
      continue;
    char expected_path[1200];
    snprintf(expected_path, sizeof expected_path, "%s/%.*s.expected", dir, (int)(len - 5), de->d_name);
    char *expected = read_file(expected_path);
    ck_assert_msg(expected != NULL, "%s has no .expected file", de->d_name);
    const char *args[] = {"check", de->d_name, NULL};
    struct cli_out r;
    ck_assert_int_eq(cli_exec(dir, args, &r), 0);
    ck_assert_msg(r.status == 2, "%s: exit %d, expected 2 (stderr: %s)", de->d_name, r.status, r.err);
    ck_assert_msg(r.out[0] == '\0', "%s: stdout not empty: %s", de->d_name, r.out);
    ck_assert_msg(strcmp(r.err, expected) == 0, "%s:\n got: %s want: %s", de->d_name, r.err, expected);
    cli_out_free(&r);
    free(expected);
    checked++;
  }
  closedir(d);
  ck_assert_msg(checked >= 20, "only %d bad scenarios found", checked);
}
END_TEST

START_TEST(test_paths_that_are_not_files)
{
  const char *a1[] = {"check", "/", NULL};
  struct cli_out r;
  cli_exec(NULL, a1, &r);
  ck_assert_int_eq(r.status, 2);
  ck_assert_msg(strstr(r.err, "/: error: not a regular file (a directory)") != NULL, "%s", r.err);
  cli_out_free(&r);
  const char *a2[] = {"check", "/dev/null", NULL};
  cli_exec(NULL, a2, &r);
  ck_assert_int_eq(r.status, 2);
  ck_assert_msg(strstr(r.err, "/dev/null: error: not a regular file") != NULL, "%s", r.err);
  cli_out_free(&r);
  const char *a3[] = {"check", "/nonexistent/x.yaml", NULL};
  cli_exec(NULL, a3, &r);
  ck_assert_int_eq(r.status, 2);
  ck_assert_msg(strstr(r.err, "cannot open: No such file or directory") != NULL, "%s", r.err);
  cli_out_free(&r);
}
END_TEST

START_TEST(test_bad_command_line)
{
  struct cli_out r;
  const char *a1[] = {"run", "--set", "soc.cores", NULL};
  cli_exec(NULL, a1, &r);
  ck_assert_msg(r.status == 2 && strstr(r.err, "expected PATH=VALUE"), "%d %s", r.status, r.err);
  cli_out_free(&r);
  const char *a2[] = {"run", "--set", "soc.cores=many", NULL};
  cli_exec(NULL, a2, &r);
  ck_assert_msg(r.status == 2 && strstr(r.err, "--set soc.cores=many: error: soc.cores: 'many' is not a number"),
                "%d %s", r.status, r.err);
  ck_assert_msg(r.out[0] == '\0', "stdout: %s", r.out);
  cli_out_free(&r);
  const char *a3[] = {"frobnicate", NULL};
  cli_exec(NULL, a3, &r);
  ck_assert_int_eq(r.status, 2);
  cli_out_free(&r);
  const char *a4[] = {"run", "--set", "disks.count=7", "--set", "volume.level=6", "--set", "disks.count=3", NULL};
  cli_exec(NULL, a4, &r);
  ck_assert_msg(r.status == 2 && strstr(r.err, "level 6 needs 4..64 members, got 3"), "%d %s", r.status, r.err);
  cli_out_free(&r);
  /* a path with an empty part used to be dropped silently */
  const char *a5[] = {"run", "--set", "a..b=1", NULL};
  cli_exec(NULL, a5, &r);
  ck_assert_msg(r.status == 2 && strstr(r.err, "--set a..b=1: error: bad key path 'a..b'"), "%d %s", r.status, r.err);
  cli_out_free(&r);
  const char *a6[] = {"run", "--set", ".=1", NULL};
  cli_exec(NULL, a6, &r);
  ck_assert_msg(r.status == 2 && strstr(r.err, "bad key path '.'") && r.out[0] == '\0', "%d %s", r.status, r.err);
  cli_out_free(&r);
}
END_TEST

/* A scenario beyond its chassis (10GB/s ports on a 10GbE DS2015xs) is
 * refused; marked custom hardware (option or scenario key) it loads with a
 * warning naming the same value and limit. */
START_TEST(test_custom_hardware)
{
  char dir[1024];
  cli_source_path("scenarios/bad", dir, sizeof dir);
  static const char *const limit = "10GB/s is 80 Gbit/s; the ds2015xs ports are 10 Gbit/s at most";
  struct cli_out r;
  const char *a1[] = {"check", "link-rate-gb.yaml", "--custom-hardware", NULL};
  ck_assert_int_eq(cli_exec(dir, a1, &r), 0);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_msg(strstr(r.err, "link-rate-gb.yaml:5:52: warning: network.nas_link_rate: ") && strstr(r.err, limit),
                "stderr: %s", r.err);
  ck_assert_msg(strstr(r.out, "link-rate-gb.yaml: ok: system ds2015xs"), "stdout: %s", r.out);
  cli_out_free(&r);
  const char *a2[] = {"check", "too-many-disks.yaml", "--set", "custom_hardware=true", NULL};
  ck_assert_int_eq(cli_exec(dir, a2, &r), 0);
  ck_assert_msg(r.status == 0 && strstr(r.err, "warning: disks.count: 24 disks need 24 bays; the ds1819plus has 8 + 10"),
                "exit %d: %s", r.status, r.err);
  cli_out_free(&r);
  /* false keeps the check */
  const char *a3[] = {"check", "nvme-in-bay.yaml", "--set", "custom_hardware=false", NULL};
  ck_assert_int_eq(cli_exec(dir, a3, &r), 0);
  ck_assert_msg(r.status == 2 && strstr(r.err, "nvme-in-bay.yaml:3:26: error: disks.drive: synology-snv3400-400g is an NVMe"),
                "exit %d: %s", r.status, r.err);
  cli_out_free(&r);
  /* within the limits: no warning */
  const char *a4[] = {"check", "link-rate-gb.yaml", "--set", "network.nas_link_rate=10Gbit/s", NULL};
  ck_assert_int_eq(cli_exec(dir, a4, &r), 0);
  ck_assert_msg(r.status == 0 && r.err[0] == '\0', "exit %d: %s", r.status, r.err);
  cli_out_free(&r);
  /* 1GbE on all four ports is the chassis; a fifth is not */
  const char *a5[] = {"check", "too-many-ports.yaml", "--set", "network.nas_link_rate=1Gbit/s", NULL};
  ck_assert_int_eq(cli_exec(dir, a5, &r), 0);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  cli_out_free(&r);
  const char *a6[] = {"check", "too-many-ports.yaml", "--set", "network.nas_link_rate=1Gbit/s", "--set",
                      "network.nas_links=5", NULL};
  ck_assert_int_eq(cli_exec(dir, a6, &r), 0);
  ck_assert_msg(r.status == 2 && strstr(r.err, "network.nas_links: 5 ports; the ds2015xs has 4"), "exit %d: %s",
                r.status, r.err);
  cli_out_free(&r);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("bad_scenarios");
  TCase *tc = tcase_create("corpus");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_bad_corpus);
  tcase_add_test(tc, test_paths_that_are_not_files);
  tcase_add_test(tc, test_bad_command_line);
  tcase_add_test(tc, test_custom_hardware);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
