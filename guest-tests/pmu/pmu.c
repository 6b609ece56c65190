/* SPDX-License-Identifier: MIT */
#include "pmu.h"

void cpu_identify(struct cpu_ident *id)
{
	uint32_t r[4];
	memset(id, 0, sizeof(*id));
	cpuid(0, 0, r);
	id->max_leaf = r[0];
	memcpy(id->vendor, &r[1], 4);
	memcpy(id->vendor + 4, &r[3], 4);
	memcpy(id->vendor + 8, &r[2], 4);
	cpuid(1, 0, r);
	/* Linux's x86_family()/x86_model(): the extended family is added for
	 * family 0xF, the extended model for family >= 6. */
	id->stepping = r[0] & 0xF;
	id->model = (r[0] >> 4) & 0xF;
	id->family = (r[0] >> 8) & 0xF;
	if (id->family == 0xF)
		id->family += (r[0] >> 20) & 0xFF;
	if (id->family >= 6)
		id->model += ((r[0] >> 16) & 0xF) << 4;
	if (id->max_leaf >= 0xA) {
		cpuid(0xA, 0, r);
		id->leaf_a_eax = r[0];
	}
	cpuid(0x80000000, 0, r);
	id->max_ext_leaf = r[0];
	if (id->max_ext_leaf >= 0x80000001 && id->max_ext_leaf < 0x8000FFFF) {
		cpuid(0x80000001, 0, r);
		id->perfctr_core = r[2] & (1u << 23);
	}
}

const char sim_skip_reason[] = "backend=sim: nothing advances the host counters under vpmu-run";

bool host_counts(void)
{
	return strcmp(opts.backend, "sim") != 0 && strcmp(opts.counts, "none") != 0;
}

bool host_counts_all(void)
{
	return host_counts() && strcmp(opts.counts, "clock") != 0;
}

void expect_counting_here(const struct pmu_model *m, const uint64_t a[MAX_CTRS],
			  const uint64_t b[MAX_CTRS], uint8_t counting, uint8_t clock,
			  uint8_t frozen, const char *what)
{
	uint8_t here = host_counts_all() ? counting : (uint8_t)(counting & clock);
	expect_counting(m, a, b, here, (uint8_t)(frozen | (counting & ~here)), what);
}

void expect_event_counted_at(const char *f, int l, const struct pmu_model *m, uint64_t a,
			     uint64_t b, bool clock_event, const char *what)
{
	if (clock_event || host_counts_all()) {
		if (!ctr_advanced(m, a, b))
			expect_fail_at(f, l, "%s did not advance: 0x%llx -> 0x%llx", what,
				       (unsigned long long)a, (unsigned long long)b);
	} else if (a != b) {
		expect_fail_at(f, l, "%s moved on a host that cannot count it: 0x%llx -> 0x%llx",
			       what, (unsigned long long)a, (unsigned long long)b);
	}
}

uint64_t rd_at(const char *f, int l, uint32_t msr)
{
	uint64_t v;
	if (rdmsr_safe(msr, &v))
		expect_fail_at(f, l, "rdmsr(0x%x) raised exception %u", msr, last_fault_vector());
	return v;
}

void wr_at(const char *f, int l, uint32_t msr, uint64_t v)
{
	if (wrmsr_safe(msr, v))
		expect_fail_at(f, l, "wrmsr(0x%x, 0x%llx) raised exception %u%s", msr,
			       (unsigned long long)v, last_fault_vector(),
			       opts.strict ? " (strict mode)" : "");
}

void expect_rd_gp_at(const char *f, int l, uint32_t msr)
{
	uint64_t v;
	int r = rdmsr_safe(msr, &v);
	if (r != -1)
		expect_fail_at(f, l, "rdmsr(0x%x): expected #GP, got %s 0x%llx", msr,
			       r ? "another exception" : "the value", (unsigned long long)v);
}

void expect_refused_at(const char *f, int l, uint32_t msr, uint64_t v)
{
	uint64_t before, after;
	int readable = rdmsr_safe(msr, &before) == 0;
	int r = wrmsr_safe(msr, v);
	if (r != -1) {
		expect_fail_at(f, l, "wrmsr(0x%x, 0x%llx): expected #GP, got %s", msr,
			       (unsigned long long)v, r ? "another exception" : "no fault");
		return;
	}
	if (readable && (rdmsr_safe(msr, &after) || after != before))
		expect_fail_at(f, l, "wrmsr(0x%x, 0x%llx) raised #GP but changed the register: "
			       "0x%llx before, 0x%llx after", msr, (unsigned long long)v,
			       (unsigned long long)before, (unsigned long long)after);
}

void expect_stored_at(const char *f, int l, uint32_t msr, uint64_t v, uint64_t back)
{
	uint64_t got;
	if (wrmsr_safe(msr, v)) {
		expect_fail_at(f, l, "wrmsr(0x%x, 0x%llx): expected it to be stored, got #GP%s", msr,
			       (unsigned long long)v, opts.strict ? " (strict mode)" : "");
		return;
	}
	if (rdmsr_safe(msr, &got) || got != back)
		expect_fail_at(f, l, "wrmsr(0x%x, 0x%llx): expected to read back 0x%llx, got 0x%llx",
			       msr, (unsigned long long)v, (unsigned long long)back,
			       (unsigned long long)got);
}

