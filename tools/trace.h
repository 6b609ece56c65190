/* SPDX-License-Identifier: MIT */
/* The trace language replayer (docs/trace.md). */
#ifndef VPMU_TOOLS_TRACE_H
#define VPMU_TOOLS_TRACE_H

#include <stddef.h>
#include <stdio.h>

#include "acct_snapshot.h"

struct trace_result {
	unsigned checks;     /* expectations evaluated */
	unsigned failed;     /* expectations that did not hold */
	int error;           /* 1 if the trace itself is malformed (file fails) */
};

/* Replay `len` bytes of trace text named `name`.  Diagnostics ("NAME:LINE: ...")
 * go to `diag`; with `verbose`, one TAP line per expectation goes to `tap` with
 * numbers starting at *tapno (advanced).  `diag`/`tap` may be NULL (fuzzing). */
void trace_run(const char *name, const char *text, size_t len, FILE *diag, FILE *tap,
	       int verbose, unsigned *tapno, struct trace_result *res);

/* Print every VM's accounting (tools/accounting.h) to `out` at the end of each
 * well-formed trace; NULL (the default) prints none. */
/* After each trace, its VMs' accounting in format f to out (NULL: none). */
void trace_set_accounting(FILE *out, enum acct_format f);

#endif
