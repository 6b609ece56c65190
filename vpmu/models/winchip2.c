/* SPDX-License-Identifier: MIT */
/*
 * Centaur WinChip 2: the WinChip C6 PMU (CESR 0x11, 40-bit CTR0/CTR1 0x12/0x13,
 * 8-bit event select per half, counting at every privilege level, never stopped,
 * no overflow interrupt) with the WinChip 2 event codes (perfctr
 * low-level-x86.txt: "bad P5 clones"; perfctr event_set_centaur.c).
 * Shared CESR logic and the perfctr rules: p5_cesr.c; the page: docs/models/winchip2.md.
 */
#include "p5_cesr.h"

const struct vpmu_model vpmu_model_winchip2 = {
	.name = "winchip2",
	.description = "Centaur WinChip 2: 2 x 40-bit counters, 8-bit CESR events, always counting, no PMI",
	.id = { "CentaurHauls", 5, 8, 5, F_FPU | F_TSC | F_MSR | F_MCE | F_CX8 | F_MMX, 0, F_FPU | F_TSC | F_MSR | F_MCE | F_CX8 | F_MMX | X_3DNOW, 0 },
	.ctr_width = 40,
	P5_CESR_MODEL_FIELDS(p5_cesr_winchip, p5_cesr_winchip_rules, &vpmu_events_winchip2),
};
