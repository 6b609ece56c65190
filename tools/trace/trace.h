/* SPDX-License-Identifier: MIT */
/* The trace language replayer (docs/trace.md). */
#ifndef VPMU_TOOLS_TRACE_H
#define VPMU_TOOLS_TRACE_H

#include <stddef.h>
#include <stdio.h>

#include "accounting/acct_formats.h"

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

/* After each well-formed trace, its VMs' accounting in format f to out (NULL,
 * the default: none). */
void trace_set_accounting(FILE *out, enum acct_format f);

/* Instead: after each well-formed trace, the snapshots of its n VMs are handed
 * to sink, which owns them from then on (acct_vms_release); vpmu-trace gathers
 * the VMs of every file into one document so.  Replaces trace_set_accounting. */
typedef void trace_accounting_sink(void *arg, const char *trace, struct acct_vm *vms,
				   unsigned n);
void trace_set_accounting_sink(trace_accounting_sink *sink, void *arg);

#endif
