/* SPDX-License-Identifier: MIT */
/*
 * What the libFuzzer targets share: reading the input as a byte stream, and
 * aborting with a message when an invariant fails.  Define FUZZ_NAME (the target's
 * name) before including.
 */
#ifndef VPMU_FUZZ_INPUT_H
#define VPMU_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The checks' own comparisons are no coverage worth guiding the mutations by:
 * uninstrumented (and not inlined into instrumented code), they cost little. */
#define NO_COVERAGE __attribute__((no_sanitize("coverage"), noinline))

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, FUZZ_NAME ": invariant failed at %s:%d: %s: ", \
			__FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

struct input {
	const uint8_t *p;
	size_t n;
};

/* The next byte; 0 once the input is used up. */
NO_COVERAGE static inline uint8_t take8(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* The next k bytes, little-endian. */
NO_COVERAGE static inline uint64_t take_bytes(struct input *in, unsigned k)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < k; i++)
		v |= (uint64_t)take8(in) << (8 * i);
	return v;
}

#endif
