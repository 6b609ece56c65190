/* SPDX-License-Identifier: MIT */
/*
 * The model contract (vpmu/model.h), proved with a model that exists only here.
 *
 * No shipped model uses the read, overflow and call hooks, hyper-threading or the
 * per-counter event table yet (P4, PowerPC and the RISC-V SBI PMU come later), so
 * this file defines "contract-test", a small PMU with well-defined hardware
 * semantics, and checks through the public API and the sim backend that the core
 * honours every part of the contract.  The test model:
 *
 *   MSR 0x10, 0x11  CTR0, CTR1: 32-bit counters.  A guest write loads the low 16
 *                   bits sign-extended from bit 15 (as a P6 sign-extends bit 31);
 *                   a host (restore) write loads all 32 bits, more is reserved.
 *   MSR 0x20, 0x21  SEL0, SEL1: event select (bits 0-7), unit mask (8-15), USR
 *                   (16), OS (17), EDGE (18), INT (20), ONESHOT (21), EN (22, per
 *                   counter), INV (23), CMASK (24-31); bits 32-63 reserved (#GP).
 *                   perfctr-like rule "sel-bit19": bit 19 must be 0.  A counter
 *                   counts when EN and USR or OS are set; INT makes it i-mode.
 *                   ONESHOT: the hardware clears INT when the counter overflows
 *                   (as a PowerPC clears MMCR0[PMXE]).
 *   MSR 0x30        STATUS: bit n = counter n overflowed with INT set.  Read-only
 *                   (a guest write of another value #GPs, an equal one is
 *                   accepted); bits 2-63 reserved.
 *   MSR 0x31        OVF_CTRL: write-1-to-clear STATUS bits; reads 0.
 *   MSR 0x32        GCTL: bit 0 PMI_EN (an overflow interrupts only with it set;
 *                   reset value 1), bit 1 FAST_EN (enables FAST0); others reserved.
 *   MSR 0x40        FAST0: read-only alias of CTR0 returning its low 16 bits;
 *                   reading it with GCTL.FAST_EN clear #GPs (no such register).
 *   MSR 0x41        WHOAMI: read-only, reads (vCPU index << 8) | hardware thread.
 * Cross-register rules (check_control): "same-event": two counting counters must
 * not select the same event (low 16 bits); "imode-without-pmi": an i-mode counter
 * needs GCTL.PMI_EN.  Calls (SBI-like): fid 0 number of counters, fid 3 start
 * (args: base, mask, flags bit 0 = load args[3]), fid 4 stop, fid 5 read counter
 * args[0]; others NOT_SUPPORTED.  A second model, "contract-many", has a P4's 18
 * counters, for overflows of many counters in one tick.
 *
 * "model_contract ht" runs the hyper-threading part alone (ThreadSanitizer).
 * Expected values follow from these semantics, never from a run of the code.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "events.h"
#include "model.h"
#include "guest_msr.h"
#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/perfctr.h"
#include "vpmu/vpmu.h"

/* ---------------------------------------------------------------- the model */

#define CTR0 0x10
#define CTR1 0x11
#define SEL0 0x20
#define SEL1 0x21
#define STATUS 0x30
#define OVF_CTRL 0x31
#define GCTL 0x32
#define FAST0 0x40
#define WHOAMI 0x41
#define NO_SUCH_MSR 0x99

#define SEL_USR (1ull << 16)
#define SEL_OS (1ull << 17)
#define SEL_EDGE (1ull << 18)
#define SEL_B19 (1ull << 19)
#define SEL_INT (1ull << 20)
#define SEL_ONESHOT (1ull << 21)
#define SEL_EN (1ull << 22)
#define SEL_INV (1ull << 23)
#define SEL_CMASK 0xFF000000ull
#define SEL_RESERVED 0xFFFFFFFF00000000ull
#define SEL_COUNT (SEL_EN | SEL_USR | SEL_OS)
#define STATUS_BITS 0x3ull
#define GCTL_PMI_EN 0x1ull
#define GCTL_FAST_EN 0x2ull

#define EV_CLK 0x0079     /* cycles */
#define EV_REF 0x0179     /* reference cycles, on counter 1 only (else cycles) */
#define EV_INSTR 0x00C0   /* instructions */
#define EV_BR 0x00C4      /* branches, on counter 0 only */
#define EV_MISS 0x012E    /* cache misses (matches CACHE.ANY too: first match wins) */
#define EV_ANY 0x022E     /* cache references */

enum { M_STATUS, M_OVF, M_GCTL, M_WHOAMI };
enum { R_BIT19, R_SAME_EVENT, R_IMODE_NO_PMI, R_NR };
enum { FID_NUM_COUNTERS = 0, FID_START = 3, FID_STOP = 4, FID_READ = 5 };

static const struct vpmu_reg ct_regs[] = {
	{ CTR0, VPMU_SPACE_MSR, VPMU_REG_CTR, 0, 0 },
	{ CTR1, VPMU_SPACE_MSR, VPMU_REG_CTR, 1, 0 },
	{ SEL0, VPMU_SPACE_MSR, VPMU_REG_CTRL, 0, 0 },
	{ SEL1, VPMU_SPACE_MSR, VPMU_REG_CTRL, 1, 0 },
	{ STATUS, VPMU_SPACE_MSR, VPMU_REG_MISC, M_STATUS, 0 },
	{ OVF_CTRL, VPMU_SPACE_MSR, VPMU_REG_MISC, M_OVF, 0 },
	{ GCTL, VPMU_SPACE_MSR, VPMU_REG_MISC, M_GCTL, 0 },
	{ FAST0, VPMU_SPACE_MSR, VPMU_REG_CTR, 0, VPMU_REGF_READ_HOOK },
	{ WHOAMI, VPMU_SPACE_MSR, VPMU_REG_MISC, M_WHOAMI, VPMU_REGF_READ_HOOK },
};

static const uint64_t ct_misc_reset[VPMU_MAX_MISC] = { [M_GCTL] = GCTL_PMI_EN, [M_WHOAMI] = 0 };

static const struct vpmu_rule ct_rules[R_NR] = {
	[R_BIT19] = { "sel-bit19", "SEL bit 19 is reserved (test model)", 0 },
	[R_SAME_EVENT] = { "same-event", "two counting counters must not select one event", 0 },
	[R_IMODE_NO_PMI] = { "imode-without-pmi", "an i-mode counter needs GCTL.PMI_EN", 0 },
};

static const struct vpmu_event_desc ct_events[] = {
	{ EV_REF, 0xFFFF, VPMU_EV_REF_CYCLES, 0x2, "REF_CLK" },
	{ EV_CLK, 0x00FF, VPMU_EV_CYCLES, 0, "CLK" },
	{ EV_INSTR, 0x00FF, VPMU_EV_INSTRUCTIONS, 0, "INSTR" },
	{ EV_BR, 0x00FF, VPMU_EV_BRANCHES, 0x1, "BR" },
	{ EV_MISS, 0xFFFF, VPMU_EV_CACHE_MISSES, 0, "CACHE.MISS" },
	{ 0x002E, 0x00FF, VPMU_EV_CACHE_REFERENCES, 0, "CACHE.ANY" },
};
/* A table with the generic rows alone (no catalogue: vpmu/events.h). */
static const uint16_t no_disp[1];
static const struct vpmu_event_slot no_slots[1];
static const struct vpmu_event_table ct_table = {
	.name = "contract-test", .pmu = "contract-test",
	.match = ct_events, .nr_match = sizeof(ct_events) / sizeof(ct_events[0]),
	.disp = no_disp, .slots = no_slots,
};

static enum vpmu_fault ct_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val)
{
	(void)m, (void)cx;
	switch (reg->addr) {
	case CTR0:
	case CTR1:
		if (t->host) {
			if (val >> 32)
				return VPMU_FAULT_RESERVED;
		} else {
			val = (uint32_t)(int32_t)(int16_t)(uint16_t)val;
		}
		vpmu_txn_set_ctr(t, reg->index, val);
		return VPMU_FAULT_NONE;
	case SEL0:
	case SEL1:
		if (val & SEL_RESERVED)
			return VPMU_FAULT_RESERVED;
		if (val & SEL_B19)
			vpmu_txn_violate(t, R_BIT19);
		vpmu_txn_set_ctrl(t, reg->index, val);
		return VPMU_FAULT_NONE;
	case STATUS:
		if (val & ~STATUS_BITS)
			return VPMU_FAULT_RESERVED;
		if (!t->host && val != t->regs->misc[M_STATUS])
			return VPMU_FAULT_READ_ONLY;
		vpmu_txn_set_misc(t, M_STATUS, val);
		return VPMU_FAULT_NONE;
	case OVF_CTRL:
		/* Sets STATUS before it checks the value, on purpose: a fault returned
		 * after setting registers must leave none of them changed. */
		if (!t->host)  /* a restore writes no status away */
			vpmu_txn_set_misc(t, M_STATUS, t->regs->misc[M_STATUS] & ~val);
		if (val & ~STATUS_BITS)
			return VPMU_FAULT_RESERVED;
		return VPMU_FAULT_NONE;
	case GCTL:
		if (val & ~(GCTL_PMI_EN | GCTL_FAST_EN))
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_misc(t, M_GCTL, val);
		return VPMU_FAULT_NONE;
	case FAST0:
	case WHOAMI:
		return VPMU_FAULT_READ_ONLY;
	}
	return VPMU_FAULT_NO_REG;
}

