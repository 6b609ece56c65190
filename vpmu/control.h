/* SPDX-License-Identifier: MIT */
/*
 * Which control a vCPU runs: the perfctr control derived from the register
 * file (the model's derive op, with i-mode start values and perfctr's
 * check_ireset), compared with the installed one, and installed by the cheapest
 * of host_state.h's three moves: in place where only a-mode event selects
 * change (vpmu_state_reprogram) or only a global gate (vpmu_state_regate),
 * otherwise with perfctr's suspend and resume (vpmu_state_install).  What the
 * register path (access.c) and the re-derive of a stale control (control.c)
 * share; inline because a control write is one of the hot paths
 * (docs/performance.md).
 */
#ifndef VPMU_CONTROL_H
#define VPMU_CONTROL_H

#include "host_state.h"

/* Derive the control again after the register file changed behind the access
 * path (an overflow's status, an HT sibling's write), and install it. */
void vpmu_control_refresh(struct vpmu_vcpu *v);

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
		int old = v->counter[pmc].entry;
		if (!(t && (t->ctr_mask & (1ull << pmc))) && old >= (int)v->ctl.nractrs) {
			ctl->ctr[i].ireset = v->ctl.ctr[old].ireset;
			continue;
		}
		uint64_t start = t && (t->ctr_mask & (1ull << pmc)) ? t->ctr_val[pmc]
								  : vpmu_counter_value(v, pmc);
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
		vpmu_state_reprogram(v, ctl);
		return;
	}
	if (__builtin_expect(v->cpu >= 0 && (v->model->caps & VPMU_CAP_GLOBAL_GATE), 0) &&
	    entries_equal(ctl, cur)) {
		if (!globals_equal(v->model, ctl, cur))
			vpmu_state_regate(v, ctl);
		return;
	}
	if (ctl_equal(v->model, ctl, cur))
		return;
apply:
	vpmu_state_install(v, ctl);
}

#endif
