/* SPDX-License-Identifier: MIT */
/*
 * The per-model table.  Bit names: P6/K7 EVNTSEL USR 16, OS 17, E 18, PC 19,
 * INT 20, EN 22, INV 23, CMASK 24-31 (SDM vol. 3, AMD 22007; p6.md, k7.md).
 * CESR halves: event 0-5, CC 6-8 (011 = any CPL, 1xx = clock mode), PC 9,
 * Cyrix event bit 6 in bit 10 (SDM vol. 3, perfctr x86.c; p5.md, 6x86mx.md);
 * WinChip halves are an 8-bit event.
 */
#include "model.h"

#include "string.h"

#define USR (1u << 16)
#define OS  (1u << 17)
#define INT (1u << 20)
#define EN  (1u << 22)
#define B(n) (1ull << (n))

/* ---- P5 family: one CESR (0x11), counters 0x12/0x13 ----------------------- */

#define CESR_COMMON \
	.style = STYLE_CESR, .ctr_mask = 0x3, .ctr = { 0x12, 0x13 }, .ctl = { 0x11 }, .nctl = 1, \
	.linux = LINUX_NONE    /* events/core.c: P5, Cyrix, WinChip get no hardware perf */

/* p5.md / p5mmx.md: bits outside 0x03FF03FF #GP; perfctr reserves 0xFE00 per
 * half, so strict mode refuses PC (bit 9/25). */
#define INTEL_CESR \
	CESR_COMMON, .width = 40, \
	.stop_what = "CESR CC=000 in both halves stops both counters", \
	.quiet = { { 0x11, 0 } }, \
	.hw_gp = { { 0x11, 0x000004D6, "CESR bit 10" }, { 0x11, 0x800000D6, "CESR bit 31" }, \
		   { 0x11, B(32) | 0xD6, "CESR bit 32" } }, \
	.stored = { { 0x11, 0x01FF01FF, "CESR 0x01FF01FF (event 0x3F, CC=111, both halves)" } }, \
	.rule1 = { { 0x11, 0x000002D6, "cesr-reserved: PC (bit 9) in counter 0's half" }, \
		   { 0x11, 0x02D60000, "cesr-reserved: PC (bit 25) in counter 1's half" } }

/* 6x86mx.md / mii.md / cyrix-iii.md: bits outside 0x07FF07FF #GP (bit 10 is
 * event bit 6); perfctr reserves 0xFA00; 48-bit counters; no cycles event. */
#define CYRIX \
	CESR_COMMON, .vendor = "CyrixInstead", .width = 48, \
	.count = { \
		{ "instructions (0x16) and branches (0x12), CC=011", \
		  { { 0x11, 0x00D200D6 } }, 0x3, 0 }, \
		{ "instructions; event 0x56 (ES 0x16 + bit 10: counts zero) on counter 1", \
		  { { 0x11, 0x04D600D6 } }, 0x1, 0x2 } }, \
	.stop_what = "CESR CC=000 in both halves stops both counters", \
	.quiet = { { 0x11, 0 } }, \
	.hw_gp = { { 0x11, 0x000008D6, "CESR bit 11" }, { 0x11, 0x080000D6, "CESR bit 27" }, \
		   { 0x11, B(32) | 0xD6, "CESR bit 32" } }, \
	.stored = { { 0x11, 0x05FF05FF, "CESR 0x05FF05FF (event 0x7F, CC=111, both halves)" } }, \
	.rule1 = { { 0x11, 0x000002D6, "cesr-reserved: PC (bit 9) in counter 0's half" }, \
		   { 0x11, 0x02D60000, "cesr-reserved: PC (bit 25) in counter 1's half" } }, \
	.smp = { { 0x11, 0xD6 }, { 0x11, 0xD2 } }, .smp_ctr = 0

/* winchip-*.md: only bits 32-63 #GP; perfctr reserves 0xFF00 per half; the
 * counters cannot be stopped (perfctr low-level-x86.txt "General"). */
