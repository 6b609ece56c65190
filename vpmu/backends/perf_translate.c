/* SPDX-License-Identifier: MIT */
/*
 * Guest events on the host (perf_translate.h).  The raw matches of one guest
 * event table are found by name in the host's table (sorted once, then a
 * binary search per guest event) and compared field by field: the event
 * select image with its unit mask, counter mask, edge, invert and any-thread
 * bits (the tables' encoding), and the events' extra MSR.  perf's raw config
 * on x86 is that event select image (Linux arch/x86/events/core.c
 * x86_pmu_hw_config, the format attributes of arch/x86/events/intel/core.c and
 * amd/core.c), so the host entry's encoding is the config.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vpmu/event_table.h"
#include "perf_slot.h"
#include "perf_translate.h"

/* One event of a guest table, on this host. */
struct perf_xlat_event {
	const char *name;         /* the guest table's */
	const char *host_name;    /* the host table's event of the same name and encoding */
	uint64_t config;          /* its encoding: the raw config */
	uint64_t programmings;    /* atomic */
	int generic;              /* the generic event its last programming counted (atomic) */
};

/* The translations of one guest table. */
struct perf_xlat {
	struct perf_xlat *next;
	const char *table;        /* the guest table's name: the generated string itself */
	unsigned nr;
	struct perf_xlat_event ev[];
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct vpmu_event_info *)a)->name,
		      ((const struct vpmu_event_info *)b)->name);
}

/* Whether the host can count guest event g as itself: host event h has its
 * name and encoding, and perf can program it by that encoding. */
static bool raw_match(const struct vpmu_event_info *g, const struct vpmu_event_info *h)
{
	/* An offcore or matrix event is selected by its MSR too, which no model
	 * gives the guest; a fixed-counter-only encoding (INST_RETIRED.ANY is
	 * event 0) means nothing on a general counter, where a raw event goes:
	 * both are counted through their generic event, or not at all. */
	if (g->offcore || h->offcore || g->msr_index || h->msr_index || !h->counters)
		return false;
	return g->encoding == h->encoding && g->event == h->event && g->umask == h->umask &&
	       g->cmask == h->cmask && g->inv == h->inv && g->edge == h->edge &&
	       g->any_thread == h->any_thread;
}

/* The translations of guest table `table`, worked out against the host's. */
static struct perf_xlat *xlat_build(const struct vpmu_perf *p, const char *table)
{
	unsigned nr = 0, host_nr = 0;
	if (vpmu_events_table(table, NULL, NULL, NULL, &nr) < 0)
		return NULL;
	struct perf_xlat *x = calloc(1, sizeof(*x) + (size_t)nr * sizeof(x->ev[0]));
	if (!x)
		return NULL;
	x->table = table;
	x->nr = nr;
	struct vpmu_event_info *host = NULL;
	if (p->host_table && vpmu_events_table(p->host_table, NULL, NULL, NULL, &host_nr) == 0 &&
	    host_nr && (host = malloc(host_nr * sizeof(*host)))) {
		for (unsigned i = 0; i < host_nr; i++)
			vpmu_events_get(p->host_table, i, &host[i]);
		qsort(host, host_nr, sizeof(*host), by_name);
	}
	for (unsigned i = 0; i < nr; i++) {
		struct vpmu_event_info g;
		struct perf_xlat_event *e = &x->ev[i];
		vpmu_events_get(table, i, &g);
		e->name = g.name;
		e->generic = VPMU_EV_NONE;
		const struct vpmu_event_info *h =
			host ? bsearch(&g, host, host_nr, sizeof(*host), by_name) : NULL;
		if (h && raw_match(&g, h)) {
			e->host_name = h->name;
			e->config = h->encoding;
		}
	}
	free(host);
	return x;
}

/* The translations of `table`, made the first time one of its events is
 * programmed on this host; NULL when memory ran out (the events then count
 * through their generic event). */
