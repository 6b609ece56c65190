/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the input is a trace file (docs/trace.md) replayed by
 * trace_run() with the sim backend.  A malformed trace or a failed expectation is
 * a normal outcome; a crash, a sanitizer report or a leak is a bug.
 */
#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_result res;
	unsigned tapno = 0;
	/* No diagnostics: printing would dominate the run time.  verbose=1 with a NULL
	 * tap stream still exercises the reporting branch. */
	trace_run("fuzz", (const char *)data, size, NULL, NULL, 1, &tapno, &res);
	return 0;
}
