/* SPDX-License-Identifier: MIT */
/*
 * The P4 event table (vpmu/models/p4_events.c), checked mechanically against
 * the ESCR map (p4_escr.h: which ESCRs exist, which counter reaches which
 * ESCR with which CCCR select) and the O(1) lookup against the table; then
 * spot checks of numbers taken independently from Linux
 * arch/x86/include/asm/perf_event_p4.h (P4_OPCODE_PACK(event, escr_select)
 * and the per-opcode ESCR/counter comments) and the generic mapping from
 * Linux arch/x86/events/intel/p4.c p4_general_events.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "models/p4_escr.h"
#include "models/p4_events.h"
#include "tap.h"

static int has_escr(const struct p4_event *e, uint32_t msr)
{
	return msr && (e->escr[0] == msr || e->escr[1] == msr);
}

/* Linux perf_event_p4.h: event select, CCCR select, ESCR pair, counters. */
static void spot(const char *name, unsigned ev, unsigned sel, uint32_t e0, uint32_t e1,
		 uint32_t ctrs)
{
	const struct p4_event *e = p4_event_by_name(name);
	ok(e && e->event_select == ev && e->escr_select == sel && e->escr[0] == e0 &&
	   e->escr[1] == e1 && e->counters == ctrs,
	   "%s: event 0x%02x, CCCR select %u, ESCRs 0x%x/0x%x, counters 0x%05x", name, ev, sel,
	   e0, e1, ctrs);
}

static void generic(const char *name, uint32_t emask, enum vpmu_event want, const char *what)
{
	enum vpmu_event got = VPMU_EV_NR;
	int rc = p4_generic_event(p4_event_by_name(name), emask, &got);
	ok(rc == 0 && got == want, "%s EMASK 0x%x counts %s", name, emask, what);
}