void expect_rule_at(const char *f, int l, uint32_t msr, uint64_t v)
{
	if (opts.strict)
		expect_refused_at(f, l, msr, v);
	else
		expect_stored_at(f, l, msr, v, v);
}

void apply_writes(const struct msr_write *w)
{
	for (unsigned i = 0; i < MAX_WRITES && w[i].msr; i++)
		WR(w[i].msr, w[i].val);
}

void pmu_reset(const struct pmu_model *m)
{
	if (m->style == STYLE_P4) {
		/* Cases program CCCRs and the PEBS pair outside the table's four
		 * counters: clear every CCCR (OVF included) and the pair. */
		for (unsigned i = 0; i < P4_NCTRS; i++)
			WR(P4_CCCR(i), 0);
		WR(P4_PEBS_ENABLE, 0);
		WR(P4_PEBS_MATRIX_VERT, 0);
	}
	apply_writes(m->quiet);
	for (unsigned i = 0; i < MAX_CTRS; i++)
		if (m->ctr_mask & (1u << i))
			WR(m->ctr[i], 0);
}

void pmu_stop(const struct pmu_model *m)
{
	switch (m->style) {
	case STYLE_P6:
		/* p6.md: EN lives in EVNTSEL0 only and enables both counters; a
		 * read-modify-write leaves EVNTSEL1 as it was. */
		WR(0x186, RD(0x186) & ~(uint64_t)EVTSEL_EN);
		break;
	case STYLE_K7:
	case STYLE_P4:
		/* Each control's own enable: EVNTSEL EN, or CCCR ENABLE (p4.md). */
		for (unsigned i = 0; i < m->nctl; i++)
			WR(m->ctl[i], RD(m->ctl[i]) & ~ctl_en_bit(m));
		break;
	case STYLE_CESR:
	case STYLE_C3:
		/* CC=000 (Intel, Cyrix); event 0 where nothing can stop the
		 * counters (WinChip, C3: model.h stop_what). */
		WR(m->ctl[0], 0);
		break;
	case STYLE_NONE:
		break;
	}
}

uint64_t ctr_width_mask(const struct pmu_model *m)
{
	return m->width >= 64 ? ~0ull : (1ull << m->width) - 1;
}

uint64_t ctl_en_bit(const struct pmu_model *m)
{
	return m->en_bit ? m->en_bit : EVTSEL_EN;
}

unsigned rdpmc_index(const struct pmu_model *m, unsigned i)
{
	return m->style == STYLE_P4 ? m->ctr[i] - P4_CTR(0) : i;
}

unsigned cpu_model(const struct pmu_model *m)
{
	return opts.cpumodel >= 0 ? (unsigned)opts.cpumodel : m->model;
}

bool lvtpc_automask(const struct pmu_model *m)
{
	unsigned model = cpu_model(m);
	/* Family 6: the Pentium M (9, 13) and later parts (14 on); the Pentium III
	 * Xeon (10) and Tualatin (11) are P-III class (vpmu/models/p6.c). */
	return m->intel_lvtpc &&
	       (m->family == 15 || (m->family == 6 && (model == 9 || model >= 13)));
}

uint64_t ctr_write_result(const struct pmu_model *m, uint64_t v)
{
	if (m->sext32)
		v = (uint32_t)v | ((v & 0x80000000u) ? ~0xFFFFFFFFull : 0);
	return v & ctr_width_mask(m);
}

void read_ctrs(const struct pmu_model *m, uint64_t v[MAX_CTRS])
{
	for (unsigned i = 0; i < MAX_CTRS; i++)
		v[i] = (m->ctr_mask & (1u << i)) ? RD(m->ctr[i]) : 0;
}

bool ctr_advanced(const struct pmu_model *m, uint64_t a, uint64_t b)
{
	uint64_t d = (b - a) & ctr_width_mask(m);
	return d != 0 && d < (ctr_width_mask(m) >> 1);
}

void expect_counting(const struct pmu_model *m, const uint64_t a[MAX_CTRS],
		     const uint64_t b[MAX_CTRS], uint8_t counting, uint8_t frozen,
		     const char *what)
{
	for (unsigned i = 0; i < MAX_CTRS; i++) {
		uint8_t bit = (uint8_t)(1u << i);
		if (!(m->ctr_mask & bit))
			continue;
		if ((counting & bit) && !ctr_advanced(m, a[i], b[i]))
			FAIL("%s: counter %u (msr 0x%x) did not advance: 0x%llx -> 0x%llx", what, i,
			     m->ctr[i], (unsigned long long)a[i], (unsigned long long)b[i]);
		if ((frozen & bit) && a[i] != b[i])
			FAIL("%s: counter %u (msr 0x%x) moved: 0x%llx -> 0x%llx", what, i, m->ctr[i],
			     (unsigned long long)a[i], (unsigned long long)b[i]);
	}
}
