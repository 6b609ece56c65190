/* SPDX-License-Identifier: MIT */
/*
 * Intel Pentium 4 and Xeon (NetBurst): 18 40-bit counters (0x300-0x311), each
 * with a CCCR (0x360-0x371) that selects one of 45 ESCRs (0x3A0-0x3E1), which
 * selects the event; PEBS_ENABLE and PEBS_MATRIX_VERT for replay tagging;
 * IA32_MISC_ENABLE.  Two identities share these ops: a 32-bit Northwood
 * ("p4") and a Prescott with EM64T ("p4-em64t", no IQ_ESCRs).  The pieces:
 * the ESCR map (p4_escr.c), the register table (p4_regfile.c), perfctr's rules
 * (p4_rules.c), the events (p4_events.c).  The page: docs/models/p4.md.
 *
 * Hardware (IA-32 Intel Architecture Software Developer's Manual, vol. 3,
 * "Performance monitoring (processors based on Intel NetBurst
 * microarchitecture)"):
 *  - a counter counts while its CCCR has ENABLE and selects, through
 *    ESCR_SELECT, an ESCR whose T0_OS/T0_USR (T1_* for logical processor 1)
 *    bits pick the privilege levels;
 *  - CCCR.OVF is set by the hardware when the counter overflows and stays set
 *    until software clears it; OVF_PMI_T0/T1 raise a PMI on the thread's LVTPC,
 *    which the hardware then masks;
 *  - RDPMC ECX = counter | 0x80000000 (fast read) returns the low 32 bits.
 * The bits above 31 of CCCRs, ESCRs and the PEBS pair are reserved (#GP, as
 * for every model-specific register's reserved bits); a counter write takes
 * bits 0-39 (perfctr writes EDX = -1 with a negative start).
 */
#include <errno.h>

#include "../events.h"
#include "../model.h"
#include "p4_escr.h"
#include "p4_events.h"
#include "p4_regfile.h"
#include "p4_rules.h"
#include "x86_cpuid.h"

#define P4_CTR_WIDTH 40
#define P4_CTR_MASK  0xFFFFFFFFFFull
#define P4_RESERVED_HI 0xFFFFFFFF00000000ull
#define P4_ESCR_T0_OS  (1u << 3)
#define P4_ESCR_T0_USR (1u << 2)
#define P4_ESCR_CPL    0xFu
#define P4_CCCR_PMI    (P4_CCCR_OVF_PMI_T0 | P4_CCCR_OVF_PMI_T1)

/* IA32_MISC_ENABLE: b7 EMON (performance monitoring available), b11
 * BTS_UNAVAILABLE, b12 PEBS_UNAVAILABLE.  The real parts had BTS and PEBS;
 * vpmu emulates no DS save area (CPUID.1:EDX.DS is clear), so both say
 * unavailable (docs/models/p4.md, deviations).  Read-only to the guest. */
#define MISC_ENABLE_PMU_BITS ((1ull << 7) | (1ull << 11) | (1ull << 12))
static const uint64_t p4_misc_reset[VPMU_MAX_MISC] = { [P4_MISC_ENABLE] = MISC_ENABLE_PMU_BITS };

/*
 * Cascading (manual: "Cascading Counters"): a counter whose CCCR has CASCADE
 * (and ENABLE) starts counting when its alternate counter overflows: 0 and 2,
 * 1 and 3 in either order, and so on in each block; in the IQ block counter 16
 * only from 14 and 17 only from 15.  Which counters have started is hardware
 * state no MSR shows: a MISC slot with no register (P4_MISC_CASCADED), set by
 * the alternate's overflow, cleared by a write of the counter's CCCR.
 */
static const uint8_t cascade_from[P4_NR_COUNTERS] = {
	2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 14, 15,
};

/* A counter armed to start on its alternate's overflow, not started yet. */
static inline bool cascade_armed(const struct vpmu_regfile *r, unsigned pmc)
{
	uint64_t cccr = r->ctrl[P4_SLOT_CCCR0 + pmc];
	return (cccr & (P4_CCCR_ENABLE | P4_CCCR_CASCADE)) == (P4_CCCR_ENABLE | P4_CCCR_CASCADE) &&
	       !((r->misc[P4_MISC_CASCADED] >> pmc) & 1);
}

