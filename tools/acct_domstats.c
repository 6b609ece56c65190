/* SPDX-License-Identifier: MIT */
/*
 * The accounting as `virsh domstats --perf` prints a domain's perf group
 * (libvirt's virsh-domain-monitor.c: "Domain: 'NAME'" then "  KEY=VALUE"),
 * with libvirt's perf keys (VIR_PERF_PARAM_*, include/libvirt/libvirt-domain.h)
 * where a generic event has one, and "vpmu." keys for the rest
 * (docs/accounting.md).  An event the host cannot count has no perf key:
 * libvirt leaves out a perf event that is not enabled, and "vpmu.<key>.countable=0"
 * says why.
 */
#include <errno.h>
#include <inttypes.h>

#include "acct_formats.h"

/* libvirt's name of each generic event's perf.* key (VIR_PERF_PARAM_*). */
static const char *const libvirt_perf_key[VPMU_EV_NR] = {
	[VPMU_EV_CYCLES] = "cpu_cycles",
	[VPMU_EV_INSTRUCTIONS] = "instructions",
	[VPMU_EV_REF_CYCLES] = "ref_cpu_cycles",
	[VPMU_EV_BUS_CYCLES] = "bus_cycles",
	[VPMU_EV_BRANCHES] = "branch_instructions",
	[VPMU_EV_BRANCH_MISSES] = "branch_misses",
	[VPMU_EV_CACHE_REFERENCES] = "cache_references",
	[VPMU_EV_CACHE_MISSES] = "cache_misses",
};

const char *acct_libvirt_perf_key(enum vpmu_event ev)
{
	return (unsigned)ev < VPMU_EV_NR ? libvirt_perf_key[ev] : NULL;
}

static void totals(FILE *out, const char *pre, const struct acct_vm *vm, const struct vpmu_totals *t)
{
	fprintf(out, "  %spmis=%" PRIu64 "\n  %sreads=%" PRIu64 "\n  %swrites=%" PRIu64
		"\n  %scalls=%" PRIu64 "\n  %sfaults=%" PRIu64 "\n  %sstrict_refusals=%" PRIu64
		"\n  %scache_hits=%" PRIu64 "\n  %sswitch_ins=%" PRIu64 "\n",
		pre, t->pmis, pre, t->reads, pre, t->writes, pre, t->calls, pre, t->faults, pre,
		t->strict_refusals, pre, t->cache_hits, pre, t->switch_ins);
	for (unsigned i = 0; i < vm->nr_ctrs; i++)
		fprintf(out, "  %scounter.%u=%" PRIu64 "\n", pre, i, t->pmc[i]);
	for (unsigned r = 0; r < vm->nr_rules; r++)
		if (t->violations[r] && vm->rule[r])
			fprintf(out, "  %sviolations.%s=%" PRIu64 "\n", pre, vm->rule[r], t->violations[r]);
}

int acct_write_domstats(FILE *out, const struct acct_vm *vms, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		const struct acct_vm *vm = &vms[k];
		fprintf(out, "Domain: '%s'\n", vm->name);
		for (int e = 0; e < VPMU_EV_NR; e++)
			if (acct_countable(vm, (enum vpmu_event)e))
				fprintf(out, "  perf.%s=%" PRIu64 "\n", libvirt_perf_key[e], vm->total.events[e]);
		for (int e = 0; e < VPMU_EV_NR; e++)
			if (!acct_countable(vm, (enum vpmu_event)e))
				fprintf(out, "  vpmu.%s.countable=0\n", libvirt_perf_key[e]);
		fprintf(out, "  vpmu.model=%s\n  vpmu.vcpu.count=%u\n", vm->model, vm->nr_vcpus);
		totals(out, "vpmu.", vm, &vm->total);
		for (unsigned i = 0; i < vm->nr_vcpus; i++) {
			const struct acct_vcpu *c = &vm->vcpu[i];
			char pre[48];
			snprintf(pre, sizeof(pre), "vpmu.vcpu.%u.", c->index);
			for (int e = 0; e < VPMU_EV_NR; e++)
				if (acct_countable(vm, (enum vpmu_event)e))
					fprintf(out, "  %s%s=%" PRIu64 "\n", pre, libvirt_perf_key[e], c->t.events[e]);
			totals(out, pre, vm, &c->t);
		}
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}
