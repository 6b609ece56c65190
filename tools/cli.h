/* SPDX-License-Identifier: MIT */
/* The programs' shared command-line pieces. */
#ifndef VPMU_TOOLS_CLI_H
#define VPMU_TOOLS_CLI_H

/* s as a decimal number from lo to hi; otherwise "PROG: WHAT must be a number
 * from LO to HI, not 'S'" on stderr and exit status 2 (usage). */
unsigned cli_uint(const char *prog, const char *s, const char *what, unsigned lo, unsigned hi);

#endif
