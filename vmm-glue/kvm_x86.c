/* SPDX-License-Identifier: MIT */
/*
 * KVM x86 glue (include/vpmu/kvm_x86.h, docs/integration.md): user-space MSR
 * exits answered by libvpmu, and virtual PMIs injected through the guest's LVTPC.
 * The KVM interfaces are those of Linux Documentation/virt/kvm/api.rst
 * (KVM_CAP_X86_USER_SPACE_MSR, KVM_X86_SET_MSR_FILTER, KVM_SIGNAL_MSI, KVM_NMI,
 * KVM_GET_LAPIC/KVM_SET_LAPIC); KVM's selftest x86/userspace_msr_exit_test.c is
 * the reference for the exit path.  The glue names no CPU model: what traps, what
 * the guest's CPUID says and whether PMI delivery masks the LVTPC all come from
 * the models through the public API.  Here: the VM's setup, the vCPU's
 * (vpmu_kvm_vcpu_init and the conveniences of vpmu_kvm_vcpu_setup) and its
 * queries; the steps of the run loop are in kvm_steps.c.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "kvm_gate.h"
#include "kvm_vcpu.h"
#include "vm_glue.h"
#include "vpmu/kvm_x86.h"

/* Filter ranges: at most KVM_MSR_FILTER_MAX_RANGES (16, api.rst); one range's
 * bitmap spans at most this many MSRs, so far-apart groups get ranges of their
 * own. */
#define FILTER_SPAN 256
#define MAX_FILTER_MSRS KVM_TRAPPED_MSRS

int kvm_glue_fail(char *err, int e, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(err, VPMU_KVM_ERRLEN, fmt, ap);
		va_end(ap);
		if (n >= 0 && n < VPMU_KVM_ERRLEN)
			snprintf(err + n, (size_t)(VPMU_KVM_ERRLEN - n), ": %s", strerror(e));
	}
	return -e;
}

/* The MSRs that must exit: every PMU MSR of every model, and those the VM's
 * model owns beside its PMU (vpmu_vm_trapped_regs), sorted and unique.  The
 * VM's model answers the ones it owns and faults the rest, so a guest probing
 * another family's registers (Linux's check_hw_exists(), perfctr's detection)
 * sees #GP exactly as on the CPU it is shown, and `generic` faults them all. */
static unsigned filter_msrs(const struct vpmu_vm *vm, uint32_t *msrs)
{
	unsigned n = vpmu_vm_trapped_regs(vm, VPMU_SPACE_MSR, msrs, MAX_FILTER_MSRS);
	return n < MAX_FILTER_MSRS ? n : MAX_FILTER_MSRS;
}

static int set_msr_filter(int vm_fd, const struct vpmu_vm *vm, char *err)
{
	uint32_t msrs[MAX_FILTER_MSRS];
	/* KVM copies the bitmaps during the ioctl: they need not outlive it. */
	uint8_t bitmaps[KVM_MSR_FILTER_MAX_RANGES][FILTER_SPAN / 8];
	struct kvm_msr_filter f;
	memset(&f, 0, sizeof(f));
	f.flags = KVM_MSR_FILTER_DEFAULT_ALLOW;
	unsigned n = filter_msrs(vm, msrs), r = 0;
	for (unsigned i = 0; i < n;) {
		if (r == KVM_MSR_FILTER_MAX_RANGES)
			return kvm_glue_fail(err, ENOSPC,
					     "MSR filter: the model's MSRs need more than %d ranges",
					     KVM_MSR_FILTER_MAX_RANGES);
		/* A clear bit denies the access to KVM, which makes it exit to us. */
		memset(bitmaps[r], 0xff, sizeof(bitmaps[r]));
		uint32_t base = msrs[i], last = base;
		for (; i < n && msrs[i] - base < FILTER_SPAN; i++) {
			bitmaps[r][(msrs[i] - base) / 8] &= (uint8_t)~(1u << ((msrs[i] - base) % 8));
			last = msrs[i];
		}
		f.ranges[r].flags = KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE;
		f.ranges[r].base = base;
		f.ranges[r].nmsrs = last - base + 1;
		f.ranges[r].bitmap = bitmaps[r];
		r++;
	}
	if (ioctl(vm_fd, KVM_X86_SET_MSR_FILTER, &f) < 0)
		return kvm_glue_fail(err, errno, "KVM_X86_SET_MSR_FILTER");
	return 0;
}

