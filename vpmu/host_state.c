/* SPDX-License-Identifier: MIT */
/*
 * The out-of-line parts of host_state.h: perfctr's isuspend, iresume and
 * write_control against the per-CPU cache (perfctr low-level-x86.txt
 * "Implementation Notes"; x86.c p6_like_isuspend/iresume/write_control), a
 * counter write, a new control's bookkeeping and its installation, the gates
 * written in place, and the HT siblings' shared counters.
 */
#include <string.h>

#include <xxhash.h>

#include "host_state.h"

/* ---- the content id: what the per-CPU cache knows a control by ---- */

/* The empty register index (core.h vpmu_mark_stale, vpmu_clear_stale): here,
 * below every file that points a vCPU's rix_read at it. */
const struct vpmu_reg_index vpmu_no_regs;   /* every lookup misses */

uint64_t vpmu_ctl_id(const struct vpmu_vm *vm, const struct vpmu_ctl *ctl)
{
	/* Content-addressed (docs/principles.md §3): equal controls of one VM share
	 * an id, the VM's uid as seed keeps two VMs apart.  0 and all-ones are
	 * reserved for the cache's "cleared" and "unknown" states, as in perfctr's
	 * per-CPU cache. */
	uint64_t id = XXH3_64bits_withSeed(ctl, vpmu_ctl_len(vpmu_ctl_n(ctl)), vm->uid);
	if (id == 0 || id == ~0ull)
		id = 0x9e3779b97f4a7c15ull ^ vm->uid;
	return id;
}

uint64_t vpmu_vcpu_control_id(const struct vpmu_vcpu *v)
{
	if (!v)
		return 0;
	return v->id_valid ? v->id : vpmu_ctl_id(v->vm, &v->ctl);
}

/* ---- suspend, resume and the per-CPU cache ---- */

__attribute__((noinline, cold)) void vpmu_backend_poll(struct vpmu_vcpu *v)
{
	v->poll(v->bctx, (unsigned)v->cpu);
}

/* perfctr isuspend: stop each i-mode counter (its control is written to 0 so it
 * neither counts nor interrupts in other contexts) and fold its difference. */
__attribute__((noinline)) void vpmu_state_isuspend(struct vpmu_vcpu *v)
{
	unsigned n = vpmu_ctl_n(&v->ctl);
	v->isuspend_cpu = v->cpu;
	v->cache->isuspend_owner = v;
	for (unsigned i = v->ctl.nractrs; i < n; i++) {
		unsigned pmc = v->ctl.ctr[i].pmc;
		vpmu_host_write_ctrl(v, vpmu_ctr_slot(v->model, pmc), 0);
		v->counter[pmc].start = vpmu_counter_sample(v, pmc);
	}
}

/* perfctr write_control, past the id check: every image that differs from the
 * cache.  A control installed while switched in has no id yet (it is hashed at
 * switch-out), so the cache records none for it. */
__attribute__((noinline)) void vpmu_write_control_images(struct vpmu_vcpu *v)
{
	struct vpmu_cpu_cache *c = v->cache;
	if (v->mops->ctrl_images) {
		struct vpmu_ctrl_image img[VPMU_MAX_CTRL_SLOTS];
		unsigned k = v->mops->ctrl_images(v->model, &v->ctl, img);
		for (unsigned j = 0; j < k; j++)
			if (c->ctrl[img[j].slot] != img[j].value)
				vpmu_host_write_ctrl(v, img[j].slot, img[j].value);
	} else {
		/* The default images: each counter's evntsel in control slot pmc. */
		for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++) {
			const struct vpmu_ctl_ctr *e = &v->ctl.ctr[i];
			if (c->ctrl[e->pmc] != e->evntsel)
				vpmu_host_write_ctrl(v, e->pmc, e->evntsel);
		}
	}
	c->id = v->id_valid ? v->id : ~0ull;
}

/* Another model's images are not comparable with ours: forget them. */
__attribute__((noinline, cold)) void vpmu_cache_take_over(struct vpmu_cpu_cache *c,
							  const struct vpmu_model *m)
{
	memset(c->ctrl, 0xff, sizeof(c->ctrl));
	c->id = ~0ull;
	c->isuspend_owner = NULL;
	c->model = m;
}

/* perfctr iresume: on an id match the cache id is cleared (write_control must
 * restart the controls isuspend stopped) and the counters are still valid if we
 * suspended them here; otherwise each i-mode counter is stopped unless the cache
 * shows it stopped, and restored. */
