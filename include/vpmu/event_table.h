/* SPDX-License-Identifier: MIT */
/*
 * The event tables (docs/events.md): every event of a CPU as its published
 * data (Intel perfmon, Linux perf's AMD pmu-events) or vpmu's own data for the
 * CPUs without any lists it, generated at build time from data/perfmon.  A
 * table is named by its own name ("skylake", "zen4", "cyrix") or by a model
 * that has it (vpmu_model_name: "6x86mx" has "cyrix").
 *
 * Every function returns 0 or a negative errno: -EINVAL for a NULL argument,
 * -ENOENT for an unknown table, index or event.
 */
#ifndef VPMU_EVENT_TABLE_H
#define VPMU_EVENT_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with -fvisibility=hidden: what is declared here is its ABI. */
#pragma GCC visibility push(default)

struct vpmu_event_info {
	const char *name;
	const char *description;  /* the data's brief description */
	const char *errata;       /* the errata the data lists, NULL: none */
	/* The encoding: event select (AMD: 12 bits), unit mask, counter mask, and
	 * the event select register image of all of them with the modifiers
	 * (Intel SDM vol. 3B, IA32_PERFEVTSELx; AMD64 APM vol. 2, PerfEvtSel; the
	 * P5's CESR half for the P5 family). */
	unsigned event, umask, cmask;
	uint64_t encoding;
	bool inv, edge, any_thread;
	/* Offcore response, load latency, matrix events: the MSR and its value
	 * (msr_index 0: none). */
	uint32_t msr_index;
	uint64_t msr_value;
	uint64_t counters;        /* general counters n that count it: bit n */
	uint32_t fixed_counters;  /* fixed counters j: bit j */
	bool pebs, deprecated, offcore, taken_alone;
	int generic;              /* enum vpmu_event it is, or VPMU_EV_NONE (-1) */
};

/* Tables: how many, and the name of the i-th (NULL past the end). */
unsigned vpmu_events_table_count(void);
const char *vpmu_events_table_name(unsigned i);
/* A table by its name or a model's: its name, the PMU it runs on, where its
 * data comes from, how many events it has (any output may be NULL). */
int vpmu_events_table(const char *table, const char **name, const char **pmu,
		      const char **source, unsigned *nr_events);
/* Its i-th event. */
int vpmu_events_get(const char *table, unsigned i, struct vpmu_event_info *out);
/* The index of the event called event_name. */
int vpmu_events_find(const char *table, const char *event_name, unsigned *index);
/* The index of the event an event select image programs (the bits that do not
 * select an event, such as USR, OS, INT and EN, are ignored), with the value
 * of the event's MSR for offcore/matrix events (else 0): O(1). */
int vpmu_events_decode(const char *table, uint64_t image, uint64_t msr_value, unsigned *index);

/* The table of a CPU a VMM runs on, by its CPUID vendor, family, model and
 * stepping: among the PMUs that host KVM (Intel's architectural performance
 * monitoring, AMD's K8 and Zen), never a legacy table that happens to match a
 * family (the P6's holds every family-6 Intel).  -ENOENT: the project carries
 * no data for that CPU. */
int vpmu_events_host_table(const char *vendor, unsigned family, unsigned cpumodel,
			   unsigned stepping, const char **table);

/* The CPU this program runs on: its CPUID vendor string and display family,
 * model and stepping (the extended fields folded in).  0, -EINVAL for a NULL
 * argument, or -ENODEV where there is no CPUID (not x86). */
int vpmu_events_host_cpu(char vendor[13], unsigned *family, unsigned *cpumodel,
			 unsigned *stepping);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
