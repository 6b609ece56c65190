/* SPDX-License-Identifier: MIT */
/*
 * Cyrix 6x86MX: the P5 PMU with Cyrix's 7-bit event select (bit 10 / 26 is event bit 6)
 * and 48-bit counters; CESR 0x11, CTR0/CTR1 0x12/0x13, no overflow interrupt
 * (seed 000: "good P5 clones"; facts 1a, 6).
 * Shared CESR logic and the perfctr rules: p5_cesr.c; the page: docs/models/6x86mx.md.
 */
#include "p5_cesr.h"

P5_CESR_MODEL_OPS(cyrix_6x86mx, p5_cesr_cyrix, vpmu_model_cyrix_6x86mx)

const struct vpmu_model vpmu_model_cyrix_6x86mx = {
	.name = "6x86mx",
	.description = "Cyrix 6x86MX: 2 x 48-bit counters, P5 CESR with 7-bit events, no PMI",
	.vendor = "CyrixInstead",
	.family = 6, .cpumodel = 0, .stepping = 2,
	.ctr_width = 48,
	P5_CESR_MODEL_FIELDS(cyrix_6x86mx, p5_cesr_cyrix_rules, p5_cesr_cyrix_events,
			     P5_CESR_NR_CYRIX_EVENTS),
};
