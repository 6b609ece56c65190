/* SPDX-License-Identifier: MIT */
/*
 * The Pentium 4's register table (vpmu/models/p4_regfile.c) against the layout
 * docs/design.md gives it and the manual's register list: 18 counters at
 * 0x300, 18 CCCRs at 0x360 in control slots 0-17, every ESCR in slots 18-62 in
 * address order (perfctr's clearing ranges say which: 0x3A0+31, 0x3C0+6,
 * 0x3C8+6, 0x3E0+2), the PEBS pair in 63-64, IA32_MISC_ENABLE read through the
 * model; sorted by address for the core's binary search.
 */
#include <stdio.h>

#include "models/p4_regfile.h"
#include "tap.h"

static int in_clear_ranges(unsigned msr)
{
	return (msr >= 0x3A0 && msr < 0x3A0 + 31) || (msr >= 0x3C0 && msr < 0x3C0 + 6) ||
	       (msr >= 0x3C8 && msr < 0x3C8 + 6) || (msr >= 0x3E0 && msr < 0x3E0 + 2);
}

static const struct vpmu_reg *find(uint32_t addr)
{
	for (unsigned i = 0; i < P4_NR_REGS; i++)
		if (p4_regs[i].addr == addr)
			return &p4_regs[i];
	return NULL;
}

int main(void)
{
	unsigned unsorted = 0;
	for (unsigned i = 1; i < P4_NR_REGS; i++)
		unsorted += p4_regs[i - 1].addr >= p4_regs[i].addr;
	is_u64(unsorted, 0, "%u registers, strictly sorted by address", P4_NR_REGS);
	is_u64(P4_NR_REGS, 18 + 18 + 45 + 2 + 1 + 1,
	       "18 counters, 18 CCCRs, 45 ESCRs, the PEBS pair, MISC_ENABLE, the cascade state");
	const struct vpmu_reg *cs = find(VPMU_STATE_BASE);
	ok(cs && cs->space == VPMU_SPACE_STATE && cs->kind == VPMU_REG_MISC,
	   "the started cascades are hidden state a restore carries (VPMU_SPACE_STATE)");

	unsigned bad = 0;
	for (unsigned n = 0; n < P4_NR_COUNTERS; n++) {
		const struct vpmu_reg *c = find(0x300 + n), *k = find(0x360 + n);
		bad += !c || c->kind != VPMU_REG_CTR || c->index != n || c->space != VPMU_SPACE_MSR;
		bad += !k || k->kind != VPMU_REG_CTRL || k->index != n;
	}
	is_u64(bad, 0, "counter n at 0x300+n, its CCCR at 0x360+n in control slot n");

	unsigned escrs = 0, wrong = 0, slots_seen = 0;
	uint64_t seen = 0;
	int last = -1;
	for (unsigned msr = 0x3A0; msr <= 0x3E1; msr++) {
		const struct vpmu_reg *r = find(msr);
		int slot = p4_escr_slot(msr);
		if (!in_clear_ranges(msr)) {
			wrong += r != NULL || slot != -1;
			continue;
		}
		escrs++;
		wrong += !r || r->kind != VPMU_REG_CTRL || (int)r->index != slot || slot <= last ||
			 slot < 18 || slot > 62;
		if (slot >= 18 && slot <= 62 && !(seen & (1ull << (slot - 18)))) {
			seen |= 1ull << (slot - 18);
			slots_seen++;
		}
		last = slot;
	}
	ok(escrs == 45 && wrong == 0 && slots_seen == 45, "the 45 ESCRs in slots 18-62 in address "
	   "order, nothing else between 0x3A0 and 0x3E1 (%u ESCRs, %u wrong)", escrs, wrong);
	ok(!find(0x3BF) && p4_escr_slot(0x3BF) == -1 && p4_escr_slot(0x39F) == -1 &&
	   p4_escr_slot(0x3E2) == -1 && p4_escr_slot(0x3C6) == -1, "no slot for 0x3BF and the gaps");

	const struct vpmu_reg *pe = find(0x3F1), *pmv = find(0x3F2), *misc = find(0x1A0);
	ok(pe && pe->kind == VPMU_REG_CTRL && pe->index == 63 && pmv && pmv->kind == VPMU_REG_CTRL &&
	   pmv->index == 64, "PEBS_ENABLE in slot 63, PEBS_MATRIX_VERT in 64");
	ok(misc && misc->kind == VPMU_REG_MISC && (misc->flags & VPMU_REGF_READ_HOOK),
	   "IA32_MISC_ENABLE: MISC, read through the model");
	ok(P4_NR_CTRL_SLOTS == 65 && P4_NR_CTRL_SLOTS <= VPMU_MAX_CTRL_SLOTS, "65 control slots");
	return tap_done();
}
