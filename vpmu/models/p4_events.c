/* SPDX-License-Identifier: MIT */
/*
 * The Pentium 4 event table (p4_events.h).  One list, P4_EVENT_LIST, feeds
 * both the event array and the O(1) (ESCR, event select) table, so the two
 * cannot drift; two events claiming the same (ESCR, select) slot are a
 * compile error (-Woverride-init, in -Wextra, under -Werror).
 *
 * Per event: ESCR event select and CCCR select from Linux
 * arch/x86/include/asm/perf_event_p4.h (P4_OPCODE_PACK(event, escr_select)),
 * cross-checked with libpfm4 lib/events/intel_netburst_events.h
 * (.event_select/.escr_select) -- they agree for every event listed here.
 * ESCRs and counters from perf_event_p4.h's per-opcode comments ("ESCR0: 0, 1
 * / ESCR1: 2, 3"), which are the manual's "ESCR restrictions" / "Counter
 * numbers per ESCR" rows.  Where Linux binds one ESCR for both threads
 * (p4.c p4_event_bind_map: RETIRED_MISPRED_BRANCH_TYPE on TBPU_ESCR0 only)
 * that is its scheduling choice; the hardware ESCR pair is kept here.
 * EMASK bits: the manual's names; where the sources differ, the note on the
 * entry says which one is followed.
 */
#include <stddef.h>
#include <strings.h>

#include "../model.h"
#include "p4_escr.h"
#include "p4_events.h"

/* ESCR MSRs (manual's names; p4_escr.c has all 45). */
#define BSU0  0x3A0
#define BSU1  0x3A1
#define FSB0  0x3A2
#define FSB1  0x3A3
#define FIRM0 0x3A4
#define FIRM1 0x3A5
#define DAC0  0x3A8
#define DAC1  0x3A9
#define MOB0  0x3AA
#define MOB1  0x3AB
#define PMH0  0x3AC
#define PMH1  0x3AD
#define SAAT0 0x3AE
#define SAAT1 0x3AF
#define BPU0  0x3B2
#define BPU1  0x3B3
#define ITLB0 0x3B6
#define ITLB1 0x3B7
#define CRU0  0x3B8
#define CRU1  0x3B9
#define RAT0  0x3BC
#define RAT1  0x3BD
#define MS0   0x3C0
#define MS1   0x3C1
#define TBPU0 0x3C2
#define TBPU1 0x3C3
#define TC0   0x3C4
#define TC1   0x3C5
#define ALF0  0x3CA
#define ALF1  0x3CB
#define CRU2  0x3CC
#define CRU3  0x3CD

/* Counters per ESCR half (manual: x0 ESCRs feed the first pair of the group,
 * and in the IQ group counter 16 too; x1 ESCRs the second pair and 17). */
#define C_BPU  0x0000Fu         /* 0-3 */
#define C_BPU0 0x00003u
#define C_BPU1 0x0000Cu
#define C_MS   0x000F0u         /* 4-7 */
#define C_FL   0x00F00u         /* 8-11 */
#define C_IQ   0x3F000u         /* 12-17 */

#define NONE  P4_TAG_NONE
#define RPL   P4_TAG_REPLAY
#define FE    P4_TAG_FRONT_END
#define EXE   P4_TAG_EXECUTION
#define SHR   P4_EVF_SHARED
#define M346  P4_EVF_MODEL346

/*
 * X(id, name, event select, CCCR select, valid EMASK, ESCR, ESCR or 0, counters,
 *   counts_tagged, tags, flags, companion, EMASK names...)
 */
