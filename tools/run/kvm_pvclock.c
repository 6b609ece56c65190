/* SPDX-License-Identifier: MIT */
/* kvmclock for vpmu-run's Linux guests (tools/run/kvm_pvclock.h). */
#include <errno.h>
#include <linux/kvm.h>
#include <linux/kvm_para.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kvm_pvclock.h"
#include "vpmu/kvm_x86.h"

#define PVCLOCK_MAX_ENTRIES (VPMU_MAX_CPUID_LEAVES + 2)

int kvm_pvclock_leaves(struct kvm_cpuid_entry2 *e, unsigned n, unsigned max)
{
	struct kvm_cpuid_entry2 *l1 = NULL;
	for (unsigned i = 0; i < n; i++)
		if (e[i].function == 1)
			l1 = &e[i];
	if (!l1)
		return -EINVAL;
	if (max < n + 2)
		return -ENOSPC;
	/* Intel SDM vol. 2A, CPUID leaf 01H: ECX bit 31 is reserved for a
	 * hypervisor's use; Linux looks for hypervisor leaves only when it is set. */
	l1->ecx |= 1u << 31;
	memset(&e[n], 0, 2 * sizeof(*e));
	e[n].function = KVM_CPUID_SIGNATURE;           /* 40000000h */
	e[n].eax = KVM_CPUID_FEATURES;                 /* the last hypervisor leaf */
	memcpy(&e[n].ebx, "KVMK", 4);
	memcpy(&e[n].ecx, "VMKV", 4);
	memcpy(&e[n].edx, "M\0\0\0", 4);
	e[n + 1].function = KVM_CPUID_FEATURES;        /* 40000001h */
	e[n + 1].eax = 1u << KVM_FEATURE_CLOCKSOURCE2 | 1u << KVM_FEATURE_CLOCKSOURCE_STABLE_BIT;
	return (int)n + 2;
}

int kvm_pvclock_present(int vcpu_fd, const struct vpmu_vm *vm, unsigned apic_id, char *err,
			size_t errlen)
{
	/* The entries follow struct kvm_cpuid2's flexible array in one buffer
	 * (vmm-glue/kvm_x86.c does the same). */
	union {
		struct kvm_cpuid2 c;
		unsigned char bytes[sizeof(struct kvm_cpuid2) +
				    PVCLOCK_MAX_ENTRIES * sizeof(struct kvm_cpuid_entry2)];
	} cpuid;
	memset(&cpuid, 0, sizeof(cpuid));
	struct kvm_cpuid_entry2 *leaves = cpuid.c.entries;
	int n = vpmu_kvm_cpuid_entries(vm, apic_id, leaves, PVCLOCK_MAX_ENTRIES - 2);
	if (n >= 0)
		n = kvm_pvclock_leaves(leaves, (unsigned)n, PVCLOCK_MAX_ENTRIES);
	if (n < 0) {
		snprintf(err, errlen, "kvmclock: no CPUID table: %s", strerror(-n));
		return n;
	}
	cpuid.c.nent = (uint32_t)n;
	if (ioctl(vcpu_fd, KVM_SET_CPUID2, &cpuid) < 0) {
		int e = errno;
		snprintf(err, errlen, "kvmclock: KVM_SET_CPUID2: %s", strerror(e));
		return -e;
	}
	return 0;
}