static enum vpmu_fault ct_read(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			       const struct vpmu_regfile *r, const struct vpmu_reg *reg,
			       uint64_t raw, uint64_t *val)
{
	(void)m;
	if (reg->addr == WHOAMI) {
		*val = ((uint64_t)cx->vcpu << 8) | cx->thread;
		return VPMU_FAULT_NONE;
	}
	if (!(r->misc[M_GCTL] & GCTL_FAST_EN)) {
		*val = 0xDEAD;  /* the core must not pass this on with a fault */
		return VPMU_FAULT_NO_REG;
	}
	*val = raw & 0xFFFF;
	return VPMU_FAULT_NONE;
}

static void ct_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
		      const struct vpmu_regfile *r, struct vpmu_ctl *ctl)
{
	(void)cx;
	unsigned n = 0;
	for (int imode = 0; imode < 2; imode++) {
		if (imode)
			ctl->nractrs = n;
		for (unsigned pmc = 0; pmc < m->nr_ctrs; pmc++) {
			uint64_t e = r->ctrl[pmc];
			if ((e & SEL_EN) && (e & (SEL_USR | SEL_OS)) && !!(e & SEL_INT) == imode)
				vpmu_ctl_set(&ctl->ctr[n++], pmc, e);
		}
	}
	ctl->nrictrs = n - ctl->nractrs;
}

static uint32_t ct_check_control(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				 const struct vpmu_regfile *r, const struct vpmu_ctl *ctl)
{
	(void)m, (void)cx;
	uint32_t viol = 0;
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++)
		for (unsigned j = i + 1; j < vpmu_ctl_n(ctl); j++)
			if ((ctl->ctr[i].evntsel & 0xFFFF) == (ctl->ctr[j].evntsel & 0xFFFF))
				viol |= 1u << R_SAME_EVENT;
	if (ctl->nrictrs && !(r->misc[M_GCTL] & GCTL_PMI_EN))
		viol |= 1u << R_IMODE_NO_PMI;
	return viol;
}

static bool ct_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			  uint64_t *key, unsigned *priv, bool *interrupt)
{
	(void)m;
	uint64_t e = ctrl[pmc];
	if (!(e & SEL_EN))
		return false;
	*priv = ((e & SEL_USR) ? VPMU_PRIV_USER : 0) | ((e & SEL_OS) ? VPMU_PRIV_KERNEL : 0);
	*interrupt = (e & SEL_INT) != 0;
	*key = e;
	return true;
}

/* Only the contract's view: the file (t->regs) and the txn helpers. */
static bool ct_overflow(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			struct vpmu_txn *t, unsigned pmc)
{
	(void)m, (void)cx;
	vpmu_txn_set_misc(t, M_STATUS, t->regs->misc[M_STATUS] | (1ull << pmc));
	if (t->regs->ctrl[pmc] & SEL_ONESHOT)
		vpmu_txn_set_ctrl(t, pmc, t->regs->ctrl[pmc] & ~SEL_INT);
	return (t->regs->misc[M_GCTL] & GCTL_PMI_EN) != 0;
}

/* The SBI's counter_idx_base / counter_idx_mask pair as a mask of counters. */
static bool ct_call_mask(const struct vpmu_model *m, const uint64_t *args, uint64_t *mask)
{
	uint64_t base = args[0], bits = args[1];
	if (!bits || base >= m->nr_ctrs || (bits >> (m->nr_ctrs - base)) != 0)
		return false;
	*mask = bits << base;
	return true;
}

static long ct_call(const struct vpmu_model *m, const struct vpmu_ctx *cx, struct vpmu_txn *t,
		    unsigned long fid, const uint64_t *args, uint64_t *value)
{
	(void)cx;
	uint64_t mask;
	switch (fid) {
	case FID_NUM_COUNTERS:
		*value = m->nr_ctrs;
		return VPMU_SBI_SUCCESS;
	case FID_START:
	case FID_STOP:
		if (!ct_call_mask(m, args, &mask))
			return VPMU_SBI_ERR_INVALID_PARAM;
		/* Counter by counter: an error on a later counter comes after the
		 * earlier ones were set, and the core must put them back. */
		for (unsigned pmc = 0; pmc < m->nr_ctrs; pmc++) {
			if (!((mask >> pmc) & 1))
				continue;
			bool on = (t->regs->ctrl[pmc] & SEL_EN) != 0;
			if (fid == FID_START && on)
				return VPMU_SBI_ERR_ALREADY_STARTED;
			if (fid == FID_STOP && !on)
				return VPMU_SBI_ERR_ALREADY_STOPPED;
			if (fid == FID_STOP) {
				vpmu_txn_set_ctrl(t, pmc, t->regs->ctrl[pmc] & ~SEL_EN);
				continue;
			}
			vpmu_txn_set_ctrl(t, pmc, t->regs->ctrl[pmc] | SEL_COUNT);
			if (args[2] & 1)
				vpmu_txn_set_ctr(t, pmc, args[3] & 0xFFFFFFFFull);
		}
		return VPMU_SBI_SUCCESS;
	case FID_READ:
		if (args[0] >= m->nr_ctrs)
			return VPMU_SBI_ERR_INVALID_PARAM;
		*value = vpmu_txn_ctr(t, (unsigned)args[0]);
		return VPMU_SBI_SUCCESS;
	}
	return VPMU_SBI_ERR_NOT_SUPPORTED;
}

static bool ct_pmi_automask(const struct vpmu_model *m, const struct vpmu_vm_opts *o)
{
	(void)m;
	return o->cpumodel >= 2;
}

static const struct vpmu_model_ops ct_ops = {
	.write = ct_write,
	.read = ct_read,
	.derive = ct_derive,
	.check_control = ct_check_control,
	.decode_ctr = ct_decode_ctr,
	.overflow = ct_overflow,
	.call = ct_call,
	.pmi_automask = ct_pmi_automask,
};

#define CT_MODEL_INIT(caps_) { \
	.name = "contract-test", \
	.description = "test-only model of the model contract", \
	.id = { "VPMUContract", 15, 1, 0, 0x1, 0, 0, 0 }, \
	.regspace = VPMU_SPACE_MSR, \
	.caps = (caps_), \
	.nr_ctrs = 2, .ctr_width = 32, .nr_ctrl_slots = 2, \
	.regs = ct_regs, .nr_regs = sizeof(ct_regs) / sizeof(ct_regs[0]), \
	.misc_reset = ct_misc_reset, \
	.rules = ct_rules, .nr_rules = R_NR, \
	.table = &ct_table, \
	.event_exclude = SEL_EDGE | SEL_INV | SEL_CMASK, \
	.ops = &ct_ops, \
}

static const struct vpmu_model ct_model = CT_MODEL_INIT(VPMU_CAP_PCINT | VPMU_CAP_HT);
static const struct vpmu_model ct_model_no_ht = CT_MODEL_INIT(VPMU_CAP_PCINT);
/* The same PMU on a CPU without an overflow interrupt (no PCINT). */
static const struct vpmu_model ct_model_no_pcint = CT_MODEL_INIT(0);

/*
 * "contract-many": as many counters as a P4 (18), for overflows of many counters
 * at once.  CCCRn (MSR 0x200+n) bit 0 enables counter n (cycles, i-mode), bit 1
 * is its OVF flag, set by the hardware on overflow (as the P4's CCCR.OVF);
 * GSTATUS (MSR 0x300) bit n is set too.  Counters CTRn at MSR 0x100+n, 32 bits.
 */
#define MANY 18
#define CCCR_EN 0x1ull
#define CCCR_OVF 0x2ull

static struct vpmu_reg many_regs[2 * MANY + 1];

static enum vpmu_fault many_write(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				  struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val)
{
	(void)m, (void)cx;
	if (reg->kind == VPMU_REG_CTR) {
		if (val >> 32)
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_ctr(t, reg->index, val);
	} else if (reg->kind == VPMU_REG_CTRL) {
		if (val & ~(CCCR_EN | CCCR_OVF))
			return VPMU_FAULT_RESERVED;
		vpmu_txn_set_ctrl(t, reg->index, val);
	} else if (val == ~0ull) {
		/* A model bug on purpose: one write changing every CCCR, more than
		 * a transaction holds (test_txn_overflow). */
		for (unsigned i = 0; i < MANY; i++)
			vpmu_txn_set_ctrl(t, i, CCCR_EN);
	} else {
		vpmu_txn_set_misc(t, 0, val);
	}
	return VPMU_FAULT_NONE;
}

static void many_derive(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			const struct vpmu_regfile *r, struct vpmu_ctl *ctl)
{
	(void)m, (void)cx;
	unsigned n = 0;
	for (unsigned pmc = 0; pmc < MANY; pmc++)
		if (r->ctrl[pmc] & CCCR_EN)
			vpmu_ctl_set(&ctl->ctr[n++], pmc, CCCR_EN);  /* OVF is not part of the event */
	ctl->nrictrs = n;
}

static bool many_decode_ctr(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			    uint64_t *key, unsigned *priv, bool *interrupt)
{
	(void)m;
	if (!(ctrl[pmc] & CCCR_EN))
		return false;
	*key = CCCR_EN;
	*priv = VPMU_PRIV_USER | VPMU_PRIV_KERNEL;
	*interrupt = true;
	return true;
}

static bool many_overflow(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			  struct vpmu_txn *t, unsigned pmc)
{
	(void)m, (void)cx;
	vpmu_txn_set_ctrl(t, pmc, t->regs->ctrl[pmc] | CCCR_OVF);
	vpmu_txn_set_misc(t, 0, t->regs->misc[0] | (1ull << pmc));
	return true;
}

