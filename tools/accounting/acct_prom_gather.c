/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus format's columns and units (tools/accounting/acct_prom.h): the values
 * of every vCPU copied out of the snapshots once, so that the families read
 * them in order rather than 660 bytes apart (docs/performance.md "Accounting
 * export at scale").
 */
#include <errno.h>
#include <string.h>

#include "acct_prom.h"

/* The columns of VMs m0 .. m1-1 (their places: gather()). */
static void gather_vms(struct prom *p, unsigned m0, unsigned m1)
{
	size_t nv = p->nv;
	for (unsigned m = m0; m < m1; m++) {
		const struct acct_vm *vm = &p->vms[m];
		struct vm_cols *c = &p->vm[m];
		struct acct_buf d = { .out = NULL, .buf = c->dom, .len = 0, .cap = DOM_CAP, .err = 0 };
		unsigned nc = nr_ctrs(vm), nr = nr_rules(vm);
		size_t j = c->j0;
		acct_put_esc(&d, vm->name, strnlen(vm->name, sizeof(vm->name)));
		c->dlen = (uint16_t)d.len;
		c->nr_ctrs = (uint8_t)nc;
		c->countable = 0;
		for (unsigned e = 0; e < VPMU_EV_NR; e++)
			if (acct_countable(vm, (enum vpmu_event)e))
				c->countable |= (uint8_t)(1u << e);
		for (unsigned i = 0; i < c->nv; i++, j++) {
			const struct acct_vcpu *v = &vm->vcpu[i];
			const struct vpmu_totals *t = &v->t;
			uint64_t *col = p->col + j;
			uint8_t f = v->have_kvm ? R_KVM : 0;
			char *end = p->index[j].digits + 10;
			char *q = acct_u64_dec(end, v->index);
			memmove(p->index[j].digits, q, (size_t)(end - q));
			p->index[j].len = (uint8_t)(end - q);
			for (unsigned e = 0; e < VPMU_EV_NR; e++)
				col[(C_EV + e) * nv] = t->events[e];
			for (unsigned k = 0; k < nc; k++)
				col[(C_PMC + k) * nv] = t->pmc[k];
#define COUNT_COL(f, ...) col[(C_COUNT + VPMU_TOTALS_##f) * nv] = t->f;
			VPMU_TOTALS_COUNTS(COUNT_COL)
#undef COUNT_COL
			if (v->have_kvm) {
				col[C_FIXED * nv] = v->kvm.pmis_fixed;
				col[C_NMI * nv] = v->kvm.pmis_nmi;
				col[C_HELD * nv] = v->kvm.pmis_held;
				col[C_MASKED * nv] = v->kvm.pmis_masked;
				col[C_APIC_OFF * nv] = v->kvm.pmis_apic_off;
				col[C_BAD_MODE * nv] = v->kvm.pmis_bad_mode;
				col[C_MSR_EXITS * nv] = v->kvm.msr_exits;
				col[C_RDPMC_EXITS * nv] = v->kvm.rdpmc_exits;
			}
			for (unsigned r = 0; r < nr; r++)
				if (t->violations[r])
					f |= R_VIOLATIONS;
			p->rflags[j] = f;
		}
	}
}

/* Half h of the VMs (by vCPUs) for acct_par2: reading the snapshots is a
 * third of the export's formatting (cache misses: 660 bytes a vCPU). */
static void gather_half(void *ctx, unsigned h)
{
	struct prom *p = ctx;
	unsigned mid = 0;
	while (mid < p->n && p->vm[mid].j0 < p->nv / 2)
		mid++;
	if (h == 0)
		gather_vms(p, 0, mid);
	else
		gather_vms(p, mid, p->n);
}

int acct_prom_gather(struct prom *p)
{
	size_t nv = 0, j = 0;
	for (unsigned m = 0; m < p->n; m++)
		nv += nr_vcpus(&p->vms[m]);
	p->nv = nv;
	/* one allocation: columns, then vm_cols, then index, then rflags */
	size_t sz_col = C_NR * (nv ? nv : 1) * sizeof(uint64_t);
	size_t sz_vm = (size_t)p->n * sizeof(struct vm_cols);
	char *mem = acct_mem_get(sz_col + sz_vm + nv * sizeof(struct vidx) + nv + 1, &p->mem_size);
	if (!mem)
		return -ENOMEM;
	p->col = (uint64_t *)(void *)mem;
	p->vm = (struct vm_cols *)(void *)(mem + sz_col);
	p->index = (struct vidx *)(void *)(mem + sz_col + sz_vm);
	p->rflags = (uint8_t *)(mem + sz_col + sz_vm + nv * sizeof(struct vidx));
	for (unsigned m = 0; m < p->n; m++) {
		p->vm[m].nv = nr_vcpus(&p->vms[m]);
		p->vm[m].j0 = j;
		j += p->vm[m].nv;
	}
	acct_par2(gather_half, p, nv);
	return 0;
}

/* About how many bytes family f writes for VM m: to cut the units. */
static size_t vm_bytes(const struct prom *p, const struct fam *f, unsigned m)
{
	const struct vm_cols *c = &p->vm[m];
	size_t line = f->nlen + c->dlen + 40, lines = c->nv;
	if (f->kind == K_INFO)
		lines = 1;
	else if (f->kind == K_COUNTABLE)
		lines = VPMU_EV_NR;
	else if (f->kind == K_SOURCES)
		lines = p->vms[m].nr_sources, line += 2 * ACCT_EVENT_NAME_MAX;
	else if (f->kind == K_COUNTER)
		lines *= (f->flags & F_CTRS) && c->nr_ctrs < f->nsubs ? c->nr_ctrs : f->nsubs;
	return lines * line;
}

/* The units, each a family over VMs of about ACCT_UNIT_BYTES (or only
 * counted, unit NULL); how many. */
unsigned acct_prom_plan(const struct prom *p, struct unit *unit)
{
	unsigned nu = 0;
	for (unsigned f = 0; f < p->nfam; f++) {
		unsigned m0 = 0;
		size_t bytes = 0;
		for (unsigned m = 0; m < p->n; m++) {
			bytes += vm_bytes(p, &p->fam[f], m);
			if (bytes >= ACCT_UNIT_BYTES && m + 1 < p->n) {
				if (unit)
					unit[nu] = (struct unit){ f, m0, m + 1 };
				nu++;
				m0 = m + 1;
				bytes = 0;
			}
		}
		if (unit)
			unit[nu] = (struct unit){ f, m0, p->n };
		nu++;
	}
	return nu;
}
