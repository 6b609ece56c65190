/* SPDX-License-Identifier: MIT */
/*
 * AMD K8 (Athlon 64/Opteron, family 15): the K7 counter layout (perfctr
 * low-level-x86.txt "AMD K7/K8": like a K7 with a different event set; perfctr
 * x86.c amd_init) plus perfctr 2.6.x's refusal of northbridge events on multicore
 * revision E parts (perfctr 2.6.42 x86.c amd_multicore_init and
 * p6_like_check_control).  docs/models/k8.md describes the model.
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
		"revision E K8, models 0x20-0x3F (perfctr 2.6.42 x86.c, -EPERM)", 0 },
};

/* perfctr 2.6.42 amd_multicore_init: family 15 models 0x20-0x3F are revision E,
 * whose NB counters reset whenever either core reprograms an EVNTSEL; a vCPU is a
 * thread of the per-thread API, and its VM presents several cores. */
static bool k8_is_rev_e(const struct vpmu_vm_opts *o)
{
	return o->cpumodel >= 0x20 && o->cpumodel < 0x40;
}

static uint32_t k8_check_control(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				 const struct vpmu_regfile *r, const struct vpmu_ctl *ctl)
{
	uint32_t viol = k7_check_control(m, cx, r, ctl);
	if (!k8_is_rev_e(cx->vm))
		return viol;
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++)
		if (((ctl->ctr[i].evntsel >> 5) & 7) == 7)   /* perfctr IS_K8_NB_EVENT */
			viol |= 1u << K8_RULE_NB_EVENT;
	return viol;
}

static const struct vpmu_model_ops k8_ops = {
	.write = k7_write,
	.derive = k7_derive,
	.check_control = k8_check_control,
	.decode_ctr = k7_decode_ctr,
};

const struct vpmu_model vpmu_model_k8 = {
	.name = "k8",
	.description = "AMD K8 (Athlon 64/Opteron): 4 x 48-bit counters, per-counter enable, "
		       "no NB events per thread on multicore rev E",
	/* Athlon 64 X2 "Toledo": a dual-core revision E part (model 0x23, stepping 2). */
	.id = { "AuthenticAMD", 15, 0x23, 2, P6_BASE | F_SSE | F_SSE2 | F_CLFSH, 0,
		(P6_BASE & ~F_SEP) | X_SYSCALL | X_NX | X_MMXEXT | X_LM | X_3DNOWX | X_3DNOW, 0 },
	.regspace = VPMU_SPACE_MSR,
	.caps = VPMU_CAP_PCINT,
	.nr_ctrs = K7_NR_CTRS, .ctr_width = K7_CTR_WIDTH, .nr_ctrl_slots = K7_NR_CTRS,
	.regs = k7_regs, .nr_regs = sizeof(k7_regs) / sizeof(k7_regs[0]),
	.rules = k8_rules, .nr_rules = K8_NR_RULES,
	.table = &vpmu_events_k8,   /* data/perfmon/vpmu/k8.json */
	.event_exclude = K7_EVENT_EXCLUDE,
	.ops = &k8_ops,
};