static const struct vpmu_event_desc many_events[] = { { CCCR_EN, 0xFF, VPMU_EV_CYCLES, 0, "CLK" } };
static const struct vpmu_event_table many_table = {
	.name = "many", .pmu = "many", .match = many_events, .nr_match = 1,
	.disp = no_disp, .slots = no_slots,
};

static const struct vpmu_model_ops many_ops = {
	.write = many_write,
	.derive = many_derive,
	.decode_ctr = many_decode_ctr,
	.overflow = many_overflow,
};

static const struct vpmu_model many_model = {
	.name = "contract-many",
	.description = "test-only model: 18 i-mode counters",
	.id = { "VPMUContract", 15, 1, 0, 0x1, 0, 0, 0 },
	.regspace = VPMU_SPACE_MSR,
	.caps = VPMU_CAP_PCINT,
	.nr_ctrs = MANY, .ctr_width = 32, .nr_ctrl_slots = MANY,
	.regs = many_regs, .nr_regs = 2 * MANY + 1,
	.table = &many_table,
	.ops = &many_ops,
};

static void many_init(void)
{
	for (unsigned i = 0; i < MANY; i++) {
		many_regs[i] = (struct vpmu_reg){ 0x100 + i, VPMU_SPACE_MSR, VPMU_REG_CTR, (uint8_t)i, 0 };
		many_regs[MANY + i] = (struct vpmu_reg){ 0x200 + i, VPMU_SPACE_MSR, VPMU_REG_CTRL, (uint8_t)i, 0 };
	}
	many_regs[2 * MANY] = (struct vpmu_reg){ 0x300, VPMU_SPACE_MSR, VPMU_REG_MISC, 0, 0 };
}

/* ---------------------------------------------------------------- harness */

#define NCPU 4

static struct vpmu_sim *g_sim;
static struct vpmu_host *g_host;

#define is_int(got, want, ...) do { \
	long long gi_ = (long long)(got), wi_ = (long long)(want); \
	ok(gi_ == wi_, __VA_ARGS__); \
	if (gi_ != wi_) printf("#   got %lld, want %lld\n", gi_, wi_); \
} while (0)

#define is_fault(got, want, ...) do { \
	enum vpmu_fault gf_ = (got), wf_ = (want); \
	ok(gf_ == wf_, __VA_ARGS__); \
	if (gf_ != wf_) printf("#   got fault %s (%d), want %s\n", vpmu_fault_name(gf_), (int)gf_, \
			      vpmu_fault_name(wf_)); \
} while (0)

static struct vpmu_vm *ct_vm_on(struct vpmu_host *h, unsigned flags, int ht, int cpumodel)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	cfg.model = "contract-test";
	cfg.flags = flags;
	cfg.ht = ht;
	cfg.cpumodel = cpumodel;
	int r = vpmu_vm_create_model(h, &ct_model, &cfg, &vm);
	if (r) {
		printf("Bail out! vpmu_vm_create_model: %d\n", r);
		exit(1);
	}
	return vm;
}

static struct vpmu_vm *ct_vm(unsigned flags, int ht) { return ct_vm_on(g_host, flags, ht, -1); }

static struct vpmu_vcpu *vcpu(struct vpmu_vm *vm, unsigned index)
{
	struct vpmu_vcpu *v = NULL;
	int r = vpmu_vcpu_create(vm, index, &v);
	if (r) {
		printf("Bail out! vpmu_vcpu_create(%u): %d\n", index, r);
		exit(1);
	}
	return v;
}

static struct vpmu_vm *named_vm(const char *model, int cpumodel, int stepping)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	cfg.model = model;
	cfg.cpumodel = cpumodel;
	cfg.stepping = stepping;
	int r = vpmu_vm_create(g_host, &cfg, &vm);
	if (r) {
		printf("Bail out! vpmu_vm_create(%s): %d\n", model, r);
		exit(1);
	}
	return vm;
}

static enum vpmu_fault rdf(struct vpmu_vcpu *v, uint32_t msr, uint64_t *val)
{
	enum vpmu_fault f = VPMU_FAULT_NONE;
	if (vpmu_reg_read(v, VPMU_SPACE_MSR, msr, val, &f))
		return (enum vpmu_fault)-1;
	return f;
}

static uint64_t hget(struct vpmu_vcpu *v, uint32_t msr)
{
	uint64_t val = 0;
	return vpmu_reg_get(v, VPMU_SPACE_MSR, msr, &val) ? ~0ull : val;
}

static struct vpmu_totals totals(const struct vpmu_vcpu *v)
{
	struct vpmu_totals t;
	memset(&t, 0, sizeof(t));
	vpmu_vcpu_totals(v, &t);
	return t;
}

static struct perfctr_cpu_state pstate(const struct vpmu_vcpu *v)
{
	struct perfctr_cpu_state s;
	memset(&s, 0, sizeof(s));
	vpmu_vcpu_perfctr_x86(v, &s);
	return s;
}

static void tick(unsigned cpu, enum vpmu_event ev, uint64_t n)
{
	vpmu_sim_tick(g_sim, cpu, ev, n, VPMU_MODE_USER);
}

static long call(struct vpmu_vcpu *v, unsigned long fid, uint64_t a0, uint64_t a1, uint64_t a2,
		 uint64_t a3, uint64_t *value)
{
	const uint64_t args[VPMU_CALL_ARGS] = { a0, a1, a2, a3, 0, 0 };
	struct vpmu_call_result out = { 12345, 0xBADull };
	if (vpmu_call(v, fid, args, &out))
		return -1000;
	if (value)
		*value = out.value;
	return out.error;
}

/* ---------------------------------------------------------------- 1. reads */

static void test_reads(void)
{
	struct vpmu_vm *vm = ct_vm(0, 0);
	struct vpmu_vcpu *v = vcpu(vm, 3);
	vpmu_vcpu_switch_in(v, 0);
	struct vpmu_totals t0 = totals(v);

	is_u64(rd(v, GCTL), GCTL_PMI_EN, "GCTL reads its reset value (misc_reset)");
	is_fault(wr(v, SEL0, SEL_COUNT | EV_INSTR), VPMU_FAULT_NONE, "SEL0 write accepted");
	is_u64(rd(v, SEL0), SEL_COUNT | EV_INSTR, "plain register SEL0 reads what was written");
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, CTR0, 0x1234ABCD), 0, "host set of CTR0");
	is_u64(rd(v, CTR0), 0x1234ABCD, "plain counter CTR0 reads its value");

	uint64_t val = 0x5555;
	is_fault(rdf(v, FAST0, &val), VPMU_FAULT_NO_REG,
		 "FAST0 with GCTL.FAST_EN clear: the read hook faults");
	is_u64(val, 0, "a faulting read returns 0, not what the hook left in *value");
	is_fault(wr(v, GCTL, GCTL_PMI_EN | GCTL_FAST_EN), VPMU_FAULT_NONE, "GCTL.FAST_EN set");
	val = 0x5555;
	is_fault(rdf(v, FAST0, &val), VPMU_FAULT_NONE, "FAST0 readable with FAST_EN");
	is_u64(val, 0xABCD, "read hook: FAST0 is CTR0's low 16 bits");
	tick(0, VPMU_EV_INSTRUCTIONS, 0x10);
	is_u64(rd(v, CTR0), 0x1234ABDD, "CTR0 counted 16 instructions");
	is_u64(rd(v, FAST0), 0xABDD, "read hook sees the live counter value as raw");
	is_fault(wr(v, FAST0, 1), VPMU_FAULT_READ_ONLY, "FAST0 is read-only");
	is_u64(rd(v, CTR0), 0x1234ABDD, "refused FAST0 write left CTR0 alone");
	val = 0x5555;
	is_fault(rdf(v, NO_SUCH_MSR, &val), VPMU_FAULT_NO_REG, "unknown MSR read: no-such-register");
	is_u64(val, 0, "unknown MSR reads 0");
	is_u64(rd(v, WHOAMI), 3u << 8, "read hook gets the context: vCPU 3, thread 0 (no HT)");
	struct vpmu_totals t1 = totals(v);
	is_u64(t1.faults - t0.faults, 3, "three faults accounted (two reads, one write)");
	vpmu_vm_destroy(vm);
}

/* ---------------------------------------------------------------- 2. write hooks */

