/* SPDX-License-Identifier: MIT */
/*
 * Case group 3: what a write does to a register, in both modes.  Counter
 * widths and sign extension: each model page's "write semantics"
 * column; reserved control bits that the hardware refuses raise #GP in
 * default and strict mode alike (docs/principles.md §2) and leave the
 * register unchanged.
 */
#include "pmu.h"

/* Values that tell the widths apart: bit 31 (P6 sign extension), EDX bits
 * (ignored on P6/C3), bit 39 (the top of 40), bit 47 (the top of 48) and
 * bits 48-63 (dropped everywhere). */
static const uint64_t ctr_values[] = {
	0x0000000012345678ull, 0xFFFFFFFF80000000ull, 0x0000000080000001ull,
	0x000000FF7FFFFFFFull, 0x0000008000000001ull, 0x0000800000000000ull,
	0xFFFFFFFFFFFFFFFFull, 0x0000FFFF0000FFFFull,
};

static void counter_case(const struct pmu_model *m)
{
	begin_case("writes: counters keep %s%u bits%s", m->sext32 ? "EAX sign-extended to " : "the low ",
		   m->width, m->sext32 ? " (EDX ignored)" : ", higher bits dropped without #GP");
	/* Counters must hold still while they are written and read back. */
	apply_writes(m->quiet);
	for (unsigned i = 0; i < MAX_CTRS; i++) {
		if (!(m->ctr_mask & (1u << i)))
			continue;
		for (unsigned k = 0; k < sizeof(ctr_values) / sizeof(ctr_values[0]); k++)
			expect_stored_at(__FILE_NAME__, __LINE__, m->ctr[i], ctr_values[k],
					 ctr_write_result(m, ctr_values[k]));
	}
	pmu_reset(m);
	end_case();
}

static void reserved_case(const struct pmu_model *m)
{
	begin_case("writes: hardware-reserved control bits raise #GP and change nothing");
	for (unsigned i = 0; i < 4 && m->hw_gp[i].msr; i++) {
		/* A known, non-zero value first, so "unchanged" means something. */
		if (m->stored[0].msr == m->hw_gp[i].msr)
			WR(m->stored[0].msr, m->stored[0].val);
		EXPECT_REFUSED(m->hw_gp[i].msr, m->hw_gp[i].val);
		pmu_reset(m);
	}
	for (unsigned i = 0; i < 4 && m->hw_gp[i].msr; i++)
		diag("#GP: %s", m->hw_gp[i].what);
	end_case();
}

static void stored_case(const struct pmu_model *m)
{
	begin_case("writes: every defined control bit is stored and read back");
	for (unsigned i = 0; i < 3 && m->stored[i].msr; i++) {
		EXPECT_STORED(m->stored[i].msr, m->stored[i].val);
		diag("stored: %s", m->stored[i].what);
	}
	pmu_reset(m);
	end_case();
}

/* c3.md: PERFCTR0 is a TSC alias on the real part, but vpmu does not own the
 * TSC: it reads 0 and stays 0. */
static void c3_perfctr0_case(const struct pmu_model *m)
{
	begin_case("writes: c3 PERFCTR0 (0xC1) reads 0 and does not advance (not a live TSC alias)");
	apply_writes(m->count[0].on);
	uint64_t a = RD(0xC1);
	spin_us(WORK_US);
	EXPECT_EQ(a, 0);
	EXPECT_EQ(RD(0xC1), 0);
	pmu_reset(m);
	end_case();
}

void test_writes(const struct pmu_model *m)
{
	if (m->style == STYLE_NONE) {
		case_skip("writes: counter and control write semantics", "%s has no PMU registers",
			  m->name);
		return;
	}
	counter_case(m);
	reserved_case(m);
	stored_case(m);
	if (m->style == STYLE_C3)
		c3_perfctr0_case(m);
}
