/* SPDX-License-Identifier: MIT */
/*
 * Intel architectural performance monitoring, versions 2 to 5 (Intel SDM vol.
 * 3B, "Architectural Performance Monitoring"), as the CPUs that introduced
 * them present it: core2 (v2), nehalem (v3), skylake (v4), icelake and
 * sapphirerapids (v5); a VM may present an earlier version, down to 1 (no
 * GLOBAL_CTRL, no fixed counters), as KVM lets user space choose.  One set of ops; each CPU is data (struct arch_cpu).
 *
 * Registers (SDM vol. 4, "Architectural MSRs"):
 *   IA32_PMCn 0xC1+n, IA32_PERFEVTSELn 0x186+n     general counters n < nr_general
 *   IA32_A_PMCn 0x4C1+n                            full-width writes (FW_WRITE)
 *   IA32_FIXED_CTRj 0x309+j, IA32_FIXED_CTR_CTRL 0x38D
 *   IA32_PERF_GLOBAL_STATUS 0x38E (read-only), _CTRL 0x38F, _OVF_CTRL 0x390
 *   (v4: IA32_PERF_GLOBAL_STATUS_RESET), v4+: _STATUS_SET 0x391, _INUSE 0x392
 *   IA32_PERF_CAPABILITIES 0x345, IA32_MISC_ENABLE 0x1A0
 * Counter numbers (pmc): general n is n, fixed j is ARCH_FIXED_BASE + j.  Host
 * images: one per counter, in slot pmc (an event select, or fixed counter j's
 * 4-bit FIXED_CTR_CTRL field), so that the GLOBAL_CTRL gate is folded into
 * which counters the control holds and perfctr's isuspend stops one counter.
 * The page: docs/models/intel-arch.md.
 */
#include <errno.h>

#include "../events.h"
#include "../model.h"
#include "x86_cpuid.h"

#define ARCH_MAX_GP 8
#define ARCH_FIXED_BASE 8
#define ARCH_MAX_FIXED 4
/* The host image slot of the GLOBAL_CTRL gate (after the counters' own). */
#define ARCH_GATE_SLOT (ARCH_FIXED_BASE + ARCH_MAX_FIXED)

#define MSR_PMC0 0xC1
#define MSR_EVNTSEL0 0x186
#define MSR_A_PMC0 0x4C1
#define MSR_FIXED_CTR0 0x309

#define SEL_USR (1ull << 16)
#define SEL_OS (1ull << 17)
#define SEL_EDGE (1ull << 18)
#define SEL_PC (1ull << 19)
#define SEL_INT (1ull << 20)
#define SEL_ANY (1ull << 21)
#define SEL_EN (1ull << 22)
#define SEL_INV (1ull << 23)
#define SEL_CMASK 0xFF000000ull

#define FIX_OS 0x1u
#define FIX_USR 0x2u
#define FIX_ANY 0x4u
#define FIX_PMI 0x8u

#define STATUS_CTR_FRZ (1ull << 59)   /* v4: counters frozen (Freeze_PerfMon_On_PMI) */
#define STATUS_COND_CHGD (1ull << 63)

/* IA32_MISC_ENABLE: b7 PERF_AVAIL, b11 BTS_UNAVAIL, b12 PEBS_UNAVAIL (no BTS
 * or PEBS is emulated), read-only; the other bits keep what the guest writes. */
#define MISC_ENABLE_PMU_BITS ((1ull << 7) | (1ull << 11) | (1ull << 12))
#define PERF_CAP_FW_WRITE (1ull << 13)

enum { M_FIXED_CTRL, M_GLOBAL_CTRL, M_GLOBAL_STATUS, M_OVF_CTRL, M_PERF_CAP, M_MISC_ENABLE,
       M_STATUS_SET, M_INUSE, M_DEBUGCTL };

/* IA32_DEBUGCTL (SDM vol. 3B, "IA32_DEBUGCTL MSR"): LBR (0) and BTF (1) are
 * dropped as KVM drops them without LBR virtualization (no LBR stack and no
 * branch single-step are emulated here), Freeze_PerfMon_On_PMI (12, version
 * 2 on) is emulated; any other bit #GP. */