/* The thread-t fields of an ESCR's CPL bits: T0 in bits 2-3, T1 in 0-1. */
static inline unsigned escr_cpl(uint64_t escr, unsigned t)
{
	return t ? (unsigned)escr & 3u : ((unsigned)escr >> 2) & 3u;
}

/*
 * Without HT an ESCR's value decides neither which counters count nor their
 * mode: it is the aux of every enabled counter whose CCCR selects it.  When
 * at most one does, the write changes only that counter's aux (or nothing):
 * tell the core (vpmu_txn_retarget_aux), which then patches the control
 * instead of deriving it again.
 */
static void p4_escr_retarget(struct vpmu_txn *t, uint32_t escr_msr, uint64_t val)
{
	uint64_t enabled = t->regs->misc[P4_MISC_ENABLED];
	unsigned n = 0, which = 0;
	for (uint64_t m = enabled; m; m &= m - 1) {
		unsigned pmc = (unsigned)__builtin_ctzll(m);
		if (p4_escr_addr(pmc, P4_CCCR_ESCR_SELECT(t->regs->ctrl[P4_SLOT_CCCR0 + pmc])) ==
		    escr_msr && n++ == 0)
			which = pmc;
	}
	if (n == 0) {
		/* A counter outside the control: the core changes nothing. */
		uint64_t idle = ~enabled & ((1ull << P4_NR_COUNTERS) - 1);
		if (!idle)
			return;
		which = (unsigned)__builtin_ctzll(idle);
	} else if (n > 1) {
		return;
	}
	vpmu_txn_retarget_aux(t, which, val);
}

static enum vpmu_fault p4_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val)
{
	(void)m;
	if (reg->kind == VPMU_REG_CTR) {
		vpmu_txn_set_ctr(t, reg->index, val & P4_CTR_MASK);
		return VPMU_FAULT_NONE;
	}
	if (reg->kind == VPMU_REG_MISC && reg->index == P4_MISC_CASCADED) {
		/* Hidden state, restored by the host only (the core sends no guest
		 * access here): counters that exist. */
		if (val >> P4_NR_COUNTERS)
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_misc(t, P4_MISC_CASCADED, val);
		return VPMU_FAULT_NONE;
	}
	if (reg->kind == VPMU_REG_MISC) {
		if (!t->host)
			val = (t->regs->misc[P4_MISC_ENABLE] & MISC_ENABLE_PMU_BITS) |
			      (val & ~MISC_ENABLE_PMU_BITS);
		vpmu_txn_set_misc(t, P4_MISC_ENABLE, val);
		return VPMU_FAULT_NONE;
	}
	unsigned slot = reg->index;   /* a VM without IQ_ESCRs has no such register (p4_refresh) */
	if (val & P4_RESERVED_HI)
		return VPMU_FAULT_RESERVED;
	if (slot < P4_NR_COUNTERS) {
		/* A CCCR write arms its cascade again; the enabled mask follows it
		 * (derive walks only the enabled counters). */
		vpmu_txn_set_misc(t, P4_MISC_CASCADED,
				  t->regs->misc[P4_MISC_CASCADED] & ~(1ull << slot));
		vpmu_txn_set_misc(t, P4_MISC_ENABLED,
				  (t->regs->misc[P4_MISC_ENABLED] & ~(1ull << slot)) |
				  ((val & P4_CCCR_ENABLE) ? 1ull << slot : 0));
		if (!t->host) {
			/* OVF is the hardware's: software clears it, a 1 written
			 * where it is clear changes nothing; writing back what it
			 * read breaks no rule. */
			val = (val & ~(uint64_t)P4_CCCR_OVF) |
			      (val & t->regs->ctrl[slot] & P4_CCCR_OVF);
			vpmu_txn_violate_mask(t, p4_cccr_violations(val & ~(uint64_t)P4_CCCR_OVF,
								     slot, cx->vm->cpumodel));
		}
	} else if (!t->host) {
		if (slot == P4_SLOT_PEBS)
			vpmu_txn_violate_mask(t, p4_pebs_enable_violations(val));
		else if (slot == P4_SLOT_PMV)
			vpmu_txn_violate_mask(t, p4_pmv_violations(val));
		else
			vpmu_txn_violate_mask(t, p4_escr_violations(val));
	}
	if (slot >= P4_SLOT_ESCR0 && slot < P4_SLOT_PEBS && !cx->vm->ht)
		p4_escr_retarget(t, reg->addr, val);
	vpmu_txn_set_ctrl(t, slot, val);
	return VPMU_FAULT_NONE;
}

