/* SPDX-License-Identifier: MIT */
/*
 * Switching a vCPU in and out of a host CPU: perfctr's suspend/resume with the
 * per-CPU control cache (seed 000 "Implementation Notes / Caching"; facts 1d),
 * and the accumulate-differences counter state.
 *
 * Counter bookkeeping: a guest counter in the control reads
 *     base[pmc] + pmc[i].sum (+ the live difference while switched in)
 * masked to the model's width.  Differences are taken on the low 32 bits of host
 * reads only (facts 1e), so a-mode counters never need a host counter write.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "vpmu/perfctr.h"

static inline struct vpmu_cpu_cache *vcpu_cache(const struct vpmu_vcpu *v)
{
	return &v->vm->host->cpu[v->cpu];
}

static inline uint32_t host_read32(const struct vpmu_vcpu *v, unsigned pmc)
{
	const struct vpmu_backend *b = &v->vm->host->backend;
	return (uint32_t)b->ops->read_ctr(b->ctx, (unsigned)v->cpu, v->vm->model, pmc);
}

static inline void host_write_ctrl(struct vpmu_vcpu *v, unsigned slot, uint64_t val)
{
	const struct vpmu_backend *b = &v->vm->host->backend;
	b->ops->write_ctrl(b->ctx, (unsigned)v->cpu, v->vm->model, slot, val);
	vcpu_cache(v)->ctrl[slot] = val;
}

static inline void host_write_ctr(struct vpmu_vcpu *v, unsigned pmc, uint64_t val)
{
	const struct vpmu_backend *b = &v->vm->host->backend;
	b->ops->write_ctr(b->ctx, (unsigned)v->cpu, v->vm->model, pmc, val);
}

static inline void account(struct vpmu_vcpu *v, unsigned i, uint32_t delta)
{
	v->pmc[i].sum += delta;
	v->totals.pmc[v->ctl.ctr[i].pmc] += delta;
	if (v->event[i] >= 0)
		v->totals.events[v->event[i]] += delta;
}

/* perfctr isuspend + a-mode read: stop i-mode counters (their control is written
 * to 0 so they neither count nor interrupt in other contexts) and fold every
 * counter's difference into its sum. */
void vpmu_state_suspend(struct vpmu_vcpu *v)
{
	struct vpmu_cpu_cache *c = vcpu_cache(v);
	const struct vpmu_model *m = v->vm->model;
	unsigned nra = v->ctl.nractrs, n = vpmu_ctl_n(&v->ctl);
	if (v->ctl.nrictrs) {
		v->isuspend_cpu = v->cpu;
		c->isuspend_owner = v;
		for (unsigned i = nra; i < n; i++) {
			unsigned pmc = v->ctl.ctr[i].pmc;
			host_write_ctrl(v, m->ctr_ctrl_slot[pmc], 0);
			uint32_t now = host_read32(v, pmc);
			account(v, i, now - v->pmc[i].start);
			v->pmc[i].start = now;
		}
	}
	for (unsigned i = 0; i < nra; i++)
		account(v, i, host_read32(v, v->ctl.ctr[i].pmc) - v->pmc[i].start);
}

/* perfctr sample: fold a-mode differences and restart them from now. */
void vpmu_state_sample(struct vpmu_vcpu *v)
{
	for (unsigned i = 0; i < v->ctl.nractrs; i++) {
		uint32_t now = host_read32(v, v->ctl.ctr[i].pmc);
		account(v, i, now - v->pmc[i].start);
		v->pmc[i].start = now;
	}
}

