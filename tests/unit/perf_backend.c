/* SPDX-License-Identifier: MIT */
/*
 * The perf backend's software path (no host PMU: VPMU_PERF_NO_HOST_PMU, so the
 * test means the same on a host that has one) on this thread's own task clock,
 * without KVM: the thread stands in for a vCPU thread, and "running the guest"
 * is burning CPU while switched in.  Cycles advance with the task clock scaled
 * by the TSC frequency given at bind; bounds come from CLOCK_THREAD_CPUTIME_ID,
 * the same per-thread runtime the task clock counts, read independently.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "guest_msr.h"
#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

#define TSC_KHZ 2000000u     /* a 2 GHz guest TSC: 2 cycles per ns of task clock */

#define EVNTSEL0 0x186
#define EVNTSEL1 0x187
#define PERFCTR0 0xC1
#define PERFCTR1 0xC2
#define P6_EN  0x400000u
#define P6_INT 0x100000u
#define P6_OS_USR 0x30000u
#define EV_CYCLES 0x79u        /* CPU_CLK_UNHALTED: generic cycles */
#define EV_DATA_MEM_REFS 0x43u /* no generic equivalent: counts zero (docs/principles.md §5) */
#define MASK40 ((1ull << 40) - 1)
#define KICK SIGUSR1

static uint64_t thread_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static volatile uint64_t sink;

/* Burn `ns` of this thread's CPU time, or until `stop_on_signal` is pending.
 * Returns the CPU time burnt. */
static uint64_t burn(uint64_t ns, int stop_on_signal)
{
	uint64_t t0 = thread_ns(), t;
	do {
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i * sink + 1;
		t = thread_ns();
		if (stop_on_signal) {
			sigset_t p;
			sigpending(&p);
			if (sigismember(&p, KICK))
				break;
		}
	} while (t - t0 < ns);
	return t - t0;
}

static int kick_pending(void)
{
	sigset_t p;
	sigpending(&p);
	return sigismember(&p, KICK);
}

static void drain_kick(void)
{
	sigset_t s;
	struct timespec zero = { 0, 0 };
	sigemptyset(&s);
	sigaddset(&s, KICK);
	while (sigtimedwait(&s, NULL, &zero) > 0)
		;
}