/* What vpmu_kvm_vm_setup() found for a VM, for its vCPUs' setup (vm_glue.h:
 * attached before any vCPU thread runs, freed with the VM). */
struct kvm_glue_vm {
	bool rdpmc_exits;       /* KVM exits on guest RDPMC (KVM_MSR_EXIT_REASON_RDPMC) */
	struct kvm_gate *gate;  /* the LVTPC write gate, on the CPUs that auto-mask; or NULL */
};

static void kvm_glue_vm_free(void *p)
{
	struct kvm_glue_vm *g = p;
	if (g->gate)
		kvm_gate_free(g->gate);
	free(g);
}

static struct kvm_gate *vm_gate(const struct vpmu_vm *vm)
{
	const struct kvm_glue_vm *g = vm ? vpmu_vm_glue_data(vm) : NULL;
	return g ? g->gate : NULL;
}

/* KVM's PMU off and user-space MSR exits on, with RDPMC exits where KVM has
 * them (*rdpmc). */
static int vm_caps(int vm_fd, bool *rdpmc, char *err)
{
	/* KVM's own PMU would answer the PMU MSRs itself and own RDPMC; where it can
	 * be turned off per VM, turn it off (it must happen before any vCPU exists).
	 * 0 from the check means KVM's PMU is already off (no host PMU, or
	 * kvm.enable_pmu=N), as in the nested tier. */
	int caps = ioctl(vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_PMU_CAPABILITY);
	if (caps > 0 && (caps & KVM_PMU_CAP_DISABLE)) {
		struct kvm_enable_cap c = { .cap = KVM_CAP_PMU_CAPABILITY,
					    .args = { KVM_PMU_CAP_DISABLE } };
		if (ioctl(vm_fd, KVM_ENABLE_CAP, &c) < 0)
			return kvm_glue_fail(err, errno,
					     "KVM_ENABLE_CAP(KVM_CAP_PMU_CAPABILITY, DISABLE)");
	}
	if (ioctl(vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_X86_USER_SPACE_MSR) <= 0)
		return kvm_glue_fail(err, ENOTSUP,
				     "KVM_CAP_X86_USER_SPACE_MSR is not offered by this KVM");
	/* Guest RDPMC exits too where KVM has the change of patches/kvm-rdpmc: a
	 * KVM without it refuses the unknown reason bit with EINVAL.  Enabling
	 * the capability again replaces the reasons a VMM enabled before (KVM's
	 * x86.c kvm_vm_ioctl_enable_cap), so FILTER is always among them. */
	struct kvm_enable_cap c = { .cap = KVM_CAP_X86_USER_SPACE_MSR,
				    .args = { KVM_MSR_EXIT_REASON_FILTER | KVM_MSR_EXIT_REASON_RDPMC } };
	*rdpmc = ioctl(vm_fd, KVM_ENABLE_CAP, &c) == 0;
	if (!*rdpmc) {
		c.args[0] = KVM_MSR_EXIT_REASON_FILTER;
		if (ioctl(vm_fd, KVM_ENABLE_CAP, &c) < 0)
			return kvm_glue_fail(err, errno, "KVM_ENABLE_CAP(KVM_CAP_X86_USER_SPACE_MSR)");
	}
	return 0;
}

