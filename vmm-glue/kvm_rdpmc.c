/* SPDX-License-Identifier: MIT */
/*
 * Guest RDPMC without the KVM change (docs/rdpmc.md, "How the glue uses it"):
 * kvm_amd's legacy PMU (arch/x86/kvm/svm/pmu.c) keeps four counters that
 * host-initiated KVM_SET_MSRS of MSR_K7_PERFCTR0-3 loads and KVM's own RDPMC
 * emulation (ECX 0-3) reads back, 48 bits wide, as long as the VM's PMU is
 * enabled (get_gp_pmc_amd() returns nothing once kvm->arch.enable_pmu is
 * false).  Where they stick, the glue loads them with the virtual PMU's values
 * before each entry.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kvm_rdpmc.h"

#define K7_PERFCTR0 0xC0010004u
#define PROBE_VALUE 0x5A5A5A5A5Aull   /* no reset leaves this in a counter */

/* Host-initiated MSR accesses of a vCPU: 0, or -errno where KVM refused one. */
static int msr_access(int vcpu_fd, unsigned long req, struct kvm_msr_entry *e, unsigned n)
{
	union {
		struct kvm_msrs m;
		uint8_t buf[sizeof(struct kvm_msrs) + KVM_RDPMC_SYNC_CTRS * sizeof(struct kvm_msr_entry)];
	} u;
	if (n > KVM_RDPMC_SYNC_CTRS)
		return -EINVAL;
	memset(&u, 0, sizeof(u));
	u.m.nmsrs = n;
	memcpy(u.buf + sizeof(struct kvm_msrs), e, n * sizeof(*e));
	int r = ioctl(vcpu_fd, req, &u);
	if (r != (int)n)
		return r < 0 ? -errno : -EIO;   /* KVM stops at the first MSR it refuses */
	memcpy(e, u.buf + sizeof(struct kvm_msrs), n * sizeof(*e));
	return 0;
}

/* Load a counter with a value, read it back, and clear it again. */
enum vpmu_kvm_rdpmc kvm_rdpmc_probe_sync(int vcpu_fd)
{
	struct kvm_msr_entry e = { .index = K7_PERFCTR0, .data = PROBE_VALUE };
	if (msr_access(vcpu_fd, KVM_SET_MSRS, &e, 1) < 0)
		return VPMU_KVM_RDPMC_STOCK;
	e.data = 0;
	if (msr_access(vcpu_fd, KVM_GET_MSRS, &e, 1) < 0 || e.data != PROBE_VALUE)
		return VPMU_KVM_RDPMC_STOCK;
	e.data = 0;
	if (msr_access(vcpu_fd, KVM_SET_MSRS, &e, 1) < 0)
		return VPMU_KVM_RDPMC_STOCK;
	return VPMU_KVM_RDPMC_SYNC;
}

/* The guest's clock stands still during the exit, so the values are exact at
 * entry; while the guest runs, its RDPMC sees them as of that entry.  ECX 0-3
 * that the model lacks read 0 (vpmu_rdpmc_get: -ENOENT), not #GP. */
int kvm_rdpmc_sync(int vcpu_fd, struct vpmu_vcpu *vcpu, struct kvm_rdpmc_sync *s)
{
	struct kvm_msr_entry e[KVM_RDPMC_SYNC_CTRS];
	unsigned n = 0;
	for (unsigned i = 0; i < KVM_RDPMC_SYNC_CTRS; i++) {
		uint64_t v = 0;
		vpmu_rdpmc_get(vcpu, i, &v);
		v &= (1ull << 48) - 1;
		if (v == s->synced[i])
			continue;
		e[n].index = K7_PERFCTR0 + i;
		e[n].reserved = 0;
		e[n++].data = v;
		s->synced[i] = v;
	}
	if (!n)
		return 0;
	int r = msr_access(vcpu_fd, KVM_SET_MSRS, e, n);
	return r < 0 ? r : 1;
}

const char *vpmu_kvm_rdpmc_name(enum vpmu_kvm_rdpmc mode)
{
	switch (mode) {
	case VPMU_KVM_RDPMC_EXIT:
		return "exit: KVM exits on RDPMC (patches/kvm-rdpmc), the model answers";
	case VPMU_KVM_RDPMC_SYNC:
		return "sync: stock kvm_amd; its 4 legacy counters follow the virtual PMU at each entry";
	case VPMU_KVM_RDPMC_STOCK:
		return "stock: KVM answers RDPMC itself (#GP or 0), not the virtual PMU";
	}
	return "unknown";
}
