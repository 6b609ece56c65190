/* SPDX-License-Identifier: MIT */
/*
 * Intel P6 family (Pentium Pro, Pentium II, Pentium III; the Pentium M and later
 * family-6 identities through the VM's CPUID model): two 40-bit counters
 * PERFCTR0/1 (0xC1/0xC2) and their event selects EVNTSEL0/1 (0x186/0x187).
 *
 * Hardware (Intel SDM vol. 3, "Performance Monitoring Overview: P6 family"):
 *  - EVNTSEL bit 21 and bits 32-63 are reserved: WRMSR with them set raises #GP
 *    (KVM uses the same mask, 0xffffffff00200000).
 *  - EN (bit 22) of EVNTSEL0 enables both counters; in EVNTSEL1 it is ignored.
 *  - A counter write sets the low 32 bits and sign-extends bit 31 into the 40 bits.
 *  - IA32_MISC_ENABLE (0x1A0) exists from the Pentium M on, with bit 7
 *    (performance monitoring available) set.
 * perfctr rules (perfctr low-level-x86.txt "Intel P6"; perfctr x86.c
 * p6_like_check_control): see p6_rules[].  The page: docs/models/p6.md.
 */
#include "../events.h"
#include "../model.h"
#include "x86_cpuid.h"

#define P6_PERFCTR0 0xC1
#define P6_EVNTSEL0 0x186
#define MSR_MISC_ENABLE 0x1A0

#define P6_EN   (1ull << 22)
#define P6_INT  (1ull << 20)
#define P6_EDGE (1ull << 18)
#define P6_OS   (1ull << 17)
#define P6_USR  (1ull << 16)
#define P6_CPL  (P6_USR | P6_OS)
#define P6_INV  (1ull << 23)
#define P6_CMASK 0xFF000000ull
#define P6_HW_RESERVED 0xFFFFFFFF00200000ull
#define P6_PERFCTR_RESERVED 0x00280000ull   /* perfctr: bits 21 and 19 */

/* IA32_MISC_ENABLE: b7 PERF_AVAIL, b11 BTS_UNAVAIL, b12 PEBS_UNAVAIL (no BTS or
 * PEBS is emulated), read-only to the guest; the other bits keep what it writes. */
#define MISC_ENABLE_PMU_BITS ((1ull << 7) | (1ull << 11) | (1ull << 12))

enum {
	P6_RULE_RESERVED,
	P6_RULE_EN_IN_EVNTSEL1,
	P6_RULE_NO_CPL,
	P6_RULE_IRESET,
	P6_NR_RULES
};

static const struct vpmu_rule p6_rules[P6_NR_RULES] = {
	[P6_RULE_RESERVED] = { "evntsel-reserved",
		"EVNTSEL bits 0x00280000 (21 and 19, PC) are reserved (perfctr low-level-x86.txt, "
		"Intel P6)", 0 },
	[P6_RULE_EN_IN_EVNTSEL1] = { "evntsel1-enable",
		"the global enable bit 22 is reserved in EVNTSEL1 (perfctr low-level-x86.txt, "
		"Intel P6)", 0 },
	[P6_RULE_NO_CPL] = { "cpl-none",
		"an enabled counter's evntsel must set USR or OS, 0x30000 (perfctr x86.c "
		"p6_like_check_control)", 0 },
	[P6_RULE_IRESET] = { "ireset-nonnegative",
		"an i-mode counter must start negative, ireset < 0 (perfctr x86.c check_ireset)",
		VPMU_RULE_CHECK_IRESET },
};

enum { P6_MISC_ENABLE };

static const struct vpmu_reg p6_regs[] = {
	{ P6_PERFCTR0,     VPMU_SPACE_MSR, VPMU_REG_CTR, 0, 0 },
	{ P6_PERFCTR0 + 1, VPMU_SPACE_MSR, VPMU_REG_CTR, 1, 0 },
	{ P6_EVNTSEL0,     VPMU_SPACE_MSR, VPMU_REG_CTRL, 0, 0 },
	{ P6_EVNTSEL0 + 1, VPMU_SPACE_MSR, VPMU_REG_CTRL, 1, 0 },
	{ MSR_MISC_ENABLE, VPMU_SPACE_MSR, VPMU_REG_MISC, P6_MISC_ENABLE, VPMU_REGF_READ_HOOK },
};

