/* SPDX-License-Identifier: MIT */
/*
 * AMD K7/K8 performance counters, shared by model_k7.c and model_k8.c: four 48-bit
 * counters PERFCTR0-3 (0xC0010004-7) with event selects EVNTSEL0-3 (0xC0010000-3).
 *
 * Hardware (AMD Athlon x86 Code Optimization Guide 22007 and the K8 BKDG 26094,
 * "Performance Counters"): each EVNTSEL has its own enable EN (bit 22), INT (20),
 * PC (19), E (18), OS (17), USR (16), INV (23), CNT_MASK (24-31); bit 21 and bits 32-63
 * are reserved.  The counters are 48 bits wide.
 * perfctr (low-level-x86.txt "AMD K7/K8"; x86.c p6_like_check_control with
 * is_k7): see K7_COMMON_RULES and docs/models/k7.md.
 */
#include "amd_k7_common.h"

#define K7_EN    (1ull << 22)
#define K7_INT   (1ull << 20)
#define K7_OS    (1ull << 17)
#define K7_USR   (1ull << 16)
#define K7_CPL   (K7_USR | K7_OS)
/* Writing a reserved bit of an MSR raises #GP (AMD APM vol. 2, "Model-Specific
 * Registers"); KVM's AMD vPMU instead drops them silently, we follow the CPU. */
#define K7_HW_RESERVED 0xFFFFFFFF00200000ull
#define K7_PERFCTR_RESERVED 0x00280000ull   /* perfctr: bits 21 and 19 */

const struct vpmu_reg k7_regs[2 * K7_NR_CTRS] = {
	{ K7_EVNTSEL0 + 0, VPMU_SPACE_MSR, VPMU_REG_CTRL, 0, 0 },
	{ K7_EVNTSEL0 + 1, VPMU_SPACE_MSR, VPMU_REG_CTRL, 1, 0 },
	{ K7_EVNTSEL0 + 2, VPMU_SPACE_MSR, VPMU_REG_CTRL, 2, 0 },
	{ K7_EVNTSEL0 + 3, VPMU_SPACE_MSR, VPMU_REG_CTRL, 3, 0 },
	{ K7_PERFCTR0 + 0, VPMU_SPACE_MSR, VPMU_REG_CTR, 0, 0 },
	{ K7_PERFCTR0 + 1, VPMU_SPACE_MSR, VPMU_REG_CTR, 1, 0 },
	{ K7_PERFCTR0 + 2, VPMU_SPACE_MSR, VPMU_REG_CTR, 2, 0 },
	{ K7_PERFCTR0 + 3, VPMU_SPACE_MSR, VPMU_REG_CTR, 3, 0 },
};

enum vpmu_fault k7_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			 struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val)
{
	(void)m, (void)cx;
	if (reg->kind == VPMU_REG_CTR) {
		/* A full 64-bit write whose low 48 bits land; bits 48-63 are dropped, not
		 * refused: OProfile's Athlon/K8 driver writes its counters with EDX = -1
		 * (op_model_athlon.c CTR_WRITE) and ran on real K7/K8 parts. */
		vpmu_txn_set_ctr(t, reg->index, val & vpmu_width_mask(K7_CTR_WIDTH));
		return VPMU_FAULT_NONE;
	}
	if (val & K7_HW_RESERVED)
		return VPMU_FAULT_RESERVED;
	/* What reaches here of perfctr's mask is bit 19, PC (pin control), which the
	 * hardware accepts and perfctr refuses (-EPERM). */
	if (val & K7_PERFCTR_RESERVED)
		vpmu_txn_violate(t, K7_RULE_RESERVED);
	/* Each counter has its own enable: a write that keeps EN and INT changes
	 * only its own counter's image (vpmu_txn_retarget). */
	if (!((t->regs->ctrl[reg->index] ^ val) & (K7_EN | K7_INT)))
		vpmu_txn_retarget(t, reg->index, val);
	vpmu_txn_set_ctrl(t, reg->index, val);
	return VPMU_FAULT_NONE;
}

/* A K7/K8 counter counts exactly when its own EN is set (no global enable), in
 * i-mode when INT is set.  perfctr's "EN must be set" and "INT iff i-mode" rules
 * therefore hold by construction. */
void k7_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
	       const struct vpmu_regfile *r, struct vpmu_ctl *ctl)
{
	(void)m, (void)cx;
	/* One pass: a-mode counters fill from the front, i-mode ones are gathered
	 * apart and appended (perfctr's layout: a-mode first). */
	unsigned na = 0, ni = 0;
	uint8_t ipmc[K7_NR_CTRS];
	for (unsigned pmc = 0; pmc < K7_NR_CTRS; pmc++) {
		uint64_t ev = r->ctrl[pmc];
		if (!(ev & K7_EN))
			continue;
		if (ev & K7_INT) {
			ipmc[ni++] = (uint8_t)pmc;
		} else {
			vpmu_ctl_set(&ctl->ctr[na++], pmc, ev);
		}
	}
	for (unsigned k = 0; k < ni; k++) {
		vpmu_ctl_set(&ctl->ctr[na + k], ipmc[k], r->ctrl[ipmc[k]]);
	}
	ctl->nractrs = na;
	ctl->nrictrs = ni;
}

uint32_t k7_check_control(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			  const struct vpmu_regfile *r, const struct vpmu_ctl *ctl)
{
	(void)m, (void)cx, (void)r;
	uint32_t viol = 0;
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++) {
		/* EN with neither USR nor OS: the hardware counts nothing, perfctr says
		 * -EINVAL. */
		if (!(ctl->ctr[i].evntsel & K7_CPL))
			viol |= 1u << K7_RULE_NO_CPL;
		/* K7_RULE_IRESET is the core's (VPMU_RULE_CHECK_IRESET). */
	}
	return viol;
}

bool k7_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
		   uint64_t *key, unsigned *priv, bool *interrupt)
{
	(void)m;
	uint64_t ev = ctrl[pmc];
	if (!(ev & K7_EN))
		return false;
	*priv = ((ev & K7_USR) ? VPMU_PRIV_USER : 0) | ((ev & K7_OS) ? VPMU_PRIV_KERNEL : 0);
	*interrupt = (ev & K7_INT) != 0;
	*key = ev;
	return true;
}