static void test_write_hooks(void)
{
	struct vpmu_vm *vm = ct_vm(0, 0), *svm = ct_vm(VPMU_VM_STRICT, 0);
	struct vpmu_vcpu *v = vcpu(vm, 0), *s = vcpu(svm, 0);

	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, STATUS, 3), 0, "host restores STATUS = 3");
	is_u64(rd(v, STATUS), 3, "STATUS reads 3");
	is_fault(wr(v, OVF_CTRL, 1), VPMU_FAULT_NONE, "OVF_CTRL write 1");
	is_u64(rd(v, STATUS), 2, "write hook: OVF_CTRL cleared STATUS bit 0 only");
	is_u64(rd(v, OVF_CTRL), 0, "OVF_CTRL reads 0");
	is_fault(wr(v, OVF_CTRL, 6), VPMU_FAULT_RESERVED, "OVF_CTRL bit 2 is reserved");
	is_u64(rd(v, STATUS), 2, "the fault undid the STATUS clear the op had set before it");
	is_fault(wr(v, STATUS, 0), VPMU_FAULT_READ_ONLY, "STATUS write of another value: read-only");
	is_u64(rd(v, STATUS), 2, "refused STATUS write changed nothing");
	is_fault(wr(v, STATUS, 2), VPMU_FAULT_NONE, "STATUS write of its own value is accepted");
	is_fault(wr(v, STATUS, 6), VPMU_FAULT_RESERVED, "STATUS bit 2 is reserved");
	is_fault(wr(v, OVF_CTRL, 3), VPMU_FAULT_NONE, "OVF_CTRL write 3");
	is_u64(rd(v, STATUS), 0, "OVF_CTRL 3 cleared STATUS");

	is_fault(wr(v, SEL0, 1ull << 32), VPMU_FAULT_RESERVED, "SEL0 bit 32: reserved (#GP)");
	is_u64(rd(v, SEL0), 0, "reserved SEL0 write changed nothing");
	is_fault(wr(v, SEL1, SEL_EN | SEL_USR | EV_CLK | SEL_B19), VPMU_FAULT_NONE,
		 "default mode: SEL1 with bit 19 accepted");
	is_u64(rd(v, SEL1), SEL_EN | SEL_USR | EV_CLK | SEL_B19, "SEL1 holds bit 19");
	struct vpmu_totals t = totals(v);
	is_u64(t.violations[R_BIT19], 1, "default mode: rule sel-bit19 recorded once");
	is_fault(wr(v, SEL0, SEL_COUNT | EV_CLK), VPMU_FAULT_NONE,
		 "default mode: SEL0 selecting SEL1's event accepted");
	t = totals(v);
	is_u64(t.violations[R_SAME_EVENT], 1, "default mode: cross-register rule same-event recorded");
	ok(vpmu_vm_rule_name(vm, R_SAME_EVENT) && !strcmp(vpmu_vm_rule_name(vm, R_SAME_EVENT), "same-event"),
	   "rule names come from the model");

	is_fault(wr(s, SEL0, SEL_COUNT | EV_INSTR | SEL_B19), VPMU_FAULT_STRICT,
		 "strict: SEL0 with bit 19 refused");
	is_u64(rd(s, SEL0), 0, "strict refusal changed nothing");
	is_fault(wr(s, SEL0, SEL_COUNT | EV_INSTR), VPMU_FAULT_NONE, "strict: clean SEL0 accepted");
	is_fault(wr(s, SEL1, SEL_EN | SEL_USR | EV_INSTR), VPMU_FAULT_STRICT,
		 "strict: SEL1 selecting SEL0's event refused (check_control)");
	is_u64(rd(s, SEL1), 0, "strict cross-register refusal changed nothing");
	is_fault(wr(s, SEL1, SEL_EN | SEL_USR | (EV_INSTR | 0x100)), VPMU_FAULT_NONE,
		 "strict: another unit mask is another event, accepted");
	t = totals(s);
	ok(t.strict_refusals == 2 && t.violations[R_BIT19] == 1 && t.violations[R_SAME_EVENT] == 1,
	   "strict: 2 refusals, each recorded against the rule it would have broken");
	if (!(t.strict_refusals == 2 && t.violations[R_BIT19] == 0 && t.violations[R_SAME_EVENT] == 0))
		printf("#   refusals %" PRIu64 ", violations %" PRIu64 "/%" PRIu64 "\n", t.strict_refusals,
		       t.violations[R_BIT19], t.violations[R_SAME_EVENT]);
	vpmu_vm_destroy(vm);
	vpmu_vm_destroy(svm);
}

/* ---------------------------------------------------------------- 3. overflow */

static void test_overflow(void)
{
	struct vpmu_vm *vm = ct_vm(0, 0);
	struct vpmu_vcpu *v = vcpu(vm, 0), *w = vcpu(vm, 1);
	uint64_t mask = 0;
	vpmu_vcpu_switch_in(v, 1);

	is_fault(wr(v, CTR0, 0xFF9C), VPMU_FAULT_NONE, "CTR0 = 0xFF9C");
	is_u64(rd(v, CTR0), 0xFFFFFF9C, "guest counter write sign-extends bit 15 (-100)");
	is_fault(wr(v, SEL0, SEL_COUNT | SEL_INT | EV_CLK), VPMU_FAULT_NONE, "SEL0: cycles with INT");
	struct perfctr_cpu_state ps = pstate(v);
	ok(ps.control.nractrs == 0 && ps.control.nrictrs == 1 && ps.control.ireset[0] == -100,
	   "control: one i-mode counter starting at -100");
	tick(1, VPMU_EV_CYCLES, 99);
	ok(!vpmu_vcpu_pmi_pending(v, NULL), "99 cycles: no overflow yet");
	is_u64(rd(v, STATUS), 0, "no status before the overflow");
	is_u64(rd(v, CTR0), 0xFFFFFFFF, "CTR0 at all-ones");
	tick(1, VPMU_EV_CYCLES, 1);
	ok(vpmu_vcpu_pmi_pending(v, &mask), "the 100th cycle overflows: PMI pending");
	is_u64(mask, 1, "PMI mask names counter 0");
	is_u64(rd(v, STATUS), 1, "overflow hook set STATUS bit 0");
	is_u64(rd(v, CTR0), 0, "CTR0 wrapped to 0");
	is_u64(totals(v).pmis, 1, "one PMI accounted");
	is_u64(vpmu_vcpu_pmi_ack(v), 1, "ack returns mask 1");
	ok(!vpmu_vcpu_pmi_pending(v, NULL), "ack ends the pending PMI");
	is_u64(rd(v, STATUS), 1, "ack leaves the architectural STATUS alone");
	wr(v, OVF_CTRL, 1);
	is_u64(rd(v, STATUS), 0, "guest cleared STATUS");

	/* The hook decides: GCTL.PMI_EN clear -> status, no PMI. */
	is_fault(wr(v, GCTL, 0), VPMU_FAULT_NONE, "GCTL.PMI_EN cleared (default mode)");
	is_u64(totals(v).violations[R_IMODE_NO_PMI], 1,
	       "check_control saw the file as written: imode-without-pmi recorded");
	wr(v, CTR0, 0xFFFE);
	tick(1, VPMU_EV_CYCLES, 2);
	ok(!vpmu_vcpu_pmi_pending(v, &mask), "overflow hook returned false: no PMI");
	is_u64(rd(v, STATUS), 1, "but the overflow status is recorded");
	is_u64(totals(v).pmis, 1, "no PMI accounted");
	wr(v, GCTL, GCTL_PMI_EN);
	wr(v, OVF_CTRL, 3);

	/* Both counters overflow in one tick: the status of both must survive. */
	is_fault(wr(v, SEL1, SEL_COUNT | SEL_INT | (EV_CLK | 0x200)), VPMU_FAULT_NONE,
		 "SEL1: cycles (unit mask 2) with INT");
	wr(v, CTR0, 0xFFFE);
	wr(v, CTR1, 0xFFFE);
	tick(1, VPMU_EV_CYCLES, 2);
	ok(vpmu_vcpu_pmi_pending(v, &mask), "two counters overflow together: PMI pending");
	is_u64(mask, 3, "PMI mask names both counters");
	is_u64(rd(v, STATUS), 3, "STATUS has both counters' bits (each hook sees the status set before it)");
	vpmu_vcpu_pmi_ack(v);
	wr(v, OVF_CTRL, 3);
	wr(v, SEL1, 0);

	/* ONESHOT: the hook clears INT; the control is derived again at the next access. */
	is_fault(wr(w, SEL0, SEL_COUNT | SEL_ONESHOT | EV_CLK), VPMU_FAULT_NONE,
		 "reference vCPU: SEL0 a-mode, as after a one-shot overflow");
	uint64_t id_amode = vpmu_vcpu_control_id(w);
	wr(v, SEL0, SEL_COUNT | SEL_INT | SEL_ONESHOT | EV_CLK);
	wr(v, CTR0, 0xFFFE);
	uint64_t id_imode = vpmu_vcpu_control_id(v);
	ok(id_imode != id_amode, "i-mode and a-mode controls have different ids");
	tick(1, VPMU_EV_CYCLES, 2);
	ok(vpmu_vcpu_pmi_pending(v, &mask) && mask == 1, "one-shot overflow raised a PMI on counter 0");
	vpmu_vcpu_pmi_ack(v);
	is_u64(rd(v, SEL0), SEL_COUNT | SEL_ONESHOT | EV_CLK, "the hook cleared SEL0.INT");
	ps = pstate(v);
	ok(ps.control.nractrs == 1 && ps.control.nrictrs == 0,
	   "after the access the counter is a-mode (nractrs 1, nrictrs 0)");
	if (!(ps.control.nractrs == 1 && ps.control.nrictrs == 0))
		printf("#   nractrs %u nrictrs %u\n", ps.control.nractrs, ps.control.nrictrs);
	ok(vpmu_vcpu_control_id(v) == id_amode, "control id is that of the a-mode control");
	wr(v, CTR0, 0xFFFE);
	tick(1, VPMU_EV_CYCLES, 2);
	ok(!vpmu_vcpu_pmi_pending(v, NULL), "a-mode counter wraps without a PMI");
	is_u64(rd(v, CTR0), 0, "and keeps counting");

	/* The same, re-derived at switch-in with no access in between. */
	wr(v, OVF_CTRL, 3);
	wr(v, SEL0, SEL_COUNT | SEL_INT | SEL_ONESHOT | EV_CLK);
	wr(v, CTR0, 0xFFFE);
	tick(1, VPMU_EV_CYCLES, 2);
	ok(vpmu_vcpu_pmi_pending(v, &mask) && mask == 1, "second one-shot overflow: PMI");
	vpmu_vcpu_pmi_ack(v);
	vpmu_vcpu_switch_out(v);
	vpmu_vcpu_switch_in(v, 1);
	ps = pstate(v);
	ok(ps.control.nractrs == 1 && ps.control.nrictrs == 0 && vpmu_vcpu_control_id(v) == id_amode,
	   "switch-in derived the control again: a-mode");
	tick(1, VPMU_EV_CYCLES, 5);
	is_u64(rd(v, CTR0), 5, "counter 0 counts a-mode after the switch");
	vpmu_vm_destroy(vm);
}

