/* SPDX-License-Identifier: MIT */
/*
 * The ops of the PowerPC 604/750/74xx performance monitor (ppc_pmu.h has the
 * registers; ppc604.c, ppc750.c and ppc74xx.c the CPUs).
 *
 * Hardware (the "Performance Monitor" chapters of the PowerPC 604e RISC
 * Microprocessor User's Manual, the MPC750 RISC Microprocessor Family User's
 * Manual and the MPC7450 RISC Microprocessor Family Reference Manual):
 *  - PMC1..PMCn are 32-bit counters; PMCkSEL 0 selects no event (the counter
 *    holds its value), 1 processor cycles and 2 instructions completed on every
 *    PMC; the other selectors differ per PMC and per CPU.
 *  - MMCR0[FC] freezes every counter, FCS in supervisor state, FCP in problem
 *    state, FCM1/FCM0 while MSR[PMM] is 1/0.
 *  - An enabled condition is a counter becoming negative (bit 31 set) with
 *    PMC1CE (PMC1) or PMCjCE (PMC2..n); with PMXE it signals the
 *    performance-monitor exception (vector 0xF00), which clears PMXE on the
 *    7xx and 74xx but not on the 604.  FCECE sets FC at an enabled condition
 *    (unless TRIGGER is set), and TRIGGER holds PMC2..n until PMC1 becomes
 *    negative, when the hardware clears it.
 *  - The exception is a level: a counter still negative when PMXE is set again
 *    interrupts again (the core's VPMU_CAP_OVF_ON_MSB handling).
 *  - Reserved bits of MMCR1 and MMCR2 are ignored on a write and read as 0.
 *
 * perfctr (low-level-ppc32.txt; ppc.c ppc_check_control): the control's
 * mmcr0 holds MMCR0 without PMC1SEL/PMC2SEL, the selectors are evntsel[], and
 * the driver builds MMCR0 = mmcr0 | sel0 << 6 | sel1 and MMCR1 from sel2..5,
 * writing MMCR2, MMCR1 and then MMCR0, which may enable PMIs, last.
 */
#include "ppc_pmu.h"

const struct vpmu_rule ppc_rules[PPC_NR_RULES] = {
	[PPC_RULE_PMXE_NO_IMODE] = { "pmxe-without-imode",
		"MMCR0[PMXE] needs at least one interrupt-mode counter (PMC1CE or PMCjCE "
		"enabling a counting PMC): the time base as the only exception cause is not "
		"handled (perfctr ppc.c ppc_check_control)", 0 },
	[PPC_RULE_MMCR1_RESERVED] = { "mmcr1-reserved",
		"MMCR1 bits outside the PMC3-PMC6 event selectors are reserved (perfctr ppc.c "
		"ppc_check_control, MMCR1__RESERVED)", 0 },
	[PPC_RULE_MMCR2_RESERVED] = { "mmcr2-threshmult",
		"only MMCR2[THRESHMULT] (0x80000000) may be set, and only on the 74xx "
		"(perfctr low-level-ppc32.txt, \"control.ppc.mmcr2\")", 0 },
	[PPC_RULE_IRESET] = { "ireset-nonnegative",
		"an i-mode counter must start non-negative: overflow is the non-negative to "
		"negative transition (perfctr low-level-ppc32.txt, \"ireset[]\"; ppc.c "
		"check_ireset)", VPMU_RULE_CHECK_IRESET },
};

/* PMC1 and PMC2 select their events in MMCR0, PMC3..6 in MMCR1. */
const uint8_t ppc_ctr_ctrl_slot[6] = { PPC_MMCR0, PPC_MMCR0, PPC_MMCR1, PPC_MMCR1, PPC_MMCR1,
				       PPC_MMCR1 };

static inline const struct ppc_variant *variant(const struct vpmu_model *m)
{
	return m->priv;
}

/* Each PMC's event selector field in its MMCR (ppc_ctr_ctrl_slot), and its
 * shift: PMC1SEL and PMC2SEL in MMCR0, PMC3SEL..PMC6SEL in MMCR1. */
