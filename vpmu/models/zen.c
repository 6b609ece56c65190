/* SPDX-License-Identifier: MIT */
/*
 * AMD Zen core performance counters: `zen1` (Family 17h) and `zen4` (Family 19h
 * with PerfMonV2).  docs/models/zen1.md and docs/models/zen4.md describe them.
 *
 * Hardware (AMD64 Architecture Programmer's Manual vol. 2, "Performance
 * Monitoring Counters"; AMD PPR for Family 17h Model 01h and for Family 19h
 * Model 11h, MSRC001_020[0...A] PERF_CTL and MSRC001_020[1...B] PERF_CTR):
 * with CPUID Fn8000_0001_ECX[PerfCtrExtCore] (bit 23) a core has six 48-bit
 * counters, PERF_CTL0-5 and PERF_CTR0-5 interleaved at 0xC0010200-0xC001020B
 * (control at even addresses, counter at odd ones); the legacy PerfEvtSel0-3
 * (0xC0010000-3) and PerfCtr0-3 (0xC0010004-7) are aliases of counters 0-3
 * ("Legacy" registers in the APM; Linux arch/x86/events/amd/core.c
 * amd_pmu_addr_offset uses either set for the same counter).
 *
 * PerfEvtSel: EventSelect[7:0] and [11:8] in bits 35:32, UnitMask 15:8, USR 16,
 * OS 17, Edge 18, INT 20, EN 22, INV 23, CntMask 31:24, GuestOnly 40, HostOnly
 * 41; bits 19, 21, 39:36 and 63:42 are reserved and a write setting one raises
 * #GP (APM vol. 2, "Model-Specific Registers": reserved MSR bits).
 *
 * PerfMonV2 (zen4; APM vol. 2 "Performance Monitoring Counters", PerfMonV2;
 * CPUID Fn8000_0022): PerfCntrGlobalStatus 0xC0000300 (read-only, bit n: counter
 * n overflowed), PerfCntrGlobalCtl 0xC0000301 (bit n enables counter n, ANDed
 * with its EN), PerfCntrGlobalStatusClr 0xC0000302 and PerfCntrGlobalStatusSet
 * 0xC0000303 (write 1 to clear / set status bits).  GlobalCtl resets with every
 * counter's bit set (KVM arch/x86/kvm/pmu.c kvm_pmu_refresh: "At RESET, both
 * Intel and AMD CPUs set all enable bits for general purpose counters").
 */
#include <errno.h>

#include "../events.h"
#include "../model.h"
#include "x86_cpuid.h"

#define ZEN_NR_CTRS 6
#define ZEN_CTR_WIDTH 48

#define K7_EVNTSEL0 0xC0010000u
#define K7_PERFCTR0 0xC0010004u
#define F15H_PERF_CTL0 0xC0010200u      /* Linux MSR_F15H_PERF_CTL */
#define PERF_CNTR_GLOBAL_STATUS 0xC0000300u
#define PERF_CNTR_GLOBAL_CTL 0xC0000301u
#define PERF_CNTR_GLOBAL_STATUS_CLR 0xC0000302u
#define PERF_CNTR_GLOBAL_STATUS_SET 0xC0000303u

#define ZEN_USR  (1ull << 16)
#define ZEN_OS   (1ull << 17)
#define ZEN_EDGE (1ull << 18)
#define ZEN_INT  (1ull << 20)
#define ZEN_EN   (1ull << 22)
#define ZEN_INV  (1ull << 23)
/* The bits PerfEvtSel defines: event 7:0, unit mask 15:8, USR, OS, Edge, INT,
 * EN, INV, CntMask 31:24, event 11:8 in 35:32, GuestOnly 40, HostOnly 41. */
#define ZEN_EVSEL_VALID (0xFFFFull | ZEN_USR | ZEN_OS | ZEN_EDGE | ZEN_INT | ZEN_EN | ZEN_INV | \
			 0xFF000000ull | 0xF00000000ull | (1ull << 40) | (1ull << 41))
