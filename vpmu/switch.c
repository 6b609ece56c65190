/* SPDX-License-Identifier: MIT */
/*
 * Switching a vCPU in and out of a host CPU, and its entries after an exit to
 * the VMM: the public calls around perfctr's resume and suspend
 * (host_state.h), with the work a vCPU left for before it runs again (a control
 * to derive again: control.h).
 */
#include <errno.h>

#include "control.h"
#include "host_state.h"

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
		vpmu_control_refresh(v);
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
	vpmu_state_resume(v);
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
		vpmu_backend_poll(v);
	return 0;
}

/* perfctr suspend, after the backend's poll: the cache keeps the control's id. */
static inline void switch_out(struct vpmu_vcpu *v)
{
	/* A control installed while switched in left the cache without an id
	 * (write_control); perfctr's would have recorded it, and the next resume's
	 * id match depends on it. */
	if (!v->id_valid)
		v->cache->id = vpmu_vcpu_id(v);
	vpmu_state_suspend(v);
	v->cache->running = NULL;   /* read again: one register fewer across the suspend */
	v->cache = NULL;
	v->cpu = -1;
}

/* An HT sibling: what it counted is the core's once it stops running. */
static __attribute__((noinline, cold)) int switch_out_ht(struct vpmu_vcpu *v)
{
	vpmu_land_overflows(v);
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
	vpmu_land_overflows(v);
	switch_out(v);
	return 0;
}
