/* SPDX-License-Identifier: MIT */
/*
 * Installing a control: what the register path (access.c) and the re-derive of
 * a stale control (control.c) share.  The perfctr control is derived from the
 * register file (with i-mode start values and perfctr's check_ireset), compared
 * with the installed one, and installed: in place where only a-mode event
 * selects or a global gate change (the host writes of perfctr's suspend and
 * resume for that change, as KVM reprograms one counter), otherwise with
 * perfctr's suspend and resume (vpmu_control_apply).  The hot parts are inline
 * here because a control write is one of the hot paths (docs/performance.md);
 * the rest is control.c.  The host state they move is switch.c's
 * (vpmu_state_suspend/resume, the fold and sample helpers of core.h).
 */
#ifndef VPMU_CONTROL_H
#define VPMU_CONTROL_H

#include "core.h"

/* Install ctl with perfctr's suspend and resume around it (a running vCPU). */
void vpmu_control_apply(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl);
/* Move a running vCPU to ctl, which differs only in its globals (gates). */
void vpmu_control_regate(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl);

/* Counter i (a-mode, of a running vCPU) now counts with image sel: fold its
 * old event's count, restart its difference, write its image (the host writes
 * of suspend + resume for that change). */
static inline __attribute__((always_inline)) void state_retarget_one(struct vpmu_vcpu *v,
									   unsigned i, uint64_t sel,
									   bool per_counter, bool aux)
{
	unsigned pmc = v->ctl.ctr[i].pmc;
	uint64_t now = vpmu_counter_sample(v, i);
	vpmu_fold(v, i);
	v->pmc[i].start = now;
	if (aux)
		v->ctl.ctr[i].aux = sel;
	else
		v->ctl.ctr[i].evntsel = sel;
	v->event[i] = VPMU_EVENT_UNRESOLVED;
	if (per_counter && v->cache->ctrl[pmc] != sel)
		vpmu_host_write_ctrl(v, pmc, sel);
	/* The aux image's slot is the entry's alone (vpmu_txn_retarget_aux). */
	if (aux && v->cache->ctrl[v->ctl.ctr[i].aux_slot] != sel)
		vpmu_host_write_ctrl(v, v->ctl.ctr[i].aux_slot, sel);
}

/* Counter i's image (aux: its aux) becomes sel, in place. */
static inline __attribute__((always_inline)) void state_retarget(struct vpmu_vcpu *v,
								       unsigned i, uint64_t sel,
								       bool aux)
{
	bool per_counter = !aux && v->mops->ctrl_images == NULL;
	state_retarget_one(v, i, sel, per_counter, aux);
	v->id_valid = false;
	if (per_counter || aux)
		v->cache->id = ~0ull; /* what write_control records for an unhashed control */
	else
		vpmu_write_control_images(v);
}

/* The in-place move of a running vCPU to a control with the same a-mode
 * counters: for each counter whose entry changed, one read folds the old
 * event's count and restarts the difference; then the images that changed are
 * written.  The host writes are exactly those of suspend + resume (perfctr).
 * Inline: it is most of a control write (docs/performance.md). */
