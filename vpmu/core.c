/* SPDX-License-Identifier: MIT */
/*
 * libvpmu core: hosts, VMs, vCPUs, and the guest register-access path.
 *
 * A control write is applied in three steps (ARCHITECTURE.md decision 2):
 *   1. the model says whether the hardware accepts it (#GP in both modes if not);
 *   2. the perfctr control is derived from the register file as it would then be
 *      and checked: per-register masks always, cross-register rules when at least
 *      one counter is left enabled;
 *   3. strict mode refuses a violation with #GP and restores the register; the
 *      default mode records it and counts exactly as the hardware would.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "internal.h"

static uint64_t next_vm_uid = 1;

/* ---------------------------------------------------------------- host */

static void cache_invalidate(struct vpmu_cpu_cache *c)
{
	/* perfctr sets the cache to all-ones at reserve: no valid image is all-ones. */
	memset(c->ctrl, 0xff, sizeof(c->ctrl));
	c->id = ~0ull;
	c->isuspend_owner = NULL;
}

int vpmu_host_create(const struct vpmu_backend *backend, unsigned nr_cpus,
		     struct vpmu_host **out)
{
	if (!backend || !backend->ops || !out || nr_cpus == 0 || nr_cpus > VPMU_MAX_HOST_CPUS)
		return -EINVAL;
	if (!backend->ops->write_ctrl || !backend->ops->write_ctr || !backend->ops->read_ctr)
		return -EINVAL;
	struct vpmu_host *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->cpu = calloc(nr_cpus, sizeof(*h->cpu));
	if (!h->cpu) {
		free(h);
		return -ENOMEM;
	}
	h->backend = *backend;
	h->nr_cpus = nr_cpus;
	for (unsigned i = 0; i < nr_cpus; i++)
		cache_invalidate(&h->cpu[i]);
	*out = h;
	return 0;
}

void vpmu_host_destroy(struct vpmu_host *host)
{
	if (!host)
		return;
	free(host->cpu);
	free(host);
}

void vpmu_host_overflow(struct vpmu_host *host, unsigned cpu, uint64_t pmc_mask)
{
	if (!host || cpu >= host->nr_cpus || !pmc_mask)
		return;
	struct vpmu_vcpu *v = host->cpu[cpu].running;
	if (!v)
		return;
	/* Only i-mode counters interrupt (their INT/PMI bit is what made them i-mode). */
	uint64_t mask = 0;
	for (unsigned i = v->ctl.nractrs; i < vpmu_ctl_n(&v->ctl); i++)
		if (pmc_mask & (1ull << v->ctl.ctr[i].pmc))
			mask |= 1ull << v->ctl.ctr[i].pmc;
	if (!mask)
		return;
	v->ovf_mask |= mask;
	v->pmi_pending = true;
	v->totals.pmis++;
}

/* ---------------------------------------------------------------- models */

unsigned vpmu_model_count(void) { return vpmu_nr_models; }

const char *vpmu_model_name(unsigned index)
{
	return index < vpmu_nr_models ? vpmu_models[index]->name : NULL;
}

const struct vpmu_model *vpmu_model_find(const char *name)
{
	if (!name)
		return NULL;
	for (unsigned i = 0; i < vpmu_nr_models; i++)
		if (strcmp(vpmu_models[i]->name, name) == 0)
			return vpmu_models[i];
	return NULL;
}

const char *vpmu_model_description(const char *name)
{
	const struct vpmu_model *m = vpmu_model_find(name);
	return m ? m->description : NULL;
}

static bool identity_automasks(const struct vpmu_model *m, unsigned family, unsigned cpumodel)
{
	return m->intel_lvtpc_automask && (family == 15 || (family == 6 && cpumodel >= 9));
}

