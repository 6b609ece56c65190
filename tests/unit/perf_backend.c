/* SPDX-License-Identifier: MIT */
/*
 * The perf backend on this thread's own task clock, without KVM: the thread
 * stands in for a vCPU thread, and "running the guest" is burning CPU between
 * switch-in (run_begin) and switch-out (run_end).  Bounds come from
 * CLOCK_THREAD_CPUTIME_ID, the same per-thread runtime the task clock counts,
 * read independently.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

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

static uint64_t rd(struct vpmu_vcpu *v, uint32_t msr)
{
	uint64_t val = 0;
	enum vpmu_fault f;
	vpmu_reg_read(v, VPMU_SPACE_MSR, msr, &val, &f);
	return val;
}

static enum vpmu_fault wr(struct vpmu_vcpu *v, uint32_t msr, uint64_t val)
{
	enum vpmu_fault f = VPMU_FAULT_NONE;
	vpmu_reg_write(v, VPMU_SPACE_MSR, msr, val, &f);
	return f;
}

int main(void)
{
	sigset_t kick;
	sigemptyset(&kick);
	sigaddset(&kick, KICK);
	sigprocmask(SIG_BLOCK, &kick, NULL);

	struct vpmu_perf *p = NULL;
	ok(vpmu_perf_create(0, KICK, &p) == -EINVAL, "create refuses zero host CPUs");
	ok(vpmu_perf_create(1, 0, &p) == -EINVAL, "create refuses a missing signal");
	ok(vpmu_perf_create(2, KICK, &p) == 0 && p, "create with 2 slots");
	if (!p)
		return tap_done();
	ok(vpmu_perf_bind(p, 2) == -EINVAL, "bind refuses a slot past the end");
	int r = vpmu_perf_bind(p, 0);
	ok(r == 0, "bind slot 0 to this thread's task clock (%s)", r ? vpmu_perf_error(p) : "ok");
	if (r)
		return tap_done();
	ok(vpmu_perf_bind(p, 0) == -EBUSY, "a second bind of the same slot is refused");
	ok(strcmp(vpmu_perf_source(p), "task-clock") == 0, "the counting source is the task clock");

	struct vpmu_backend be;
	struct vpmu_host *host;
	vpmu_perf_backend(p, &be);
	ok(vpmu_host_create(&be, 2, &host) == 0, "host over the perf backend");
	vpmu_perf_attach(p, host);
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	cfg.model = "p6";
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v;
	ok(vpmu_vm_create(host, &cfg, &vm) == 0 && vpmu_vcpu_create(vm, 0, &v) == 0, "P6 VM, vCPU 0");

	/* a-mode: cycles on counter 0, an event with no equivalent on counter 1. */
	vpmu_vcpu_switch_in(v, 0);
	wr(v, EVNTSEL1, P6_OS_USR | EV_DATA_MEM_REFS);
	wr(v, EVNTSEL0, P6_EN | P6_OS_USR | EV_CYCLES);
	vpmu_vcpu_switch_out(v);
	uint64_t t0 = thread_ns();
	vpmu_vcpu_switch_in(v, 0);
	uint64_t burnt = burn(20000000, 0);
	vpmu_vcpu_switch_out(v);
	uint64_t span = thread_ns() - t0;
	uint64_t c0 = rd(v, PERFCTR0);
	ok(c0 >= burnt * 95 / 100 && c0 <= span + span / 20,
	   "cycles counted the thread's time in the guest: %" PRIu64 " ns within [%" PRIu64
	   " burnt, %" PRIu64 " switched in]", c0, burnt, span);
	is_u64(rd(v, PERFCTR1), 0, "an encoding with no generic equivalent counts zero");

	/* Time between switch-out and switch-in is the VMM's, not the guest's. */
	burn(20000000, 0);
	vpmu_vcpu_switch_in(v, 0);
	vpmu_vcpu_switch_out(v);
	uint64_t c1 = rd(v, PERFCTR0);
	ok(c1 - c0 < 2000000, "20 ms burnt while switched out add < 2 ms (added %" PRIu64 " ns)",
	   c1 - c0);
	ok(!kick_pending(), "no overflow signal without an interrupt-enabled counter");

	/* Disabled: EVNTSEL0.EN clear stops both counters (P6 global enable). */
	vpmu_vcpu_switch_in(v, 0);
	wr(v, EVNTSEL0, P6_OS_USR | EV_CYCLES);
	vpmu_vcpu_switch_out(v);
	uint64_t c2 = rd(v, PERFCTR0);
	vpmu_vcpu_switch_in(v, 0);
	burn(10000000, 0);
	vpmu_vcpu_switch_out(v);
	is_u64(rd(v, PERFCTR0), c2, "a disabled counter does not count");

	/* i-mode: 3 ms to overflow; the signal must come at the overflow, not before,
	 * and the switch-out after it raises the PMI with counter 0's bit. */
	const uint64_t dist = 3000000;
	vpmu_vcpu_switch_in(v, 0);
	wr(v, PERFCTR0, (uint64_t)-(int64_t)dist);
	wr(v, EVNTSEL0, P6_EN | P6_INT | P6_OS_USR | EV_CYCLES);
	vpmu_vcpu_switch_out(v);
	vpmu_vcpu_switch_in(v, 0);
	uint64_t until_signal = burn(1000000000, 1);
	int signalled = kick_pending();
	vpmu_vcpu_switch_out(v);
	uint64_t mask = 0;
	ok(signalled, "the overflow signalled the bound thread (after %" PRIu64 " ns)", until_signal);
	ok(until_signal >= dist * 95 / 100, "not before the overflow distance (%" PRIu64 " >= %" PRIu64
	   " ns)", until_signal, dist);
	ok(vpmu_vcpu_pmi_pending(v, &mask) && mask == 1, "PMI pending with overflow mask 0x1 (0x%"
	   PRIx64 ")", mask);
	uint64_t after = rd(v, PERFCTR0);
	ok(after < 100000000, "the 40-bit counter wrapped past zero (reads %" PRIu64 ")", after);
	drain_kick();
	vpmu_vcpu_pmi_ack(v);

	/* The PMI handler's reload: distance armed again at the next switch-in. */
	vpmu_vcpu_switch_in(v, 0);
	wr(v, PERFCTR0, (uint64_t)-(int64_t)dist & MASK40);
	vpmu_vcpu_switch_out(v);
	vpmu_vcpu_switch_in(v, 0);
	until_signal = burn(1000000000, 1);
	signalled = kick_pending();
	vpmu_vcpu_switch_out(v);
	ok(signalled && vpmu_vcpu_pmi_pending(v, NULL),
	   "after the reload the next overflow signals again (after %" PRIu64 " ns)", until_signal);
	drain_kick();

	struct vpmu_totals t;
	vpmu_vm_totals(vm, &t);
	ok(t.pmis == 2, "the accounting counted 2 PMIs (%" PRIu64 ")", t.pmis);
	vpmu_vm_destroy(vm);
	vpmu_host_destroy(host);
	vpmu_perf_destroy(p);
	return tap_done();
}
