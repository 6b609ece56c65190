/* SPDX-License-Identifier: MIT */
/* The event tables' public queries (include/vpmu/event_table.h). */
#include <errno.h>
#include <string.h>

#include "vpmu/event_table.h"
#include "core.h"
#include "events.h"

/* A table by its name, else the table of the model of that name. */
static const struct vpmu_event_table *table_of(const char *name)
{
	const struct vpmu_event_table *t = vpmu_event_table_find(name);
	if (t)
		return t;
	const struct vpmu_model *m = name ? vpmu_model_find(name) : NULL;
	return m ? m->table : NULL;
}

unsigned vpmu_events_table_count(void)
{
	return vpmu_nr_event_tables;
}

const char *vpmu_events_table_name(unsigned i)
{
	return i < vpmu_nr_event_tables ? vpmu_event_tables[i]->name : NULL;
}

int vpmu_events_table(const char *table, const char **name, const char **pmu,
		      const char **source, unsigned *nr_events)
{
	if (!table)
		return -EINVAL;
	const struct vpmu_event_table *t = table_of(table);
	if (!t)
		return -ENOENT;
	if (name)
		*name = t->name;
	if (pmu)
		*pmu = t->pmu;
	if (source)
		*source = t->source;
	if (nr_events)
		*nr_events = t->nr;
	return 0;
}

int vpmu_events_get(const char *table, unsigned i, struct vpmu_event_info *out)
{
	if (!table || !out)
		return -EINVAL;
	const struct vpmu_event_table *t = table_of(table);
	if (!t || i >= t->nr)
		return -ENOENT;
	const struct vpmu_event_entry *e = &t->ev[i];
	*out = (struct vpmu_event_info){
		.name = e->name,
		.description = e->desc,
		.errata = e->errata,
		.event = e->event,
		.umask = e->umask,
		.cmask = e->cmask,
		.encoding = e->key,
		.inv = e->flags & VPMU_EVF_INV,
		.edge = e->flags & VPMU_EVF_EDGE,
		.any_thread = e->flags & VPMU_EVF_ANY,
		.msr_index = e->msr_index,
		.msr_value = e->msr_value,
		.counters = e->counters,
		.fixed_counters = e->fixed,
		.pebs = e->flags & VPMU_EVF_PEBS,
		.deprecated = e->flags & VPMU_EVF_DEPRECATED,
		.offcore = e->flags & VPMU_EVF_OFFCORE,
		.taken_alone = e->flags & VPMU_EVF_TAKEN_ALONE,
		.generic = e->generic,
	};
	return 0;
}

int vpmu_events_find(const char *table, const char *event_name, unsigned *index)
{
	if (!table || !event_name || !index)
		return -EINVAL;
	const struct vpmu_event_table *t = table_of(table);
	if (!t)
		return -ENOENT;
	for (unsigned i = 0; i < t->nr; i++)
		if (!strcmp(t->ev[i].name, event_name)) {
			*index = i;
			return 0;
		}
	return -ENOENT;
}

int vpmu_events_decode(const char *table, uint64_t image, uint64_t msr_value, unsigned *index)
{
	if (!table || !index)
		return -EINVAL;
	const struct vpmu_event_table *t = table_of(table);
	if (!t || !t->nr)
		return -ENOENT;
	const struct vpmu_event_entry *e = vpmu_event_decode(t, image, msr_value);
	if (!e)
		return -ENOENT;
	*index = (unsigned)(e - t->ev);
	return 0;
}

int vpmu_events_host_table(const char *vendor, unsigned family, unsigned cpumodel,
			   unsigned stepping, const char **table)
{
	/* Hardware virtualization came with these PMUs: VMX with Intel's
	 * architectural perfmon (Core 2 on), SVM with the K8's revision F (its
	 * table is the k7 PMU's "k8") and every later AMD core. */
	static const char *const host_pmus[] = { "intel-arch", "zen", "k7" };
	if (!vendor || !table)
		return -EINVAL;
	for (unsigned i = 0; i < sizeof(host_pmus) / sizeof(host_pmus[0]); i++) {
		const struct vpmu_event_table *t =
			vpmu_event_table_of(host_pmus[i], vendor, family, cpumodel, stepping);
		if (t) {
			*table = t->name;
			return 0;
		}
	}
	return -ENOENT;
}
