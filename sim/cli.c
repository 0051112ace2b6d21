/* cli.c - the subcommand table: one line per command. */
#include "sim/cli.h"

#include <stddef.h>

const struct cli_command cli_commands[] = {
    {"run", cli_run},
    {"check", cli_check},
    {NULL, NULL},
};
