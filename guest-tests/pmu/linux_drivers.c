/* SPDX-License-Identifier: MIT */
/*
 * Case group 6: the register sequences of Linux perf's legacy drivers,
 * replayed as arch/x86/events/core.c and intel/p6.c, intel/p4.c or amd/core.c
 * issue them for "cycles" sampled every PERIOD and "instructions" counted.  They
 * break perfctr's rules (P6: EVNTSEL0 = 0x40002E, EN with no CPL; AMD: a
 * counting event's start value 2^47+1 is non-negative in 32 bits), so in the
 * default mode everything counts as on the hardware and in strict mode exactly
 * those writes raise #GP and change nothing (docs/principles.md §2).
 *
 * Linux reads counters with RDPMC, which reaches the vPMU only through KVM's RDPMC
 * exit (rdpmc.c, docs/rdpmc.md); this replay, which must pass on every KVM,
 * reads them with RDMSR instead.
 */
#include "pmu.h"

#define PERIOD       200000u
#define WANT_PMIS    3u
#define PMI_WAIT_MS  3000u

#define P6_NOP_EVENT 0x2Eu          /* p6.c: a disabled event */

static struct {
	const struct pmu_model *m;
	unsigned cntval_bits;           /* p6: 32, amd: 48 */
	uint64_t period[2];
	volatile uint32_t active;       /* cpuc->active_mask */
	volatile uint32_t overflows[2], unknown, masked, unmasked;
} lx;

static uint64_t cntval_mask(void)
{
	return (1ull << lx.cntval_bits) - 1;
}

/* x86_perf_event_set_period(): wrmsrl(event_base, (u64)(-left) & cntval_mask) */
static void set_period(unsigned idx)
{
	wrmsr_safe(lx.m->ctr[idx], (0 - lx.period[idx]) & cntval_mask());
}

/* perf_event_nmi_handler -> x86_pmu_handle_irq(). */
static void linux_nmi(struct irq_frame *f)
{
	uint32_t lvtpc = apic_read(APIC_LVTPC);
	bool handled = false;
	(void)f;
	if (lvtpc & APIC_LVT_MASKED)
		lx.masked++;
	else
		lx.unmasked++;
	/* "apic_write(APIC_LVTPC, APIC_DM_NMI)": unmask first, both vendors. */
	apic_write(APIC_LVTPC, APIC_DM_NMI);
	for (unsigned idx = 0; idx < 2; idx++) {
		uint64_t v;
		if (!(lx.active & (1u << idx)))
			continue;
		rdmsr_safe(lx.m->ctr[idx], &v);
		if (v & (1ull << (lx.cntval_bits - 1)))
			continue;       /* not overflowed */
		handled = true;
		lx.overflows[idx]++;
		set_period(idx);
	}
	if (!handled)
		lx.unknown++;
}

static void lx_init(const struct pmu_model *m, unsigned bits, uint64_t max_period)
{
	memset((void *)&lx, 0, sizeof(lx));
	lx.m = m;
	lx.cntval_bits = bits;
	lx.period[0] = PERIOD;          /* cycles: a sampling event */
	lx.period[1] = max_period;      /* instructions: counting uses max_period */
	pmu_reset(m);
	set_irq_handler(VEC_NMI, linux_nmi);
	/* perf_events_lapic_init(): LVTPC = APIC_DM_NMI */
	apic_enable();
	apic_write(APIC_LVTPC, APIC_DM_NMI);
}

static void lx_done(const struct pmu_model *m)
{
	/* Sampling goes on while the cases report (serial output exits), so
	 * the totals are only known here. */
	diag("NMIs: %u from counter 0, %u from counter 1, %u with no overflow of an active "
	     "counter", lx.overflows[0], lx.overflows[1], lx.unknown);
	lx.active = 0;
	apic_write(APIC_LVTPC, APIC_LVT_MASKED | APIC_DM_NMI);
	pmu_reset(m);
	pmi_install_stray_handlers();
}

static bool wait_samples(void)
{
	return WAIT_UNTIL(lx.overflows[0] >= WANT_PMIS, PMI_WAIT_MS);
}

static void check_samples(const struct pmu_model *m, bool ok)
{
	if (!ok)
		FAIL("%u of %u PMIs from the sampling counter within %u ms", lx.overflows[0],
		     WANT_PMIS, PMI_WAIT_MS);
	if (lvtpc_automask(m))
		EXPECT_EQ(lx.unmasked, 0);
	else
		EXPECT_EQ(lx.masked, 0);
}

/* Counters frozen across a window (both after disable_all). */
static void expect_frozen(const struct pmu_model *m, unsigned n)
{
	uint64_t a[MAX_CTRS], b[MAX_CTRS];
	read_ctrs(m, a);
	spin_us(WORK_US);
	read_ctrs(m, b);
	expect_counting(m, a, b, 0, (uint8_t)((1u << n) - 1), "after disable_all");
}