/* All 18 counters of a P4-sized PMU overflow in one tick: every hook's status
 * (36 register changes) must land. */
/* perfctr: no i-mode counters without PCINT.  A model whose CPU has no overflow
 * interrupt counts what it derives as i-mode in a-mode: no PMI, no status. */
static void test_no_pcint(void)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	cfg.model = "contract-test";
	if (vpmu_vm_create_model(g_host, &ct_model_no_pcint, &cfg, &vm)) {
		ok(0, "create a VM on the model without PCINT");
		return;
	}
	struct vpmu_vcpu *v = vcpu(vm, 0);
	vpmu_vcpu_switch_in(v, 0);
	wr(v, CTR0, 0xFF9C);
	is_fault(wr(v, SEL0, SEL_COUNT | SEL_INT | EV_CLK), VPMU_FAULT_NONE,
		 "no PCINT: SEL0 with INT is accepted (the hardware's business)");
	struct perfctr_cpu_state ps = pstate(v);
	ok(ps.control.nractrs == 1 && ps.control.nrictrs == 0,
	   "no PCINT: the counter is a-mode (expected 1+0 counters, got %u+%u)",
	   ps.control.nractrs, ps.control.nrictrs);
	tick(0, VPMU_EV_CYCLES, 100);
	ok(!vpmu_vcpu_pmi_pending(v, NULL), "no PCINT: the counter wraps without a PMI");
	is_u64(rd(v, STATUS), 0, "no PCINT: no overflow status either (no overflow hook call)");
	is_u64(rd(v, CTR0), 0, "no PCINT: the counter counted and wrapped to 0");
	vpmu_vcpu_switch_out(v);
	vpmu_vm_destroy(vm);
}

static void test_overflow_many(void)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	struct vpmu_vcpu *v;
	cfg.model = "contract-many";
	if (vpmu_vm_create_model(g_host, &many_model, &cfg, &vm)) {
		printf("Bail out! contract-many VM\n");
		exit(1);
	}
	v = vcpu(vm, 0);
	vpmu_vcpu_switch_in(v, 1);
	for (unsigned i = 0; i < MANY; i++) {
		wr(v, 0x100 + i, 0xFFFFFFFF);
		wr(v, 0x200 + i, CCCR_EN);
	}
	is_u64(pstate(v).control.nrictrs, MANY, "18 i-mode counters");
	tick(1, VPMU_EV_CYCLES, 1);
	uint64_t mask = 0;
	ok(vpmu_vcpu_pmi_pending(v, &mask), "18 counters overflow in one tick: one PMI");
	is_u64(mask, (1ull << MANY) - 1, "its mask names all 18");
	is_u64(rd(v, 0x300), (1ull << MANY) - 1, "the global status has all 18 bits");
	unsigned ovf = 0;
	for (unsigned i = 0; i < MANY; i++)
		ovf += rd(v, 0x200 + i) == (CCCR_EN | CCCR_OVF);
	is_u64(ovf, MANY, "every CCCR has its OVF flag");
	vpmu_vm_destroy(vm);
}

/* ---------------------------------------------------------------- 4. host access */

static void test_host_access(void)
{
	struct vpmu_vm *vm = ct_vm(VPMU_VM_STRICT, 0);
	struct vpmu_vcpu *v = vcpu(vm, 0);
	uint64_t val = 0;
	vpmu_vcpu_switch_in(v, 2);

	is_fault(wr(v, CTR0, 0x1234ABCD), VPMU_FAULT_NONE, "guest writes CTR0 = 0x1234ABCD");
	is_u64(rd(v, CTR0), 0xFFFFABCD, "guest write: low 16 bits, sign-extended");
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, CTR0, 0x1234ABCD), 0, "host sets CTR0 = 0x1234ABCD");
	is_u64(hget(v, CTR0), 0x1234ABCD, "host set stores the full width (no sign extension)");
	is_u64(rd(v, CTR0), 0x1234ABCD, "the guest reads it too");
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, CTR0, 1ull << 32), -EINVAL,
	       "host set of a 33-bit counter value: -EINVAL");
	is_u64(hget(v, CTR0), 0x1234ABCD, "refused host set changed nothing");

	struct vpmu_totals t0 = totals(v);
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, SEL0, SEL_COUNT | EV_INSTR | SEL_B19), 0,
	       "strict VM: host set of SEL0 with bit 19 is not refused");
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, SEL1, SEL_COUNT | EV_INSTR), 0,
	       "strict VM: host set of SEL1 with SEL0's event is not refused");
	is_u64(hget(v, SEL0), SEL_COUNT | EV_INSTR | SEL_B19, "SEL0 holds the restored value");
	struct vpmu_totals t1 = totals(v);
	ok(t1.violations[R_BIT19] == t0.violations[R_BIT19] &&
	   t1.violations[R_SAME_EVENT] == t0.violations[R_SAME_EVENT] &&
	   t1.strict_refusals == t0.strict_refusals,
	   "host sets record no violation and no refusal");
	struct perfctr_cpu_state ps = pstate(v);
	ok(ps.control.nractrs == 2 && ps.control.nrictrs == 0,
	   "the restored selects are derived: both counters count");
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, SEL0, 1ull << 40), -EINVAL,
	       "host set of SEL0 reserved bit 40: -EINVAL");
	is_u64(hget(v, SEL0), SEL_COUNT | EV_INSTR | SEL_B19, "refused host set changed nothing");
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, NO_SUCH_MSR, 0), -ENOENT, "host set of an unknown MSR: -ENOENT");
	is_int(vpmu_reg_get(v, VPMU_SPACE_MSR, NO_SUCH_MSR, &val), -ENOENT, "host get of an unknown MSR: -ENOENT");
	is_int(vpmu_reg_set(v, VPMU_SPACE_SPR, SEL0, 0), -ENOENT, "host set in another register space: -ENOENT");
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, FAST0, 0), -EINVAL, "host set of read-only FAST0: -EINVAL");

	val = 0;
	is_int(vpmu_reg_get(v, VPMU_SPACE_MSR, FAST0, &val), -ENOENT,
	       "host get of FAST0 with FAST_EN clear: -ENOENT (the read hook says it is absent)");
	uint64_t gctl = hget(v, GCTL);
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, GCTL, gctl | GCTL_FAST_EN), 0, "host set of GCTL.FAST_EN");
	val = 0;
	is_int(vpmu_reg_get(v, VPMU_SPACE_MSR, FAST0, &val), 0, "host get of FAST0 with FAST_EN set");
	is_u64(val, 0x1234ABCD, "host get bypasses the read hook's transformation: the counter's full value");
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, GCTL, gctl), 0, "host set of GCTL back");
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, STATUS, 3), 0, "host set of read-only STATUS");
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, OVF_CTRL, 3), 0, "host set of OVF_CTRL");
	is_u64(hget(v, STATUS), 3, "host OVF_CTRL set is not write-1-to-clear");
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, STATUS, 4), -EINVAL, "host set of STATUS reserved bit: -EINVAL");
	is_u64(hget(v, STATUS), 3, "refused host set changed nothing");
	is_int(vpmu_reg_get(v, VPMU_SPACE_MSR, CTR0, NULL), -EINVAL, "host get without value: -EINVAL");
	is_int(vpmu_reg_get(NULL, VPMU_SPACE_MSR, CTR0, &val), -EINVAL, "host get without vCPU: -EINVAL");
	is_int(vpmu_reg_set(NULL, VPMU_SPACE_MSR, CTR0, 0), -EINVAL, "host set without vCPU: -EINVAL");
	vpmu_vm_destroy(vm);
}

/* ---------------------------------------------------------------- 5. calls */

