/* SPDX-License-Identifier: MIT */
/*
 * Case group 10: the P4's own programming, as the P4 drivers of the time did
 * it (p4 and p4-em64t only; docs/models/p4.md).
 *
 * (a) perfctr's i-mode: counter 0 counts cycles (GLOBAL_POWER_EVENTS:RUNNING
 *     through FSB_ESCR0: CCCR ESCR_SELECT 6, ACTIVE_THREAD 3, OVF_PMI_T0) from
 *     a negative start, written as perfctr writes it (EDX = -1: p4.md, the
 *     counter takes bits 0-39), then the ESCR, then the CCCR (perfctr x86.c
 *     p4_write_control: ESCR before CCCR).  The LVTPC delivers NMIs; the
 *     handler finds CCCR.OVF set (the hardware's overflow flag, sticky until
 *     software clears it), clears it, reloads the counter and unmasks the
 *     LVTPC, which every P4 masks on delivery (SDM vol. 3, "Local Vector
 *     Table"; perfctr rewrites the LVTPC after each PMI on the P4).  Cycles
 *     follow the guest's TSC on a host without a PMU (docs/integration.md
 *     "What the host counts"), so over a busy loop one period per PMI plus
 *     the events from each wrap to the handler (the PMI latency, dropped by
 *     the reload) add up to about the loop's TSC ticks.
 * (b) OProfile's P4 model (Linux arch/x86/oprofile/op_model_p4.c, removed in
 *     5.12): setup clears every CCCR (keeping its reserved bits, with
 *     ACTIVE_THREAD 3 "required") and every ESCR, then programs counter 0's
 *     ESCR and CCCR (OVF_PMI_T0, no ENABLE) and writes -count; start sets
 *     ENABLE; its NMI handler takes a sample when CCCR.OVF is set or the
 *     counter's bit 31 is clear, writes the counter, clears OVF, writes the
 *     counter again (erratum N15) and unmasks the LVTPC ("P4 quirk"); stop
 *     clears ENABLE.
 */
#include "pmu.h"

#define SAMPLER_PERIOD  2000000u       /* cycles between PMIs */
#define SAMPLER_US      100000u        /* the busy loop */
#define OP_COUNT        2000000u       /* OProfile's count (events per sample) */
#define OP_WANT         3u
#define OP_WAIT_MS      3000u
#define QUIET_MS        50u

/* OProfile's op_model_p4.c masks. */
#define OP_CCCR_RESERVED_BITS  0x38030FFFu
#define OP_CCCR_REQUIRED_BITS  0x00030000u   /* ACTIVE_THREAD 3 */
#define OP_ESCR_RESERVED_BITS  0x80000003u
#define OP_CTR_OVERFLOW        0x80000000u

static struct {
	uint64_t reload;
	volatile uint32_t pmis, no_ovf, unmasked_on_entry, bad_access;
	volatile uint64_t lat_max, lat_sum;
} ps;

/* n / d without a 64-bit division (no libgcc: docs/guest-tests.md). */
static uint64_t div_u64(uint64_t n, uint32_t d)
{
	uint64_t q = 0, r = 0;
	for (int i = 63; i >= 0; i--) {
		r = (r << 1) | ((n >> i) & 1);
		if (r >= d) {
			r -= d;
			q |= 1ull << i;
		}
	}
	return q;
}

static void sampler_nmi(struct irq_frame *f)
{
	uint32_t lvtpc = apic_read(APIC_LVTPC);
	uint64_t cccr = 0, v = 0;
	(void)f;
	if (!(lvtpc & APIC_LVT_MASKED))
		ps.unmasked_on_entry++;
	if (rdmsr_safe(P4_CCCR(0), &cccr))
		ps.bad_access++;
	if (cccr & P4_CCCR_OVF) {
		ps.pmis++;
		if (rdmsr_safe(P4_CTR(0), &v))
			ps.bad_access++;
		if (v < (1ull << 39)) {          /* events since the wrap */
			ps.lat_sum += v;
			if (v > ps.lat_max)
				ps.lat_max = v;
		}
		if (wrmsr_safe(P4_CCCR(0), cccr & ~(uint64_t)P4_CCCR_OVF) ||
		    wrmsr_safe(P4_CTR(0), ps.reload))
			ps.bad_access++;
	} else {
		ps.no_ovf++;
	}
	apic_write(APIC_LVTPC, lvtpc & ~APIC_LVT_MASKED);
}

