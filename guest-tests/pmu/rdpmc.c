/* SPDX-License-Identifier: MIT */
/*
 * Case group 9: RDPMC (docs/rdpmc.md).  What the guest's RDPMC returns depends
 * on the host's KVM, which the host reports (VPMU_UCALL_RDPMC_MODE):
 *  - exit (KVM with patches/kvm-rdpmc): every RDPMC exits and the model
 *    answers: the counter at its width for the indexes the CPU has, #GP for
 *    any other index and on a CPU without RDPMC (plain P5) (Intel SDM vol. 2,
 *    RDPMC; AMD APM vol. 3, RDPMC; docs/models/);
 *  - sync (stock kvm_amd): KVM answers ECX 0-3 from its four legacy counters,
 *    which the host loads with the virtual counters before each entry: the
 *    model's values (0 for an index the model lacks, where the CPU would #GP),
 *    #GP from 4 up;
 *  - stock (any other KVM): KVM answers itself, #GP or 0, never a virtual count.
 */
#include "pmu.h"

enum { MODE_EXIT = 1, MODE_SYNC = 2, MODE_STOCK = 3 };

/* Indexes the test reads: every counter index, past the counters, and high
 * ECX bits (bit 30: Intel's fixed counters, bit 31: the P4's fast read). */
static const uint32_t probe_ecx[] = { 0, 1, 2, 3, 4, 5, 7, 0x40000000u, 0x80000000u };
/* The P4 also: its counters 12 and 17, 18 (none), the fast read of counters
 * 1, 12, 17 and 18, and bit 30 with bit 31 (p4.md "RDPMC"; docs/rdpmc.md). */
static const uint32_t probe_p4[] = { 12, 17, 18, 31, 0x80000001u, 0x8000000Cu, 0x80000011u,
				     0x80000012u, 0xC0000000u };

#define P4_FAST_READ 0x80000000u

static bool rdpmc_has(const struct pmu_model *m, uint32_t ecx)
{
	if (m->style == STYLE_P4)
		return (ecx & ~P4_FAST_READ) < P4_NCTRS;
	return !m->no_rdpmc && ecx < MAX_CTRS && (m->ctr_mask & (1u << ecx));
}

/* Counter n's start value: one that shows the width (bit 39, sign extension
 * on the P6, bits above 32 elsewhere). */
static uint64_t start_value(unsigned n)
{
	return 0x000000FF80001234ull + n * 0x01010101ull;
}

static const char *mode_name(uint64_t mode)
{
	switch (mode) {
	case MODE_EXIT: return "the model answers (KVM's RDPMC exit)";
	case MODE_SYNC: return "KVM's legacy counters kept in step (stock kvm_amd)";
	case MODE_STOCK: return "KVM answers itself (stock KVM): never a virtual count";
	}
	return "unknown";
}

/* In exit mode a running counter reads fresh: between two RDMSRs around it. */
static void running_case(const struct pmu_model *m)
{
	uint8_t clock = m->count[0].clock & m->ctr_mask;
	if (!clock || m->no_rdpmc || !host_counts())
		return;
	unsigned i = (unsigned)__builtin_ctz(clock), ecx = rdpmc_index(m, i);
	apply_writes(m->count[0].on);
	spin_us(WORK_US / 5);
	uint64_t a = RD(m->ctr[i]), v = 0;
	if (rdpmc_safe(ecx, &v))
		FAIL("rdpmc(%u) of a running counter faulted (vector %u)", ecx, last_fault_vector());
	uint64_t b = RD(m->ctr[i]);
	uint64_t mask = ctr_width_mask(m);
	if (((v - a) & mask) > ((b - a) & mask))
		FAIL("rdpmc(%u) of a running counter: 0x%llx, not between RDMSR's 0x%llx and 0x%llx",
		     ecx, (unsigned long long)v, (unsigned long long)a, (unsigned long long)b);
	if (m->style == STYLE_P4) {
		/* perfctr's fast read: the low 32 bits, between two RDMSRs. */
		if (rdpmc_safe(ecx | P4_FAST_READ, &v))
			FAIL("rdpmc(0x%x) of a running counter faulted (vector %u)", ecx | P4_FAST_READ,
			     last_fault_vector());
		uint64_t c = RD(m->ctr[i]);
		if (v >> 32 || ((v - (uint32_t)b) & 0xFFFFFFFFu) > ((c - b) & 0xFFFFFFFFu))
			FAIL("rdpmc(0x%x) of a running counter: 0x%llx, not the low 32 bits of a value "
			     "between RDMSR's 0x%llx and 0x%llx", ecx | P4_FAST_READ,
			     (unsigned long long)v, (unsigned long long)b, (unsigned long long)c);
	}
}

