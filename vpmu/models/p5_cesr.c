/* SPDX-License-Identifier: MIT */
/*
 * The P5-family CESR logic shared by the Intel, Cyrix and Centaur models
 * (p5_cesr.h; perfctr low-level-x86.txt "Intel P5").
 *
 * perfctr's P5 check (perfctr x86.c p5_check_control) and why most of it holds
 * by construction here:
 *  - no i-mode counters (no local APIC LVTPC on these CPUs: no VPMU_CAP_PCINT):
 *    the derived control is all a-mode;
 *  - at most two a-mode counters, pmc <= 1, each half used once: the control is
 *    derived from the two halves of one register;
 *  - at least one CPL bit (0xC0) in each used half (not on WinChip): a half is in
 *    the control exactly when CC & 3 != 0, which is that condition;
 *  - each half's reserved bits (-EPERM): the one rule left, checked on every write.
 */
#include "p5_cesr.h"

static inline const struct p5_cesr_variant *variant(const struct vpmu_model *m)
{
	return m->priv;
}

const struct vpmu_reg p5_cesr_regs[3] = {
	{ P5_CESR_MSR,     VPMU_SPACE_MSR, VPMU_REG_CTRL, 0, 0 },
	{ P5_CTR0_MSR,     VPMU_SPACE_MSR, VPMU_REG_CTR, 0, 0 },
	{ P5_CTR0_MSR + 1, VPMU_SPACE_MSR, VPMU_REG_CTR, 1, 0 },
};

/* Both counters are controlled by CESR (slot 0).  perfctr never isuspends on P5
 * (no i-mode), so this is only for completeness. */
const uint8_t p5_cesr_ctr_ctrl_slot[2] = { 0, 0 };

static inline uint16_t cesr_half(uint64_t cesr, unsigned pmc)
{
	return (uint16_t)(cesr >> (16 * pmc));
}

/* Whether the hardware counts with this half: WinChip counters cannot be stopped
 * (perfctr low-level-x86.txt "Intel P5": no CPL bits; "Processor-specific Notes":
 * Centaur cannot stop its counters); elsewhere CC = x00 means "count nothing"
 * (SDM CC0/CC1 codes). */
static inline bool half_counts(const struct p5_cesr_variant *v, uint16_t half)
{
	return !v->has_cc || (half & (P5_HALF_CC_OS | P5_HALF_CC_USR)) != 0;
}

/* WRMSR to CTR0/CTR1 loads the counter's full width from EDX:EAX; the bits above
 * it do not exist and are dropped (docs/models/p5.md "Counters").  CESR: bits the
 * variant does not define raise #GP; perfctr's reserved mask applies to each half
 * whatever else is set, so a disabled half is checked too (docs/principles.md §2,
 * step 1). */
static enum vpmu_fault p5_cesr_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				     struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val)
{
	(void)cx;
	const struct p5_cesr_variant *v = variant(m);
	if (reg->kind == VPMU_REG_CTR) {
		vpmu_txn_set_ctr(t, reg->index, val & vpmu_width_mask(m->ctr_width));
		return VPMU_FAULT_NONE;
	}
	if (val & ~v->hw_defined)
		return VPMU_FAULT_RESERVED;
	for (unsigned pmc = 0; pmc < 2; pmc++)
		if (cesr_half(val, pmc) & v->perfctr_reserved)
			vpmu_txn_violate(t, P5_CESR_RULE_RESERVED);
	vpmu_txn_set_ctrl(t, 0, val);
	return VPMU_FAULT_NONE;
}

static void p5_cesr_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			   const struct vpmu_regfile *r, struct vpmu_ctl *ctl)
{
	(void)cx;
	unsigned n = 0;
	for (unsigned pmc = 0; pmc < 2; pmc++) {
		uint16_t half = cesr_half(r->ctrl[0], pmc);
		if (!half_counts(variant(m), half))
			continue;
		/* perfctr: the evntsel are "direct images of the CESR" halves */
		vpmu_ctl_set(&ctl->ctr[n++], pmc, half);
	}
	ctl->nractrs = n;
}

/* perfctr's write_control on P5 writes CESR = (half1 << 16) | half0 of the counters
 * in the control, and skips the write when that is 0 (perfctr x86.c
 * p5_write_control). */
static unsigned p5_cesr_ctrl_images(const struct vpmu_model *m, const struct vpmu_ctl *ctl,
				    struct vpmu_ctrl_image *out)
{
	(void)m;
	uint64_t cesr = 0;
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++)
		cesr |= (ctl->ctr[i].evntsel & 0xFFFF) << (16 * ctl->ctr[i].pmc);
	if (!vpmu_ctl_n(ctl))
		return 0;
	out[0].slot = 0;
	out[0].value = cesr;
	return 1;
}