/* What the VM's vCPUs' setup needs to know (struct kvm_glue_vm). */
static int vm_attach(struct vpmu_vm *vm, bool rdpmc, char *err)
{
	struct kvm_glue_vm *g = vpmu_vm_glue_data(vm);
	if (!g) {
		g = calloc(1, sizeof(*g));
		/* The LVTPC write gate (kvm_gate.h), for the CPUs that auto-mask. */
		if (g && vpmu_vm_pmi_automask(vm) && !(g->gate = kvm_gate_create())) {
			free(g);
			g = NULL;
		}
		if (!g)
			return kvm_glue_fail(err, ENOMEM, "vpmu_kvm_vm_setup");
		vpmu_vm_glue_attach(vm, g, kvm_glue_vm_free);
	}
	g->rdpmc_exits = rdpmc;
	return 0;
}

int vpmu_kvm_vm_setup(int vm_fd, struct vpmu_vm *vm, char err[VPMU_KVM_ERRLEN])
{
	bool rdpmc;
	if (vm_fd < 0 || !vm)
		return kvm_glue_fail(err, EINVAL, "vpmu_kvm_vm_setup: bad VM");
	int r = vm_caps(vm_fd, &rdpmc, err);
	if (!r)
		r = set_msr_filter(vm_fd, vm, err);
	return r ? r : vm_attach(vm, rdpmc, err);
}

int vpmu_kvm_vm_init(int vm_fd, struct vpmu_vm *vm, char err[VPMU_KVM_ERRLEN])
{
	bool rdpmc;
	if (vm_fd < 0 || !vm)
		return kvm_glue_fail(err, EINVAL, "vpmu_kvm_vm_init: bad VM");
	int r = vm_caps(vm_fd, &rdpmc, err);
	return r ? r : vm_attach(vm, rdpmc, err);
}

void vpmu_kvm_irq_begin(struct vpmu_vm *vm)
{
	struct kvm_gate *g = vm_gate(vm);
	if (g)
		kvm_gate_irq_begin(g);
}

void vpmu_kvm_irq_end(struct vpmu_vm *vm)
{
	struct kvm_gate *g = vm_gate(vm);
	if (g)
		kvm_gate_irq_end(g);
}

int vpmu_kvm_vcpu_init(int vm_fd, int vcpu_fd, struct kvm_run *run, struct vpmu_vcpu *vcpu,
		       int signo, struct vpmu_kvm_vcpu **out, char err[VPMU_KVM_ERRLEN])
{
	if (vm_fd < 0 || vcpu_fd < 0 || !run || !vcpu || !out)
		return kvm_glue_fail(err, EINVAL, "vpmu_kvm_vcpu_init: bad argument");
	struct vpmu_kvm_vcpu *kv = calloc(1, sizeof(*kv));
	if (!kv)
		return kvm_glue_fail(err, ENOMEM, "vpmu_kvm_vcpu_init");
	kv->vm_fd = vm_fd;
	kv->vcpu_fd = vcpu_fd;
	kv->run = run;
	kv->vcpu = vcpu;
	kv->signo = signo;
	kv->vm = vpmu_vcpu_vm(vcpu);
	kv->pmi = (struct kvm_pmi){ .vm_fd = vm_fd, .vcpu_fd = vcpu_fd, .signo = signo,
				    .automask = vpmu_vm_pmi_automask(kv->vm),
				    .gate = vm_gate(kv->vm),
				    .index = vpmu_vcpu_index(vcpu) };
	/* The exits that are the vPMU's: those of the filter vpmu_kvm_vm_setup
	 * set (a VMM that merges its own MSRs into it gets theirs back from
	 * vpmu_kvm_vcpu_handle_exit). */
	kv->nr_trapped = filter_msrs(kv->vm, kv->trapped);
	/* KVM's PMU follows the vCPU's CPUID (arch/x86/kvm/cpuid.c,
	 * kvm_vcpu_after_set_cpuid, refreshes it): the probe sees the final one
	 * when the VMM set it first, as kvm_x86.h asks. */
	const struct kvm_glue_vm *gv = vpmu_vm_glue_data(kv->vm);
	kv->rdpmc = gv && gv->rdpmc_exits ? VPMU_KVM_RDPMC_EXIT : kvm_rdpmc_probe_sync(vcpu_fd);
	if (kv->pmi.gate)
		kvm_gate_register(kv->pmi.gate, kv->pmi.index, signo);
	/* Readers find a snapshot from the start. */
	kvm_live_publish(&kv->live, kv->vcpu, &kv->stats, 0);
	*out = kv;
	return 0;
}