static void test_calls(void)
{
	struct vpmu_vm *vm = ct_vm(0, 0);
	struct vpmu_vcpu *v = vcpu(vm, 0);
	uint64_t value = 0;
	unsigned calls = 0;
	vpmu_vcpu_switch_in(v, 3);

	const uint64_t args[VPMU_CALL_ARGS] = { 0 };
	struct vpmu_call_result out;
	is_int(vpmu_call(NULL, 0, args, &out), -EINVAL, "call without vCPU: -EINVAL");
	is_int(vpmu_call(v, 0, NULL, &out), -EINVAL, "call without args: -EINVAL");
	is_int(vpmu_call(v, 0, args, NULL), -EINVAL, "call without result: -EINVAL");
	is_u64(totals(v).calls, 0, "argument errors are not calls");

	is_int(call(v, FID_NUM_COUNTERS, 0, 0, 0, 0, &value), VPMU_SBI_SUCCESS, "fid 0: success"); calls++;
	is_u64(value, 2, "fid 0: 2 counters");
	is_int(call(v, 99, 0, 0, 0, 0, &value), VPMU_SBI_ERR_NOT_SUPPORTED, "fid 99: not supported"); calls++;
	is_u64(value, 0, "an error returns value 0");
	is_int(call(v, FID_START, 0, 0, 1, 7, NULL), VPMU_SBI_ERR_INVALID_PARAM, "start with mask 0: invalid"); calls++;
	is_int(call(v, FID_START, 0, 4, 1, 7, NULL), VPMU_SBI_ERR_INVALID_PARAM, "start of counter 2: invalid"); calls++;
	is_int(call(v, FID_START, 1, 2, 1, 7, NULL), VPMU_SBI_ERR_INVALID_PARAM, "base 1 mask 2: invalid"); calls++;
	ok(rd(v, SEL0) == 0 && rd(v, SEL1) == 0 && rd(v, CTR0) == 0 && rd(v, CTR1) == 0,
	   "refused starts changed nothing");

	wr(v, SEL0, EV_INSTR);
	is_int(call(v, FID_START, 0, 1, 1, 1000, NULL), VPMU_SBI_SUCCESS, "start counter 0 at 1000"); calls++;
	is_u64(rd(v, SEL0), SEL_COUNT | EV_INSTR, "start enabled SEL0");
	is_u64(rd(v, CTR0), 1000, "start loaded the initial value");
	tick(3, VPMU_EV_INSTRUCTIONS, 50);
	is_u64(rd(v, CTR0), 1050, "counter 0 counted 50 instructions from 1000");
	is_int(call(v, FID_READ, 0, 0, 0, 0, &value), VPMU_SBI_SUCCESS, "fid 5 reads counter 0"); calls++;
	is_u64(value, 1050, "vpmu_txn_ctr: the live value");
	is_int(call(v, FID_START, 0, 1, 1, 5, NULL), VPMU_SBI_ERR_ALREADY_STARTED,
	       "start of a started counter: the model's error"); calls++;
	is_u64(rd(v, CTR0), 1050, "the refused start loaded nothing");
	is_int(call(v, FID_STOP, 0, 1, 0, 0, NULL), VPMU_SBI_SUCCESS, "stop counter 0"); calls++;
	is_u64(rd(v, SEL0), SEL_USR | SEL_OS | EV_INSTR, "stop cleared SEL0.EN");
	tick(3, VPMU_EV_INSTRUCTIONS, 10);
	is_u64(rd(v, CTR0), 1050, "a stopped counter does not count");
	wr(v, SEL1, SEL_COUNT | EV_CLK);
	is_int(vpmu_reg_set(v, VPMU_SPACE_MSR, CTR1, 9), 0, "counter 1 counting from 9");
	is_int(call(v, FID_START, 0, 3, 1, 5, NULL), VPMU_SBI_ERR_ALREADY_STARTED,
	       "start of counters 0 and 1 (1 started): error after counter 0 was set"); calls++;
	ok(rd(v, SEL0) == (SEL_USR | SEL_OS | EV_INSTR) && rd(v, CTR0) == 1050 &&
	   rd(v, SEL1) == (SEL_COUNT | EV_CLK) && rd(v, CTR1) == 9,
	   "the error put SEL0 back and loaded no counter");
	is_u64(totals(v).calls, calls, "totals.calls counts every call");

	struct vpmu_vm *p6 = named_vm("p6", -1, -1);
	struct vpmu_vcpu *pv = vcpu(p6, 0);
	is_int(call(pv, FID_NUM_COUNTERS, 0, 0, 0, 0, &value), VPMU_SBI_ERR_NOT_SUPPORTED,
	       "p6 (no call op): not supported");
	is_u64(value, 0, "with value 0");
	is_u64(totals(pv).calls, 1, "counted as a call");
	vpmu_vm_destroy(p6);

	/* Strict: a start that makes both counters count one event is denied. */
	struct vpmu_vm *svm = ct_vm(VPMU_VM_STRICT, 0);
	struct vpmu_vcpu *s = vcpu(svm, 0);
	wr(s, SEL0, EV_INSTR);
	wr(s, SEL1, EV_INSTR);
	wr(s, CTR1, 5);
	is_int(call(s, FID_START, 0, 3, 1, 77, NULL), VPMU_SBI_ERR_DENIED,
	       "strict: start of two counters on one event: denied");
	ok(rd(s, SEL0) == EV_INSTR && rd(s, SEL1) == EV_INSTR && rd(s, CTR0) == 0 && rd(s, CTR1) == 5,
	   "denied call changed nothing (selects and counters)");
	struct vpmu_totals t = totals(s);
	ok(t.strict_refusals == 1 && t.violations[R_SAME_EVENT] == 1 && t.calls == 1,
	   "one refusal, recorded against same-event, one call");
	is_int(call(s, FID_START, 0, 1, 1, 77, NULL), VPMU_SBI_SUCCESS, "strict: start of one counter");
	ok(rd(s, SEL0) == (SEL_COUNT | EV_INSTR) && rd(s, CTR0) == 77, "it started at 77");
	vpmu_vm_destroy(svm);
	vpmu_vm_destroy(vm);
}

/* ---------------------------------------------------------------- 6. HT */

#define HT_ITERS 20000

struct ht_worker {
	struct vpmu_vcpu *v;
	unsigned cpu, self;              /* host CPU; which SEL it writes (its thread) */
	uint64_t base, sibling_base;     /* the events the two threads select */
	pthread_barrier_t *start;
	unsigned own_bad, sibling_bad, errors;
	uint64_t last_bad;
};

static uint64_t ht_value(uint64_t base, unsigned i) { return SEL_COUNT | base | ((uint64_t)(i & 0x7F) << 8); }

static void *ht_worker(void *arg)
{
	struct ht_worker *w = arg;
	uint32_t own = SEL0 + w->self, other = SEL0 + (w->self ^ 1);
	pthread_barrier_wait(w->start);
	if (vpmu_vcpu_switch_in(w->v, w->cpu))
		w->errors++;
	for (unsigned i = 0; i < HT_ITERS; i++) {
		uint64_t x = ht_value(w->base, i);
		if (wr(w->v, own, x) != VPMU_FAULT_NONE)
			w->errors++;
		if (rd(w->v, own) != x)
			w->own_bad++;
		uint64_t y = rd(w->v, other);
		/* 0 before the sibling's first write, else one of its values. */
		if (y != 0 && (y & ~0x7F00ull) != (SEL_COUNT | w->sibling_base))
			w->sibling_bad++, w->last_bad = y;
		if (vpmu_vcpu_switch_out(w->v) || vpmu_vcpu_switch_in(w->v, w->cpu))
			w->errors++;
	}
	return NULL;
}

