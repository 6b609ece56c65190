/* SPDX-License-Identifier: MIT */
/*
 * The CPUID a guest sees, as KVM takes it (KVM_SET_CPUID2): the leaves of the
 * VM's PMU (vpmu_vm_cpuid: the identity of its model, each model file saying
 * which CPU it presents and what its data sheet lists, with the VM's family,
 * model and stepping, and the PMU's own leaves such as 0AH), so that guests
 * detect the CPU the way Linux's and perfctr's drivers do (vendor dispatch,
 * then family: Linux arch/x86/events/core.c init_hw_perf_events, perfctr x86.c
 * perfctr_cpu_init).
 */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>

#include "vpmu/kvm_x86.h"

int vpmu_kvm_cpuid_entries(const struct vpmu_vm *vm, unsigned apic_id,
			   struct kvm_cpuid_entry2 *entries, unsigned max)
{
	struct vpmu_cpuid_leaf leaf[VPMU_MAX_CPUID_LEAVES];
	if (!vm || !entries)
		return -EINVAL;
	int n = vpmu_vm_cpuid(vm, leaf, VPMU_MAX_CPUID_LEAVES);
	if (n < 0)
		return n;
	if (max < (unsigned)n)
		return -ENOSPC;
	memset(entries, 0, (unsigned)n * sizeof(*entries));
	for (int i = 0; i < n; i++) {
		struct kvm_cpuid_entry2 *e = &entries[i];
		e->function = leaf[i].function;
		e->index = leaf[i].index;
		e->flags = leaf[i].flags & VPMU_CPUID_INDEXED ? KVM_CPUID_FLAG_SIGNIFCANT_INDEX : 0;
		e->eax = leaf[i].eax;
		e->ebx = leaf[i].ebx;
		e->ecx = leaf[i].ecx;
		e->edx = leaf[i].edx;
		/* The initial APIC id is each vCPU's own (Intel SDM vol. 2A, CPUID
		 * leaf 01H: EBX[31:24]). */
		if (e->function == 1)
			e->ebx |= apic_id << 24;
	}
	return n;
}