#define P4_EVENT_LIST(X) \
	/* non-retirement events (manual's first NetBurst table) */ \
	X(TC_DELIVER_MODE, "TC_DELIVER_MODE", 0x01, 1, 0x00FF, TC0, TC1, C_MS, NONE, NONE, SHR, NULL, \
	  /* manual: 8 bits; Linux's bind map leaves out IB (bit 7) */ \
	  [0] = "DD", [1] = "DB", [2] = "DI", [3] = "BD", [4] = "BB", [5] = "BI", [6] = "ID", \
	  [7] = "IB") \
	X(BPU_FETCH_REQUEST, "BPU_FETCH_REQUEST", 0x03, 0, 0x0001, BPU0, BPU1, C_BPU, NONE, NONE, 0, NULL, \
	  [0] = "TCMISS") \
	X(ITLB_REFERENCE, "ITLB_REFERENCE", 0x18, 3, 0x0007, ITLB0, ITLB1, C_BPU, NONE, NONE, 0, NULL, \
	  /* bit 2: libpfm4 HIT_UC, Linux HIT_UK */ \
	  [0] = "HIT", [1] = "MISS", [2] = "HIT_UC") \
	X(MEMORY_CANCEL, "MEMORY_CANCEL", 0x02, 5, 0x000C, DAC0, DAC1, C_FL, NONE, NONE, 0, NULL, \
	  [2] = "ST_RB_FULL", [3] = "64K_CONF") \
	X(MEMORY_COMPLETE, "MEMORY_COMPLETE", 0x08, 2, 0x0003, SAAT0, SAAT1, C_FL, NONE, NONE, 0, NULL, \
	  [0] = "LSC", [1] = "SSC") \
	X(LOAD_PORT_REPLAY, "LOAD_PORT_REPLAY", 0x04, 2, 0x0002, SAAT0, SAAT1, C_FL, NONE, RPL, 0, NULL, \
	  [1] = "SPLIT_LD") \
	X(STORE_PORT_REPLAY, "STORE_PORT_REPLAY", 0x05, 2, 0x0002, SAAT0, SAAT1, C_FL, NONE, RPL, 0, NULL, \
	  [1] = "SPLIT_ST") \
	X(MOB_LOAD_REPLAY, "MOB_LOAD_REPLAY", 0x03, 2, 0x003A, MOB0, MOB1, C_BPU, NONE, RPL, 0, NULL, \
	  [1] = "NO_STA", [3] = "NO_STD", [4] = "PARTIAL_DATA", [5] = "UNALGN_ADDR") \
	X(PAGE_WALK_TYPE, "PAGE_WALK_TYPE", 0x01, 4, 0x0003, PMH0, PMH1, C_BPU, NONE, NONE, SHR, NULL, \
	  [0] = "DTMISS", [1] = "ITMISS") \
	X(BSQ_CACHE_REFERENCE, "BSQ_CACHE_REFERENCE", 0x0C, 7, 0x073F, BSU0, BSU1, C_BPU, NONE, NONE, 0, NULL, \
	  [0] = "RD_2ndL_HITS", [1] = "RD_2ndL_HITE", [2] = "RD_2ndL_HITM", \
	  [3] = "RD_3rdL_HITS", [4] = "RD_3rdL_HITE", [5] = "RD_3rdL_HITM", \
	  [8] = "RD_2ndL_MISS", [9] = "RD_3rdL_MISS", [10] = "WR_2ndL_MISS") \
	X(IOQ_ALLOCATION, "IOQ_ALLOCATION", 0x03, 6, 0xEFFF, FSB0, FSB1, C_BPU, NONE, NONE, 0, NULL, \
	  /* bits 0-4: one 5-bit request type field (manual; Linux calls it DEFAULT) */ \
	  [0] = "TYPE_BIT0", [1] = "TYPE_BIT1", [2] = "TYPE_BIT2", [3] = "TYPE_BIT3", \
	  [4] = "TYPE_BIT4", [5] = "ALL_READ", [6] = "ALL_WRITE", [7] = "MEM_UC", \
	  [8] = "MEM_WC", [9] = "MEM_WT", [10] = "MEM_WP", [11] = "MEM_WB", [13] = "OWN", \
	  [14] = "OTHER", [15] = "PREFETCH") \
	X(IOQ_ACTIVE_ENTRIES, "IOQ_ACTIVE_ENTRIES", 0x1A, 6, 0xEFFF, FSB1, 0, C_BPU1, NONE, NONE, 0, \
	  "IOQ_ALLOCATION", \
	  [0] = "TYPE_BIT0", [1] = "TYPE_BIT1", [2] = "TYPE_BIT2", [3] = "TYPE_BIT3", \
	  [4] = "TYPE_BIT4", [5] = "ALL_READ", [6] = "ALL_WRITE", [7] = "MEM_UC", \
	  [8] = "MEM_WC", [9] = "MEM_WT", [10] = "MEM_WP", [11] = "MEM_WB", [13] = "OWN", \
	  [14] = "OTHER", [15] = "PREFETCH") \
	X(FSB_DATA_ACTIVITY, "FSB_DATA_ACTIVITY", 0x17, 6, 0x003F, FSB0, FSB1, C_BPU, NONE, NONE, SHR, NULL, \
	  [0] = "DRDY_DRV", [1] = "DRDY_OWN", [2] = "DRDY_OTHER", [3] = "DBSY_DRV", \
	  [4] = "DBSY_OWN", [5] = "DBSY_OTHER") \
	X(BSQ_ALLOCATION, "BSQ_ALLOCATION", 0x05, 7, 0x3FEF, BSU0, 0, C_BPU0, NONE, NONE, 0, NULL, \
	  [0] = "REQ_TYPE0", [1] = "REQ_TYPE1", [2] = "REQ_LEN0", [3] = "REQ_LEN1", \
	  [5] = "REQ_IO_TYPE", [6] = "REQ_LOCK_TYPE", [7] = "REQ_CACHE_TYPE", \
	  [8] = "REQ_SPLIT_TYPE", [9] = "REQ_DEM_TYPE", [10] = "REQ_ORD_TYPE", \
	  [11] = "MEM_TYPE0", [12] = "MEM_TYPE1", [13] = "MEM_TYPE2") \
	X(BSQ_ACTIVE_ENTRIES, "BSQ_ACTIVE_ENTRIES", 0x06, 7, 0x3FEF, BSU1, 0, C_BPU1, NONE, NONE, 0, \
	  "BSQ_ALLOCATION", \
	  [0] = "REQ_TYPE0", [1] = "REQ_TYPE1", [2] = "REQ_LEN0", [3] = "REQ_LEN1", \
	  [5] = "REQ_IO_TYPE", [6] = "REQ_LOCK_TYPE", [7] = "REQ_CACHE_TYPE", \
	  [8] = "REQ_SPLIT_TYPE", [9] = "REQ_DEM_TYPE", [10] = "REQ_ORD_TYPE", \
	  [11] = "MEM_TYPE0", [12] = "MEM_TYPE1", [13] = "MEM_TYPE2") \
	/* FIRM events: bit 15 ALL; they tag for execution tagging through the \
	 * ESCR tag enable/value bits (libpfm4 TAG0-TAG3), not the EMASK */ \
	X(SSE_INPUT_ASSIST, "SSE_INPUT_ASSIST", 0x34, 1, 0x8000, FIRM0, FIRM1, C_FL, NONE, NONE, SHR, NULL, \
	  [15] = "ALL") \
	X(PACKED_SP_UOP, "PACKED_SP_UOP", 0x08, 1, 0x8000, FIRM0, FIRM1, C_FL, NONE, EXE, SHR, NULL, \
	  [15] = "ALL") \
	X(PACKED_DP_UOP, "PACKED_DP_UOP", 0x0C, 1, 0x8000, FIRM0, FIRM1, C_FL, NONE, EXE, SHR, NULL, \
	  [15] = "ALL") \
	X(SCALAR_SP_UOP, "SCALAR_SP_UOP", 0x0A, 1, 0x8000, FIRM0, FIRM1, C_FL, NONE, EXE, SHR, NULL, \
	  [15] = "ALL") \
	X(SCALAR_DP_UOP, "SCALAR_DP_UOP", 0x0E, 1, 0x8000, FIRM0, FIRM1, C_FL, NONE, EXE, SHR, NULL, \
	  [15] = "ALL") \
	X(MMX64_UOP, "64BIT_MMX_UOP", 0x02, 1, 0x8000, FIRM0, FIRM1, C_FL, NONE, EXE, SHR, NULL, \
	  [15] = "ALL") \
	X(MMX128_UOP, "128BIT_MMX_UOP", 0x1A, 1, 0x8000, FIRM0, FIRM1, C_FL, NONE, EXE, SHR, NULL, \
	  [15] = "ALL") \
	X(X87_FP_UOP, "X87_FP_UOP", 0x04, 1, 0x8000, FIRM0, FIRM1, C_FL, NONE, EXE, SHR, NULL, \
	  [15] = "ALL") \
	X(TC_MISC, "TC_MISC", 0x06, 1, 0x0010, TC0, TC1, C_MS, NONE, NONE, 0, NULL, \
	  [4] = "FLUSH") \
	X(GLOBAL_POWER_EVENTS, "GLOBAL_POWER_EVENTS", 0x13, 6, 0x0001, FSB0, FSB1, C_BPU, NONE, NONE, 0, \
	  NULL, [0] = "RUNNING") \
	X(TC_MS_XFER, "TC_MS_XFER", 0x05, 0, 0x0001, MS0, MS1, C_MS, NONE, NONE, 0, NULL, \
	  [0] = "CISC") \
	X(UOP_QUEUE_WRITES, "UOP_QUEUE_WRITES", 0x09, 0, 0x0007, MS0, MS1, C_MS, NONE, NONE, 0, NULL, \
	  [0] = "FROM_TC_BUILD", [1] = "FROM_TC_DELIVER", [2] = "FROM_ROM") \
	/* bits 1-4 (Linux, libpfm4); oprofile's unit_masks also has 0x01 \
	 * "unconditional jumps", which neither other source accepts */ \
	X(RETIRED_MISPRED_BRANCH_TYPE, "RETIRED_MISPRED_BRANCH_TYPE", 0x05, 2, 0x001E, TBPU0, TBPU1, C_MS, \
	  NONE, NONE, 0, NULL, \
	  [1] = "CONDITIONAL", [2] = "CALL", [3] = "RETURN", [4] = "INDIRECT") \
	X(RETIRED_BRANCH_TYPE, "RETIRED_BRANCH_TYPE", 0x04, 2, 0x001E, TBPU0, TBPU1, C_MS, NONE, NONE, 0, \
	  NULL, [1] = "CONDITIONAL", [2] = "CALL", [3] = "RETURN", [4] = "INDIRECT") \
	X(RESOURCE_STALL, "RESOURCE_STALL", 0x01, 1, 0x0020, ALF0, ALF1, C_IQ, NONE, NONE, 0, NULL, \
	  [5] = "SBFULL") \
	X(WC_BUFFER, "WC_BUFFER", 0x05, 5, 0x0003, DAC0, DAC1, C_FL, NONE, NONE, SHR, NULL, \
	  [0] = "WCB_EVICTS", [1] = "WCB_FULL_EVICTS") \
	/* Left out: B2B_CYCLES (0x16), BNR (0x08), SNOOP (0x06), RESPONSE (0x04). \
	 * The manual, Linux perf_event_p4.h and libpfm4 all give them FSB_ESCR0/1 \
	 * with CCCR select 3, but select 3 sends counters 0-3 to ITLB_ESCR0/1 \
	 * (p4_escr.c), so no counter reaches them as documented. */ \
	/* at-retirement events (manual's second NetBurst table) */ \
	X(FRONT_END_EVENT, "FRONT_END_EVENT", 0x08, 5, 0x0003, CRU2, CRU3, C_IQ, FE, NONE, 0, NULL, \
	  [0] = "NBOGUS", [1] = "BOGUS") \
	X(EXECUTION_EVENT, "EXECUTION_EVENT", 0x0C, 5, 0x00FF, CRU2, CRU3, C_IQ, EXE, NONE, 0, NULL, \
	  [0] = "NBOGUS0", [1] = "NBOGUS1", [2] = "NBOGUS2", [3] = "NBOGUS3", \
	  [4] = "BOGUS0", [5] = "BOGUS1", [6] = "BOGUS2", [7] = "BOGUS3") \
	/* libpfm4's bits 2-10 are PEBS metric pseudo-masks, not ESCR bits */ \
	X(REPLAY_EVENT, "REPLAY_EVENT", 0x09, 5, 0x0003, CRU2, CRU3, C_IQ, RPL, NONE, 0, NULL, \
	  [0] = "NBOGUS", [1] = "BOGUS") \
	X(INSTR_RETIRED, "INSTR_RETIRED", 0x02, 4, 0x000F, CRU0, CRU1, C_IQ, NONE, NONE, 0, NULL, \
	  /* TAG: front-end tagged (manual) */ \
	  [0] = "NBOGUSNTAG", [1] = "NBOGUSTAG", [2] = "BOGUSNTAG", [3] = "BOGUSTAG") \
	X(UOPS_RETIRED, "UOPS_RETIRED", 0x01, 4, 0x0003, CRU0, CRU1, C_IQ, NONE, NONE, 0, NULL, \
	  [0] = "NBOGUS", [1] = "BOGUS") \
	X(UOP_TYPE, "UOP_TYPE", 0x02, 2, 0x0006, RAT0, RAT1, C_IQ, NONE, FE, 0, NULL, \
	  [1] = "TAGLOADS", [2] = "TAGSTORES") \
	X(BRANCH_RETIRED, "BRANCH_RETIRED", 0x06, 5, 0x000F, CRU2, CRU3, C_IQ, NONE, NONE, 0, NULL, \
	  [0] = "MMNP", [1] = "MMNM", [2] = "MMTP", [3] = "MMTM") \
	/* bit 0: NBOGUS (manual, Linux); libpfm4 spells it BOGUS */ \
	X(MISPRED_BRANCH_RETIRED, "MISPRED_BRANCH_RETIRED", 0x03, 4, 0x0001, CRU0, CRU1, C_IQ, NONE, NONE, \
	  0, NULL, [0] = "NBOGUS") \
	X(X87_ASSIST, "X87_ASSIST", 0x03, 5, 0x001F, CRU2, CRU3, C_IQ, NONE, NONE, 0, NULL, \
	  [0] = "FPSU", [1] = "FPSO", [2] = "POAO", [3] = "POAU", [4] = "PREA") \
	/* sources disagree: libpfm4 0/2/6 (followed), Linux 0/1/2, oprofile \
	 * 0/6/7; bit 0 (CLEAR) is common to all three */ \
	X(MACHINE_CLEAR, "MACHINE_CLEAR", 0x02, 5, 0x0045, CRU2, CRU3, C_IQ, NONE, NONE, 0, NULL, \
	  [0] = "CLEAR", [2] = "MOCLEAR", [6] = "SMCLEAR") \
	/* CRU_ESCR0/1 (Linux; select 4 reaches no other); libpfm4 lists \
	 * CRU_ESCR2 + CRU_ESCR1, which select 4 cannot reach */ \
	X(INSTR_COMPLETED, "INSTR_COMPLETED", 0x07, 4, 0x0003, CRU0, CRU1, C_IQ, NONE, NONE, M346, NULL, \
	  [0] = "NBOGUS", [1] = "BOGUS")