const uint32_t ppc_sel_field[6] = { MMCR0_PMC1SEL, MMCR0_PMC2SEL, 0xF8000000u,
					  0x07C00000u, 0x003E0000u, 0x0001F800u };
const uint8_t ppc_sel_shift[6] = { 6, 0, 27, 22, 17, 11 };

/* PMCk's event selector in the MMCRs (PMC numbers from 0). */
static inline unsigned ppc_pmc_event(const uint64_t *mmcr, unsigned pmc)
{
	return ((uint32_t)mmcr[ppc_ctr_ctrl_slot[pmc]] & ppc_sel_field[pmc]) >> ppc_sel_shift[pmc];
}

/* The privilege levels MMCR0 lets count; 0 while frozen.  MSR[PMM], which
 * FCM0/FCM1 test, is outside the PMU and every guest kernel known to use the
 * PMU leaves it 0 (Linux never sets it): the model takes it as 0, so FCM0
 * freezes the counters and FCM1 does nothing (docs/models/ppc7450.md,
 * "Deviations"). */
static unsigned ppc_counting_priv(uint32_t mmcr0)
{
	if (mmcr0 & (MMCR0_FC | MMCR0_FCM0))
		return 0;
	return (mmcr0 & MMCR0_FCS ? 0 : VPMU_PRIV_KERNEL) | (mmcr0 & MMCR0_FCP ? 0 : VPMU_PRIV_USER);
}

/* Whether PMCk counts under MMCR0 (TRIGGER holds PMC2..n) with this selector. */
static inline bool ppc_pmc_counts(uint32_t mmcr0, unsigned pmc, unsigned sel)
{
	return sel != 0 && (pmc == 0 || !(mmcr0 & MMCR0_TRIGGER));
}

static inline bool ppc_pmc_interrupts(uint32_t mmcr0, unsigned pmc)
{
	return (mmcr0 & MMCR0_PMXE) && (mmcr0 & (pmc == 0 ? MMCR0_PMC1CE : MMCR0_PMCJCE));
}

static inline void ppc_retarget_pmc(struct vpmu_txn *t, unsigned pmc, uint64_t old, uint64_t val)
{
	uint64_t f = ppc_sel_field[pmc];
	if ((old & f) && (val & f))
		vpmu_txn_retarget(t, pmc, (val & f) >> ppc_sel_shift[pmc]);
}

/* The bits MMCRn holds: all of MMCR0, MMCR1's selectors of the CPU's PMCs,
 * MMCR2's THRESHMULT. */
static inline uint64_t ppc_mmcr_valid(const struct ppc_variant *pv, unsigned slot)
{
	return slot == PPC_MMCR0 ? 0xFFFFFFFFu : slot == PPC_MMCR1 ? pv->mmcr1_valid
								 : MMCR2_THRESHMULT;
}

/* MMCR1, MMCR2: their reserved bits (perfctr's rules on the value written)
 * dropped, as the hardware ignores them; a PMC3..6 selector change alone
 * retargets that counter. */
static __attribute__((noinline)) void ppc_write_mmcr12(const struct ppc_variant *pv,
							 struct vpmu_txn *t, unsigned slot,
							 uint64_t val)
{
	uint64_t valid = ppc_mmcr_valid(pv, slot);
	if (val & ~valid)
		vpmu_txn_violate(t, slot == PPC_MMCR1 ? PPC_RULE_MMCR1_RESERVED
						      : PPC_RULE_MMCR2_RESERVED);
	val &= valid;
	uint64_t old = t->regs->ctrl[slot], diff = old ^ val;
	if (slot == PPC_MMCR1)
		for (unsigned pmc = 2; pmc < pv->nr_pmcs; pmc++)
			if (!(diff & ~(uint64_t)ppc_sel_field[pmc])) {
				ppc_retarget_pmc(t, pmc, old, val);
				break;
			}
	vpmu_txn_set_ctrl(t, slot, val);
}

/* A restore stores what a save read: a value the register cannot hold is a
 * corrupt state, refused whole.  The user copies are the same registers. */