__attribute__((noinline)) void vpmu_state_iresume(struct vpmu_vcpu *v)
{
	struct vpmu_cpu_cache *c = v->cache;
	if (v->id_valid && c->id == v->id) {
		c->id = 0;
		/* perfctr trusts isuspend_cpu alone because its ids are unique per
		 * state; content ids are shared by equal controls, so the counter
		 * registers are ours only if we were the last to suspend here. */
		if (v->isuspend_cpu == v->cpu && c->isuspend_owner == v)
			return;
	}
	for (unsigned i = v->ctl.nractrs; i < vpmu_ctl_n(&v->ctl); i++) {
		unsigned pmc = v->ctl.ctr[i].pmc, slot = vpmu_ctr_slot(v->model, pmc);
		struct vpmu_counter *k = &v->counter[pmc];
		if (c->ctrl[slot] != 0)
			vpmu_host_write_ctrl(v, slot, 0);
		uint64_t val = (vpmu_base(v, pmc) + k->sum) & k->width_mask;
		vpmu_host_write_ctr(v, pmc, val);
		k->start = val;
	}
}

void vpmu_counter_set(struct vpmu_vcpu *v, unsigned pmc, uint64_t value)
{
	struct vpmu_counter *c = &v->counter[pmc];
	if (v->core) {
		/* The sibling's count so far in this counter was before the write. */
		v->core->written[v->ctx.thread ^ 1] |= 1ull << pmc;
	}
	if (c->entry < 0) {
		vpmu_base_set(v, pmc, value);
		return;
	}
	bool imode = vpmu_counter_imode(v, c);
	if (v->cpu >= 0) {
		if (imode)
			vpmu_land_overflows(v);
		uint64_t now = vpmu_counter_sample(v, pmc);
		if (imode) {
			vpmu_host_write_ctr(v, pmc, value);
			now = value;
		}
		c->start = now;
	} else if (imode) {
		v->isuspend_cpu = -1;
	}
	vpmu_counter_fold(v, pmc);
	vpmu_base_set(v, pmc, value);
}

void vpmu_ht_sync(struct vpmu_vcpu *v, bool fold_all)
{
	struct vpmu_core_regs *core = v->core;
	unsigned t = v->ctx.thread;
	uint64_t written = core->written[t];
	bool fold = fold_all || core->fold_req[t];
	if (!written && !fold)
		return;
	core->written[t] = 0;
	core->fold_req[t] = false;
	for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++) {
		unsigned pmc = v->ctl.ctr[i].pmc;
		bool drop = (written >> pmc) & 1, imode = i >= v->ctl.nractrs;
		if (!drop && !fold)
			continue;
		if (v->cpu >= 0) {
			uint64_t now = vpmu_counter_sample(v, pmc);
			if (drop && imode) {
				/* It interrupts from the value written. */
				now = vpmu_base(v, pmc);
				vpmu_host_write_ctr(v, pmc, now);
			}
			v->counter[pmc].start = now;
		} else if (drop && imode) {
			v->isuspend_cpu = -1;   /* reload it at the next resume */
		}
		vpmu_counter_fold_sum(v, pmc, drop);
	}
}

void vpmu_state_set_control(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl)
{
	unsigned n = vpmu_ctl_n(ctl);
	for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++)
		v->counter[v->ctl.ctr[i].pmc].entry = -1;
	v->ctl.nractrs = ctl->nractrs;
	v->ctl.nrictrs = ctl->nrictrs;
	/* The globals past the model's stay 0 (the content id hashes all four). */
	for (unsigned k = 0; k < v->model->nr_globals; k++)
		v->ctl.global[k] = ctl->global[k];
	for (unsigned i = 0; i < n; i++) {
		struct vpmu_counter *c = &v->counter[ctl->ctr[i].pmc];
		v->ctl.ctr[i] = ctl->ctr[i];
		c->entry = (int8_t)i;
		c->sum = 0;
		c->start = 0;
		c->event = VPMU_EVENT_UNRESOLVED;
	}
	v->id_valid = false;
	/* Counter registers of i-mode counters must be (re)loaded at the next resume. */
	v->isuspend_cpu = -1;
}

/* A running vCPU is suspended and resumed around the change, as perfctr's
 * vperfctr control update does. */
void vpmu_state_install(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl)
{
	bool running = v->cpu >= 0;
	if (running) {
		vpmu_land_overflows(v);
		vpmu_state_suspend(v);
	}
	for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++)
		vpmu_counter_fold(v, v->ctl.ctr[i].pmc);
	vpmu_state_set_control(v, ctl);
	if (running)
		vpmu_state_resume(v);
}

/* A running vCPU whose control changes only in its globals, on a model whose
 * globals gate counting in the host images (VPMU_CAP_GLOBAL_GATE): the images
 * that changed are written in place; every counter's difference runs on (a
 * gated counter's host count stands still). */
__attribute__((noinline)) void vpmu_state_regate(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl)
{
	for (unsigned k = 0; k < v->model->nr_globals; k++) {
		uint64_t g = ctl->global[k];
		unsigned slot = v->model->global_slot[k];
		v->ctl.global[k] = g;
		if (v->cache->ctrl[slot] != g)
			vpmu_host_write_ctrl(v, slot, g);
	}
	v->id_valid = false;
	v->cache->id = ~0ull;   /* what write_control records for an unhashed control */
}