static struct perf_xlat *xlat_of(struct vpmu_perf *p, const char *table)
{
	for (struct perf_xlat *x = __atomic_load_n(&p->xlat, __ATOMIC_ACQUIRE); x; x = x->next)
		if (x->table == table)
			return x;
	pthread_mutex_lock(&p->xlat_lock);
	struct perf_xlat *x;
	for (x = p->xlat; x; x = x->next)
		if (x->table == table)
			break;
	if (!x && (x = xlat_build(p, table))) {
		x->next = p->xlat;
		__atomic_store_n(&p->xlat, x, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&p->xlat_lock);
	return x;
}

/* Why an event the host cannot count as itself nor as a generic event is not
 * countable, in words (vpmu_event_source.why). */
static void why_none(struct vpmu_perf *p)
{
	snprintf(p->host_why_none, sizeof(p->host_why_none),
		 "not countable on this host: %s%s, and its table maps it to no generic event",
		 p->host_why, p->host_table ? ", none of them of its name and encoding" : "");
}

void perf_translate_init(struct vpmu_perf *p)
{
	char vendor[13] = "";
	unsigned family = 0, model = 0, stepping = 0;
	pthread_mutex_init(&p->xlat_lock, NULL);
	p->host_table = NULL;
	if (!p->sys->host_cpu || p->sys->host_cpu(p->sys->ctx, vendor, &family, &model, &stepping)) {
		snprintf(p->host_why, sizeof(p->host_why), "the host CPU's identity is unknown (no CPUID)");
		why_none(p);
		return;
	}
	if (vpmu_events_host_table(vendor, family, model, stepping, &p->host_table) < 0)
		snprintf(p->host_why, sizeof(p->host_why),
			 "the host CPU (%s family 0x%X model 0x%X stepping %u) has no event table",
			 vendor, family, model, stepping);
	else
		snprintf(p->host_why, sizeof(p->host_why),
			 "the host CPU (%s family 0x%X model 0x%X stepping %u) has the %s events",
			 vendor, family, model, stepping, p->host_table);
	why_none(p);
}


void perf_translate_destroy(struct vpmu_perf *p)
{
	for (struct perf_xlat *x = p->xlat, *n; x; x = n) {
		n = x->next;
		free(x);
	}
	p->xlat = NULL;
	pthread_mutex_destroy(&p->xlat_lock);
}

void perf_translate(struct vpmu_perf *p, const struct vpmu_pmu *pmu, int entry, int ev,
		    struct perf_host_event *out)
{
	static const uint64_t hw[VPMU_EV_NR] = {
		PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_REF_CPU_CYCLES,
		PERF_COUNT_HW_BUS_CYCLES, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		PERF_COUNT_HW_BRANCH_MISSES, PERF_COUNT_HW_CACHE_REFERENCES,
		PERF_COUNT_HW_CACHE_MISSES,
	};
	const char *table = vpmu_pmu_event_table(pmu);
	struct perf_xlat_event *e = NULL;
	if (table && entry >= 0) {
		struct perf_xlat *x = xlat_of(p, table);
		if (x && (unsigned)entry < x->nr) {
			e = &x->ev[entry];
			__atomic_fetch_add(&e->programmings, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&e->generic, ev, __ATOMIC_RELAXED);
		}
	}
	if (e && e->host_name) {
		*out = (struct perf_host_event){ VPMU_COUNT_RAW, PERF_TYPE_RAW, e->config, e->name };
		return;
	}
	if (ev >= 0 && ev < VPMU_EV_NR) {
		*out = (struct perf_host_event){ VPMU_COUNT_HARDWARE, PERF_TYPE_HARDWARE, hw[ev],
						 e ? e->name : vpmu_event_name((enum vpmu_event)ev) };
		return;
	}
	/* No translation to the host's events (a host whose CPU has no event
	 * table, RISC-V's): the guest table's name of the event still says what
	 * counts zero. */
	const char *name = e ? e->name : "an event of no table";
	struct vpmu_event_info info;
	if (!e && table && entry >= 0 && vpmu_events_get(table, (unsigned)entry, &info) == 0)
		name = info.name;
	*out = (struct perf_host_event){ VPMU_COUNT_NONE, 0, 0, name };
}

/* How a programmed event of a guest table was counted. */
static void source_of_event(const struct vpmu_perf *p, const struct perf_xlat_event *e,
			    struct vpmu_event_source *out)
{
	int ev = __atomic_load_n(&e->generic, __ATOMIC_RELAXED);
	bool generic = ev >= 0 && ev < VPMU_EV_NR;
	*out = (struct vpmu_event_source){
		.event = e->name,
		.programmings = __atomic_load_n(&e->programmings, __ATOMIC_RELAXED),
	};
	if (p->host_pmu && e->host_name) {
		out->source = VPMU_COUNT_RAW;
		out->host_event = e->host_name;
		out->why = "the host's event of the same name and encoding (PERF_TYPE_RAW)";
	} else if (p->host_pmu && generic) {
		out->source = VPMU_COUNT_HARDWARE;
		out->host_event = vpmu_event_name((enum vpmu_event)ev);
		out->why = "the generic event its table maps it to (PERF_TYPE_HARDWARE): the host's tables have no event of its name and encoding";
	} else if (p->host_pmu) {
		out->why = p->host_why_none;
	} else if (generic && (ev == VPMU_EV_CYCLES || ev == VPMU_EV_REF_CYCLES) &&
		   !__atomic_load_n(&p->clock_refused, __ATOMIC_RELAXED)) {
		out->source = VPMU_COUNT_TASK_CLOCK;
		out->host_event = vpmu_event_name((enum vpmu_event)ev);
		out->why = "the vCPU thread's task clock scaled by the guest's TSC frequency (no host PMU)";
	} else {
		out->why = p->pmu_why;
	}
}

unsigned perf_event_sources(void *ctx, const char *table, struct vpmu_event_source *out,
			    unsigned max)
{
	struct vpmu_perf *p = ctx;
	unsigned n = 0;
	const struct perf_xlat *x;
	for (x = __atomic_load_n(&p->xlat, __ATOMIC_ACQUIRE); x; x = x->next)
		if (x->table == table || (table && !strcmp(x->table, table)))
			break;
	for (unsigned i = 0; x && i < x->nr; i++) {
		if (!__atomic_load_n(&x->ev[i].programmings, __ATOMIC_RELAXED))
			continue;
		if (n < max)
			source_of_event(p, &x->ev[i], &out[n]);
		n++;
	}
	return n;
}