static const uint64_t p6_misc_reset[VPMU_MAX_MISC] = { [P6_MISC_ENABLE] = MISC_ENABLE_PMU_BITS };

/* IA32_MISC_ENABLE exists on the family-6 parts from the Pentium M (model 9) on
 * that Linux's and perfctr's drivers check bit 7 of; a Pentium Pro/II/III has no
 * such MSR, so RDMSR 0x1A0 raises #GP there as on the real CPU. */
static bool p6_has_misc_enable(const struct vpmu_vm_opts *o)
{
	static const uint8_t models[] = { 9, 13, 14, 15, 22, 23, 26, 28, 29, 30, 37, 42, 44, 46 };
	for (size_t i = 0; i < sizeof(models); i++)
		if (o->cpumodel == models[i])
			return true;
	return false;
}

/* A write that keeps which counters count and how (EVNTSEL0.EN, each INT, and
 * whether EVNTSEL1 selects a privilege level) changes only its counter's image:
 * tell the core (vpmu_txn_retarget). */
static inline void p6_retarget(struct vpmu_txn *t, unsigned slot, uint64_t old, uint64_t val)
{
	uint64_t diff = old ^ val;
	if (diff & (P6_INT | (slot == 0 ? P6_EN : 0)))
		return;
	if (slot == 1 && !(old & P6_CPL) != !(val & P6_CPL))
		return;
	vpmu_txn_retarget(t, slot, val);
}

static enum vpmu_fault p6_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val)
{
	(void)m;
	switch (reg->kind) {
	case VPMU_REG_CTRL:
		if (val & P6_HW_RESERVED)
			return VPMU_FAULT_RESERVED;
		if (val & P6_PERFCTR_RESERVED)
			vpmu_txn_violate(t, P6_RULE_RESERVED);
		if (reg->index == 1 && (val & P6_EN))
			vpmu_txn_violate(t, P6_RULE_EN_IN_EVNTSEL1);
		p6_retarget(t, reg->index, t->regs->ctrl[reg->index], val);
		vpmu_txn_set_ctrl(t, reg->index, val);
		return VPMU_FAULT_NONE;
	case VPMU_REG_CTR:
		/* Only EAX is used; bit 31 is sign-extended into the 40-bit counter.
		 * A restore loads the saved 40 bits as they are. */
		if (!t->host)
			val = (uint64_t)(int64_t)(int32_t)(uint32_t)val;
		vpmu_txn_set_ctr(t, reg->index, val & 0xFFFFFFFFFFull);
		return VPMU_FAULT_NONE;
	default:
		if (!p6_has_misc_enable(cx->vm))
			return VPMU_FAULT_NO_REG;
		if (!t->host)
			val = (t->regs->misc[P6_MISC_ENABLE] & MISC_ENABLE_PMU_BITS) |
			      (val & ~MISC_ENABLE_PMU_BITS);
		vpmu_txn_set_misc(t, P6_MISC_ENABLE, val);
		return VPMU_FAULT_NONE;
	}
}

static enum vpmu_fault p6_read(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			       const struct vpmu_regfile *r, const struct vpmu_reg *reg,
			       uint64_t raw, uint64_t *val)
{
	(void)m, (void)r, (void)reg;
	if (!p6_has_misc_enable(cx->vm))
		return VPMU_FAULT_NO_REG;
	*val = raw;
	return VPMU_FAULT_NONE;
}

/* The hardware counts counter 0 whenever EVNTSEL0.EN is set (it is also the global
 * enable, so Linux keeps it set with CPL = 0 as a no-op event), and counter 1 when
 * EN is set and EVNTSEL1 selects a privilege level. */