/* What RDPMC(ecx) must return in exit mode, when rdpmc_has(): the counter at
 * the model's width, on the P4 with bit 31 its low 32 bits. */
static uint64_t rdpmc_want(const struct pmu_model *m, uint32_t ecx)
{
	uint64_t v = ctr_write_result(m, start_value(ecx & ~P4_FAST_READ));
	return (m->style == STYLE_P4 && (ecx & P4_FAST_READ)) ? (uint32_t)v : v;
}

static void probe(const struct pmu_model *m, uint64_t mode, uint32_t ecx)
{
	uint64_t v = 0;
	int r = rdpmc_safe(ecx, &v);
	if (r == -2) {
		FAIL("rdpmc(0x%x) raised exception %u, not #GP", ecx, last_fault_vector());
		return;
	}
	bool gp = r == -1;
	/* sync: KVM's four legacy counters answer ECX 0-3, #GP from 4 up. */
	bool has = rdpmc_has(m, ecx) && (mode != MODE_SYNC || ecx < 4);
	uint64_t want = has ? rdpmc_want(m, ecx) : 0;
	if (mode == MODE_EXIT || (mode == MODE_SYNC && ecx >= 4)) {
		if (has && gp)
			FAIL("rdpmc(0x%x): #GP, expected the counter (0x%llx)", ecx,
			     (unsigned long long)want);
		else if (has && v != want)
			FAIL("rdpmc(0x%x) = 0x%llx, expected 0x%llx (RDMSR's value at %u bits)",
			     ecx, (unsigned long long)v, (unsigned long long)want,
			     (ecx & P4_FAST_READ) ? 32 : m->width);
		else if (!has && !gp)
			FAIL("rdpmc(0x%x) = 0x%llx, expected #GP (%s)", ecx, (unsigned long long)v,
			     m->no_rdpmc ? "this CPU has no RDPMC" :
			     mode == MODE_SYNC ? "KVM's legacy counters are 0-3" : "no such counter");
	} else if (mode == MODE_SYNC) {
		if (gp || v != want)
			FAIL("rdpmc(0x%x) = %s0x%llx, expected 0x%llx from KVM's counter %u",
			     ecx, gp ? "#GP " : "", (unsigned long long)v, (unsigned long long)want, ecx);
	} else if (!gp && v != 0) {
		FAIL("rdpmc(0x%x) = 0x%llx: stock KVM returned a value it cannot have", ecx,
		     (unsigned long long)v);
	}
}

void test_rdpmc(const struct pmu_model *m)
{
	uint64_t mode = host_rdpmc_mode();
	begin_case("rdpmc: %s", mode_name(mode));
	if (mode < MODE_EXIT || mode > MODE_STOCK) {
		FAIL("the host did not say how RDPMC reaches the vPMU (mode %llu)",
		     (unsigned long long)mode);
		end_case();
		return;
	}
	/* Stopped counters holding start_value(n). */
	apply_writes(m->quiet);
	if (m->style == STYLE_P4) {
		for (unsigned n = 0; n < P4_NCTRS; n++)
			WR(P4_CTR(n), start_value(n));
	} else {
		for (unsigned i = 0; i < MAX_CTRS; i++)
			if (m->ctr_mask & (1u << i))
				WR(m->ctr[i], start_value(i));
	}
	for (unsigned k = 0; k < sizeof(probe_ecx) / sizeof(probe_ecx[0]); k++)
		probe(m, mode, probe_ecx[k]);
	if (m->style == STYLE_P4)
		for (unsigned k = 0; k < sizeof(probe_p4) / sizeof(probe_p4[0]); k++)
			probe(m, mode, probe_p4[k]);
	if (mode == MODE_EXIT)
		running_case(m);
	pmu_reset(m);
	end_case();
}
