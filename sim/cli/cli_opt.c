#include "sim/cli/cli_opt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_opt_value(int argc, char **argv, int *i, const char *const *valued, const char **val)
{
  *val = NULL;
  const char *a = argv[*i];
  int takes = 0;
  for (int k = 0; valued[k] && !takes; k++)
    takes = !strcmp(a, valued[k]);
  if (!takes)
    return 0;
  if (*i + 1 >= argc) {
    fprintf(stderr, "nastwin: error: option %s needs a value\n", a);
    return -1;
  }
  *val = argv[++*i];
  return 0;
}

int cli_opt_int(const char *opt, const char *text, long lo, long hi, long *out)
{
  char *end;
  long v = strtol(text, &end, 10);
  if (*end || end == text || v < lo || v > hi) {
    fprintf(stderr, "nastwin: error: %s '%s': must be a whole number between %ld and %ld\n", opt, text, lo, hi);
    return -1;
  }
  *out = v;
  return 0;
}