static bool p5_cesr_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			       uint64_t *key, unsigned *priv, bool *interrupt)
{
	const struct p5_cesr_variant *v = variant(m);
	uint16_t half = cesr_half(ctrl[0], pmc);
	*interrupt = false;   /* no LVTPC: overflow only toggles the PMn pin */
	if (!half_counts(v, half))
		return false;
	if (v->has_cc)
		*priv = ((half & P5_HALF_CC_OS) ? VPMU_PRIV_KERNEL : 0) |
			((half & P5_HALF_CC_USR) ? VPMU_PRIV_USER : 0);
	else
		*priv = VPMU_PRIV_USER | VPMU_PRIV_KERNEL;
	*key = half & v->event_key_bits;
	return true;
}

static uint64_t p5_cesr_ctl_key(const struct vpmu_model *m, const struct vpmu_ctl_ctr *e)
{
	return e->evntsel & variant(m)->event_key_bits;
}

const struct vpmu_model_ops p5_cesr_ops = {
	.write = p5_cesr_write,
	.derive = p5_cesr_derive,
	.ctrl_images = p5_cesr_ctrl_images,
	.decode_ctr = p5_cesr_decode_ctr,
	.ctl_key = p5_cesr_ctl_key,
};

/*
 * Intel P5/P5MMX.  The SDM's CESR figure defines bits 0-9 and 16-25 and marks
 * 10-15 and 26-31 reserved (a 32-bit MSR, so 32-63 do not exist); vpmu raises #GP
 * on all of them (assumption: docs/models/p5.md).  perfctr reserves 0xFE00 per half:
 * the hardware-reserved bits and PC (bit 9), which is valid hardware, so PC is the
 * bit that strict mode refuses and default mode records.
 */
const struct p5_cesr_variant p5_cesr_intel = {
	.hw_defined = 0x03FF03FFull,
	.perfctr_reserved = 0xFE00,
	.has_cc = true,
	.event_key_bits = P5_HALF_EVENT | P5_HALF_CC_CLK,
};

/* Cyrix 6x86MX/MII/III: the Intel layout plus event bit 6 in bit 10 (26 for the
 * second half); perfctr reserves 0xFA00 per half (perfctr x86.c p5_check_control,
 * the MII variant). */
const struct p5_cesr_variant p5_cesr_cyrix = {
	.hw_defined = 0x07FF07FFull,
	.perfctr_reserved = 0xFA00,
	.has_cc = true,
	.event_key_bits = P5_HALF_EVENT | P5_CYRIX_EV6 | P5_HALF_CC_CLK,
};

/* Centaur WinChip C6/2/3: an 8-bit event select per half and nothing else; no CC
 * field, counts at every privilege level and cannot be stopped.  perfctr reserves
 * 0xFF00 per half.  Only bits 32-63 fault (assumption: docs/models/winchip-c6.md). */
const struct p5_cesr_variant p5_cesr_winchip = {
	.hw_defined = 0xFFFFFFFFull,
	.perfctr_reserved = 0xFF00,
	.has_cc = false,
	.event_key_bits = 0x00FF,
};

const struct vpmu_rule p5_cesr_intel_rules[P5_CESR_NR_RULES] = {
	[P5_CESR_RULE_RESERVED] = { "cesr-reserved",
		"CESR bits 0xFE00 of each 16-bit half (PC and the reserved bits) must be clear "
		"(perfctr low-level-x86.txt, Intel P5; x86.c p5_check_control: -EPERM)", 0 },
};

const struct vpmu_rule p5_cesr_cyrix_rules[P5_CESR_NR_RULES] = {
	[P5_CESR_RULE_RESERVED] = { "cesr-reserved",
		"CESR bits 0xFA00 of each 16-bit half (PC and bits 11-15) must be clear "
		"(perfctr low-level-x86.txt, Intel P5: Cyrix clones; x86.c: -EPERM)", 0 },
};

const struct vpmu_rule p5_cesr_winchip_rules[P5_CESR_NR_RULES] = {
	[P5_CESR_RULE_RESERVED] = { "cesr-reserved",
		"CESR bits 0xFF00 of each 16-bit half must be clear "
		"(perfctr low-level-x86.txt, Intel P5: Centaur clones; x86.c: -EPERM)", 0 },
};

