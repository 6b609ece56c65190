/* SPDX-License-Identifier: MIT */
/*
 * The host state of a vCPU's guest counters, and its one owner: everything that
 * reads or writes the host's counters and control images for a vCPU, or moves
 * a guest counter's count between the host, its sum and its base, is here
 * (inline) or in host_state.c.  perfctr's model (low-level-x86.txt
 * "Implementation Notes"; x86.c's p6_like_isuspend/iresume and write_control):
 * a counter in the control accumulates differences of host reads ("read now,
 * add the difference": vpmu_counter_sample), and its sum is folded into its base
 * and the accounting when its control entry changes or the guest writes it
 * (vpmu_counter_fold).  A vCPU's counters are suspended and resumed against the
 * per-CPU cache of control images, and moved in place where a write changes
 * only an a-mode counter's event or a global gate (the host writes of suspend
 * and resume for that change, as KVM reprograms one counter).
 *
 * Differences of host reads are taken at the backend's width, 64 bits
 * (backend.h): perfctr takes them on the low 32 bits of rdpmc because its driver
 * samples the counters at every context switch and timer tick, but a vCPU may
 * stay switched in for as long as it runs, and a 32-bit difference would lose
 * 2^32 events each time the low half wraps.  A-mode counters never need a host
 * counter write.
 *
 * Which control to install is control.h's question; switching vCPUs in and out
 * is switch.c's.  Both call down into this file; it calls neither.  The hot
 * parts are inline because a control write, a counter read and a switch pair
 * are the hot paths (docs/performance.md, "Hot-path attributes").
 */
#ifndef VPMU_HOST_STATE_H
#define VPMU_HOST_STATE_H

#include "core.h"

/* ---- the backend, for a switched-in vCPU (v->cpu >= 0) ---- */
static inline __attribute__((always_inline)) uint64_t vpmu_host_read(const struct vpmu_vcpu *v,
								      unsigned pmc)
{
	return v->bops->read_ctr(v->bctx, (unsigned)v->cpu, v->pmu, pmc);
}

static inline __attribute__((always_inline)) void vpmu_host_write_ctrl(struct vpmu_vcpu *v,
									unsigned slot, uint64_t val)
{
	v->bops->write_ctrl(v->bctx, (unsigned)v->cpu, v->pmu, slot, val);
	v->cache->ctrl[slot] = val;
}

static inline __attribute__((always_inline)) void vpmu_host_write_ctr(struct vpmu_vcpu *v,
								       unsigned pmc, uint64_t val)
{
	v->bops->write_ctr(v->bctx, (unsigned)v->cpu, v->pmu, pmc, val);
}

/* The backend's poll hook (backend.h), out of line: the sim has none, and the
 * cache-hit switch pair is the hottest path of all. */
void vpmu_backend_poll(struct vpmu_vcpu *v);

/* What counted since the last poll, overflows included, lands before the core
 * reads or rewrites an interrupting counter: an overflow the host has not
 * signalled yet (its signal is on the way, or the VMM's own time pushed the
 * counter past it) would otherwise vanish under the new value or control. */
static inline void vpmu_land_overflows(struct vpmu_vcpu *v)
{
	if (__builtin_expect(v->poll != NULL, 0))
		vpmu_backend_poll(v);
}

/* ---- one guest counter ---- */

/* Whether counter pmc is in the control, and interrupting (i-mode). */
static inline bool vpmu_counter_imode(const struct vpmu_vcpu *v, const struct vpmu_counter *c)
{
	return c->entry >= (int)v->ctl.nractrs;
}

/* Counter pmc of a running vCPU's control: what the host counted since its
 * start joins its sum (perfctr's "read now, add the difference"); returns the
 * host's reading, from which the counter may start again.  The one sampling
 * helper: every path that takes a running counter's count goes through it. */
static inline __attribute__((always_inline)) uint64_t vpmu_counter_sample(struct vpmu_vcpu *v,
									   unsigned pmc)
{
	struct vpmu_counter *c = &v->counter[pmc];
	uint64_t now = vpmu_host_read(v, pmc);
	c->sum += now - c->start;
	return now;
}

/* The same for the counter of control entry i, found again after the host read:
 * the loops over the control (suspend, resume) then keep one register fewer
 * across the backend call (docs/performance.md, "Hot-path attributes"). */
static inline __attribute__((always_inline)) uint64_t vpmu_entry_sample(struct vpmu_vcpu *v,
									 unsigned i)
{
	uint64_t now = vpmu_host_read(v, v->ctl.ctr[i].pmc);
	struct vpmu_counter *c = &v->counter[v->ctl.ctr[i].pmc];
	c->sum += now - c->start;
	return now;
}

