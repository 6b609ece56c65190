/* SPDX-License-Identifier: MIT */
/*
 * The per-VM PMU (contract v3, docs/design.md "The per-VM PMU"): made once at VM
 * creation, first from the model's descriptor (its default geometry, every
 * register, its event table, the CPUID leaves of its identity), then by the
 * model's refresh op from the VM's options, as KVM's kvm_pmu_ops.refresh makes
 * a vCPU's PMU from the CPUID user space set and libpfm4's pmu_init makes a PMU
 * per use.  Everything the core and the backends size by comes from here.
 */
#include <errno.h>
#include <string.h>

#include "core.h"
#include "events.h"

struct vpmu_cpuid_leaf *vpmu_pmu_cpuid(struct vpmu_pmu *p, uint32_t function, uint32_t index)
{
	unsigned i = 0;
	for (; i < p->nr_cpuid; i++) {
		struct vpmu_cpuid_leaf *l = &p->cpuid[i];
		if (l->function == function && l->index == index)
			return l;
		if (l->function > function || (l->function == function && l->index > index))
			break;
	}
	if (p->nr_cpuid == VPMU_MAX_CPUID_LEAVES)
		return NULL;
	memmove(&p->cpuid[i + 1], &p->cpuid[i], (p->nr_cpuid - i) * sizeof(p->cpuid[0]));
	p->nr_cpuid++;
	p->cpuid[i] = (struct vpmu_cpuid_leaf){ .function = function, .index = index };
	return &p->cpuid[i];
}

/* The 12-byte vendor string in EBX, EDX, ECX order (leaf 0 and 80000000h). */
static void vendor_regs(const char *vendor, struct vpmu_cpuid_leaf *l)
{
	char v[12] = { 0 };
	memcpy(v, vendor, strnlen(vendor, sizeof(v)));
	memcpy(&l->ebx, v, 4);
	memcpy(&l->edx, v + 4, 4);
	memcpy(&l->ecx, v + 8, 4);
}

/* CPUID.1:EAX signature; family 0Fh and above go in the extended fields (Intel
 * SDM vol. 2A, CPUID "Version Information"). */
static uint32_t signature(unsigned family, unsigned cpumodel, unsigned stepping)
{
	uint32_t fam = family < 15 ? family : 15, ext_fam = family < 15 ? 0 : family - 15;
	return (stepping & 0xF) | (cpumodel & 0xF) << 4 | fam << 8 | ((cpumodel >> 4) & 0xF) << 16 |
	       (ext_fam & 0xFF) << 20;
}

/* The leaves of the identity (x86): 0 and 1; 80000000h and 80000001h where the
 * CPU has extended leaves; the brand string 80000002h-80000004h where it has
 * one.  Leaf 0's and 80000000h's maximum are set after refresh (pmu_finish). */
static void identity_leaves(struct vpmu_pmu *p, const struct vpmu_vm_opts *o)
{
	const struct vpmu_identity *id = &p->model->id;
	const char *brand = p->model->brand;
	vendor_regs(id->vendor, vpmu_pmu_cpuid(p, 0, 0));
	struct vpmu_cpuid_leaf *l = vpmu_pmu_cpuid(p, 1, 0);
	l->eax = signature(o->family, o->cpumodel, o->stepping);
	/* HTT: a hyper-threaded VM's vCPUs 2k and 2k+1 are one core's threads
	 * (Intel SDM vol. 2A, CPUID leaf 01H: EDX bit 28, EBX[23:16] = 2). */
	l->edx = id->cpuid1_edx | (o->ht ? 1u << 28 : 0);
	l->ecx = id->cpuid1_ecx;
	/* CPUs with CLFLUSH report its line size in EBX bits 15:8, in 8-byte
	 * units: 8 (64 bytes) on the Pentium 4, the K8 and later (Intel SDM vol.
	 * 2A, CPUID leaf 01H; AMD CPUID Specification, Fn0000_0001_EBX).  Linux
	 * takes its cache alignment from it, and a zero breaks its slab allocator. */
	if (l->edx & (1u << 19))
		l->ebx |= 8u << 8;
	if (l->edx & (1u << 28))
		l->ebx |= 2u << 16;
	/* Every Pentium 4 has the brand string leaves, and with them leaf
	 * 80000001h, zero on a 32-bit part (Intel SDM vol. 2A, CPUID). */
	if (!(id->ext1_edx || id->ext1_ecx || brand))
		return;
	vendor_regs(id->vendor, vpmu_pmu_cpuid(p, 0x80000000, 0));
	l = vpmu_pmu_cpuid(p, 0x80000001, 0);
	l->eax = signature(o->family, o->cpumodel, o->stepping);
	l->ecx = id->ext1_ecx;
	l->edx = id->ext1_edx;
	if (!brand)
		return;
	/* 48 bytes, NUL-padded, 16 per leaf in EAX, EBX, ECX, EDX. */
	char b[48] = { 0 };
	memcpy(b, brand, strnlen(brand, sizeof(b) - 1));
	for (unsigned k = 0; k < 3; k++) {
		l = vpmu_pmu_cpuid(p, 0x80000002 + k, 0);
		memcpy(&l->eax, b + 16 * k, 4);
		memcpy(&l->ebx, b + 16 * k + 4, 4);
		memcpy(&l->ecx, b + 16 * k + 8, 4);
		memcpy(&l->edx, b + 16 * k + 12, 4);
	}
}

