/* SPDX-License-Identifier: MIT */
/*
 * Overflows of i-mode counters: the model's architectural status and the PMI
 * it raises (docs/design.md "Overflow, PMIs and status"), from the backend's
 * report (core.c vpmu_host_overflow) or, on PowerPC, from a guest write that
 * enables the exception of a counter already negative (access.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "host_state.h"

/* The overflow of an i-mode counter: the model records the architectural status
 * and decides whether it raises a PMI.  Status that changes a control register
 * makes the control stale: it is derived again before the next entry or access,
 * not here, where a switch-out or a register access may be in progress (a poll). */
static bool model_overflow(struct vpmu_vcpu *v, uint64_t mask)
{
	if (!v->mops->overflow)
		return true;
	if (v->core)
		pthread_mutex_lock(&v->core->lock);
	/* The hooks of counters overflowing together share one transaction: each
	 * sees what the previous one set (two OVF bits of one status register).
	 * Only registers change: counter loads staged here are not applied
	 * (docs/design.md "Overflow, PMIs and status"). */
	struct vpmu_txn t;
	memset(&t, 0, sizeof(t));
	t.regs = t.rf = v->rf;
	t.vcpu = v;
	t.host = true;
	bool pmi = false, changed = false;
	for (; mask; mask &= mask - 1) {
		pmi |= v->mops->overflow(v->model, &v->ctx, &t, (unsigned)__builtin_ctzll(mask));
		/* Nothing undoes an overflow: empty the undo log after each hook, or
		 * the changes past VPMU_TXN_MAX of many counters overflowing together
		 * (a P4's 18 CCCR.OVF bits) would be dropped. */
		changed |= t.n != 0;
		t.n = 0;
#ifdef VPMU_CONTRACT_CHECKS
		if (t.overflowed) {
			fprintf(stderr, "libvpmu: model %s: an overflow changed more than %d "
				"registers, or one past the register file\n", v->model->name,
				VPMU_TXN_MAX);
			abort();
		}
#endif
	}
	if (changed) {
		vpmu_mark_stale(v);
		if (v->core && v->core->thread[v->ctx.thread ^ 1])
			vpmu_mark_stale(v->core->thread[v->ctx.thread ^ 1]);
	}
	if (v->core)
		pthread_mutex_unlock(&v->core->lock);
	return pmi;
}

/* The overflows of counters pmc_mask (i-mode counters of the control): the
 * model's status, and a PMI when it says one is due. */
void vpmu_raise_overflows(struct vpmu_vcpu *v, uint64_t mask)
{
	if (!mask || !model_overflow(v, mask))
		return;
	v->pmi_ctrs |= mask;
	v->pmi_pending = true;
	v->totals.pmis++;
}

/*
 * On PowerPC the performance-monitor exception is a level, not an edge: the
 * condition is an enabled counter being negative (MPC7450 RISC Microprocessor
 * Family Reference Manual, "Performance Monitor Interrupt"), so a guest write
 * that enables the exception for a counter already negative (PMXE set again
 * before the handler reloaded it, or a negative value written) interrupts at
 * once, as it would again and again on the hardware.  Called after a guest
 * write installed a control on a VPMU_CAP_OVF_ON_MSB model.
 */
void vpmu_msb_level_check(struct vpmu_vcpu *v)
{
	uint64_t mask = 0;
	for (unsigned i = v->ctl.nractrs; i < vpmu_ctl_n(&v->ctl); i++) {
		unsigned pmc = v->ctl.ctr[i].pmc;
		if (vpmu_counter_value(v, pmc) > v->counter[pmc].width_mask >> 1)
			mask |= 1ull << pmc;
	}
	vpmu_raise_overflows(v, mask);
}