/* What the guest reads from counter pmc now. */
static inline uint64_t vpmu_counter_value(const struct vpmu_vcpu *v, unsigned pmc)
{
	const struct vpmu_counter *c = &v->counter[pmc];
	if (c->entry < 0)
		return vpmu_base(v, pmc);
	/* Everything but the host reading first, so that only the sum and the
	 * mask live across the backend call (docs/performance.md). */
	uint64_t mask = c->width_mask;
	uint64_t val = vpmu_base(v, pmc) + c->sum;
	if (v->cpu >= 0) {
		val -= c->start;
		val += vpmu_host_read(v, pmc);
	}
	return val & mask;
}

/* The generic event counter pmc's control entry counts (accounting), without
 * remembering it (a const vCPU). */
static inline int vpmu_counter_event_of(const struct vpmu_vcpu *v, unsigned pmc)
{
	const struct vpmu_counter *c = &v->counter[pmc];
	if (c->event != VPMU_EVENT_UNRESOLVED)
		return c->event;
	return vpmu_pmu_event_of(v->pmu, pmc, vpmu_ctl_key(v->model, &v->ctl.ctr[c->entry]));
}

/* The same, resolved once per control entry.  The table walk is remembered for
 * the last two event keys of each counter: a profiler toggling a counter's
 * event select between two values (enabled/disabled, two events) looks up
 * nothing (docs/performance.md). */
static inline int vpmu_counter_event(struct vpmu_vcpu *v, unsigned pmc)
{
	struct vpmu_counter *c = &v->counter[pmc];
	if (c->event != VPMU_EVENT_UNRESOLVED)
		return c->event;
	const struct vpmu_ctl_ctr *e = &v->ctl.ctr[c->entry];
	uint64_t key = v->mops->ctl_key ? v->mops->ctl_key(v->model, e) : e->evntsel;
	struct vpmu_event_memo *mm = &c->memo;
	int ev;
	if (mm->key[0] == key && mm->ev[0] != VPMU_EVENT_UNRESOLVED) {
		ev = mm->ev[0];
	} else if (mm->key[1] == key && mm->ev[1] != VPMU_EVENT_UNRESOLVED) {
		ev = mm->ev[1];
	} else {
		ev = vpmu_pmu_event_of(v->pmu, pmc, key);
		unsigned k = mm->next;
		mm->key[k] = key, mm->ev[k] = (int8_t)ev;
		mm->next = (uint8_t)(k ^ 1);
	}
	c->event = (int8_t)ev;
	return ev;
}

/* Move counter pmc's sum into the accounting and, unless an HT sibling wrote
 * the counter since (drop), into its base. */
static inline __attribute__((always_inline)) void vpmu_counter_fold_sum(struct vpmu_vcpu *v,
									 unsigned pmc, bool drop)
{
	struct vpmu_counter *c = &v->counter[pmc];
	uint64_t sum = c->sum;
	int ev = vpmu_counter_event(v, pmc);
	v->totals.pmc[pmc] += sum;
	if (ev >= 0)
		v->totals.events[ev] += sum;
	if (!drop)
		vpmu_base_set(v, pmc, (vpmu_base(v, pmc) + sum) & c->width_mask);
	c->sum = 0;
}
static inline __attribute__((always_inline)) void vpmu_counter_fold(struct vpmu_vcpu *v,
								     unsigned pmc)
{
	vpmu_counter_fold_sum(v, pmc, false);
}

/* A guest (or VMM) write of value to counter pmc.  a-mode: restart the
 * difference (no host write); i-mode while running: the host counter must hold
 * the value so that it overflows where the guest expects. */
void vpmu_counter_set(struct vpmu_vcpu *v, unsigned pmc, uint64_t value);

/* An HT sibling, under its core's lock: take in what the other thread's
 * counter writes and reads asked of it (docs/models/p4.md); with fold_all,
 * fold every counter's count into the shared values. */
void vpmu_ht_sync(struct vpmu_vcpu *v, bool fold_all);

/* ---- a vCPU's control on the host ---- */

/* The bookkeeping of a new control (no host access: the caller suspends and
 * resumes around it). */