static __attribute__((noinline)) enum vpmu_fault ppc_write_host(const struct ppc_variant *pv,
								 struct vpmu_txn *t,
								 const struct vpmu_reg *reg,
								 uint64_t val)
{
	uint64_t valid = reg->kind == VPMU_REG_CTRL ? ppc_mmcr_valid(pv, reg->index) : 0xFFFFFFFFu;
	if (val & ~valid)
		return VPMU_FAULT_RESERVED;
	if (reg->kind == VPMU_REG_CTRL)
		vpmu_txn_set_ctrl(t, reg->index, val);
	else if (reg->kind == VPMU_REG_CTR)
		vpmu_txn_set_ctr(t, reg->index, val);
	else
		vpmu_txn_set_misc(t, reg->index, val);
	return VPMU_FAULT_NONE;
}

/* MMCR0: every bit is defined; a change of one selector alone retargets
 * that counter. */
static inline void ppc_write_mmcr0(struct vpmu_txn *t, uint64_t val)
{
	uint64_t old = t->regs->ctrl[PPC_MMCR0], diff = old ^ val;
	if (!(diff & ~(uint64_t)MMCR0_PMC1SEL))
		ppc_retarget_pmc(t, 0, old, val);
	else if (!(diff & ~(uint64_t)MMCR0_PMC2SEL))
		ppc_retarget_pmc(t, 1, old, val);
	vpmu_txn_set_ctrl(t, PPC_MMCR0, val);
}

static enum vpmu_fault ppc_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				 struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val)
{
	(void)cx;
	/* The hot write, first: perf and perfctr start, stop and reprogram
	 * through MMCR0.  A guest's mtspr moves 32 bits. */
	if (__builtin_expect(reg->addr == PPC_SPR_MMCR0 && !t->host, 1)) {
		ppc_write_mmcr0(t, val & 0xFFFFFFFFu);
		return VPMU_FAULT_NONE;
	}
	if (t->host)
		return ppc_write_host(variant(m), t, reg, val);
	val &= 0xFFFFFFFFu;
	/* The user copies are read-only: mtspr raises a program exception
	 * (MPC750 User's Manual, "User-Level SPRs"; QEMU registers no user
	 * write for them either). */
	if (ppc_spr_is_user_copy(reg->addr))
		return VPMU_FAULT_READ_ONLY;
	switch (reg->kind) {
	case VPMU_REG_CTRL:
		ppc_write_mmcr12(variant(m), t, reg->index, val);
		break;
	case VPMU_REG_CTR:
		vpmu_txn_set_ctr(t, reg->index, val);
		break;
	default:
		vpmu_txn_set_misc(t, reg->index, val);
		break;
	}
	return VPMU_FAULT_NONE;
}

/* The counting PMCs, a-mode (no interrupt) first, then those whose enabled
 * condition raises the exception. */
static void ppc_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
		       const struct vpmu_regfile *r, struct vpmu_ctl *ctl)
{
	(void)cx;
	const struct ppc_variant *pv = variant(m);
	uint32_t mmcr0 = (uint32_t)r->ctrl[PPC_MMCR0];
	if (!ppc_counting_priv(mmcr0))
		return;
	unsigned n = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned pmc = 0; pmc < pv->nr_pmcs; pmc++) {
			unsigned sel = ppc_pmc_event(r->ctrl, pmc);
			if (ppc_pmc_counts(mmcr0, pmc, sel) && ppc_pmc_interrupts(mmcr0, pmc) == (pass == 1))
				vpmu_ctl_set(&ctl->ctr[n++], pmc, sel);
		}
		if (pass == 0)
			ctl->nractrs = n;
	}
	ctl->nrictrs = n - ctl->nractrs;
	ctl->global[PPC_MMCR0] = mmcr0 & ~MMCR0_SELECTORS;
	ctl->global[PPC_MMCR1] = r->ctrl[PPC_MMCR1] & ~(uint64_t)(MMCR1_PMC34SEL | MMCR1_PMC56SEL);
	ctl->global[PPC_MMCR2] = r->ctrl[PPC_MMCR2];
}

