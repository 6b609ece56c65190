/* SPDX-License-Identifier: MIT */
/*
 * Case groups 6/7 (register level): perfctr's rules as a guest sees them.
 * docs/principles.md §2: strict mode refuses a write that breaks a rule
 * with #GP and changes nothing; the default mode stores it (and records a
 * violation in the host's accounting, which the guest cannot see).  Step-1
 * rules (bits a rule forbids in one register) apply to every write; step-2
 * rules (enable and CPL bits, i-mode start values, K8 NB events) only when the
 * write leaves at least one counter enabled.  Rule names are the pages'.
 */
#include "pmu.h"

static const char *mode(void)
{
	return opts.strict ? "strict: #GP, unchanged" : "default: stored";
}

static void rule1_cases(const struct pmu_model *m)
{
	for (unsigned i = 0; i < sizeof(m->rule1) / sizeof(m->rule1[0]) && m->rule1[i].msr; i++) {
		begin_case("rules: %s (%s)", m->rule1[i].what, mode());
		pmu_reset(m);
		EXPECT_RULE(m->rule1[i].msr, m->rule1[i].val);
		pmu_reset(m);
		end_case();
	}
}

/* P6 and K7/K8 (p6.md, k7.md, k8.md rule tables).  'evntsel0' is the first
 * control, 'ctr0' its counter, 'ev' the cycles event; 'wide' is a counter
 * value whose low 32 bits are non-negative although the full counter is
 * negative (K7/K8: 48 bits), to show that the rule reads ireset as a 32-bit
 * int (perfctr x86.c check_ireset). */
static void step2_cases(const struct pmu_model *m, uint64_t ev)
{
	uint32_t sel = m->ctl[0], ctr = m->ctr[0];
	uint64_t os_usr = EVTSEL_OS | EVTSEL_USR;

	begin_case("rules: cpl-none: EVNTSEL0 = EN without USR/OS (%s)", mode());
	pmu_reset(m);
	EXPECT_RULE(sel, EVTSEL_EN | ev);
	if (!opts.strict && m->style == STYLE_K7) {
		/* k7.md: "EN with neither counts nothing". */
		uint64_t a = RD(ctr);
		spin_us(WORK_US);
		EXPECT_EQ(RD(ctr), a);
	}
	pmu_reset(m);
	end_case();

	begin_case("rules: step 2 waits for an enabled counter: EVNTSEL0 without EN and without USR/OS "
		   "is stored in both modes");
	pmu_reset(m);
	EXPECT_STORED(sel, ev);
	EXPECT_STORED(sel, EVTSEL_INT | ev);
	pmu_reset(m);
	end_case();

	begin_case("rules: ireset-nonnegative: counter 0x1000, then EVNTSEL0 = EN|INT|OS|USR (%s)",
		   mode());
	pmu_reset(m);
	WR(ctr, 0x1000);
	EXPECT_RULE(sel, EVTSEL_EN | EVTSEL_INT | os_usr | ev);
	pmu_reset(m);
	end_case();

	/* A negative start: a PMI only after 2^31 events, and the counter is
	 * disabled again at once (the LVTPC is masked or the APIC disabled). */
	begin_case("rules: ireset-nonnegative holds: counter 0x80000000 (negative in 32 bits), "
		   "EN|INT stored in both modes");
	pmu_reset(m);
	WR(ctr, 0x80000000u);
	EXPECT_STORED(sel, EVTSEL_EN | EVTSEL_INT | os_usr | ev);
	pmu_reset(m);
	end_case();

	if (m->style == STYLE_K7) {
		uint64_t wide = 0xFFFF00001000ull;
		begin_case("rules: ireset-nonnegative reads 32 bits: counter 0x%llx (negative in 48 "
			   "bits), EN|INT (%s)", (unsigned long long)wide, mode());
		pmu_reset(m);
		WR(ctr, wide);
		EXPECT_RULE(sel, EVTSEL_EN | EVTSEL_INT | os_usr | ev);
		pmu_reset(m);
		end_case();
	}
}

/* k8.md rule 3: on a revision E K8 (family 15, models 0x20-0x3F) no enabled
 * counter may select a northbridge event (0xE0-0xFF); elsewhere no rule. */
static void k8_nb_case(const struct pmu_model *m, const struct cpu_ident *id)
{
	bool rev_e = id->family == 15 && id->model >= 0x20 && id->model <= 0x3F;
	uint64_t nb = EVTSEL_EN | EVTSEL_OS | EVTSEL_USR | 0xE0;
	begin_case("rules: nb-event-reve: EVNTSEL0 = 0x%llx (DRAM accesses) on model 0x%x (%s)",
		   (unsigned long long)nb, id->model,
		   rev_e ? mode() : "not revision E: stored in both modes");
	pmu_reset(m);
	EXPECT_STORED(m->ctl[0], nb & ~(uint64_t)EVTSEL_EN);   /* step 2 needs EN */
	if (rev_e)
		EXPECT_RULE(m->ctl[0], nb);
	else
		EXPECT_STORED(m->ctl[0], nb);
	if (!opts.strict || !rev_e) {
		/* k8.md: NB events count zero. */
		uint64_t a = RD(m->ctr[0]);
		spin_us(WORK_US);
		EXPECT_EQ(RD(m->ctr[0]), a);
	}
	pmu_reset(m);
	end_case();
}