#define WINCHIP \
	CESR_COMMON, .vendor = "CentaurHauls", .width = 40, \
	.hw_gp = { { 0x11, B(32), "CESR bit 32" }, { 0x11, B(63), "CESR bit 63" } }, \
	.stored = { { 0x11, 0x00FF00FF, "CESR 0x00FF00FF (event 0xFF, both halves)" } }, \
	.rule1 = { { 0x11, 0x00000100, "cesr-reserved: bit 8 (counter 0's half)" }, \
		   { 0x11, 0x80000000, "cesr-reserved: bit 31 (counter 1's half)" } }

/* WinChip 2 and 3 share the event set (winchip2.md, winchip3.md). */
#define WINCHIP23 \
	WINCHIP, \
	.count = { \
		{ "cycles (0x3F) and instructions (0x16)", { { 0x11, 0x0016003F } }, 0x3, 0, 0x1 }, \
		{ "cycles; DATA_READ (0x00: counts zero) on counter 1", \
		  { { 0x11, 0x0000003F } }, 0x1, 0x2, 0x1 } }, \
	.stop_what = "CESR=0 selects DATA_READ (counts zero here): the counters cannot stop", \
	.stop_counting = 0, \
	.quiet = { { 0x11, 0 } }, \
	.smp = { { 0x11, 0x3F }, { 0x11, 0x16 } }, .smp_ctr = 0, .smp_clock = 0x1

/* ---- K7/K8: EVNTSEL 0xC0010000-3, PERFCTR 0xC0010004-7 ------------------ */

/* k7.md: bit 21 and 32-63 #GP (bit 32 is family 10h's event select, bit 40
 * its HO/GO: reserved here, k8.md); 48-bit counters, no sign extension. */
#define AMD_K7_COMMON \
	.vendor = "AuthenticAMD", .style = STYLE_K7, .ctr_mask = 0xF, \
	.ctr = { 0xC0010004, 0xC0010005, 0xC0010006, 0xC0010007 }, \
	.ctl = { 0xC0010000, 0xC0010001, 0xC0010002, 0xC0010003 }, .nctl = 4, \
	.width = 48, .pmi = true, .intel_lvtpc = false, .linux = LINUX_AMD, \
	.count = { \
		{ "cycles (0x76), instructions (0xC0); RETIRED_OPS (0xC1: counts zero); counter 3 off", \
		  { { 0xC0010000, EN | OS | USR | 0x76 }, { 0xC0010001, EN | OS | USR | 0xC0 }, \
		    { 0xC0010002, EN | OS | USR | 0xC1 } }, 0x3, 0xC, 0x1 }, \
		{ "branches (0xC2) and data cache accesses (0x40) on counters 2 and 3", \
		  { { 0xC0010002, EN | OS | USR | 0xC2 }, { 0xC0010003, EN | OS | USR | 0x40 } }, \
		  0xC, 0x3 } }, \
	.stop_what = "clearing each EVNTSEL's own EN stops its counter", \
	.quiet = { { 0xC0010000, 0 }, { 0xC0010001, 0 }, { 0xC0010002, 0 }, { 0xC0010003, 0 } }, \
	.hw_gp = { { 0xC0010000, B(21) | OS | USR | 0x76, "EVNTSEL0 bit 21" }, \
		   { 0xC0010001, B(32) | 0xC0, "EVNTSEL1 bit 32" }, \
		   { 0xC0010002, B(40) | 0xC0, "EVNTSEL2 bit 40" }, \
		   { 0xC0010003, B(63) | 0x76, "EVNTSEL3 bit 63" } }, \
	.stored = { { 0xC0010003, 0xFF87FF76, "EVNTSEL3 0xFF87FF76 (unit mask, E, INV, CNT_MASK; no EN)" }, \
		    { 0xC0010000, INT | OS | USR | 0x76, "EVNTSEL0 0x130076 (INT without EN)" } }, \
	.rule1 = { { 0xC0010000, B(19) | OS | USR | 0x76, "evntsel-reserved: EVNTSEL0 bit 19 (PC), EN clear" }, \
		   { 0xC0010001, EN | B(19) | OS | USR | 0xC0, "evntsel-reserved: EVNTSEL1 bit 19 (PC), EN set" } }, \
	.smp = { { 0xC0010000, EN | OS | USR | 0x76 }, { 0xC0010000, EN | OS | USR | 0xC0 } }, .smp_ctr = 0, \
	.smp_clock = 0x1, \
	.sample_evntsel = EN | INT | OS | USR | 0x76

