/* explain.c - nastwin explain (placeholder). */
#include <stdio.h>

#include "sim/cli.h"

int cli_explain(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "nastwin: error: explain: not implemented yet\n");
  return 2;
}
