/* SPDX-License-Identifier: MIT */
/*
 * arch-tests: the global-control semantics of Intel architectural performance
 * monitoring (Intel SDM vol. 3B, "Architectural Performance Monitoring
 * Version 2" to "Version 4"), as a guest kernel finds them: the geometry from
 * CPUID leaf 0AH (as Linux's intel_pmu_init reads it), then
 *   - the registers the leaf promises exist, and the next ones fault;
 *   - GLOBAL_CTRL gates a general and a fixed counter;
 *   - RDPMC reads the fixed counters with ECX bit 30;
 *   - an overflow sets its GLOBAL_STATUS bit and raises a PMI through the
 *     LVTPC, which the delivery masks (the Pentium M and later);
 *     GLOBAL_OVF_CTRL clears the bit;
 *   - IA32_DEBUGCTL.Freeze_PerfMon_On_PMI stops the counters at a PMI;
 *   - version 4: GLOBAL_STATUS_SET sets bits, STATUS_RESET clears them.
 * Booted with `vpmu-run --model M --tap arch-tests.bin` for the architectural
 * models (tests/guests.t); every expected value is the SDM's, none libvpmu's.
 */
#include "guest.h"

#define MSR_PMC(i)            (0xC1u + (i))
#define MSR_EVNTSEL(i)        (0x186u + (i))
#define MSR_FIXED_CTR(j)      (0x309u + (j))
#define MSR_FIXED_CTR_CTRL    0x38Du
#define MSR_GLOBAL_STATUS     0x38Eu
#define MSR_GLOBAL_CTRL       0x38Fu
#define MSR_GLOBAL_OVF_CTRL   0x390u
#define MSR_GLOBAL_STATUS_SET 0x391u

#define SEL_USR (1u << 16)
#define SEL_OS  (1u << 17)
#define SEL_INT (1u << 20)
#define SEL_EN  (1u << 22)
#define CYCLES  0x3Cu            /* UnHalted Core Cycles, umask 0 */
#define FIXED1_OS_USR (3u << 4)  /* fixed counter 1 (core cycles): OS | USR */

#define WORK_US 5000
#define PERIOD 200000u           /* cycles between the counter's start and its overflow */
#define PMI_WAIT_MS 3000u

static struct {
	unsigned version, ngp, gp_width, nfixed, fixed_width;
} pmu;

static volatile uint32_t pmis, pmi_masked;
static volatile uint64_t pmi_status;

static bool host_counts(void)
{
	return strcmp(opts.backend, "sim") != 0 && strcmp(opts.counts, "none") != 0;
}

static uint64_t rd(uint32_t msr)
{
	uint64_t v = 0;
	if (rdmsr_safe(msr, &v))
		FAIL("rdmsr 0x%x faulted (vector %u)", msr, last_fault_vector());
	return v;
}

static void wr(uint32_t msr, uint64_t v)
{
	if (wrmsr_safe(msr, v))
		FAIL("wrmsr 0x%x, 0x%llx faulted (vector %u)", msr, (unsigned long long)v,
		     last_fault_vector());
}

static void expect_gp(uint32_t msr)
{
	uint64_t v;
	if (!rdmsr_safe(msr, &v))
		FAIL("rdmsr 0x%x: no #GP, read 0x%llx", msr, (unsigned long long)v);
}

static void quiet(void)
{
	wr(MSR_GLOBAL_CTRL, 0);
	wr(MSR_FIXED_CTR_CTRL, 0);
	for (unsigned i = 0; i < pmu.ngp; i++) {
		wr(MSR_EVNTSEL(i), 0);
		wr(MSR_PMC(i), 0);
	}
	for (unsigned j = 0; j < pmu.nfixed; j++)
		wr(MSR_FIXED_CTR(j), 0);
	wr(MSR_GLOBAL_OVF_CTRL, rd(MSR_GLOBAL_STATUS));
}

static void registers_case(void)
{
	begin_case("CPUID 0AH: version %u, %u general counters of %u bits, %u fixed of %u bits; "
		   "their registers exist, the next ones fault", pmu.version, pmu.ngp, pmu.gp_width,
		   pmu.nfixed, pmu.fixed_width);
	EXPECT(pmu.version >= 2 && pmu.ngp >= 1 && pmu.ngp <= 8 && pmu.nfixed <= 4);
	for (unsigned i = 0; i < pmu.ngp; i++) {
		rd(MSR_PMC(i));
		rd(MSR_EVNTSEL(i));
	}
	if (pmu.ngp < 8) {
		expect_gp(MSR_PMC(pmu.ngp));
		expect_gp(MSR_EVNTSEL(pmu.ngp));
	}
	for (unsigned j = 0; j < pmu.nfixed; j++)
		rd(MSR_FIXED_CTR(j));
	if (pmu.nfixed < 4)
		expect_gp(MSR_FIXED_CTR(pmu.nfixed));
	/* A write to a counter takes bits 31:0 and sign-extends bit 31 to the width. */
	wr(MSR_PMC(0), 0x80000000u);
	EXPECT_EQ(rd(MSR_PMC(0)), ((1ull << pmu.gp_width) - 1) & ~0x7FFFFFFFull);
	wr(MSR_PMC(0), 0);
	end_case();
}

