/* SPDX-License-Identifier: MIT */
/*
 * libvpmu core: hosts, VMs, vCPUs, their lifetimes, and overflow interrupts.
 * The register-access path is access.c; switching is switch.c.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_state.h"
#include "vm_glue.h"

static uint64_t next_vm_uid = 1;

static void index_add(struct vpmu_reg_index *rix, uint32_t addr, unsigned i)
{
	unsigned h = vpmu_reg_hash(addr);
	while (rix->idx[h])
		h = (h + 1) % VPMU_REG_HASH_SIZE;
	rix->idx[h] = (uint8_t)(i + 1);
	rix->addr[h] = addr;
}

/*
 * Live handles.  Destroying a VM twice, or a host or VM the library never made,
 * must be refused rather than become a use-after-free, and that can only be told
 * without dereferencing the pointer.  Creation and destruction are rare (the VMM
 * serialises them, vpmu.h), so a small locked list is enough.
 */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static const void **live;
static size_t nr_live, cap_live;

static int live_add(const void *p)
{
	int r = 0;
	pthread_mutex_lock(&live_lock);
	if (nr_live == cap_live) {
		size_t cap = cap_live ? 2 * cap_live : 16;
		const void **n = realloc(live, cap * sizeof(*n));
		if (!n)
			r = -ENOMEM;
		else
			live = n, cap_live = cap;
	}
	if (!r)
		live[nr_live++] = p;
	pthread_mutex_unlock(&live_lock);
	return r;
}

/* Removes p if it is alive; false if it is not. */
static bool live_remove(const void *p)
{
	bool found = false;
	pthread_mutex_lock(&live_lock);
	for (size_t i = 0; i < nr_live; i++)
		if (live[i] == p) {
			live[i] = live[--nr_live];
			found = true;
			break;
		}
	if (!nr_live) {
		free(live);
		live = NULL;
		cap_live = 0;
	}
	pthread_mutex_unlock(&live_lock);
	return found;
}

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
	if (!h->cpu || live_add(h) < 0) {
		free(h->cpu);
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

int vpmu_host_destroy(struct vpmu_host *host)
{
	if (!host)
		return 0;
	pthread_mutex_lock(&live_lock);
	bool alive = false;
	for (size_t i = 0; i < nr_live && !alive; i++)
		alive = live[i] == host;
	bool busy = alive && host->nr_vms;
	pthread_mutex_unlock(&live_lock);
	if (!alive)
		return -EINVAL;
	if (busy)
		return -EBUSY;
	live_remove(host);
	free(host->cpu);
	free(host);
	return 0;
}

uint64_t vpmu_vcpu_counting(const struct vpmu_vcpu *v)
{
	uint64_t mask = 0;
	if (v)
		for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++)
			mask |= 1ull << v->ctl.ctr[i].pmc;
	return mask;
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
	vpmu_raise_overflows(v, mask);
}

enum vpmu_count_source vpmu_host_event_source(const struct vpmu_host *host, enum vpmu_event ev,
					      const char **why)
{
	const char *w = "no such event";
	enum vpmu_count_source src = VPMU_COUNT_NONE;
	if (host && (unsigned)ev < VPMU_EV_NR) {
		const struct vpmu_backend *b = &host->backend;
		if (b->ops->event_source) {
			src = b->ops->event_source(b->ctx, ev, &w);
		} else {
			src = VPMU_COUNT_SIM;
			w = "counted as the trace's ticks say";
		}
	}
	if (why)
		*why = w;
	return src;
}

int vpmu_vm_event_sources(const struct vpmu_vm *vm, struct vpmu_event_source *out, unsigned max)
{
	if (!vm || (!out && max))
		return -EINVAL;
	const struct vpmu_backend *b = &vm->host->backend;
	const char *table = vpmu_pmu_event_table(&vm->pmu);
	if (!table || !b->ops->event_sources)
		return 0;
	unsigned n = b->ops->event_sources(b->ctx, table, out, max);
	return n > INT_MAX ? INT_MAX : (int)n;
}

/* ---------------------------------------------------------------- VMs */

