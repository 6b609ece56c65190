/* SPDX-License-Identifier: MIT */
/* vpmu-stat's interval view (stat_view.h). */
#include <inttypes.h>
#include <string.h>

#include "stat_view.h"

void stat_view_header(FILE *out)
{
	fprintf(out, "#%13s %-16s %-4s %-18s %16s %14s\n", "time", "domain", "vcpu", "event",
		"count", "rate/s");
}

static void row(FILE *out, double t, const char *dom, const char *vcpu, const char *what,
		uint64_t now, uint64_t before, double dt)
{
	/* A counter that went back (the VM was restarted under the same name)
	 * starts over, as Prometheus' rate() takes a counter reset. */
	uint64_t d = now >= before ? now - before : now;
	fprintf(out, "%14.6f %-16s %-4s %-18s %16" PRIu64 " %14.1f\n", t, dom, vcpu, what, d,
		dt > 0 ? (double)d / dt : 0.0);
}

static void rows(FILE *out, double t, double dt, const struct acct_vm *vm, const char *vcpu,
		 const struct vpmu_totals *now, const struct vpmu_totals *before)
{
	for (unsigned e = 0; e < VPMU_EV_NR; e++) {
		const char *name = vpmu_event_name((enum vpmu_event)e);
		if (!acct_countable(vm, (enum vpmu_event)e)) {
			/* perf stat's "<not supported>": never a number. */
			fprintf(out, "%14.6f %-16s %-4s %-18s %16s %14s\n", t, vm->name, vcpu, name,
				"<not countable>", "");
			continue;
		}
		row(out, t, vm->name, vcpu, name, now->events[e], before->events[e], dt);
	}
	row(out, t, vm->name, vcpu, "pmis", now->pmis, before->pmis, dt);
	row(out, t, vm->name, vcpu, "pmu-accesses", now->reads + now->writes + now->calls,
	    before->reads + before->writes + before->calls, dt);
	row(out, t, vm->name, vcpu, "faults", now->faults, before->faults, dt);
}

static const struct acct_vm *find(const struct acct_vm *vms, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(vms[i].name, name))
			return &vms[i];
	return NULL;
}

void stat_view_print(FILE *out, double t, double dt, const struct acct_vm *before, unsigned nb,
		     const struct acct_vm *now, unsigned nn, bool per_vcpu)
{
	/* A VM that stopped answering: said once, as a comment line. */
	for (unsigned i = 0; i < nb; i++)
		if (!find(now, nn, before[i].name))
			fprintf(out, "# %12.6f %s: gone (its socket no longer answers)\n", t,
				before[i].name);
	for (unsigned i = 0; i < nn; i++) {
		const struct acct_vm *a = &now[i], *b = find(before, nb, a->name);
		if (!b)
			continue;
		rows(out, t, dt, a, "all", &a->total, &b->total);
		if (!per_vcpu)
			continue;
		for (unsigned k = 0; k < a->nr_vcpus; k++)
			for (unsigned j = 0; j < b->nr_vcpus; j++)
				if (b->vcpu[j].index == a->vcpu[k].index) {
					char v[16];
					snprintf(v, sizeof(v), "%u", a->vcpu[k].index);
					rows(out, t, dt, a, v, &a->vcpu[k].t, &b->vcpu[j].t);
				}
	}
	fflush(out);
}
