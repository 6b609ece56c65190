/* SPDX-License-Identifier: MIT */
/*
 * Case group 6: the register sequences of Linux perf's legacy drivers,
 * replayed as arch/x86/events/core.c and intel/p6.c or amd/core.c issue
 * them for "cycles" sampled every PERIOD and "instructions" counted.  They
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

void test_linux(const struct pmu_model *m)
{
	if (m->linux != LINUX_NONE && !host_counts())
		case_skip("linux: legacy perf driver sequences", "%s", sim_skip_reason);
	else if (m->linux == LINUX_P6)
		linux_p6(m);
	else if (m->linux == LINUX_AMD)
		linux_amd(m);
	else
		case_skip("linux: legacy perf driver sequences", "Linux has no hardware perf driver "
			  "for %s (%s family %u: Linux's vendor dispatch)", m->name, m->vendor, m->family);
}
