/* SPDX-License-Identifier: MIT */
/* Minimal TAP producer for the unit tests (run under prove). */
#ifndef VPMU_TAP_H
#define VPMU_TAP_H
#include <inttypes.h>
#include <stdio.h>

static unsigned tap_n, tap_failed;

#define ok(cond, ...) do { \
	int ok_ = !!(cond); \
	printf("%sok %u - ", ok_ ? "" : "not ", ++tap_n); \
	printf(__VA_ARGS__); \
	printf("\n"); \
	if (!ok_) { tap_failed++; printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define is_u64(got, want, ...) do { \
	uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want); \
	ok(g_ == w_, __VA_ARGS__); \
	if (g_ != w_) printf("#   got 0x%" PRIx64 ", want 0x%" PRIx64 "\n", g_, w_); \
} while (0)

static inline int tap_done(void)
{
	printf("1..%u\n", tap_n);
	return tap_failed ? 1 : 0;
}
#endif
