/* SPDX-License-Identifier: MIT */
/*
 * Generic x86 with a TSC and no performance counters (seed 000 "Generic": perfctr
 * only permits TSC sampling, nractrs == nrictrs == 0; facts 1c).  The model owns no
 * PMU register, so every PMU MSR access (P5 CESR, P6 EVNTSEL/PERFCTR, K7 0xC001000x,
 * P4 CCCR/ESCR...) raises #GP, as on a CPU without them.  perfctr's only rule
 * (no counters) holds by construction.  The TSC is the VMM's, not the vPMU's.
 */
#include "internal.h"

static enum vpmu_fault generic_ctrl_write(const struct vpmu_cpu_opts *o, unsigned slot,
					  uint64_t val, uint64_t old, uint64_t *stored)
{
	(void)o, (void)slot, (void)val, (void)old, (void)stored;
	return VPMU_FAULT_NO_REG;
}

static enum vpmu_fault generic_ctr_write(const struct vpmu_cpu_opts *o, unsigned pmc,
					 uint64_t val, uint64_t *stored)
{
	(void)o, (void)pmc, (void)val, (void)stored;
	return VPMU_FAULT_NO_REG;
}

static void generic_derive(const struct vpmu_cpu_opts *o, const struct vpmu_regfile *r,
			   struct vpmu_ctl *ctl)
{
	(void)o, (void)r, (void)ctl;   /* never any counter */
}

static unsigned generic_ctrl_images(const struct vpmu_ctl *ctl, struct vpmu_ctrl_image *out)
{
	(void)ctl, (void)out;
	return 0;
}

static int generic_decode_ctr(const uint64_t *ctrl, unsigned pmc, unsigned *priv,
			      bool *interrupt)
{
	(void)ctrl, (void)pmc, (void)priv, (void)interrupt;
	return VPMU_EV_NONE;
}

const struct vpmu_model vpmu_model_generic = {
	.name = "generic",
	.description = "Generic x86 with a TSC and no performance counters: every PMU MSR raises #GP",
	.vendor = "AuthenticAMD",
	/* AMD K6-2: a TSC, no PMU MSRs; perfctr's amd_init refuses family 5 and falls
	 * back to generic_init, Linux's amd_pmu_init needs family >= 6 (facts 2). */
	.family = 5, .cpumodel = 8, .stepping = 12,
	.nr_ctrs = 0, .ctr_width = 0, .nr_ctrl_slots = 0,
	.has_pcint = false, .intel_lvtpc_automask = false,
	.regspace = VPMU_SPACE_MSR,
	.regs = NULL, .nr_regs = 0,   /* model_reg()'s search finds nothing in 0 entries */
	.rules = NULL, .nr_rules = 0,
	.events = NULL, .nr_events = 0,
	.ctr_ctrl_slot = NULL,
	.ctrl_write = generic_ctrl_write,
	.ctr_write = generic_ctr_write,
	.check_write = NULL,
	.derive = generic_derive,
	.check_control = NULL,
	.ctrl_images = generic_ctrl_images,
	.decode_ctr = generic_decode_ctr,
};
