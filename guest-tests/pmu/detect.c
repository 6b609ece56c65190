/* SPDX-License-Identifier: MIT */
/*
 * Case group 1: detection the way the drivers probe.  Runs first, while every
 * register still holds its reset value.
 */
#include "pmu.h"

#define MSR_MISC_ENABLE 0x1A0
#define MISC_ENABLE_PERF_AVAIL (1u << 7)

/* Linux's vendor dispatch and the legacy drivers' model checks
 * (arch/x86/events/core.c, intel/core.c, intel/p6.c, amd/core.c). */
static enum linux_driver linux_dispatch(const struct cpu_ident *id)
{
	unsigned version = id->leaf_a_eax & 0xFF, ngp = (id->leaf_a_eax >> 8) & 0xFF;
	if (strcmp(id->vendor, "GenuineIntel") == 0) {
		if (version && ngp > 1)
			return LINUX_ARCH_PERFMON;
		if (id->family == 6) {
			/* p6_pmu_init: models 1,3,5,6,7,8,9,10,11,13, else -ENODEV */
			static const unsigned p6_models[] = { 1, 3, 5, 6, 7, 8, 9, 10, 11, 13 };
			for (unsigned i = 0; i < sizeof(p6_models) / sizeof(p6_models[0]); i++)
				if (id->model == p6_models[i])
					return LINUX_P6;
			return LINUX_NONE;
		}
		return id->family == 0xF ? LINUX_P4 : LINUX_NONE;
	}
	if (strcmp(id->vendor, "AuthenticAMD") == 0 || strcmp(id->vendor, "HygonGenuine") == 0) {
		if (id->family < 6)
			return LINUX_NONE;
		return id->perfctr_core ? LINUX_AMD_CORE : LINUX_AMD;
	}
	if (strcmp(id->vendor, "CentaurHauls") == 0 || strcmp(id->vendor, "  Shanghai  ") == 0)
		/* zhaoxin_pmu_init needs architectural perfmon version 2 */
		return version == 2 ? LINUX_ZHAOXIN : LINUX_NONE;
	return LINUX_NONE;   /* CyrixInstead and the rest: no case in the dispatch */
}

static void identity_case(const struct pmu_model *m, const struct cpu_ident *id)
{
	/* cpumodel=/stepping= on the command line replace the page's defaults. */
	unsigned want_model = opts.cpumodel >= 0 ? (unsigned)opts.cpumodel : m->model;
	unsigned want_step = opts.stepping >= 0 ? (unsigned)opts.stepping : m->stepping;
	begin_case("detect: CPUID identity is %s's (%s family %u model %u stepping %u)", m->name,
		   m->vendor, m->family, want_model, want_step);
	if (strcmp(id->vendor, m->vendor) != 0)
		FAIL("vendor: expected %s, got %s", m->vendor, id->vendor);
	EXPECT_EQ(id->family, m->family);
	EXPECT_EQ(id->model, want_model);
	EXPECT_EQ(id->stepping, want_step);
	end_case();
}

static void dispatch_case(const struct pmu_model *m, const struct cpu_ident *id)
{
	enum linux_driver got = linux_dispatch(id);
	begin_case("detect: Linux perf's vendor dispatch picks: %s", linux_driver_name(m->linux));
	if (got != m->linux)
		FAIL("CPUID (%s family %u model %u, leaf 0xA eax 0x%x, PERFCTR_CORE %d) makes Linux "
		     "pick %s", id->vendor, id->family, id->model, id->leaf_a_eax, id->perfctr_core,
		     linux_driver_name(got));
	end_case();
}

/* perfctr x86.c: MISC_ENABLE bit 7 is required on the Intel family-6 models below
 * (Pentium M and later); the host answers 0x1A0 itself and raises #GP on
 * every other model (none of the defaults is in the list). */