int vpmu_vm_cpu(const struct vpmu_vm *vm, struct vpmu_cpu_identity *out)
{
	if (!vm || !out)
		return -EINVAL;
	const struct vpmu_identity *id = &vm->model->id;
	out->vendor = id->vendor;
	out->family = vm->opts.family;
	out->cpumodel = vm->opts.cpumodel;
	out->stepping = vm->opts.stepping;
	/* HTT: a hyper-threaded VM's vCPUs 2k and 2k+1 are one core's threads
	 * (Intel SDM vol. 2A, CPUID leaf 01H: EDX bit 28, EBX[23:16] = 2). */
	out->cpuid1_edx = id->cpuid1_edx | (vm->opts.ht ? 1u << 28 : 0);
	out->cpuid1_ecx = id->cpuid1_ecx;
	out->ext1_edx = id->ext1_edx;
	out->ext1_ecx = id->ext1_ecx;
	out->brand = vm->model->brand;
	return 0;
}

void vpmu_vm_identity(const struct vpmu_vm *vm, const char **vendor, unsigned *family,
		      unsigned *cpumodel, unsigned *stepping)
{
	*vendor = vm->model->id.vendor;
	*family = vm->opts.family;
	*cpumodel = vm->opts.cpumodel;
	*stepping = vm->opts.stepping;
}

struct vpmu_vm *vpmu_vcpu_vm(const struct vpmu_vcpu *vcpu) { return vcpu ? vcpu->vm : NULL; }
unsigned vpmu_vcpu_index(const struct vpmu_vcpu *vcpu) { return vcpu ? vcpu->ctx.vcpu : 0; }

bool vpmu_vm_pmi_automask(const struct vpmu_vm *vm)
{
	return vm && vm->model->ops->pmi_automask &&
	       vm->model->ops->pmi_automask(vm->model, &vm->opts);
}

const char *vpmu_vm_model(const struct vpmu_vm *vm) { return vm ? vm->model->name : NULL; }

const char *vpmu_vm_rule_name(const struct vpmu_vm *vm, unsigned rule)
{
	if (!vm || rule >= vm->model->nr_rules)
		return NULL;
	return vm->model->rules[rule].name;
}

