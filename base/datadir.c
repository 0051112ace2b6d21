#define _XOPEN_SOURCE 700 /* realpath */
#include "base/datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NASTWIN_SOURCE_DIR
#define NASTWIN_SOURCE_DIR "."
#endif

static int dd_has_catalog(const char *dir)
{
  if (strlen(dir) >= PATH_MAX)
    return 0;
  char p[PATH_MAX + 64];
  struct stat st;
  snprintf(p, sizeof p, "%s/catalog", dir);
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* dir of the running binary into buf ("" when unknown). */
static void dd_exe_dir(char *buf, size_t n)
{
  buf[0] = 0;
  ssize_t k = readlink("/proc/self/exe", buf, n - 1);
  if (k <= 0)
    return;
  buf[k] = 0;
  char *slash = strrchr(buf, '/');
  if (slash)
    *slash = 0;
}

const char *nw_data_dir(void)
{
  static char dir[PATH_MAX];
  if (dir[0])
    return dir;
  const char *env = getenv("NASTWIN_DATA");
  if (env && env[0]) {
    snprintf(dir, sizeof dir, "%s", env);
    return dir;
  }
  char exe[PATH_MAX];
  dd_exe_dir(exe, sizeof exe);
  if (exe[0]) {
    char cand[PATH_MAX + 32];
    snprintf(cand, sizeof cand, "%s/../share/nastwin", exe);
    if (dd_has_catalog(cand) && realpath(cand, dir))
      return dir;
    snprintf(cand, sizeof cand, "%s/..", exe);
    if (dd_has_catalog(cand) && realpath(cand, dir))
      return dir;
  }
  snprintf(dir, sizeof dir, "%s", NASTWIN_SOURCE_DIR);
  return dir;
}

char *nw_data_path(char *buf, size_t n, const char *rel)
{
  snprintf(buf, n, "%s/%s", nw_data_dir(), rel);
  return buf;
}
