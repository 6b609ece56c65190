/* SPDX-License-Identifier: MIT */
/*
 * The RISC-V SBI PMU's counters, registers and control (riscv_sbi.h says
 * what the model is; riscv_sbi_calls.c has the extension's functions).
 *
 * A guest reaches the counters two ways: SBI calls, which the VMM passes to
 * vpmu_call(), and csrr of a hardware counter's CSR, which a hypervisor traps
 * (KVM RISC-V with the user-PMU change: docs/riscv.md) and the VMM passes to
 * vpmu_reg_read(VPMU_SPACE_CSR).  A counter counts while it is configured
 * (counter_config_matching) and started (counter_start); the started hardware
 * counters are the control, each interrupting at its wrap until it
 * overflowed once (Sscofpmf's OF).  Firmware counters count what the VMM
 * reports (vpmu_vcpu_fw_event) and are never in the control.
 */
#include <errno.h>

#include "../events.h"
#include "riscv_sbi.h"

static const struct vpmu_rule sbi_rules[SBI_NR_RULES] = {
	[SBI_RULE_START_UNCONFIGURED] = { "start-unconfigured",
		"counter_start names a counter no counter_config_matching configured (SBI v2.0 "
		"\"Start a set of counters\": the counters of the set are ones the supervisor "
		"configured; KVM RISC-V skips the others)", 0 },
	[SBI_RULE_STOP_UNCONFIGURED] = { "stop-unconfigured",
		"counter_stop names a counter no counter_config_matching configured (SBI v2.0 "
		"\"Stop a set of counters\"; KVM RISC-V skips the others)", 0 },
	[SBI_RULE_CONFIG_RUNNING] = { "config-running",
		"counter_config_matching with SKIP_MATCH re-configures a counter that is "
		"started (SBI v2.0: a counter is configured, then started; its event changes "
		"under a running count)", 0 },
	[SBI_RULE_RAW_DATA_RESERVED] = { "raw-data-reserved",
		"a raw event's event_data sets bits past its width (SBI v2.0: type 2 uses "
		"event_data[47:0]; SBI v3.0: type 3 uses event_data[55:0])", 0 },
};

/* The registers of every geometry (a VM's are a subset: sbi_refresh): the
 * hardware counters' CSRs (csrr; the time CSR 0xC01 is no PMU register), and
 * the state registers a save carries. */
#define SBI_CSR(i) { SBI_CSR_CYCLE + (i), VPMU_SPACE_CSR, VPMU_REG_CTR, i, 0 }
#define SBI_CONFIG(n) { SBI_STATE_CONFIG(n), VPMU_SPACE_STATE, VPMU_REG_CTRL, n, 0 }
#define SBI_FW(j) { SBI_STATE_FW_VALUE(j), VPMU_SPACE_STATE, VPMU_REG_CTR, SBI_HW_DEFAULT + (j), 0 }
#define SBI_MISC(k) { SBI_STATE_MISC(k), VPMU_SPACE_STATE, VPMU_REG_MISC, k, 0 }
#define SBI_X4(M, i) M(i), M(i + 1), M(i + 2), M(i + 3)
#define SBI_X16(M, i) SBI_X4(M, i), SBI_X4(M, i + 4), SBI_X4(M, i + 8), SBI_X4(M, i + 12)
static const struct vpmu_reg sbi_regs[] = {
	SBI_CSR(0), SBI_CSR(2), SBI_CSR(3), SBI_X4(SBI_CSR, 4), SBI_X4(SBI_CSR, 8),
	SBI_X16(SBI_CSR, 12), SBI_X4(SBI_CSR, 28),                          /* 0xC00-0xC1F */
	SBI_CONFIG(0), SBI_CONFIG(2), SBI_CONFIG(3), SBI_X4(SBI_CONFIG, 4), SBI_X4(SBI_CONFIG, 8),
	SBI_X16(SBI_CONFIG, 12), SBI_X16(SBI_CONFIG, 28), SBI_X4(SBI_CONFIG, 44),
	SBI_X4(SBI_CONFIG, 48), SBI_CONFIG(52), SBI_CONFIG(53),            /* counters 0-53 */
	SBI_X16(SBI_FW, 0), SBI_X4(SBI_FW, 16), SBI_FW(20), SBI_FW(21),    /* firmware 0-21 */
	SBI_MISC(0), SBI_MISC(1), SBI_MISC(2), SBI_MISC(3),
};
_Static_assert(sizeof(sbi_regs) / sizeof(sbi_regs[0]) == 31 + 53 + SBI_NR_FW + SBI_NR_MISC,
	       "sbi_regs: every register of the widest geometry");

static const uint64_t sbi_misc_reset[VPMU_MAX_MISC] = { [SBI_MISC_SHMEM] = SBI_SHMEM_NONE };

/* ---------------------------------------------------------------- events */

/* The event key of a configuration image: its event index (the raw types'
 * data selects hardware-specific events no table names). */