static void sampler_case(const struct pmu_model *m)
{
	const uint64_t cccr = P4_CCCR_CYCLES | P4_CCCR_OVF_PMI_T0;
	begin_case("p4: perfctr i-mode: cycles on counter 0 every %u, NMI, handler clears CCCR.OVF, "
		   "reloads, unmasks the LVTPC; PMIs x period + overshoots = TSC ticks", SAMPLER_PERIOD);
	memset((void *)&ps, 0, sizeof(ps));
	ps.reload = 0 - (uint64_t)SAMPLER_PERIOD;    /* EDX = -1, as perfctr writes it */
	pmu_reset(m);
	set_irq_handler(VEC_NMI, sampler_nmi);
	apic_enable();
	apic_write(APIC_LVTPC, APIC_DM_NMI);
	WR(P4_CTR(0), ps.reload);
	EXPECT_EQ(RD(P4_CTR(0)), ps.reload & ((1ull << 40) - 1));
	WR(P4_FSB_ESCR0, P4_ESCR_CYCLES);
	WR(P4_CCCR(0), cccr);
	uint64_t t0 = rdtsc();
	sti();
	spin_us(SAMPLER_US);
	cli();
	uint64_t t1 = rdtsc();
	/* Events since the last reload (a wrap not yet handled reads small). */
	uint64_t rest = (RD(P4_CTR(0)) - ps.reload) & ((1ull << 40) - 1);
	/* perfctr's isuspend: CCCR 0 stops the counter (and clears OVF). */
	WR(P4_CCCR(0), 0);
	uint64_t tsc = t1 - t0, want = div_u64(tsc, SAMPLER_PERIOD);
	/* What the counter counted in all: a period per PMI, the events from
	 * each wrap to the handler's read (dropped by the reload, as perfctr
	 * and Linux drop them), and the rest. */
	uint64_t total = (uint64_t)ps.pmis * SAMPLER_PERIOD + ps.lat_sum + rest;
	diag("%u PMIs in %llu TSC ticks (at most %llu at one per %u cycles); events since the wrap "
	     "when the handler ran: total %llu, max %llu; %llu since the last reload; counted in "
	     "all %llu; %u NMIs without CCCR.OVF", ps.pmis, (unsigned long long)tsc,
	     (unsigned long long)want, SAMPLER_PERIOD, (unsigned long long)ps.lat_sum,
	     (unsigned long long)ps.lat_max, (unsigned long long)rest, (unsigned long long)total,
	     ps.no_ovf);
	EXPECT_EQ(ps.bad_access, 0);
	EXPECT_EQ(ps.no_ovf, 0);
	EXPECT_EQ(ps.unmasked_on_entry, 0);         /* the P4 masked the LVTPC */
	/* Cycles follow the TSC (within 5%: counting.c), so no more PMIs than
	 * one per period of TSC ticks, and the counter's own total is at most
	 * the TSC's; at least half of it, since the vCPU thread can lose its
	 * host CPU for a while (cycles then fall behind the TSC) and the events
	 * between the handler's read and its reload are not counted. */
	if (ps.pmis < 3 || ps.pmis > want + want / 20 + 2)
		FAIL("%u PMIs in %llu TSC ticks: more than one per %u cycles (at most %llu), or < 3",
		     ps.pmis, (unsigned long long)tsc, SAMPLER_PERIOD, (unsigned long long)want);
	if (total > tsc + tsc / 20 || total < tsc / 2)
		FAIL("PMIs x period + events past each wrap + the rest = %llu cycles, not about the "
		     "%llu TSC ticks of the loop", (unsigned long long)total, (unsigned long long)tsc);
	/* Stopped: the counter stands still and no PMI follows. */
	sti();
	spin_us(10000);
	uint32_t settled = ps.pmis;
	uint64_t a = RD(P4_CTR(0));
	spin_us(QUIET_MS * 1000);
	cli();
	EXPECT_EQ(RD(P4_CTR(0)), a);
	if (ps.pmis != settled)
		FAIL("%u PMIs after CCCR0 was cleared", ps.pmis - settled);
	apic_write(APIC_LVTPC, APIC_LVT_MASKED | APIC_DM_NMI);
	pmi_install_stray_handlers();
	pmu_reset(m);
	end_case();
}