int vpmu_kvm_vcpu_set_signal_mask(int vcpu_fd, int signo, char err[VPMU_KVM_ERRLEN])
{
	if (vcpu_fd < 0 || signo <= 0 || signo > 64)
		return kvm_glue_fail(err, EINVAL, "vpmu_kvm_vcpu_set_signal_mask: bad argument");
	/* The kick signal is unblocked only inside KVM_RUN (see kvm_x86.h). */
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	sigdelset(&cur, signo);
	/* struct kvm_signal_mask ends in a flexible array: its bytes follow it in
	 * one buffer (a struct holding it as a member is a GNU extension, which
	 * clang's -Wgnu-variable-sized-type-not-at-end refuses). */
	union {
		struct kvm_signal_mask m;
		/* the kernel's sigset_t is 64 bits on x86-64 */
		unsigned char bytes[sizeof(struct kvm_signal_mask) + 8];
	} mask;
	mask.m.len = 8;
	memcpy(mask.m.sigset, &cur, 8);
	if (ioctl(vcpu_fd, KVM_SET_SIGNAL_MASK, &mask) < 0)
		return kvm_glue_fail(err, errno, "KVM_SET_SIGNAL_MASK");
	return 0;
}

int vpmu_kvm_vcpu_setup(int vm_fd, int vcpu_fd, struct kvm_run *run, struct vpmu_vcpu *vcpu,
			int signo, struct vpmu_kvm_vcpu **out, char err[VPMU_KVM_ERRLEN])
{
	if (vm_fd < 0 || vcpu_fd < 0 || !run || !vcpu || !out)
		return kvm_glue_fail(err, EINVAL, "vpmu_kvm_vcpu_setup: bad argument");
	/* The conveniences first, so that the RDPMC probe of vpmu_kvm_vcpu_init
	 * sees the model's CPUID. */
	int r = vpmu_kvm_vcpu_set_cpuid(vcpu_fd, vcpu, err);
	r = r ? r : vpmu_kvm_vcpu_set_signal_mask(vcpu_fd, signo, err);
	return r ? r : vpmu_kvm_vcpu_init(vm_fd, vcpu_fd, run, vcpu, signo, out, err);
}

void vpmu_kvm_vcpu_destroy(struct vpmu_kvm_vcpu *kv)
{
	/* A vCPU still switched in is switched out: its counts land. */
	if (!kv)
		return;
	vpmu_kvm_vcpu_pause(kv);
	if (kv->pmi.gate)
		kvm_gate_unregister(kv->pmi.gate, kv->pmi.index);
	kvm_pmi_destroy(&kv->pmi);
	free(kv);
}

enum vpmu_kvm_rdpmc vpmu_kvm_vcpu_rdpmc(const struct vpmu_kvm_vcpu *kv)
{
	return kv ? kv->rdpmc : VPMU_KVM_RDPMC_STOCK;
}

const struct vpmu_kvm_stats *vpmu_kvm_vcpu_stats(const struct vpmu_kvm_vcpu *kv)
{
	return kv ? &kv->stats : NULL;
}

uint64_t vpmu_kvm_vcpu_snapshot_request(struct vpmu_kvm_vcpu *kv)
{
	return kv ? kvm_live_request(&kv->live) : 0;
}

int vpmu_kvm_vcpu_snapshot(const struct vpmu_kvm_vcpu *kv, struct vpmu_kvm_snapshot *out)
{
	if (!kv || !out)
		return -EINVAL;
	kvm_live_read(&kv->live, out);
	return 0;
}

