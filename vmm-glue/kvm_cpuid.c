/* SPDX-License-Identifier: MIT */
/*
 * The CPUID a guest sees: built from the identity of the VM's model (each model
 * file says which CPU it presents and what its data sheet lists) and the VM's
 * family, model and stepping, so that guests detect the CPU the way Linux's and
 * perfctr's drivers do (vendor dispatch, then family: Linux
 * arch/x86/events/core.c init_hw_perf_events, perfctr x86.c perfctr_cpu_init).
 */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>

#include "vpmu/kvm_x86.h"

/* The 12-byte vendor string in EBX, EDX, ECX order (leaf 0 and 80000000h). */
static void vendor_regs(const char *vendor, struct kvm_cpuid_entry2 *e)
{
	char v[12] = { 0 };
	memcpy(v, vendor, strnlen(vendor, sizeof(v)));
	memcpy(&e->ebx, v, 4);
	memcpy(&e->edx, v + 4, 4);
	memcpy(&e->ecx, v + 8, 4);
}

/* CPUID.1:EAX signature; family 0Fh and above go in the extended fields (Intel
 * SDM vol. 2A, CPUID "Version Information"). */
static uint32_t signature(unsigned family, unsigned cpumodel, unsigned stepping)
{
	uint32_t fam = family < 15 ? family : 15, ext_fam = family < 15 ? 0 : family - 15;
	return (stepping & 0xF) | (cpumodel & 0xF) << 4 | fam << 8 | ((cpumodel >> 4) & 0xF) << 16 |
	       (ext_fam & 0xFF) << 20;
}

int vpmu_kvm_cpuid_entries(const struct vpmu_vm *vm, unsigned apic_id,
			   struct kvm_cpuid_entry2 *entries, unsigned max)
{
	struct vpmu_cpu_identity id;
	if (!vm || !entries || vpmu_vm_cpu(vm, &id) < 0)
		return -EINVAL;
	/* Every Pentium 4 has the brand string leaves (Intel SDM vol. 2A, CPUID
	 * 80000002h-80000004h), and with them leaf 80000001h, zero on a 32-bit
	 * part. */
	bool ext = id.ext1_edx || id.ext1_ecx || id.brand;
	unsigned need = ext ? (id.brand ? 7 : 4) : 2, n = 0;
	if (max < need)
		return -ENOSPC;
	memset(entries, 0, need * sizeof(*entries));

	entries[n].function = 0;
	entries[n].eax = 1;                       /* leaves 0 and 1 */
	vendor_regs(id.vendor, &entries[n++]);

	entries[n].function = 1;
	entries[n].eax = signature(id.family, id.cpumodel, id.stepping);
	entries[n].ebx = apic_id << 24;           /* initial APIC id */
	/* CPUs with CLFLUSH report its line size in EBX bits 15:8, in 8-byte
	 * units: 8 (64 bytes) on the Pentium 4 and the K8 (Intel SDM vol. 2A,
	 * CPUID leaf 01H; AMD CPUID Specification, Fn0000_0001_EBX).  Linux takes
	 * its cache alignment from it, and a zero breaks its slab allocator. */
	if (id.cpuid1_edx & (1u << 19))
		entries[n].ebx |= 8u << 8;
	/* HTT (a hyper-threaded P4 VM, vpmu_vm_cpu): two logical processors per
	 * package, so that APIC ids 2k and 2k+1 are one core's threads. */
	if (id.cpuid1_edx & (1u << 28))
		entries[n].ebx |= 2u << 16;
	entries[n].ecx = id.cpuid1_ecx;
	entries[n++].edx = id.cpuid1_edx;

	if (ext) {
		entries[n].function = 0x80000000;
		entries[n].eax = id.brand ? 0x80000004 : 0x80000001;
		vendor_regs(id.vendor, &entries[n++]);
		entries[n].function = 0x80000001;
		entries[n].eax = signature(id.family, id.cpumodel, id.stepping);
		entries[n].ecx = id.ext1_ecx;
		entries[n++].edx = id.ext1_edx;
	}
	if (id.brand) {
		/* 48 bytes, NUL-padded, 16 per leaf in EAX, EBX, ECX, EDX. */
		char b[48] = { 0 };
		memcpy(b, id.brand, strnlen(id.brand, sizeof(b) - 1));
		for (unsigned k = 0; k < 3; k++, n++) {
			entries[n].function = 0x80000002 + k;
			memcpy(&entries[n].eax, b + 16 * k, 4);
			memcpy(&entries[n].ebx, b + 16 * k + 4, 4);
			memcpy(&entries[n].ecx, b + 16 * k + 8, 4);
			memcpy(&entries[n].edx, b + 16 * k + 12, 4);
		}
	}
	return (int)n;
}