int main(void)
{
	sigset_t kick;
	sigemptyset(&kick);
	sigaddset(&kick, KICK);
	sigprocmask(SIG_BLOCK, &kick, NULL);

	struct vpmu_perf *p = NULL;
	ok(vpmu_perf_create(0, KICK, 0, &p) == -EINVAL, "create refuses zero host CPUs");
	ok(vpmu_perf_create(1, 0, 0, &p) == -EINVAL, "create refuses a missing signal");
	ok(vpmu_perf_create(2, KICK, VPMU_PERF_NO_HOST_PMU, &p) == 0 && p, "create with 2 slots");
	if (!p)
		return tap_done();
	ok(!vpmu_perf_host_pmu(p), "VPMU_PERF_NO_HOST_PMU: the task clock counts");
	ok(vpmu_perf_bind(p, 2, TSC_KHZ) == -EINVAL, "bind refuses a slot past the end");
	int r = vpmu_perf_bind(p, 0, TSC_KHZ);
	ok(r == 0, "bind slot 0 to this thread's task clock (%s)", r ? vpmu_perf_error(p) : "ok");
	if (r)
		return tap_done();
	ok(vpmu_perf_bind(p, 0, TSC_KHZ) == -EBUSY, "a second bind of the same slot is refused");

	struct vpmu_backend be;
	struct vpmu_host *host;
	vpmu_perf_backend(p, &be);
	ok(vpmu_host_create(&be, 2, &host) == 0, "host over the perf backend");
	vpmu_perf_attach(p, host);
	const char *why;
	ok(vpmu_host_event_source(host, VPMU_EV_CYCLES, &why) == VPMU_COUNT_TASK_CLOCK,
	   "cycles: the scaled task clock (%s)", why);
	ok(vpmu_host_event_source(host, VPMU_EV_INSTRUCTIONS, &why) == VPMU_COUNT_NONE &&
	   strstr(why, "not countable"), "instructions: not countable here (%s)", why);
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	cfg.model = "p6";
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v;
	ok(vpmu_vm_create(host, &cfg, &vm) == 0 && vpmu_vcpu_create(vm, 0, &v) == 0, "P6 VM, vCPU 0");

	/* a-mode: cycles on counter 0, an event with no equivalent on counter 1. */
	vpmu_vcpu_switch_in(v, 0);
	wr(v, EVNTSEL1, P6_OS_USR | EV_DATA_MEM_REFS);
	wr(v, EVNTSEL0, P6_EN | P6_OS_USR | EV_CYCLES);
	vpmu_vcpu_enter(v);
	uint64_t t0 = thread_ns(), c_start = rd(v, PERFCTR0);
	vpmu_vcpu_enter(v);   /* each read is an exit: the guest runs again */
	uint64_t burnt = burn(20000000, 0);
	uint64_t c0 = rd(v, PERFCTR0) - c_start, span = thread_ns() - t0;
	ok(c0 >= burnt * 2 * 95 / 100 && c0 <= span * 2 + span / 10,
	   "cycles followed the thread's time at 2 per ns: %" PRIu64 " within [%" PRIu64
	   ", %" PRIu64 "]", c0, burnt * 2 * 95 / 100, span * 2 + span / 10);
	is_u64(rd(v, PERFCTR1), 0, "an encoding with no generic equivalent counts zero");

	/* The guest does not run while the VMM handles an exit: its counters
	 * stand still until the next entry, and what counted before a control
	 * change all belongs to the old event. */
	uint64_t in_exit = rd(v, PERFCTR0);
	burn(5000000, 0);
	is_u64(rd(v, PERFCTR0), in_exit, "5 ms of the VMM's time within one exit count nothing");
	struct vpmu_totals tot0, tot1;
	vpmu_vcpu_totals(v, &tot0);
	wr(v, EVNTSEL1, P6_OS_USR | EV_CYCLES);
	burn(5000000, 0);
	wr(v, EVNTSEL1, P6_OS_USR | EV_DATA_MEM_REFS);
	vpmu_vcpu_totals(v, &tot1);
	is_u64(tot1.events[VPMU_EV_CYCLES] - tot0.events[VPMU_EV_CYCLES], 0,
	       "counter 1 switched to cycles and back within one exit counted no cycles");
	vpmu_vcpu_enter(v);

	/* Reading while the thread has not been scheduled out costs no read(2). */
	struct vpmu_perf_stats st0, st1;
	vpmu_perf_stats(p, &st0);
	for (int i = 0; i < 1000; i++) {
		vpmu_vcpu_enter(v);
		sink += rd(v, PERFCTR0);
	}
	vpmu_perf_stats(p, &st1);
	ok(st1.clock_reads_saved > st0.clock_reads_saved && st1.reads - st0.reads < 1000,
	   "1000 exits reading a counter: %" PRIu64 " without a syscall, %" PRIu64 " read(2)s",
	   st1.clock_reads_saved - st0.clock_reads_saved, st1.reads - st0.reads);
	/* ... and a sleep (a sched-out and in) is seen: the clock did not advance. */
	uint64_t before_sleep = rd(v, PERFCTR0);
	vpmu_vcpu_enter(v);
	struct timespec ms20 = { 0, 20000000 };
	nanosleep(&ms20, NULL);
	uint64_t slept = rd(v, PERFCTR0) - before_sleep;
	ok(slept < 2 * 2000000, "20 ms asleep add < 2 ms of cycles (added %" PRIu64 ")", slept);

	/* Time between switch-out and switch-in is the VMM's, not the guest's. */
	vpmu_vcpu_switch_out(v);
	uint64_t c1 = rd(v, PERFCTR0);
	burn(20000000, 0);
	vpmu_perf_stats(p, &st0);
	vpmu_vcpu_switch_in(v, 0);
	vpmu_vcpu_switch_out(v);
	vpmu_perf_stats(p, &st1);
	uint64_t c2 = rd(v, PERFCTR0);
	ok(c2 - c1 < 2 * 2000000, "20 ms burnt while switched out add < 2 ms (added %" PRIu64 ")",
	   c2 - c1);
	ok(st1.opens == st0.opens && st1.period_sets == st0.period_sets && st1.closes == st0.closes,
	   "a cache-hit switch pair opens, arms and closes nothing (%" PRIu64 " read(2)s)",
	   st1.reads - st0.reads);
	ok(!kick_pending(), "no overflow signal without an interrupt-enabled counter");

	/* Disabled: EVNTSEL0.EN clear stops both counters (P6 global enable). */
	vpmu_vcpu_switch_in(v, 0);
	wr(v, EVNTSEL0, P6_OS_USR | EV_CYCLES);
	vpmu_vcpu_enter(v);
	uint64_t c3 = rd(v, PERFCTR0);
	burn(10000000, 0);
	is_u64(rd(v, PERFCTR0), c3, "a disabled counter does not count");

	/* i-mode: 6M cycles (3 ms) to overflow; the signal must come at the
	 * overflow, not before, and the poll after it raises the PMI with counter
	 * 0's bit. */
	const uint64_t dist = 6000000;
	wr(v, PERFCTR0, (uint64_t)-(int64_t)dist);
	wr(v, EVNTSEL0, P6_EN | P6_INT | P6_OS_USR | EV_CYCLES);
	vpmu_vcpu_enter(v);
	uint64_t until_signal = burn(1000000000, 1);
	int signalled = kick_pending();
	uint64_t mask = 0;
	ok(!vpmu_vcpu_pmi_pending(v, NULL), "no PMI before the poll");
	vpmu_vcpu_poll(v);
	ok(signalled, "the overflow signalled the bound thread (after %" PRIu64 " ns)", until_signal);
	ok(until_signal * 2 >= dist * 95 / 100, "not before the overflow distance (%" PRIu64
	   " cycles >= %" PRIu64 ")", until_signal * 2, dist);
	ok(vpmu_vcpu_pmi_pending(v, &mask) && mask == 1, "PMI pending with overflow mask 0x1 (0x%"
	   PRIx64 ")", mask);
	uint64_t after = rd(v, PERFCTR0);
	ok(after < 200000000, "the 40-bit counter wrapped past zero (reads %" PRIu64 ")", after);
	/* Counter 0 to a-mode and back to i-mode: perfctr's iresume writes back
	 * the value it holds, and the wrap must not come back as a lap of 2^40
	 * in the accounting. */
	struct vpmu_totals tw;
	wr(v, EVNTSEL0, P6_EN | P6_OS_USR | EV_CYCLES);
	wr(v, EVNTSEL0, P6_EN | P6_INT | P6_OS_USR | EV_CYCLES);
	uint64_t after_resume = rd(v, PERFCTR0);
	vpmu_vcpu_switch_out(v);   /* folds what counted into the accounting */
	vpmu_vcpu_totals(v, &tw);
	vpmu_vcpu_switch_in(v, 0);
	ok(after_resume == after && tw.pmc[0] < (1ull << 39),
	   "a write-back after the wrap keeps the value (%" PRIu64 ") and invents no lap "
	   "(counter 0 counted %" PRIu64 ")", after_resume, tw.pmc[0]);
	drain_kick();
	vpmu_vcpu_pmi_ack(v);

	/* The PMI handler's reload: the distance is armed again at the next entry. */
	wr(v, PERFCTR0, (uint64_t)-(int64_t)dist & MASK40);
	vpmu_vcpu_enter(v);
	until_signal = burn(1000000000, 1);
	signalled = kick_pending();
	vpmu_vcpu_poll(v);
	ok(signalled && vpmu_vcpu_pmi_pending(v, NULL),
	   "after the reload the next overflow signals again (after %" PRIu64 " ns)", until_signal);
	drain_kick();
	vpmu_vcpu_switch_out(v);

	struct vpmu_totals t;
	vpmu_vm_totals(vm, &t);
	ok(t.pmis == 2, "the accounting counted 2 PMIs (%" PRIu64 ")", t.pmis);
	ok(t.events[VPMU_EV_CYCLES] >= c0, "the accounting counted the cycles (%" PRIu64 ")",
	   t.events[VPMU_EV_CYCLES]);
	ok(vpmu_vcpu_enter(v) == -EINVAL && vpmu_vcpu_poll(v) == -EINVAL,
	   "enter and poll refuse a vCPU that is not switched in");

	/* A slot bound without a TSC frequency has no clock: cycles count nothing. */
	ok(vpmu_perf_bind(p, 1, 0) == 0, "bind slot 1 without a TSC frequency");
	struct vpmu_vcpu *v1;
	ok(vpmu_vcpu_create(vm, 1, &v1) == 0 && vpmu_vcpu_switch_in(v1, 1) == 0, "vCPU 1 on slot 1");
	wr(v1, EVNTSEL0, P6_EN | P6_OS_USR | EV_CYCLES);
	vpmu_vcpu_enter(v1);
	burn(5000000, 0);
	is_u64(rd(v1, PERFCTR0), 0, "without a TSC frequency the cycles counter stays at zero");
	vpmu_vcpu_switch_out(v1);
	vpmu_vm_destroy(vm);
	vpmu_host_destroy(host);
	vpmu_perf_destroy(p);
	return tap_done();
}
