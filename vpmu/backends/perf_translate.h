/* SPDX-License-Identifier: MIT */
/*
 * Guest events on the host (docs/integration.md "Guest events on the host"):
 * what host event the perf backend opens for a guest counter.  In this order:
 *   1. the same event, by its encoding (PERF_TYPE_RAW), when the host CPU's
 *      event table (vpmu_events_host_table, from its CPUID) has an event of
 *      the guest's event's name with the same encoding: looked up in the
 *      tables, never assumed from a family or a vendor;
 *   2. else the generic event the guest's table maps it to
 *      (PERF_TYPE_HARDWARE), which perf maps to the host's own encoding;
 *   3. else nothing: the counter counts zero and says so.
 * The raw matches of a guest table are worked out once per table and host, the
 * first time a guest programs one of its events, and kept for the host's life:
 * a counter's programming then costs one table decode and one array index.
 */
#ifndef VPMU_BACKENDS_PERF_TRANSLATE_H
#define VPMU_BACKENDS_PERF_TRANSLATE_H

#include <stdbool.h>
#include <stdint.h>

#include "vpmu/backend.h"

struct vpmu_perf;
struct perf_xlat;

/* The host event one guest counter's programming opens. */
struct perf_host_event {
	enum vpmu_count_source src;  /* RAW, HARDWARE, or NONE */
	uint32_t type;               /* PERF_TYPE_RAW or PERF_TYPE_HARDWARE */
	uint64_t config;
	const char *name;            /* the guest's event, for messages: its table's name
	                                for it, else the generic event's name */
};

/* The host CPU's event table, from the system-call table's CPUID, into
 * p->host_table (NULL: none) with p->host_why saying which CPU it is. */
void perf_translate_init(struct vpmu_perf *p);
void perf_translate_destroy(struct vpmu_perf *p);

/* A guest counter of `pmu` was programmed with event `entry` of its table
 * (vpmu_pmu_decode_event; -1: an encoding the table does not have), which
 * counts generic event `ev` (VPMU_EV_NONE: none the table maps it to): the
 * host event that counts it on a host PMU.  Each call with a table event is
 * one programming of it (vpmu_vm_event_sources). */
void perf_translate(struct vpmu_perf *p, const struct vpmu_pmu *pmu, int entry, int ev,
		    struct perf_host_event *out);

/* The backend op event_sources (backend.h). */
unsigned perf_event_sources(void *ctx, const char *table, struct vpmu_event_source *out,
			    unsigned max);

#endif