#define ZEN_EVSEL_RESERVED (~ZEN_EVSEL_VALID)
/* EventSelect[11:0] and UnitMask: what selects an event. */
#define ZEN_EV_MATCH 0xF0000FFFFull
#define ZEN_EV_ONLY  0xF000000FFull

/* MISC registers (zen4). */
enum { ZEN_MISC_STATUS, ZEN_MISC_CTL, ZEN_MISC_STATUS_CLR, ZEN_MISC_STATUS_SET };

#define CTL(i) { F15H_PERF_CTL0 + 2 * (i), VPMU_SPACE_MSR, VPMU_REG_CTRL, (i), 0 }, \
	       { F15H_PERF_CTL0 + 2 * (i) + 1, VPMU_SPACE_MSR, VPMU_REG_CTR, (i), 0 }
#define LEGACY_REGS \
	{ K7_EVNTSEL0 + 0, VPMU_SPACE_MSR, VPMU_REG_CTRL, 0, 0 }, \
	{ K7_EVNTSEL0 + 1, VPMU_SPACE_MSR, VPMU_REG_CTRL, 1, 0 }, \
	{ K7_EVNTSEL0 + 2, VPMU_SPACE_MSR, VPMU_REG_CTRL, 2, 0 }, \
	{ K7_EVNTSEL0 + 3, VPMU_SPACE_MSR, VPMU_REG_CTRL, 3, 0 }, \
	{ K7_PERFCTR0 + 0, VPMU_SPACE_MSR, VPMU_REG_CTR, 0, 0 }, \
	{ K7_PERFCTR0 + 1, VPMU_SPACE_MSR, VPMU_REG_CTR, 1, 0 }, \
	{ K7_PERFCTR0 + 2, VPMU_SPACE_MSR, VPMU_REG_CTR, 2, 0 }, \
	{ K7_PERFCTR0 + 3, VPMU_SPACE_MSR, VPMU_REG_CTR, 3, 0 }
#define EXT_REGS CTL(0), CTL(1), CTL(2), CTL(3), CTL(4), CTL(5)

static const struct vpmu_reg zen1_regs[] = { LEGACY_REGS, EXT_REGS };

static const struct vpmu_reg zen4_regs[] = {
	{ PERF_CNTR_GLOBAL_STATUS, VPMU_SPACE_MSR, VPMU_REG_MISC, ZEN_MISC_STATUS, 0 },
	{ PERF_CNTR_GLOBAL_CTL, VPMU_SPACE_MSR, VPMU_REG_MISC, ZEN_MISC_CTL, VPMU_REGF_READ_HOOK },
	{ PERF_CNTR_GLOBAL_STATUS_CLR, VPMU_SPACE_MSR, VPMU_REG_MISC, ZEN_MISC_STATUS_CLR, 0 },
	{ PERF_CNTR_GLOBAL_STATUS_SET, VPMU_SPACE_MSR, VPMU_REG_MISC, ZEN_MISC_STATUS_SET, 0 },
	LEGACY_REGS, EXT_REGS,
};

/* GlobalCtl at reset: every counter enabled (above); the read hook and derive
 * keep the bits of the counters the VM has. */
static const uint64_t zen4_misc_reset[VPMU_MAX_MISC] = {
	[ZEN_MISC_CTL] = (1ull << ZEN_NR_CTRS) - 1,
	[ZEN_MISC_STATUS_SET] = 0,
};

/* The model's own data: whether it has PerfMonV2. */
struct zen_variant {
	bool perfmon_v2;
};
static const struct zen_variant zen1_variant = { false }, zen4_variant = { true };

static bool zen_v2(const struct vpmu_model *m)
{
	return ((const struct zen_variant *)m->priv)->perfmon_v2;
}

/* The counters the VM has, as a GlobalCtl/GlobalStatus mask. */
static uint64_t zen_ctr_mask(const struct vpmu_vm_opts *o)
{
	return (1ull << o->pmu->nr_general) - 1;
}

