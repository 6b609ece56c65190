/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "acct_formats.h"

static void add_totals(struct vpmu_totals *sum, const struct vpmu_totals *t)
{
	for (unsigned i = 0; i < VPMU_MAX_CTRS; i++)
		sum->pmc[i] += t->pmc[i];
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		sum->events[e] += t->events[e];
	sum->pmis += t->pmis;
	sum->reads += t->reads;
	sum->writes += t->writes;
	sum->calls += t->calls;
	sum->faults += t->faults;
	sum->strict_refusals += t->strict_refusals;
	sum->switch_ins += t->switch_ins;
	sum->cache_hits += t->cache_hits;
	for (unsigned r = 0; r < VPMU_MAX_RULES; r++)
		sum->violations[r] += t->violations[r];
}

int acct_collect(struct acct_vm *out, const char *name, struct vpmu_vm *vm,
		 const struct vpmu_host *host, const struct vpmu_kvm_stats *const *kvm)
{
	struct vpmu_model_info mi;
	if (!out || !name || !vm || vpmu_model_info(vpmu_vm_model(vm), &mi))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", name);
	snprintf(out->model, sizeof(out->model), "%s", mi.name);
	out->nr_ctrs = mi.nr_ctrs;
	out->nr_rules = mi.nr_rules < VPMU_MAX_RULES ? mi.nr_rules : VPMU_MAX_RULES;
	for (unsigned r = 0; r < out->nr_rules; r++)
		out->rule[r] = vpmu_vm_rule_name(vm, r);
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		out->source[e] = vpmu_host_event_source(host, (enum vpmu_event)e, NULL);
	for (unsigned k = 0; k < VPMU_MAX_VCPUS; k++) {
		struct vpmu_vcpu *v = vpmu_vcpu_get(vm, k);
		struct acct_vcpu *a = &out->vcpu[out->nr_vcpus];
		if (!v || vpmu_vcpu_totals(v, &a->t))
			continue;
		a->index = k;
		if (kvm && kvm[k]) {
			a->have_kvm = true;
			a->kvm = *kvm[k];
		}
		add_totals(&out->total, &a->t);
		out->nr_vcpus++;
	}
	return 0;
}

static const char *const format_names[] = {
	[ACCT_TEXT] = "text",
	[ACCT_DOMSTATS] = "domstats",
	[ACCT_PROMETHEUS] = "prometheus",
	[ACCT_JSON] = "json",
};

int acct_format_from_name(const char *name)
{
	for (unsigned f = 0; f < sizeof(format_names) / sizeof(format_names[0]); f++)
		if (name && !strcmp(name, format_names[f]))
			return (int)f;
	return -1;
}

int acct_write(FILE *out, enum acct_format f, const struct acct_vm *vms, unsigned n)
{
	if (!out || (!vms && n))
		return -EINVAL;
	switch (f) {
	case ACCT_TEXT: return acct_write_text(out, vms, n);
	case ACCT_DOMSTATS: return acct_write_domstats(out, vms, n);
	case ACCT_PROMETHEUS: return acct_write_prometheus(out, vms, n);
	case ACCT_JSON: return acct_write_json(out, vms, n);
	}
	return -EINVAL;
}