#define DEBUGCTL_LBR (1ull << 0)
#define DEBUGCTL_BTF (1ull << 1)
#define DEBUGCTL_FREEZE_PERFMON_ON_PMI (1ull << 12)

enum { R_CPL_NONE, R_IRESET, R_PIN_CONTROL, R_NR };

static const struct vpmu_rule arch_rules[R_NR] = {
	[R_CPL_NONE] = { "cpl-none",
		"an enabled counter selects a privilege level: USR or OS in its event select, "
		"OS or USR in its FIXED_CTR_CTRL field (Intel SDM vol. 3B, Architectural "
		"Performance Monitoring: with neither it counts nothing)", 0 },
	[R_IRESET] = { "ireset-nonnegative",
		"an interrupting counter must start negative (perfctr x86.c check_ireset)",
		VPMU_RULE_CHECK_IRESET },
	[R_PIN_CONTROL] = { "pin-control",
		"PERFEVTSEL bit 19 (PC) toggles the PMi pins, not for software (Intel SDM vol. "
		"3B, IA32_PERFEVTSELx)", 0 },
};

/* The CPU a descriptor presents (priv). */
struct arch_cpu {
	unsigned version, nr_gp, gp_width, nr_fixed, fixed_width;
	unsigned nr_arch_events;   /* CPUID.0AH EAX[31:24] */
	bool any_thread;           /* AnyThread exists (v3, v4); v5 deprecates it */
	uint64_t perf_caps;        /* IA32_PERF_CAPABILITIES */
};

#define GP(n)  { MSR_PMC0 + (n), VPMU_SPACE_MSR, VPMU_REG_CTR, (n), 0 }
#define SEL(n) { MSR_EVNTSEL0 + (n), VPMU_SPACE_MSR, VPMU_REG_CTRL, (n), 0 }
#define FW(n)  { MSR_A_PMC0 + (n), VPMU_SPACE_MSR, VPMU_REG_CTR, (n), 0 }
#define FIX(j) { MSR_FIXED_CTR0 + (j), VPMU_SPACE_MSR, VPMU_REG_CTR, ARCH_FIXED_BASE + (j), 0 }
#define MISC(a, i, f) { (a), VPMU_SPACE_MSR, VPMU_REG_MISC, (i), (f) }

/* Every register of the widest CPU, sorted; refresh keeps a VM's. */
static const struct vpmu_reg arch_regs[] = {
	GP(0), GP(1), GP(2), GP(3), GP(4), GP(5), GP(6), GP(7),
	SEL(0), SEL(1), SEL(2), SEL(3), SEL(4), SEL(5), SEL(6), SEL(7),
	MISC(0x1A0, M_MISC_ENABLE, 0),
	MISC(0x1D9, M_DEBUGCTL, VPMU_REGF_OWN_ONLY),
	FIX(0), FIX(1), FIX(2), FIX(3),
	MISC(0x345, M_PERF_CAP, 0),
	MISC(0x38D, M_FIXED_CTRL, 0),
	MISC(0x38E, M_GLOBAL_STATUS, 0),
	MISC(0x38F, M_GLOBAL_CTRL, 0),
	MISC(0x390, M_OVF_CTRL, 0),
	MISC(0x391, M_STATUS_SET, 0),
	MISC(0x392, M_INUSE, VPMU_REGF_READ_HOOK),
	FW(0), FW(1), FW(2), FW(3), FW(4), FW(5), FW(6), FW(7),
};

/* What fixed counter j counts, as an architectural event key. */
static const uint64_t fixed_key[ARCH_MAX_FIXED] = { 0x00C0, 0x003C, 0x013C, 0x01A4 };

static const struct arch_cpu *cpu_of(const struct vpmu_model *m)
{
	return m->priv;
}

static bool is_fixed(unsigned pmc)
{
	return pmc >= ARCH_FIXED_BASE;
}

/* GLOBAL_CTRL / GLOBAL_STATUS bit of counter pmc. */
static uint64_t global_bit(unsigned pmc)
{
	return is_fixed(pmc) ? 1ull << (32 + pmc - ARCH_FIXED_BASE) : 1ull << pmc;
}

/* The counters a VM has, as GLOBAL_CTRL bits. */
static uint64_t counters_mask(const struct vpmu_pmu *p)
{
	return ((1ull << p->nr_general) - 1) | (((1ull << p->nr_fixed) - 1) << 32);
}

