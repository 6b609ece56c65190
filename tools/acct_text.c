/* SPDX-License-Identifier: MIT */
/* The human-readable accounting: one block per vCPU, then the VM's totals. */
#include <inttypes.h>

#include "acct_formats.h"

static void print_totals(FILE *out, const char *indent, const struct acct_vm *vm,
			 const struct vpmu_totals *t)
{
	fprintf(out, "%scounters:", indent);
	for (unsigned i = 0; i < vm->nr_ctrs; i++)
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
			const char *name = r < vm->nr_rules ? vm->rule[r] : NULL;
			fprintf(out, " %s=%" PRIu64, name ? name : "?", t->violations[r]);
			any = 1;
		}
	fprintf(out, "%s\n", any ? "" : " none");
}

int acct_write_text(FILE *out, const struct acct_vm *vms, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		const struct acct_vm *vm = &vms[k];
		struct vpmu_model_info mi;
		const char *desc = vpmu_model_info(vm->model, &mi) == 0 ? mi.description : "";
		fprintf(out, "VM %s (model %s: %s)\n", vm->name, vm->model, desc);
		for (unsigned i = 0; i < vm->nr_vcpus; i++) {
			fprintf(out, "  vCPU %u\n", vm->vcpu[i].index);
			print_totals(out, "    ", vm, &vm->vcpu[i].t);
		}
		fprintf(out, "  VM total\n");
		print_totals(out, "    ", vm, &vm->total);
	}
	return ferror(out) ? -EIO : 0;
}