/* ---- P4 (NetBurst): counters 0x300-0x311, CCCRs 0x360-0x371, 45 ESCRs ---- */

/* p4.md "Registers" and "What counts"; encodings: Linux p4.c p4_general_events
 * and perf_event_p4.h (GLOBAL_POWER_EVENTS 0x13 on FSB_ESCR0/1 select 6,
 * counters 0-3; INSTR_RETIRED 0x02, NBOGUSNTAG bit 0 | BOGUSNTAG bit 2, on
 * CRU_ESCR0/1 select 4, counters 12-17).  The table's four counters are 0 and
 * 1 (both select FSB_ESCR0 with ESCR_SELECT 6) and 12 and 14 (CRU_ESCR0 and
 * CRU_ESCR1 with ESCR_SELECT 4: SDM vol. 3, the ESCR/counter table).  RDPMC
 * takes the counter number (MSR - 0x300), not the table index (rdpmc.c). */
#define P4_CRU_ESCR0 0x3B8u
#define P4_CRU_ESCR1 0x3B9u
#define P4_ESCR_INSTR (P4_ESCR_EVENT(0x02) | P4_ESCR_EMASK(0x5))
#define P4_CCCR_INSTR (P4_CCCR_ENABLE | P4_CCCR_ESCR_SEL(4) | P4_CCCR_ACTIVE_THREAD(3))
#define P4_CCCR_IDLE  (P4_CCCR_ESCR_SEL(6) | P4_CCCR_ACTIVE_THREAD(3))

