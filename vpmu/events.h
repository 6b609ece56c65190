/* SPDX-License-Identifier: MIT */
/*
 * Event tables (docs/events.md): one per CPU event list, generated at build time
 * by scripts/gen-events.py from data/perfmon (Intel's perfmon files, Linux perf's
 * AMD pmu-events files, and vpmu's own for CPUs without published data), as
 * Linux's tools/perf/pmu-events/jevents.py makes pmu-events.c.
 *
 * A table has its catalogue (every event: name, encoding, counters, flags,
 * description), the generic-event rows that vpmu_pmu_event_of() walks
 * (struct vpmu_event_desc, vpmu/model.h), and an O(1) decode from an event
 * select image to its catalogue entry.  vpmu_event_map says which identity
 * (vendor, family, model, stepping) has which table.
 */
#ifndef VPMU_EVENTS_H
#define VPMU_EVENTS_H

#include <stdint.h>

#include "model.h"

/* Flags of an entry (Intel perfmon's fields of the same names). */
#define VPMU_EVF_INV         0x01  /* Invert: counts cycles below the counter mask */
#define VPMU_EVF_EDGE        0x02  /* EdgeDetect */
#define VPMU_EVF_ANY         0x04  /* AnyThread */
#define VPMU_EVF_PEBS        0x08  /* PEBS: can be precise */
#define VPMU_EVF_DEPRECATED  0x10
#define VPMU_EVF_OFFCORE     0x20  /* its MSR (offcore response, matrix) selects it too */
#define VPMU_EVF_TAKEN_ALONE 0x40  /* TakenAlone: needs the core to itself */

struct vpmu_event_entry {
	const char *name;
	const char *desc;
	uint64_t key;        /* its event-selecting image bits (the table's layout) */
	uint64_t msr_value;  /* of msr_index (offcore response, load latency, ...) */
	uint64_t counters;   /* the general counters that count it (bit n) */
	uint32_t msr_index;  /* 0: none */
	uint16_t event;      /* event select (AMD: 12 bits) */
	uint16_t event2;     /* a second event select of it (Intel's "0x2A,0x2B"); 0: none */
	uint8_t umask, cmask;
	uint8_t flags;       /* VPMU_EVF_* */
	uint8_t fixed;       /* the fixed counters that count it (bit j) */
	int8_t generic;      /* enum vpmu_event, or VPMU_EV_NONE */
	const char *errata;  /* NULL: none listed */
};

/* A hash slot: the key it holds and its entry (NULL: empty, whatever the key). */
struct vpmu_event_slot {
	uint64_t key;
	const struct vpmu_event_entry *entry;
};

struct vpmu_event_table {
	const char *name;    /* "skylake" */
	const char *pmu;     /* the register interface ("intel-arch", "p6", ...) */
	const char *source;  /* the data files and where they come from */
	const struct vpmu_event_entry *ev;
	unsigned nr;
	const struct vpmu_event_desc *match;  /* the generic-event rows */
	unsigned nr_match;
	uint64_t key_mask;   /* the event-selecting bits of an image */
	uint64_t key_mask2;  /* the second probe's: event select and unit mask */
	/* Hash and displace: h = key * mult; bucket h >> bshift; slot
	 * ((h >> 16) ^ disp[bucket]) & smask. */
	uint64_t mult;
	uint8_t bshift;
	uint32_t smask;
	const uint16_t *disp;
	const struct vpmu_event_slot *slots;
	uint16_t fixed[8];   /* entry index + 1 of fixed counter j's event (0: none) */
};

/* Identity -> table: the first line whose ranges hold the CPUID signature. */
struct vpmu_event_map {
	const char *vendor;
	uint16_t family_lo, family_hi, model_lo, model_hi, stepping_lo, stepping_hi;
	const struct vpmu_event_table *table;
};

extern const struct vpmu_event_table *const vpmu_event_tables[];
extern const unsigned vpmu_nr_event_tables;
extern const struct vpmu_event_map vpmu_event_map[];
extern const unsigned vpmu_nr_event_map;

/* The tables the models name as their own (the rest are reached by identity). */
extern const struct vpmu_event_table vpmu_events_p5, vpmu_events_p5mmx, vpmu_events_cyrix,
	vpmu_events_winchip_c6, vpmu_events_winchip2, vpmu_events_p6, vpmu_events_c3,
	vpmu_events_k7, vpmu_events_k8, vpmu_events_zen1, vpmu_events_zen4, vpmu_events_core2,
	vpmu_events_nehalem, vpmu_events_skylake, vpmu_events_icelake,
	vpmu_events_sapphirerapids, vpmu_events_p4, vpmu_events_ppc604, vpmu_events_ppc604e,
	vpmu_events_ppc750, vpmu_events_ppc7400, vpmu_events_ppc7450, vpmu_events_riscv_sbi;

/* What an MSR value is mixed into a key with (scripts/gen-events.py AUX_MIX). */
#define VPMU_EVENT_AUX_MIX 0xFF51AFD7ED558CCDull

static inline const struct vpmu_event_entry *
vpmu_event_probe(const struct vpmu_event_table *t, uint64_t key)
{
	uint64_t h = key * t->mult;
	const struct vpmu_event_slot *s =
		&t->slots[((uint32_t)(h >> 16) ^ t->disp[h >> t->bshift]) & t->smask];
	return s->key == key ? s->entry : (const struct vpmu_event_entry *)0;
}

/* The second probe of vpmu_event_decode: the event select and unit mask alone. */
__attribute__((noinline, cold, unused)) static const struct vpmu_event_entry *
vpmu_event_decode_other(const struct vpmu_event_table *t, uint64_t image)
{
	return vpmu_event_probe(t, image & t->key_mask2);
}

/* The entry an event select image (and, for offcore/matrix events, the value
 * of their MSR; else 0) programs: the exact encoding first, then the event
 * select and unit mask alone (an encoding with modifiers the data does not
 * list).  NULL: not in the table.  O(1): two probes at most. */
static inline const struct vpmu_event_entry *
vpmu_event_decode(const struct vpmu_event_table *t, uint64_t image, uint64_t aux)
{
	uint64_t k = image & t->key_mask;
	const struct vpmu_event_entry *e = vpmu_event_probe(t, k ^ aux * VPMU_EVENT_AUX_MIX);
	/* The second probe only where it asks something else, out of line: a
	 * guest's encodings are mostly the data's own. */
	return e || ((k & ~t->key_mask2) == 0 && !aux) ? e : vpmu_event_decode_other(t, image);
}

/* The table of an identity among those of one pmu; NULL: none. */
const struct vpmu_event_table *vpmu_event_table_of(const char *pmu, const char *vendor,
						   unsigned family, unsigned cpumodel,
						   unsigned stepping);
/* A table by name; NULL: none. */
const struct vpmu_event_table *vpmu_event_table_find(const char *name);

#endif