enum p4_event_id {
#define P4_ID(id, ...) P4E_##id,
	P4_EVENT_LIST(P4_ID)
#undef P4_ID
	P4E_NR
};

static const struct p4_event p4_events[P4E_NR] = {
#define P4_ENTRY(id, nm, ev, sel, em, e0, e1, ctrs, ct, tg, fl, comp, ...)       \
	[P4E_##id] = { .name = nm, .escr = { e0, e1 }, .counters = ctrs,         \
		       .emask_valid = em, .event_select = ev, .escr_select = sel, \
		       .counts_tagged = ct, .tags = tg, .flags = fl,               \
		       .companion = comp, .emask_name = { __VA_ARGS__ } },
	P4_EVENT_LIST(P4_ENTRY)
#undef P4_ENTRY
};

/* (ESCR - P4_ESCR_FIRST, event select) -> event index + 1 (0: none).  Row
 * LUT_NOESCR absorbs the second slot of single-ESCR events (one column per
 * event id, so those never collide with each other). */
#define LUT_ROWS   (P4_ESCR_LAST - P4_ESCR_FIRST + 1)
#define LUT_NOESCR LUT_ROWS
#define LUT_AT(escr, ev, id) \
	[(escr) ? (escr) - P4_ESCR_FIRST : LUT_NOESCR][(escr) ? (ev) : P4E_##id]
_Static_assert(P4E_NR <= P4_NR_EVENT_SELECTS, "the LUT_NOESCR row has one column per event");
_Static_assert(P4E_NR < 255, "event index + 1 fits uint8_t");

static const uint8_t p4_lut[LUT_ROWS + 1][P4_NR_EVENT_SELECTS] = {
#define P4_LUT(id, nm, ev, sel, em, e0, e1, ...) \
	LUT_AT(e0, ev, id) = P4E_##id + 1, LUT_AT(e1, ev, id) = P4E_##id + 1,
	P4_EVENT_LIST(P4_LUT)
#undef P4_LUT
};

unsigned p4_nr_events(void)
{
	return P4E_NR;
}

const struct p4_event *p4_event(unsigned i)
{
	return i < P4E_NR ? &p4_events[i] : NULL;
}

const struct p4_event *p4_event_of_escr(uint32_t escr_msr, unsigned event_select)
{
	if (escr_msr < P4_ESCR_FIRST || escr_msr > P4_ESCR_LAST ||
	    event_select >= P4_NR_EVENT_SELECTS)
		return NULL;
	unsigned v = p4_lut[escr_msr - P4_ESCR_FIRST][event_select];
	return v ? &p4_events[v - 1] : NULL;
}

const struct p4_event *p4_event_by_name(const char *name)
{
	if (!name)
		return NULL;
	for (unsigned i = 0; i < P4E_NR; i++)
		if (!strcasecmp(p4_events[i].name, name))
			return &p4_events[i];
	return NULL;
}

/*
 * The generic events as Linux programs them: arch/x86/events/intel/p4.c
 * p4_general_events (ESCR event + EMASK; bus cycles add CCCR COMPARE|EDGE).
 * Linux has no entry for PERF_COUNT_HW_REF_CPU_CYCLES, so ref-cycles has no
 * P4 encoding here.  BRANCH_RETIRED rows: the union of its four EMASK bits
 * is every retired branch and MMNM|MMTM every mispredicted one (the
 * manual's bit meanings; not Linux's choice, so a guest using them still
 * counts the generic event).
 */
#define P4_GENERIC_LIST(X) \
	X(GLOBAL_POWER_EVENTS, VPMU_EV_CYCLES, 0x0001, 0, "RUNNING")                          \
	X(INSTR_RETIRED, VPMU_EV_INSTRUCTIONS, 0x0005, 0, "NBOGUSNTAG|BOGUSNTAG")             \
	X(BSQ_CACHE_REFERENCE, VPMU_EV_CACHE_REFERENCES, 0x003F, 0, "RD_2nd/3rdL_HITS/E/M")   \
	X(BSQ_CACHE_REFERENCE, VPMU_EV_CACHE_MISSES, 0x0700, 0, "RD_2nd/3rdL_MISS|WR_2ndL_MISS") \
	X(RETIRED_BRANCH_TYPE, VPMU_EV_BRANCHES, 0x001E, 0, "CONDITIONAL|CALL|RETURN|INDIRECT") \
	X(MISPRED_BRANCH_RETIRED, VPMU_EV_BRANCH_MISSES, 0x0001, 0, "NBOGUS")                 \
	X(FSB_DATA_ACTIVITY, VPMU_EV_BUS_CYCLES, 0x0003, P4_CCCR_COMPARE | P4_CCCR_EDGE,      \
	  "DRDY_DRV|DRDY_OWN, CCCR COMPARE|EDGE")                                              \
	X(BRANCH_RETIRED, VPMU_EV_BRANCHES, 0x000F, 0, "MMNP|MMNM|MMTP|MMTM")                  \
	X(BRANCH_RETIRED, VPMU_EV_BRANCH_MISSES, 0x000A, 0, "MMNM|MMTM")

static const struct p4_generic {
	uint8_t id;                 /* enum p4_event_id */
	uint8_t ev;                 /* enum vpmu_event */
	uint16_t emask;
	uint32_t cccr;
} p4_generic[] = {
#define P4_GEN(id, ev, em, cccr, what) { P4E_##id, ev, em, cccr },
	P4_GENERIC_LIST(P4_GEN)
#undef P4_GEN
};

int p4_generic_event(const struct p4_event *e, uint32_t emask, enum vpmu_event *out)
{
	if (!e || !out || e < p4_events || e >= p4_events + P4E_NR ||
	    (emask & ~(uint32_t)e->emask_valid))
		return -1;
	unsigned id = (unsigned)(e - p4_events);
	*out = VPMU_EV_NONE;
	for (size_t i = 0; i < sizeof(p4_generic) / sizeof(p4_generic[0]); i++)
		if (p4_generic[i].id == id && p4_generic[i].emask == emask) {
			*out = (enum vpmu_event)p4_generic[i].ev;
			break;
		}
	return 0;
}

uint32_t p4_generic_cccr(enum vpmu_event ev)
{
	for (size_t i = 0; i < sizeof(p4_generic) / sizeof(p4_generic[0]); i++)
		if (p4_generic[i].ev == (unsigned)ev)
			return p4_generic[i].cccr;
	return 0;
}

/* The event key (p4_events.h): event index + 1 in bits 24-31, the EMASK in
 * 0-15, and the CCCR bits that change what is counted in 16-19. */
#define KEY_EVENT(id)   ((uint32_t)(P4E_##id + 1) << 24)
#define KEY_COMPARE     (1u << 16)
#define KEY_EDGE        (1u << 17)
#define KEY_CCCR_BITS(cccr) ((((cccr) & P4_CCCR_COMPARE) ? KEY_COMPARE : 0) | \
			     (((cccr) & P4_CCCR_EDGE) ? KEY_EDGE : 0))