#define P4_COMMON \
	.vendor = "GenuineIntel", .family = 15, .style = STYLE_P4, .ctr_mask = 0xF, \
	.ctr = { P4_CTR(0), P4_CTR(1), P4_CTR(12), P4_CTR(14) }, \
	.ctl = { P4_CCCR(0), P4_CCCR(1), P4_CCCR(12), P4_CCCR(14) }, .nctl = 4, \
	.width = 40, .pmi = true, .intel_lvtpc = true, .linux = LINUX_P4, \
	.en_bit = P4_CCCR_ENABLE, \
	.count = { \
		{ "cycles (GLOBAL_POWER_EVENTS:RUNNING, FSB_ESCR0) on counter 0, instructions " \
		  "(INSTR_RETIRED, CRU_ESCR0) on counter 12", \
		  { { P4_FSB_ESCR0, P4_ESCR_CYCLES }, { P4_CCCR(0), P4_CCCR_CYCLES }, \
		    { P4_CRU_ESCR0, P4_ESCR_INSTR | P4_ESCR_T0_OS | P4_ESCR_T0_USR }, \
		    { P4_CCCR(12), P4_CCCR_INSTR } }, 0x5, 0xA, 0x1 }, \
		{ "cycles on counter 1 (FSB_ESCR0); counter 14 through CRU_ESCR1 with no privilege " \
		  "level (counts nothing)", \
		  { { P4_FSB_ESCR0, P4_ESCR_CYCLES }, { P4_CCCR(1), P4_CCCR_CYCLES }, \
		    { P4_CRU_ESCR1, P4_ESCR_INSTR }, { P4_CCCR(14), P4_CCCR_INSTR } }, 0x2, 0xD, 0x2 }, \
		{ "cycles on counters 0 and 1, both through FSB_ESCR0 (one ESCR, two counters)", \
		  { { P4_FSB_ESCR0, P4_ESCR_CYCLES }, { P4_CCCR(0), P4_CCCR_CYCLES }, \
		    { P4_CCCR(1), P4_CCCR_CYCLES } }, 0x3, 0xC, 0x3 } }, \
	.stop_what = "clearing each CCCR's ENABLE (bit 12) stops its counter", \
	.quiet = { { P4_CCCR(0), 0 }, { P4_CCCR(1), 0 }, { P4_CCCR(12), 0 }, { P4_CCCR(14), 0 } }, \
	/* p4.md: bits 32-63 of a CCCR, an ESCR or PEBS_ENABLE #GP; 0x3BF is no ESCR. */ \
	.hw_gp = { { P4_CCCR(0), B(32) | P4_CCCR_IDLE, "CCCR0 bit 32" }, \
		   { P4_FSB_ESCR0, B(32) | P4_ESCR_CYCLES, "FSB_ESCR0 bit 32" }, \
		   { P4_PEBS_ENABLE, B(63), "PEBS_ENABLE bit 63" }, \
		   { 0x3BF, 0, "0x3BF := 0 (no ESCR there: Linux's \"SSU_ESCR1\")" } }, \
	.stored = { { P4_CCCR(0), 0x47FFE000, "CCCR0 0x47FFE000 (ESCR_SELECT, ACTIVE_THREAD, COMPARE, " \
		      "COMPLEMENT, THRESHOLD, EDGE, FORCE_OVF, OVF_PMI_T0, CASCADE; no ENABLE)" }, \
		    { P4_FSB_ESCR0, 0x7FFFFFFF, "FSB_ESCR0 0x7FFFFFFF (bits 0-30; no counter enabled)" }, \
		    { P4_CCCR(12), P4_CCCR_EXT_CASCADE | P4_CCCR_ESCR_SEL(4) | P4_CCCR_ACTIVE_THREAD(3), \
		      "CCCR12 with EXTENDED_CASCADE (bit 11: counter 12, CPUID model >= 2)" } }, \
	/* p4.md rules 0-4 (perfctr x86.c p4_check_control's masks). */ \
	.rule1 = { { P4_CCCR(0), P4_CCCR_IDLE | B(0), "cccr-reserved: CCCR0 bit 0" }, \
		   { P4_CCCR(0), P4_CCCR_IDLE | P4_CCCR_OVF_PMI_T1, \
		     "cccr-reserved: CCCR0 OVF_PMI_T1 (bit 27)" }, \
		   { P4_CCCR(0), P4_CCCR_IDLE | P4_CCCR_EXT_CASCADE, \
		     "cccr-extended-cascade: EXTENDED_CASCADE (bit 11) on counter 0" }, \
		   { P4_FSB_ESCR0, B(31) | P4_ESCR_CYCLES, "escr-reserved: FSB_ESCR0 bit 31" }, \
		   { P4_PEBS_ENABLE, B(3), "pebs-enable-reserved: PEBS_ENABLE bit 3" }, \
		   { P4_PEBS_MATRIX_VERT, B(2), "pebs-matrix-vert-reserved: PEBS_MATRIX_VERT bit 2" } }, \
	/* Both vCPUs enable CCCR0 for FSB_ESCR0, then program FSB_ESCR0 with \
	 * cycles: the BSP at CPL 0 and 3, the AP at CPL 0 only (the guest runs \
	 * at CPL 0: both count). */ \
	.smp_pre = { P4_CCCR(0), P4_CCCR_CYCLES }, \
	.smp = { { P4_FSB_ESCR0, P4_ESCR_CYCLES }, \
		 { P4_FSB_ESCR0, P4_ESCR_EVENT(0x13) | P4_ESCR_EMASK(1) | P4_ESCR_T0_OS } }, \
	.smp_ctr = 0, .smp_clock = 0x3, \
	.sample_evntsel = P4_CCCR_CYCLES | P4_CCCR_OVF_PMI_T0, \
	.sample_pre = { P4_FSB_ESCR0, P4_ESCR_CYCLES }

