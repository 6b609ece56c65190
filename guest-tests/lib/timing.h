/* SPDX-License-Identifier: MIT */
/*
 * Bounded waiting.  Nothing in a guest may wait forever: a vCPU spinning
 * without exits never returns from KVM_RUN (docs/testing.md), so every wait has
 * a TSC deadline and, in case the TSC does not advance, an iteration cap.
 *
 * The TSC rate is not known to the guest (the models' CPUID has no leaf 0x15,
 * there is no calibrated timer), so deadlines assume TSC_PER_US_ASSUMED ticks
 * per microsecond: a 3 GHz TSC.  A slower TSC makes every wait proportionally
 * longer, a faster one shorter; the waits below leave a large margin.
 */
#ifndef GUEST_TIMING_H
#define GUEST_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "x86.h"

#define TSC_PER_US_ASSUMED 3000u

struct deadline {
	uint64_t end_tsc;
	uint64_t iters, max_iters;
};

static inline void deadline_init_us(struct deadline *d, uint64_t us)
{
	d->end_tsc = rdtsc() + us * TSC_PER_US_ASSUMED;
	d->iters = 0;
	/* A backstop only: at least 1 ns per iteration. */
	d->max_iters = us * 1000 + 1000;
}

/* True once the deadline has passed; counts one iteration per call. */
static inline bool deadline_passed(struct deadline *d)
{
	return ++d->iters > d->max_iters || rdtsc() >= d->end_tsc;
}

/* Evaluates cond until it holds or ms milliseconds have passed; the result is
 * the last value of cond. */
#define WAIT_UNTIL(cond, ms) __extension__({ \
	struct deadline _d; \
	bool _ok; \
	deadline_init_us(&_d, (uint64_t)(ms) * 1000); \
	while (!(_ok = (cond)) && !deadline_passed(&_d)) \
		cpu_relax(); \
	_ok; \
})

/* Busy-waits about us microseconds (the vCPU keeps running: under the
 * task-clock host backend this is what makes the counters advance). */
void spin_us(uint64_t us);

#endif