/* The VM's reserved-bit masks, which refresh computes (vpmu_pmu.model_data). */
enum { D_COUNTERS, D_EVNTSEL_RSVD, D_FIXED_RSVD, D_STATUS_BITS, D_DEBUGCTL_OK };

static uint64_t fixed_ctrl_reserved(const struct vpmu_pmu *p, bool any_thread)
{
	uint64_t ok = 0, field = FIX_OS | FIX_USR | FIX_PMI | (any_thread ? FIX_ANY : 0);
	for (unsigned j = 0; j < p->nr_fixed; j++)
		ok |= field << (4 * j);
	return ~ok;
}

static enum vpmu_fault arch_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				  struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val)
{
	(void)m;
	const struct vpmu_pmu *p = cx->vm->pmu;
	const uint64_t *misc = t->regs->misc;
	/* GLOBAL_CTRL first: Linux writes it twice in every PMI (disable_all,
	 * enable_all) and at every context switch of a profiled task. */
	if (reg->index == M_GLOBAL_CTRL && reg->kind == VPMU_REG_MISC) {
		/* The value it holds passed the reserved-bit check when written. */
		if (val == misc[M_GLOBAL_CTRL]) {
			vpmu_txn_regate(t, 0, val);   /* no change: nothing to do */
			return VPMU_FAULT_NONE;
		}
		if (val & ~p->model_data[D_COUNTERS])
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_misc(t, M_GLOBAL_CTRL, val);
		/* The gate alone changes, unless the counters are frozen (then the
		 * gate stays shut: arch_derive). */
		if (!(misc[M_GLOBAL_STATUS] & STATUS_CTR_FRZ))
			vpmu_txn_regate(t, 0, val);
		return VPMU_FAULT_NONE;
	}
	switch (reg->kind) {
	case VPMU_REG_CTRL:
		if (val & p->model_data[D_EVNTSEL_RSVD])
			return VPMU_FAULT_RESERVED;
		if (val & SEL_PC)
			vpmu_txn_violate(t, R_PIN_CONTROL);
		vpmu_txn_set_ctrl(t, reg->index, val);
		return VPMU_FAULT_NONE;
	case VPMU_REG_CTR: {
		uint64_t mask = p->width_mask[reg->index];
		/* SDM vol. 3B, "Full-Width Writes to Performance Counter Registers":
		 * IA32_PMCx takes bits 31:0 and sign-extends bit 31; IA32_A_PMCx and
		 * the fixed counters take the full width, and bits above it #GP. */
		if (reg->addr >= MSR_PMC0 && reg->addr < MSR_PMC0 + ARCH_MAX_GP && !t->host)
			val = (uint64_t)(int64_t)(int32_t)(uint32_t)val;
		else if (val & ~mask)
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_ctr(t, reg->index, val & mask);
		return VPMU_FAULT_NONE;
	}
	default:
		break;
	}
	switch (reg->index) {
	case M_FIXED_CTRL:
		if (val & p->model_data[D_FIXED_RSVD])
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_misc(t, M_FIXED_CTRL, val);
		return VPMU_FAULT_NONE;
	case M_GLOBAL_STATUS:
		/* Read-only (SDM vol. 4): a restore loads it. */
		if (!t->host)
			return val == misc[M_GLOBAL_STATUS] ? VPMU_FAULT_NONE : VPMU_FAULT_READ_ONLY;
		if (val & ~p->model_data[D_STATUS_BITS])
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_misc(t, M_GLOBAL_STATUS, val);
		return VPMU_FAULT_NONE;
	case M_OVF_CTRL:
	case M_STATUS_SET:
		/* Write-1-to-clear / -set of the status; the register reads 0. */
		if (val & ~p->model_data[D_STATUS_BITS])
			return VPMU_FAULT_RESERVED;
		/* Write-only, no state: a restore can only load the 0 a save got. */
		if (t->host)
			return val ? VPMU_FAULT_RESERVED : VPMU_FAULT_NONE;
		vpmu_txn_set_misc(t, M_GLOBAL_STATUS, reg->index == M_OVF_CTRL
					? misc[M_GLOBAL_STATUS] & ~val : misc[M_GLOBAL_STATUS] | val);
		/* Overflow bits are status, not control: only CTR_FRZ gates. */
		if (!(val & STATUS_CTR_FRZ))
			vpmu_txn_keep_control(t);
		return VPMU_FAULT_NONE;
	case M_DEBUGCTL:
		if (!t->host)
			val &= ~(DEBUGCTL_LBR | DEBUGCTL_BTF);
		if (val & ~p->model_data[D_DEBUGCTL_OK])
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_misc(t, M_DEBUGCTL, val);
		return VPMU_FAULT_NONE;
	case M_MISC_ENABLE:
		if (!t->host)
			val = (misc[M_MISC_ENABLE] & MISC_ENABLE_PMU_BITS) | (val & ~MISC_ENABLE_PMU_BITS);
		vpmu_txn_set_misc(t, M_MISC_ENABLE, val);
		return VPMU_FAULT_NONE;
	default:   /* PERF_CAPABILITIES, INUSE: read-only; a restore loads what a
		    * save got (INUSE is computed: its stored value is 0) */
		if (t->host)
			return val == misc[reg->index] ? VPMU_FAULT_NONE : VPMU_FAULT_RESERVED;
		return VPMU_FAULT_READ_ONLY;
	}
}

