/* SPDX-License-Identifier: MIT */
/*
 * Case group 9: RDPMC never reaches the virtual PMU.  KVM always intercepts
 * RDPMC and serves it from its own in-kernel PMU; a userspace VMM cannot take
 * it over (docs/principles.md §7; docs/integration.md "Limits"), so guests read
 * counters with RDMSR.  What the guest sees depends on the host's KVM:
 *  - #GP where KVM's PMU has no version (Intel with the PMU off);
 *  - 0, without a fault, where it does anyway: Linux 6.1's kvm_amd gives
 *    every vCPU PMU version 1 even with PMU virtualization off (seen in the
 *    nested SVM tier of scripts/kvm-env), and its counters never count.
 * Either way the virtual counter's value must not come back.
 */
#include "pmu.h"

void test_rdpmc(const struct pmu_model *m)
{
	uint64_t vmsr[MAX_CTRS] = { 0 };
	/* The model's counters, counting; 0 and 1 where there are none. */
	uint8_t idx = m->ctr_mask ? m->ctr_mask : 0x3;
	unsigned gp = 0, zero = 0;

	begin_case("rdpmc: never reads the virtual PMU (#GP, or KVM's own idle PMU)");
	if (m->style != STYLE_NONE) {
		pmu_reset(m);
		apply_writes(m->count[0].on);
		spin_us(WORK_US / 5);
		read_ctrs(m, vmsr);
	}
	for (unsigned i = 0; i < MAX_CTRS; i++) {
		uint64_t v;
		if (!(idx & (1u << i)))
			continue;
		int r = rdpmc_safe(i, &v);
		if (r == -1)
			gp++;
		else if (r)
			FAIL("rdpmc(%u) raised exception %u, not #GP", i, last_fault_vector());
		else if (v == 0)
			zero++;
		else
			FAIL("rdpmc(%u) returned 0x%llx (RDMSR: 0x%llx): a counter the vPMU does not "
			     "own", i, (unsigned long long)v, (unsigned long long)vmsr[i]);
	}
	if (zero)
		diag("rdpmc returned 0 without #GP for %u counter(s): the host's KVM served it from "
		     "its own PMU (kvm_amd does with the PMU off)", zero);
	if (gp)
		diag("rdpmc raised #GP for %u counter(s)", gp);
	pmu_reset(m);
	end_case();
}
