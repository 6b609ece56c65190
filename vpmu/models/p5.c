/* SPDX-License-Identifier: MIT */
/*
 * Intel Pentium (P5, a P54C with its on-chip APIC): two 40-bit counters CTR0/CTR1
 * (MSR 0x12/0x13) controlled by the two halves of CESR (MSR 0x11); no RDPMC, no
 * overflow interrupt.
 * Shared CESR logic and the perfctr rules: p5_cesr.c; the page: docs/models/p5.md.
 */
#include "p5_cesr.h"

const struct vpmu_model vpmu_model_p5 = {
	.name = "p5",
	.description = "Intel Pentium (P5): 2 x 40-bit counters, CESR halves with CPL filter, no PMI",
	.id = { "GenuineIntel", 5, 2, 12, P5_BASE | F_APIC, 0, 0, 0 },
	.ctr_width = 40,
	/* RDPMC came with the Pentium MMX and the Pentium Pro (Intel SDM vol. 2,
	 * RDPMC; perfctr low-level-x86.txt: plain P5 has no RDPMC). */
	.caps = VPMU_CAP_NO_RDPMC,
	P5_CESR_MODEL_FIELDS(p5_cesr_intel, p5_cesr_intel_rules, &vpmu_events_p5),
};