/* MISC_ENABLE reads as stored. */
static enum vpmu_fault p4_read(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			       const struct vpmu_regfile *r, const struct vpmu_reg *reg,
			       uint64_t raw, uint64_t *val)
{
	(void)m, (void)cx, (void)r, (void)reg;
	*val = raw;
	return VPMU_FAULT_NONE;
}

/*
 * The control thread cx->thread runs: every counter whose CCCR has ENABLE
 * (perfctr: ENABLE, CASCADE or EXTENDED_CASCADE; a cascaded counter without
 * ENABLE counts nothing, docs/models/p4.md), i-mode when the thread's
 * OVF_PMI bit is set.  Each entry carries the CCCR without OVF (status, not
 * control) and the ESCR it selects (aux_slot 0: none).  With hyper-threading
 * a thread runs the counters whose ESCR selects its own privilege bits or
 * whose PMI it takes, and its entries carry its fields in the T0 places: a
 * thread runs on a host CPU of its own (docs/models/p4.md, "Hyper-threading").
 */
static void p4_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
		      const struct vpmu_regfile *r, struct vpmu_ctl *ctl)
{
	(void)m;
	struct vpmu_ctl_ctr imode[P4_NR_COUNTERS];
	unsigned na = 0, ni = 0, th = cx->thread;
	bool ht = cx->vm->ht;
	/* An armed counter counts nothing yet; the core must see its alternate
	 * overflow, so that one interrupts (the model makes no PMI of it unless
	 * its own OVF_PMI bit asks for one). */
	uint64_t enabled = r->misc[P4_MISC_ENABLED];
	uint32_t armed = 0, sources = 0;
	for (uint64_t left = enabled; left; left &= left - 1) {
		unsigned pmc = (unsigned)__builtin_ctzll(left);
		if (cascade_armed(r, pmc)) {
			armed |= 1u << pmc;
			sources |= 1u << cascade_from[pmc];
		}
	}
	for (uint64_t left = enabled & ~(uint64_t)armed; left; left &= left - 1) {
		unsigned pmc = (unsigned)__builtin_ctzll(left);
		uint64_t cccr = r->ctrl[P4_SLOT_CCCR0 + pmc];
		uint32_t escr_msr = p4_escr_addr(pmc, P4_CCCR_ESCR_SELECT(cccr));
		int slot = escr_msr ? p4_escr_slot(escr_msr) : -1;
		uint64_t escr = slot >= 0 ? r->ctrl[slot] : 0;
		if (ht) {
			uint64_t pmi = th ? P4_CCCR_OVF_PMI_T1 : P4_CCCR_OVF_PMI_T0;
			unsigned cpl = escr_cpl(escr, th);
			if (!cpl && !(cccr & pmi))
				continue;
			escr = (escr & ~(uint64_t)P4_ESCR_CPL) | (uint64_t)cpl << 2;
			cccr = (cccr & ~(uint64_t)P4_CCCR_PMI) | ((cccr & pmi) ? P4_CCCR_OVF_PMI_T0 : 0);
		}
		struct vpmu_ctl_ctr e = { pmc, slot >= 0 ? (uint32_t)slot : 0,
					  cccr & ~(uint64_t)P4_CCCR_OVF, escr, 0 };
		if ((sources >> pmc) & 1)
			e.evntsel |= P4_CCCR_OVF_PMI_T0;   /* the host must say when it overflows */
		if (e.evntsel & P4_CCCR_OVF_PMI_T0)
			imode[ni++] = e;
		else
			ctl->ctr[na++] = e;
	}
	for (unsigned i = 0; i < ni; i++)
		ctl->ctr[na + i] = imode[i];
	ctl->nractrs = na;
	ctl->nrictrs = ni;
	ctl->global[0] = r->ctrl[P4_SLOT_PEBS];
	ctl->global[1] = r->ctrl[P4_SLOT_PMV];
}

static uint32_t p4_check_control(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				 const struct vpmu_regfile *r, const struct vpmu_ctl *ctl)
{
	(void)m, (void)r;
	/* P4_RULE_IRESET is the core's (VPMU_RULE_CHECK_IRESET). */
	return p4_control_violations(ctl, cx->vm->cpumodel, cx->vm->ht);
}

/* perfctr x86.c p4_write_control: per counter its ESCR, then its CCCR, then
 * PEBS_ENABLE and PEBS_MATRIX_VERT. */
