/* SPDX-License-Identifier: MIT */
/*
 * A vCPU's PMU back to its power-on state (vpmu_vcpu_reset): what a guest
 * reboot or an INIT-less RESET gives the real CPU (Intel SDM vol. 3, "Initial
 * State of the Performance Monitoring Counters"; KVM does the same for its own
 * PMU in kvm_pmu_reset(), arch/x86/kvm/pmu.c).  The power-on values are the
 * ones the vCPU had when it was created, read through the host-initiated path
 * (vpmu_reg_get) once, so that a model's reset values (misc_reset, the
 * derived control of an empty file) are never written out a second time here;
 * the reset writes them back the same host-initiated way (vpmu_reg_set), which
 * has no guest semantics and checks no perfctr rule.
 */
#include <errno.h>

#include "core.h"

void vpmu_reset_record(struct vpmu_vcpu *v)
{
	unsigned n = v->pmu->nr_regs;
	for (unsigned i = 0; i < n; i++) {
		const struct vpmu_reg *r = &v->mregs[i];
		/* -ENOENT: a register the presented CPU lacks; the reset skips it. */
		v->power_on[i].present =
			vpmu_reg_get(v, (enum vpmu_regspace)r->space, r->addr, &v->power_on[i].value) == 0;
	}
}

/* The controls first, so that no counter counts between its write and the
 * end of the reset (a counter written while its control still enables it
 * would run on under the perf backend); then the rest. */
static void write_back(struct vpmu_vcpu *v, bool controls)
{
	for (unsigned i = 0; i < v->pmu->nr_regs; i++) {
		const struct vpmu_reg *r = &v->mregs[i];
		if (!v->power_on[i].present || (r->kind == VPMU_REG_CTRL) != controls)
			continue;
		uint64_t now;
		if (vpmu_reg_get(v, (enum vpmu_regspace)r->space, r->addr, &now) == 0 &&
		    now == v->power_on[i].value)
			continue;
		/* A read-only register (a mirror of others) refuses the write: it
		 * follows the ones it mirrors, which the check below confirms. */
		vpmu_reg_set(v, (enum vpmu_regspace)r->space, r->addr, v->power_on[i].value);
	}
}

int vpmu_vcpu_reset(struct vpmu_vcpu *v)
{
	if (!v)
		return -EINVAL;
	write_back(v, true);
	write_back(v, false);
	/* A PMI raised before the reset is not delivered after it: the LVTPC
	 * that would take it is reset too (vpmu_vcpu_pmi_ack's work, written
	 * here so that reset.c calls core.c nothing: core.c calls it). */
	v->pmi_ctrs = 0;
	v->pmi_pending = false;
	for (unsigned i = 0; i < v->pmu->nr_regs; i++) {
		const struct vpmu_reg *r = &v->mregs[i];
		uint64_t now;
		if (v->power_on[i].present &&
		    (vpmu_reg_get(v, (enum vpmu_regspace)r->space, r->addr, &now) != 0 ||
		     now != v->power_on[i].value))
			return -EIO;
	}
	return 0;
}
