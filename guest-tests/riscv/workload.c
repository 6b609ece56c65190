// SPDX-License-Identifier: MIT
/*
 * The RISC-V guest's workload (guest-tests/riscv/init), static riscv64:
 *
 *   vpmu-rv-workload loop N      N iterations of a two-instruction loop
 *                                (addi, bnez): at least 2N instructions
 *                                retired in user mode, whatever the core
 *   vpmu-rv-workload profile R   R rounds of work_hot, work_warm and
 *                                work_cold, of 6:3:1 chunks of the same
 *                                loop: perf record's profile puts them in
 *                                that order
 *
 * Each chunk of the profile ends in a short sleep.  Linux 6.12's SBI PMU
 * driver (drivers/perf/riscv_pmu_sbi.c, pmu_sbi_start_ovf_ctrs_snapshot())
 * restarts the counters after an overflow with a counter base of
 * idx * BITS_PER_LONG, idx being the for_each_set_bit() variable left past
 * the last bit, which the SBI implementation refuses (SBI spec v2.0,
 * "Counter start": SBI_ERR_INVALID_PARAM for a base and mask beyond the
 * counters); the sampling counter then stays stopped until perf schedules
 * the event in again, which a context switch (the sleep) does.  A chunk is
 * longer than the sampling period, so each chunk can take a sample whether
 * the driver restarts the counter or not, and the profile keeps the 6:3:1
 * proportions either way.
 * Built with -O1 -fno-inline, symbols kept: perf report resolves the
 * samples against this file's symbol table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* n (> 0) iterations of exactly two instructions (RISC-V ISA manual: ADDI,
 * BNEZ = BNE rs, x0), in asm so that no compiler changes the count; a macro,
 * so that each function's samples fall in that function's own code */
#define LOOP(n)                                                                       \
	do {                                                                          \
		unsigned long n_ = (n);                                               \
		if (n_)                                                               \
			__asm__ volatile("1: addi %0, %0, -1\n\tbnez %0, 1b" : "+r"(n_)); \
	} while (0)

static unsigned long chunk = 2000000;

static void pause_briefly(void)
{
	struct timespec ts = { 0, 1000000 }; /* 1 ms: long enough to sleep (a context switch) under emulation too */

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void work_hot(void)
{
	for (int i = 0; i < 6; i++) {
		LOOP(chunk);
		pause_briefly();
	}
}

__attribute__((noinline)) void work_warm(void)
{
	for (int i = 0; i < 3; i++) {
		LOOP(chunk);
		pause_briefly();
	}
}

__attribute__((noinline)) void work_cold(void)
{
	LOOP(chunk);
	pause_briefly();
}

static unsigned long number(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "vpmu-rv-workload: not a number: %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "loop")) {
		LOOP(number(argv[2]));
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "profile")) {
		unsigned long rounds = number(argv[2]);

		if (argc >= 4)
			chunk = number(argv[3]);
		for (unsigned long r = 0; r < rounds; r++) {
			work_hot();
			work_warm();
			work_cold();
		}
		return 0;
	}
	fprintf(stderr, "usage: vpmu-rv-workload loop N | profile ROUNDS [CHUNK]\n");
	return 2;
}