const struct pmu_model pmu_models[] = {
	{
		.name = "p5", .vendor = "GenuineIntel", .family = 5, .model = 2, .stepping = 12,
		INTEL_CESR, .no_rdpmc = true,
		/* p5.md: no cycles event (the TSC is the cycle source). */
		.count = {
			{ "instructions (0x16) and branches (0x12), CC=011",
			  { { 0x11, 0x00D200D6 } }, 0x3, 0 },
			{ "instructions; DATA_READ (0x00: counts zero) on counter 1",
			  { { 0x11, 0x00C000D6 } }, 0x1, 0x2 },
			{ "instructions; counter 1 with CC=000 (counts nothing)",
			  { { 0x11, 0x001600D6 } }, 0x1, 0x2 } },
		.smp = { { 0x11, 0xD6 }, { 0x11, 0xD2 } }, .smp_ctr = 0,
	},
	{
		.name = "p5mmx", .vendor = "GenuineIntel", .family = 5, .model = 4, .stepping = 3,
		INTEL_CESR,
		/* p5mmx.md: 0x30 in clock mode (CC=1xx) is cycles on counter 0 only. */
		.count = {
			{ "cycles (0x30, CC=111, counter 0) and instructions (0x16)",
			  { { 0x11, 0x00D601F0 } }, 0x3, 0, 0x1 },
			{ "instructions; 0x30 on counter 1 (a stall duration: counts zero)",
			  { { 0x11, 0x01F000D6 } }, 0x1, 0x2 } },
		.smp = { { 0x11, 0x1F0 }, { 0x11, 0xD6 } }, .smp_ctr = 0, .smp_clock = 0x1,
	},
	{ .name = "6x86mx", .family = 6, .model = 0, .stepping = 2, CYRIX },
	{ .name = "mii", .family = 6, .model = 0, .stepping = 4, CYRIX },
	{ .name = "cyrix-iii", .family = 6, .model = 5, .stepping = 1, CYRIX },
	{
		.name = "winchip-c6", .family = 5, .model = 4, .stepping = 1,
		WINCHIP,
		/* winchip-c6.md: event 0 is INTERNAL_CLOCKS, so both counters
		 * count cycles from reset (CESR = 0). */
		.count = {
			{ "cycles (0x00) and instructions (0x02)", { { 0x11, 0x00020000 } }, 0x3, 0, 0x1 },
			{ "cycles; 0x01 (counts zero) on counter 1", { { 0x11, 0x00010000 } }, 0x1, 0x2, 0x1 } },
		.stop_what = "CESR=0 does not stop the counters: event 0 is INTERNAL_CLOCKS",
		.stop_counting = 0x3, .stop_clock = 0x3,
		.quiet = { { 0x11, 0x00010001 } },
		.smp = { { 0x11, 0x00010000 }, { 0x11, 0x00010002 } }, .smp_ctr = 0, .smp_clock = 0x1,
	},
	{ .name = "winchip2", .family = 5, .model = 8, .stepping = 5, WINCHIP23 },
	{ .name = "winchip3", .family = 5, .model = 9, .stepping = 0, WINCHIP23 },
	{
		.name = "p6", .vendor = "GenuineIntel", .family = 6, .model = 8, .stepping = 3,
		.style = STYLE_P6, .ctr_mask = 0x3, .ctr = { 0xC1, 0xC2 }, .ctl = { 0x186, 0x187 },
		.nctl = 2, .width = 40, .sext32 = true, .pmi = true, .intel_lvtpc = true,
		.linux = LINUX_P6,
		/* p6.md: EVNTSEL1 first, EN last: counter 1 runs on EVNTSEL0.EN. */
		.count = {
			{ "cycles (0x79) and instructions (0xC0)",
			  { { 0x187, OS | USR | 0xC0 }, { 0x186, EN | OS | USR | 0x79 } }, 0x3, 0, 0x1 },
			{ "instructions; DATA_MEM_REFS (0x43: counts zero) on counter 1",
			  { { 0x187, OS | USR | 0x43 }, { 0x186, EN | OS | USR | 0xC0 } }, 0x1, 0x2 } },
		.stop_what = "clearing EVNTSEL0.EN (the global enable) stops both counters",
		.quiet = { { 0x186, 0 }, { 0x187, 0 } },
		/* SDM vol. 3: bit 21 and bits 32-63 #GP (KVM's mask 0xffffffff00200000). */
		.hw_gp = { { 0x186, B(21) | OS | USR | 0x79, "EVNTSEL0 bit 21" },
			   { 0x186, B(32) | 0x79, "EVNTSEL0 bit 32" },
			   { 0x187, B(63) | 0xC0, "EVNTSEL1 bit 63" } },
		.stored = { { 0x186, INT | OS | USR | 0x79, "EVNTSEL0 0x130079 (INT without EN)" },
			    { 0x187, 0xFF8700C0, "EVNTSEL1 0xFF8700C0 (E, INV, CMASK)" } },
		.rule1 = { { 0x186, B(19) | OS | USR | 0x79, "evntsel-reserved: EVNTSEL0 bit 19 (PC)" },
			   { 0x187, EN | OS | USR | 0xC0, "evntsel1-enable: EN (bit 22) in EVNTSEL1" },
			   { 0x187, B(19) | OS | USR | 0xC0, "evntsel-reserved: EVNTSEL1 bit 19 (PC)" } },
		.smp = { { 0x186, EN | OS | USR | 0x79 }, { 0x186, EN | OS | USR | 0xC0 } }, .smp_ctr = 0,
		.smp_clock = 0x1,
		.sample_evntsel = EN | INT | OS | USR | 0x79,
	},
	{ .name = "k7", .family = 6, .model = 6, .stepping = 2, AMD_K7_COMMON },
	{ .name = "k8", .family = 15, .model = 0x23, .stepping = 2, AMD_K7_COMMON },
	{
		/* c3.md: EVNTSEL1 has only a 9-bit event field, PERFCTR1 is 32 bits,
		 * PERFCTR0 and EVNTSEL0 read 0 and accept only 0; the counter cannot
		 * be stopped. */
		.name = "c3", .vendor = "CentaurHauls", .family = 6, .model = 7, .stepping = 3,
		.style = STYLE_C3, .ctr_mask = 0x2, .ctr = { 0, 0xC2 }, .ctl = { 0x187 }, .nctl = 1,
		.readonly = { 0xC1, 0x186 }, .width = 32, .linux = LINUX_NONE,
		.count = {
			{ "cycles (0x079)", { { 0x187, 0x079 } }, 0x2, 0, 0x2 },
			{ "instructions (0x0C0)", { { 0x187, 0x0C0 } }, 0x2, 0 },
			{ "0x1C0 (instructions and string iterations: counts zero)",
			  { { 0x187, 0x1C0 } }, 0, 0x2 } },
		.stop_what = "EVNTSEL1=0 selects event 0 (counts zero here): the counter cannot stop",
		.quiet = { { 0x187, 0 } },
		.hw_gp = { { 0x187, B(32) | 0xC0, "EVNTSEL1 bit 32" },
			   { 0xC1, 1, "PERFCTR0 (read-only) := 1" },
			   { 0x186, 0x79, "EVNTSEL0 (read-only) := 0x79" } },
		.stored = { { 0x187, 0x1FF, "EVNTSEL1 0x1FF (the whole event field)" },
			    { 0xC1, 0, "PERFCTR0 := 0 (the value it holds)" },
			    { 0x186, 0, "EVNTSEL0 := 0 (the value it holds)" } },
		.rule1 = { { 0x187, EN | INT | OS | USR | 0xC0, "evntsel-reserved: P6-style 0x5300C0 (bits 16-22)" },
			   { 0x187, 0x200 | 0xC0, "evntsel-reserved: bit 9" } },
		.smp = { { 0x187, 0x079 }, { 0x187, 0x0C0 } }, .smp_ctr = 1, .smp_clock = 0x1,
	},
	/* p4.md: Northwood, 32-bit; p4-em64t.md: Prescott 2M, no IQ_ESCR0/1. */
	{ .name = "p4", .model = 2, .stepping = 9, P4_COMMON },
	{ .name = "p4-em64t", .model = 4, .stepping = 3, P4_COMMON },
	{
		/* generic.md: a K6-2's identity and no PMU register at all. */
		.name = "generic", .vendor = "AuthenticAMD", .family = 5, .model = 8, .stepping = 12,
		.style = STYLE_NONE, .linux = LINUX_NONE,
	},
};

