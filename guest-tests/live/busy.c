/* SPDX-License-Identifier: MIT */
/*
 * The live view's guest (tests/live-view.t, docs/accounting.md "Live view"):
 * every vCPU counts its cycles with counter 0 (as Linux's P6 and K7 drivers
 * program it) and reads the counter back after each stretch of work, one MSR
 * exit each, until vpmu-run's --timeout ends the run.  It never exits by
 * itself: what a live view watches is a VM that keeps running.
 */
#include "guest.h"

struct busy_regs {
	uint32_t ctrl, ctr;
	uint64_t cycles;      /* the event select for cycles, enabled, OS and USR */
};

/* Intel SDM vol. 3B, "P6 family processor performance monitoring" (EVNTSEL0
 * 0x186, PERFCTR0 0xC1, CPU_CLK_UNHALTED 0x79); AMD Athlon Processor x86 Code
 * Optimization Guide, "Performance monitoring counters" (PerfEvtSel0
 * 0xC0010000, PerfCtr0 0xC0010004, cycles 0x76). */
static const struct busy_regs p6 = { 0x186, 0xC1, 0x430079 };
static const struct busy_regs k7 = { 0xC0010000, 0xC0010004, 0x430076 };

static void busy(void *arg)
{
	(void)arg;
	const struct busy_regs *r = (opts.model[0] == 'k') ? &k7 : &p6;
	if (wrmsr_safe(r->ctrl, r->cycles) < 0)
		return;
	for (;;) {
		for (volatile unsigned i = 0; i < 200000; i++)
			;
		uint64_t v;
		rdmsr_safe(r->ctr, &v);
	}
}

void guest_main(void)
{
	if (strcmp(opts.model, "p6") && strcmp(opts.model, "k7") && strcmp(opts.model, "k8")) {
		char line[96];
		snprintf(line, sizeof(line), "vpmu live guest: model %s is not one it programs "
			 "(p6, k7, k8)", opts.model);
		console_line(line);
		return;
	}
	char line[96];
	snprintf(line, sizeof(line), "vpmu live guest: %u vCPU(s) counting cycles until the host "
		 "stops them", opts.vcpus);
	console_line(line);
	if (opts.vcpus > 1 && smp_wait_online(opts.vcpus, 2000))
		for (unsigned cpu = 1; cpu < opts.vcpus; cpu++)
			ap_run(cpu, busy, NULL);
	busy(NULL);
}