/* IA32_PERF_GLOBAL_INUSE (SDM vol. 4): bit n while PERFEVTSELn[7:0] selects
 * an event, bit 32+j while fixed counter j is enabled, bit 63 while any PMI
 * is enabled. */
static enum vpmu_fault arch_read(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				 const struct vpmu_regfile *r, const struct vpmu_reg *reg,
				 uint64_t raw, uint64_t *val)
{
	(void)m, (void)reg, (void)raw;
	const struct vpmu_pmu *p = cx->vm->pmu;
	uint64_t v = 0, fixed = r->misc[M_FIXED_CTRL];
	bool pmi = false;
	for (unsigned n = 0; n < p->nr_general; n++) {
		v |= (r->ctrl[n] & 0xFF) ? 1ull << n : 0;
		pmi |= (r->ctrl[n] & SEL_INT) != 0;
	}
	for (unsigned j = 0; j < p->nr_fixed; j++) {
		unsigned f = (fixed >> (4 * j)) & 0xF;
		v |= (f & (FIX_OS | FIX_USR)) ? 1ull << (32 + j) : 0;
		pmi |= (f & FIX_PMI) != 0;
	}
	*val = v | (pmi ? 1ull << 63 : 0);
	return VPMU_FAULT_NONE;
}

/* A counter counts while enabled in its own control (EN; a fixed field's OS
 * or USR) and in GLOBAL_CTRL, and the counters are not frozen (v4 CTR_FRZ).
 * The control holds every counter enabled in its own control, INT (a fixed
 * field's PMI) making it interrupt, and GLOBAL_CTRL (0 while frozen) as its
 * global: the gate, written in place (VPMU_CAP_GLOBAL_GATE). */
static void arch_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			const struct vpmu_regfile *r, struct vpmu_ctl *ctl)
{
	(void)m;
	const struct vpmu_pmu *p = cx->vm->pmu;
	uint64_t fixed = r->misc[M_FIXED_CTRL];
	struct vpmu_ctl_ctr imode[ARCH_MAX_GP + ARCH_MAX_FIXED];
	unsigned n = 0, ni = 0;
	for (unsigned i = 0; i < p->nr_general; i++) {
		uint64_t sel = r->ctrl[i];
		if (!(sel & SEL_EN))
			continue;
		if (sel & SEL_INT)
			vpmu_ctl_set(&imode[ni++], i, sel);
		else
			vpmu_ctl_set(&ctl->ctr[n++], i, sel);
	}
	for (unsigned j = 0; fixed && j < p->nr_fixed; j++) {
		unsigned pmc = ARCH_FIXED_BASE + j;
		uint64_t f = (fixed >> (4 * j)) & 0xF;
		if (!(f & (FIX_OS | FIX_USR)))
			continue;
		if (f & FIX_PMI)
			vpmu_ctl_set(&imode[ni++], pmc, f);
		else
			vpmu_ctl_set(&ctl->ctr[n++], pmc, f);
	}
	ctl->nractrs = n;
	for (unsigned i = 0; i < ni; i++)
		ctl->ctr[n++] = imode[i];
	ctl->nrictrs = ni;
	/* Version 1 has no GLOBAL_CTRL: the gate stays open. */
	if (p->version < 2)
		ctl->global[0] = p->model_data[D_COUNTERS];
	else
		ctl->global[0] = (r->misc[M_GLOBAL_STATUS] & STATUS_CTR_FRZ) ? 0 : r->misc[M_GLOBAL_CTRL];
}

