/* SPDX-License-Identifier: MIT */
/*
 * The guest register-access path: every trapped WRMSR/RDMSR (or mtspr/mfspr)
 * lands here.
 *
 * A control write is applied in three steps (ARCHITECTURE.md decision 2):
 *   1. the model says whether the hardware accepts it (#GP in both modes if not);
 *   2. the perfctr control is derived from the register file as it would then be
 *      and checked: per-register masks always, cross-register rules when at least
 *      one counter is left enabled;
 *   3. strict mode refuses a violation with #GP and restores the register; the
 *      default mode records it and counts exactly as the hardware would.
 * This is a hot path (docs/performance.md): the control is zeroed, compared and
 * copied only as far as the model's counters reach, and the content id is hashed
 * only when a cache decision needs it (vpmu_vcpu_id()).
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

void vpmu_vcpu_set_control(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl)
{
	unsigned n = vpmu_ctl_n(ctl);
	for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++)
		v->vidx[v->ctl.ctr[i].pmc] = -1;
	v->ctl.nractrs = ctl->nractrs;
	v->ctl.nrictrs = ctl->nrictrs;
	for (unsigned k = 0; k < sizeof(ctl->global) / sizeof(ctl->global[0]); k++)
		v->ctl.global[k] = ctl->global[k];
	for (unsigned i = 0; i < n; i++) {
		v->ctl.ctr[i] = ctl->ctr[i];
		v->vidx[ctl->ctr[i].pmc] = (int8_t)i;
		v->pmc[i].sum = 0;
		v->pmc[i].start = 0;
		v->event[i] = VPMU_EVENT_UNRESOLVED;
	}
	v->id_valid = false;
	/* Counter registers of i-mode counters must be (re)loaded at the next resume. */
	v->isuspend_cpu = -1;
}

/* Which generic event each counter of the current control counts, for the
 * accounting.  Resolved once per control, before the registers it was derived
 * from change (a-mode sums are folded after the write lands). */
static void resolve_events(struct vpmu_vcpu *v)
{
	const struct vpmu_model *m = v->model;
	if (m->ctl_event)
		return; /* resolved from the control entries, whenever needed */
	for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++) {
		if (v->event[i] != VPMU_EVENT_UNRESOLVED)
			continue;
		unsigned priv;
		bool irq;
		v->event[i] = (int8_t)m->decode_ctr(v->regs.ctrl, v->ctl.ctr[i].pmc, &priv, &irq);
	}
}

/* The derived control with i-mode start values: a counter that stays in i-mode
 * keeps its ireset; one that becomes i-mode starts from the value it holds now. */
static void derive_control(struct vpmu_vcpu *v, struct vpmu_ctl *ctl)
{
	const struct vpmu_model *m = v->model;
	/* Models fill pmc and evntsel (and aux on P4): zero only what they may reach. */
	ctl->nractrs = ctl->nrictrs = 0;
	for (unsigned k = 0; k < sizeof(ctl->global) / sizeof(ctl->global[0]); k++)
		ctl->global[k] = 0;
	for (unsigned i = 0; i < m->nr_ctrs; i++)
		ctl->ctr[i] = (struct vpmu_ctl_ctr){ 0, 0, 0, 0, 0 };
	m->derive(&v->vm->opts, &v->regs, ctl);
	for (unsigned i = ctl->nractrs; i < vpmu_ctl_n(ctl); i++) {
		unsigned pmc = ctl->ctr[i].pmc;
		int old = v->vidx[pmc];
		if (old >= (int)v->ctl.nractrs)
			ctl->ctr[i].ireset = v->ctl.ctr[old].ireset;
		else
			ctl->ctr[i].ireset = vpmu_ctr_value(v, pmc);
	}
}

/* Whether b keeps a's a-mode counters on the same pmcs, with no i-mode counter
 * and no global control on either side: a running vCPU then moves to b in place. */
static inline bool same_amode_layout(const struct vpmu_ctl *a, const struct vpmu_ctl *b)
{
	if (a->nrictrs | b->nrictrs || a->nractrs != b->nractrs ||
	    (a->global[0] | a->global[1] | a->global[2] | a->global[3] |
	     b->global[0] | b->global[1] | b->global[2] | b->global[3]))
		return false;
	for (unsigned i = 0; i < a->nractrs; i++)
		if (a->ctr[i].pmc != b->ctr[i].pmc)
			return false;
	return true;
}

/* Whether two controls are equal, compared only as far as their counters reach. */
static inline bool ctl_equal(const struct vpmu_ctl *a, const struct vpmu_ctl *b)
{
	if (a->nractrs != b->nractrs || a->nrictrs != b->nrictrs)
		return false;
	for (unsigned k = 0; k < sizeof(a->global) / sizeof(a->global[0]); k++)
		if (a->global[k] != b->global[k])
			return false;
	for (unsigned i = 0; i < vpmu_ctl_n(a); i++) {
		const struct vpmu_ctl_ctr *x = &a->ctr[i], *y = &b->ctr[i];
		if (x->pmc != y->pmc || x->evntsel != y->evntsel || x->ireset != y->ireset ||
		    x->aux != y->aux || x->aux_slot != y->aux_slot)
			return false;
	}
	return true;
}

