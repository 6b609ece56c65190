/* SPDX-License-Identifier: MIT */
/*
 * Cyrix MII: the P5 PMU with Cyrix's 7-bit event select (bit 10 / 26 is event
 * bit 6) and 48-bit counters; CESR 0x11, CTR0/CTR1 0x12/0x13, no overflow
 * interrupt (perfctr low-level-x86.txt: "good P5 clones").
 * Shared CESR logic and the perfctr rules: p5_cesr.c; the page: docs/models/mii.md.
 */
#include "p5_cesr.h"

const struct vpmu_model vpmu_model_mii = {
	.name = "mii",
	.description = "Cyrix MII: 2 x 48-bit counters, P5 CESR with 7-bit events, no PMI",
	.id = { "CyrixInstead", 6, 0, 4, F_FPU | F_DE | F_TSC | F_MSR | F_CX8 | F_PGE | F_CMOV | F_MMX, 0, 0, 0 },
	.ctr_width = 48,
	P5_CESR_MODEL_FIELDS(p5_cesr_cyrix, p5_cesr_cyrix_rules, &vpmu_events_cyrix),
};