static enum vpmu_fault zen_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				 struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val)
{
	(void)m;
	uint64_t ctrs = zen_ctr_mask(cx->vm);
	switch (reg->kind) {
	case VPMU_REG_CTR:
		/* PERF_CTR is 48 bits (PPR: bits 63:48 reserved); as on the K7/K8
		 * the low 48 bits land and bits 48-63 are dropped (Linux masks its
		 * writes to cntval_mask, KVM pmc_write_counter drops them too). */
		vpmu_txn_set_ctr(t, reg->index, val & vpmu_width_mask(ZEN_CTR_WIDTH));
		return VPMU_FAULT_NONE;
	case VPMU_REG_CTRL:
		if (val & ZEN_EVSEL_RESERVED)
			return VPMU_FAULT_RESERVED;
		/* A write that keeps EN and INT changes only this counter's image. */
		if (!((t->regs->ctrl[reg->index] ^ val) & (ZEN_EN | ZEN_INT)))
			vpmu_txn_retarget(t, reg->index, val);
		vpmu_txn_set_ctrl(t, reg->index, val);
		return VPMU_FAULT_NONE;
	default:
		break;
	}
	switch (reg->index) {
	case ZEN_MISC_STATUS:
		/* Read-only to the guest (APM: PerfCntrGlobalStatus; KVM "RO MSR");
		 * a host restore loads it. */
		if (!t->host)
			return VPMU_FAULT_READ_ONLY;
		if (val & ~ctrs)
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_misc(t, ZEN_MISC_STATUS, val);
		return VPMU_FAULT_NONE;
	case ZEN_MISC_CTL:
		/* One enable per counter the VM has; other bits reserved (KVM
		 * global_ctrl_rsvd). */
		if (val & ~ctrs)
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_misc(t, ZEN_MISC_CTL, val);
		return VPMU_FAULT_NONE;
	case ZEN_MISC_STATUS_CLR:
	case ZEN_MISC_STATUS_SET: {
		/* Write-only, no state: a restore can only load the 0 a save got. */
		if (t->host)
			return val ? VPMU_FAULT_RESERVED : VPMU_FAULT_NONE;
		/* Writes to the reserved bits are ignored, not refused: Linux's
		 * PerfMonV2 interrupt handler acknowledges with the complement of
		 * what it left unhandled (arch/x86/events/amd/core.c
		 * amd_pmu_v2_handle_irq: amd_pmu_ack_global_status(~status), all
		 * ones), a Zen 4 takes that, and KVM emulates both registers so
		 * (arch/x86/kvm/pmu.c kvm_pmu_set_msr: "AMD ignores writes to
		 * reserved bits").  Bit 58, LbrFreeze, is defined (Linux
		 * amd_pmu_cpu_reset writes it); no LBR is emulated, so it never
		 * sets.  Only the VM's counters' bits change the status. */
		val &= ctrs;
		/* Write-only: the register itself keeps 0 (reads return 0, as KVM
		 * kvm_pmu_get_msr answers); each 1 clears / sets its status bit. */
		uint64_t st = t->regs->misc[ZEN_MISC_STATUS];
		st = reg->index == ZEN_MISC_STATUS_CLR ? st & ~val : st | val;
		vpmu_txn_set_misc(t, ZEN_MISC_STATUS, st);
		return VPMU_FAULT_NONE;
	}
	}
	return VPMU_FAULT_NO_REG;
}

static enum vpmu_fault zen_read(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				const struct vpmu_regfile *r, const struct vpmu_reg *reg,
				uint64_t raw, uint64_t *val)
{
	(void)m, (void)r, (void)reg;
	/* GlobalCtl: only the enables of the counters the VM has. */
	*val = raw & zen_ctr_mask(cx->vm);
	return VPMU_FAULT_NONE;
}

/* A counter counts when its EN is set and, with PerfMonV2, its GlobalCtl bit
 * too; INT makes it an i-mode counter.  a-mode first (perfctr's layout). */
