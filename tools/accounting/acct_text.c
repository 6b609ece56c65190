/* SPDX-License-Identifier: MIT */
/*
 * The human-readable accounting: one block per vCPU, then the VM's totals.
 * Written through acct_buf (acct_buf.h: issue 10's 8,000 vCPUs in 10 ms),
 * byte for byte what the fprintf version printed (tests/accounting-cli.t), in
 * units of VMs that two threads may format (acct_buf_units).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acct_buf.h"
#include "acct_formats.h"

#define INDENT "    "

static void num(struct acct_buf *b, const char *key, size_t klen, uint64_t v)
{
	acct_put(b, key, klen);
	acct_put_u64(b, v);
}

#define NUM(b, lit, v) num((b), (lit), sizeof(lit) - 1, (v))

/* The counts of VPMU_TOTALS_COUNTS (include/vpmu/vpmu.h) in the order of the
 * text line, " name=" each; the ones it leaves out ("" for a name) last. */
static const struct {
	unsigned k;
	const char *key;
	size_t len;
} text_count[VPMU_TOTALS_NR] = {
#define TEXT_COUNT(f, part, key, jo, jk, text, pos, ...) \
	[pos] = { VPMU_TOTALS_##f, " " text "=", sizeof(text) > 1 ? sizeof(text) + 1 : 0 },
	VPMU_TOTALS_COUNTS(TEXT_COUNT)
#undef TEXT_COUNT
};

static void print_totals(struct acct_buf *b, const struct acct_vm *vm, const struct vpmu_totals *t)
{
	_Static_assert(VPMU_MAX_CTRS <= 100, "two digits per counter number");
	unsigned nc = vm->nr_ctrs < VPMU_MAX_CTRS ? vm->nr_ctrs : VPMU_MAX_CTRS;
	int any = 0;

	ACCT_PUT_LIT(b, INDENT "counters:");
	for (unsigned i = 0; i < nc; i++) {
		/* " pmcN=" */
		char key[8] = { ' ', 'p', 'm', 'c' };
		size_t k = 4;
		if (i >= 10)
			key[k++] = (char)('0' + i / 10);
		key[k++] = (char)('0' + i % 10);
		key[k++] = '=';
		num(b, key, k, t->pmc[i]);
	}
	ACCT_PUT_LIT(b, "\n" INDENT "events:");
	for (int e = 0; e < VPMU_EV_NR; e++)
		if (t->events[e]) {
			acct_put(b, " ", 1);
			acct_put_str(b, vpmu_event_name((enum vpmu_event)e));
			NUM(b, "=", t->events[e]);
			any = 1;
		}
	if (!any)
		ACCT_PUT_LIT(b, " none");
	ACCT_PUT_LIT(b, "\n" INDENT);
	for (unsigned i = 0; i < VPMU_TOTALS_NR && text_count[i].len; i++)
		num(b, text_count[i].key + !i, text_count[i].len - !i, acct_count(t, text_count[i].k));
	ACCT_PUT_LIT(b, "\n" INDENT "perfctr-rule violations:");
	any = 0;
	for (unsigned r = 0; r < VPMU_MAX_RULES; r++)
		if (t->violations[r]) {
			const char *name = r < vm->nr_rules && vm->rule[r][0] ? vm->rule[r] : "?";
			acct_put(b, " ", 1);
			acct_put(b, name, strnlen(name, ACCT_RULE_NAME_MAX));
			NUM(b, "=", t->violations[r]);
			any = 1;
		}
	if (any)
		acct_put(b, "\n", 1);
	else
		ACCT_PUT_LIT(b, " none\n");
}

static void text_unit(void *ctx, unsigned u, struct acct_buf *b)
{
	const struct acct_vm_units *x = ctx;
	for (unsigned k = x->first[u]; k < x->first[u + 1] && !b->err; k++) {
		const struct acct_vm *vm = &x->vms[k];
		struct vpmu_model_info mi;
		const char *desc = vpmu_model_info(vm->model, &mi) == 0 ? mi.description : "";
		ACCT_PUT_LIT(b, "VM ");
		acct_put(b, vm->name, strnlen(vm->name, sizeof(vm->name)));
		ACCT_PUT_LIT(b, " (model ");
		acct_put(b, vm->model, strnlen(vm->model, sizeof(vm->model)));
		ACCT_PUT_LIT(b, ": ");
		acct_put_str(b, desc ? desc : "(null)");
		ACCT_PUT_LIT(b, ")\n");
		for (unsigned i = 0; i < vm->nr_vcpus; i++) {
			NUM(b, "  vCPU ", vm->vcpu[i].index);
			acct_put(b, "\n", 1);
			print_totals(b, vm, &vm->vcpu[i].t);
		}
		ACCT_PUT_LIT(b, "  VM total\n");
		print_totals(b, vm, &vm->total);
		/* the table events programmed, and what the host counted each with */
		if (vm->nr_sources)
			ACCT_PUT_LIT(b, "  event sources\n");
		for (unsigned i = 0; i < vm->nr_sources; i++) {
			const struct acct_event_source *es = &vm->event_source[i];
			ACCT_PUT_LIT(b, INDENT);
			acct_put(b, es->event, strnlen(es->event, sizeof(es->event)));
			acct_put(b, " ", 1);
			acct_put_str(b, vpmu_count_source_name(es->source));
			if (es->host_event[0]) {
				ACCT_PUT_LIT(b, " (");
				acct_put(b, es->host_event, strnlen(es->host_event, sizeof(es->host_event)));
				ACCT_PUT_LIT(b, ")");
			}
			NUM(b, " programmings=", es->programmings);
			acct_put(b, "\n", 1);
		}
	}
}

int acct_write_text(FILE *out, const struct acct_vm *vms, unsigned n)
{
	/* ~260 bytes a block */
	return acct_write_by_vm(out, vms, n, 260u, text_unit);
}
