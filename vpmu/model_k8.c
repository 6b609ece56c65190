/* SPDX-License-Identifier: MIT */
/*
 * AMD K8 (Athlon 64/Opteron, family 15): the K7 counter layout (seed 000 "AMD K7/K8":
 * "Like a K7 with a different event set", perfctr amd_init) plus perfctr 2.6.x's
 * refusal of northbridge events on multicore revision E parts (facts 1c).
 * docs/models/k8.md describes the model.
 */
#include "amd_k7_common.h"

enum {
	K8_RULE_NB_EVENT = K7_NR_RULES,
	K8_NR_RULES
};

static const struct vpmu_rule k8_rules[K8_NR_RULES] = {
	K7_COMMON_RULES,
	[K8_RULE_NB_EVENT] = { "nb-event-reve",
		"no northbridge event (event bits 5-7 == 7, 0xE0-0xFF) per thread on a multicore "
		"revision E K8, models 0x20-0x3F (facts 1c, perfctr 2.6.x -EPERM)" },
};

/* perfctr 2.6.42 amd_multicore_init: family 15 models 0x20-0x3F are revision E,
 * whose NB counters reset whenever either core reprograms an EVNTSEL; a vCPU is a
 * thread of the per-thread API, and its VM presents several cores. */
static bool k8_is_rev_e(const struct vpmu_cpu_opts *o)
{
	return o->cpumodel >= 0x20 && o->cpumodel < 0x40;
}

static uint32_t k8_check_control(const struct vpmu_cpu_opts *o, const struct vpmu_regfile *r,
				 const struct vpmu_ctl *ctl)
{
	uint32_t viol = k7_check_control(o, r, ctl);
	if (!k8_is_rev_e(o))
		return viol;
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++)
		if (((ctl->ctr[i].evntsel >> 5) & 7) == 7)   /* perfctr IS_K8_NB_EVENT */
			viol |= 1u << K8_RULE_NB_EVENT;
	return viol;
}

static const struct vpmu_event_desc k8_events[] = {
	K7_COMMON_EVENTS,
	/* Event bits 5-7 all set: the northbridge events (DRAM, HyperTransport,
	 * memory controller; K8 BKDG), counted per node, not per core. */
	{ 0xE0, 0xE0, VPMU_EV_NONE, "NB_EVENTS (0xE0-0xFF)" },
};

static int k8_decode_ctr(const uint64_t *ctrl, unsigned pmc, unsigned *priv, bool *interrupt)
{
	return k7_decode_with(k8_events, sizeof(k8_events) / sizeof(k8_events[0]), ctrl, pmc,
			      priv, interrupt);
}

/* A counter in a derived control decodes from its own EVNTSEL alone. */
static int k8_ctl_event(const struct vpmu_ctl_ctr *e)
{
	return k7_event_with(k8_events, sizeof(k8_events) / sizeof(k8_events[0]), e->evntsel);
}

const struct vpmu_model vpmu_model_k8 = {
	.name = "k8",
	.description = "AMD K8 (Athlon 64/Opteron): 4 x 48-bit counters, per-counter enable, "
		       "no NB events per thread on multicore rev E",
	.vendor = "AuthenticAMD",
	/* Athlon 64 X2 "Toledo": a dual-core revision E part (model 0x23, stepping 2). */
	.family = 15, .cpumodel = 0x23, .stepping = 2,
	.nr_ctrs = K7_NR_CTRS, .ctr_width = K7_CTR_WIDTH, .nr_ctrl_slots = K7_NR_CTRS,
	.has_pcint = true, .intel_lvtpc_automask = false,
	.regs = k7_regs, .nr_regs = sizeof(k7_regs) / sizeof(k7_regs[0]),
	.rules = k8_rules, .nr_rules = K8_NR_RULES,
	.events = k8_events, .nr_events = sizeof(k8_events) / sizeof(k8_events[0]),
	.ctrl_per_counter = true,
	.ctr_ctrl_slot = k7_ctr_ctrl_slot,
	.ctrl_write = k7_ctrl_write,
	.ctr_write = k7_ctr_write,
	.check_write = k7_check_write,
	.derive = k7_derive,
	.check_control = k8_check_control,
	.ctrl_images = k7_ctrl_images,
	.decode_ctr = k8_decode_ctr,
	.ctl_event = k8_ctl_event,
};