static uint64_t sbi_key(uint64_t img)
{
	unsigned raw = (unsigned)(img >> SBI_IMG_RAW_SHIFT) & 3;
	return raw ? (uint64_t)raw << 16 : img & SBI_IMG_IDX;
}

/* The privileges a configuration counts in: the guest's S-mode is its kernel,
 * U-mode its user space (KVM RISC-V maps SINH/UINH to exclude_kernel/user;
 * VSINH/VUINH and MINH name modes a guest without nested guests never runs). */
static unsigned sbi_priv(uint64_t img)
{
	return (img & SBI_IMG_UINH ? 0 : VPMU_PRIV_USER) | (img & SBI_IMG_SINH ? 0 : VPMU_PRIV_KERNEL);
}

/* ---------------------------------------------------------------- per VM */

static bool sbi_has_csr(const struct vpmu_pmu *p, unsigned i)
{
	return i < sbi_nr_hw(p) && i != SBI_CTR_TIME;
}

static void sbi_add_reg(struct vpmu_pmu *p, uint32_t addr, uint8_t space, uint8_t kind,
			uint8_t index)
{
	p->regs[p->nr_regs++] = (struct vpmu_reg){ addr, space, kind, index, 0 };
}

/*
 * The geometry: nr_general is the number of hardware counter indices (3..32:
 * cycle, time, instret and nr_general - 3 hpmcounters; default 19, QEMU's
 * virt CPUs' 16 hpmcounters), then the 22 firmware counters; pmu_version the
 * SBI specification version (1-3, default 2: what KVM RISC-V 6.12 reports).
 */
static int sbi_refresh(const struct vpmu_model *m, const struct vpmu_vm_opts *o,
		       struct vpmu_pmu *p)
{
	(void)m;
	unsigned nhw = o->nr_general < 0 ? SBI_HW_DEFAULT : (unsigned)o->nr_general;
	unsigned version = o->pmu_version < 0 ? 2 : (unsigned)o->pmu_version;
	if (nhw < 3 || nhw > SBI_HW_MAX || version < 1 || version > 3 || o->nr_fixed > 0)
		return -EINVAL;
	p->version = version;
	p->nr_general = nhw;
	p->nr_fixed = 0;
	p->nr_ctrs = nhw + SBI_NR_FW;
	vpmu_pmu_set_width(p, 0, p->nr_ctrs, SBI_CTR_WIDTH);
	vpmu_pmu_set_width(p, SBI_CTR_TIME, 1, 0);
	p->width[SBI_CTR_TIME] = 0;
	p->width_mask[SBI_CTR_TIME] = 0;
	p->nr_regs = 0;
	for (unsigned i = 0; i < nhw; i++)
		if (sbi_has_csr(p, i))
			sbi_add_reg(p, SBI_CSR_CYCLE + i, VPMU_SPACE_CSR, VPMU_REG_CTR, (uint8_t)i);
	for (unsigned n = 0; n < p->nr_ctrs; n++)
		if (n != SBI_CTR_TIME)
			sbi_add_reg(p, SBI_STATE_CONFIG(n), VPMU_SPACE_STATE, VPMU_REG_CTRL, (uint8_t)n);
	for (unsigned j = 0; j < SBI_NR_FW; j++)
		sbi_add_reg(p, SBI_STATE_FW_VALUE(j), VPMU_SPACE_STATE, VPMU_REG_CTR, (uint8_t)(nhw + j));
	for (unsigned k = 0; k < SBI_NR_MISC; k++)
		sbi_add_reg(p, SBI_STATE_MISC(k), VPMU_SPACE_STATE, VPMU_REG_MISC, (uint8_t)k);
	return 0;
}

/* ---------------------------------------------------------------- registers */

static uint64_t sbi_counters_mask(const struct vpmu_pmu *p)
{
	return vpmu_width_mask(p->nr_ctrs) & ~(1ull << SBI_CTR_TIME);
}

/* A guest writes no PMU CSR (the counter CSRs are read-only: csrw faults);
 * the host (a restore) sets the state registers, checked like a call would
 * have left them. */
static enum vpmu_fault sbi_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				 struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val)
{
	(void)m;
	const struct vpmu_pmu *p = cx->vm->pmu;
	if (!t->host)
		return VPMU_FAULT_READ_ONLY;
	switch (reg->kind) {
	case VPMU_REG_CTR:
		vpmu_txn_set_ctr(t, reg->index, val);
		return VPMU_FAULT_NONE;
	case VPMU_REG_CTRL:
		if ((val & SBI_IMG_OF) || ((val >> SBI_IMG_RAW_SHIFT) & 3) == 1 ||
		    (!((val >> SBI_IMG_RAW_SHIFT) & 3) && (val & SBI_IMG_DATA & ~SBI_IMG_IDX)))
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_ctrl(t, reg->index, val);
		return VPMU_FAULT_NONE;
	default:
		if (reg->index != SBI_MISC_SHMEM && (val & ~sbi_counters_mask(p)))
			return VPMU_FAULT_RESERVED;
		if (reg->index == SBI_MISC_SHMEM && val != SBI_SHMEM_NONE && (val & 0xFFF))
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_misc(t, reg->index, val);
		return VPMU_FAULT_NONE;
	}
}

