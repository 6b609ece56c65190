/* SPDX-License-Identifier: MIT */
/*
 * Centaur (IDT) WinChip C6: the P5 register set (CESR 0x11, 40-bit CTR0/CTR1
 * 0x12/0x13) with an 8-bit event select per half and nothing else: the counters
 * count at every privilege level and cannot be stopped; no overflow interrupt;
 * the TSC is broken (perfctr low-level-x86.txt: "bad P5 clones").
 * Shared CESR logic and the perfctr rules: p5_cesr.c; the page: docs/models/winchip-c6.md.
 */
#include "p5_cesr.h"

/* perfctr event_set_centaur.c (the C6 data sheet lists the codes in decimal).
 * Event 0 is the internal clock, so a C6 counts cycles from reset (CESR = 0). */
static const struct vpmu_event_desc winchip_c6_events[] = {
	{ 0x00, 0xFF, VPMU_EV_CYCLES, 0, "INTERNAL_CLOCKS" },
	{ 0x02, 0xFF, VPMU_EV_INSTRUCTIONS, 0, "X86_INSTRUCTIONS" },
	{ 0x01, 0xFF, VPMU_EV_NONE, 0, "VALID_CYCLES_REACHING_WRITEBACKS" },
	{ 0x47, 0xFF, VPMU_EV_NONE, 0, "DATA_READ_CACHE_MISSES" },
	{ 0x4A, 0xFF, VPMU_EV_NONE, 0, "DATA_WRITE_CACHE_MISSES" },
	{ 0x63, 0xFF, VPMU_EV_NONE, 0, "INSTRUCTION_FETCH_CACHE_MISSES" },
};

const struct vpmu_model vpmu_model_winchip_c6 = {
	.name = "winchip-c6",
	.description = "Centaur WinChip C6: 2 x 40-bit counters, 8-bit CESR events, always counting, no PMI",
	.id = { "CentaurHauls", 5, 4, 1, F_FPU | F_TSC | F_MSR | F_MCE | F_CX8 | F_MMX, 0, 0, 0 },
	.ctr_width = 40,
	P5_CESR_MODEL_FIELDS(p5_cesr_winchip, p5_cesr_winchip_rules, winchip_c6_events, sizeof(winchip_c6_events) / sizeof(winchip_c6_events[0])),
};