/* perfctr iresume + write_control + a-mode start. */
void vpmu_state_resume(struct vpmu_vcpu *v)
{
	struct vpmu_cpu_cache *c = vcpu_cache(v);
	const struct vpmu_model *m = v->vm->model;
	unsigned nra = v->ctl.nractrs, n = vpmu_ctl_n(&v->ctl);

	if (c->model != m) {
		/* Another model's images are not comparable with ours. */
		memset(c->ctrl, 0xff, sizeof(c->ctrl));
		c->id = ~0ull;
		c->isuspend_owner = NULL;
		c->model = m;
	}
	if (v->ctl.nrictrs) {
		bool valid = false;
		if (c->id == v->id) {
			c->id = 0; /* force write_control to restart the stopped controls */
			/* perfctr trusts isuspend_cpu alone because its ids are unique per
			 * state; content ids are shared by equal controls, so the counter
			 * registers are ours only if we were the last to suspend here. */
			valid = v->isuspend_cpu == v->cpu && c->isuspend_owner == v;
		}
		if (!valid) {
			uint64_t mask = vpmu_width_mask(m->ctr_width);
			for (unsigned i = nra; i < n; i++) {
				unsigned pmc = v->ctl.ctr[i].pmc, slot = m->ctr_ctrl_slot[pmc];
				if (c->ctrl[slot] != 0)
					host_write_ctrl(v, slot, 0);
				uint64_t val = (v->base[pmc] + v->pmc[i].sum) & mask;
				host_write_ctr(v, pmc, val);
				v->pmc[i].start = (uint32_t)val;
			}
		}
	}
	if (c->id != v->id) {
		struct vpmu_ctrl_image img[VPMU_MAX_CTRL_SLOTS];
		unsigned k = m->ctrl_images(&v->ctl, img);
		for (unsigned j = 0; j < k; j++)
			if (c->ctrl[img[j].slot] != img[j].value)
				host_write_ctrl(v, img[j].slot, img[j].value);
		c->id = v->id;
	}
	for (unsigned i = 0; i < nra; i++)
		v->pmc[i].start = host_read32(v, v->ctl.ctr[i].pmc);
}

uint64_t vpmu_ctr_value(struct vpmu_vcpu *v, unsigned pmc)
{
	int i = v->vidx[pmc];
	if (i < 0)
		return v->base[pmc];
	uint64_t delta = v->pmc[i].sum;
	if (v->cpu >= 0)
		delta += (uint32_t)(host_read32(v, pmc) - v->pmc[i].start);
	return (v->base[pmc] + delta) & vpmu_width_mask(v->vm->model->ctr_width);
}

/* A guest write to a counter.  a-mode: restart the difference (no host write);
 * i-mode while running: the host counter must hold the value so that it
 * overflows where the guest expects. */
void vpmu_ctr_set(struct vpmu_vcpu *v, unsigned pmc, uint64_t value)
{
	int i = v->vidx[pmc];
	v->base[pmc] = value;
	if (i < 0)
		return;
	if (v->cpu >= 0) {
		uint32_t now = host_read32(v, pmc);
		account(v, (unsigned)i, now - v->pmc[i].start);
		if ((unsigned)i >= v->ctl.nractrs) {
			host_write_ctr(v, pmc, value);
			now = (uint32_t)value;
		}
		v->pmc[i].start = now;
	} else if ((unsigned)i >= v->ctl.nractrs) {
		v->isuspend_cpu = -1;
	}
	v->pmc[i].sum = 0;
}

int vpmu_vcpu_switch_in(struct vpmu_vcpu *v, unsigned host_cpu)
{
	if (!v || host_cpu >= v->vm->host->nr_cpus)
		return -EINVAL;
	if (v->cpu >= 0)
		return -EBUSY;
	struct vpmu_cpu_cache *c = &v->vm->host->cpu[host_cpu];
	if (c->running)
		return -EBUSY;
	c->running = v;
	v->cpu = (int)host_cpu;
	v->totals.switch_ins++;
	if (c->id == v->id && c->model == v->vm->model)
		v->totals.cache_hits++;
	vpmu_state_resume(v);
	return 0;
}

int vpmu_vcpu_switch_out(struct vpmu_vcpu *v)
{
	if (!v || v->cpu < 0)
		return -EINVAL;
	vpmu_state_suspend(v);
	vcpu_cache(v)->running = NULL;
	v->cpu = -1;
	return 0;
}

