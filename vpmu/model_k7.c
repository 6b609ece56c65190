/* SPDX-License-Identifier: MIT */
/*
 * AMD K7 (Athlon, family 6): four 48-bit counters, one EVNTSEL each with its own
 * enable bit (seed 000 "AMD K7/K8"; facts 1a).  The register semantics and the
 * perfctr checks live in amd_k7_common.c; docs/models/k7.md describes them.
 */
#include "amd_k7_common.h"

static const struct vpmu_rule k7_rules[K7_NR_RULES] = { K7_COMMON_RULES };

static const struct vpmu_event_desc k7_events[] = {
	K7_COMMON_EVENTS,
};

static int k7_decode_ctr(const uint64_t *ctrl, unsigned pmc, unsigned *priv, bool *interrupt)
{
	return k7_decode_with(k7_events, sizeof(k7_events) / sizeof(k7_events[0]), ctrl, pmc,
			      priv, interrupt);
}

/* A counter in a derived control decodes from its own EVNTSEL alone. */
static int k7_ctl_event(const struct vpmu_ctl_ctr *e)
{
	return k7_event_with(k7_events, sizeof(k7_events) / sizeof(k7_events[0]), e->evntsel);
}

const struct vpmu_model vpmu_model_k7 = {
	.name = "k7",
	.description = "AMD K7 (Athlon): 4 x 48-bit counters, per-counter enable, PMI through the LVTPC",
	.vendor = "AuthenticAMD",
	/* Athlon XP/MP "Palomino": perfctr's amd_init takes any family 6 as K7. */
	.family = 6, .cpumodel = 6, .stepping = 2,
	.nr_ctrs = K7_NR_CTRS, .ctr_width = K7_CTR_WIDTH, .nr_ctrl_slots = K7_NR_CTRS,
	/* AMD's LVTPC is not masked on PMI delivery (unlike Intel's P4/Pentium M). */
	.has_pcint = true, .intel_lvtpc_automask = false,
	.regs = k7_regs, .nr_regs = sizeof(k7_regs) / sizeof(k7_regs[0]),
	.rules = k7_rules, .nr_rules = K7_NR_RULES,
	.events = k7_events, .nr_events = sizeof(k7_events) / sizeof(k7_events[0]),
	.ctrl_per_counter = true,
	.ctr_ctrl_slot = k7_ctr_ctrl_slot,
	.ctrl_write = k7_ctrl_write,
	.ctr_write = k7_ctr_write,
	.check_write = k7_check_write,
	.derive = k7_derive,
	.check_control = k7_check_control,
	.ctrl_images = k7_ctrl_images,
	.decode_ctr = k7_decode_ctr,
	.ctl_event = k7_ctl_event,
};
