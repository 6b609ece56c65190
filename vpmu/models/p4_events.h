/* SPDX-License-Identifier: MIT */
/*
 * The Pentium 4 (NetBurst) events as data (issue 11; docs/design.md,
 * "Pentium 4"): per event its ESCR event select, its CCCR ESCR_SELECT, the
 * ESCR(s) it can be programmed in, the counters that reach them, its valid
 * EMASK bits with their names, and the tagging mechanism an at-retirement
 * event depends on.  Sources, by path (facts only, no code):
 *   - IA-32 Intel Architecture Software Developer's Manual, vol. 3B,
 *     "Performance-Monitoring Events" (events for NetBurst microarchitecture,
 *     non-retirement and at-retirement tables) and "At-Retirement Counting";
 *   - Linux arch/x86/include/asm/perf_event_p4.h (opcodes, EMASK bits) and
 *     arch/x86/events/intel/p4.c (p4_event_bind_map, p4_general_events);
 *   - libpfm4 lib/events/intel_netburst_events.h (names, EMASK bits);
 *   - oprofile events/i386/p4/unit_masks (EMASK bits, as a third opinion).
 */
#ifndef VPMU_P4_EVENTS_H
#define VPMU_P4_EVENTS_H

#include <stdint.h>

#include "../model.h"

/* ESCR fields (manual: "ESCR MSRs", bits 25-30 event select, 9-24 event
 * mask, 4 tag enable, 5-8 tag value). */
#define P4_ESCR_EVENT_SELECT(escr) ((unsigned)(((escr) >> 25) & 0x3Fu))
#define P4_ESCR_EVENT_MASK(escr)   ((uint32_t)(((escr) >> 9) & 0xFFFFu))
#define P4_NR_EVENT_SELECTS 64
#define P4_EMASK_BITS       16

/* CCCR bits a generic mapping may require besides the ESCR (manual: "CCCR
 * MSRs"; Linux perf_event_p4.h P4_CCCR_COMPARE / P4_CCCR_EDGE). */
#define P4_CCCR_COMPARE (1u << 18)
#define P4_CCCR_EDGE    (1u << 24)

/* The manual's three at-retirement tagging mechanisms ("At-Retirement
 * Counting"): a uop is tagged upstream and counted at retirement by
 * FRONT_END_EVENT, EXECUTION_EVENT or REPLAY_EVENT. */
enum p4_tagging {
	P4_TAG_NONE = 0,
	/* replay tagging: IA32_PEBS_ENABLE and MSR_PEBS_MATRIX_VERT pick the
	 * replay causes (Linux p4.c p4_pebs_bind_map), some with an upstream
	 * ESCR event (split loads/stores, MOB load replays) */
	P4_TAG_REPLAY,
	/* front-end tagging: UOP_TYPE (RAT ESCRs) tags loads and/or stores */
	P4_TAG_FRONT_END,
	/* execution tagging: a FIRM event with ESCR tag enable + tag value
	 * (libpfm4's TAG0-TAG3 pseudo-masks; not EMASK bits) */
	P4_TAG_EXECUTION,
};

/* Counts for both logical processors whatever the T0/T1 bits say (Linux
 * p4_event_bind_map .shared: needs CPU-wide permission under HT). */
#define P4_EVF_SHARED   (1u << 0)
/* Only CPUID family 15 models 3, 4 and 6 (Linux p4_event_match_cpu_model). */
#define P4_EVF_MODEL346 (1u << 1)

struct p4_event {
	const char *name;           /* the manual's / Linux's spelling, upper case */
	uint16_t escr[2];           /* ESCR MSRs; escr[1] == 0 when only one */
	uint32_t counters;          /* bit n: counter n reaches one of escr[] */
	uint16_t emask_valid;       /* EMASK bits (ESCR[24:9]) the event defines */
	uint8_t event_select;       /* ESCR[30:25] */
	uint8_t escr_select;        /* CCCR[15:13] */
	uint8_t counts_tagged;      /* enum p4_tagging: counts uops tagged so */
	uint8_t tags;               /* enum p4_tagging: can tag uops for it */
	uint8_t flags;              /* P4_EVF_* */
	const char *companion;      /* event that must be programmed with it, or NULL */
	const char *emask_name[P4_EMASK_BITS];
};

unsigned p4_nr_events(void);
const struct p4_event *p4_event(unsigned i);     /* NULL past the end */

/* The event ESCR `escr_msr` counts with event select `event_select`, or NULL
 * (reserved / undocumented encoding).  O(1): a compile-time table. */
const struct p4_event *p4_event_of_escr(uint32_t escr_msr, unsigned event_select);

/* By name, case-insensitive (for tools; linear). */
const struct p4_event *p4_event_by_name(const char *name);

/* Which generic event `e` programmed with EMASK `emask` counts, as Linux's
 * p4_general_events programs it (exact EMASK match).  Returns 0 and sets
 * *out (VPMU_EV_NONE when there is no generic equivalent); -1 when e is NULL
 * or emask has bits outside e->emask_valid.  The CCCR bits Linux adds (bus
 * cycles: COMPARE | EDGE) are reported by p4_generic_cccr(). */
int p4_generic_event(const struct p4_event *e, uint32_t emask, enum vpmu_event *out);
uint32_t p4_generic_cccr(enum vpmu_event ev);

/* CCCR bits that make a count a threshold or complement count (manual: "CCCR
 * MSRs"): the key bits for them make a count no generic event. */
#define P4_CCCR_COMPLEMENT (1u << 19)
#define P4_CCCR_THRESHOLD  (0xFu << 20)
#define P4_KEY_COMPLEMENT  (1ull << 18)
#define P4_KEY_THRESHOLD   (1ull << 19)

/* The event key of a counter programmed with ESCR escr_msr = escr and CCCR
 * cccr (struct vpmu_event_desc matches it): event index + 1 in bits 24-31 (0:
 * no documented event), the EMASK in bits 0-15, CCCR COMPARE and EDGE in 16
 * and 17, P4_KEY_COMPLEMENT and P4_KEY_THRESHOLD.  O(1). */
uint64_t p4_event_key(uint32_t escr_msr, uint64_t escr, uint64_t cccr);

/* The P4 model's event table: Linux's generic encodings, then one row per
 * event naming it. */
#define P4_NR_EVENT_DESCS 51
extern const struct vpmu_event_desc p4_event_descs[P4_NR_EVENT_DESCS];

#endif