static unsigned p4_ctrl_images(const struct vpmu_model *m, const struct vpmu_ctl *ctl,
			       struct vpmu_ctrl_image *out)
{
	(void)m;
	unsigned k = 0;
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++) {
		const struct vpmu_ctl_ctr *e = &ctl->ctr[i];
		if (e->aux_slot)
			out[k++] = (struct vpmu_ctrl_image){ (uint16_t)e->aux_slot, e->aux };
		out[k++] = (struct vpmu_ctrl_image){ (uint16_t)(P4_SLOT_CCCR0 + e->pmc), e->evntsel };
	}
	out[k++] = (struct vpmu_ctrl_image){ P4_SLOT_PEBS, ctl->global[0] };
	out[k++] = (struct vpmu_ctrl_image){ P4_SLOT_PMV, ctl->global[1] };
	return k;
}

/* From host images, which carry a thread's fields in the T0 places. */
static bool p4_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			  uint64_t *key, unsigned *priv, bool *interrupt)
{
	(void)m;
	uint64_t cccr = ctrl[P4_SLOT_CCCR0 + pmc];
	if (!(cccr & P4_CCCR_ENABLE) || !(cccr & P4_CCCR_ACTIVE_THREAD))
		return false;
	uint32_t escr_msr = p4_escr_addr(pmc, P4_CCCR_ESCR_SELECT(cccr));
	if (!escr_msr)
		return false;
	uint64_t escr = ctrl[p4_escr_slot(escr_msr)];
	unsigned p = ((escr & P4_ESCR_T0_USR) ? VPMU_PRIV_USER : 0) |
		     ((escr & P4_ESCR_T0_OS) ? VPMU_PRIV_KERNEL : 0);
	if (!p)
		return false;
	*key = p4_event_key(escr_msr, escr, cccr);
	*priv = p;
	*interrupt = (cccr & P4_CCCR_OVF_PMI_T0) != 0;
	return true;
}

static uint64_t p4_ctl_key(const struct vpmu_model *m, const struct vpmu_ctl_ctr *e)
{
	(void)m;
	return e->aux_slot ? p4_event_key(p4_slot_escr(e->aux_slot), e->aux, e->evntsel) : 0;
}

/* The hardware sets CCCR.OVF (sticky), starts the counters cascaded from
 * this one and interrupts the threads whose OVF_PMI bit is set; the core
 * delivers this thread's. */
static bool p4_overflow(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			struct vpmu_txn *t, unsigned pmc)
{
	(void)m;
	uint64_t cccr = t->regs->ctrl[P4_SLOT_CCCR0 + pmc];
	vpmu_txn_set_ctrl(t, P4_SLOT_CCCR0 + pmc, cccr | P4_CCCR_OVF);
	/* The counters cascaded from this one start (the core derives the
	 * control again before the next entry). */
	uint64_t started = t->regs->misc[P4_MISC_CASCADED];
	for (unsigned b = 0; b < P4_NR_COUNTERS; b++)
		if (cascade_from[b] == pmc && cascade_armed(t->regs, b))
			started |= 1ull << b;
	vpmu_txn_set_misc(t, P4_MISC_CASCADED, started);
	return (cccr & (cx->thread ? P4_CCCR_OVF_PMI_T1 : P4_CCCR_OVF_PMI_T0)) != 0;
}

/* The P4's PMI is a level: the line stays asserted while a CCCR has OVF with
 * the thread's OVF_PMI bit, and unmasking the LVTPC then raises the interrupt
 * again (Linux arch/x86/events/intel/p4.c p4_pmu_handle_irq: OVF is cleared
 * before the LVTPC is unmasked for that reason). */
static bool p4_pmi_asserted(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			    const struct vpmu_regfile *r)
{
	(void)m;
	uint64_t want = P4_CCCR_OVF | (cx->thread ? P4_CCCR_OVF_PMI_T1 : P4_CCCR_OVF_PMI_T0);
	for (unsigned pmc = 0; pmc < P4_NR_COUNTERS; pmc++)
		if ((r->ctrl[P4_SLOT_CCCR0 + pmc] & want) == want)
			return true;
	return false;
}

/* Every P4 masks its LVTPC entry when it delivers a PMI (Intel SDM vol. 3,
 * "Performance monitoring counter interrupts"; Linux's P4 handler unmasks it). */