int vpmu_vm_create_model(struct vpmu_host *host, const struct vpmu_model *m,
			 const struct vpmu_vm_config *cfg, struct vpmu_vm **out)
{
	if (!host || !m || !cfg || !out)
		return -EINVAL;
	if (cfg->flags & ~VPMU_VM_STRICT)
		return -EINVAL;
	if (cfg->cpumodel < -1 || cfg->cpumodel > 255 || cfg->stepping < -1 || cfg->stepping > 15)
		return -EINVAL;
	/* Hyper-threading only where the model's CPUs had it (the P4). */
	if (cfg->ht && !(m->caps & VPMU_CAP_HT))
		return -EINVAL;
	if (cfg->pmu_version < -1 || cfg->nr_general < -1 || cfg->nr_fixed < -1)
		return -EINVAL;
	struct vpmu_vm *vm = calloc(1, sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	vm->host = host;
	vm->model = m;
	vm->opts.family = m->id.family;
	vm->opts.cpumodel = cfg->cpumodel >= 0 ? (unsigned)cfg->cpumodel : m->id.cpumodel;
	vm->opts.stepping = cfg->stepping >= 0 ? (unsigned)cfg->stepping : m->id.stepping;
	vm->opts.ht = cfg->ht != 0;
	vm->opts.strict = (cfg->flags & VPMU_VM_STRICT) != 0;
	vm->opts.pmu_version = cfg->pmu_version;
	vm->opts.nr_general = cfg->nr_general;
	vm->opts.nr_fixed = cfg->nr_fixed;
	vm->opts.pmu = &vm->pmu;
	int r = vpmu_pmu_init(&vm->pmu, m, &vm->opts);
	if (r < 0 || live_add(vm) < 0) {
		free(vm);
		return r < 0 ? r : -ENOMEM;
	}
	vm->uid = __atomic_fetch_add(&next_vm_uid, 1, __ATOMIC_RELAXED);
	/* At most half full (checked above): every probe sequence ends at an empty slot. */
	vm->ireset_rule = -1;
	for (unsigned i = 0; i < m->nr_rules && i < VPMU_MAX_RULES; i++)
		if (m->rules[i].core_check == VPMU_RULE_CHECK_IRESET)
			vm->ireset_rule = (int)i;
	for (unsigned i = 0; i < vm->pmu.nr_regs; i++) {
		const struct vpmu_reg *reg = &vm->pmu.regs[i];
		index_add(&vm->rix, reg->addr, i);
		/* The guest's fast paths: neither read hooks nor hidden state. */
		if (!(reg->flags & VPMU_REGF_READ_HOOK) && reg->space != VPMU_SPACE_STATE)
			index_add(&vm->rix_plain, reg->addr, i);
		if (reg->kind == VPMU_REG_CTR && reg->index < vm->pmu.nr_ctrs)
			vm->ctr_regs |= 1ull << reg->index;
	}
	pthread_mutex_lock(&live_lock);
	host->nr_vms++;
	pthread_mutex_unlock(&live_lock);
	*out = vm;
	return 0;
}

int vpmu_vm_create(struct vpmu_host *host, const struct vpmu_vm_config *cfg,
		   struct vpmu_vm **out)
{
	if (!host || !cfg || !out)
		return -EINVAL;
	const struct vpmu_model *m = vpmu_model_find(cfg->model);
	if (!m)
		return -ENOENT;
	return vpmu_vm_create_model(host, m, cfg, out);
}

int vpmu_vm_destroy(struct vpmu_vm *vm)
{
	if (!vm)
		return 0;
	if (!live_remove(vm))
		return -EINVAL;
	for (unsigned i = 0; i < VPMU_MAX_VCPUS; i++) {
		struct vpmu_vcpu *v = vm->vcpu[i];
		if (!v)
			continue;
		if (v->cpu >= 0)
			vpmu_vcpu_switch_out(v);
		free(v->power_on);
		free(v);
	}
	for (unsigned i = 0; i < VPMU_MAX_VCPUS / 2; i++) {
		if (vm->core[i]) {
			pthread_mutex_destroy(&vm->core[i]->lock);
			free(vm->core[i]);
		}
	}
	if (vm->host->backend.ops->forget_pmu)
		vm->host->backend.ops->forget_pmu(vm->host->backend.ctx, &vm->pmu);
	if (vm->glue_free)
		vm->glue_free(vm->glue_data);
	vpmu_filter_free(vm->filter);
	pthread_mutex_lock(&live_lock);
	vm->host->nr_vms--;
	pthread_mutex_unlock(&live_lock);
	free(vm);
	return 0;
}

bool vpmu_vm_owns_reg(const struct vpmu_vm *vm, enum vpmu_regspace space, uint32_t reg)
{
	return vm && vpmu_vm_reg(vm, space, reg) != NULL;
}

unsigned vpmu_vm_regs(const struct vpmu_vm *vm, enum vpmu_regspace space, uint32_t *regs,
		      unsigned max)
{
	unsigned n = 0;
	if (!vm)
		return 0;
	for (unsigned i = 0; i < vm->pmu.nr_regs; i++) {
		if (vm->pmu.regs[i].space != space)
			continue;
		if (regs && n < max)
			regs[n] = vm->pmu.regs[i].addr;
		n++;
	}
	return n;
}

unsigned vpmu_vm_trapped_regs(const struct vpmu_vm *vm, enum vpmu_regspace space, uint32_t *regs,
			      unsigned max)
{
	if (!vm)
		return 0;
	unsigned nu = vpmu_pmu_regs(space, NULL, 0), n = 0;
	uint32_t *all = malloc((nu + vm->pmu.nr_regs + 1) * sizeof(*all));
	if (!all)
		return 0;
	vpmu_pmu_regs(space, all, nu);
	n = nu;
	for (unsigned i = 0; i < vm->pmu.nr_regs; i++)
		if (vm->pmu.regs[i].space == space && (vm->pmu.regs[i].flags & VPMU_REGF_OWN_ONLY))
			all[n++] = vm->pmu.regs[i].addr;
	unsigned u = vpmu_regs_sorted_unique(all, n, regs, max);
	free(all);
	return u;
}

/* ---------------------------------------------------------------- vCPUs */

/* With HT, vCPUs 2k and 2k+1 are threads 0 and 1 of core k and share its file. */
static int attach_core(struct vpmu_vm *vm, struct vpmu_vcpu *v, unsigned index)
{
	struct vpmu_core_regs *c = vm->core[index / 2];
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return -ENOMEM;
		if (pthread_mutex_init(&c->lock, NULL) != 0) {
			free(c);
			return -ENOMEM;
		}
		c->rf = v->own;   /* the reset values */
		vm->core[index / 2] = c;
	}
	c->thread[index % 2] = v;
	v->core = c;
	v->attn = VPMU_ATTN_HT;
	v->rix_read = &vpmu_no_regs;
	v->rf = &c->rf;
	v->base = c->base;
	v->ctx.thread = index % 2;
	return 0;
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
	v->mops = m->ops;
	v->rix = &vm->rix;
	v->rix_read = &vm->rix_plain;
	v->mregs = vm->pmu.regs;
	v->pmu = &vm->pmu;
	v->regspace = (uint8_t)m->regspace;
	v->strict = vm->opts.strict;
	v->bops = vm->host->backend.ops;
	v->enter = v->bops->enter;
	v->poll = v->bops->poll;
	v->bctx = vm->host->backend.ctx;
	v->ctx.vm = &vm->opts;
	v->ctx.vcpu = index;
	v->rf = &v->own;
	v->base = v->own_base;
	v->cpu = -1;
	for (unsigned pmc = 0; pmc < VPMU_MAX_CTRS; pmc++) {
		struct vpmu_counter *c = &v->counter[pmc];
		c->width_mask = vm->pmu.width_mask[pmc];
		c->entry = -1;   /* no counter is in the (empty) control */
		c->event = VPMU_EVENT_UNRESOLVED;
		c->memo.ev[0] = c->memo.ev[1] = VPMU_EVENT_UNRESOLVED;
	}
	memcpy(v->own.misc, vm->pmu.misc_reset, sizeof(v->own.misc));
	v->power_on = calloc(vm->pmu.nr_regs ? vm->pmu.nr_regs : 1, sizeof(*v->power_on));
	if (!v->power_on || (vm->opts.ht && attach_core(vm, v, index) < 0)) {
		free(v->power_on);
		free(v);
		return -ENOMEM;
	}
	if (v->core)
		pthread_mutex_lock(&v->core->lock);
	struct vpmu_ctl ctl;
	memset(&ctl, 0, sizeof(ctl));
	m->ops->derive(m, &v->ctx, v->rf, &ctl);
	v->filter = vm->filter;
	if (v->filter) {
		vpmu_filter_apply(v, &ctl);
		if (!v->core)
			v->rix_read = &vpmu_no_regs;   /* the fast paths never see a filter */
	}
	vpmu_state_set_control(v, &ctl);
	if (v->core)
		pthread_mutex_unlock(&v->core->lock);
	vpmu_reset_record(v);
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

bool vpmu_vcpu_pmi_pending(const struct vpmu_vcpu *v, uint64_t *ovf_mask)
{
	if (!v)
		return false;
	if (ovf_mask)
		*ovf_mask = v->pmi_ctrs;
	return v->pmi_pending;
}

bool vpmu_vcpu_pmi_asserted(struct vpmu_vcpu *v)
{
	if (!v || !v->mops->pmi_asserted)
		return false;
	if (v->core)
		pthread_mutex_lock(&v->core->lock);
	bool a = v->mops->pmi_asserted(v->model, &v->ctx, v->rf);
	if (v->core)
		pthread_mutex_unlock(&v->core->lock);
	return a;
}

uint64_t vpmu_vcpu_pmi_ack(struct vpmu_vcpu *v)
{
	if (!v)
		return 0;
	uint64_t m = v->pmi_ctrs;
	v->pmi_ctrs = 0;
	v->pmi_pending = false;
	return m;
}

void vpmu_vm_glue_attach(struct vpmu_vm *vm, void *data, void (*free_fn)(void *))
{
	if (vm->glue_free)
		vm->glue_free(vm->glue_data);
	vm->glue_data = data;
	vm->glue_free = free_fn;
}

void *vpmu_vm_glue_data(const struct vpmu_vm *vm)
{
	return vm->glue_data;
}

