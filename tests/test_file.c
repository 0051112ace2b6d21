/* test_file.c - file_read_all: byte-exact reads across the buffer's growth
 * steps, the size limit at its edge, and the two failure statuses;
 * file_atomic: a file is replaced whole or left as it was. */
#include <check.h>
#include "ck_run.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"

/* Write n pseudo-random bytes (NULs included) to a new temporary file. */
static void file_test_write(char *path, size_t path_len, size_t n, unsigned seed)
{
  snprintf(path, path_len, "/tmp/nastwin_test_file_XXXXXX");
  int fd = mkstemp(path);
  ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
  FILE *f = fdopen(fd, "wb");
  ck_assert(f != NULL);
  for (size_t i = 0; i < n; i++)
    fputc((int)((seed + i * 2654435761u) >> 7 & 0xff), f);
  ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_exact)
{
  /* around the first buffer (4096 with its NUL) and the next doublings */
  static const size_t sizes[] = {0, 1, 4094, 4095, 4096, 4097, 8191, 8192, 100000};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    char path[64];
    file_test_write(path, sizeof path, sizes[k], (unsigned)k);
    char *buf = NULL;
    size_t len = 12345;
    ck_assert_int_eq(file_read_all(path, SIZE_MAX, &buf, &len), FILE_READ_OK);
    ck_assert_msg(len == sizes[k], "%zu bytes read as %zu", sizes[k], len);
    ck_assert_msg(buf[len] == '\0', "%zu bytes: no terminating NUL", sizes[k]);
    for (size_t i = 0; i < len; i++)
      ck_assert_msg((unsigned char)buf[i] == (((unsigned)k + i * 2654435761u) >> 7 & 0xff),
                    "%zu bytes: byte %zu differs", sizes[k], i);
    free(buf);
    unlink(path);
  }
}
END_TEST

START_TEST(test_limit)
{
  static const size_t limits[] = {0, 100, 4095, 4096, 8191};
  for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
    size_t max = limits[k];
    char path[64];
    char *buf = NULL;
    size_t len;
    file_test_write(path, sizeof path, max, 1);
    ck_assert_msg(file_read_all(path, max, &buf, &len) == FILE_READ_OK && len == max,
                  "a file of exactly max_bytes = %zu rejected", max);
    free(buf);
    unlink(path);
    file_test_write(path, sizeof path, max + 1, 1);
    buf = (char *)"unset";
    errno = 0;
    ck_assert_msg(file_read_all(path, max, &buf, &len) == FILE_READ_FAILED && buf == NULL &&
                      errno == EFBIG,
                  "a file of max_bytes + 1 = %zu accepted (errno %d)", max + 1, errno);
    unlink(path);
  }
}
END_TEST

START_TEST(test_failures)
{
  char *buf = (char *)"unset";
  size_t len;
  errno = 0;
  ck_assert_int_eq(file_read_all("/nonexistent/x", SIZE_MAX, &buf, &len), FILE_READ_CANNOT_OPEN);
  ck_assert_msg(buf == NULL && errno == ENOENT, "errno %d", errno);
  /* a directory opens but does not read */
  buf = (char *)"unset";
  errno = 0;
  ck_assert_int_eq(file_read_all("/tmp", SIZE_MAX, &buf, &len), FILE_READ_FAILED);
  ck_assert_msg(buf == NULL && errno == EISDIR, "errno %d", errno);
}
END_TEST

/* Is path's whole content text? */
static int file_test_is(const char *path, const char *text)
{
  char *buf;
  size_t len;
  if (file_read_all(path, SIZE_MAX, &buf, &len) != FILE_READ_OK)
    return 0;
  int same = len == strlen(text) && !memcmp(buf, text, len);
  free(buf);
  return same;
}

START_TEST(test_atomic)
{
  char dir[] = "/tmp/nastwin_test_atomic_XXXXXX";
  ck_assert(mkdtemp(dir) != NULL);
  char path[128], tmp[160];
  snprintf(path, sizeof path, "%s/out.yaml", dir);
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  ck_assert_int_eq(file_write_atomic(path, "old\n", 4), 0);
  ck_assert(file_test_is(path, "old\n"));
  /* the caller's failure half way: the old file stays, no temporary */
  struct file_atomic a;
  struct nw_err err = {0};
  ck_assert_int_eq(file_atomic_open(&a, path, &err), 0);
  fputs("half", a.f);
  ck_assert(file_test_is(path, "old\n"));
  ck_assert_int_eq(file_atomic_commit(&a, 1, &err), -1);
  ck_assert_msg(strstr(err.msg, "write failed") != NULL, "%s", err.msg);
  ck_assert(file_test_is(path, "old\n"));
  ck_assert_int_eq(access(tmp, F_OK), -1);
  /* a whole write replaces it */
  ck_assert_int_eq(file_atomic_open(&a, path, &err), 0);
  fputs("new, longer\n", a.f);
  ck_assert_int_eq(file_atomic_commit(&a, 0, &err), 0);
  ck_assert(file_test_is(path, "new, longer\n"));
  ck_assert_int_eq(access(tmp, F_OK), -1);
  /* a folder that is not there: an error naming the file, errno kept */
  errno = 0;
  ck_assert_int_eq(file_atomic_open(&a, "/nonexistent/dir/out.yaml", &err), -1);
  ck_assert_msg(errno == ENOENT && strstr(err.file, "/nonexistent/dir/out.yaml") != NULL, "errno %d, %s", errno, err.file);
  ck_assert_int_eq(file_write_atomic("/nonexistent/dir/out.yaml", "x", 1), -1);
  ck_assert_int_eq(errno, ENOENT);
  /* the destination is a folder: the rename fails, the temporary goes */
  char sub[160], subtmp[200];
  snprintf(sub, sizeof sub, "%s/sub", dir);
  ck_assert_int_eq(mkdir(sub, 0777), 0);
  snprintf(subtmp, sizeof subtmp, "%s.%ld.tmp", sub, (long)getpid());
  ck_assert_int_eq(file_atomic_open(&a, sub, &err), 0);
  ck_assert_int_eq(file_atomic_commit(&a, 0, &err), -1);
  ck_assert_msg(strstr(err.msg, "cannot rename into place") != NULL, "%s", err.msg);
  ck_assert_int_eq(access(subtmp, F_OK), -1);
  ck_assert_int_eq(rmdir(sub), 0);
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("file");
  TCase *tc = tcase_create("read_all");
  tcase_add_test(tc, test_exact);
  tcase_add_test(tc, test_limit);
  tcase_add_test(tc, test_failures);
  suite_add_tcase(s, tc);
  TCase *ta = tcase_create("atomic");
  tcase_add_test(ta, test_atomic);
  suite_add_tcase(s, ta);
  return ck_run(s);
}
