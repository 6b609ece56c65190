/* SPDX-License-Identifier: MIT */
/*
 * perfctr's Pentium 4 rules (issue 11, item 3; docs/design.md "Pentium 4"):
 * the per-register ones the P4 model's write hook flags as the guest writes a
 * CCCR, an ESCR or the PEBS pair, and the cross-register ones its
 * check_control op applies to a derived control.  Sources: perfctr's
 * low-level-x86.txt, "Intel P4", and x86.c p4_check_control (2.6.x/2.7.3);
 * the register bits from IA-32 Intel Architecture Software Developer's
 * Manual, vol. 3, "Performance monitoring (processors based on Intel NetBurst
 * microarchitecture)" (the CCCR and ESCR figures).
 */
#ifndef VPMU_P4_RULES_H
#define VPMU_P4_RULES_H

#include <stdint.h>

#include "../model.h"

/* CCCR bits. */
#define P4_CCCR_OVF            (1u << 31)
#define P4_CCCR_CASCADE        (1u << 30)
#define P4_CCCR_OVF_PMI_T1     (1u << 27)
#define P4_CCCR_OVF_PMI_T0     (1u << 26)
#define P4_CCCR_FORCE_OVF      (1u << 25)
#define P4_CCCR_ACTIVE_THREAD  (3u << 16)
#define P4_CCCR_ENABLE         (1u << 12)
#define P4_CCCR_EXT_CASCADE    (1u << 11)
#define P4_CCCR_PERFCTR_RESV   0xB80007FFu   /* what perfctr refuses (-EPERM) */
/* ESCR bits. */
#define P4_ESCR_RESERVED       (1u << 31)
#define P4_ESCR_CPL_T1         0x3u          /* T1_OS | T1_USR */
/* PEBS_ENABLE (0x3F1) and PEBS_MATRIX_VERT (0x3F2). */
#define P4_PEBS_UOP_TAG        (1u << 24)
#define P4_PEBS_REPLAY_BITS    0x607u        /* bits 0-2, 9, 10: the replay tagging */
#define P4_PEBS_ALLOWED        (P4_PEBS_UOP_TAG | P4_PEBS_REPLAY_BITS)
#define P4_PMV_ALLOWED         0x3u

enum p4_rule {
	P4_RULE_CCCR_RESERVED,      /* write: CCCR bits 0xB80007FF */
	P4_RULE_EXT_CASCADE,        /* write: EXTENDED_CASCADE on model < 2 or the wrong counter */
	P4_RULE_ESCR_RESERVED,      /* write: ESCR bit 31 */
	P4_RULE_PEBS_RESERVED,      /* write: PEBS_ENABLE outside 0x01000607 */
	P4_RULE_PMV_RESERVED,       /* write: PEBS_MATRIX_VERT outside bits 0-1 */
	P4_RULE_ACTIVE_THREAD,      /* control: ACTIVE_THREAD other than 3 without HT */
	P4_RULE_FORCE_OVF,          /* control: an i-mode FORCE_OVF counter must start at -1 */
	P4_RULE_CPL_T1,             /* control: ESCR T1 bits without HT */
	P4_RULE_ESCR_SELECT,        /* control: ESCR_SELECT that selects no ESCR for the counter */
	P4_RULE_IQ_ESCR,            /* control: IQ_ESCR0/1 selected on model 3 or later */
	P4_RULE_PEBS_INCOMPLETE,    /* control: PEBS_ENABLE without UOP_TAG or a replay bit */
	P4_RULE_PMV_NONE,           /* control: PEBS_ENABLE with PEBS_MATRIX_VERT 0 */
	P4_RULE_PMV_ALONE,          /* control: PEBS_MATRIX_VERT without PEBS_ENABLE */
	P4_RULE_IRESET,             /* the core's check_ireset (x86: i-mode starts negative) */
	P4_NR_RULES
};

extern const struct vpmu_rule p4_rules[P4_NR_RULES];

/* Per-register rules (bit masks of enum p4_rule) broken by a value written:
 * CCCR of counter pmc on a P4 of CPUID model cpumodel, an ESCR, PEBS_ENABLE,
 * PEBS_MATRIX_VERT. */
uint32_t p4_cccr_violations(uint64_t cccr, unsigned pmc, unsigned cpumodel);
uint32_t p4_escr_violations(uint64_t escr);
uint32_t p4_pebs_enable_violations(uint64_t pebs_enable);
uint32_t p4_pmv_violations(uint64_t pebs_matrix_vert);

/* The cross-register rules over a derived control (entries: evntsel the
 * CCCR, aux the ESCR, a-mode then i-mode; global[0..1] the PEBS pair) on a P4
 * of CPUID model cpumodel, with or without hyper-threading. */
uint32_t p4_control_violations(const struct vpmu_ctl *ctl, unsigned cpumodel, bool ht);

#endif