static inline __attribute__((always_inline)) void state_reprogram(struct vpmu_vcpu *v,
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
		uint64_t now = vpmu_counter_sample(v, i);
		vpmu_fold(v, i);
		v->pmc[i].start = now;
		v->ctl.ctr[i] = *e;
		v->event[i] = VPMU_EVENT_UNRESOLVED;
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
/* The derived control with i-mode start values: a counter that stays in i-mode
 * keeps its ireset; one that becomes i-mode starts from the value it holds now
 * (or is loaded with in this transaction), and perfctr's check_ireset applies
 * to that start (VPMU_RULE_CHECK_IRESET; its violation is added to *viol). */
static inline __attribute__((always_inline)) void derive_control(struct vpmu_vcpu *v,
								   const struct vpmu_txn *t,
								   struct vpmu_ctl *ctl,
								   uint32_t *viol)
{
	/* Models set whole entries (vpmu_ctl_set): only the counts and the globals
	 * they use need zeroing. */
	ctl->nractrs = ctl->nrictrs = 0;
	for (unsigned k = 0; k < v->model->nr_globals; k++)
		ctl->global[k] = 0;
	v->mops->derive(v->model, &v->ctx, v->rf, ctl);
	if (!ctl->nrictrs)
		return;
	if (__builtin_expect(!(v->model->caps & VPMU_CAP_PCINT), 0)) {
		/* perfctr: no i-mode counters without PCINT (update_control's -EPERM):
		 * a CPU without an overflow interrupt cannot interrupt, so what a
		 * model derives as i-mode counts as a-mode. */
		ctl->nractrs += ctl->nrictrs;
		ctl->nrictrs = 0;
		return;
	}
	bool msb = v->model->caps & VPMU_CAP_OVF_ON_MSB;
	for (unsigned i = ctl->nractrs; i < vpmu_ctl_n(ctl); i++) {
		unsigned pmc = ctl->ctr[i].pmc;
		int old = v->vidx[pmc];
		if (!(t && (t->ctr_mask & (1ull << pmc))) && old >= (int)v->ctl.nractrs) {
			ctl->ctr[i].ireset = v->ctl.ctr[old].ireset;
			continue;
		}
		uint64_t start = t && (t->ctr_mask & (1ull << pmc)) ? t->ctr_val[pmc]
								  : vpmu_ctr_value(v, pmc);
		ctl->ctr[i].ireset = start;
		/* perfctr compares ireset as a signed 32-bit int (check_ireset). */
		if (viol && v->vm->ireset_rule >= 0 && ((int32_t)(uint32_t)start >= 0) != msb)
			*viol |= 1u << v->vm->ireset_rule;
	}
}

/* Whether two controls have the same globals, as far as the model uses them. */
static inline bool globals_equal(const struct vpmu_model *m, const struct vpmu_ctl *a,
				 const struct vpmu_ctl *b)
{
	for (unsigned k = 0; k < m->nr_globals; k++)
		if (a->global[k] != b->global[k])
			return false;
	return true;
}

/* Whether two controls have the same counters, entry by entry. */
static inline bool entries_equal(const struct vpmu_ctl *a, const struct vpmu_ctl *b)
{
	if (a->nractrs != b->nractrs || a->nrictrs != b->nrictrs)
		return false;
	for (unsigned i = 0; i < vpmu_ctl_n(a); i++) {
		const struct vpmu_ctl_ctr *x = &a->ctr[i], *y = &b->ctr[i];
		if (x->pmc != y->pmc || x->evntsel != y->evntsel || x->ireset != y->ireset ||
		    x->aux != y->aux || x->aux_slot != y->aux_slot)
			return false;
	}
	return true;
}

/* Whether two controls are equal, compared only as far as their counters reach. */
static inline bool ctl_equal(const struct vpmu_model *m, const struct vpmu_ctl *a,
			     const struct vpmu_ctl *b)
{
	return globals_equal(m, a, b) && entries_equal(a, b);
}

/* Move to a derived control: in place where only a-mode event selects change. */
static inline __attribute__((always_inline)) void install_control(struct vpmu_vcpu *v,
								    const struct vpmu_ctl *ctl)
{
	const struct vpmu_ctl *cur = &v->ctl;
	if (v->cpu >= 0 && !(cur->nrictrs | ctl->nrictrs) && cur->nractrs == ctl->nractrs &&
	    globals_equal(v->model, cur, ctl)) {
		/* The same a-mode counters and globals: move in place where an event
		 * select changed (docs/design.md). */
		for (unsigned i = 0; i < ctl->nractrs; i++)
			if (ctl->ctr[i].pmc != cur->ctr[i].pmc)
				goto apply;
		state_reprogram(v, ctl);
		return;
	}
	if (__builtin_expect(v->cpu >= 0 && (v->model->caps & VPMU_CAP_GLOBAL_GATE), 0) &&
	    entries_equal(ctl, cur)) {
		if (!globals_equal(v->model, ctl, cur))
			vpmu_control_regate(v, ctl);
		return;
	}
	if (ctl_equal(v->model, ctl, cur))
		return;
apply:
	vpmu_control_apply(v, ctl);
}

#endif