static bool has_misc_enable(const struct cpu_ident *id)
{
	static const unsigned models[] = { 9, 13, 14, 15, 22, 23, 26, 28, 29, 30, 37, 42, 44, 46 };
	if (strcmp(id->vendor, "GenuineIntel") != 0 || id->family != 6)
		return false;
	for (unsigned i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (id->model == models[i])
			return true;
	return false;
}

/* p4.md "Registers": IA32_MISC_ENABLE reads 0x1880 at reset: bit 7 (EMON,
 * performance monitoring available: perfctr's and Linux's p4_pmu_init
 * require it), bits 11 and 12 (BTS and PEBS unavailable, a deviation); those
 * three are read-only, the other bits keep what is written. */
static void p4_misc_enable_case(void)
{
	begin_case("detect: IA32_MISC_ENABLE (0x1A0) reads 0x1880 (bit 7: performance monitoring "
		   "available; BTS, PEBS unavailable); bits 7, 11, 12 read-only");
	EXPECT_EQ(RD(MSR_MISC_ENABLE), 0x1880);
	EXPECT_STORED(MSR_MISC_ENABLE, 0x1881);
	expect_stored_at(__FILE_NAME__, __LINE__, MSR_MISC_ENABLE, 0x1, 0x1881);
	expect_stored_at(__FILE_NAME__, __LINE__, MSR_MISC_ENABLE, 0, 0x1880);
	end_case();
}

static void misc_enable_case(const struct pmu_model *m, const struct cpu_ident *id)
{
	if (m->style == STYLE_P4) {
		p4_misc_enable_case();
		return;
	}
	if (has_misc_enable(id)) {
		begin_case("detect: IA32_MISC_ENABLE (0x1A0) has bit 7 (performance monitoring available)");
		EXPECT(RD(MSR_MISC_ENABLE) & MISC_ENABLE_PERF_AVAIL);
	} else {
		begin_case("detect: IA32_MISC_ENABLE (0x1A0) raises #GP");
		EXPECT_RD_GP(MSR_MISC_ENABLE);
	}
	end_case();
}

static bool owns(const struct pmu_model *m, uint32_t msr)
{
	if (m->style == STYLE_P4)
		return p4_has_msr(cpu_model(m), msr);
	for (unsigned i = 0; i < MAX_CTRS; i++)
		if (((m->ctr_mask & (1u << i)) && m->ctr[i] == msr) || (i < m->nctl && m->ctl[i] == msr))
			return true;
	return msr && (m->readonly[0] == msr || m->readonly[1] == msr);
}

static void reset_values_case(const struct pmu_model *m)
{
	/* check_hw_exists reads every config MSR first; an EN bit (22) set at
	 * boot is its "BIOS has corrupted hw-PMU resources" warning.  The pages
	 * give 0 as every register's reset value. */
	begin_case("detect: check_hw_exists reads every control MSR: no #GP, reset value 0");
	if (m->style == STYLE_P4) {
		/* p4.md: every counter, CCCR, ESCR and the PEBS pair reset to 0. */
		for (unsigned i = 0; i < P4_NCTRS; i++) {
			EXPECT_EQ(RD(P4_CCCR(i)), 0);
			EXPECT_EQ(RD(P4_CTR(i)), 0);
		}
		for (unsigned i = 0; i < p4_nescrs; i++)
			if (p4_has_msr(cpu_model(m), p4_escrs[i]))
				EXPECT_EQ(RD(p4_escrs[i]), 0);
		EXPECT_EQ(RD(P4_PEBS_ENABLE), 0);
		EXPECT_EQ(RD(P4_PEBS_MATRIX_VERT), 0);
	}
	for (unsigned i = 0; i < m->nctl; i++)
		EXPECT_EQ(RD(m->ctl[i]), 0);
	for (unsigned i = 0; i < 2 && m->readonly[i]; i++)
		EXPECT_EQ(RD(m->readonly[i]), 0);
	/* Counters must read, but need not be 0: a WinChip C6 counts cycles from
	 * reset (winchip-c6.md). */
	for (unsigned i = 0; i < MAX_CTRS; i++)
		if (m->ctr_mask & (1u << i))
			(void)RD(m->ctr[i]);
	end_case();
}

static void probe_case(const struct pmu_model *m)
{
	unsigned c = 0;
	while (!(m->ctr_mask & (1u << c)))
		c++;
	begin_case("detect: check_hw_exists counter probe: counter %u (0x%x) ^= 0xFFFF reads back",
		   c, m->ctr[c]);
	/* A counter that is counting would fail the probe; quiesce first (the
	 * WinChip counters cannot be stopped, only pointed at a zero event). */
	apply_writes(m->quiet);
	uint64_t v = RD(m->ctr[c]) ^ 0xFFFF, back;
	WR(m->ctr[c], v);
	back = RD(m->ctr[c]);
	if (back != v)
		FAIL("read 0x%llx after writing 0x%llx: Linux would say \"PMU not available due "
		     "to virtualization\"", (unsigned long long)back, (unsigned long long)v);
	pmu_reset(m);
	end_case();
}

/* MSRs next to the P4's that are none of its registers (p4.md "Registers"):
 * past the 18 counters and CCCRs, the holes among the ESCRs, past CRU_ESCR5;
 * IQ_ESCR0/1 on CPUID models above 2 (p4-em64t.md). */
static const uint32_t p4_holes[] = { 0x312, 0x372, 0x3BF, 0x3C6, 0x3C7, 0x3CE, 0x3DF, 0x3E2,
				     P4_IQ_ESCR0, P4_IQ_ESCR1 };

static void foreign_case(const struct pmu_model *m)
{
	if (m->style == STYLE_P4) {
		begin_case("detect: PMU MSRs of other families, and the P4's holes (0x3BF, 0x3C6, ..., "
			   "%s), raise #GP on read and write",
			   cpu_model(m) <= 2 ? "IQ_ESCR0/1 present on model <= 2" :
			   "IQ_ESCR0/1 absent on model > 2");
		for (unsigned i = 0; i < sizeof(p4_holes) / sizeof(p4_holes[0]); i++) {
			if (owns(m, p4_holes[i]))
				continue;
			EXPECT_RD_GP(p4_holes[i]);
			EXPECT_REFUSED(p4_holes[i], 0);
		}
		if (cpu_model(m) <= 2) {
			EXPECT_EQ(RD(P4_IQ_ESCR0), 0);
			EXPECT_STORED(P4_IQ_ESCR1, P4_ESCR_EVENT(0x02) | P4_ESCR_T0_OS);
			WR(P4_IQ_ESCR1, 0);
		}
	} else if (m->style == STYLE_NONE)
		begin_case("detect: check_hw_exists fails: every PMU MSR raises #GP on read and "
			   "write (PMU not available)");
	else
		begin_case("detect: PMU MSRs of other families raise #GP on read and write");
	for (unsigned i = 0; i < all_pmu_nmsrs; i++) {
		uint32_t msr = all_pmu_msrs[i];
		if (owns(m, msr))
			continue;
		EXPECT_RD_GP(msr);
		EXPECT_REFUSED(msr, 0);
	}
	end_case();
}

void test_detect(const struct pmu_model *m, const struct cpu_ident *id)
{
	identity_case(m, id);
	dispatch_case(m, id);
	misc_enable_case(m, id);
	if (m->style != STYLE_NONE) {
		reset_values_case(m);
		probe_case(m);
	}
	foreign_case(m);
}