void vpmu_state_set_control(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl);
/* Install ctl with perfctr's suspend and resume around it (a running vCPU). */
void vpmu_state_install(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl);
/* Move a running vCPU to ctl, which differs only in its globals (gates). */
void vpmu_state_regate(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl);
/* perfctr write_control past the id check: every image that differs from the cache. */
void vpmu_write_control_images(struct vpmu_vcpu *v);
/* perfctr isuspend and iresume (i-mode counters) and the cache's change of model. */
void vpmu_state_isuspend(struct vpmu_vcpu *v);
void vpmu_state_iresume(struct vpmu_vcpu *v);
void vpmu_cache_take_over(struct vpmu_cpu_cache *c, const struct vpmu_model *m);

/* perfctr suspend: isuspend, then the a-mode counters' differences. */
static inline void vpmu_state_suspend(struct vpmu_vcpu *v)
{
	if (v->ctl.nrictrs)
		vpmu_state_isuspend(v);
	for (unsigned i = 0; i < v->ctl.nractrs; i++)
		vpmu_entry_sample(v, i);
}

/* perfctr resume: iresume, write_control, then the a-mode start values. */
static inline void vpmu_state_resume(struct vpmu_vcpu *v)
{
	if (__builtin_expect(v->cache->model != v->model, 0))
		vpmu_cache_take_over(v->cache, v->model);
	if (v->ctl.nrictrs)
		vpmu_state_iresume(v);
	if (!v->id_valid || v->cache->id != v->id)
		vpmu_write_control_images(v);
	for (unsigned i = 0; i < v->ctl.nractrs; i++) {
		uint64_t now = vpmu_host_read(v, v->ctl.ctr[i].pmc);
		v->counter[v->ctl.ctr[i].pmc].start = now;   /* found after the call, as above */
	}
}

/* The counter of control entry e (a-mode, of a running vCPU) now counts with
 * image sel, in place: its old event's count folded, its difference restarted,
 * its image written (the host writes of suspend + resume for that change).
 * aux: the image is the entry's aux (vpmu_txn_retarget_aux, the P4's ESCR), in
 * a slot of its own.  By entry: the caller has found it already. */
static inline __attribute__((always_inline)) void vpmu_state_retarget(struct vpmu_vcpu *v,
									struct vpmu_ctl_ctr *e,
									uint64_t sel, bool aux)
{
	unsigned pmc = e->pmc;
	struct vpmu_counter *c = &v->counter[pmc];
	bool per_counter = !aux && v->mops->ctrl_images == NULL;
	uint64_t now = vpmu_counter_sample(v, pmc);
	vpmu_counter_fold(v, pmc);
	c->start = now;
	if (aux)
		e->aux = sel;
	else
		e->evntsel = sel;
	c->event = VPMU_EVENT_UNRESOLVED;
	if (per_counter && v->cache->ctrl[pmc] != sel)
		vpmu_host_write_ctrl(v, pmc, sel);
	if (aux && v->cache->ctrl[e->aux_slot] != sel)
		vpmu_host_write_ctrl(v, e->aux_slot, sel);
	v->id_valid = false;
	if (per_counter || aux) {
		v->cache->id = ~0ull; /* what write_control records for an unhashed control */
	} else if (v->model->ctr_sel_mask) {
		/* Switched in: the host holds this control's images. */
		const struct vpmu_model *m = v->model;
		unsigned slot = m->ctr_ctrl_slot[pmc];
		uint64_t img = (v->cache->ctrl[slot] & ~(uint64_t)m->ctr_sel_mask[pmc]) |
			       sel << m->ctr_sel_shift[pmc];
		if (v->cache->ctrl[slot] != img)
			vpmu_host_write_ctrl(v, slot, img);
		v->cache->id = ~0ull;
	} else {
		vpmu_write_control_images(v);
	}
}

/* The in-place move of a running vCPU to a control with the same a-mode
 * counters: for each counter whose entry changed, one read folds the old
 * event's count and restarts the difference; then the images that changed are
 * written.  The host writes are exactly those of suspend + resume (perfctr).
 * Inline: it is most of a control write (docs/performance.md). */
static inline __attribute__((always_inline)) void vpmu_state_reprogram(struct vpmu_vcpu *v,
									 const struct vpmu_ctl *ctl)
{
	/* Models with the default images (slot pmc holds counter pmc's evntsel)
	 * write each changed image here; the others rebuild theirs below. */
	bool per_counter = v->mops->ctrl_images == NULL, changed = false;
	for (unsigned i = 0; i < ctl->nractrs; i++) {
		const struct vpmu_ctl_ctr *e = &ctl->ctr[i];
		if (e->evntsel == v->ctl.ctr[i].evntsel && e->aux == v->ctl.ctr[i].aux)
			continue;   /* same event: its difference runs on */
		unsigned pmc = e->pmc;
		struct vpmu_counter *c = &v->counter[pmc];
		uint64_t now = vpmu_counter_sample(v, pmc);
		vpmu_counter_fold(v, pmc);
		c->start = now;
		v->ctl.ctr[i] = *e;
		c->event = VPMU_EVENT_UNRESOLVED;
		changed = true;
		if (per_counter && v->cache->ctrl[pmc] != e->evntsel)
			vpmu_host_write_ctrl(v, pmc, e->evntsel);
	}
	if (!changed)
		return;
	v->id_valid = false;
	if (per_counter)
		v->cache->id = ~0ull; /* what write_control records for an unhashed control */
	else
		vpmu_write_control_images(v);
}

