/* SPDX-License-Identifier: MIT */
/*
 * CPUID feature bits the x86 models present (struct vpmu_identity): Intel SDM
 * vol. 2A, CPUID "Feature Information Returned in the EDX Register"; AMD CPUID
 * Specification (25481), function 8000_0001h EDX.  Which bits each CPU had comes
 * from its data sheet; each model file says which part it presents.
 */
#ifndef VPMU_MODELS_X86_CPUID_H
#define VPMU_MODELS_X86_CPUID_H

/* CPUID.1:EDX */
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
/* CPUID.80000001h:EDX (AMD, and the clones that copied its extended leaf) */
#define X_SYSCALL (1u << 11)
#define X_NX      (1u << 20)
#define X_MMXEXT  (1u << 22)
#define X_LM      (1u << 29)
#define X_3DNOWX  (1u << 30)
#define X_3DNOW   (1u << 31)

#define P5_BASE (F_FPU | F_VME | F_DE | F_PSE | F_TSC | F_MSR | F_MCE | F_CX8)
#define P6_BASE (P5_BASE | F_PAE | F_APIC | F_SEP | F_MTRR | F_PGE | F_MCA | F_CMOV | F_PAT | \
		 F_PSE36 | F_MMX | F_FXSR)

#endif