uint64_t p4_event_key(uint32_t escr_msr, uint64_t escr, uint64_t cccr)
{
	const struct p4_event *e = p4_event_of_escr(escr_msr, P4_ESCR_EVENT_SELECT(escr));
	if (!e)
		return 0;
	uint64_t key = (uint64_t)(e - p4_events + 1) << 24 | P4_ESCR_EVENT_MASK(escr) |
		       KEY_CCCR_BITS(cccr);
	if (cccr & P4_CCCR_COMPLEMENT)
		key |= P4_KEY_COMPLEMENT;
	if (cccr & P4_CCCR_THRESHOLD)
		key |= P4_KEY_THRESHOLD;
	return key;
}

/* Linux's generic encodings first (an exact match of event, EMASK and the
 * CCCR bits), then every event by name: the model's vpmu_event_desc table. */
const struct vpmu_event_desc p4_event_descs[P4_NR_EVENT_DESCS] = {
#define P4_GEN_DESC(id, ev, em, cccr, what) \
	{ KEY_EVENT(id) | (em) | KEY_CCCR_BITS(cccr), 0xFF03FFFFu, ev, 0, #id ":" what },
	P4_GENERIC_LIST(P4_GEN_DESC)
#undef P4_GEN_DESC
#define P4_NAME_DESC(id, nm, ...) { KEY_EVENT(id), 0xFF000000u, VPMU_EV_NONE, 0, nm },
	P4_EVENT_LIST(P4_NAME_DESC)
#undef P4_NAME_DESC
};
_Static_assert(sizeof(p4_generic) / sizeof(p4_generic[0]) + P4E_NR == P4_NR_EVENT_DESCS,
	       "P4_NR_EVENT_DESCS counts the generic rows and the events");