const unsigned pmu_nmodels = sizeof(pmu_models) / sizeof(pmu_models[0]);

const uint32_t all_pmu_msrs[] = {
	0x11, 0x12, 0x13,                           /* P5 CESR, CTR0/1 */
	0xC1, 0xC2, 0x186, 0x187,                   /* P6/C3 */
	0xC0010000, 0xC0010001, 0xC0010002, 0xC0010003,
	0xC0010004, 0xC0010005, 0xC0010006, 0xC0010007, /* K7/K8 */
	0x300, 0x311, 0x360, 0x371, 0x3A0, 0x3E1, 0x3F1, 0x3F2, /* P4: counters, CCCRs, ESCRs, PEBS */
};
const unsigned all_pmu_nmsrs = sizeof(all_pmu_msrs) / sizeof(all_pmu_msrs[0]);

/* p4.md "Registers": 0x3A0-0x3E1 less 0x3BF, 0x3C6/7 and 0x3CE-0x3DF. */
const uint32_t p4_escrs[] = {
	0x3A0, 0x3A1, 0x3A2, 0x3A3, 0x3A4, 0x3A5, 0x3A6, 0x3A7,   /* BSU FSB FIRM FLAME */
	0x3A8, 0x3A9, 0x3AA, 0x3AB, 0x3AC, 0x3AD, 0x3AE, 0x3AF,   /* DAC MOB PMH SAAT */
	0x3B0, 0x3B1, 0x3B2, 0x3B3, 0x3B4, 0x3B5, 0x3B6, 0x3B7,   /* U2L BPU IS ITLB */
	0x3B8, 0x3B9, 0x3BA, 0x3BB, 0x3BC, 0x3BD, 0x3BE,          /* CRU0/1 IQ RAT SSU0 */
	0x3C0, 0x3C1, 0x3C2, 0x3C3, 0x3C4, 0x3C5,                 /* MS TBPU TC */
	0x3C8, 0x3C9, 0x3CA, 0x3CB, 0x3CC, 0x3CD,                 /* IX ALF CRU2/3 */
	0x3E0, 0x3E1,                                             /* CRU4/5 */
};
const unsigned p4_nescrs = sizeof(p4_escrs) / sizeof(p4_escrs[0]);