static uint32_t ppc_check_control(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				  const struct vpmu_regfile *r, const struct vpmu_ctl *ctl)
{
	(void)m, (void)cx, (void)r;
	/* The others hold by construction (docs/models/ppc7450.md). */
	if ((ctl->global[PPC_MMCR0] & MMCR0_PMXE) && !ctl->nrictrs)
		return 1u << PPC_RULE_PMXE_NO_IMODE;
	return 0;
}

/* MMCRn for a control: its global part and the selectors of the control's
 * counters only (perfctr: "unused event selectors must be zero"). */
static uint64_t ppc_ctrl_image(const struct vpmu_model *m, const struct vpmu_ctl *ctl,
			       unsigned slot)
{
	(void)m;
	uint64_t mmcr = ctl->global[slot];
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++) {
		unsigned pmc = ctl->ctr[i].pmc;
		if (ppc_ctr_ctrl_slot[pmc] == slot)
			mmcr |= ctl->ctr[i].evntsel << ppc_sel_shift[pmc];
	}
	return mmcr;
}

/* perfctr's write_control order: MMCR2, MMCR1, then MMCR0, whose PMXE may
 * enable the exception. */
static unsigned ppc_ctrl_images(const struct vpmu_model *m, const struct vpmu_ctl *ctl,
				struct vpmu_ctrl_image *out)
{
	const struct ppc_variant *pv = variant(m);
	uint64_t mmcr[PPC_NR_MMCR] = { ppc_ctrl_image(m, ctl, PPC_MMCR0),
				       ppc_ctrl_image(m, ctl, PPC_MMCR1), ctl->global[PPC_MMCR2] };
	unsigned k = 0;
	if (pv->has_mmcr2)
		out[k++] = (struct vpmu_ctrl_image){ PPC_MMCR2, mmcr[PPC_MMCR2] };
	if (pv->mmcr1_valid)
		out[k++] = (struct vpmu_ctrl_image){ PPC_MMCR1, mmcr[PPC_MMCR1] };
	out[k++] = (struct vpmu_ctrl_image){ PPC_MMCR0, mmcr[PPC_MMCR0] };
	return k;
}

static bool ppc_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			   uint64_t *key, unsigned *priv, bool *interrupt)
{
	(void)m;
	uint32_t mmcr0 = (uint32_t)ctrl[PPC_MMCR0];
	unsigned sel = ppc_pmc_event(ctrl, pmc);
	*priv = ppc_counting_priv(mmcr0);
	if (!*priv || !ppc_pmc_counts(mmcr0, pmc, sel))
		return false;
	*interrupt = ppc_pmc_interrupts(mmcr0, pmc);
	*key = sel;
	return true;
}

/* An enabled condition of an interrupting counter: the exception clears PMXE
 * (7xx, 74xx), FCECE freezes the counters unless TRIGGER is set, and PMC1's
 * condition ends TRIGGER's hold on PMC2..n.  One exception for counters
 * whose conditions come together: the first clears PMXE for the rest. */
static bool ppc_overflow(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			 struct vpmu_txn *t, unsigned pmc)
{
	(void)cx;
	uint32_t mmcr0 = (uint32_t)t->regs->ctrl[PPC_MMCR0], now = mmcr0;
	if (variant(m)->pmxe_cleared)
		now &= ~MMCR0_PMXE;
	if ((mmcr0 & MMCR0_FCECE) && !(mmcr0 & MMCR0_TRIGGER))
		now |= MMCR0_FC;
	if (pmc == 0)
		now &= ~MMCR0_TRIGGER;
	vpmu_txn_set_ctrl(t, PPC_MMCR0, now);
	return (mmcr0 & MMCR0_PMXE) != 0;
}

const struct vpmu_model_ops ppc_ops = {
	.write = ppc_write,
	.derive = ppc_derive,
	.check_control = ppc_check_control,
	.ctrl_images = ppc_ctrl_images,
	.decode_ctr = ppc_decode_ctr,
	.overflow = ppc_overflow,
};