/* Host images: each counter's in slot pmc, the gate in ARCH_GATE_SLOT, last
 * (the counters are programmed before they are let count, as Linux's
 * enable_all writes GLOBAL_CTRL after the event selects). */
static unsigned arch_ctrl_images(const struct vpmu_model *m, const struct vpmu_ctl *ctl,
				 struct vpmu_ctrl_image *out)
{
	(void)m;
	unsigned k = 0;
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++)
		out[k++] = (struct vpmu_ctrl_image){ (uint16_t)ctl->ctr[i].pmc, ctl->ctr[i].evntsel };
	out[k++] = (struct vpmu_ctrl_image){ ARCH_GATE_SLOT, ctl->global[0] };
	return k;
}

static uint32_t arch_check_control(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				   const struct vpmu_regfile *r, const struct vpmu_ctl *ctl)
{
	(void)m, (void)cx, (void)r;
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++) {
		const struct vpmu_ctl_ctr *e = &ctl->ctr[i];
		uint64_t cpl = is_fixed(e->pmc) ? (FIX_OS | FIX_USR) : (SEL_USR | SEL_OS);
		if (!(e->evntsel & cpl))
			return 1u << R_CPL_NONE;
	}
	return 0;
}

static bool arch_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			    uint64_t *key, unsigned *priv, bool *interrupt)
{
	(void)m;
	uint64_t img = ctrl[pmc];
	if (pmc >= ARCH_FIXED_BASE + ARCH_MAX_FIXED || !(ctrl[ARCH_GATE_SLOT] & global_bit(pmc)))
		return false;
	if (is_fixed(pmc)) {
		if (!(img & (FIX_OS | FIX_USR)))
			return false;
		*priv = ((img & FIX_USR) ? VPMU_PRIV_USER : 0) | ((img & FIX_OS) ? VPMU_PRIV_KERNEL : 0);
		*interrupt = (img & FIX_PMI) != 0;
		*key = fixed_key[pmc - ARCH_FIXED_BASE];
		return true;
	}
	if (!(img & SEL_EN))
		return false;
	*priv = ((img & SEL_USR) ? VPMU_PRIV_USER : 0) | ((img & SEL_OS) ? VPMU_PRIV_KERNEL : 0);
	*interrupt = (img & SEL_INT) != 0;
	*key = img;
	return true;
}

static uint64_t arch_ctl_key(const struct vpmu_model *m, const struct vpmu_ctl_ctr *e)
{
	(void)m;
	return is_fixed(e->pmc) ? fixed_key[(e->pmc - ARCH_FIXED_BASE) % ARCH_MAX_FIXED] : e->evntsel;
}

/* SDM vol. 3B, "Performance Monitoring (Overflow)": the counter's bit in
 * GLOBAL_STATUS; a PMI when its INT (fixed: PMI) bit is set. */
static bool arch_overflow(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			  struct vpmu_txn *t, unsigned pmc)
{
	(void)m;
	const uint64_t *misc = t->regs->misc;
	vpmu_txn_set_misc(t, M_GLOBAL_STATUS, misc[M_GLOBAL_STATUS] | global_bit(pmc));
	bool pmi = is_fixed(pmc) ? (misc[M_FIXED_CTRL] >> (4 * (pmc - ARCH_FIXED_BASE))) & FIX_PMI
				 : (t->regs->ctrl[pmc] & SEL_INT) != 0;
	/* Freeze_PerfMon_On_PMI (SDM vol. 3B, "Freezing Counters on PMI"): a PMI
	 * stops every counter, by clearing GLOBAL_CTRL (versions 2 and 3, the
	 * legacy freeze) or by setting GLOBAL_STATUS.CTR_FRZ (version 4's
	 * streamlined freeze, which software ends by clearing the bit). */
	if (pmi && (misc[M_DEBUGCTL] & DEBUGCTL_FREEZE_PERFMON_ON_PMI)) {
		if (cx->vm->pmu->version >= 4)
			vpmu_txn_set_misc(t, M_GLOBAL_STATUS, t->regs->misc[M_GLOBAL_STATUS] |
							      STATUS_CTR_FRZ);
		else
			vpmu_txn_set_misc(t, M_GLOBAL_CTRL, 0);
	}
	return pmi;
}