static void gate_case(void)
{
	if (!host_counts()) {
		case_skip("GLOBAL_CTRL gates counting", "the host counts nothing (backend %s)",
			  opts.backend);
		return;
	}
	begin_case("GLOBAL_CTRL gates counter 0 (EN set) and fixed counter 1 (OS|USR set)");
	quiet();
	wr(MSR_EVNTSEL(0), SEL_EN | SEL_OS | SEL_USR | CYCLES);
	wr(MSR_FIXED_CTR_CTRL, FIXED1_OS_USR);
	spin_us(WORK_US);
	EXPECT_EQ(rd(MSR_PMC(0)), 0);
	EXPECT_EQ(rd(MSR_FIXED_CTR(1)), 0);
	wr(MSR_GLOBAL_CTRL, 1ull | 1ull << 33);
	spin_us(WORK_US);
	wr(MSR_GLOBAL_CTRL, 0);
	uint64_t a = rd(MSR_PMC(0)), f = rd(MSR_FIXED_CTR(1));
	EXPECT(a > 0);
	EXPECT(f > 0);
	spin_us(WORK_US);
	EXPECT_EQ(rd(MSR_PMC(0)), a);
	EXPECT_EQ(rd(MSR_FIXED_CTR(1)), f);
	quiet();
	end_case();
}

static void fixed_rdpmc_case(void)
{
	if (!host_counts() || pmu.nfixed < 2) {
		case_skip("RDPMC of a fixed counter", "the host counts nothing, or no fixed counter 1");
		return;
	}
	begin_case("RDPMC with ECX bit 30 reads the fixed counters; past them it faults");
	quiet();
	wr(MSR_FIXED_CTR_CTRL, FIXED1_OS_USR);
	wr(MSR_GLOBAL_CTRL, 1ull << 33);
	spin_us(WORK_US / 5);
	uint64_t a = rd(MSR_FIXED_CTR(1)), v = 0;
	if (rdpmc_safe(0x40000001u, &v))
		FAIL("rdpmc(0x40000001) faulted (vector %u)", last_fault_vector());
	uint64_t b = rd(MSR_FIXED_CTR(1));
	EXPECT(a <= v && v <= b);
	if (!rdpmc_safe(0x40000000u | pmu.nfixed, &v))
		FAIL("rdpmc(0x%x) past the fixed counters: no #GP", 0x40000000u | pmu.nfixed);
	quiet();
	end_case();
}

/* Interrupts on until the handler counted a PMI, or PMI_WAIT_MS passed. */
static void wait_for_pmi(void)
{
	struct deadline d;
	deadline_init_us(&d, PMI_WAIT_MS * 1000ull);
	while (!pmis && !deadline_passed(&d))
		cpu_relax();
	cli();
}

static void on_pmi(struct irq_frame *f)
{
	(void)f;
	if (apic_read(APIC_LVTPC) & APIC_LVT_MASKED)
		pmi_masked++;
	/* What Linux's handler does first: stop everything, then read the status. */
	wrmsr_safe(MSR_GLOBAL_CTRL, 0);
	uint64_t s = 0;
	rdmsr_safe(MSR_GLOBAL_STATUS, &s);
	pmi_status = s;
	pmis++;
	apic_write(APIC_LVTPC, VEC_PMI);   /* unmask for the next */
	apic_eoi();
}

static void overflow_case(void)
{
	if (!host_counts()) {
		case_skip("an overflow sets GLOBAL_STATUS and raises a PMI", "the host counts nothing");
		return;
	}
	begin_case("an overflow of counter 0 sets GLOBAL_STATUS bit 0 and raises a PMI through "
		   "the LVTPC, which its delivery masks; GLOBAL_OVF_CTRL clears the bit");
	quiet();
	apic_enable();
	set_irq_handler(VEC_PMI, on_pmi);
	apic_write(APIC_LVTPC, VEC_PMI);
	pmis = pmi_masked = 0;
	wr(MSR_PMC(0), (uint32_t)(0u - PERIOD));
	wr(MSR_EVNTSEL(0), SEL_EN | SEL_INT | SEL_OS | SEL_USR | CYCLES);
	sti();
	wr(MSR_GLOBAL_CTRL, 1);
	wait_for_pmi();
	EXPECT_EQ(pmis, 1);
	EXPECT_EQ(pmi_masked, pmis);
	EXPECT(pmi_status & 1);
	EXPECT(rd(MSR_GLOBAL_STATUS) & 1);
	wr(MSR_GLOBAL_OVF_CTRL, 1);
	EXPECT_EQ(rd(MSR_GLOBAL_STATUS) & 1, 0);
	apic_write(APIC_LVTPC, VEC_PMI | APIC_LVT_MASKED);
	quiet();
	end_case();
}

