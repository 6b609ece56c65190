/* SPDX-License-Identifier: MIT */
/* The Pentium 4's PMU registers and control slots (p4_regfile.h). */
#include "p4_regfile.h"

/* ESCR rank by address - P4_ESCR_FIRST, plus one (0: no ESCR there): the 45
 * ESCRs of perfctr's clearing ranges 0x3A0+31, 0x3C0+6, 0x3C8+6, 0x3E0+2. */
#define RANKS_3A0 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, \
		  21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
static const uint8_t escr_rank1[P4_ESCR_LAST - P4_ESCR_FIRST + 1] = {
	RANKS_3A0,
	[0x20] = 32, 33, 34, 35, 36, 37,           /* MS, TBPU, TC: 0x3C0-0x3C5 */
	[0x28] = 38, 39, 40, 41, 42, 43,           /* IX, ALF, CRU2/3: 0x3C8-0x3CD */
	[0x40] = 44, 45,                           /* CRU4/5: 0x3E0-0x3E1 */
};

int p4_escr_slot(uint32_t msr)
{
	if (msr < P4_ESCR_FIRST || msr > P4_ESCR_LAST || !escr_rank1[msr - P4_ESCR_FIRST])
		return -1;
	return (int)(P4_SLOT_ESCR0 + escr_rank1[msr - P4_ESCR_FIRST] - 1);
}

#define CTR(n)  { P4_COUNTER_MSR + (n), VPMU_SPACE_MSR, VPMU_REG_CTR, (n), 0 }
#define CCCR(n) { P4_CCCR_MSR + (n), VPMU_SPACE_MSR, VPMU_REG_CTRL, P4_SLOT_CCCR0 + (n), 0 }
#define ESCR(a, r) { (a), VPMU_SPACE_MSR, VPMU_REG_CTRL, P4_SLOT_ESCR0 + (r), 0 }

const struct vpmu_reg p4_regs[P4_NR_REGS] = {
	{ P4_MISC_ENABLE_MSR, VPMU_SPACE_MSR, VPMU_REG_MISC, P4_MISC_ENABLE, VPMU_REGF_READ_HOOK },
	CTR(0), CTR(1), CTR(2), CTR(3), CTR(4), CTR(5), CTR(6), CTR(7), CTR(8),
	CTR(9), CTR(10), CTR(11), CTR(12), CTR(13), CTR(14), CTR(15), CTR(16), CTR(17),
	CCCR(0), CCCR(1), CCCR(2), CCCR(3), CCCR(4), CCCR(5), CCCR(6), CCCR(7), CCCR(8),
	CCCR(9), CCCR(10), CCCR(11), CCCR(12), CCCR(13), CCCR(14), CCCR(15), CCCR(16), CCCR(17),
	ESCR(0x3A0, 0), ESCR(0x3A1, 1), ESCR(0x3A2, 2), ESCR(0x3A3, 3), ESCR(0x3A4, 4),
	ESCR(0x3A5, 5), ESCR(0x3A6, 6), ESCR(0x3A7, 7), ESCR(0x3A8, 8), ESCR(0x3A9, 9),
	ESCR(0x3AA, 10), ESCR(0x3AB, 11), ESCR(0x3AC, 12), ESCR(0x3AD, 13), ESCR(0x3AE, 14),
	ESCR(0x3AF, 15), ESCR(0x3B0, 16), ESCR(0x3B1, 17), ESCR(0x3B2, 18), ESCR(0x3B3, 19),
	ESCR(0x3B4, 20), ESCR(0x3B5, 21), ESCR(0x3B6, 22), ESCR(0x3B7, 23), ESCR(0x3B8, 24),
	ESCR(0x3B9, 25), ESCR(0x3BA, 26), ESCR(0x3BB, 27), ESCR(0x3BC, 28), ESCR(0x3BD, 29),
	ESCR(0x3BE, 30),
	ESCR(0x3C0, 31), ESCR(0x3C1, 32), ESCR(0x3C2, 33), ESCR(0x3C3, 34), ESCR(0x3C4, 35),
	ESCR(0x3C5, 36),
	ESCR(0x3C8, 37), ESCR(0x3C9, 38), ESCR(0x3CA, 39), ESCR(0x3CB, 40), ESCR(0x3CC, 41),
	ESCR(0x3CD, 42),
	ESCR(0x3E0, 43), ESCR(0x3E1, 44),
	{ P4_PEBS_ENABLE_MSR, VPMU_SPACE_MSR, VPMU_REG_CTRL, P4_SLOT_PEBS, 0 },
	{ P4_PEBS_MATRIX_VERT_MSR, VPMU_SPACE_MSR, VPMU_REG_CTRL, P4_SLOT_PMV, 0 },
	/* Which cascaded counters have started: no MSR shows it, a restore must
	 * carry it (IA-32 SDM vol. 3, "Cascading Counters"). */
	{ P4_STATE_CASCADED, VPMU_SPACE_STATE, VPMU_REG_MISC, P4_MISC_CASCADED, 0 },
};

uint32_t p4_slot_escr(unsigned slot)
{
	/* p4_regs: MISC_ENABLE, 18 counters, 18 CCCRs, then the ESCRs by slot. */
	if (slot < P4_SLOT_ESCR0 || slot >= P4_SLOT_PEBS)
		return 0;
	return p4_regs[1 + 2 * P4_NR_COUNTERS + slot - P4_SLOT_ESCR0].addr;
}

_Static_assert(P4_NR_CTRL_SLOTS <= VPMU_MAX_CTRL_SLOTS, "the P4's control slots fit");
