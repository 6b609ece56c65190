/* SPDX-License-Identifier: MIT */
/*
 * Switching a vCPU in and out of a host CPU: perfctr's suspend/resume with the
 * per-CPU control cache (perfctr low-level-x86.txt "Implementation Notes"; perfctr
 * x86.c p6_like_isuspend/iresume/write_control), and the accumulate-differences
 * counter state.
 *
 * Counter bookkeeping: a guest counter in the control reads
 *     base[pmc] + pmc[i].sum (+ the live difference while switched in)
 * masked to the model's width.  Differences of host reads are taken at the
 * backend's width, 64 bits (backend.h): perfctr takes them on the low 32 bits of
 * rdpmc because its driver samples the counters at every context switch and
 * timer tick, but a vCPU may stay switched in for as long as it runs, and a
 * 32-bit difference would lose 2^32 events each time the low half wraps.  A-mode
 * counters still never need a host counter write.
 * The accounting totals take a counter's sum when it is folded into base (the
 * control changes, or the guest writes the counter): the switch path only adds.
 */
#include <errno.h>
#include <string.h>

#include "core.h"



/* perfctr isuspend: stop each i-mode counter (its control is written to 0 so it
 * neither counts nor interrupts in other contexts) and fold its difference. */
static __attribute__((noinline)) void isuspend(struct vpmu_vcpu *v)
{
	unsigned n = vpmu_ctl_n(&v->ctl);
	v->isuspend_cpu = v->cpu;
	v->cache->isuspend_owner = v;
	for (unsigned i = v->ctl.nractrs; i < n; i++) {
		unsigned pmc = v->ctl.ctr[i].pmc;
		vpmu_host_write_ctrl(v, vpmu_ctr_slot(v->model, pmc), 0);
		v->pmc[i].start = vpmu_counter_sample(v, i);
	}
}

/* perfctr suspend: isuspend, then the a-mode counters' differences. */
static inline void state_suspend(struct vpmu_vcpu *v)
{
	if (v->ctl.nrictrs)
		isuspend(v);
	for (unsigned i = 0; i < v->ctl.nractrs; i++)
		vpmu_counter_sample(v, i);
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

static inline void write_control(struct vpmu_vcpu *v)
{
	if (!v->id_valid || v->cache->id != v->id)
		vpmu_write_control_images(v);
}

/* Another model's images are not comparable with ours: forget them. */
static __attribute__((noinline)) void cache_take_over(struct vpmu_cpu_cache *c,
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
static __attribute__((noinline)) void iresume(struct vpmu_vcpu *v)
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
		if (c->ctrl[slot] != 0)
			vpmu_host_write_ctrl(v, slot, 0);
		uint64_t val = (vpmu_base(v, pmc) + v->pmc[i].sum) & v->width_mask[pmc];
		vpmu_host_write_ctr(v, pmc, val);
		v->pmc[i].start = val;
	}
}

/* perfctr resume: iresume, write_control, then the a-mode start values. */
static inline void state_resume(struct vpmu_vcpu *v)
{
	if (__builtin_expect(v->cache->model != v->model, 0))
		cache_take_over(v->cache, v->model);
	if (v->ctl.nrictrs)
		iresume(v);
	write_control(v);
	for (unsigned i = 0; i < v->ctl.nractrs; i++)
		v->pmc[i].start = vpmu_host_read(v, v->ctl.ctr[i].pmc);
}

/* The backend's poll hook (backend.h), out of line: the sim has none, and the
 * cache-hit switch pair is the hottest path of all (docs/performance.md). */
static __attribute__((noinline, cold)) void backend_poll(struct vpmu_vcpu *v)
{
	v->poll(v->bctx, (unsigned)v->cpu);
}

/* What counted since the last poll, overflows included, lands before the core
 * reads or rewrites an interrupting counter: an overflow the host has not
 * signalled yet (its signal is on the way, or the VMM's own time pushed the
 * counter past it) would otherwise vanish under the new value or control. */
static inline void land_overflows(struct vpmu_vcpu *v)
{
	if (__builtin_expect(v->poll != NULL, 0))
		backend_poll(v);
}

void vpmu_counter_fold(struct vpmu_vcpu *v, unsigned i) { vpmu_fold(v, i); }
void vpmu_state_suspend(struct vpmu_vcpu *v)
{
	land_overflows(v);
	state_suspend(v);
}
void vpmu_state_resume(struct vpmu_vcpu *v) { state_resume(v); }

/* A guest write to a counter.  a-mode: restart the difference (no host write);
 * i-mode while running: the host counter must hold the value so that it
 * overflows where the guest expects. */
void vpmu_ctr_set(struct vpmu_vcpu *v, unsigned pmc, uint64_t value)
{
	int i = v->vidx[pmc];
	if (v->core) {
		/* The sibling's count so far in this counter was before the write. */
		v->core->written[v->ctx.thread ^ 1] |= 1ull << pmc;
	}
	if (i < 0) {
		vpmu_base_set(v, pmc, value);
		return;
	}
	if (v->cpu >= 0) {
		if ((unsigned)i >= v->ctl.nractrs)
			land_overflows(v);
		uint64_t now = vpmu_counter_sample(v, (unsigned)i);
		if ((unsigned)i >= v->ctl.nractrs) {
			vpmu_host_write_ctr(v, pmc, value);
			now = value;
		}
		v->pmc[i].start = now;
	} else if ((unsigned)i >= v->ctl.nractrs) {
		v->isuspend_cpu = -1;
	}
	vpmu_fold(v, (unsigned)i);
	vpmu_base_set(v, pmc, value);
}

