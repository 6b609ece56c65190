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

/*
 * The events, P4_EVENT_LIST(X), and Linux's generic encodings,
 * P4_GENERIC_LIST(X), are data: data/perfmon/vpmu/p4.json, which
 * scripts/gen-events.py writes out as these two X-macros (docs/events.md):
 *   X(id, name, event select, CCCR select, valid EMASK, ESCR, ESCR or 0,
 *     counters, counts_tagged, tags, flags, companion, EMASK names...)
 *   X(id, enum vpmu_event, EMASK, CCCR bits, what)
 * Left out of the data: B2B_CYCLES (0x16), BNR (0x08), SNOOP (0x06) and
 * RESPONSE (0x04).  The manual, Linux perf_event_p4.h and libpfm4 all give
 * them FSB_ESCR0/1 with CCCR select 3, but select 3 sends counters 0-3 to
 * ITLB_ESCR0/1 (p4_escr.c), so no counter reaches them as documented.
 */
#include "p4_event_list.h"

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
 * p4_general_events (ESCR event + EMASK; bus cycles add CCCR COMPARE|EDGE),
 * P4_GENERIC_LIST from the data.  Linux has no entry for
 * PERF_COUNT_HW_REF_CPU_CYCLES, so ref-cycles has no P4 encoding here.  The
 * BRANCH_RETIRED rows: the union of its four EMASK bits is every retired
 * branch and MMNM|MMTM every mispredicted one (the manual's bit meanings; not
 * Linux's choice, so a guest using them still counts the generic event).
 */
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