int main(void)
{
	unsigned n = p4_nr_events();
	unsigned bad_escr = 0, bad_ctr = 0, bad_lut = 0, bad_emask = 0, dup_name = 0, bad_sel = 0;
	unsigned slots = 0;
	int seen[P4_ESCR_LAST - P4_ESCR_FIRST + 1][P4_NR_EVENT_SELECTS] = { { 0 } };

	ok(n >= 40, "%u events", n);
	ok(p4_event(n) == NULL, "p4_event() past the end is NULL");
	for (unsigned i = 0; i < n; i++) {
		const struct p4_event *e = p4_event(i);
		if (e->event_select >= P4_NR_EVENT_SELECTS || e->escr_select > 7)
			bad_sel++;
		/* every ESCR exists (model 2 has all 45), the second differs */
		for (unsigned k = 0; k < 2; k++) {
			uint32_t a = e->escr[k];
			if (!a)
				continue;
			if (!p4_escr_exists(a, 2) || (k == 1 && a == e->escr[0])) {
				bad_escr++;
				printf("# %s: ESCR 0x%x\n", e->name, a);
				continue;
			}
			/* (ESCR, select) at most once over the whole table */
			slots++;
			if (seen[a - P4_ESCR_FIRST][e->event_select]++) {
				bad_lut++;
				printf("# %s: (0x%x, 0x%x) used twice\n", e->name, a, e->event_select);
			}
			if (p4_event_of_escr(a, e->event_select) != e) {
				bad_lut++;
				printf("# %s: not found through ESCR 0x%x\n", e->name, a);
			}
		}
		if (!e->escr[0])
			bad_escr++;
		/* counters: exactly those whose CCCR select reaches one of its ESCRs */
		uint32_t want = 0;
		for (unsigned c = 0; c < P4_NR_COUNTERS; c++)
			if (has_escr(e, p4_escr_addr(c, e->escr_select)))
				want |= 1u << c;
		if (want != e->counters || !want) {
			bad_ctr++;
			printf("# %s: counters 0x%05x, ESCR map says 0x%05x\n", e->name, e->counters, want);
		}
		/* valid EMASK == the named bits */
		uint32_t named = 0;
		for (unsigned b = 0; b < P4_EMASK_BITS; b++)
			named |= e->emask_name[b] ? 1u << b : 0;
		if (named != e->emask_valid) {
			bad_emask++;
			printf("# %s: EMASK 0x%x, names 0x%x\n", e->name, e->emask_valid, named);
		}
		for (unsigned j = 0; j < i; j++)
			dup_name += !strcasecmp(p4_event(j)->name, e->name);
		if (p4_event_by_name(e->name) != e)
			dup_name++;
	}
	is_u64(bad_sel, 0, "event selects fit 6 bits, CCCR selects 3");
	is_u64(bad_escr, 0, "every event's ESCRs exist (p4_escr_exists(addr, 2)), no pair repeats one");
	is_u64(bad_lut, 0, "every (ESCR, event select) is used once and the O(1) lookup finds "
	       "every event through each of its %u ESCR slots", slots);
	is_u64(bad_ctr, 0, "counter masks are exactly the counters p4_escr_addr(counter, CCCR "
	       "select) sends to the event's ESCRs");
	is_u64(bad_emask, 0, "valid EMASK bits are exactly the named ones");
	is_u64(dup_name, 0, "names are unique (case-insensitively) and found by name");

	/* every non-empty lookup slot is an event that lists that ESCR and select */
	unsigned stray = 0, filled = 0;
	for (uint32_t a = P4_ESCR_FIRST; a <= P4_ESCR_LAST; a++)
		for (unsigned s = 0; s < P4_NR_EVENT_SELECTS; s++) {
			const struct p4_event *e = p4_event_of_escr(a, s);
			if (!e)
				continue;
			filled++;
			stray += !has_escr(e, a) || e->event_select != s;
		}
	ok(stray == 0 && filled == slots, "the lookup has exactly the table's %u slots", slots);
	ok(!p4_event_of_escr(0x39F, 0x13) && !p4_event_of_escr(0x3E2, 0) &&
	   !p4_event_of_escr(0x3A2, 64) && !p4_event_of_escr(0x3A2, 0x3F),
	   "out-of-range ESCRs and selects, and unused selects, find nothing");
	ok(!p4_event_by_name("NO_SUCH_EVENT") && !p4_event_by_name(NULL) &&
	   p4_event_by_name("global_power_events") == p4_event_by_name("GLOBAL_POWER_EVENTS"),
	   "lookup by name is case-insensitive and refuses unknown names");

	/* Independent numbers: Linux perf_event_p4.h P4_OPCODE_PACK and its
	 * "MSR_P4_xxx_ESCRn: counters" comments. */
	spot("GLOBAL_POWER_EVENTS", 0x13, 6, 0x3A2, 0x3A3, 0x0000F);          /* FSB_ESCR0/1 */
	spot("INSTR_RETIRED", 0x02, 4, 0x3B8, 0x3B9, 0x3F000);                /* CRU_ESCR0/1 */
	spot("BRANCH_RETIRED", 0x06, 5, 0x3CC, 0x3CD, 0x3F000);               /* CRU_ESCR2/3 */
	spot("MISPRED_BRANCH_RETIRED", 0x03, 4, 0x3B8, 0x3B9, 0x3F000);       /* CRU_ESCR0/1 */
	spot("BSQ_CACHE_REFERENCE", 0x0C, 7, 0x3A0, 0x3A1, 0x0000F);          /* BSU_ESCR0/1 */
	spot("RETIRED_BRANCH_TYPE", 0x04, 2, 0x3C2, 0x3C3, 0x000F0);          /* TBPU_ESCR0/1 */
	spot("FSB_DATA_ACTIVITY", 0x17, 6, 0x3A2, 0x3A3, 0x0000F);            /* FSB_ESCR0/1 */
	spot("IOQ_ACTIVE_ENTRIES", 0x1A, 6, 0x3A3, 0, 0x0000C);               /* FSB_ESCR1: 2, 3 */
	spot("BSQ_ALLOCATION", 0x05, 7, 0x3A0, 0, 0x00003);                   /* BSU_ESCR0: 0, 1 */
	spot("REPLAY_EVENT", 0x09, 5, 0x3CC, 0x3CD, 0x3F000);                 /* CRU_ESCR2/3 */
	spot("64BIT_MMX_UOP", 0x02, 1, 0x3A4, 0x3A5, 0x00F00);                /* FIRM_ESCR0/1 */
	spot("TC_DELIVER_MODE", 0x01, 1, 0x3C4, 0x3C5, 0x000F0);              /* TC_ESCR0/1 */
	spot("UOP_TYPE", 0x02, 2, 0x3BC, 0x3BD, 0x3F000);                     /* RAT_ESCR0/1 */

	const struct p4_event *gpe = p4_event_by_name("GLOBAL_POWER_EVENTS");
	ok(gpe && gpe->emask_valid == 1 && !strcmp(gpe->emask_name[0], "RUNNING"),
	   "GLOBAL_POWER_EVENTS: RUNNING = EMASK bit 0, the only one");
	ok(p4_event_of_escr(0x3A3, 0x13) == gpe, "FSB_ESCR1 with event 0x13 is GLOBAL_POWER_EVENTS");

	/* tagging dependencies are data */
	const struct p4_event *rep = p4_event_by_name("REPLAY_EVENT"),
			      *fe = p4_event_by_name("FRONT_END_EVENT"),
			      *ex = p4_event_by_name("EXECUTION_EVENT"),
			      *ut = p4_event_by_name("UOP_TYPE");
	ok(rep->counts_tagged == P4_TAG_REPLAY && fe->counts_tagged == P4_TAG_FRONT_END &&
	   ex->counts_tagged == P4_TAG_EXECUTION && ut->tags == P4_TAG_FRONT_END,
	   "REPLAY/FRONT_END/EXECUTION_EVENT record their tagging mechanism; UOP_TYPE tags for FRONT_END_EVENT");
	unsigned exe_src = 0, retire_tagged = 0;
	for (unsigned i = 0; i < n; i++) {
		exe_src += p4_event(i)->tags == P4_TAG_EXECUTION;
		retire_tagged += p4_event(i)->counts_tagged != P4_TAG_NONE;
	}
	ok(exe_src == 7 && retire_tagged == 3, "7 FIRM uop events tag for execution tagging; 3 events count tagged uops");
	ok(!strcmp(p4_event_by_name("IOQ_ACTIVE_ENTRIES")->companion, "IOQ_ALLOCATION") &&
	   !strcmp(p4_event_by_name("BSQ_ACTIVE_ENTRIES")->companion, "BSQ_ALLOCATION"),
	   "*_ACTIVE_ENTRIES name the allocation event they must be programmed with");

	/* generic vocabulary: Linux p4_general_events */
	generic("GLOBAL_POWER_EVENTS", 0x1, VPMU_EV_CYCLES, "cycles (RUNNING)");
	generic("INSTR_RETIRED", 0x5, VPMU_EV_INSTRUCTIONS, "instructions (NBOGUSNTAG|BOGUSNTAG)");
	generic("MISPRED_BRANCH_RETIRED", 0x1, VPMU_EV_BRANCH_MISSES, "branch-misses (NBOGUS)");
	generic("RETIRED_BRANCH_TYPE", 0x1E, VPMU_EV_BRANCHES, "branches (all four types)");
	generic("BSQ_CACHE_REFERENCE", 0x3F, VPMU_EV_CACHE_REFERENCES, "cache-references");
	generic("BSQ_CACHE_REFERENCE", 0x700, VPMU_EV_CACHE_MISSES, "cache-misses");
	generic("FSB_DATA_ACTIVITY", 0x3, VPMU_EV_BUS_CYCLES, "bus-cycles (DRDY_DRV|DRDY_OWN)");
	generic("INSTR_RETIRED", 0x1, VPMU_EV_NONE, "nothing generic (not Linux's mask)");
	generic("UOPS_RETIRED", 0x1, VPMU_EV_NONE, "nothing generic");
	ok(p4_generic_cccr(VPMU_EV_BUS_CYCLES) == (P4_CCCR_COMPARE | P4_CCCR_EDGE) &&
	   p4_generic_cccr(VPMU_EV_CYCLES) == 0, "bus-cycles also needs CCCR COMPARE|EDGE (Linux)");
	enum vpmu_event out;
	ok(p4_generic_event(gpe, 0x2, &out) == -1 && p4_generic_event(NULL, 1, &out) == -1,
	   "EMASK bits the event does not define, or no event: -1");
	unsigned refc = 0;
	for (unsigned i = 0; i < n; i++)
		for (uint32_t m = 0; m < 0x10000; m++) {
			if (m & ~(uint32_t)p4_event(i)->emask_valid)
				continue;
			if (p4_generic_event(p4_event(i), m, &out) == 0 && out == VPMU_EV_REF_CYCLES)
				refc++;
		}
	is_u64(refc, 0, "no programming maps to ref-cycles (Linux's p4_general_events has none)");
	return tap_done();
}