/* Leaf 0 and 80000000h say which leaves exist: the highest of each range. */
static void cpuid_ranges(struct vpmu_pmu *p)
{
	uint32_t basic = 0, ext = 0;
	for (unsigned i = 0; i < p->nr_cpuid; i++) {
		uint32_t f = p->cpuid[i].function;
		if (f < 0x80000000u && f > basic)
			basic = f;
		if (f >= 0x80000000u && f > ext)
			ext = f;
	}
	for (unsigned i = 0; i < p->nr_cpuid; i++) {
		if (p->cpuid[i].function == 0)
			p->cpuid[i].eax = basic;
		if (p->cpuid[i].function == 0x80000000u)
			p->cpuid[i].eax = ext;
	}
}

/* The descriptor's geometry: every counter general-purpose at ctr_width. */
static void pmu_defaults(struct vpmu_pmu *p, const struct vpmu_model *m,
			 const struct vpmu_vm_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->model = m;
	p->nr_ctrs = p->nr_general = m->nr_ctrs;
	vpmu_pmu_set_width(p, 0, m->nr_ctrs, m->ctr_width);
	p->nr_regs = m->nr_regs <= VPMU_MAX_REGS ? m->nr_regs : 0;
	if (p->nr_regs)
		memcpy(p->regs, m->regs, p->nr_regs * sizeof(p->regs[0]));
	if (m->misc_reset)
		memcpy(p->misc_reset, m->misc_reset, sizeof(p->misc_reset));
	if (m->table) {
		p->events = m->table->match;
		p->nr_events = m->table->nr_match;
		p->table = vpmu_event_table_of(m->table->pmu, m->id.vendor, o->family, o->cpumodel,
					      o->stepping);
		if (!p->table)
			p->table = m->table;
	}
	p->event_exclude = m->event_exclude;
	if (m->regspace == VPMU_SPACE_MSR)
		identity_leaves(p, o);
}

/* Whether the PMU a refresh made is one the core can run. */
static bool pmu_valid(const struct vpmu_pmu *p)
{
	if (p->nr_ctrs > VPMU_MAX_CTRS || p->nr_general + p->nr_fixed > p->nr_ctrs ||
	    (p->nr_fixed && p->fixed_base + p->nr_fixed > p->nr_ctrs) ||
	    p->nr_regs > VPMU_REG_HASH_SIZE / 2 || p->nr_cpuid > VPMU_MAX_CPUID_LEAVES)
		return false;
	/* A counter number without a register (the gap between architectural
	 * perfmon's general and fixed counters) may have width 0. */
	for (unsigned i = 0; i < p->nr_ctrs; i++)
		if (p->width[i] > 64)
			return false;
	for (unsigned i = 0; i < p->nr_regs; i++)
		if (p->regs[i].kind == VPMU_REG_CTR &&
		    (p->regs[i].index >= p->nr_ctrs || !p->width[p->regs[i].index]))
			return false;
	for (unsigned i = 1; i < p->nr_regs; i++)
		if (p->regs[i].addr <= p->regs[i - 1].addr)
			return false;
	return true;
}

int vpmu_pmu_init(struct vpmu_pmu *p, const struct vpmu_model *m, const struct vpmu_vm_opts *o)
{
	if (m->nr_ctrs > VPMU_MAX_CTRS || m->nr_regs > VPMU_MAX_REGS)
		return -EINVAL;
	pmu_defaults(p, m, o);
	if (m->ops->refresh) {
		int r = m->ops->refresh(m, o, p);
		if (r < 0)
			return r;
	} else if ((o->pmu_version >= 0 && (unsigned)o->pmu_version != p->version) ||
		   (o->nr_general >= 0 && (unsigned)o->nr_general != p->nr_general) ||
		   (o->nr_fixed >= 0 && (unsigned)o->nr_fixed != p->nr_fixed)) {
		/* A legacy PMU has one geometry: nothing to narrow. */
		return -EINVAL;
	}
	if (!pmu_valid(p))
		return -EINVAL;
	cpuid_ranges(p);
	return 0;
}

int vpmu_pmu_event_of(const struct vpmu_pmu *p, unsigned pmc, uint64_t key)
{
	if (key & p->event_exclude)
		return VPMU_EV_NONE;
	const struct vpmu_event_desc *e = p->events;
	for (unsigned i = 0; i < p->nr_events; i++, e++)
		if ((key & e->match) == e->code && (!e->ctr_mask || (e->ctr_mask >> pmc) & 1))
			return e->generic;
	return VPMU_EV_NONE;
}