/* RDPMC (SDM vol. 2B, RDPMC): ECX[30] selects the fixed counters, ECX[29:0]
 * the counter; anything else, or a counter the VM lacks, #GP. */
static enum vpmu_fault arch_rdpmc(const struct vpmu_model *m, const struct vpmu_pmu *p,
				  uint32_t ecx, unsigned *pmc, unsigned *width)
{
	(void)m;
	uint32_t idx = ecx & 0x3FFFFFFFu;
	if (ecx & 0x80000000u)
		return VPMU_FAULT_NO_REG;
	if (ecx & 0x40000000u) {
		if (idx >= p->nr_fixed)
			return VPMU_FAULT_NO_REG;
		*pmc = ARCH_FIXED_BASE + idx;
	} else {
		if (idx >= p->nr_general)
			return VPMU_FAULT_NO_REG;
		*pmc = idx;
	}
	*width = p->width[*pmc];
	return VPMU_FAULT_NONE;
}

/* The Pentium M and later set the LVTPC mask on PMI delivery (SDM vol. 3B,
 * "Performance Monitoring Interrupts" note). */
static bool arch_pmi_automask(const struct vpmu_model *m, const struct vpmu_vm_opts *o)
{
	(void)m, (void)o;
	return true;
}

static bool arch_keep_reg(const struct vpmu_pmu *p, const struct vpmu_reg *r)
{
	const struct arch_cpu *c = cpu_of(p->model);
	if (r->kind == VPMU_REG_CTRL)
		return r->index < p->nr_general;
	if (r->kind == VPMU_REG_CTR) {
		if (is_fixed(r->index))
			return r->index < ARCH_FIXED_BASE + p->nr_fixed;
		if (r->addr >= MSR_A_PMC0 && !(c->perf_caps & PERF_CAP_FW_WRITE))
			return false;
		return r->index < p->nr_general;
	}
	if (r->index == M_STATUS_SET || r->index == M_INUSE)
		return p->version >= 4;
	if (r->index == M_GLOBAL_CTRL || r->index == M_GLOBAL_STATUS || r->index == M_OVF_CTRL ||
	    r->index == M_FIXED_CTRL)
		return p->version >= 2;
	return true;
}

/* The VM's geometry (as user space narrows KVM's CPUID leaf 0AH), the
 * registers it has, and leaf 0AH (SDM vol. 2A, CPUID "Architectural
 * Performance Monitoring Leaf"). */
