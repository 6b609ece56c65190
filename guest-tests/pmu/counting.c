/* SPDX-License-Identifier: MIT */
/*
 * Case group 2: perfctr-style a-mode counting.  perfctr programs the controls
 * once and only reads the counters (perfctr low-level-x86.txt "Implementation
 * Notes"); here with RDMSR, since RDPMC raises #GP (rdpmc.c).
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
	expect_counting(m, a, b, s->counting, s->frozen, s->what);
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
	expect_counting(m, a, b, m->stop_counting, (uint8_t)(m->ctr_mask & ~m->stop_counting),
			"after the stop");
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
}