const struct vpmu_event_table *vpmu_event_table_of(const char *pmu, const char *vendor,
						   unsigned family, unsigned cpumodel,
						   unsigned stepping)
{
	for (unsigned i = 0; i < vpmu_nr_event_map; i++) {
		const struct vpmu_event_map *e = &vpmu_event_map[i];
		if (family >= e->family_lo && family <= e->family_hi && cpumodel >= e->model_lo &&
		    cpumodel <= e->model_hi && stepping >= e->stepping_lo &&
		    stepping <= e->stepping_hi && !strcmp(e->table->pmu, pmu) &&
		    vendor && !strcmp(e->vendor, vendor))
			return e->table;
	}
	return NULL;
}

const struct vpmu_event_table *vpmu_event_table_find(const char *name)
{
	for (unsigned i = 0; name && i < vpmu_nr_event_tables; i++)
		if (!strcmp(vpmu_event_tables[i]->name, name))
			return vpmu_event_tables[i];
	return NULL;
}

/* ---------------------------------------------------------------- backends */

/* The index in p's table of the event key programs on counter pmc, -1: none. */
static int table_entry(const struct vpmu_pmu *p, unsigned pmc, uint64_t key)
{
	const struct vpmu_event_table *t = p->table;
	const struct vpmu_event_entry *e;
	if (!t)
		return -1;
	if (p->nr_fixed && pmc >= p->fixed_base && pmc - p->fixed_base < p->nr_fixed) {
		/* A fixed counter counts its one event (the table's fixed[j]). */
		unsigned j = pmc - p->fixed_base;
		if (j >= sizeof(t->fixed) / sizeof(t->fixed[0]) || !t->fixed[j])
			return -1;
		e = &t->ev[t->fixed[j] - 1];
	} else {
		/* Exactly the entry's encoding: an entry found by its event select
		 * and unit mask alone, with a counter mask or an edge the data does
		 * not list, counts something else. */
		e = vpmu_event_decode(t, key, 0);
		if (!e || (key & t->key_mask) != e->key)
			return -1;
	}
	return (int)(e - t->ev);
}

int vpmu_pmu_decode_event(const struct vpmu_pmu *p, const uint64_t *ctrl, unsigned pmc,
			  unsigned *priv, bool *interrupt, int *entry)
{
	unsigned pr = 0;
	bool irq = false;
	uint64_t key = 0;
	int ev = VPMU_EV_NONE, in = -1;
	if (p && ctrl && pmc < p->nr_ctrs &&
	    p->model->ops->decode_ctr(p->model, ctrl, pmc, &key, &pr, &irq)) {
		ev = vpmu_pmu_event_of(p, pmc, key);
		if (entry)
			in = table_entry(p, pmc, key);
	} else {
		pr = 0, irq = false;
	}
	if (priv)
		*priv = pr;
	if (interrupt)
		*interrupt = irq;
	if (entry)
		*entry = in;
	return ev;
}

int vpmu_pmu_decode_ctr(const struct vpmu_pmu *p, const uint64_t *ctrl, unsigned pmc,
			unsigned *priv, bool *interrupt)
{
	return vpmu_pmu_decode_event(p, ctrl, pmc, priv, interrupt, NULL);
}

const char *vpmu_pmu_event_table(const struct vpmu_pmu *p)
{
	return p && p->table ? p->table->name : NULL;
}

unsigned vpmu_pmu_ctr_width(const struct vpmu_pmu *p, unsigned pmc)
{
	return p && pmc < p->nr_ctrs ? p->width[pmc] : 0;
}
unsigned vpmu_pmu_nr_ctrs(const struct vpmu_pmu *p) { return p ? p->nr_ctrs : 0; }
bool vpmu_pmu_overflows_at_msb(const struct vpmu_pmu *p)
{
	return p && (p->model->caps & VPMU_CAP_OVF_ON_MSB);
}
const void *vpmu_pmu_layout(const struct vpmu_pmu *p) { return p ? p->model : NULL; }

/* ---------------------------------------------------------------- queries */

int vpmu_vm_pmu(const struct vpmu_vm *vm, struct vpmu_pmu_info *out)
{
	if (!vm || !out)
		return -EINVAL;
	const struct vpmu_pmu *p = &vm->pmu;
	*out = (struct vpmu_pmu_info){
		.version = p->version,
		.nr_ctrs = p->nr_ctrs,
		.nr_general = p->nr_general,
		.general_width = p->nr_general ? p->width[0] : 0,
		.nr_fixed = p->nr_fixed,
		.fixed_base = p->fixed_base,
		.fixed_width = p->nr_fixed ? p->width[p->fixed_base] : 0,
		.nr_regs = p->nr_regs,
		.nr_events = p->nr_events,
		.ctr_regs = vm->ctr_regs,
	};
	return 0;
}

int vpmu_vm_cpuid(const struct vpmu_vm *vm, struct vpmu_cpuid_leaf *out, unsigned max)
{
	if (!vm || (!out && max))
		return -EINVAL;
	if (max < vm->pmu.nr_cpuid)
		return -ENOSPC;
	if (vm->pmu.nr_cpuid)
		memcpy(out, vm->pmu.cpuid, vm->pmu.nr_cpuid * sizeof(*out));
	return (int)vm->pmu.nr_cpuid;
}