static int arch_refresh(const struct vpmu_model *m, const struct vpmu_vm_opts *o,
			struct vpmu_pmu *p)
{
	const struct arch_cpu *c = cpu_of(m);
	unsigned version = o->pmu_version >= 0 ? (unsigned)o->pmu_version : c->version;
	unsigned gp = o->nr_general >= 0 ? (unsigned)o->nr_general : c->nr_gp;
	/* Version 1 has no fixed counters (leaf 0AH EDX is version 2's). */
	unsigned fixed = o->nr_fixed >= 0 ? (unsigned)o->nr_fixed : version >= 2 ? c->nr_fixed : 0;
	/* Narrower only (KVM takes the same from user space's CPUID 0AH). */
	if (version < 1 || version > c->version || gp > c->nr_gp || fixed > c->nr_fixed ||
	    (version < 2 && fixed))
		return -EINVAL;
	/* AnyThread: versions 3 and 4 of a CPU that has it. */
	bool any_thread = c->any_thread && version >= 3;
	p->version = version;
	p->nr_general = gp;
	p->nr_fixed = fixed;
	p->fixed_base = ARCH_FIXED_BASE;
	p->nr_ctrs = ARCH_FIXED_BASE + fixed;
	vpmu_pmu_set_width(p, 0, ARCH_FIXED_BASE, 0);
	vpmu_pmu_set_width(p, 0, gp, c->gp_width);
	vpmu_pmu_set_width(p, ARCH_FIXED_BASE, fixed, c->fixed_width);
	vpmu_pmu_filter_regs(p, arch_keep_reg);
	p->model_data[D_COUNTERS] = counters_mask(p);
	p->model_data[D_EVNTSEL_RSVD] = 0xFFFFFFFF00000000ull | (any_thread ? 0 : SEL_ANY);
	p->model_data[D_FIXED_RSVD] = fixed_ctrl_reserved(p, any_thread);
	p->model_data[D_STATUS_BITS] = counters_mask(p) | STATUS_COND_CHGD |
				       (version >= 4 ? STATUS_CTR_FRZ : 0);
	p->model_data[D_DEBUGCTL_OK] = version >= 2 ? DEBUGCTL_FREEZE_PERFMON_ON_PMI : 0;
	/* GLOBAL_CTRL resets with the general counters enabled, so that software
	 * written for version 1 counts with EN alone (SDM vol. 3B, "Architectural
	 * Performance Monitoring Version 2"; KVM sets it so at RESET). */
	p->misc_reset[M_GLOBAL_CTRL] = (1ull << gp) - 1;
	struct vpmu_cpuid_leaf *l = vpmu_pmu_cpuid(p, 0xA, 0);
	if (!l)
		return -EINVAL;
	l->eax = version | gp << 8 | c->gp_width << 16 | c->nr_arch_events << 24;
	l->ebx = 0;   /* every architectural event is available */
	/* EDX (version 2 on): the fixed counters and their width, and bit 15 on
	 * the CPUs that deprecated AnyThread. */
	l->edx = version < 2 ? 0 : fixed | c->fixed_width << 5 | (c->version >= 5 ? 1u << 15 : 0);
	l->ecx = version >= 5 ? (1u << fixed) - 1 : 0;   /* v5: the fixed counters, as a bitmap */
	return 0;
}

static const uint8_t arch_global_slot[1] = { ARCH_GATE_SLOT };

static const struct vpmu_model_ops arch_ops = {
	.write = arch_write,
	.read = arch_read,
	.derive = arch_derive,
	.check_control = arch_check_control,
	.ctrl_images = arch_ctrl_images,
	.decode_ctr = arch_decode_ctr,
	.ctl_key = arch_ctl_key,
	.overflow = arch_overflow,
	.pmi_automask = arch_pmi_automask,
	.refresh = arch_refresh,
	.rdpmc = arch_rdpmc,
};

/* CPUID.1:ECX bits (Intel SDM vol. 2A, "Feature Information Returned in the
 * ECX Register"): only what each part had and a VM can have (no MONITOR, no
 * VMX, no XSAVE/AVX, no DS: neither BTS nor PEBS is emulated). */
#define C_SSE3 (1u << 0)
#define C_SSSE3 (1u << 9)
#define C_CX16 (1u << 13)
#define C_PDCM (1u << 15)   /* IA32_PERF_CAPABILITIES exists */
#define C_SSE41 (1u << 19)
#define C_SSE42 (1u << 20)
#define C_POPCNT (1u << 23)
#define CORE2_ECX (C_SSE3 | C_SSSE3 | C_CX16 | C_PDCM)
#define NHM_ECX (CORE2_ECX | C_SSE41 | C_SSE42 | C_POPCNT)
#define ARCH_EDX (P6_BASE | F_CLFSH | F_SSE | F_SSE2)
#define ARCH_EXT_EDX (X_SYSCALL | X_NX | X_LM)
#define ARCH_EXT_ECX 0x1u   /* LAHF/SAHF in 64-bit mode */