int vpmu_model_info(const char *name, struct vpmu_model_info *out)
{
	const struct vpmu_model *m = vpmu_model_find(name);
	if (!m || !out)
		return m ? -EINVAL : -ENOENT;
	out->name = m->name;
	out->description = m->description;
	out->vendor = m->vendor;
	out->regspace = m->regspace;
	out->family = m->family;
	out->cpumodel = m->cpumodel;
	out->stepping = m->stepping;
	out->nr_ctrs = m->nr_ctrs;
	out->ctr_width = m->ctr_width;
	out->overflow_interrupts = m->has_pcint;
	out->lvtpc_automask = identity_automasks(m, m->family, m->cpumodel);
	out->nr_regs = m->nr_regs;
	out->nr_events = m->nr_events;
	out->nr_rules = m->nr_rules;
	return 0;
}

int vpmu_model_reg(const char *name, unsigned i, uint32_t *addr, const char **kind)
{
	static const char *const kinds[] = { "?", "control", "counter", "misc" };
	const struct vpmu_model *m = vpmu_model_find(name);
	if (!m || i >= m->nr_regs)
		return -ENOENT;
	if (addr)
		*addr = m->regs[i].addr;
	if (kind)
		*kind = kinds[m->regs[i].kind <= VPMU_REG_MISC ? m->regs[i].kind : 0];
	return 0;
}

int vpmu_model_event(const char *name, unsigned i, uint32_t *code, uint32_t *match,
		     const char **event_name, int *generic)
{
	const struct vpmu_model *m = vpmu_model_find(name);
	if (!m || i >= m->nr_events)
		return -ENOENT;
	if (code)
		*code = m->events[i].code;
	if (match)
		*match = m->events[i].match;
	if (event_name)
		*event_name = m->events[i].name;
	if (generic)
		*generic = m->events[i].generic;
	return 0;
}

int vpmu_model_rule(const char *name, unsigned i, const char **rule_name, const char **text)
{
	const struct vpmu_model *m = vpmu_model_find(name);
	if (!m || i >= m->nr_rules)
		return -ENOENT;
	if (rule_name)
		*rule_name = m->rules[i].name;
	if (text)
		*text = m->rules[i].text;
	return 0;
}

int vpmu_model_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			  unsigned *priv, bool *interrupt)
{
	unsigned p = 0;
	bool irq = false;
	int ev = VPMU_EV_NONE;
	if (m && ctrl && pmc < m->nr_ctrs && m->decode_ctr)
		ev = m->decode_ctr(ctrl, pmc, &p, &irq);
	if (priv)
		*priv = p;
	if (interrupt)
		*interrupt = irq;
	return ev;
}

int vpmu_model_event_lookup(const struct vpmu_model *m, uint64_t evntsel)
{
	for (unsigned i = 0; i < m->nr_events; i++)
		if ((evntsel & m->events[i].match) == m->events[i].code)
			return m->events[i].generic;
	return VPMU_EV_NONE;
}

unsigned vpmu_model_ctr_width(const struct vpmu_model *m) { return m->ctr_width; }
unsigned vpmu_model_nr_ctrs(const struct vpmu_model *m) { return m->nr_ctrs; }

