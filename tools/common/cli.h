/* SPDX-License-Identifier: MIT */
/*
 * The programs' shared command-line pieces, after the GNU Coding Standards
 * (4.8 "Standards for Command Line Interfaces": --version and --help on
 * stdout with status 0) and the GNU tools' way with usage errors: the
 * offending option named, then "Try 'PROG --help' for more information."
 * on stderr, status 2.  Options are parsed with getopt_long(3), so that
 * "--opt VALUE" and "--opt=VALUE" are one option and "--" ends them.
 */
#ifndef VPMU_TOOLS_CLI_H
#define VPMU_TOOLS_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* The exit status of a usage error (a bad option or argument). */
#define CLI_EXIT_USAGE 2

/* getopt_long's own messages ("PROG: unrecognized option '--foo'") start with
 * argv[0]: call this first, so that they name the program as the user knows
 * it and not as the path it was run by. */
void cli_init(char **argv, const char *prog);

/* "PROG: MESSAGE" (when fmt is not NULL), then the Try line, on stderr, and
 * exit status 2. */
_Noreturn void cli_usage_error(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* --version: "PROG (vpmu) VERSION", the library's version when it differs,
 * and the licence, on stdout; exit status 0 (or 1 when stdout fails). */
_Noreturn void cli_version(const char *prog);

/* Ends a --help: usage was written to stdout; exit status 0, or 1 with a
 * message when it could not be written (a closed or full stdout). */
_Noreturn void cli_help_done(const char *prog);

/* The options every program shares, for the end of its getopt_long switch:
 * 'h' (--help: usage() on stdout, then as cli_help_done), version_opt
 * (--version: cli_version), and anything else getopt_long refused (a usage
 * error; it has said what was wrong). */
_Noreturn void cli_common_option(const char *prog, int c, int version_opt, void (*usage)(void));

/* s as a decimal number from lo to hi; otherwise "PROG: WHAT must be a number
 * from LO to HI, not 'S'" and the Try line on stderr, exit status 2. */
unsigned cli_uint(const char *prog, const char *s, const char *what, unsigned lo, unsigned hi);

/* The model named name, matched without regard to case ("P6" is "p6"): its
 * name as the library spells it.  Otherwise a usage error that lists the
 * models (opt: the option that named it, or NULL). */
const char *cli_model(const char *prog, const char *opt, const char *name);

/* The accounting format named name (enum acct_format); otherwise a usage
 * error naming opt and the formats. */
int cli_acct_format(const char *prog, const char *opt, const char *name);

/* --output FILE: FILE opened for writing (truncated), or stdout for NULL or
 * "-".  A file that cannot be opened: "PROG: cannot write FILE: REASON" on
 * stderr and exit with status fail. */
FILE *cli_output(const char *prog, const char *path, int fail);
/* Closes what cli_output opened (flushes stdout): 0, or -1 after "PROG:
 * writing FILE failed: REASON" on stderr (a full disk, a closed pipe). */
int cli_output_close(const char *prog, FILE *f, const char *path);

#endif