#define ARCH_MODEL(sym, nm, desc, fam_model, step, ecx, brand_str, cpu_data, perf_cap, tbl)    \
	static const uint64_t sym##_misc_reset[VPMU_MAX_MISC] = {                                \
		[M_MISC_ENABLE] = MISC_ENABLE_PMU_BITS, [M_PERF_CAP] = (perf_cap),    \
	};                                                                                     \
	const struct vpmu_model sym = {                                                        \
		.name = nm,                                                                    \
		.description = desc,                                                           \
		.id = { "GenuineIntel", 6, fam_model, step, ARCH_EDX, ecx, ARCH_EXT_EDX,         \
			ARCH_EXT_ECX },                                                        \
		.brand = brand_str,                                                            \
		.regspace = VPMU_SPACE_MSR,                                                    \
		.caps = VPMU_CAP_PCINT | VPMU_CAP_GLOBAL_GATE,                                  \
		.nr_ctrs = ARCH_FIXED_BASE + ARCH_MAX_FIXED, .ctr_width = 48,                  \
		.nr_ctrl_slots = ARCH_GATE_SLOT + 1, .nr_globals = 1,                          \
		.global_slot = arch_global_slot,                                               \
		.regs = arch_regs, .nr_regs = sizeof(arch_regs) / sizeof(arch_regs[0]),        \
		.misc_reset = sym##_misc_reset,                                                \
		.rules = arch_rules, .nr_rules = R_NR,                                         \
		.table = &vpmu_events_##tbl, /* data/perfmon/tables.csv */                      \
		.event_exclude = SEL_CMASK | SEL_INV | SEL_EDGE,                               \
		.priv = cpu_data,                                                              \
		.ops = &arch_ops,                                                              \
	}

/* Per CPU: the version, counters and widths its CPUID leaf 0AH reports (SDM
 * vol. 3B, the "Performance Monitoring" section of each microarchitecture). */
static const struct arch_cpu core2_cpu = { 2, 2, 40, 3, 40, 7, false, 0 };
static const struct arch_cpu nehalem_cpu = { 3, 4, 48, 3, 48, 7, true, 0 };
/* Skylake: 4 general counters per logical processor with hyper-threading on
 * (the i7-6700K's), full-width writes. */
static const struct arch_cpu skylake_cpu = { 4, 4, 48, 3, 48, 7, true, PERF_CAP_FW_WRITE };
/* Ice Lake and Sapphire Rapids: 8 general counters, the fourth fixed counter
 * (TOPDOWN.SLOTS, the eighth architectural event), AnyThread deprecated. */
static const struct arch_cpu icelake_cpu = { 5, 8, 48, 4, 48, 8, false, PERF_CAP_FW_WRITE };
static const struct arch_cpu sapphirerapids_cpu = { 5, 8, 48, 4, 48, 8, false, PERF_CAP_FW_WRITE };

ARCH_MODEL(vpmu_model_core2, "core2",
	   "Intel Core 2 (Conroe, architectural perfmon v2): 2 x 40-bit general, 3 fixed counters",
	   15, 6, CORE2_ECX, "Intel(R) Core(TM)2 CPU          6600  @ 2.40GHz", &core2_cpu, 0, core2);
ARCH_MODEL(vpmu_model_nehalem, "nehalem",
	   "Intel Core i7 (Nehalem, architectural perfmon v3): 4 x 48-bit general, 3 fixed counters",
	   26, 5, NHM_ECX, "Intel(R) Core(TM) i7 CPU         920  @ 2.67GHz", &nehalem_cpu, 0, nehalem);
ARCH_MODEL(vpmu_model_skylake, "skylake",
	   "Intel Core i7-6700K (Skylake, architectural perfmon v4): 4 x 48-bit general, 3 fixed",
	   94, 3, NHM_ECX, "Intel(R) Core(TM) i7-6700K CPU @ 4.00GHz", &skylake_cpu, PERF_CAP_FW_WRITE, skylake);
ARCH_MODEL(vpmu_model_icelake, "icelake",
	   "Intel Core i7-1065G7 (Ice Lake, architectural perfmon v5): 8 x 48-bit general, 4 fixed",
	   126, 5, NHM_ECX, "Intel(R) Core(TM) i7-1065G7 CPU @ 1.30GHz", &icelake_cpu, PERF_CAP_FW_WRITE, icelake);
ARCH_MODEL(vpmu_model_sapphirerapids, "sapphirerapids",
	   "Intel Xeon 8480+ (Sapphire Rapids, architectural perfmon v5): 8 x 48-bit general, 4 fixed",
	   143, 8, NHM_ECX, "Intel(R) Xeon(R) Platinum 8480+", &sapphirerapids_cpu, PERF_CAP_FW_WRITE, sapphirerapids);
