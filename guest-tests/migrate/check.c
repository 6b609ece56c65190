/* SPDX-License-Identifier: MIT */
/*
 * tests/qemu.t's migration check: a guest that counts and samples for about
 * RUN_S seconds while the host migrates it, and checks what a profiler
 * relies on across the move.  Counter 0 samples cycles from -PERIOD with its
 * overflow interrupt (perfctr's i-mode; LVTPC fixed vector 0xEE, EOI in the
 * handler); counter 1 counts cycles from 0 without one, and is read back
 * (RDMSR, an exit to the vPMU) as often as the loop can.  The PMI handler
 * reads counter 0 (the events since its wrap), reloads it with that minus
 * PERIOD, and reads counter 1.  The cases:
 *   - counter 1 never goes back (every read is at least the one before);
 *   - every PMI finds counter 0 wrapped (none spurious: a PMI delivered twice
 *     finds it reloaded, negative);
 *   - no PMI is lost: between two PMIs, and from the last to the end,
 *     counter 1 moved PERIOD give or take PERIOD/2 (a lost PMI leaves counter 0
 *     counting up from its wrap with nothing to reload it: a gap of its whole
 *     range), and counter 0 ends reloaded, negative;
 *   - the two counters agree: counter 1's count and counter 0's (its PMIs
 *     times PERIOD plus its count since the last reload) differ by less than
 *     PERIOD/2 (a count lost or replayed by the move shows here).
 * Progress goes to the console every PROGRESS PMIs, so that the host sees
 * which part ran on which side.  P6 and K7 layouts, by CPUID vendor (QEMU's
 * pentium3,vpmu=p6 and athlon,vpmu=k7).
 */
#include "guest.h"

/* Events between PMIs: far above the PMI's latency (in the nested tier, with
 * the task clock counting, up to 24 million events after the wrap:
 * pmu-tests' "events since the wrap" marks), so that the reload is negative. */
#define PERIOD    500000000u
#define RUN_S     12u         /* seconds at TSC_PER_US_ASSUMED */
#define PROGRESS  2u

struct layout {
	const char *name;
	uint32_t sel0, sel1, ctr0, ctr1;
	uint64_t sample, count;   /* event selects: cycles, EN, OS+USR; INT on the sampler */
	unsigned width;
};

static const struct layout p6 = { "p6", 0x186, 0x187, 0xC1, 0xC2, 0x530079, 0x030079, 40 };
static const struct layout k7 = { "k7", 0xC0010000, 0xC0010001, 0xC0010004, 0xC0010005,
				  0x530076, 0x430076, 48 };

static struct {
	const struct layout *l;
	uint64_t mask, top;
	volatile uint32_t pmis, spurious, bad_access;
	volatile uint64_t last_c1, gap_min, gap_max;
	volatile uint32_t gap_min_at, gap_max_at;   /* the PMIs that ended them */
} st;

static uint64_t rd(uint32_t msr)
{
	uint64_t v = 0;
	if (rdmsr_safe(msr, &v))
		st.bad_access++;
	return v;
}

static void wr(uint32_t msr, uint64_t v)
{
	if (wrmsr_safe(msr, v))
		st.bad_access++;
}

static void gap(uint64_t c1)
{
	uint64_t g = c1 - st.last_c1;
	if (g < st.gap_min)
		st.gap_min = g, st.gap_min_at = st.pmis;
	if (g > st.gap_max)
		st.gap_max = g, st.gap_max_at = st.pmis;
	st.last_c1 = c1;
}

static void on_pmi(struct irq_frame *f)
{
	(void)f;
	uint64_t v = rd(st.l->ctr0);
	if (v & st.top) {
		st.spurious++;
	} else {
		/* the events since the wrap stay counted: reload v - PERIOD (P6
		 * sign-extends the low 32 bits, which hold it) */
		wr(st.l->ctr0, (v - PERIOD) & st.mask);
		st.pmis++;
		gap(rd(st.l->ctr1));
		if (st.pmis % PROGRESS == 0)
			diag("migrate-check: %u PMIs", st.pmis);
	}
	apic_eoi();
}

