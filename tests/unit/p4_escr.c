/* SPDX-License-Identifier: MIT */
/*
 * The P4's ESCR map (vpmu/models/p4_escr.c), checked mechanically against an
 * independent encoding: perfctr's own p4_escr_addr() algorithm (x86.c: a
 * compact [4][8] table of offsets per counter-pair group, then the pair's
 * parity picks x0 or x1), run here for every counter and ESCR_SELECT; then
 * against perfctr's ESCR clearing ranges (0x3A0+31, 0x3C0+6, 0x3C8+6,
 * 0x3E0+2: the 45 ESCRs), and against the bindings Linux's P4 driver uses for
 * the generic events (arch/x86/events/intel/p4.c, p4_event_bind_map).
 */
#include <stdio.h>
#include <string.h>

#include "models/p4_escr.h"
#include "tap.h"

/* perfctr 2.6/2.7 x86.c p4_escr_addr(), as published (offsets from 0x300). */
static unsigned perfctr_p4_escr_addr(unsigned pmc, unsigned sel)
{
	static const unsigned char map[4][8] = {
		{ [7] = 0xA0, [6] = 0xA2, [2] = 0xAA, [4] = 0xAC, [0] = 0xB2, [1] = 0xB4,
		  [3] = 0xB6, [5] = 0xC8 },
		{ [0] = 0xC0, [2] = 0xC2, [1] = 0xC4 },
		{ [1] = 0xA4, [0] = 0xA6, [5] = 0xA8, [2] = 0xAE, [3] = 0xB0 },
		{ [4] = 0xB8, [5] = 0xCC, [6] = 0xE0, [0] = 0xBA, [2] = 0xBC, [3] = 0xBE,
		  [1] = 0xCA },
	};
	if (pmc > 17)
		return 0;
	if (pmc > 15)
		pmc -= 3;
	unsigned pair = pmc / 2, off = map[pair / 2][sel];
	if (!off || (pair == 7 && sel == 3))   /* SSU_ESCR1 does not exist */
		return 0;
	return 0x300 + off + (pair & 1);
}

static int in_clear_ranges(unsigned msr)
{
	return (msr >= 0x3A0 && msr < 0x3A0 + 31) || (msr >= 0x3C0 && msr < 0x3C0 + 6) ||
	       (msr >= 0x3C8 && msr < 0x3C8 + 6) || (msr >= 0x3E0 && msr < 0x3E0 + 2);
}

int main(void)
{
	unsigned diff = 0, valid = 0;
	for (unsigned pmc = 0; pmc < P4_NR_COUNTERS; pmc++)
		for (unsigned sel = 0; sel < 8; sel++) {
			unsigned want = perfctr_p4_escr_addr(pmc, sel), got = p4_escr_addr(pmc, sel);
			valid += want != 0;
			if (got != want) {
				diff++;
				printf("# counter %u select %u: 0x%x, perfctr 0x%x\n", pmc, sel, got, want);
			}
		}
	is_u64(diff, 0, "all 18 x 8 counter/ESCR_SELECT pairs agree with perfctr's p4_escr_addr");
	/* 4 BPU counters x 8 + 4 MS x 3 + 4 FLAME x 5 + 3 IQ x0 counters x 7 + 3 x1 x 6 */
	is_u64(valid, 4 * 8 + 4 * 3 + 4 * 5 + 3 * 7 + 3 * 6, "103 valid combinations");
	ok(p4_escr_addr(18, 0) == 0 && p4_escr_addr(0, 8) == 0, "counter 18 and select 8 select nothing");

	unsigned on2 = 0, on3 = 0, outside = 0;
	for (unsigned msr = 0x380; msr < 0x400; msr++) {
		on2 += p4_escr_exists(msr, 2);
		on3 += p4_escr_exists(msr, 3);
		outside += p4_escr_exists(msr, 2) != in_clear_ranges(msr);
	}
	is_u64(on2, 45, "45 ESCRs on models 0-2");
	is_u64(on3, 43, "43 from model 3 on (no IQ_ESCR0/1)");
	is_u64(outside, 0, "exactly perfctr's clearing ranges 0x3A0+31, 0x3C0+6, 0x3C8+6, 0x3E0+2");
	ok(!p4_escr_exists(0x3BF, 0) && !p4_escr_name(0x3BF), "no 0x3BF (Linux's guessed SSU_ESCR1)");

	unsigned unknown = 0;
	int reached[0x42] = { 0 };
	for (unsigned pmc = 0; pmc < P4_NR_COUNTERS; pmc++)
		for (unsigned sel = 0; sel < 8; sel++) {
			unsigned a = p4_escr_addr(pmc, sel);
			if (!a)
				continue;
			unknown += !p4_escr_exists(a, 2);
			reached[a - P4_ESCR_FIRST] = 1;
		}
	unsigned unreached = 0;
	for (unsigned msr = P4_ESCR_FIRST; msr <= P4_ESCR_LAST; msr++)
		unreached += p4_escr_exists(msr, 2) && !reached[msr - P4_ESCR_FIRST];
	ok(unknown == 0 && unreached == 0, "every ESCR the map names exists, and every ESCR is "
	   "reachable from some counter");

	/* IQ: counters 12, 13, 16 use x0, 14, 15, 17 x1 (the manual's table). */
	ok(p4_escr_addr(12, 4) == 0x3B8 && p4_escr_addr(13, 4) == 0x3B8 && p4_escr_addr(16, 4) == 0x3B8 &&
	   p4_escr_addr(14, 4) == 0x3B9 && p4_escr_addr(15, 4) == 0x3B9 && p4_escr_addr(17, 4) == 0x3B9,
	   "INSTR_RETIRED's CRU_ESCR0 for counters 12, 13, 16 and CRU_ESCR1 for 14, 15, 17");
	/* Linux p4_event_bind_map: GLOBAL_POWER_EVENTS (cycles) on FSB_ESCR0/1 with
	 * counters 0-3 (ESCR_SELECT 6); BRANCH_RETIRED on CRU_ESCR2/3 (select 5);
	 * BPU_FETCH_REQUEST on BPU_ESCR0 (select 0); MISPRED_BRANCH_RETIRED on
	 * CRU_ESCR0 (select 4); uop_queue_writes on MS_ESCR0 (select 0). */
	ok(p4_escr_addr(0, 6) == 0x3A2 && p4_escr_addr(2, 6) == 0x3A3, "cycles: FSB_ESCR0/1 with select 6");
	ok(p4_escr_addr(12, 5) == 0x3CC && p4_escr_addr(15, 5) == 0x3CD, "BRANCH_RETIRED: CRU_ESCR2/3 with select 5");
	ok(p4_escr_addr(0, 0) == 0x3B2 && p4_escr_addr(4, 0) == 0x3C0, "BPU_ESCR0 and MS_ESCR0 with select 0");
	ok(p4_escr_addr(12, 6) == 0x3E0 && p4_escr_addr(17, 6) == 0x3E1, "CRU_ESCR4/5 with select 6");
	ok(p4_escr_addr(14, 3) == 0 && p4_escr_addr(17, 3) == 0, "x1 IQ counters with select 3 (SSU_ESCR1) select nothing");
	ok(!strcmp(p4_escr_name(0x3A0), "BSU_ESCR0") && !strcmp(p4_escr_name(0x3E1), "CRU_ESCR5") &&
	   !strcmp(p4_escr_name(0x3BE), "SSU_ESCR0"), "the manual's names");
	return tap_done();
}