/* The started hardware counters that count in some mode: those that have not
 * overflowed since their start interrupt at their wrap (i-mode), the others
 * count on (a-mode). */
static void sbi_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
		       const struct vpmu_regfile *r, struct vpmu_ctl *ctl)
{
	(void)m;
	const struct vpmu_pmu *p = cx->vm->pmu;
	uint64_t on = r->misc[SBI_MISC_MAPPED] & r->misc[SBI_MISC_STARTED] &
		      vpmu_width_mask(sbi_nr_hw(p));
	uint64_t ovf = r->misc[SBI_MISC_OVERFLOWED];
	unsigned n = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (uint64_t b = on; b; b &= b - 1) {
			unsigned pmc = (unsigned)__builtin_ctzll(b);
			bool of = (ovf >> pmc) & 1;
			if (of != (pass == 0) || !sbi_priv(r->ctrl[pmc]))
				continue;
			vpmu_ctl_set(&ctl->ctr[n++], pmc, r->ctrl[pmc] | (of ? SBI_IMG_OF : 0));
		}
		if (pass == 0)
			ctl->nractrs = n;
	}
	ctl->nrictrs = n - ctl->nractrs;
}

static bool sbi_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			   uint64_t *key, unsigned *priv, bool *interrupt)
{
	(void)m;
	uint64_t img = ctrl[pmc];
	*priv = sbi_priv(img);
	*key = sbi_key(img);
	*interrupt = !(img & SBI_IMG_OF);
	return *priv != 0;
}

static uint64_t sbi_ctl_key(const struct vpmu_model *m, const struct vpmu_ctl_ctr *e)
{
	(void)m;
	return sbi_key(e->evntsel);
}

/* A wrap of a counter whose OF is clear sets it and raises LCOFI (Sscofpmf);
 * KVM RISC-V keeps it as pmc_overflown, reported in the snapshot's overflow
 * mask at the next counter_stop with TAKE_SNAPSHOT. */
static bool sbi_overflow(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			 struct vpmu_txn *t, unsigned pmc)
{
	(void)m, (void)cx;
	uint64_t ovf = t->regs->misc[SBI_MISC_OVERFLOWED];
	vpmu_txn_set_misc(t, SBI_MISC_OVERFLOWED, ovf | 1ull << pmc);
	return !((ovf >> pmc) & 1);
}

static uint64_t sbi_firmware_counters(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				      const struct vpmu_regfile *r, unsigned code)
{
	(void)m;
	const struct vpmu_pmu *p = cx->vm->pmu;
	if (code >= SBI_NR_FW)
		return ~0ull;
	uint64_t on = r->misc[SBI_MISC_MAPPED] & r->misc[SBI_MISC_STARTED] &
		      ~vpmu_width_mask(sbi_nr_hw(p)), mask = 0;
	for (uint64_t b = on; b; b &= b - 1) {
		unsigned n = (unsigned)__builtin_ctzll(b);
		if ((r->ctrl[n] & SBI_IMG_IDX) == ((uint64_t)SBI_TYPE_FW << 16 | code))
			mask |= 1ull << n;
	}
	return mask;
}

static const struct vpmu_model_ops sbi_ops = {
	.write = sbi_write,
	.derive = sbi_derive,
	.decode_ctr = sbi_decode_ctr,
	.ctl_key = sbi_ctl_key,
	.overflow = sbi_overflow,
	.call = sbi_call,
	.firmware_counters = sbi_firmware_counters,
	.refresh = sbi_refresh,
};

const struct vpmu_model vpmu_model_riscv_sbi = {
	.name = "riscv-sbi",
	.description = "RISC-V SBI PMU (SBI v2.0) with Sscofpmf: cycle, instret, hpmcounter3-31 "
		       "and 22 firmware counters, reached by SBI calls and counter CSR reads",
	.id = { "RISC-V", 0, 0, 0, 0, 0, 0, 0 },
	.regspace = VPMU_SPACE_CSR,
	.caps = VPMU_CAP_PCINT,
	.nr_ctrs = SBI_HW_DEFAULT + SBI_NR_FW,
	.ctr_width = SBI_CTR_WIDTH,
	.nr_ctrl_slots = SBI_HW_MAX + SBI_NR_FW,
	.regs = sbi_regs,
	.nr_regs = sizeof(sbi_regs) / sizeof(sbi_regs[0]),
	.misc_reset = sbi_misc_reset,
	.rules = sbi_rules,
	.nr_rules = SBI_NR_RULES,
	.table = &vpmu_events_riscv_sbi,   /* data/perfmon/vpmu/riscv-sbi.json */
	.ops = &sbi_ops,
};
