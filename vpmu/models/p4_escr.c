/* SPDX-License-Identifier: MIT */
/* The P4's ESCRs and the counter x ESCR_SELECT map (p4_escr.h). */
#include <stddef.h>

#include "p4_escr.h"

/* Per counter, ESCR_SELECT 0-7 (0: none), as the manual's table lists them per
 * counter group: BPU (0-3), MS (4-7), FLAME (8-11), IQ (12-17).  The even
 * counters of a pair and their odd sibling share a row; x0 ESCRs serve
 * counters 0-1, 4-5, 8-9, 12, 13 and 16, x1 ESCRs the others. */
#define BPU_X0 { 0x3B2, 0x3B4, 0x3AA, 0x3B6, 0x3AC, 0x3C8, 0x3A2, 0x3A0 }
#define BPU_X1 { 0x3B3, 0x3B5, 0x3AB, 0x3B7, 0x3AD, 0x3C9, 0x3A3, 0x3A1 }
#define MS_X0  { 0x3C0, 0x3C4, 0x3C2, 0, 0, 0, 0, 0 }
#define MS_X1  { 0x3C1, 0x3C5, 0x3C3, 0, 0, 0, 0, 0 }
#define FL_X0  { 0x3A6, 0x3A4, 0x3AE, 0x3B0, 0, 0x3A8, 0, 0 }
#define FL_X1  { 0x3A7, 0x3A5, 0x3AF, 0x3B1, 0, 0x3A9, 0, 0 }
#define IQ_X0  { 0x3BA, 0x3CA, 0x3BC, 0x3BE, 0x3B8, 0x3CC, 0x3E0, 0 }
#define IQ_X1  { 0x3BB, 0x3CB, 0x3BD, 0, 0x3B9, 0x3CD, 0x3E1, 0 }  /* no SSU_ESCR1 */

const uint16_t p4_escr_by_counter[P4_NR_COUNTERS][8] = {
	BPU_X0, BPU_X0, BPU_X1, BPU_X1,
	MS_X0, MS_X0, MS_X1, MS_X1,
	FL_X0, FL_X0, FL_X1, FL_X1,
	IQ_X0, IQ_X0, IQ_X1, IQ_X1, IQ_X0, IQ_X1,
};

/* The 45 ESCRs by address - P4_ESCR_FIRST (manual's names; NULL: none). */
static const char *const escr_names[P4_ESCR_LAST - P4_ESCR_FIRST + 1] = {
	[0x00] = "BSU_ESCR0",   [0x01] = "BSU_ESCR1",   [0x02] = "FSB_ESCR0",
	[0x03] = "FSB_ESCR1",   [0x04] = "FIRM_ESCR0",  [0x05] = "FIRM_ESCR1",
	[0x06] = "FLAME_ESCR0", [0x07] = "FLAME_ESCR1", [0x08] = "DAC_ESCR0",
	[0x09] = "DAC_ESCR1",   [0x0A] = "MOB_ESCR0",   [0x0B] = "MOB_ESCR1",
	[0x0C] = "PMH_ESCR0",   [0x0D] = "PMH_ESCR1",   [0x0E] = "SAAT_ESCR0",
	[0x0F] = "SAAT_ESCR1",  [0x10] = "U2L_ESCR0",   [0x11] = "U2L_ESCR1",
	[0x12] = "BPU_ESCR0",   [0x13] = "BPU_ESCR1",   [0x14] = "IS_ESCR0",
	[0x15] = "IS_ESCR1",    [0x16] = "ITLB_ESCR0",  [0x17] = "ITLB_ESCR1",
	[0x18] = "CRU_ESCR0",   [0x19] = "CRU_ESCR1",   [0x1A] = "IQ_ESCR0",
	[0x1B] = "IQ_ESCR1",    [0x1C] = "RAT_ESCR0",   [0x1D] = "RAT_ESCR1",
	[0x1E] = "SSU_ESCR0",
	[0x20] = "MS_ESCR0",    [0x21] = "MS_ESCR1",    [0x22] = "TBPU_ESCR0",
	[0x23] = "TBPU_ESCR1",  [0x24] = "TC_ESCR0",    [0x25] = "TC_ESCR1",
	[0x28] = "IX_ESCR0",    [0x29] = "IX_ESCR1",    [0x2A] = "ALF_ESCR0",
	[0x2B] = "ALF_ESCR1",   [0x2C] = "CRU_ESCR2",   [0x2D] = "CRU_ESCR3",
	[0x40] = "CRU_ESCR4",   [0x41] = "CRU_ESCR5",
};

const char *p4_escr_name(uint32_t msr)
{
	if (msr < P4_ESCR_FIRST || msr > P4_ESCR_LAST)
		return NULL;
	return escr_names[msr - P4_ESCR_FIRST];
}

bool p4_escr_exists(uint32_t msr, unsigned cpu_model)
{
	/* IQ_ESCR0/1 were removed from models 3 and later (the manual's ESCR
	 * table; perfctr refuses them there). */
	if ((msr & ~1u) == 0x3BA && cpu_model > 2)
		return false;
	return p4_escr_name(msr) != NULL;
}
