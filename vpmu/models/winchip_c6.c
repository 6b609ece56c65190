/* SPDX-License-Identifier: MIT */
/*
 * Centaur (IDT) WinChip C6: the P5 register set (CESR 0x11, 40-bit CTR0/CTR1
 * 0x12/0x13) with an 8-bit event select per half and nothing else: the counters
 * count at every privilege level and cannot be stopped; no overflow interrupt;
 * the TSC is broken (perfctr low-level-x86.txt: "bad P5 clones").
 * Shared CESR logic and the perfctr rules: p5_cesr.c; the page: docs/models/winchip-c6.md.
 */
#include "p5_cesr.h"

const struct vpmu_model vpmu_model_winchip_c6 = {
	.name = "winchip-c6",
	.description = "Centaur WinChip C6: 2 x 40-bit counters, 8-bit CESR events, always counting, no PMI",
	.id = { "CentaurHauls", 5, 4, 1, F_FPU | F_TSC | F_MSR | F_MCE | F_CX8 | F_MMX, 0, 0, 0 },
	.ctr_width = 40,
	P5_CESR_MODEL_FIELDS(p5_cesr_winchip, p5_cesr_winchip_rules, &vpmu_events_winchip_c6),
};