static bool p4_pmi_automask(const struct vpmu_model *m, const struct vpmu_vm_opts *o)
{
	(void)m, (void)o;
	return true;
}

/* IQ_ESCR0/1 exist on CPUID models 0-2 only (p4_escr_exists): a VM that
 * presents a later model has no such registers, as its CPU had none. */
static bool p4_keep_reg(const struct vpmu_pmu *p, const struct vpmu_reg *r)
{
	return r->kind != VPMU_REG_CTRL || !p4_escr_name(r->addr) ||
	       p4_escr_exists(r->addr, (unsigned)p->model_data[0]);
}

static int p4_refresh(const struct vpmu_model *m, const struct vpmu_vm_opts *o, struct vpmu_pmu *p)
{
	(void)m;
	/* One geometry, as for every legacy PMU (vpmu/pmu.c): nothing to narrow. */
	if ((o->pmu_version >= 0 && (unsigned)o->pmu_version != p->version) ||
	    (o->nr_general >= 0 && (unsigned)o->nr_general != p->nr_general) ||
	    (o->nr_fixed >= 0 && (unsigned)o->nr_fixed != p->nr_fixed))
		return -EINVAL;
	p->model_data[0] = o->cpumodel;
	vpmu_pmu_filter_regs(p, p4_keep_reg);
	return 0;
}

static const struct vpmu_model_ops p4_ops = {
	.refresh = p4_refresh,
	.write = p4_write,
	.read = p4_read,
	.derive = p4_derive,
	.check_control = p4_check_control,
	.ctrl_images = p4_ctrl_images,
	.decode_ctr = p4_decode_ctr,
	.ctl_key = p4_ctl_key,
	.overflow = p4_overflow,
	.pmi_asserted = p4_pmi_asserted,
	.pmi_automask = p4_pmi_automask,
};

/* CPUID.1:EDX of a Pentium 4 without DS, ACPI, TM and PBE (no thermal or
 * debug-store MSRs are emulated); HTT is set for hyper-threaded VMs by the
 * glue (vpmu_vm_cpu). */
#define P4_EDX (P6_BASE | F_CLFSH | F_SSE | F_SSE2)

#define P4_COMMON                                                            \
	.regspace = VPMU_SPACE_MSR,                                          \
	.caps = VPMU_CAP_PCINT | VPMU_CAP_HT,                                \
	.nr_ctrs = P4_NR_COUNTERS, .ctr_width = P4_CTR_WIDTH,                \
	.nr_ctrl_slots = P4_NR_CTRL_SLOTS, .nr_globals = 2,                  \
	.rdpmc_fast = 0x80000000u,                                           \
	.regs = p4_regs, .nr_regs = P4_NR_REGS,                              \
	.misc_reset = p4_misc_reset,                                         \
	.rules = p4_rules, .nr_rules = P4_NR_RULES,                          \
	.table = &vpmu_events_p4,   /* data/perfmon/vpmu/p4.json */            \
	.event_exclude = P4_KEY_COMPLEMENT | P4_KEY_THRESHOLD,               \
	.ops = &p4_ops

const struct vpmu_model vpmu_model_p4 = {
	.name = "p4",
	.description = "Intel Pentium 4 (NetBurst): 18 x 40-bit counters, CCCR/ESCR pairs, "
		       "hyper-threading, replay tagging",
	/* A Pentium 4 "Northwood" (model 2, stepping 9): 32-bit, IQ_ESCRs present. */
	.id = { "GenuineIntel", 15, 2, 9, P4_EDX, 0, 0, 0 },
	.brand = "Intel(R) Pentium(R) 4 CPU 2.80GHz",
	P4_COMMON,
};

const struct vpmu_model vpmu_model_p4_em64t = {
	.name = "p4-em64t",
	.description = "Intel Pentium 4 with EM64T (Prescott 2M): the p4 PMU without IQ_ESCRs, "
		       "64-bit",
	/* A Pentium 4 6x1 "Prescott 2M" (model 4, stepping 3): SSE3, CMPXCHG16B,
	 * and the extended leaf's SYSCALL, XD and LM. */
	.id = { "GenuineIntel", 15, 4, 3, P4_EDX, (1u << 0) | (1u << 13), X_SYSCALL | X_NX | X_LM, 0 },
	.brand = "Intel(R) Pentium(R) 4 CPU 3.40GHz",
	P4_COMMON,
};
