/* SPDX-License-Identifier: MIT */
/*
 * AMD K7/K8 performance counters, shared by model_k7.c and model_k8.c: four 48-bit
 * counters PERFCTR0-3 (0xC0010004-7) with event selects EVNTSEL0-3 (0xC0010000-3).
 *
 * Hardware (facts 1a; AMD Athlon x86 Code Optimization Guide 22007 and the K8 BKDG
 * "Performance Counters"): each EVNTSEL has its own enable EN (bit 22), INT (20),
 * PC (19), E (18), OS (17), USR (16), INV (23), CNT_MASK (24-31); bit 21 and bits 32-63
 * are reserved.  The counters are 48 bits wide.
 * perfctr (seed 000 "AMD K7/K8"; facts 1c p6_like_check_control with is_k7): see
 * K7_COMMON_RULES and docs/models/k7.md.
 */
#include "amd_k7_common.h"

#define K7_EN    (1ull << 22)
#define K7_INT   (1ull << 20)
#define K7_EDGE  (1ull << 18)
#define K7_OS    (1ull << 17)
#define K7_USR   (1ull << 16)
#define K7_CPL   (K7_USR | K7_OS)
#define K7_INV   (1ull << 23)
#define K7_CMASK 0xFF000000ull
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

/* Each counter has its own EVNTSEL: perfctr's isuspend stops counter n there. */
const uint8_t k7_ctr_ctrl_slot[K7_NR_CTRS] = { 0, 1, 2, 3 };

enum vpmu_fault k7_ctrl_write(const struct vpmu_cpu_opts *o, unsigned slot, uint64_t val,
			      uint64_t old, uint64_t *stored)
{
	(void)o, (void)slot, (void)old;
	if (val & K7_HW_RESERVED)
		return VPMU_FAULT_RESERVED;
	*stored = val;
	return VPMU_FAULT_NONE;
}

enum vpmu_fault k7_ctr_write(const struct vpmu_cpu_opts *o, unsigned pmc, uint64_t val,
			     uint64_t *stored)
{
	(void)o, (void)pmc;
	/* A full 64-bit write whose low 48 bits land; bits 48-63 are dropped, not
	 * refused: OProfile's Athlon/K8 driver writes its counters with EDX = -1
	 * (op_model_athlon.c CTR_WRITE) and ran on real K7/K8 parts. */
	*stored = val & vpmu_width_mask(K7_CTR_WIDTH);
	return VPMU_FAULT_NONE;
}

uint32_t k7_check_write(const struct vpmu_cpu_opts *o, unsigned slot, uint64_t val)
{
	(void)o, (void)slot;
	/* Bit 21 already raised #GP; what reaches here is bit 19, PC (pin control),
	 * which the hardware accepts and perfctr refuses (-EPERM). */
	return (val & K7_PERFCTR_RESERVED) ? 1u << K7_RULE_RESERVED : 0;
}

/* A K7/K8 counter counts exactly when its own EN is set (no global enable), in
 * i-mode when INT is set.  perfctr's "EN must be set" and "INT iff i-mode" rules
 * therefore hold by construction. */
void k7_derive(const struct vpmu_cpu_opts *o, const struct vpmu_regfile *r,
	       struct vpmu_ctl *ctl)
{
	(void)o;
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
			ctl->ctr[na].pmc = pmc;
			ctl->ctr[na++].evntsel = ev;
		}
	}
	for (unsigned k = 0; k < ni; k++) {
		ctl->ctr[na + k].pmc = ipmc[k];
		ctl->ctr[na + k].evntsel = r->ctrl[ipmc[k]];
	}
	ctl->nractrs = na;
	ctl->nrictrs = ni;
}

uint32_t k7_check_control(const struct vpmu_cpu_opts *o, const struct vpmu_regfile *r,
			  const struct vpmu_ctl *ctl)
{
	(void)o, (void)r;
	uint32_t viol = 0;
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++) {
		/* EN with neither USR nor OS: the hardware counts nothing, perfctr says
		 * -EINVAL. */
		if (!(ctl->ctr[i].evntsel & K7_CPL))
			viol |= 1u << K7_RULE_NO_CPL;
		/* perfctr compares ireset as a signed 32-bit int (facts 1c). */
		if (i >= ctl->nractrs && (int32_t)(uint32_t)ctl->ctr[i].ireset >= 0)
			viol |= 1u << K7_RULE_IRESET;
	}
	return viol;
}

unsigned k7_ctrl_images(const struct vpmu_ctl *ctl, struct vpmu_ctrl_image *out)
{
	/* perfctr's k7 write_control: each counter's evntsel into its own EVNTSEL. */
	unsigned n = vpmu_ctl_n(ctl);
	for (unsigned i = 0; i < n; i++) {
		out[i].slot = (uint16_t)ctl->ctr[i].pmc;
		out[i].value = ctl->ctr[i].evntsel;
	}
	return n;
}

int k7_decode_with(const struct vpmu_event_desc *events, unsigned nr_events,
		   const uint64_t *ctrl, unsigned pmc, unsigned *priv, bool *interrupt)
{
	uint64_t ev = ctrl[pmc];
	if (!(ev & K7_EN))
		return VPMU_EV_NONE;
	*priv = ((ev & K7_USR) ? VPMU_PRIV_USER : 0) | ((ev & K7_OS) ? VPMU_PRIV_KERNEL : 0);
	*interrupt = (ev & K7_INT) != 0;
	return k7_event_with(events, nr_events, ev);
}

int k7_event_with(const struct vpmu_event_desc *events, unsigned nr_events, uint64_t ev)
{
	/* CNT_MASK/INV make it a threshold count and E an edge count: neither has a
	 * generic equivalent. */
	if (ev & (K7_CMASK | K7_INV | K7_EDGE))
		return VPMU_EV_NONE;
	for (unsigned i = 0; i < nr_events; i++)
		if ((ev & events[i].match) == events[i].code)
			return events[i].generic;
	return VPMU_EV_NONE;
}