static void test_ht(void)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	cfg.model = "p6";
	cfg.ht = 1;
	is_int(vpmu_vm_create(g_host, &cfg, &vm), -EINVAL, "hyper-threading on a p6: -EINVAL");
	cfg.model = "contract-test";
	is_int(vpmu_vm_create_model(g_host, &ct_model_no_ht, &cfg, &vm), -EINVAL,
	       "hyper-threading on a model without VPMU_CAP_HT: -EINVAL");

	vm = ct_vm(0, 1);
	struct vpmu_vcpu *v0 = vcpu(vm, 0), *v1 = vcpu(vm, 1), *v2 = vcpu(vm, 2), *v3 = vcpu(vm, 3);
	ok(rd(v1, WHOAMI) == ((1u << 8) | 1) && rd(v2, WHOAMI) == (2u << 8) && rd(v3, WHOAMI) == ((3u << 8) | 1),
	   "context: vCPUs 1 and 3 are thread 1, vCPU 2 thread 0");
	is_u64(rd(v1, GCTL), GCTL_PMI_EN, "the shared file starts from the reset values");

	uint64_t id1 = vpmu_vcpu_control_id(v1), id2 = vpmu_vcpu_control_id(v2);
	is_fault(wr(v0, SEL0, SEL_COUNT | EV_CLK), VPMU_FAULT_NONE, "vCPU 0 writes SEL0");
	is_u64(rd(v1, SEL0), SEL_COUNT | EV_CLK, "its sibling vCPU 1 reads it");
	ok(vpmu_vcpu_control_id(v1) != id1 && vpmu_vcpu_control_id(v1) == vpmu_vcpu_control_id(v0),
	   "vCPU 1's control was derived again: now vCPU 0's");
	is_u64(rd(v2, SEL0), 0, "vCPU 2 (another core) does not see it");
	is_u64(rd(v3, SEL0), 0, "nor does vCPU 3");
	ok(vpmu_vcpu_control_id(v2) == id2, "vCPU 2's control is unchanged");
	wr(v3, SEL1, SEL_EN | SEL_OS | EV_INSTR);
	ok(rd(v2, SEL1) == (SEL_EN | SEL_OS | EV_INSTR) && rd(v0, SEL1) == 0 && rd(v1, SEL1) == 0,
	   "vCPU 3's write: seen by vCPU 2, not by core 0");

	/* A sibling switched out picks the change up at switch-in. */
	vpmu_vcpu_switch_in(v0, 0);
	is_fault(wr(v0, SEL0, SEL_COUNT | EV_BR), VPMU_FAULT_NONE, "vCPU 0 writes SEL0 = branches");
	vpmu_vcpu_switch_in(v1, 1);
	struct perfctr_cpu_state ps = pstate(v1);
	ok(ps.control.nractrs == 1 && ps.control.evntsel[0] == (SEL_COUNT | EV_BR),
	   "vCPU 1's switch-in derived its control from the new SEL0");
	tick(1, VPMU_EV_BRANCHES, 9);
	is_u64(rd(v1, CTR0), 9, "vCPU 1 counts branches on its host CPU");
	is_u64(rd(v0, CTR0), 0, "the counter is the core's, but vCPU 1 runs on: vCPU 0 reads its last fold (none)");

	/* An overflow on one thread: status and the one-shot INT clear are the core's. */
	wr(v0, SEL0, SEL_COUNT | SEL_INT | SEL_ONESHOT | EV_CLK);
	wr(v0, CTR0, 0xFFFE);
	is_u64(rd(v1, SEL0), SEL_COUNT | SEL_INT | SEL_ONESHOT | EV_CLK, "vCPU 1 reads the i-mode SEL0");
	ps = pstate(v1);
	ok(ps.control.nractrs == 0 && ps.control.nrictrs == 1, "and runs counter 0 in i-mode too");
	tick(0, VPMU_EV_CYCLES, 2);
	uint64_t mask = 0;
	ok(vpmu_vcpu_pmi_pending(v0, &mask) && mask == 1, "vCPU 0's counter 0 overflowed: PMI");
	ok(!vpmu_vcpu_pmi_pending(v1, NULL), "no PMI on the sibling");
	is_u64(rd(v1, STATUS), 1, "the sibling sees the core's STATUS");
	is_u64(rd(v1, SEL0), SEL_COUNT | SEL_ONESHOT | EV_CLK, "and SEL0 without INT");
	ps = pstate(v1);
	ok(ps.control.nractrs == 1 && ps.control.nrictrs == 0, "the sibling's control was derived again: a-mode");
	vpmu_vm_destroy(vm);

	/* Two vCPU threads on their own host CPUs, hammering the shared selects. */
	vm = ct_vm(0, 1);
	v0 = vcpu(vm, 0), v1 = vcpu(vm, 1);
	pthread_barrier_t start;
	pthread_barrier_init(&start, NULL, 2);
	struct ht_worker w[2] = {
		{ v0, 0, 0, EV_CLK, EV_INSTR, &start, 0, 0, 0, 0 },
		{ v1, 1, 1, EV_INSTR, EV_CLK, &start, 0, 0, 0, 0 },
	};
	pthread_t th[2];
	int created = 0;
	for (int i = 0; i < 2; i++)
		created += pthread_create(&th[i], NULL, ht_worker, &w[i]) == 0;
	if (created != 2) {
		printf("Bail out! pthread_create\n");
		exit(1);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	for (int i = 0; i < 2; i++) {
		ok(w[i].errors == 0 && w[i].own_bad == 0 && w[i].sibling_bad == 0,
		   "thread %d: %u accesses and switches without an error or a torn value", i, 4 * HT_ITERS);
		if (w[i].errors || w[i].own_bad || w[i].sibling_bad)
			printf("#   errors %u, own mismatches %u, bad sibling values %u (last 0x%" PRIx64 ")\n",
			       w[i].errors, w[i].own_bad, w[i].sibling_bad, w[i].last_bad);
	}
	uint64_t last0 = ht_value(EV_CLK, HT_ITERS - 1), last1 = ht_value(EV_INSTR, HT_ITERS - 1);
	is_u64(rd(v1, SEL0), last0, "vCPU 1 reads thread 0's last SEL0");
	is_u64(rd(v0, SEL1), last1, "vCPU 0 reads thread 1's last SEL1");
	ok(rd(v0, SEL0) == last0 && rd(v1, SEL1) == last1, "each reads its own last write");
	ok(vpmu_vcpu_control_id(v0) == vpmu_vcpu_control_id(v1),
	   "both threads run the control derived from the final file");
	ps = pstate(v0);
	ok(ps.control.nractrs == 2 && ps.control.evntsel[0] == last0 && ps.control.evntsel[1] == last1,
	   "vCPU 0's control: both counters with the final selects");
	tick(0, VPMU_EV_CYCLES, 100);
	tick(0, VPMU_EV_INSTRUCTIONS, 7);
	tick(1, VPMU_EV_INSTRUCTIONS, 5);
	ok(rd(v0, CTR0) == 100 && rd(v0, CTR1) == 7 && rd(v1, CTR0) == 0 && rd(v1, CTR1) == 5,
	   "after the threads: each vCPU counts its host CPU's events (the sibling's not folded yet)");
	vpmu_vm_destroy(vm);
}

/* ---------------------------------------------------------------- 7. teardown */

static void test_teardown(void)
{
	struct vpmu_sim *sim2;
	struct vpmu_host *h2;
	struct vpmu_backend be;
	if (vpmu_sim_create(2, &sim2) || (vpmu_sim_backend(sim2, &be), vpmu_host_create(&be, 2, &h2))) {
		printf("Bail out! second sim host\n");
		exit(1);
	}
	vpmu_sim_attach(sim2, h2);
	struct vpmu_vm *vm = ct_vm_on(h2, 0, 1, -1);
	struct vpmu_vcpu *v = vcpu(vm, 0);
	vcpu(vm, 1);
	vpmu_vcpu_switch_in(v, 1);
	is_int(vpmu_host_destroy(h2), -EBUSY, "host destroy with a live VM: -EBUSY");
	is_fault(wr(v, SEL0, SEL_COUNT | EV_INSTR), VPMU_FAULT_NONE, "the VM still works after -EBUSY");
	vpmu_sim_tick(sim2, 1, VPMU_EV_INSTRUCTIONS, 5, VPMU_MODE_KERNEL);
	is_u64(rd(v, CTR0), 5, "and counts");
	struct vpmu_vm fake;
	memset(&fake, 0, sizeof(fake));
	is_int(vpmu_vm_destroy(&fake), -EINVAL, "destroying a VM the library did not make: -EINVAL");
	is_int(vpmu_vm_destroy(vm), 0, "VM destroyed (its vCPU switched in)");
	is_int(vpmu_vm_destroy(vm), -EINVAL, "destroying it again: -EINVAL");
	is_int(vpmu_vm_destroy(NULL), 0, "VM destroy of NULL: 0");
	is_int(vpmu_host_destroy(h2), 0, "host destroyed once its VM is gone");
	is_int(vpmu_host_destroy(h2), -EINVAL, "destroying it again: -EINVAL");
	is_int(vpmu_host_destroy(NULL), 0, "host destroy of NULL: 0");
	vpmu_sim_destroy(sim2);
}

/* ---------------------------------------------------------------- 8. regs, identity */

static bool has_reg(const uint32_t *r, unsigned n, uint32_t addr)
{
	for (unsigned i = 0; i < n; i++)
		if (r[i] == addr)
			return true;
	return false;
}

static void check_space(enum vpmu_regspace space, const char *sname)
{
	unsigned n = vpmu_pmu_regs(space, NULL, 0);
	uint32_t *r = calloc(n + 1, sizeof(*r));
	is_u64(vpmu_pmu_regs(space, r, n), n, "%s: the same count with a buffer", sname);
	bool sorted = true;
	for (unsigned i = 1; i < n; i++)
		sorted &= r[i - 1] < r[i];
	ok(sorted, "%s: %u registers, strictly increasing", sname, n);
	/* Independently: every register of every model in this space is listed, and
	 * nothing else. */
	unsigned distinct = 0, missing = 0, own_only = 0;
	uint32_t *seen = calloc(1, sizeof(*seen));
	for (unsigned k = 0; vpmu_model_name(k); k++) {
		struct vpmu_model_info info;
		vpmu_model_info(vpmu_model_name(k), &info);
		if (info.regspace != space)
			continue;
		uint32_t addr;
		const char *kind;
		/* A register the model owns beside its PMU (IA32_DEBUGCTL) exits
		 * only for its own VMs: vpmu_vm_trapped_regs(), not the union. */
		struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
		struct vpmu_vm *vm = NULL;
		cfg.model = vpmu_model_name(k);
		uint32_t trapped[512];
		unsigned nt = 0;
		if (vpmu_vm_create(g_host, &cfg, &vm) == 0)
			nt = vpmu_vm_trapped_regs(vm, space, trapped, 512);
		vpmu_vm_destroy(vm);
		for (unsigned i = 0; vpmu_model_reg(vpmu_model_name(k), i, &addr, &kind) == 0; i++) {
			if (!strcmp(kind, "state"))
				continue;   /* hidden state: VPMU_SPACE_STATE */
			if (!has_reg(r, n, addr) && has_reg(trapped, nt, addr)) {
				own_only++;
				continue;
			}
			missing += !has_reg(r, n, addr);
			if (!has_reg(seen, distinct, addr)) {
				seen = realloc(seen, (distinct + 1) * sizeof(*seen));
				seen[distinct++] = addr;
			}
		}
	}
	ok(missing == 0 && distinct == n, "%s: the union of the models' registers (%u distinct, %u missing, "
	   "%u trapped for their own VMs only)", sname, distinct, missing, own_only);
	if (n >= 3) {
		uint32_t few[4] = { 0, 0, 0, 0xCAFE };
		is_u64(vpmu_pmu_regs(space, few, 3), n, "%s: a short buffer still returns the total", sname);
		ok(few[0] == r[0] && few[1] == r[1] && few[2] == r[2] && few[3] == 0xCAFE,
		   "%s: fills only the first 3", sname);
	}
	if (space == VPMU_SPACE_MSR)
		ok(has_reg(r, n, 0x11) && has_reg(r, n, 0xC1) && has_reg(r, n, 0x186) && has_reg(r, n, 0x1A0) &&
		   has_reg(r, n, 0xC0010000),
		   "MSR union has P5 CESR, P6 PERFCTR0/EVNTSEL0/MISC_ENABLE, K7 PERFEVTSEL0");
	free(seen);
	free(r);
}

