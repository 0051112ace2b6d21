/* cli.c - the subcommand table: one line per command. */
#include "sim/cli/cli.h"

#include <stddef.h>

const struct cli_command cli_commands[] = {
    {"run", cli_run},
    {"check", cli_check},
    {"validate", cli_validate},
    {"calibrate", cli_calibrate},
    {"drives", cli_drives},
    {"sweep", cli_sweep},
    {"merge", cli_merge},
    {"explain", cli_explain},
    {"size", cli_size},
    {NULL, NULL},
};
