/* SPDX-License-Identifier: MIT */
/* A guest's RDMSR and WRMSR as the unit tests make them: what a VMM does on a
 * user-space MSR exit, reduced to the value or the fault the guest would see. */
#ifndef VPMU_TEST_GUEST_MSR_H
#define VPMU_TEST_GUEST_MSR_H
#include <stdint.h>

#include "vpmu/vpmu.h"

/* WRMSR: the fault the guest takes (VPMU_FAULT_NONE where the write landed), or
 * (enum vpmu_fault)-1 where the call itself failed, which no test expects. */
static inline enum vpmu_fault wr(struct vpmu_vcpu *v, uint32_t msr, uint64_t val)
{
	enum vpmu_fault f = VPMU_FAULT_NONE;
	if (vpmu_reg_write(v, VPMU_SPACE_MSR, msr, val, &f))
		return (enum vpmu_fault)-1;
	return f;
}

/* RDMSR: the value, or the sentinel ~0 where the read faulted or the call
 * failed (no register the tests read holds ~0: counters are 48 bits at most). */
static inline uint64_t rd(struct vpmu_vcpu *v, uint32_t msr)
{
	enum vpmu_fault f = VPMU_FAULT_NONE;
	uint64_t val = 0;
	if (vpmu_reg_read(v, VPMU_SPACE_MSR, msr, &val, &f) || f != VPMU_FAULT_NONE)
		return ~0ull;
	return val;
}
#endif
