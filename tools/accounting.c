/* SPDX-License-Identifier: MIT */
#include <inttypes.h>

#include "accounting.h"

static void print_totals(FILE *out, const char *indent, const struct vpmu_vm *vm,
			 const struct vpmu_totals *t, unsigned nr_ctrs)
{
	fprintf(out, "%scounters:", indent);
	for (unsigned i = 0; i < nr_ctrs; i++)
		fprintf(out, " pmc%u=%" PRIu64, i, t->pmc[i]);
	fprintf(out, "\n%sevents:", indent);
	int any = 0;
	for (int e = 0; e < VPMU_EV_NR; e++)
		if (t->events[e]) {
			fprintf(out, " %s=%" PRIu64, vpmu_event_name((enum vpmu_event)e), t->events[e]);
			any = 1;
		}
	fprintf(out, "%s\n", any ? "" : " none");
	fprintf(out, "%spmis=%" PRIu64 " reads=%" PRIu64 " writes=%" PRIu64 " faults=%" PRIu64
		" strict-refusals=%" PRIu64 " switch-ins=%" PRIu64 " cache-hits=%" PRIu64 "\n",
		indent, t->pmis, t->reads, t->writes, t->faults, t->strict_refusals, t->switch_ins,
		t->cache_hits);
	fprintf(out, "%sperfctr-rule violations:", indent);
	any = 0;
	for (unsigned r = 0; r < VPMU_MAX_RULES; r++)
		if (t->violations[r]) {
			const char *name = vpmu_vm_rule_name(vm, r);
			fprintf(out, " %s=%" PRIu64, name ? name : "?", t->violations[r]);
			any = 1;
		}
	fprintf(out, "%s\n", any ? "" : " none");
}

void accounting_print_vm(FILE *out, const char *vm_name, struct vpmu_vm *vm)
{
	struct vpmu_model_info mi;
	struct vpmu_totals t;
	if (vpmu_model_info(vpmu_vm_model(vm), &mi))
		return;
	fprintf(out, "VM %s (model %s: %s)\n", vm_name, mi.name, mi.description);
	for (unsigned k = 0; k < VPMU_MAX_VCPUS; k++) {
		struct vpmu_vcpu *v = vpmu_vcpu_get(vm, k);
		if (!v || vpmu_vcpu_totals(v, &t))
			continue;
		fprintf(out, "  vCPU %u\n", k);
		print_totals(out, "    ", vm, &t, mi.nr_ctrs);
	}
	if (vpmu_vm_totals(vm, &t) == 0) {
		fprintf(out, "  VM total\n");
		print_totals(out, "    ", vm, &t, mi.nr_ctrs);
	}
}

void accounting_print_sources(FILE *out, const struct vpmu_host *host)
{
	for (int e = 0; e < VPMU_EV_NR; e++) {
		const char *why;
		enum vpmu_count_source src = vpmu_host_event_source(host, (enum vpmu_event)e, &why);
		fprintf(out, "  %-16s %-13s %s\n", vpmu_event_name((enum vpmu_event)e),
			vpmu_count_source_name(src), why);
	}
}

void accounting_print_perf(FILE *out, const struct vpmu_perf *p)
{
	struct vpmu_perf_stats st;
	vpmu_perf_stats(p, &st);
	fprintf(out, "  perf syscalls: open=%" PRIu64 " read=%" PRIu64 " period=%" PRIu64
		" close=%" PRIu64 " (clock readings without a syscall: %" PRIu64 ")\n",
		st.opens, st.reads, st.period_sets, st.closes, st.clock_reads_saved);
	fprintf(out, "  host refusals:");
	int any = 0;
	for (int r = 0; r < VPMU_PERF_REFUSAL_NR; r++)
		if (st.refused[r]) {
			fprintf(out, " %s=%" PRIu64, vpmu_perf_refusal_name((enum vpmu_perf_refusal)r),
				st.refused[r]);
			any = 1;
		}
	fprintf(out, "%s\n", any ? "" : " none");
	if (any)
		fprintf(out, "  last refusal: %s\n", vpmu_perf_error(p));
}
