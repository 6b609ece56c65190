/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

unsigned cli_uint(const char *prog, const char *s, const char *what, unsigned lo, unsigned hi)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || !*s || v < lo || v > hi) {
		fprintf(stderr, "%s: %s must be a number from %u to %u, not '%s'\n", prog, what, lo,
			hi, s);
		exit(2);
	}
	return (unsigned)v;
}