static void linux_p6(const struct pmu_model *m)
{
	uint64_t a, b;
	lx_init(m, 32, (1ull << 31) - 1);     /* p6_pmu: cntval_bits 32, max_period 2^31-1 */

	begin_case("linux-p6: sampling cycles (EVNTSEL0 0x530079) and counting instructions "
		   "(EVNTSEL1 0x1300C0, no EN)");
	/* x86_pmu_disable -> p6_pmu_disable_all: EVNTSEL0.EN cleared, read-modify-write */
	WR(0x186, RD(0x186) & ~(uint64_t)EVTSEL_EN);
	/* x86_pmu_start for each event (cpuc->enabled == 0): set_period, then
	 * p6_pmu_enable_event writes hwc->config without EN */
	lx.active = 0x3;
	set_period(0);
	WR(0x186, EVTSEL_INT | EVTSEL_OS | EVTSEL_USR | 0x79);
	set_period(1);
	WR(0x187, EVTSEL_INT | EVTSEL_OS | EVTSEL_USR | 0xC0);
	a = RD(0xC2);
	/* p6_pmu_enable_all: EVNTSEL0 |= EN, read-modify-write */
	WR(0x186, RD(0x186) | EVTSEL_EN);
	EXPECT_EQ(RD(0x186), 0x530079);
	check_samples(m, wait_samples());
	b = RD(0xC2);
	EXPECT_EVENT_COUNTED(m, a, b, false, "instructions (counter 1)");
	end_case();

	begin_case("linux-p6: disable_event writes EVNTSEL0 = 0x40002E while enabled (%s)",
		   opts.strict ? "breaks cpl-none: #GP, unchanged" : "counter 1 counts on");
	/* x86_pmu_stop(cycles): the event leaves active_mask, then
	 * p6_pmu_disable_event writes P6_NOP_EVENT | EN (cpuc->enabled) */
	lx.active &= ~1u;
	if (opts.strict) {
		EXPECT_REFUSED(0x186, EVTSEL_EN | P6_NOP_EVENT);
		EXPECT_EQ(RD(0x186), 0x530079);
	} else {
		uint64_t c[MAX_CTRS], d[MAX_CTRS];
		EXPECT_STORED(0x186, EVTSEL_EN | P6_NOP_EVENT);
		/* 0x2E with unit mask 0 counts zero (p6.md), CPL 0 nothing at all;
		 * the global enable keeps counter 1 going. */
		read_ctrs(m, c);
		spin_us(WORK_US);
		read_ctrs(m, d);
		expect_counting_here(m, c, d, 0x2, 0, 0x1, "EVNTSEL0 = 0x40002E");
	}
	end_case();

	begin_case("linux-p6: disable_all clears EVNTSEL0.EN: both counters stop");
	lx.active = 0;
	WR(0x186, RD(0x186) & ~(uint64_t)EVTSEL_EN);
	EXPECT_EQ(RD(0x186), opts.strict ? 0x130079 : P6_NOP_EVENT);
	EXPECT_EQ(RD(0x187), 0x1300C0);
	expect_frozen(m, 2);
	end_case();

	lx_done(m);
}