void guest_main(void)
{
	uint32_t r[4];
	cpuid(0, 0, r);
	st.l = r[1] == 0x68747541 ? &k7 : &p6;   /* "Auth"enticAMD */
	st.mask = (1ull << st.l->width) - 1;
	st.top = 1ull << (st.l->width - 1);
	st.gap_min = ~0ull;
	diag("migrate-check: %s layout, PMI every %u cycles, about %u s", st.l->name, PERIOD, RUN_S);

	apic_enable();
	apic_write(APIC_LVTPC, VEC_PMI);
	set_irq_handler(VEC_PMI, on_pmi);
	wr(st.l->sel0, 0);
	wr(st.l->sel1, 0);
	wr(st.l->ctr0, (0 - (uint64_t)PERIOD) & st.mask);
	wr(st.l->ctr1, 0);
	sti();
	/* P6: EVNTSEL0's EN starts both counters at once (EVNTSEL1's EN is
	 * reserved); K7: counter 1 first, so that it sees all counter 0 sees. */
	wr(st.l->sel1, st.l->count);
	wr(st.l->sel0, st.l->sample);

	uint64_t last = 0, reads = 0, back = 0, back_from = 0, back_to = 0, back_pmis = 0;
	uint64_t end = rdtsc() + (uint64_t)RUN_S * 1000000u * TSC_PER_US_ASSUMED;
	while (rdtsc() < end) {
		uint64_t c1 = rd(st.l->ctr1);
		if (c1 < last && !back++)
			back_from = last, back_to = c1, back_pmis = st.pmis;
		last = c1;
		reads++;
	}
	cli();
	wr(st.l->sel0, 0);
	wr(st.l->sel1, 0);
	uint64_t c0 = rd(st.l->ctr0), c1 = rd(st.l->ctr1);
	gap(c1 + ((st.mask + 1 - c0) & st.mask));   /* to where counter 0 would wrap */

	case_result("migrate-check: no access to the PMU faulted", st.bad_access == 0);
	case_result("migrate-check: counter 1 never went back", back == 0 && reads > 0);
	diag("migrate-check: %llu reads of counter 1, %llu went back (first: %llu to %llu, "
	     "after %llu PMIs)", (unsigned long long)reads, (unsigned long long)back,
	     (unsigned long long)back_from, (unsigned long long)back_to,
	     (unsigned long long)back_pmis);
	case_result("migrate-check: every PMI found counter 0 wrapped (none spurious)",
		    st.spurious == 0 && st.pmis > 0);
	bool ends_armed = (c0 & st.top) != 0;
	case_result("migrate-check: no PMI lost: counter 1 moved PERIOD +- PERIOD/2 between PMIs, "
		    "and counter 0 ends reloaded",
		    ends_armed && st.pmis > 0 && st.gap_min > PERIOD / 2 &&
			    st.gap_max < PERIOD + PERIOD / 2);
	diag("migrate-check: %u PMIs, %u spurious; counter 1 between PMIs: %llu (before PMI %u) to "
	     "%llu (before PMI %u); counter 0 at the end 0x%llx", st.pmis, st.spurious,
	     (unsigned long long)st.gap_min, st.gap_min_at, (unsigned long long)st.gap_max,
	     st.gap_max_at, (unsigned long long)c0);
	/* counter 0's count: from -PERIOD to its value, plus PERIOD per reload */
	uint64_t c0_count = ((c0 + PERIOD) & st.mask) + (uint64_t)st.pmis * PERIOD;
	uint64_t diff = c1 > c0_count ? c1 - c0_count : c0_count - c1;
	case_result("migrate-check: the counters agree within PERIOD/2 (no count lost or replayed)",
		    diff < PERIOD / 2);
	diag("migrate-check: counter 1 counted %llu, counter 0 %llu", (unsigned long long)c1,
	     (unsigned long long)c0_count);
	guest_exit();
}
