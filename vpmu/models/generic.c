/* SPDX-License-Identifier: MIT */
/*
 * Generic x86 with a TSC and no performance counters (perfctr low-level-x86.txt
 * "Generic": perfctr only permits TSC sampling, nractrs == nrictrs == 0).  The
 * model owns no PMU register, so every PMU MSR access (P5 CESR, P6
 * EVNTSEL/PERFCTR, K7 0xC001000x, ...) raises #GP, as on a CPU without them.
 * perfctr's only rule (no counters) holds by construction.  The TSC is the VMM's,
 * not the vPMU's.
 */
#include "../model.h"
#include "x86_cpuid.h"

/* Never called: the model has no register to write. */
static enum vpmu_fault generic_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				     struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val)
{
	(void)m, (void)cx, (void)t, (void)reg, (void)val;
	return VPMU_FAULT_NO_REG;
}

static void generic_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			   const struct vpmu_regfile *r, struct vpmu_ctl *ctl)
{
	(void)m, (void)cx, (void)r, (void)ctl;   /* never any counter */
}

static bool generic_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			       uint64_t *key, unsigned *priv, bool *interrupt)
{
	(void)m, (void)ctrl, (void)pmc, (void)key, (void)priv, (void)interrupt;
	return false;
}

static const struct vpmu_model_ops generic_ops = {
	.write = generic_write,
	.derive = generic_derive,
	.decode_ctr = generic_decode_ctr,
};

const struct vpmu_model vpmu_model_generic = {
	.name = "generic",
	.description = "Generic x86 with a TSC and no performance counters: every PMU MSR raises #GP",
	/* AMD K6-2: a TSC, no PMU MSRs; perfctr's amd_init refuses family 5 and falls
	 * back to generic_init, Linux's amd_pmu_init needs family >= 6. */
	.id = { "AuthenticAMD", 5, 8, 12, P5_BASE | F_PGE | F_MMX, 0,
		P5_BASE | F_PGE | F_MMX | X_SYSCALL | X_3DNOW, 0 },
	.regspace = VPMU_SPACE_MSR,
	.caps = 0,
	.nr_ctrs = 0, .ctr_width = 0, .nr_ctrl_slots = 0,
	.regs = NULL, .nr_regs = 0,
	.ops = &generic_ops,
};