static struct {
	volatile uint32_t samples, by_ovf, by_sign, nmis, bad_access;
} op;

/* op_model_p4.c p4_check_ctrs() for counter 0, then the LVTPC unmask. */
static void oprofile_nmi(struct irq_frame *f)
{
	uint64_t low = 0, ctr = 0;
	(void)f;
	op.nmis++;
	if (rdmsr_safe(P4_CCCR(0), &low) || rdmsr_safe(P4_CTR(0), &ctr))
		op.bad_access++;
	if ((low & P4_CCCR_OVF) || !(ctr & OP_CTR_OVERFLOW)) {
		op.samples++;
		if (low & P4_CCCR_OVF)
			op.by_ovf++;
		else
			op.by_sign++;
		if (wrmsr_safe(P4_CTR(0), 0 - (uint64_t)OP_COUNT) ||
		    wrmsr_safe(P4_CCCR(0), low & ~(uint64_t)P4_CCCR_OVF) ||
		    wrmsr_safe(P4_CTR(0), 0 - (uint64_t)OP_COUNT))
			op.bad_access++;
	}
	apic_write(APIC_LVTPC, apic_read(APIC_LVTPC) & ~APIC_LVT_MASKED);
}

static void oprofile_case(const struct pmu_model *m)
{
	unsigned model = cpu_model(m);
	const uint64_t want_cccr = OP_CCCR_REQUIRED_BITS | P4_CCCR_ESCR_SEL(6) | P4_CCCR_OVF_PMI_T0;
	begin_case("p4: OProfile: clear every CCCR and ESCR, counter 0 GLOBAL_POWER_EVENTS "
		   "(FSB_ESCR0 then CCCR0), start, %u NMI samples, stop by clearing ENABLE", OP_WANT);
	memset((void *)&op, 0, sizeof(op));
	pmu_reset(m);
	set_irq_handler(VEC_NMI, oprofile_nmi);
	apic_enable();
	apic_write(APIC_LVTPC, APIC_DM_NMI);

	/* p4_setup_ctrs: the CCCRs cleared but for the reserved bits, with the
	 * required ACTIVE_THREAD; then every ESCR (43 where IQ_ESCR0/1 are absent). */
	for (unsigned i = 0; i < P4_NCTRS; i++)
		WR(P4_CCCR(i), (RD(P4_CCCR(i)) & OP_CCCR_RESERVED_BITS) | OP_CCCR_REQUIRED_BITS);
	unsigned nescr = 0;
	for (unsigned i = 0; i < p4_nescrs; i++)
		if (p4_has_msr(model, p4_escrs[i])) {
			WR(p4_escrs[i], 0);
			nescr++;
		}
	EXPECT_EQ(nescr, model <= 2 ? 45u : 43u);
	for (unsigned i = 0; i < P4_NCTRS; i++)
		EXPECT_EQ(RD(P4_CCCR(i)), OP_CCCR_REQUIRED_BITS);

	/* pmc_setup_one_p4_counter: the ESCR (USR_0, OS_0, event 0x13, unit
	 * mask 1 = RUNNING), then the CCCR (ESCR_SELECT 6, PMI_OVF_0); then the
	 * counter = -count. */
	uint64_t escr = RD(P4_FSB_ESCR0) & OP_ESCR_RESERVED_BITS;
	escr |= P4_ESCR_T0_USR | P4_ESCR_T0_OS | P4_ESCR_EVENT(0x13) | P4_ESCR_EMASK(1);
	WR(P4_FSB_ESCR0, escr);
	uint64_t low = (RD(P4_CCCR(0)) & OP_CCCR_RESERVED_BITS) | OP_CCCR_REQUIRED_BITS;
	low |= P4_CCCR_ESCR_SEL(6) | P4_CCCR_OVF_PMI_T0;
	WR(P4_CCCR(0), low);
	WR(P4_CTR(0), 0 - (uint64_t)OP_COUNT);
	EXPECT_EQ(RD(P4_FSB_ESCR0), P4_ESCR_CYCLES);
	EXPECT_EQ(RD(P4_CCCR(0)), want_cccr);

	/* Not started yet: the counter stands still. */
	uint64_t a = RD(P4_CTR(0));
	spin_us(WORK_US);
	EXPECT_EQ(RD(P4_CTR(0)), a);

	/* p4_start: CCCR ENABLE, read-modify-write. */
	WR(P4_CCCR(0), RD(P4_CCCR(0)) | P4_CCCR_ENABLE);
	a = RD(P4_CTR(0));
	spin_us(WORK_US / 5);
	uint64_t b = RD(P4_CTR(0));
	if (!ctr_advanced(m, a, b) && op.samples == 0)
		FAIL("counter 0 did not advance after the start: 0x%llx -> 0x%llx",
		     (unsigned long long)a, (unsigned long long)b);
	sti();
	bool ok = WAIT_UNTIL(op.samples >= OP_WANT, OP_WAIT_MS);
	cli();
	if (!ok)
		FAIL("%u of %u samples within %u ms (%u NMIs)", op.samples, OP_WANT, OP_WAIT_MS, op.nmis);

	/* p4_stop: CCCR ENABLE cleared, read-modify-write. */
	WR(P4_CCCR(0), RD(P4_CCCR(0)) & ~(uint64_t)P4_CCCR_ENABLE);
	sti();
	spin_us(10000);
	uint32_t settled = op.samples;
	a = RD(P4_CTR(0));
	spin_us(QUIET_MS * 1000);
	cli();
	EXPECT_EQ(RD(P4_CTR(0)), a);
	if (op.samples != settled)
		FAIL("%u samples after the stop", op.samples - settled);
	/* Read back: the ESCR as programmed, the CCCR without ENABLE (OVF only
	 * if a wrap came after the last sample). */
	EXPECT_EQ(RD(P4_FSB_ESCR0), P4_ESCR_CYCLES);
	EXPECT_EQ(RD(P4_CCCR(0)) & ~(uint64_t)P4_CCCR_OVF, want_cccr);
	diag("%u samples (%u with CCCR.OVF, %u from the counter's sign alone), %u NMIs",
	     op.samples, op.by_ovf, op.by_sign, op.nmis);
	EXPECT_EQ(op.bad_access, 0);
	EXPECT_EQ(op.by_sign, 0);            /* p4.md: every wrap sets OVF */

	apic_write(APIC_LVTPC, APIC_LVT_MASKED | APIC_DM_NMI);
	pmi_install_stray_handlers();
	pmu_reset(m);
	for (unsigned i = 0; i < p4_nescrs; i++)
		if (p4_has_msr(model, p4_escrs[i]))
			WR(p4_escrs[i], 0);
	end_case();
}

void test_p4(const struct pmu_model *m)
{
	if (m->style != STYLE_P4)
		return;
	if (!host_counts()) {
		case_skip("p4: perfctr and OProfile P4 sampling", "%s", sim_skip_reason);
		return;
	}
	sampler_case(m);
	oprofile_case(m);
}
