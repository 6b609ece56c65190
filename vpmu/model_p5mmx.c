/* SPDX-License-Identifier: MIT */
/*
 * Intel Pentium MMX (P5MMX): the P5 PMU (CESR 0x11, 40-bit CTR0/CTR1 0x12/0x13)
 * with the MMX-era events 0x2A-0x3B, which mean different things on each counter.
 * Shared CESR logic and the perfctr rules: p5_cesr.c; the page: docs/models/p5mmx.md.
 */
#include "p5_cesr.h"

/* Counter-specific entries come first and carry the counter in the key's bit 16
 * (p5_cesr.h).  Events per the SDM's Pentium MMX table and perfctr event_set_p5.c. */
static const struct vpmu_event_desc p5mmx_events[] = {
	/* A duration event: in clock mode it counts the unhalted clocks. */
	{ 0x00130, 0x1053F, VPMU_EV_CYCLES, "NUMBER_OF_CYCLES_NOT_IN_HALT_STATE (counter 0, clocks)" },
	{ 0x00035, 0x1053F, VPMU_EV_BRANCH_MISSES,
	  "PIPELINE_FLUSHES_DUE_TO_WRONG_BRANCH_PREDICTIONS (counter 0)" },
	{ 0x10030, 0x1043F, VPMU_EV_NONE, "DATA_CACHE_TLB_MISS_STALL_DURATION (counter 1)" },
	{ 0x10035, 0x1043F, VPMU_EV_NONE,
	  "PIPELINE_FLUSHES_DUE_TO_WRONG_BRANCH_PREDICTIONS_RESOLVED_IN_WB_STAGE (counter 1)" },
	{ 0x1002E, 0x1043F, VPMU_EV_NONE, "WRITES_TO_NONCACHEABLE_MEMORY (counter 1)" },
	{ 0x10032, 0x1043F, VPMU_EV_NONE, "TAKEN_BRANCHES (counter 1)" },
	{ 0x0002B, 0x0043F, VPMU_EV_NONE, "MMX_INSTRUCTIONS_EXECUTED_U_PIPE / _V_PIPE" },
	P5_CESR_INTEL_EVENTS,
};

P5_CESR_MODEL_OPS(p5mmx, p5_cesr_intel, vpmu_model_p5mmx)

const struct vpmu_model vpmu_model_p5mmx = {
	.name = "p5mmx",
	.description = "Intel Pentium MMX (P5MMX): 2 x 40-bit counters, CESR halves with CPL filter, no PMI",
	.vendor = "GenuineIntel",
	.family = 5, .cpumodel = 4, .stepping = 3,
	.ctr_width = 40,
	P5_CESR_MODEL_FIELDS(p5mmx, p5_cesr_intel_rules, p5mmx_events,
			     sizeof(p5mmx_events) / sizeof(p5mmx_events[0])),
};
