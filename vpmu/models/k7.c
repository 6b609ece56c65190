/* SPDX-License-Identifier: MIT */
/*
 * AMD K7 (Athlon, family 6): four 48-bit counters, one EVNTSEL each with its own
 * enable bit (perfctr low-level-x86.txt "AMD K7/K8").  The register semantics and
 * the perfctr checks live in amd_k7_common.c; docs/models/k7.md describes them.
 */
#include "amd_k7_common.h"

static const struct vpmu_rule k7_rules[K7_NR_RULES] = { K7_COMMON_RULES };

static const struct vpmu_model_ops k7_ops = {
	.write = k7_write,
	.derive = k7_derive,
	.check_control = k7_check_control,
	.decode_ctr = k7_decode_ctr,
	/* AMD's LVTPC is not masked on PMI delivery (unlike Intel's P4/Pentium M). */
	.pmi_automask = NULL,
};

const struct vpmu_model vpmu_model_k7 = {
	.name = "k7",
	.description = "AMD K7 (Athlon): 4 x 48-bit counters, per-counter enable, PMI through the LVTPC",
	/* Athlon XP/MP "Palomino": perfctr's amd_init takes any family 6 as K7. */
	.id = { "AuthenticAMD", 6, 6, 2, K7_CPUID1_EDX, 0, K7_EXT1_EDX, 0 },
	.regspace = VPMU_SPACE_MSR,
	.caps = VPMU_CAP_PCINT,
	.nr_ctrs = K7_NR_CTRS, .ctr_width = K7_CTR_WIDTH, .nr_ctrl_slots = K7_NR_CTRS,
	.regs = k7_regs, .nr_regs = sizeof(k7_regs) / sizeof(k7_regs[0]),
	.rules = k7_rules, .nr_rules = K7_NR_RULES,
	.table = &vpmu_events_k7,   /* data/perfmon/vpmu/k7.json */
	.event_exclude = K7_EVENT_EXCLUDE,
	.ops = &k7_ops,
};