/* One counter joins the control as i-mode, or leaves it, and nothing else
 * changes (model.h vpmu_txn_add_counter): the host writes perfctr's suspend
 * and resume would make, for that counter alone.  Inline: they are most of an
 * SBI counter_start or counter_stop (docs/performance.md).
 *
 * A joining counter takes its place among the i-mode entries in ascending
 * counter order (the order of every derive that lists them so), with start as
 * its value and ireset.  Switched in, it is loaded as perfctr's iresume loads
 * it (stopped first unless the cache shows it stopped) and its image written
 * as write_control would; switched out, the next resume loads it. */
static inline __attribute__((always_inline)) void vpmu_state_add_imode(struct vpmu_vcpu *v,
									unsigned pmc, uint64_t sel,
									uint64_t start)
{
	struct vpmu_ctl *ctl = &v->ctl;
	unsigned i = vpmu_ctl_n(ctl);
	for (; i > ctl->nractrs && ctl->ctr[i - 1].pmc > pmc; i--) {
		ctl->ctr[i] = ctl->ctr[i - 1];
		v->counter[ctl->ctr[i].pmc].entry = (int8_t)i;
	}
	ctl->ctr[i] = (struct vpmu_ctl_ctr){ pmc, 0, sel, 0, start };
	/* Its value (a counter in no entry reads its base); an HT sibling learns
	 * of a load (vpmu_counter_set). */
	if (__builtin_expect(v->core != NULL, 0) && vpmu_base(v, pmc) != start)
		vpmu_counter_set(v, pmc, start);
	else
		vpmu_base_set(v, pmc, start);
	ctl->nrictrs++;
	struct vpmu_counter *c = &v->counter[pmc];
	c->entry = (int8_t)i;
	c->sum = 0;
	c->event = VPMU_EVENT_UNRESOLVED;
	v->id_valid = false;
	if (v->cpu < 0) {
		c->start = 0;
		v->isuspend_cpu = -1;
		return;
	}
	unsigned slot = vpmu_ctr_slot(v->model, pmc);
	if (v->cache->ctrl[slot] != 0)
		vpmu_host_write_ctrl(v, slot, 0);
	vpmu_host_write_ctr(v, pmc, start);
	c->start = start;
	if (v->mops->ctrl_images)
		vpmu_write_control_images(v);
	else if (v->cache->ctrl[pmc] != sel)
		vpmu_host_write_ctrl(v, pmc, sel);
	v->cache->id = ~0ull;   /* what write_control records for an unhashed control */
}

/* The counter's count so far folded into its value, as perfctr's suspend takes
 * it (an i-mode counter stopped first, after any overflow the host has not
 * reported yet has landed), and its entry removed. */
static inline __attribute__((always_inline)) void vpmu_state_drop(struct vpmu_vcpu *v, unsigned pmc)
{
	struct vpmu_ctl *ctl = &v->ctl;
	struct vpmu_counter *c = &v->counter[pmc];
	unsigned i = (unsigned)c->entry, n = vpmu_ctl_n(ctl);
	bool imode = i >= ctl->nractrs;
	if (v->cpu >= 0) {
		if (imode) {
			vpmu_land_overflows(v);
			vpmu_host_write_ctrl(v, vpmu_ctr_slot(v->model, pmc), 0);
		}
		vpmu_counter_sample(v, pmc);
		v->cache->id = ~0ull;
	}
	vpmu_counter_fold(v, pmc);
	for (; i + 1 < n; i++) {
		ctl->ctr[i] = ctl->ctr[i + 1];
		v->counter[ctl->ctr[i].pmc].entry = (int8_t)i;
	}
	if (imode)
		ctl->nrictrs--;
	else
		ctl->nractrs--;
	c->entry = -1;
	v->id_valid = false;
	if (v->cpu >= 0 && v->mops->ctrl_images)
		vpmu_write_control_images(v);
}

#endif