static void linux_amd(const struct pmu_model *m)
{
	uint64_t a, b;
	/* amd_pmu: cntval_bits 48, max_period 2^47-1; a counting event starts
	 * at -(2^47-1) & (2^48-1) = 0x800000000001 */
	lx_init(m, 48, (1ull << 47) - 1);

	begin_case("linux-amd: sampling cycles (EVNTSEL0 0x530076, PERFCTR0 = -period & (2^48-1))");
	/* x86_pmu_start for each event: set_period only (x86_pmu_enable_event
	 * writes nothing while cpuc->enabled == 0); then x86_pmu_enable_all
	 * writes config | EN to each active counter. */
	lx.active = 0x3;
	set_period(0);
	set_period(1);
	EXPECT_EQ(RD(0xC0010005), 0x800000000001ull);
	WR(0xC0010000, EVTSEL_EN | EVTSEL_INT | EVTSEL_OS | EVTSEL_USR | 0x76);
	int r = wrmsr_safe(0xC0010001, EVTSEL_EN | EVTSEL_INT | EVTSEL_OS | EVTSEL_USR | 0xC0);
	a = RD(0xC0010005);
	check_samples(m, wait_samples());   /* NMIs: IF does not matter */
	b = RD(0xC0010005);
	end_case();

	begin_case("linux-amd: counting instructions (EVNTSEL1 0x5300C0) from 0x800000000001 "
		   "(%s)", opts.strict ? "ireset-nonnegative: #GP, unchanged" : "counts");
	if (opts.strict) {
		/* The low 32 bits of 2^47+1 are 1: non-negative (k7.md rule 2). */
		if (r != -1)
			FAIL("wrmsr(0xC0010001, 0x5300C0) with PERFCTR1 0x800000000001: expected #GP, "
			     "got %s", r ? "another exception" : "no fault");
		EXPECT_EQ(RD(0xC0010001), 0);
		EXPECT_EQ(b, 0x800000000001ull);
		lx.active &= ~2u;
	} else {
		EXPECT_EQ(r, 0);
		EXPECT_EVENT_COUNTED(m, a, b, false, "instructions (counter 1)");
	}
	end_case();

	begin_case("linux-amd: disable_event clears EVNTSEL0.EN, then disable_all the rest");
	/* x86_pmu_stop(cycles): x86_pmu_disable_event writes config without EN */
	lx.active &= ~1u;
	WR(0xC0010000, EVTSEL_INT | EVTSEL_OS | EVTSEL_USR | 0x76);
	if (!opts.strict) {
		uint64_t c[MAX_CTRS], d[MAX_CTRS];
		read_ctrs(m, c);
		spin_us(WORK_US);
		read_ctrs(m, d);
		expect_counting_here(m, c, d, 0x2, 0, 0xD, "EVNTSEL0 without EN");
	}
	/* x86_pmu_disable_all: each active counter with EN gets it cleared */
	for (unsigned idx = 0; idx < 2; idx++) {
		uint64_t v;
		if (!(lx.active & (1u << idx)))
			continue;
		v = RD(m->ctl[idx]);
		if (v & EVTSEL_EN)
			WR(m->ctl[idx], v & ~(uint64_t)EVTSEL_EN);
	}
	lx.active = 0;
	EXPECT_EQ(RD(0xC0010001), opts.strict ? 0 : 0x1300C0);
	expect_frozen(m, 4);
	end_case();

	lx_done(m);
}

/*
 * Linux's P4 driver (arch/x86/events/intel/p4.c) on thread 0 without HT:
 * cycles = GLOBAL_POWER_EVENTS:RUNNING on counter 0 through FSB_ESCR0,
 * instructions = INSTR_RETIRED:NBOGUSNTAG|BOGUSNTAG on counter 12 through
 * CRU_ESCR0 (p4_event_bind_map); every CCCR gets THREAD_ANY and OVF_PMI_T0
 * (p4_default_cccr_conf), so a counting event is an interrupting one with the
 * maximum period 2^39-1 (cntval_bits 40): its start (-(2^39-1)) & (2^40-1) =
 * 0x8000000001 is non-negative in 32 bits, which breaks ireset-nonnegative.
 */
#define P4_CRU_ESCR0   0x3B8u
#define P4_ESCR_INSTR  (P4_ESCR_EVENT(0x02) | P4_ESCR_EMASK(0x5) | P4_ESCR_T0_OS | P4_ESCR_T0_USR)
#define P4_CCCR_INSTR  (P4_CCCR_ENABLE | P4_CCCR_ESCR_SEL(4) | P4_CCCR_ACTIVE_THREAD(3))
#define P4_LX_CTR(idx) ((idx) ? 12u : 0u)

/* p4_pmu_handle_irq(): per active counter, p4_pmu_clear_cccr_ovf (read the
 * CCCR, write it back without OVF), read the counter, a new period where it
 * overflowed; the LVTPC is unmasked last ("the OVF bit flag has to be cleared
 * first _before_ the LVTPC can be unmasked"). */
static void linux_p4_nmi(struct irq_frame *f)
{
	bool handled = false;
	(void)f;
	if (apic_read(APIC_LVTPC) & APIC_LVT_MASKED)
		lx.masked++;
	else
		lx.unmasked++;
	for (unsigned idx = 0; idx < 2; idx++) {
		uint64_t cccr, v;
		if (!(lx.active & (1u << idx)))
			continue;
		unsigned c = P4_LX_CTR(idx);
		rdmsr_safe(P4_CCCR(c), &cccr);
		bool ovf = (cccr & P4_CCCR_OVF) != 0;
		if (ovf)
			wrmsr_safe(P4_CCCR(c), cccr & ~(uint64_t)P4_CCCR_OVF);
		rdmsr_safe(P4_CTR(c), &v);
		/* "if (!overflow && (val & (1ULL << (cntval_bits - 1)))) continue" */
		if (!ovf && (v & (1ull << 39)))
			continue;
		handled |= ovf;
		lx.overflows[idx] += ovf;
		wrmsr_safe(P4_CTR(c), (0 - lx.period[idx]) & cntval_mask());
	}
	if (!handled)
		lx.unknown++;
	apic_write(APIC_LVTPC, APIC_DM_NMI);
}

