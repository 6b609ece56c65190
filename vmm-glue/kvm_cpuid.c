/* SPDX-License-Identifier: MIT */
/*
 * The CPUID a guest sees, as KVM takes it (KVM_SET_CPUID2): the leaves of the
 * VM's PMU (vpmu_vm_cpuid: the identity of its model, each model file saying
 * which CPU it presents and what its data sheet lists, with the VM's family,
 * model and stepping, and the PMU's own leaves such as 0AH), so that guests
 * detect the CPU the way Linux's and perfctr's drivers do (vendor dispatch,
 * then family: Linux arch/x86/events/core.c init_hw_perf_events, perfctr x86.c
 * perfctr_cpu_init).  vpmu_kvm_vcpu_set_cpuid() hands them to KVM for a VMM
 * that takes the glue's table as it is.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kvm_vcpu.h"
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

int vpmu_kvm_vcpu_set_cpuid(int vcpu_fd, const struct vpmu_vcpu *vcpu, char err[VPMU_KVM_ERRLEN])
{
	if (vcpu_fd < 0 || !vcpu)
		return kvm_glue_fail(err, EINVAL, "vpmu_kvm_vcpu_set_cpuid: bad argument");
	const struct vpmu_vm *vm = vpmu_vcpu_vm(vcpu);
	/* struct kvm_cpuid2 ends in a flexible array: its entries follow it in one
	 * buffer (a struct holding it as a member is a GNU extension, which clang's
	 * -Wgnu-variable-sized-type-not-at-end refuses). */
	union {
		struct kvm_cpuid2 c;
		unsigned char bytes[sizeof(struct kvm_cpuid2) +
				    VPMU_MAX_CPUID_LEAVES * sizeof(struct kvm_cpuid_entry2)];
	} cpuid;
	memset(&cpuid, 0, sizeof(cpuid));
	/* The guest's APIC id is the vCPU index (the in-kernel LAPIC's reset id). */
	int n = vpmu_kvm_cpuid_entries(vm, vpmu_vcpu_index(vcpu), cpuid.c.entries,
				       VPMU_MAX_CPUID_LEAVES);
	if (n < 0)
		return kvm_glue_fail(err, -n, "no x86 CPUID for model %s", vpmu_vm_model(vm));
	cpuid.c.nent = (uint32_t)n;
	if (ioctl(vcpu_fd, KVM_SET_CPUID2, &cpuid) < 0)
		return kvm_glue_fail(err, errno, "KVM_SET_CPUID2");
	return 0;
}
