/* SPDX-License-Identifier: MIT */
/*
 * Intel P6 family (Pentium Pro, Pentium II, Pentium III): two 40-bit counters
 * PERFCTR0/1 (0xC1/0xC2) and their event selects EVNTSEL0/1 (0x186/0x187).
 *
 * Hardware (facts 1a, 6; SDM vol. 3 "P6 family performance monitoring"):
 *  - EVNTSEL bit 21 and bits 32-63 are reserved: WRMSR with them set raises #GP
 *    (KVM uses the same mask, 0xffffffff00200000).
 *  - EN (bit 22) of EVNTSEL0 enables both counters; in EVNTSEL1 it is ignored.
 *  - A counter write sets the low 32 bits and sign-extends bit 31 into the 40 bits.
 * perfctr rules (seed 000 "Intel P6"; facts 1c): see p6_rules[].
 */
#include "internal.h"

#define P6_EVNTSEL0 0x186
#define P6_PERFCTR0 0xC1

#define P6_EN   (1ull << 22)
#define P6_INT  (1ull << 20)
#define P6_PC   (1ull << 19)
#define P6_OS   (1ull << 17)
#define P6_USR  (1ull << 16)
#define P6_CPL  (P6_USR | P6_OS)
#define P6_INV  (1ull << 23)
#define P6_CMASK 0xFF000000ull
#define P6_HW_RESERVED 0xFFFFFFFF00200000ull
#define P6_PERFCTR_RESERVED 0x00280000ull   /* perfctr: bits 21 and 19 */

enum {
	P6_RULE_RESERVED,
	P6_RULE_EN_IN_EVNTSEL1,
	P6_RULE_NO_CPL,
	P6_RULE_IRESET,
	P6_NR_RULES
};

static const struct vpmu_rule p6_rules[P6_NR_RULES] = {
	[P6_RULE_RESERVED] = { "evntsel-reserved",
		"EVNTSEL bits 0x00280000 (21 and 19, PC) are reserved (seed 000, Intel P6)" },
	[P6_RULE_EN_IN_EVNTSEL1] = { "evntsel1-enable",
		"the global enable bit 22 is reserved in EVNTSEL1 (seed 000, Intel P6)" },
	[P6_RULE_NO_CPL] = { "cpl-none",
		"an enabled counter's evntsel must set USR or OS, 0x30000 (facts 1c)" },
	[P6_RULE_IRESET] = { "ireset-nonnegative",
		"an i-mode counter must start negative, ireset < 0 (seed 000, perfctr_cpu_control)" },
};

static const struct vpmu_reg p6_regs[] = {
	{ P6_PERFCTR0,     VPMU_SPACE_MSR, VPMU_REG_CTR, 0, 0 },
	{ P6_PERFCTR0 + 1, VPMU_SPACE_MSR, VPMU_REG_CTR, 1, 0 },
	{ P6_EVNTSEL0,     VPMU_SPACE_MSR, VPMU_REG_CTRL, 0, 0 },
	{ P6_EVNTSEL0 + 1, VPMU_SPACE_MSR, VPMU_REG_CTRL, 1, 0 },
};

static const uint8_t p6_ctr_ctrl_slot[2] = { 0, 1 };

/* Linux's p6_perfmon_event_map and the SDM's P6 event table; L2_RQSTS takes a
 * MESI unit mask (0x0F: all lines = references, 0x01: I state = misses). */
static const struct vpmu_event_desc p6_events[] = {
	{ 0x0079, 0x00FF, VPMU_EV_CYCLES, "CPU_CLK_UNHALTED" },
	{ 0x00C0, 0x00FF, VPMU_EV_INSTRUCTIONS, "INST_RETIRED" },
	{ 0x00C4, 0x00FF, VPMU_EV_BRANCHES, "BR_INST_RETIRED" },
	{ 0x00C5, 0x00FF, VPMU_EV_BRANCH_MISSES, "BR_MISS_PRED_RETIRED" },
	{ 0x0062, 0x00FF, VPMU_EV_BUS_CYCLES, "BUS_DRDY_CLOCKS" },
	{ 0x0F2E, 0xFFFF, VPMU_EV_CACHE_REFERENCES, "L2_RQSTS.MESI" },
	{ 0x012E, 0xFFFF, VPMU_EV_CACHE_MISSES, "L2_RQSTS.I" },
	{ 0x0043, 0x00FF, VPMU_EV_NONE, "DATA_MEM_REFS" },
	{ 0x0045, 0x00FF, VPMU_EV_NONE, "DCU_LINES_IN" },
	{ 0x0080, 0x00FF, VPMU_EV_NONE, "IFU_IFETCH" },
	{ 0x00C2, 0x00FF, VPMU_EV_NONE, "UOPS_RETIRED" },
	{ 0x00C8, 0x00FF, VPMU_EV_NONE, "HW_INT_RX" },
	{ 0x002E, 0x00FF, VPMU_EV_NONE, "L2_RQSTS (other unit masks)" },
};

extern const struct vpmu_model vpmu_model_p6;

static enum vpmu_fault p6_ctrl_write(const struct vpmu_cpu_opts *o, unsigned slot, uint64_t val,
				     uint64_t old, uint64_t *stored)
{
	(void)o, (void)slot, (void)old;
	if (val & P6_HW_RESERVED)
		return VPMU_FAULT_RESERVED;
	*stored = val;
	return VPMU_FAULT_NONE;
}

