/* SPDX-License-Identifier: MIT */
/*
 * Case group 2: perfctr-style a-mode counting.  perfctr programs the controls
 * once and only reads the counters (perfctr low-level-x86.txt "Implementation
 * Notes"); here with RDMSR, which reaches the vPMU on every KVM (RDPMC does only through
 * KVM's RDPMC exit: rdpmc.c).
 *
 * Without a host PMU every mapped generic event counts the vCPU thread's time
 * (task clock), so the checks are "advanced" / "did not move", never ratios or
 * exact counts; an event the page says counts zero must not move.
 */
#include "pmu.h"

static void setup_case(const struct pmu_model *m, const struct count_setup *s)
{
	uint64_t a[MAX_CTRS], b[MAX_CTRS];
	begin_case("count: %s", s->what);
	pmu_reset(m);
	apply_writes(s->on);
	read_ctrs(m, a);
	spin_us(WORK_US);
	read_ctrs(m, b);
	expect_counting_here(m, a, b, s->counting, s->clock, s->frozen, s->what);
	for (unsigned i = 0; i < MAX_CTRS; i++)
		if (m->ctr_mask & (1u << i))
			diag("counter %u: 0x%llx -> 0x%llx", i, (unsigned long long)a[i],
			     (unsigned long long)b[i]);
	pmu_reset(m);
	end_case();
}

static void stop_case(const struct pmu_model *m)
{
	uint64_t a[MAX_CTRS], b[MAX_CTRS];
	const struct count_setup *s = &m->count[0];
	begin_case("count: stop: %s", m->stop_what);
	pmu_reset(m);
	apply_writes(s->on);
	spin_us(WORK_US / 5);
	pmu_stop(m);
	read_ctrs(m, a);
	spin_us(WORK_US);
	read_ctrs(m, b);
	expect_counting_here(m, a, b, m->stop_counting, m->stop_clock,
			     (uint8_t)(m->ctr_mask & ~m->stop_counting), "after the stop");
	pmu_reset(m);
	end_case();
}

/* Without a host PMU the host counts cycles with the vCPU thread's task clock
 * scaled by the guest's TSC frequency (docs/integration.md "What the host
 * counts"): in a busy loop, where the real CPU's cycles and TSC advance
 * together, the counter must follow the TSC within 5%.  The vCPU thread can
 * lose its host CPU for a while (to the other vCPU's thread, or the host's own
 * work; the nested test tier has a single CPU), and then cycles fall behind
 * the TSC as they would on real hardware (perf's exclude_host): so windows are
 * measured until one is within 5%, up to twelve (a loaded host can take the
 * vCPU's CPU in several in a row), and the best is reported: a wrong scale
 * fails every window. */
#define TSC_WINDOWS   12
#define TSC_WINDOW_US 50000u

/* cyc/tsc in per mille, without 64-bit division (no libgcc): both scaled to 32 bits. */
static unsigned per_mille(uint64_t cyc, uint64_t tsc)
{
	while (tsc > 0xFFFFFu)
		cyc >>= 1, tsc >>= 1;
	return tsc ? (unsigned)((uint32_t)(cyc * 1000) / (uint32_t)tsc) : 0;
}

static void tsc_rate_case(const struct pmu_model *m)
{
	const struct count_setup *s = NULL;
	for (unsigned i = 0; i < 3 && m->count[i].what && !s; i++)
		if (m->count[i].clock)
			s = &m->count[i];
	if (!s) {
		case_skip("count: cycles at the TSC rate", "%s has no cycles event", m->name);
		return;
	}
	unsigned c = (unsigned)__builtin_ctz(s->clock);
	uint64_t mask = m->width >= 64 ? ~0ull : (1ull << m->width) - 1;
	begin_case("count: cycles (counter %u) advance at the TSC rate in a busy loop", c);
	pmu_reset(m);
	apply_writes(s->on);
	uint64_t best_cyc = 0, best_tsc = 1, best_diff = ~0ull;
	unsigned best_off = ~0u;
	for (unsigned w = 0; w < TSC_WINDOWS; w++) {
		uint64_t c0 = RD(m->ctr[c]), t0 = rdtsc();
		spin_us(TSC_WINDOW_US);
		uint64_t c1 = RD(m->ctr[c]), t1 = rdtsc();
		uint64_t cyc = (c1 - c0) & mask, tsc = t1 - t0;
		uint64_t diff = cyc > tsc ? cyc - tsc : tsc - cyc;
		unsigned pm = per_mille(cyc, tsc), off = pm > 1000 ? pm - 1000 : 1000 - pm;
		diag("window %u: cycles %llu, TSC ticks %llu: %u per mille", w,
		     (unsigned long long)cyc, (unsigned long long)tsc, pm);
		if (off < best_off)
			best_off = off, best_cyc = cyc, best_tsc = tsc, best_diff = diff;
		if (best_diff * 20 <= best_tsc)
			break;
	}
	if (best_diff * 20 > best_tsc)
		FAIL("in the best of %u windows cycles advanced %llu while the TSC advanced %llu: "
		     "more than 5%% apart", TSC_WINDOWS, (unsigned long long)best_cyc,
		     (unsigned long long)best_tsc);
	pmu_reset(m);
	end_case();
}

void test_counting(const struct pmu_model *m)
{
	if (m->style == STYLE_NONE) {
		case_skip("count: a-mode counting", "%s has no performance counters", m->name);
		return;
	}
	if (!host_counts()) {
		case_skip("count: a-mode counting", "%s", sim_skip_reason);
		return;
	}
	for (unsigned i = 0; i < 3 && m->count[i].what; i++)
		setup_case(m, &m->count[i]);
	stop_case(m);
	if (!host_counts_all())
		tsc_rate_case(m);
}