int vpmu_vcpu_totals(const struct vpmu_vcpu *v, struct vpmu_totals *out)
{
	if (!v || !out)
		return -EINVAL;
	*out = v->totals;
	if (v->cpu < 0)
		return 0;
	/* Add the live differences without disturbing the state. */
	for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++) {
		unsigned pmc = v->ctl.ctr[i].pmc;
		uint32_t d = host_read32(v, pmc) - v->pmc[i].start;
		out->pmc[pmc] += d;
		if (v->event[i] >= 0)
			out->events[v->event[i]] += d;
	}
	return 0;
}

int vpmu_vm_totals(const struct vpmu_vm *vm, struct vpmu_totals *out)
{
	if (!vm || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (unsigned k = 0; k < VPMU_MAX_VCPUS; k++) {
		struct vpmu_totals t;
		if (!vm->vcpu[k] || vpmu_vcpu_totals(vm->vcpu[k], &t))
			continue;
		uint64_t *dst = (uint64_t *)out;
		const uint64_t *src = (const uint64_t *)&t;
		for (size_t j = 0; j < sizeof(t) / sizeof(uint64_t); j++)
			dst[j] += src[j];
	}
	return 0;
}

int vpmu_vcpu_perfctr_x86(const struct vpmu_vcpu *v, struct perfctr_cpu_state *out)
{
	if (!v || !out || v->vm->model->regspace != VPMU_SPACE_MSR)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	const struct vpmu_ctl *c = &v->ctl;
	unsigned n = vpmu_ctl_n(c);
	out->control.nractrs = c->nractrs;
	out->control.nrictrs = c->nrictrs;
	out->control.p4.pebs_enable = (unsigned)c->global[0];
	out->control.p4.pebs_matrix_vert = (unsigned)c->global[1];
	for (unsigned i = 0; i < n; i++) {
		out->control.pmc_map[i] = c->ctr[i].pmc;
		out->control.evntsel[i] = (unsigned)c->ctr[i].evntsel;
		out->control.p4.escr[i] = (unsigned)c->ctr[i].aux;
		out->control.ireset[i] = i >= c->nractrs ? (int)(uint32_t)c->ctr[i].ireset : 0;
		out->p4_escr_map[i] = c->ctr[i].aux_slot;
		out->pmc[i].map = c->ctr[i].pmc;
		out->pmc[i].start = v->pmc[i].start;
		out->pmc[i].sum = v->pmc[i].sum;
	}
	out->cstatus = perfctr_mk_cstatus(0, c->nractrs, c->nrictrs);
	out->k1.id = (unsigned)v->id;
	out->k1.isuspend_cpu = v->isuspend_cpu;
	return 0;
}

int vpmu_vcpu_perfctr_ppc32(const struct vpmu_vcpu *v, struct perfctr_ppc32_cpu_state *out)
{
	if (!v || !out || v->vm->model->regspace != VPMU_SPACE_SPR)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	const struct vpmu_ctl *c = &v->ctl;
	unsigned n = vpmu_ctl_n(c);
	if (n > 8)
		return -EINVAL;
	out->control.nractrs = c->nractrs;
	out->control.nrictrs = c->nrictrs;
	out->control.ppc.mmcr0 = (unsigned)c->global[0];
	out->control.ppc.mmcr2 = (unsigned)c->global[2];
	for (unsigned k = 0; k < 3; k++)
		out->ppc_mmcr[k] = (unsigned)c->global[k];
	for (unsigned i = 0; i < n; i++) {
		out->control.pmc_map[i] = c->ctr[i].pmc;
		out->control.evntsel[i] = (unsigned)c->ctr[i].evntsel;
		out->control.ireset[i] = i >= c->nractrs ? (int)(uint32_t)c->ctr[i].ireset : 0;
		out->pmc[i].map = c->ctr[i].pmc;
		out->pmc[i].start = v->pmc[i].start;
		out->pmc[i].sum = v->pmc[i].sum;
	}
	out->cstatus = perfctr_mk_cstatus(0, c->nractrs, c->nrictrs);
	out->k1.id = (unsigned)v->id;
	out->k1.isuspend_cpu = v->isuspend_cpu;
	return 0;
}
