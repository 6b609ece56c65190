/* SPDX-License-Identifier: MIT */
/*
 * What the AMD K7 and K8 models share: the same four PerfEvtSel/PerfCtr MSR pairs,
 * bit layout, 48-bit counters and perfctr check (perfctr low-level-x86.txt "AMD
 * K7/K8"; perfctr x86.c p6_like_check_control with is_k7).
 * They differ in CPUID identity and in K8's multicore northbridge-event rule.
 */
#ifndef VPMU_AMD_K7_COMMON_H
#define VPMU_AMD_K7_COMMON_H

#include "../events.h"
#include "../model.h"
#include "x86_cpuid.h"

#define K7_EVNTSEL0 0xC0010000u
#define K7_PERFCTR0 0xC0010004u
#define K7_NR_CTRS 4
#define K7_CTR_WIDTH 48

/* Rule ids (bit numbers of a violation mask) both models share; K8 appends its own. */
enum {
	K7_RULE_RESERVED,
	K7_RULE_NO_CPL,
	K7_RULE_IRESET,
	K7_NR_RULES
};

#define K7_COMMON_RULES \
	[K7_RULE_RESERVED] = { "evntsel-reserved", \
		"EVNTSEL bits 0x00280000 (21 and 19, PC) are reserved (perfctr " \
		"low-level-x86.txt, AMD K7/K8: as Intel P6)", 0 }, \
	[K7_RULE_NO_CPL] = { "cpl-none", \
		"an enabled counter's evntsel must set USR or OS, 0x30000 (perfctr x86.c " \
		"p6_like_check_control)", 0 }, \
	[K7_RULE_IRESET] = { "ireset-nonnegative", \
		"an i-mode counter must start negative, ireset < 0 (perfctr x86.c check_ireset)", \
		VPMU_RULE_CHECK_IRESET }

/* K7/K8 CPUID feature words (AMD Athlon and Athlon 64 data sheets). */
#define K7_CPUID1_EDX (P6_BASE | F_SSE)
#define K7_EXT1_EDX ((P6_BASE & ~F_SEP) | X_SYSCALL | X_MMXEXT | X_3DNOWX | X_3DNOW)

#define K7_EVENT_EXCLUDE (0xFF000000ull | (1ull << 23) | (1ull << 18)) /* CNT_MASK, INV, E */

extern const struct vpmu_reg k7_regs[2 * K7_NR_CTRS];

enum vpmu_fault k7_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			 struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val);
void k7_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
	       const struct vpmu_regfile *r, struct vpmu_ctl *ctl);
uint32_t k7_check_control(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			  const struct vpmu_regfile *r, const struct vpmu_ctl *ctl);
bool k7_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
		   uint64_t *key, unsigned *priv, bool *interrupt);

#endif