bool p4_has_msr(unsigned model, uint32_t msr)
{
	if (msr >= P4_CTR(0) && msr < P4_CTR(P4_NCTRS))
		return true;
	if (msr >= P4_CCCR(0) && msr < P4_CCCR(P4_NCTRS))
		return true;
	if (msr == P4_PEBS_ENABLE || msr == P4_PEBS_MATRIX_VERT)
		return true;
	if (msr == P4_IQ_ESCR0 || msr == P4_IQ_ESCR1)
		return model <= 2;
	for (unsigned i = 0; i < p4_nescrs; i++)
		if (p4_escrs[i] == msr)
			return true;
	return false;
}

const struct pmu_model *model_by_name(const char *name)
{
	for (unsigned i = 0; i < pmu_nmodels; i++)
		if (strcmp(pmu_models[i].name, name) == 0)
			return &pmu_models[i];
	return 0;
}

const struct pmu_model *model_by_cpuid(const char *vendor, unsigned family, unsigned model,
				       unsigned stepping)
{
	/* 6x86mx and mii differ only in their stepping: an exact match first. */
	for (int exact = 1; exact >= 0; exact--)
		for (unsigned i = 0; i < pmu_nmodels; i++) {
			const struct pmu_model *m = &pmu_models[i];
			if (strcmp(m->vendor, vendor) == 0 && m->family == family &&
			    m->model == model && (!exact || m->stepping == stepping))
				return m;
		}
	return 0;
}

const char *linux_driver_name(enum linux_driver d)
{
	switch (d) {
	case LINUX_NONE: return "none (no hardware perf)";
	case LINUX_P6: return "p6";
	case LINUX_AMD: return "amd (legacy, 4 counters)";
	case LINUX_ARCH_PERFMON: return "intel architectural perfmon";
	case LINUX_P4: return "p4";
	case LINUX_AMD_CORE: return "amd (PERFCTR_CORE)";
	case LINUX_ZHAOXIN: return "zhaoxin";
	}
	return "?";
}
