/* nastwin - command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/cli/cli.h"

static void main_usage(FILE *out)
{
  fputs("usage: nastwin COMMAND [options]\n"
        "\n"
        "A discrete-event digital twin of NAS appliances: predicts throughput, IOPS,\n"
        "latency, RAID operation times and power for a configuration and a workload.\n"
        "\n"
        "commands:\n"
        "  run [SCENARIO.yaml]   simulate a scenario (no file: the built-in default)\n"
        "  check SCENARIO.yaml   validate a scenario only\n"
        "  sweep SWEEP.yaml      what-if grid -> CSV/JSON/HTML (-j N, --shard I/N, --resume)\n"
        "  merge OUT.csv IN...   merge sweep shards' CSVs\n"
        "  explain [SCENARIO]    the bottleneck explained with operational laws\n"
        "  size SCENARIO --target M>=V --vary P=LO..HI   cheapest config meeting a target\n"
        "  drives                datasheet table of every catalogue drive (seq MB/s, IOPS QD1/QD32)\n"
        "  validate              predicted vs measured for every review point\n"
        "  calibrate             fit the catalogue `fit:` values to the review data (--cv)\n"
        "\n"
        "  nastwin COMMAND --help   options of a command\n"
        "  nastwin --version\n"
        "\n"
        "exit codes: 0 success, 1 simulation or system failure, 2 bad input\n",
        out);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    main_usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    main_usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    printf("nastwin %s\n", NASTWIN_VERSION);
    return 0;
  }
  for (const struct cli_command *c = cli_commands; c->name; c++)
    if (!strcmp(c->name, cmd))
      return c->main(argc - 1, argv + 1);
  fprintf(stderr, "nastwin: error: unknown command '%s'\n", cmd);
  main_usage(stderr);
  return 2;
}
