/* SPDX-License-Identifier: MIT */
/*
 * The CPUID a guest of each model sees (issue 3: vendor string, family/model/
 * stepping, and the feature bits the model's real CPUs had), so that guests
 * detect the CPU the way Linux's and perfctr's drivers do (facts section 2:
 * vendor dispatch, then family).  Family/model/stepping come from the VM (the
 * model's defaults or the VM config); the feature words are the ones the
 * processors' datasheets list for the default model of each family.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>

#include "vpmu/kvm_x86.h"

/* CPUID.1:EDX bits. */
#define F_FPU   (1u << 0)
#define F_VME   (1u << 1)
#define F_DE    (1u << 2)
#define F_PSE   (1u << 3)
#define F_TSC   (1u << 4)
#define F_MSR   (1u << 5)
#define F_PAE   (1u << 6)
#define F_MCE   (1u << 7)
#define F_CX8   (1u << 8)
#define F_APIC  (1u << 9)
#define F_SEP   (1u << 11)
#define F_MTRR  (1u << 12)
#define F_PGE   (1u << 13)
#define F_MCA   (1u << 14)
#define F_CMOV  (1u << 15)
#define F_PAT   (1u << 16)
#define F_PSE36 (1u << 17)
#define F_CLFSH (1u << 19)
#define F_MMX   (1u << 23)
#define F_FXSR  (1u << 24)
#define F_SSE   (1u << 25)
#define F_SSE2  (1u << 26)
/* CPUID.80000001h:EDX bits (AMD and the clones that copied its extended leaf). */
#define X_SYSCALL (1u << 11)
#define X_NX      (1u << 20)
#define X_MMXEXT  (1u << 22)
#define X_LM      (1u << 29)
#define X_3DNOWX  (1u << 30)
#define X_3DNOW   (1u << 31)

#define P5_BASE (F_FPU | F_VME | F_DE | F_PSE | F_TSC | F_MSR | F_MCE | F_CX8)
#define P6_BASE (P5_BASE | F_PAE | F_APIC | F_SEP | F_MTRR | F_PGE | F_MCA | F_CMOV | F_PAT | \
		 F_PSE36 | F_MMX | F_FXSR)

struct model_cpuid {
	const char *model;
	uint32_t edx1;       /* CPUID.1:EDX */
	uint32_t ext_edx;    /* CPUID.80000001h:EDX; 0: no extended leaves */
};

/* A P54C and a P55C carry an on-chip APIC (no LVTPC: the P5 PMU has no PMI);
 * the Cyrix, WinChip and C3 parts and the K6-2 behind `generic` have none. */
static const struct model_cpuid model_cpuid[] = {
	{ "p5",         P5_BASE | F_APIC, 0 },
	{ "p5mmx",      P5_BASE | F_APIC | F_MMX, 0 },
	{ "6x86mx",     F_FPU | F_DE | F_TSC | F_MSR | F_CX8 | F_PGE | F_CMOV | F_MMX, 0 },
	{ "mii",        F_FPU | F_DE | F_TSC | F_MSR | F_CX8 | F_PGE | F_CMOV | F_MMX, 0 },
	{ "cyrix-iii",  F_FPU | F_DE | F_TSC | F_MSR | F_CX8 | F_MTRR | F_PGE | F_MMX,
	                F_FPU | F_TSC | F_MSR | F_CX8 | F_MMX | X_3DNOW },
	{ "winchip-c6", F_FPU | F_TSC | F_MSR | F_MCE | F_CX8 | F_MMX, 0 },
	{ "winchip2",   F_FPU | F_TSC | F_MSR | F_MCE | F_CX8 | F_MMX,
	                F_FPU | F_TSC | F_MSR | F_MCE | F_CX8 | F_MMX | X_3DNOW },
	{ "winchip3",   F_FPU | F_TSC | F_MSR | F_MCE | F_CX8 | F_MMX,
	                F_FPU | F_TSC | F_MSR | F_MCE | F_CX8 | F_MMX | X_3DNOW },
	{ "c3",         F_FPU | F_DE | F_TSC | F_MSR | F_CX8 | F_MTRR | F_PGE | F_MMX,
	                F_FPU | F_DE | F_TSC | F_MSR | F_CX8 | F_MTRR | F_PGE | F_MMX | X_3DNOW },
	{ "p6",         P6_BASE | F_SSE, 0 },
	{ "k7",         P6_BASE | F_SSE,
	                (P6_BASE & ~F_SEP) | X_SYSCALL | X_MMXEXT | X_3DNOWX | X_3DNOW },
	{ "k8",         P6_BASE | F_SSE | F_SSE2 | F_CLFSH,
	                (P6_BASE & ~F_SEP) | X_SYSCALL | X_NX | X_MMXEXT | X_LM | X_3DNOWX | X_3DNOW },
	{ "generic",    P5_BASE | F_PGE | F_MMX, P5_BASE | F_PGE | F_MMX | X_SYSCALL | X_3DNOW },
};

static const struct model_cpuid *model_cpuid_find(const char *model)
{
	for (size_t i = 0; i < sizeof(model_cpuid) / sizeof(model_cpuid[0]); i++)
		if (strcmp(model_cpuid[i].model, model) == 0)
			return &model_cpuid[i];
	return NULL;
}

/* The 12-byte vendor string in EBX, EDX, ECX order (leaf 0 and 80000000h). */
static void vendor_regs(const char *vendor, struct kvm_cpuid_entry2 *e)
{
	char v[12] = { 0 };
	memcpy(v, vendor, strnlen(vendor, sizeof(v)));
	memcpy(&e->ebx, v, 4);
	memcpy(&e->edx, v + 4, 4);
	memcpy(&e->ecx, v + 8, 4);
}

/* CPUID.1:EAX signature; family 0Fh and above go in the extended fields. */
static uint32_t signature(unsigned family, unsigned cpumodel, unsigned stepping)
{
	uint32_t fam = family < 15 ? family : 15, ext_fam = family < 15 ? 0 : family - 15;
	return (stepping & 0xF) | (cpumodel & 0xF) << 4 | fam << 8 | ((cpumodel >> 4) & 0xF) << 16 |
	       (ext_fam & 0xFF) << 20;
}

int vpmu_kvm_cpuid_entries(const struct vpmu_vm *vm, unsigned apic_id,
			   struct kvm_cpuid_entry2 *entries, unsigned max)
{
	const struct model_cpuid *mc = model_cpuid_find(vpmu_vm_model(vm));
	if (!mc)
		return -ENOENT;
	if (max < 4)
		return -ENOSPC;
	const char *vendor;
	unsigned family, cpumodel, stepping, n = 0;
	vpmu_vm_identity(vm, &vendor, &family, &cpumodel, &stepping);
	memset(entries, 0, 4 * sizeof(*entries));

	entries[n].function = 0;
	entries[n].eax = 1;                       /* leaves 0 and 1 */
	vendor_regs(vendor, &entries[n++]);

	entries[n].function = 1;
	entries[n].eax = signature(family, cpumodel, stepping);
	entries[n].ebx = apic_id << 24;           /* initial APIC id */
	entries[n++].edx = mc->edx1;

	if (mc->ext_edx) {
		entries[n].function = 0x80000000;
		entries[n].eax = 0x80000001;
		vendor_regs(vendor, &entries[n++]);
		entries[n].function = 0x80000001;
		entries[n].eax = signature(family, cpumodel, stepping);
		entries[n++].edx = mc->ext_edx;
	}
	return (int)n;
}