const struct vpmu_reg *vpmu_model_reg_find(const struct vpmu_model *m, enum vpmu_regspace space,
					  uint32_t addr)
{
	/* Tables are short (at most ~90 entries on P4) and sorted by (space, addr).
	 * Every guest access starts here: (space, addr) compared as one 64-bit key
	 * orders the same way and costs one compare per step (docs/performance.md). */
	uint64_t key = (uint64_t)space << 32 | addr;
	if (m->nr_regs <= 8) {
		for (unsigned i = 0; i < m->nr_regs; i++)
			if (m->regs[i].addr == addr && m->regs[i].space == space)
				return &m->regs[i];
		return NULL;
	}
	unsigned lo = 0, hi = m->nr_regs;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		const struct vpmu_reg *r = &m->regs[mid];
		uint64_t k = (uint64_t)r->space << 32 | r->addr;
		if (k == key)
			return r;
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---------------------------------------------------------------- VMs */

void vpmu_vm_identity(const struct vpmu_vm *vm, const char **vendor, unsigned *family,
		      unsigned *cpumodel, unsigned *stepping)
{
	*vendor = vm->model->vendor;
	*family = vm->opts.family;
	*cpumodel = vm->opts.cpumodel;
	*stepping = vm->opts.stepping;
}

struct vpmu_vm *vpmu_vcpu_vm(const struct vpmu_vcpu *vcpu) { return vcpu->vm; }
unsigned vpmu_vcpu_index(const struct vpmu_vcpu *vcpu) { return vcpu->index; }

bool vpmu_vm_lvtpc_automask(const struct vpmu_vm *vm)
{
	return identity_automasks(vm->model, vm->opts.family, vm->opts.cpumodel);
}

const char *vpmu_vm_model(const struct vpmu_vm *vm) { return vm ? vm->model->name : NULL; }

const char *vpmu_vm_rule_name(const struct vpmu_vm *vm, unsigned rule)
{
	if (!vm || rule >= vm->model->nr_rules)
		return NULL;
	return vm->model->rules[rule].name;
}

int vpmu_vm_create(struct vpmu_host *host, const struct vpmu_vm_config *cfg,
		   struct vpmu_vm **out)
{
	if (!host || !cfg || !out)
		return -EINVAL;
	const struct vpmu_model *m = vpmu_model_find(cfg->model);
	if (!m)
		return -ENOENT;
	if (cfg->flags & ~VPMU_VM_STRICT)
		return -EINVAL;
	if (cfg->cpumodel < -1 || cfg->cpumodel > 255 || cfg->stepping < -1 || cfg->stepping > 15)
		return -EINVAL;
	/* Hyper-threading exists only on the P4 (seed 000, "Intel P4"). */
	if (cfg->ht && strcmp(m->name, "p4") != 0)
		return -EINVAL;
	struct vpmu_vm *vm = calloc(1, sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	vm->host = host;
	vm->model = m;
	vm->opts.family = m->family;
	vm->opts.cpumodel = cfg->cpumodel >= 0 ? (unsigned)cfg->cpumodel : m->cpumodel;
	vm->opts.stepping = cfg->stepping >= 0 ? (unsigned)cfg->stepping : m->stepping;
	vm->opts.ht = cfg->ht != 0;
	vm->opts.strict = (cfg->flags & VPMU_VM_STRICT) != 0;
	vm->uid = __atomic_fetch_add(&next_vm_uid, 1, __ATOMIC_RELAXED);
	/* Models own at most ~90 registers (P4): the table stays under half full. */
	for (unsigned i = 0; i < m->nr_regs && i < VPMU_REG_HASH_SIZE / 2; i++) {
		unsigned h = vpmu_reg_hash(m->regs[i].addr);
		while (vm->reg_hash[h])
			h = (h + 1) % VPMU_REG_HASH_SIZE;
		vm->reg_hash[h] = (uint8_t)(i + 1);
	}
	*out = vm;
	return 0;
}

void vpmu_vm_destroy(struct vpmu_vm *vm)
{
	if (!vm)
		return;
	for (unsigned i = 0; i < VPMU_MAX_VCPUS; i++) {
		struct vpmu_vcpu *v = vm->vcpu[i];
		if (!v)
			continue;
		if (v->cpu >= 0)
			vpmu_vcpu_switch_out(v);
		free(v);
	}
	free(vm);
}

bool vpmu_vm_owns_reg(const struct vpmu_vm *vm, enum vpmu_regspace space, uint32_t reg)
{
	return vm && vpmu_model_reg_find(vm->model, space, reg) != NULL;
}

unsigned vpmu_vm_regs(const struct vpmu_vm *vm, enum vpmu_regspace space, uint32_t *regs,
		      unsigned max)
{
	unsigned n = 0;
	if (!vm)
		return 0;
	for (unsigned i = 0; i < vm->model->nr_regs; i++) {
		if (vm->model->regs[i].space != space)
			continue;
		if (regs && n < max)
			regs[n] = vm->model->regs[i].addr;
		n++;
	}
	return n;
}

/* ---------------------------------------------------------------- vCPUs */

uint64_t vpmu_ctl_id(const struct vpmu_vm *vm, const struct vpmu_ctl *ctl)
{
	/* Content-addressed (decision 3): equal controls of one VM share an id, the
	 * VM's uid as seed keeps two VMs apart.  0 and all-ones are reserved for the
	 * cache's "cleared" and "unknown" states (facts 1d). */
	uint64_t id = XXH3_64bits_withSeed(ctl, vpmu_ctl_len(vpmu_ctl_n(ctl)), vm->uid);
	if (id == 0 || id == ~0ull)
		id = 0x9e3779b97f4a7c15ull ^ vm->uid;
	return id;
}

int vpmu_vcpu_create(struct vpmu_vm *vm, unsigned index, struct vpmu_vcpu **out)
{
	if (!vm || index >= VPMU_MAX_VCPUS)
		return -EINVAL;
	if (vm->vcpu[index])
		return -EEXIST;
	struct vpmu_vcpu *v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	const struct vpmu_model *m = vm->model;
	v->vm = vm;
	v->host = vm->host;
	v->model = m;
	v->bops = vm->host->backend.ops;
	v->run_begin = v->bops->run_begin;
	v->run_end = v->bops->run_end;
	v->bctx = vm->host->backend.ctx;
	v->width_mask = vpmu_width_mask(m->ctr_width);
	v->index = index;
	v->cpu = -1;
	memset(v->vidx, -1, sizeof(v->vidx));  /* no counter is in the (empty) control */
	/* misc_reset holds one value per MISC register index the model declares. */
	for (unsigned i = 0; m->misc_reset && i < m->nr_regs; i++)
		if (m->regs[i].kind == VPMU_REG_MISC)
			v->regs.misc[m->regs[i].index] = m->misc_reset[m->regs[i].index];
	struct vpmu_ctl ctl;
	memset(&ctl, 0, sizeof(ctl));
	m->derive(&vm->opts, &v->regs, &ctl);
	vpmu_vcpu_set_control(v, &ctl);
	vm->vcpu[index] = v;
	if (out)
		*out = v;
	return 0;
}

struct vpmu_vcpu *vpmu_vcpu_get(struct vpmu_vm *vm, unsigned index)
{
	return vm && index < VPMU_MAX_VCPUS ? vm->vcpu[index] : NULL;
}

bool vpmu_vcpu_running(const struct vpmu_vcpu *v, unsigned *host_cpu)
{
	if (!v || v->cpu < 0)
		return false;
	if (host_cpu)
		*host_cpu = (unsigned)v->cpu;
	return true;
}

uint64_t vpmu_vcpu_control_id(const struct vpmu_vcpu *v)
{
	if (!v)
		return 0;
	return v->id_valid ? v->id : vpmu_ctl_id(v->vm, &v->ctl);
}

bool vpmu_vcpu_pmi_pending(const struct vpmu_vcpu *v, uint64_t *ovf_mask)
{
	if (!v)
		return false;
	if (ovf_mask)
		*ovf_mask = v->ovf_mask;
	return v->pmi_pending;
}

uint64_t vpmu_vcpu_pmi_ack(struct vpmu_vcpu *v)
{
	if (!v)
		return 0;
	uint64_t m = v->ovf_mask;
	v->ovf_mask = 0;
	v->pmi_pending = false;
	return m;
}

/* ---------------------------------------------------------------- names */

static const char *const event_names[VPMU_EV_NR] = {
	"cycles", "instructions", "ref-cycles", "bus-cycles",
	"branches", "branch-misses", "cache-references", "cache-misses",
};

const char *vpmu_event_name(enum vpmu_event ev)
{
	return (unsigned)ev < VPMU_EV_NR ? event_names[ev] : "none";
}

int vpmu_event_from_name(const char *name)
{
	for (int i = 0; name && i < VPMU_EV_NR; i++)
		if (strcmp(event_names[i], name) == 0)
			return i;
	return -1;
}

const char *vpmu_fault_name(enum vpmu_fault f)
{
	switch (f) {
	case VPMU_FAULT_NONE: return "none";
	case VPMU_FAULT_NO_REG: return "no-such-register";
	case VPMU_FAULT_RESERVED: return "reserved-bits";
	case VPMU_FAULT_READ_ONLY: return "read-only";
	case VPMU_FAULT_STRICT: return "strict-rule";
	}
	return "?";
}