/* Freeze_PerfMon_On_PMI (SDM vol. 3B, "Freezing Counters on PMI"): the
 * handler finds the counters stopped before it touches anything: GLOBAL_CTRL
 * cleared (versions 2 and 3), or GLOBAL_STATUS.CTR_FRZ set (version 4's
 * streamlined freeze, which clearing the bit ends). */
#define MSR_DEBUGCTL 0x1D9u
#define DEBUGCTL_FREEZE_PERFMON_ON_PMI (1ull << 12)
#define STATUS_CTR_FRZ (1ull << 59)

static volatile uint64_t frz_ctrl, frz_status;

static void on_freeze_pmi(struct irq_frame *f)
{
	(void)f;
	uint64_t v = 0;
	rdmsr_safe(MSR_GLOBAL_CTRL, &v);
	frz_ctrl = v;
	rdmsr_safe(MSR_GLOBAL_STATUS, &v);
	frz_status = v;
	pmis++;
	apic_write(APIC_LVTPC, VEC_PMI | APIC_LVT_MASKED);
	apic_eoi();
}

static void freeze_case(void)
{
	if (!host_counts()) {
		case_skip("Freeze_PerfMon_On_PMI", "the host counts nothing");
		return;
	}
	begin_case("IA32_DEBUGCTL.Freeze_PerfMon_On_PMI: the PMI stops every counter (%s)",
		   pmu.version >= 4 ? "GLOBAL_STATUS.CTR_FRZ" : "GLOBAL_CTRL cleared");
	quiet();
	apic_enable();
	set_irq_handler(VEC_PMI, on_freeze_pmi);
	apic_write(APIC_LVTPC, VEC_PMI);
	pmis = 0;
	wr(MSR_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	EXPECT_EQ(rd(MSR_DEBUGCTL), DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	wr(MSR_PMC(0), (uint32_t)(0u - PERIOD));
	wr(MSR_EVNTSEL(0), SEL_EN | SEL_INT | SEL_OS | SEL_USR | CYCLES);
	if (pmu.nfixed >= 2)
		wr(MSR_FIXED_CTR_CTRL, FIXED1_OS_USR);
	sti();
	wr(MSR_GLOBAL_CTRL, 1ull | (pmu.nfixed >= 2 ? 1ull << 33 : 0));
	wait_for_pmi();
	EXPECT_EQ(pmis, 1);
	if (pmu.version >= 4) {
		EXPECT(frz_status & STATUS_CTR_FRZ);
		EXPECT(frz_ctrl & 1);
	} else {
		EXPECT_EQ(frz_ctrl, 0);
	}
	EXPECT(frz_status & 1);
	/* Frozen: neither counter moves. */
	uint64_t a = rd(MSR_PMC(0)), f = pmu.nfixed >= 2 ? rd(MSR_FIXED_CTR(1)) : 0;
	spin_us(WORK_US);
	EXPECT_EQ(rd(MSR_PMC(0)), a);
	if (pmu.nfixed >= 2)
		EXPECT_EQ(rd(MSR_FIXED_CTR(1)), f);
	wr(MSR_DEBUGCTL, 0);
	quiet();
	end_case();
}

static void status_set_case(void)
{
	if (pmu.version < 4) {
		case_skip("GLOBAL_STATUS_SET", "version %u: it is version 4's", pmu.version);
		return;
	}
	begin_case("version 4: GLOBAL_STATUS_SET sets status bits, STATUS_RESET clears them");
	quiet();
	wr(MSR_GLOBAL_STATUS_SET, 1ull << 32 | 1);
	EXPECT_EQ(rd(MSR_GLOBAL_STATUS), 1ull << 32 | 1);
	wr(MSR_GLOBAL_OVF_CTRL, 1ull << 32 | 1);
	EXPECT_EQ(rd(MSR_GLOBAL_STATUS), 0);
	end_case();
}

void guest_main(void)
{
	uint32_t r[4];
	cpuid(0, 0, r);
	if (r[0] < 0xA)
		guest_abort("CPUID: no leaf 0AH (highest leaf %u): not architectural perfmon", r[0]);
	cpuid(0xA, 0, r);
	pmu.version = r[0] & 0xFF;
	pmu.ngp = (r[0] >> 8) & 0xFF;
	pmu.gp_width = (r[0] >> 16) & 0xFF;
	pmu.nfixed = pmu.version >= 2 ? r[3] & 0x1F : 0;
	pmu.fixed_width = pmu.version >= 2 ? (r[3] >> 5) & 0xFF : 0;
	diag("arch-tests: backend %s, counts %s", opts.backend[0] ? opts.backend : "?",
	     opts.counts[0] ? opts.counts : "?");
	registers_case();
	gate_case();
	fixed_rdpmc_case();
	overflow_case();
	freeze_case();
	status_set_case();
}