/* Install a new control; a running vCPU is suspended and resumed around it, as
 * perfctr's vperfctr control update does. */
static void apply_control(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl)
{
	bool running = v->cpu >= 0;
	if (running)
		vpmu_state_suspend(v);
	for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++)
		vpmu_counter_fold(v, i);
	vpmu_vcpu_set_control(v, ctl);
	if (running)
		vpmu_state_resume(v);
}

static void record_violations(struct vpmu_vcpu *v, uint32_t viol)
{
	while (viol) {
		unsigned bit = (unsigned)__builtin_ctz(viol);
		v->totals.violations[bit]++;
		viol &= viol - 1;
	}
}

static enum vpmu_fault write_ctrl_reg(struct vpmu_vcpu *v, unsigned slot, uint64_t val)
{
	const struct vpmu_model *m = v->model;
	const struct vpmu_cpu_opts *o = &v->vm->opts;
	uint64_t old = v->regs.ctrl[slot], stored;
	enum vpmu_fault f = m->ctrl_write(o, slot, val, old, &stored);
	if (f != VPMU_FAULT_NONE)
		return f;
	uint32_t viol = m->check_write ? m->check_write(o, slot, val) : 0;
	if (stored == old) {
		/* The register file, hence the control, is unchanged (Linux's
		 * read-modify-write of EVNTSEL0 often is): only the rules are re-checked. */
		if (vpmu_ctl_n(&v->ctl) && m->check_control)
			viol |= m->check_control(o, &v->regs, &v->ctl);
		if (viol && o->strict)
			return VPMU_FAULT_STRICT;
		record_violations(v, viol);
		return VPMU_FAULT_NONE;
	}
	resolve_events(v);
	v->regs.ctrl[slot] = stored;
	struct vpmu_ctl ctl;
	derive_control(v, &ctl);
	if (vpmu_ctl_n(&ctl) && m->check_control)
		viol |= m->check_control(o, &v->regs, &ctl);
	if (viol && o->strict) {
		v->regs.ctrl[slot] = old;
		return VPMU_FAULT_STRICT;
	}
	record_violations(v, viol);
	if (v->cpu >= 0 && same_amode_layout(&v->ctl, &ctl)) {
		/* Only event selects can differ: move in place if one does. */
		for (unsigned i = 0; i < ctl.nractrs; i++)
			if (ctl.ctr[i].evntsel != v->ctl.ctr[i].evntsel || ctl.ctr[i].aux != v->ctl.ctr[i].aux) {
				vpmu_state_reprogram(v, &ctl);
				break;
			}
	} else if (!ctl_equal(&ctl, &v->ctl)) {
		apply_control(v, &ctl);
	}
	return VPMU_FAULT_NONE;
}

static inline void count_fault(struct vpmu_vcpu *v, enum vpmu_fault f)
{
	if (f == VPMU_FAULT_STRICT)
		v->totals.strict_refusals++;
	else if (f != VPMU_FAULT_NONE)
		v->totals.faults++;
}

int vpmu_reg_write(struct vpmu_vcpu *v, enum vpmu_regspace space, uint32_t addr,
		   uint64_t val, enum vpmu_fault *fault)
{
	if (!v || !fault)
		return -EINVAL;
	const struct vpmu_model *m = v->model;
	const struct vpmu_reg *r = vpmu_vm_reg(v->vm, space, addr);
	enum vpmu_fault f = VPMU_FAULT_NO_REG;
	v->totals.writes++;
	if (r) {
		switch (r->kind) {
		case VPMU_REG_CTRL:
			f = write_ctrl_reg(v, r->index, val);
			break;
		case VPMU_REG_CTR: {
			uint64_t stored;
			f = m->ctr_write(&v->vm->opts, r->index, val, &stored);
			if (f == VPMU_FAULT_NONE)
				vpmu_ctr_set(v, r->index, stored);
			break;
		}
		case VPMU_REG_MISC:
			/* Model-specific registers kept as values are read-only here. */
			f = val == v->regs.misc[r->index] ? VPMU_FAULT_NONE : VPMU_FAULT_READ_ONLY;
			break;
		}
	}
	count_fault(v, f);
	*fault = f;
	return 0;
}

int vpmu_reg_read(struct vpmu_vcpu *v, enum vpmu_regspace space, uint32_t addr,
		  uint64_t *val, enum vpmu_fault *fault)
{
	if (!v || !fault || !val)
		return -EINVAL;
	const struct vpmu_reg *r = vpmu_vm_reg(v->vm, space, addr);
	v->totals.reads++;
	if (!r) {
		*fault = VPMU_FAULT_NO_REG;
		v->totals.faults++;
		return 0;
	}
	*fault = VPMU_FAULT_NONE;
	if (r->kind == VPMU_REG_CTR)
		*val = vpmu_ctr_value(v, r->index);
	else if (r->kind == VPMU_REG_CTRL)
		*val = v->regs.ctrl[r->index];
	else
		*val = v->regs.misc[r->index];
	return 0;
}
