/* cli.h - the nastwin subcommands. */
#ifndef NASTWIN_CLI_H
#define NASTWIN_CLI_H

struct cli_command {
  const char *name;
  int (*main)(int argc, char **argv); /* argv[0] is the command name */
};

/* NULL-terminated table of subcommands. */
extern const struct cli_command cli_commands[];

int cli_run(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_validate(int argc, char **argv);
int cli_calibrate(int argc, char **argv);
int cli_drives(int argc, char **argv);
int cli_sweep(int argc, char **argv);
int cli_merge(int argc, char **argv);
int cli_explain(int argc, char **argv);
int cli_size(int argc, char **argv);

#endif