/* p4.md rules 5, 7, 8 and 13, checked whenever a write leaves a counter
 * enabled (perfctr x86.c p4_check_control, check_ireset).  Counter 0 counts
 * cycles through FSB_ESCR0 (ESCR_SELECT 6). */
static void p4_step2_cases(const struct pmu_model *m)
{
	begin_case("rules: cccr-active-thread: CCCR0 = ENABLE with ACTIVE_THREAD 1 (%s)", mode());
	pmu_reset(m);
	WR(P4_FSB_ESCR0, P4_ESCR_CYCLES);
	EXPECT_RULE(P4_CCCR(0), P4_CCCR_ENABLE | P4_CCCR_ESCR_SEL(6) | P4_CCCR_ACTIVE_THREAD(1));
	pmu_reset(m);
	end_case();

	begin_case("rules: step 2 waits for an enabled counter: ACTIVE_THREAD 1 without ENABLE, "
		   "FSB_ESCR0 with T1_OS, are stored in both modes");
	pmu_reset(m);
	EXPECT_STORED(P4_CCCR(0), P4_CCCR_ESCR_SEL(6) | P4_CCCR_ACTIVE_THREAD(1));
	EXPECT_STORED(P4_FSB_ESCR0, P4_ESCR_CYCLES | P4_ESCR_T1_OS);
	WR(P4_FSB_ESCR0, 0);
	pmu_reset(m);
	end_case();

	begin_case("rules: escr-cpl-t1: FSB_ESCR0 with T1_OS while counter 0 is enabled "
		   "through it (%s)", mode());
	pmu_reset(m);
	WR(P4_FSB_ESCR0, 0);
	WR(P4_CCCR(0), P4_CCCR_CYCLES);        /* an ESCR with no CPL: counts nothing */
	EXPECT_RULE(P4_FSB_ESCR0, P4_ESCR_CYCLES | P4_ESCR_T1_OS);
	pmu_reset(m);
	WR(P4_FSB_ESCR0, 0);
	end_case();

	begin_case("rules: cccr-escr-select: CCCR12 = ENABLE with ESCR_SELECT 7 (no ESCR of the "
		   "IQ counters) (%s)", mode());
	pmu_reset(m);
	EXPECT_RULE(P4_CCCR(12), P4_CCCR_ENABLE | P4_CCCR_ESCR_SEL(7) | P4_CCCR_ACTIVE_THREAD(3));
	pmu_reset(m);
	end_case();

	begin_case("rules: ireset-nonnegative: counter 0 = 0x1000, then CCCR0 = cycles with "
		   "OVF_PMI_T0 (%s)", mode());
	pmu_reset(m);
	WR(P4_CTR(0), 0x1000);
	WR(P4_FSB_ESCR0, P4_ESCR_CYCLES);
	EXPECT_RULE(P4_CCCR(0), P4_CCCR_CYCLES | P4_CCCR_OVF_PMI_T0);
	pmu_reset(m);
	end_case();

	/* A negative start; disabled again at once (the LVTPC is not armed). */
	begin_case("rules: ireset-nonnegative holds: counter 0 = 0xFF80000000 (negative in 32 "
		   "bits), CCCR0 with OVF_PMI_T0 stored in both modes");
	pmu_reset(m);
	WR(P4_CTR(0), 0xFF80000000ull);
	WR(P4_FSB_ESCR0, P4_ESCR_CYCLES);
	EXPECT_STORED(P4_CCCR(0), P4_CCCR_CYCLES | P4_CCCR_OVF_PMI_T0);
	pmu_reset(m);
	end_case();
}

void test_strict(const struct pmu_model *m, const struct cpu_ident *id)
{
	if (m->style == STYLE_NONE) {
		case_skip("rules: perfctr rules", "%s has no PMU register and no rule", m->name);
		return;
	}
	rule1_cases(m);
	/* The P5 family and the C3 have step-1 rules only: their other perfctr
	 * checks hold by construction (pages, "Rules that hold by construction"). */
	if (m->style == STYLE_P6)
		step2_cases(m, 0x79);
	else if (m->style == STYLE_K7)
		step2_cases(m, 0x76);
	else if (m->style == STYLE_P4)
		p4_step2_cases(m);
	if (m->style == STYLE_K7 && m->family == 15)
		k8_nb_case(m, id);
}
