/* cli_opt.h - option parsing shared by the subcommands (run, validate,
 * calibrate, sweep): an option's value and a whole-number option, each with
 * one wording of its usage error. */
#ifndef NASTWIN_CLI_OPT_H
#define NASTWIN_CLI_OPT_H

/* argv[*i] is an option.  If it is one of `valued` (NULL-terminated: the
 * options that take a value), *val = the next argument and *i advances to
 * it; otherwise *val = NULL.  0, or -1 after printing "nastwin: error:
 * option X needs a value" to stderr when no argument follows. */
int cli_opt_value(int argc, char **argv, int *i, const char *const *valued, const char **val);

/* The value `text` of option `opt` as a whole number in [lo, hi] into *out.
 * 0, or -1 after printing "nastwin: error: OPT 'TEXT': must be a whole
 * number between LO and HI" to stderr. */
int cli_opt_int(const char *opt, const char *text, long lo, long hi, long *out);

#endif
