/* SPDX-License-Identifier: MIT */
/*
 * The steps of a KVM run loop (include/vpmu/kvm_x86.h, "The steps";
 * docs/integration.md, "Your own run loop"): answering the vPMU's exits, the
 * work before an entry and after a return from KVM_RUN, pause, resume and
 * reset; and vpmu_kvm_vcpu_run(), the glue's own loop over them.  The exit
 * path is that of KVM's selftest x86/userspace_msr_exit_test.c and
 * Documentation/virt/kvm/api.rst (KVM_EXIT_X86_RDMSR/WRMSR, KVM_RUN's EINTR
 * and EAGAIN).
 */
#include <errno.h>
#include <linux/kvm.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "kvm_gate.h"
#include "kvm_vcpu.h"
#include "vpmu/kvm_x86.h"

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Whether msr is in the sorted list: a binary search inline, a few
 * compares on the exit path (a hundred MSRs or so). */
static bool trapped(const struct vpmu_kvm_vcpu *kv, uint32_t msr)
{
	unsigned lo = 0, hi = kv->nr_trapped;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (kv->trapped[mid] < msr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < kv->nr_trapped && kv->trapped[lo] == msr;
}

/* The vPMU's exits: an RDPMC exit (only the glue enables that reason), and
 * the filter's exits of the MSRs it made exit.  Another reason
 * (KVM_MSR_EXIT_REASON_UNKNOWN, _INVAL) or an MSR of the VMM's own is the
 * VMM's. */
static bool vpmu_exit(const struct vpmu_kvm_vcpu *kv, const struct kvm_run *run)
{
	if (run->exit_reason == KVM_EXIT_X86_RDMSR && run->msr.reason == KVM_MSR_EXIT_REASON_RDPMC)
		return true;
	return run->msr.reason == KVM_MSR_EXIT_REASON_FILTER && trapped(kv, run->msr.index);
}

static void answer_msr(struct vpmu_kvm_vcpu *kv)
{
	struct kvm_run *run = kv->run;
	bool write = run->exit_reason == KVM_EXIT_X86_WRMSR;
	enum vpmu_fault f = VPMU_FAULT_NONE;
	uint64_t data = run->msr.data;
	if (!write && run->msr.reason == KVM_MSR_EXIT_REASON_RDPMC) {
		/* RDPMC: ECX is in msr.index; the model says what it reads. */
		if (vpmu_rdpmc(kv->vcpu, run->msr.index, &data, &f) < 0)
			f = VPMU_FAULT_NO_REG;
		kv->stats.rdpmc_exits++;
	} else if (write) {
		if (vpmu_reg_write(kv->vcpu, VPMU_SPACE_MSR, run->msr.index, data, &f) < 0)
			f = VPMU_FAULT_NO_REG;
	} else if (vpmu_reg_read(kv->vcpu, VPMU_SPACE_MSR, run->msr.index, &data, &f) < 0) {
		f = VPMU_FAULT_NO_REG;
	}
	if (!write)
		run->msr.data = f ? 0 : data;
	/* KVM injects #GP for a non-zero error when the vCPU next enters. */
	run->msr.error = f != VPMU_FAULT_NONE;
	kv->stats.msr_exits++;
	kv->stats.msr_faults += f != VPMU_FAULT_NONE;
}

int vpmu_kvm_vcpu_handle_exit(struct vpmu_kvm_vcpu *kv, struct kvm_run *run)
{
	if (!kv || run != kv->run)
		return -EINVAL;
	if ((run->exit_reason != KVM_EXIT_X86_RDMSR && run->exit_reason != KVM_EXIT_X86_WRMSR) ||
	    !vpmu_exit(kv, run))
		return 0;
	/* libvpmu's time on one exit in VPMU_KVM_TIMED_EXITS runs from here to
	 * the next entry (stats.msr_ns), less the PMI delivery's. */
	if (kv->stats.msr_exits % VPMU_KVM_TIMED_EXITS == 0)
		kv->msr_t0 = mono_ns();
	answer_msr(kv);
	return 1;
}

int vpmu_kvm_vcpu_resume(struct vpmu_kvm_vcpu *kv, unsigned host_cpu, char err[VPMU_KVM_ERRLEN])
{
	if (!kv)
		return kvm_glue_fail(err, EINVAL, "vpmu_kvm_vcpu_resume: no vCPU");
	/* An exit to user space is not a vCPU switch: the virtual PMU stays
	 * switched in until the thread stops running the vCPU
	 * (vpmu_kvm_vcpu_pause) or runs it on another host CPU slot. */
	unsigned cur;
	if (vpmu_vcpu_running(kv->vcpu, &cur) && cur != host_cpu)
		vpmu_vcpu_switch_out(kv->vcpu);
	if (!vpmu_vcpu_running(kv->vcpu, NULL)) {
		int r = vpmu_vcpu_switch_in(kv->vcpu, host_cpu);
		if (r < 0)
			return kvm_glue_fail(err, -r, "vpmu_vcpu_switch_in(host CPU %u)", host_cpu);
	}
	return 0;
}

/* The virtual PMU's part of an entry: the PMI, what the exit changed, KVM's
 * RDPMC counters, the exit's time, a live-accounting request. */
static int enter_work(struct vpmu_kvm_vcpu *kv, char *err)
{
	if (vpmu_vcpu_pmi_pending(kv->vcpu, NULL) || kv->pmi.held) {
		/* A PMI's delivery is KVM calls (the LAPIC read, the mask's write,
		 * the injection: tens of microseconds nested, where libvpmu's own
		 * work on an exit is a few): timed apart, every time
		 * (stats.pmi_ns), and left out of the exit's time. */
		const char *what = "";
		uint64_t p0 = mono_ns();
		int r = kvm_pmi_deliver(&kv->pmi, kv->vcpu, &kv->stats, &what);
		uint64_t d = mono_ns() - p0;
		kv->stats.pmi_ns += d;
		kv->stats.pmi_timed++;
		if (kv->msr_t0)
			kv->msr_t0 += d;
		if (r < 0)
			return kvm_glue_fail(err, -r, "%s", what);
	}
	/* What this exit's accesses changed reaches the host counters now. */
	vpmu_vcpu_enter(kv->vcpu);
	if (kv->rdpmc == VPMU_KVM_RDPMC_SYNC) {
		int r = kvm_rdpmc_sync(kv->vcpu_fd, kv->vcpu, &kv->sync);
		if (r < 0)
			return kvm_glue_fail(err, -r, "KVM_SET_MSRS (KVM's RDPMC counters)");
		kv->stats.rdpmc_syncs += (uint64_t)r;
	}
	if (kv->msr_t0) {
		kv->stats.msr_ns += mono_ns() - kv->msr_t0;
		kv->stats.msr_timed++;
		kv->msr_t0 = 0;
	}
	/* A live-accounting request is answered here, with the counts this
	 * entry's changes left (kvm_live.h). */
	kvm_live_serve(&kv->live, kv->vcpu, &kv->stats);
	return 0;
}

int vpmu_kvm_vcpu_pre_run(struct vpmu_kvm_vcpu *kv, char err[VPMU_KVM_ERRLEN])
{
	if (!kv)
		return kvm_glue_fail(err, EINVAL, "vpmu_kvm_vcpu_pre_run: no vCPU");
	/* Paused, the virtual PMU has no work before the entry. */
	if (vpmu_vcpu_running(kv->vcpu, NULL)) {
		int r = enter_work(kv, err);
		if (r < 0)
			return r;
	}
	/* Into KVM_RUN through the VM's LVTPC write gate (kvm_gate.h): not while
	 * another vCPU rewrites its LAPIC page.  Last, so that nothing between
	 * here and KVM_RUN waits for that vCPU. */
	if (kv->pmi.gate)
		kvm_gate_enter(kv->pmi.gate, kv->pmi.index);
	return 0;
}

int vpmu_kvm_vcpu_post_run(struct vpmu_kvm_vcpu *kv, int run_ret)
{
	if (!kv)
		return -EINVAL;
	if (kv->pmi.gate)
		kvm_gate_leave(kv->pmi.gate, kv->pmi.index);
	if (run_ret == -EINTR) {
		/* Consume the kick (blocked outside KVM_RUN, it stays pending and
		 * would end the next KVM_RUN at once; a VMM that leaves it
		 * unblocked has none pending), then land what an overflow signal
		 * kicked for: its PMI is injected at the next entry. */
		sigset_t kick;
		struct timespec zero = { 0, 0 };
		sigemptyset(&kick);
		sigaddset(&kick, kv->signo);
		while (sigtimedwait(&kick, NULL, &zero) > 0)
			;
		if (vpmu_vcpu_running(kv->vcpu, NULL)) {
			vpmu_vcpu_poll(kv->vcpu);
			kv->stats.kicks++;
		}
	}
	return 0;
}

int vpmu_kvm_vcpu_run(struct vpmu_kvm_vcpu *kv, unsigned host_cpu, char err[VPMU_KVM_ERRLEN])
{
	if (!kv)
		return kvm_glue_fail(err, EINVAL, "vpmu_kvm_vcpu_run: no vCPU");
	int r = vpmu_kvm_vcpu_resume(kv, host_cpu, err);
	if (r < 0)
		return r;
	for (;;) {
		r = vpmu_kvm_vcpu_pre_run(kv, err);
		if (r < 0)
			return r;
		r = ioctl(kv->vcpu_fd, KVM_RUN, 0) < 0 ? -errno : 0;
		vpmu_kvm_vcpu_post_run(kv, r);
		/* A kick: the caller decides whether to run again. */
		if (r == -EINTR)
			return -EINTR;
		/* A vCPU waiting for INIT/SIPI (an application processor before
		 * Linux starts it) leaves KVM_RUN with EAGAIN when its state
		 * changes: run it again, as KVM's api.rst has user space do. */
		if (r == -EAGAIN)
			continue;
		if (r < 0)
			return kvm_glue_fail(err, -r, "KVM_RUN");
		if (vpmu_kvm_vcpu_handle_exit(kv, kv->run) != 1)
			return 0;
	}
}

int vpmu_kvm_vcpu_pause(struct vpmu_kvm_vcpu *kv)
{
	if (!kv)
		return -EINVAL;
	int r = 0;
	if (vpmu_vcpu_running(kv->vcpu, NULL))
		r = vpmu_vcpu_switch_out(kv->vcpu);
	/* An exit answered just before the pause is not timed across it. */
	kv->msr_t0 = 0;
	/* A paused vCPU answers no request: its landed counts are the answer to
	 * every one made so far. */
	kvm_live_publish(&kv->live, kv->vcpu, &kv->stats,
			 atomic_load_explicit(&kv->live.requested, memory_order_relaxed));
	return r;
}

int vpmu_kvm_vcpu_reset(struct vpmu_kvm_vcpu *kv)
{
	if (!kv)
		return -EINVAL;
	int r = vpmu_vcpu_reset(kv->vcpu);
	/* A PMI held for the LVTPC's unmask goes with the status that held it;
	 * KVM's own reset zeroes its counters (kvm_pmu_reset), so the RDPMC sync
	 * loads them all again (no 48-bit value matches all-ones). */
	kv->pmi.held = false;
	kvm_pmi_disarm(&kv->pmi);
	memset(kv->sync.synced, 0xff, sizeof(kv->sync.synced));
	kv->msr_t0 = 0;
	return r;
}