void vpmu_ht_sync(struct vpmu_vcpu *v, bool fold_all)
{
	struct vpmu_core_regs *c = v->core;
	unsigned t = v->ctx.thread;
	uint64_t written = c->written[t];
	bool fold = fold_all || c->fold_req[t];
	if (!written && !fold)
		return;
	c->written[t] = 0;
	c->fold_req[t] = false;
	for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++) {
		unsigned pmc = v->ctl.ctr[i].pmc;
		bool drop = (written >> pmc) & 1, imode = i >= v->ctl.nractrs;
		if (!drop && !fold)
			continue;
		if (v->cpu >= 0) {
			uint64_t now = vpmu_counter_sample(v, i);
			if (drop && imode) {
				/* It interrupts from the value written. */
				now = vpmu_base(v, pmc);
				vpmu_host_write_ctr(v, pmc, now);
			}
			v->pmc[i].start = now;
		} else if (drop && imode) {
			v->isuspend_cpu = -1;   /* reload it at the next resume */
		}
		vpmu_fold_sum(v, i, drop);
	}
}

/* The backend's entry hook (backend.h), out of line like backend_poll. */
static __attribute__((noinline, cold)) void backend_enter(struct vpmu_vcpu *v)
{
	v->enter(v->bctx, (unsigned)v->cpu);
}

/* Work left for before the entry: a control to derive again (an overflow's
 * status, an HT sibling's write), under the core's lock with HT. */
static __attribute__((noinline, cold)) void switch_in_prepare(struct vpmu_vcpu *v)
{
	if (v->core) {
		pthread_mutex_lock(&v->core->lock);
		vpmu_ht_sync(v, false);
	}
	if (vpmu_attn(v) & VPMU_ATTN_STALE)
		vpmu_vcpu_refresh(v);
	if (v->core)
		pthread_mutex_unlock(&v->core->lock);
}

int vpmu_vcpu_switch_in(struct vpmu_vcpu *v, unsigned host_cpu)
{
	if (!v || host_cpu >= v->host->nr_cpus)
		return -EINVAL;
	struct vpmu_cpu_cache *c = &v->host->cpu[host_cpu];
	if (v->cpu >= 0 || c->running)
		return -EBUSY;
	if (__builtin_expect(vpmu_attn(v) != 0, 0))
		switch_in_prepare(v);
	c->running = v;
	v->cache = c;
	v->cpu = (int)host_cpu;
	v->totals.switch_ins++;
	v->totals.cache_hits += c->id == vpmu_vcpu_id(v) && c->model == v->model;
	state_resume(v);
	if (__builtin_expect(v->enter != NULL, 0))
		backend_enter(v);
	return 0;
}

/* An exit to the VMM is not a switch (docs/integration.md): the vCPU stays
 * switched in, and before it runs again the control is derived again where an
 * overflow's status or an HT sibling changed it, and the backend applies what
 * the accesses of this exit changed (KVM reprograms its counters the same way,
 * before re-entry). */
int vpmu_vcpu_enter(struct vpmu_vcpu *v)
{
	if (!v || v->cpu < 0)
		return -EINVAL;
	if (__builtin_expect(vpmu_attn(v) != 0, 0))
		switch_in_prepare(v);
	if (__builtin_expect(v->enter != NULL, 0))
		backend_enter(v);
	return 0;
}

int vpmu_vcpu_poll(struct vpmu_vcpu *v)
{
	if (!v || v->cpu < 0)
		return -EINVAL;
	if (v->poll)
		backend_poll(v);
	return 0;
}

/* perfctr suspend, after the backend's poll: the cache keeps the control's id. */
static inline void switch_out(struct vpmu_vcpu *v)
{
	struct vpmu_cpu_cache *c = v->cache;
	/* A control installed while switched in left the cache without an id
	 * (write_control); perfctr's would have recorded it, and the next resume's
	 * id match depends on it. */
	if (!v->id_valid)
		c->id = vpmu_vcpu_id(v);
	state_suspend(v);
	c->running = NULL;
	v->cache = NULL;
	v->cpu = -1;
}

/* An HT sibling: what it counted is the core's once it stops running. */
static __attribute__((noinline, cold)) int switch_out_ht(struct vpmu_vcpu *v)
{
	land_overflows(v);
	pthread_mutex_lock(&v->core->lock);
	vpmu_ht_sync(v, true);
	switch_out(v);
	pthread_mutex_unlock(&v->core->lock);
	return 0;
}

int vpmu_vcpu_switch_out(struct vpmu_vcpu *v)
{
	if (!v || v->cpu < 0)
		return -EINVAL;
	if (__builtin_expect(v->core != NULL, 0))
		return switch_out_ht(v);
	land_overflows(v);
	switch_out(v);
	return 0;
}