static void zen_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
		       const struct vpmu_regfile *r, struct vpmu_ctl *ctl)
{
	unsigned n = cx->vm->pmu->nr_general, na = 0, ni = 0;
	uint64_t gate = zen_v2(m) ? r->misc[ZEN_MISC_CTL] : ~0ull;
	uint8_t ipmc[ZEN_NR_CTRS];
	for (unsigned pmc = 0; pmc < n && pmc < ZEN_NR_CTRS; pmc++) {
		uint64_t ev = r->ctrl[pmc];
		if (!(ev & ZEN_EN) || !((gate >> pmc) & 1))
			continue;
		if (ev & ZEN_INT)
			ipmc[ni++] = (uint8_t)pmc;
		else
			vpmu_ctl_set(&ctl->ctr[na++], pmc, ev);
	}
	for (unsigned k = 0; k < ni; k++)
		vpmu_ctl_set(&ctl->ctr[na + k], ipmc[k], r->ctrl[ipmc[k]]);
	ctl->nractrs = na;
	ctl->nrictrs = ni;
}

static bool zen_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			   uint64_t *key, unsigned *priv, bool *interrupt)
{
	(void)m;
	uint64_t ev = ctrl[pmc];
	if (!(ev & ZEN_EN))
		return false;
	*priv = ((ev & ZEN_USR) ? VPMU_PRIV_USER : 0) | ((ev & ZEN_OS) ? VPMU_PRIV_KERNEL : 0);
	*interrupt = (ev & ZEN_INT) != 0;
	*key = ev;
	return true;
}

/* PerfMonV2: an overflow sets the counter's PerfCntrGlobalStatus bit, and the
 * interrupt is due when the counter's INT is set (APM vol. 2, PerfMonV2; Linux
 * amd_pmu_v2_handle_irq reads the status to find the counters). */
static bool zen4_overflow(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			  struct vpmu_txn *t, unsigned pmc)
{
	(void)m, (void)cx;
	vpmu_txn_set_misc(t, ZEN_MISC_STATUS, t->regs->misc[ZEN_MISC_STATUS] | (1ull << pmc));
	return (t->regs->ctrl[pmc] & ZEN_INT) != 0;
}

static bool zen_keep_reg(const struct vpmu_pmu *p, const struct vpmu_reg *r)
{
	return r->kind == VPMU_REG_MISC || r->index < p->nr_general;
}

/* zen1: one geometry (Linux takes six counters from PerfCtrExtCore alone:
 * nothing tells a guest of fewer), no architectural version. */
static int zen1_refresh(const struct vpmu_model *m, const struct vpmu_vm_opts *o,
			struct vpmu_pmu *pmu)
{
	(void)m, (void)pmu;
	if ((o->pmu_version >= 0 && o->pmu_version != 0) ||
	    (o->nr_general >= 0 && o->nr_general != ZEN_NR_CTRS) || o->nr_fixed > 0)
		return -EINVAL;
	return 0;
}

/* zen4: PerfMonV2 (version 2, as KVM's amd_pmu_refresh calls it) with
 * CPUID Fn8000_0022: EAX bit 0 PerfMonV2, EBX[3:0] NumPerfCtrCore.  A VM may
 * have fewer counters (1..6): its EBX says so and the registers of the others
 * are absent (#GP), as under KVM with a narrowed Fn8000_0022. */
static int zen4_refresh(const struct vpmu_model *m, const struct vpmu_vm_opts *o,
			struct vpmu_pmu *pmu)
{
	(void)m;
	if ((o->pmu_version >= 0 && o->pmu_version != 2) || o->nr_fixed > 0 ||
	    o->nr_general == 0 || o->nr_general > ZEN_NR_CTRS)
		return -EINVAL;
	unsigned n = o->nr_general > 0 ? (unsigned)o->nr_general : ZEN_NR_CTRS;
	pmu->version = 2;
	pmu->nr_ctrs = pmu->nr_general = n;
	vpmu_pmu_filter_regs(pmu, zen_keep_reg);
	struct vpmu_cpuid_leaf *l = vpmu_pmu_cpuid(pmu, 0x80000022, 0);
	if (!l)
		return -EINVAL;
	l->eax = 1u << 0;           /* PerfMonV2 */
	l->ebx = n & 0xF;           /* NumPerfCtrCore; no LBR, DF or UMC counters */
	l->ecx = l->edx = 0;
	return 0;
}

/* Edge, INV and CntMask make an event count something else. */
#define ZEN_EVENT_EXCLUDE (0xFF000000ull | ZEN_INV | ZEN_EDGE)

