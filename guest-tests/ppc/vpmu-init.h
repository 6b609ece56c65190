/* SPDX-License-Identifier: MIT */
/*
 * The PowerPC guest's /init (guest-tests/ppc/): what its checks share.
 *
 * Every check prints TAP-like lines on the console for the host's test
 * (tests/ppc-linux.t) to parse:
 *     VPMU ok N - CHECK: what held
 *     VPMU not ok N - CHECK: what should have held # expected X seen Y
 *     VPMU info CHECK: a measured value, for the log
 * and /init ends with "VPMU done passed P failed F".
 */
#ifndef VPMU_PPC_INIT_H
#define VPMU_PPC_INIT_H

#include <stdint.h>
#include <linux/perf_event.h>

/* Reporting (init.c). */
void pass(const char *check, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fail(const char *check, const char *expected, const char *seen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* ok: pass when cond, else fail with the two numbers as expected/seen. */
void expect(int cond, const char *check, uint64_t expected, uint64_t seen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void info(const char *check, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* /proc/interrupts (init.c): the "PMI" line's count on CPU 0 (Linux's
 * arch/powerpc/kernel/irq.c, arch_show_interrupts()), and the sum of CPU 0's
 * column over every line (all interrupts taken). */
uint64_t irq_pmi(void);
uint64_t irq_all(void);

/* perf_event_open(2) without a wrapper in glibc. */
int perf_open(struct perf_event_attr *attr, int group_fd);
/* A counting attr for TYPE/CONFIG with the exclusions given. */
void perf_attr(struct perf_event_attr *a, uint32_t type, uint64_t config, int excl_user, int excl_kernel);

/*
 * The loop of known length: N iterations of `addi; bdnz`, two instructions
 * each, after `mtctr` (so 2N + 1 instructions in all; N >= 1).  Counts
 * taken around two lengths N1 and N2 differ by exactly 2 (N2 - N1): the
 * rest of the measured region (the ioctls' user-state halves, this
 * function's call and return) is the same in both.
 */
static inline __attribute__((always_inline)) void loop(unsigned long n)
{
	unsigned long x = 0;

	__asm__ volatile("mtctr %1\n"
			 "1:\taddi %0,%0,1\n\t"
			 "bdnz 1b"
			 : "+r"(x)
			 : "r"(n)
			 : "ctr");
}

/* The checks; each prints its own lines. */
void check_count(void);
void check_sample(void);
void check_six(void);
void check_sysfs(void);
void check_upmc(void);
void check_profile(void);
void check_rules(void);
void check_strict(void);

#endif