static void linux_p4(const struct pmu_model *m)
{
	uint64_t a, b;
	lx_init(m, 40, (1ull << 39) - 1);    /* p4_pmu: cntval_bits 40, max_period 2^39-1 */
	set_irq_handler(VEC_NMI, linux_p4_nmi);

	begin_case("linux-p4: IA32_MISC_ENABLE has EMON, p4_pmu_init clears the 18 CCCRs, "
		   "check_hw_exists writes and reads counter 0");
	EXPECT_EQ(RD(0x1A0) & 0x80, 0x80);
	for (unsigned i = 0; i < P4_NCTRS; i++)
		WR(P4_CCCR(i), 0);
	for (unsigned i = 0; i < P4_NCTRS; i++)
		EXPECT_EQ(RD(P4_CCCR(i)), 0);
	WR(P4_CTR(0), 0xabcd);
	EXPECT_EQ(RD(P4_CTR(0)), 0xabcd);
	end_case();

	begin_case("linux-p4: sampling cycles (FSB_ESCR0 0x%x, CCCR0 0x%x), counter 0 = "
		   "-period & (2^40-1)", P4_ESCR_CYCLES, P4_CCCR_CYCLES | P4_CCCR_OVF_PMI_T0);
	/* x86_pmu_start: set_period; p4_pmu_enable_event: the ESCR, then the
	 * CCCR (without the reserved bits 0-11) with ENABLE. */
	lx.active = 0x1;
	wrmsr_safe(P4_CTR(0), (0 - lx.period[0]) & cntval_mask());
	WR(P4_FSB_ESCR0, P4_ESCR_CYCLES);
	WR(P4_CCCR(0), P4_CCCR_CYCLES | P4_CCCR_OVF_PMI_T0);
	check_samples(m, wait_samples());
	end_case();

	begin_case("linux-p4: counting instructions on counter 12 from 0x8000000001 (%s)",
		   opts.strict ? "ireset-nonnegative: #GP, unchanged" : "counts");
	wrmsr_safe(P4_CTR(12), (0 - lx.period[1]) & cntval_mask());
	EXPECT_EQ(RD(P4_CTR(12)), 0x8000000001ull);
	WR(P4_CRU_ESCR0, P4_ESCR_INSTR);
	int r = wrmsr_safe(P4_CCCR(12), P4_CCCR_INSTR | P4_CCCR_OVF_PMI_T0);
	a = RD(P4_CTR(12));
	spin_us(WORK_US);
	b = RD(P4_CTR(12));
	if (opts.strict) {
		if (r != -1)
			FAIL("wrmsr(CCCR12, 0x%x) with counter 12 = 0x8000000001: expected #GP, got %s",
			     P4_CCCR_INSTR | P4_CCCR_OVF_PMI_T0, r ? "another exception" : "no fault");
		EXPECT_EQ(RD(P4_CCCR(12)), 0);
		EXPECT_EQ(b, 0x8000000001ull);
	} else {
		EXPECT_EQ(r, 0);
		lx.active |= 0x2;
		EXPECT_EVENT_COUNTED(m, a, b, false, "instructions (counter 12)");
	}
	end_case();

	begin_case("linux-p4: disable_event writes each CCCR without ENABLE and OVF: both stop");
	lx.active = 0;
	WR(P4_CCCR(0), (P4_CCCR_CYCLES & ~(uint64_t)P4_CCCR_ENABLE) | P4_CCCR_OVF_PMI_T0);
	if (!opts.strict)
		WR(P4_CCCR(12), (P4_CCCR_INSTR & ~(uint64_t)P4_CCCR_ENABLE) | P4_CCCR_OVF_PMI_T0);
	a = RD(P4_CTR(0));
	uint64_t a12 = RD(P4_CTR(12));
	spin_us(WORK_US);
	EXPECT_EQ(RD(P4_CTR(0)), a);
	EXPECT_EQ(RD(P4_CTR(12)), a12);
	end_case();

	lx_done(m);
}

void test_linux(const struct pmu_model *m)
{
	if (m->linux != LINUX_NONE && !host_counts())
		case_skip("linux: legacy perf driver sequences", "%s", sim_skip_reason);
	else if (m->linux == LINUX_P6)
		linux_p6(m);
	else if (m->linux == LINUX_AMD)
		linux_amd(m);
	else if (m->linux == LINUX_P4)
		linux_p4(m);
	else
		case_skip("linux: legacy perf driver sequences", "Linux has no hardware perf driver "
			  "for %s (%s family %u: Linux's vendor dispatch)", m->name, m->vendor, m->family);
}