static const struct vpmu_model_ops zen1_ops = {
	.write = zen_write,
	.derive = zen_derive,
	.decode_ctr = zen_decode_ctr,
	.refresh = zen1_refresh,
	/* AMD's LVTPC is not masked on PMI delivery. */
	.pmi_automask = NULL,
};

static const struct vpmu_model_ops zen4_ops = {
	.write = zen_write,
	.read = zen_read,
	.derive = zen_derive,
	.decode_ctr = zen_decode_ctr,
	.overflow = zen4_overflow,
	.refresh = zen4_refresh,
	.pmi_automask = NULL,
};

/* CPUID: a minimal subset of what the parts report (PPR Fn0000_0001_EDX,
 * Fn8000_0001_EDX/ECX): the base features, SSE/SSE2, CLFLUSH; SYSCALL, NX,
 * MMX extensions and long mode; PerfCtrExtCore (Fn8000_0001_ECX bit 23).  No
 * 3DNow! (Family 17h dropped it), no PerfCtrExtNB/LLC (not emulated). */
#define ZEN_CPUID1_EDX (P6_BASE | F_CLFSH | F_SSE | F_SSE2)
#define ZEN_EXT1_EDX ((P6_BASE & ~F_SEP) | X_SYSCALL | X_NX | X_MMXEXT | X_LM)
#define ZEN_EXT1_ECX (1u << 23)   /* PerfCtrExtCore */

const struct vpmu_model vpmu_model_zen1 = {
	.name = "zen1",
	.description = "AMD Zen (Family 17h): 6 x 48-bit counters, legacy 4 aliased, per-counter enable",
	/* Ryzen 7 1800X "Summit Ridge": family 17h, model 1, stepping 1 (PPR for
	 * Family 17h Model 01h). */
	.id = { "AuthenticAMD", 0x17, 1, 1, ZEN_CPUID1_EDX, 0, ZEN_EXT1_EDX, ZEN_EXT1_ECX },
	.brand = "AMD Ryzen 7 1800X Eight-Core Processor",
	.regspace = VPMU_SPACE_MSR,
	.caps = VPMU_CAP_PCINT,
	.nr_ctrs = ZEN_NR_CTRS, .ctr_width = ZEN_CTR_WIDTH, .nr_ctrl_slots = ZEN_NR_CTRS,
	.regs = zen1_regs, .nr_regs = sizeof(zen1_regs) / sizeof(zen1_regs[0]),
	.table = &vpmu_events_zen1,   /* data/perfmon/vpmu/zen1-generic.json, amd/amdzen1 */
	.event_exclude = ZEN_EVENT_EXCLUDE,
	.priv = &zen1_variant,
	.ops = &zen1_ops,
};

const struct vpmu_model vpmu_model_zen4 = {
	.name = "zen4",
	.description = "AMD Zen 4 (Family 19h): 6 x 48-bit counters, PerfMonV2 global control and status",
	/* EPYC 9654 "Genoa": family 19h, model 11h, stepping 1 (PPR for Family 19h
	 * Model 11h). */
	.id = { "AuthenticAMD", 0x19, 0x11, 1, ZEN_CPUID1_EDX, 0, ZEN_EXT1_EDX, ZEN_EXT1_ECX },
	.brand = "AMD EPYC 9654 96-Core Processor",
	.regspace = VPMU_SPACE_MSR,
	.caps = VPMU_CAP_PCINT,
	.nr_ctrs = ZEN_NR_CTRS, .ctr_width = ZEN_CTR_WIDTH, .nr_ctrl_slots = ZEN_NR_CTRS,
	.regs = zen4_regs, .nr_regs = sizeof(zen4_regs) / sizeof(zen4_regs[0]),
	.misc_reset = zen4_misc_reset,
	.table = &vpmu_events_zen4,   /* data/perfmon/vpmu/zen4-generic.json, amd/amdzen4 */
	.event_exclude = ZEN_EVENT_EXCLUDE,
	.priv = &zen4_variant,
	.ops = &zen4_ops,
};