static enum vpmu_fault p6_ctr_write(const struct vpmu_cpu_opts *o, unsigned pmc, uint64_t val,
				    uint64_t *stored)
{
	(void)o, (void)pmc;
	/* Only EAX is used; bit 31 is sign-extended into the 40-bit counter. */
	*stored = (uint64_t)(int64_t)(int32_t)(uint32_t)val & 0xFFFFFFFFFFull;
	return VPMU_FAULT_NONE;
}

static uint32_t p6_check_write(const struct vpmu_cpu_opts *o, unsigned slot, uint64_t val)
{
	(void)o;
	uint32_t viol = 0;
	if (val & P6_PERFCTR_RESERVED)
		viol |= 1u << P6_RULE_RESERVED;
	if (slot == 1 && (val & P6_EN))
		viol |= 1u << P6_RULE_EN_IN_EVNTSEL1;
	return viol;
}

/* The hardware counts counter 0 whenever EVNTSEL0.EN is set (it is also the global
 * enable, so Linux keeps it set with CPL = 0 as a no-op event), and counter 1 when
 * EN is set and EVNTSEL1 selects a privilege level. */
static void p6_derive(const struct vpmu_cpu_opts *o, const struct vpmu_regfile *r,
		      struct vpmu_ctl *ctl)
{
	(void)o;
	uint64_t e0 = r->ctrl[0], e1 = r->ctrl[1];
	if (!(e0 & P6_EN))
		return;
	bool in1 = (e1 & P6_CPL) != 0, i0 = (e0 & P6_INT) != 0, i1 = (e1 & P6_INT) != 0;
	unsigned n = 0;
	/* a-mode counters first, then i-mode (perfctr's control layout). */
	if (!i0)
		ctl->ctr[n].pmc = 0, ctl->ctr[n++].evntsel = e0;
	if (in1 && !i1)
		ctl->ctr[n].pmc = 1, ctl->ctr[n++].evntsel = e1;
	ctl->nractrs = n;
	if (i0)
		ctl->ctr[n].pmc = 0, ctl->ctr[n++].evntsel = e0;
	if (in1 && i1)
		ctl->ctr[n].pmc = 1, ctl->ctr[n++].evntsel = e1;
	ctl->nrictrs = n - ctl->nractrs;
}

static uint32_t p6_check_control(const struct vpmu_cpu_opts *o, const struct vpmu_regfile *r,
				 const struct vpmu_ctl *ctl)
{
	(void)o, (void)r;
	uint32_t viol = 0;
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++) {
		if (!(ctl->ctr[i].evntsel & P6_CPL))
			viol |= 1u << P6_RULE_NO_CPL;
		if (i >= ctl->nractrs && (int32_t)(uint32_t)ctl->ctr[i].ireset >= 0)
			viol |= 1u << P6_RULE_IRESET;
	}
	return viol;
}

static unsigned p6_ctrl_images(const struct vpmu_ctl *ctl, struct vpmu_ctrl_image *out)
{
	unsigned n = vpmu_ctl_n(ctl);
	for (unsigned i = 0; i < n; i++) {
		out[i].slot = (uint16_t)ctl->ctr[i].pmc;
		out[i].value = ctl->ctr[i].evntsel;
	}
	return n;
}

static int p6_decode_ctr(const uint64_t *ctrl, unsigned pmc, unsigned *priv, bool *interrupt)
{
	uint64_t ev = ctrl[pmc];
	if (!(ctrl[0] & P6_EN))
		return VPMU_EV_NONE;
	*priv = ((ev & P6_USR) ? VPMU_PRIV_USER : 0) | ((ev & P6_OS) ? VPMU_PRIV_KERNEL : 0);
	*interrupt = (ev & P6_INT) != 0;
	/* CMASK/INV turn the count into a threshold count: no generic equivalent. */
	if (ev & (P6_CMASK | P6_INV))
		return VPMU_EV_NONE;
	return vpmu_model_event_lookup(&vpmu_model_p6, ev);
}

/* A counter in a derived control is enabled (EVNTSEL0.EN): its event is its own. */
static int p6_ctl_event(const struct vpmu_ctl_ctr *e)
{
	if (e->evntsel & (P6_CMASK | P6_INV))
		return VPMU_EV_NONE;
	return vpmu_model_event_lookup(&vpmu_model_p6, e->evntsel);
}

const struct vpmu_model vpmu_model_p6 = {
	.name = "p6",
	.description = "Intel P6 family (Pentium Pro/II/III): 2 x 40-bit counters, EVNTSEL0.EN global enable",
	.vendor = "GenuineIntel",
	.family = 6, .cpumodel = 8, .stepping = 3,
	.nr_ctrs = 2, .ctr_width = 40, .nr_ctrl_slots = 2,
	.has_pcint = true, .intel_lvtpc_automask = true,
	.regs = p6_regs, .nr_regs = sizeof(p6_regs) / sizeof(p6_regs[0]),
	.rules = p6_rules, .nr_rules = P6_NR_RULES,
	.events = p6_events, .nr_events = sizeof(p6_events) / sizeof(p6_events[0]),
	.ctrl_per_counter = true,
	.ctr_ctrl_slot = p6_ctr_ctrl_slot,
	.ctrl_write = p6_ctrl_write,
	.ctr_write = p6_ctr_write,
	.check_write = p6_check_write,
	.derive = p6_derive,
	.check_control = p6_check_control,
	.ctrl_images = p6_ctrl_images,
	.decode_ctr = p6_decode_ctr,
	.ctl_event = p6_ctl_event,
};
