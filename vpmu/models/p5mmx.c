/* SPDX-License-Identifier: MIT */
/*
 * Intel Pentium MMX (P5MMX, a P55C): the P5 PMU (CESR 0x11, 40-bit CTR0/CTR1
 * 0x12/0x13) with the MMX-era events 0x2A-0x3B, which mean different things on
 * each counter.
 * Shared CESR logic and the perfctr rules: p5_cesr.c; the page: docs/models/p5mmx.md.
 */
#include "p5_cesr.h"

const struct vpmu_model vpmu_model_p5mmx = {
	.name = "p5mmx",
	.description = "Intel Pentium MMX (P5MMX): 2 x 40-bit counters, CESR halves with CPL filter, no PMI",
	.id = { "GenuineIntel", 5, 4, 3, P5_BASE | F_APIC | F_MMX, 0, 0, 0 },
	.ctr_width = 40,
	P5_CESR_MODEL_FIELDS(p5_cesr_intel, p5_cesr_intel_rules, &vpmu_events_p5mmx),
};
