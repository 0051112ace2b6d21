/* test_file.c - file_read_all: byte-exact reads across the buffer's growth
 * steps, the size limit at its edge, and the two failure statuses. */
#include <check.h>
#include "ck_run.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(void)
{
  Suite *s = suite_create("file");
  TCase *tc = tcase_create("read_all");
  tcase_add_test(tc, test_exact);
  tcase_add_test(tc, test_limit);
  tcase_add_test(tc, test_failures);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
