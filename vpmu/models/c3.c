/* SPDX-License-Identifier: MIT */
/*
 * VIA C3 (Centaur "Samuel 2"/Ezra, CPUID family 6): a bad P6 clone with one usable
 * counter (perfctr low-level-x86.txt "VIA C3").
 *  - EVNTSEL1 (0x187) and PERFCTR1 (0xC2) are the only programmable registers.
 *    EVNTSEL1 has a 9-bit event field and nothing else: no enable, no CPL bits, no
 *    interrupt bit (perfctr event_set_centaur.c, from the C3 Samuel 2 datasheet), so
 *    the counter always counts its event at every privilege level and cannot be
 *    stopped (low-level-x86.txt: "Some processors are unable to stop the counters").
 *  - EVNTSEL0 (0x186) is read-only; PERFCTR0 (0xC1) is an alias of the TSC.  Both
 *    are kept as read-only values reading 0 (docs/models/c3.md: deviation).
 *  - PERFCTR1 is 32 bits wide (perfctr x86.c: the C3 has 32-bit counters).
 * perfctr (x86.c vc3_check_control): nri == 0, nra <= 1, pmc_map[0] == 1 hold by
 * construction; evntsel bits 0xFFFFFE00 are reserved: see c3_rules[].
 */
#include "../events.h"
#include "../model.h"
#include "x86_cpuid.h"

#define C3_PERFCTR0 0xC1
#define C3_PERFCTR1 0xC2
#define C3_EVNTSEL0 0x186
#define C3_EVNTSEL1 0x187

#define C3_EVENT 0x1FFull
#define C3_PERFCTR_RESERVED 0xFFFFFE00ull     /* perfctr VC3_EVNTSEL1_RESERVED */
/* Bits 32-63 of a 32-bit control MSR: reserved, #GP as on the P6 (assumption). */
#define C3_HW_RESERVED 0xFFFFFFFF00000000ull

enum { C3_MISC_PERFCTR0, C3_MISC_EVNTSEL0, C3_NR_MISC };

enum {
	C3_RULE_RESERVED,
	C3_NR_RULES
};

static const struct vpmu_rule c3_rules[C3_NR_RULES] = {
	[C3_RULE_RESERVED] = { "evntsel-reserved",
		"EVNTSEL1 bits 0xFFFFFE00 are reserved: only the 9-bit event field exists "
		"(perfctr low-level-x86.txt, VIA C3; x86.c vc3_check_control: -EPERM)", 0 },
};

static const struct vpmu_reg c3_regs[] = {
	{ C3_PERFCTR0, VPMU_SPACE_MSR, VPMU_REG_MISC, C3_MISC_PERFCTR0, 0 },
	{ C3_PERFCTR1, VPMU_SPACE_MSR, VPMU_REG_CTR, 1, 0 },
	{ C3_EVNTSEL0, VPMU_SPACE_MSR, VPMU_REG_MISC, C3_MISC_EVNTSEL0, 0 },
	{ C3_EVNTSEL1, VPMU_SPACE_MSR, VPMU_REG_CTRL, 0, 0 },
};

/* Counter 0 is never in a control; counter 1 is controlled by slot 0 (EVNTSEL1). */
static const uint8_t c3_ctr_ctrl_slot[2] = { 0, 0 };

static enum vpmu_fault c3_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val)
{
	(void)m, (void)cx;
	switch (reg->kind) {
	case VPMU_REG_CTRL:
		if (val & C3_HW_RESERVED)
			return VPMU_FAULT_RESERVED;
		if (val & C3_PERFCTR_RESERVED)
			vpmu_txn_violate(t, C3_RULE_RESERVED);
		vpmu_txn_set_ctrl(t, 0, val);
		return VPMU_FAULT_NONE;
	case VPMU_REG_CTR:
		/* 32 bits wide: EAX lands, EDX is ignored as on the P6 (assumption). */
		vpmu_txn_set_ctr(t, reg->index, val & 0xFFFFFFFFull);
		return VPMU_FAULT_NONE;
	default:
		/* EVNTSEL0 and the TSC alias PERFCTR0 do not change (a restore may
		 * still load them). */
		if (!t->host && val != t->regs->misc[reg->index])
			return VPMU_FAULT_READ_ONLY;
		vpmu_txn_set_misc(t, reg->index, val);
		return VPMU_FAULT_NONE;
	}
}

/* The counter cannot be stopped: counter 1 is always an a-mode counter of the
 * control, with EVNTSEL1 as its image (perfctr's only valid non-empty C3 control:
 * nra 1, pmc_map[0] 1, no i-mode). */
static void c3_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
		      const struct vpmu_regfile *r, struct vpmu_ctl *ctl)
{
	(void)m, (void)cx;
	vpmu_ctl_set(&ctl->ctr[0], 1, r->ctrl[0]);
	ctl->nractrs = 1;
}

/* Counter 1's image goes to slot 0 (EVNTSEL1). */
static unsigned c3_ctrl_images(const struct vpmu_model *m, const struct vpmu_ctl *ctl,
			       struct vpmu_ctrl_image *out)
{
	(void)m;
	unsigned n = vpmu_ctl_n(ctl);
	for (unsigned i = 0; i < n; i++) {
		out[i].slot = 0;
		out[i].value = ctl->ctr[i].evntsel;
	}
	return n;
}

static bool c3_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			  uint64_t *key, unsigned *priv, bool *interrupt)
{
	(void)m;
	if (pmc != 1)
		return false;    /* PERFCTR0 is the TSC, not an event counter */
	*priv = VPMU_PRIV_USER | VPMU_PRIV_KERNEL;
	*interrupt = false;
	/* Only the 9-bit event field is defined: the table's matches look at it alone. */
	*key = ctrl[0];
	return true;
}

static const struct vpmu_model_ops c3_ops = {
	.write = c3_write,
	.derive = c3_derive,
	.ctrl_images = c3_ctrl_images,
	.decode_ctr = c3_decode_ctr,
};

const struct vpmu_model vpmu_model_c3 = {
	.name = "c3",
	.description = "VIA C3: one 32-bit counter (PERFCTR1/EVNTSEL1) that cannot be stopped, no PMI",
	/* Samuel 2: perfctr's centaur_init takes family 6 models 6-9. */
	.id = { "CentaurHauls", 6, 7, 3, F_FPU | F_DE | F_TSC | F_MSR | F_CX8 | F_MTRR | F_PGE | F_MMX, 0,
		F_FPU | F_DE | F_TSC | F_MSR | F_CX8 | F_MTRR | F_PGE | F_MMX | X_3DNOW, 0 },
	.regspace = VPMU_SPACE_MSR,
	/* No interrupt bit in EVNTSEL1: perfctr offers no PCINT on the C3. */
	.caps = 0,
	.nr_ctrs = 2, .ctr_width = 32, .nr_ctrl_slots = 1,
	.regs = c3_regs, .nr_regs = sizeof(c3_regs) / sizeof(c3_regs[0]),
	.misc_reset = NULL,           /* both MISC registers reset to 0 */
	.rules = c3_rules, .nr_rules = C3_NR_RULES,
	.table = &vpmu_events_c3,   /* data/perfmon/vpmu/c3.json */
	.ctr_ctrl_slot = c3_ctr_ctrl_slot,
	.ops = &c3_ops,
};
