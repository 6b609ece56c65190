/* SPDX-License-Identifier: MIT */
/*
 * Intel Pentium MMX (P5MMX, a P55C): the P5 PMU (CESR 0x11, 40-bit CTR0/CTR1
 * 0x12/0x13) with the MMX-era events 0x2A-0x3B, which mean different things on
 * each counter.
 * Shared CESR logic and the perfctr rules: p5_cesr.c; the page: docs/models/p5mmx.md.
 */
#include "p5_cesr.h"

/* Counter-specific entries come first and say which counter has them.  Events per
 * the SDM's Pentium MMX table and perfctr event_set_p5.c. */
static const struct vpmu_event_desc p5mmx_events[] = {
	/* A duration event: in clock mode it counts the unhalted clocks. */
	{ 0x0130, 0x053F, VPMU_EV_CYCLES, P5_CTR0, "NUMBER_OF_CYCLES_NOT_IN_HALT_STATE (counter 0, clocks)" },
	{ 0x0035, 0x053F, VPMU_EV_BRANCH_MISSES, P5_CTR0,
	  "PIPELINE_FLUSHES_DUE_TO_WRONG_BRANCH_PREDICTIONS (counter 0)" },
	{ 0x0030, 0x043F, VPMU_EV_NONE, P5_CTR1, "DATA_CACHE_TLB_MISS_STALL_DURATION (counter 1)" },
	{ 0x0035, 0x043F, VPMU_EV_NONE, P5_CTR1,
	  "PIPELINE_FLUSHES_DUE_TO_WRONG_BRANCH_PREDICTIONS_RESOLVED_IN_WB_STAGE (counter 1)" },
	{ 0x002E, 0x043F, VPMU_EV_NONE, P5_CTR1, "WRITES_TO_NONCACHEABLE_MEMORY (counter 1)" },
	{ 0x0032, 0x043F, VPMU_EV_NONE, P5_CTR1, "TAKEN_BRANCHES (counter 1)" },
	{ 0x002B, 0x043F, VPMU_EV_NONE, 0, "MMX_INSTRUCTIONS_EXECUTED_U_PIPE / _V_PIPE" },
	P5_CESR_INTEL_EVENTS,
};

const struct vpmu_model vpmu_model_p5mmx = {
	.name = "p5mmx",
	.description = "Intel Pentium MMX (P5MMX): 2 x 40-bit counters, CESR halves with CPL filter, no PMI",
	.id = { "GenuineIntel", 5, 4, 3, P5_BASE | F_APIC | F_MMX, 0, 0, 0 },
	.ctr_width = 40,
	P5_CESR_MODEL_FIELDS(p5_cesr_intel, p5_cesr_intel_rules, p5mmx_events, sizeof(p5mmx_events) / sizeof(p5mmx_events[0])),
};