static void p6_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
		      const struct vpmu_regfile *r, struct vpmu_ctl *ctl)
{
	(void)m, (void)cx;
	uint64_t e0 = r->ctrl[0], e1 = r->ctrl[1];
	if (!(e0 & P6_EN))
		return;
	bool in1 = (e1 & P6_CPL) != 0, i0 = (e0 & P6_INT) != 0, i1 = (e1 & P6_INT) != 0;
	unsigned n = 0;
	/* a-mode counters first, then i-mode (perfctr's control layout). */
	if (!i0)
		vpmu_ctl_set(&ctl->ctr[n++], 0, e0);
	if (in1 && !i1)
		vpmu_ctl_set(&ctl->ctr[n++], 1, e1);
	ctl->nractrs = n;
	if (i0)
		vpmu_ctl_set(&ctl->ctr[n++], 0, e0);
	if (in1 && i1)
		vpmu_ctl_set(&ctl->ctr[n++], 1, e1);
	ctl->nrictrs = n - ctl->nractrs;
}

static uint32_t p6_check_control(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				 const struct vpmu_regfile *r, const struct vpmu_ctl *ctl)
{
	(void)m, (void)cx, (void)r;
	uint32_t viol = 0;
	/* P6_RULE_IRESET is the core's (VPMU_RULE_CHECK_IRESET). */
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++)
		if (!(ctl->ctr[i].evntsel & P6_CPL))
			viol |= 1u << P6_RULE_NO_CPL;
	return viol;
}

static bool p6_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			  uint64_t *key, unsigned *priv, bool *interrupt)
{
	(void)m;
	uint64_t ev = ctrl[pmc];
	if (!(ctrl[0] & P6_EN))
		return false;
	*priv = ((ev & P6_USR) ? VPMU_PRIV_USER : 0) | ((ev & P6_OS) ? VPMU_PRIV_KERNEL : 0);
	*interrupt = (ev & P6_INT) != 0;
	*key = ev;
	return true;
}

/* The Pentium M (model 9 Banias, 13 Dothan) and the later family-6 parts (14
 * on) set the LVTPC mask on PMI delivery, as the P4 does (Intel SDM vol. 3,
 * "Local Vector Table": the mask note of the LVT performance counter register);
 * the Pentium Pro/II/III do not, and model numbers are not in release order:
 * the Pentium III Xeon "Cascades" is model 10 and the Pentium III "Tualatin"
 * model 11, after the Pentium M's 9 (Linux arch/x86/events/intel/p6.c
 * p6_pmu_init lists them so).  perfctr's x86.c sets lvtpc_reinit_needed for
 * models 9, 13, 14 and 15 only.  No family-6 part has model 12: it is left with
 * the P-III class. */
static bool p6_pmi_automask(const struct vpmu_model *m, const struct vpmu_vm_opts *o)
{
	(void)m;
	return o->cpumodel == 9 || o->cpumodel >= 13;
}

static const struct vpmu_model_ops p6_ops = {
	.write = p6_write,
	.read = p6_read,
	.derive = p6_derive,
	.check_control = p6_check_control,
	.decode_ctr = p6_decode_ctr,
	.pmi_automask = p6_pmi_automask,
};

const struct vpmu_model vpmu_model_p6 = {
	.name = "p6",
	.description = "Intel P6 family (Pentium Pro/II/III): 2 x 40-bit counters, EVNTSEL0.EN global enable",
	/* A Pentium III "Coppermine" (model 8, stepping 3). */
	.id = { "GenuineIntel", 6, 8, 3, P6_BASE | F_SSE, 0, 0, 0 },
	.regspace = VPMU_SPACE_MSR,
	.caps = VPMU_CAP_PCINT,
	.nr_ctrs = 2, .ctr_width = 40, .nr_ctrl_slots = 2,
	.regs = p6_regs, .nr_regs = sizeof(p6_regs) / sizeof(p6_regs[0]),
	.misc_reset = p6_misc_reset,
	.rules = p6_rules, .nr_rules = P6_NR_RULES,
	.table = &vpmu_events_p6,   /* data/perfmon/vpmu/p6.json */
	/* CMASK/INV make a threshold count, E an edge count: no generic equivalent. */
	.event_exclude = P6_CMASK | P6_INV | P6_EDGE,
	.ops = &p6_ops,
};