static void test_regs_identity(void)
{
	check_space(VPMU_SPACE_MSR, "MSR");
	check_space(VPMU_SPACE_SPR, "SPR");

	struct vpmu_vm *pd = named_vm("p6", -1, -1), *pm = named_vm("p6", 9, 5), *k7 = named_vm("k7", -1, -1);
	struct vpmu_cpu_identity a, b, k;
	ok(vpmu_vm_cpu(pd, &a) == 0 && vpmu_vm_cpu(pm, &b) == 0 && vpmu_vm_cpu(k7, &k) == 0, "vpmu_vm_cpu");
	ok(!strcmp(a.vendor, "GenuineIntel") && a.family == 6 && a.cpumodel == 8 && a.stepping == 3,
	   "default p6: GenuineIntel 6/8/3 (Pentium III Coppermine)");
	ok(!strcmp(b.vendor, "GenuineIntel") && b.family == 6 && b.cpumodel == 9 && b.stepping == 5,
	   "p6 with cpumodel 9, stepping 5: 6/9/5");
	ok(a.cpuid1_edx == b.cpuid1_edx && a.cpuid1_ecx == b.cpuid1_ecx && a.ext1_edx == b.ext1_edx &&
	   a.ext1_ecx == b.ext1_ecx, "the overrides leave the feature words alone");
	ok(!strcmp(k.vendor, "AuthenticAMD"), "k7: AuthenticAMD");
	ok(!vpmu_vm_pmi_automask(pd), "Pentium III: no LVTPC automask");
	ok(vpmu_vm_pmi_automask(pm), "Pentium M (model 9): LVTPC automask");
	struct vpmu_vm *tualatin = named_vm("p6", 11, 1);
	ok(tualatin && !vpmu_vm_pmi_automask(tualatin),
	   "Pentium III Tualatin (model 11, after the Pentium M's 9): no LVTPC automask");
	vpmu_vm_destroy(tualatin);
	ok(!vpmu_vm_pmi_automask(k7), "k7: no LVTPC automask");
	is_int(vpmu_vm_cpu(NULL, &a), -EINVAL, "vpmu_vm_cpu(NULL): -EINVAL");
	vpmu_vm_destroy(pd);
	vpmu_vm_destroy(pm);
	vpmu_vm_destroy(k7);

	struct vpmu_vm *c1 = ct_vm(0, 0), *c2 = ct_vm_on(g_host, 0, 0, 2);
	struct vpmu_cpu_identity c;
	ok(vpmu_vm_cpu(c1, &c) == 0 && !strcmp(c.vendor, "VPMUContract") && c.family == 15 && c.cpumodel == 1 &&
	   c.stepping == 0 && c.cpuid1_edx == 0x1, "test model: its identity");
	ok(!vpmu_vm_pmi_automask(c1) && vpmu_vm_pmi_automask(c2),
	   "test model's pmi_automask op sees the VM's cpumodel (1: no, 2: yes)");
	vpmu_vm_destroy(c1);
	vpmu_vm_destroy(c2);
}

/* ---------------------------------------------------------------- 9. events */

static void test_events(void)
{
	struct vpmu_vm *vm = ct_vm(0, 0);
	const struct vpmu_pmu *P = &vm->pmu;   /* the VM's PMU: the descriptor's event table */
	struct { unsigned pmc; uint64_t key; int want; const char *what; } cases[] = {
		{ 0, EV_REF, VPMU_EV_CYCLES, "REF_CLK names counter 1 only: counter 0 falls to CLK" },
		{ 1, EV_REF, VPMU_EV_REF_CYCLES, "REF_CLK on counter 1" },
		{ 1, EV_CLK, VPMU_EV_CYCLES, "CLK on counter 1" },
		{ 0, EV_BR, VPMU_EV_BRANCHES, "BR on counter 0" },
		{ 1, EV_BR, VPMU_EV_NONE, "BR names counter 0 only: none on counter 1" },
		{ 0, EV_MISS, VPMU_EV_CACHE_MISSES, "first match wins: CACHE.MISS before CACHE.ANY" },
		{ 0, EV_ANY, VPMU_EV_CACHE_REFERENCES, "other unit mask: CACHE.ANY" },
		{ 0, EV_INSTR | SEL_COUNT | SEL_INT, VPMU_EV_INSTRUCTIONS, "control bits outside match: INSTR" },
		{ 0, EV_INSTR | SEL_EDGE, VPMU_EV_NONE, "event_exclude EDGE: none" },
		{ 1, EV_REF | SEL_INV, VPMU_EV_NONE, "event_exclude INV: none" },
		{ 0, EV_CLK | 0x01000000, VPMU_EV_NONE, "event_exclude CMASK: none" },
		{ 0, 0x00AA, VPMU_EV_NONE, "no encoding: none" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_int(vpmu_pmu_event_of(P, cases[i].pmc, cases[i].key), cases[i].want, "event_of: %s",
		       cases[i].what);

	uint64_t ctrl[2] = { SEL_EN | SEL_USR | SEL_INT | EV_REF, SEL_EN | SEL_OS | EV_REF };
	unsigned priv = 9;
	bool irq = false;
	int ev = vpmu_pmu_decode_ctr(P, ctrl, 0, &priv, &irq);
	ok(ev == VPMU_EV_CYCLES && priv == VPMU_PRIV_USER && irq, "decode_ctr counter 0: cycles, user, INT");
	ev = vpmu_pmu_decode_ctr(P, ctrl, 1, &priv, &irq);
	ok(ev == VPMU_EV_REF_CYCLES && priv == VPMU_PRIV_KERNEL && !irq, "decode_ctr counter 1: ref-cycles, kernel");
	ev = vpmu_pmu_decode_ctr(P, ctrl, 2, &priv, &irq);
	ok(ev == VPMU_EV_NONE && priv == 0 && !irq, "decode_ctr past the counters: nothing");

	/* The matcher drives counting and accounting. */
	struct vpmu_vcpu *v = vcpu(vm, 0);
	vpmu_vcpu_switch_in(v, 2);
	wr(v, SEL0, SEL_COUNT | EV_REF);
	wr(v, SEL1, SEL_COUNT | EV_REF);
	tick(2, VPMU_EV_CYCLES, 30);
	tick(2, VPMU_EV_REF_CYCLES, 4);
	ok(rd(v, CTR0) == 30 && rd(v, CTR1) == 4, "one encoding: counter 0 counts cycles, counter 1 ref-cycles");
	struct vpmu_totals t = totals(v);
	ok(t.events[VPMU_EV_CYCLES] == 30 && t.events[VPMU_EV_REF_CYCLES] == 4,
	   "accounting by the same matcher (30 cycles, 4 ref-cycles)");
	vpmu_vm_destroy(vm);
}

/* A transaction that stages more registers than VPMU_TXN_MAX is a model bug
 * the core refuses whole; the contract-check build (this one) aborts and names
 * the model, rather than dropping the ninth change. */
static void test_txn_overflow(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
		struct vpmu_vm *vm = NULL;
		struct vpmu_vcpu *v = NULL;
		enum vpmu_fault f;
		cfg.model = "contract-many";
		if (freopen("/dev/null", "w", stderr) == NULL ||
		    vpmu_vm_create_model(g_host, &many_model, &cfg, &vm) || vpmu_vcpu_create(vm, 0, &v))
			_exit(2);
		uint64_t cccr = 1;
		vpmu_reg_write(v, VPMU_SPACE_MSR, 0x300, ~0ull, &f);
		enum vpmu_fault rf;
		vpmu_reg_read(v, VPMU_SPACE_MSR, 0x200, &cccr, &rf);
		/* Without the checks: refused whole (#GP), nothing changed. */
		_exit(f == VPMU_FAULT_RESERVED && cccr == 0 ? 3 : 4);
	}
	int status = 0;
	waitpid(pid, &status, 0);
#ifdef VPMU_CONTRACT_CHECKS
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	   "a write staging %d registers (more than VPMU_TXN_MAX) aborts the contract-check build "
	   "(status %#x)", MANY, (unsigned)status);
#else
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 3,
	   "a write staging %d registers (more than VPMU_TXN_MAX) is refused whole (status %#x)",
	   MANY, (unsigned)status);
#endif
}

int main(int argc, char **argv)
{
	struct vpmu_backend be;
	if (vpmu_sim_create(NCPU, &g_sim) ||
	    (vpmu_sim_backend(g_sim, &be), vpmu_host_create(&be, NCPU, &g_host))) {
		printf("Bail out! cannot create the sim host\n");
		return 1;
	}
	vpmu_sim_attach(g_sim, g_host);
	many_init();
	/* "model_contract ht": the HT part alone (for ThreadSanitizer runs). */
	bool only_ht = argc > 1 && !strcmp(argv[1], "ht");
	if (!only_ht) {
		test_reads();
		test_write_hooks();
		test_overflow();
		test_no_pcint();
		test_overflow_many();
		test_txn_overflow();
		test_host_access();
		test_calls();
	}
	test_ht();
	if (!only_ht) {
		test_teardown();
		test_regs_identity();
		test_events();
	}
	is_int(vpmu_host_destroy(g_host), 0, "the test host is destroyed: no VM left behind");
	vpmu_sim_destroy(g_sim);
	return tap_done();
}
