/* size.c - nastwin size (placeholder until the search lands). */
#include <stdio.h>

#include "sim/cli.h"

int cli_size(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "nastwin: error: size: not implemented yet\n");
  return 2;
}
