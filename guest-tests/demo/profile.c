/* SPDX-License-Identifier: MIT */
/*
 * The demonstration guest of `make demo` (README, the main job): a profiled
 * workload.  vCPU 0 samples its cycles with overflow interrupts exactly as
 * Linux perf's legacy drivers program the counters (arch/x86/events/intel/p6.c
 * and amd/core.c: P6 EVNTSEL0 = 0x530079 with counter = -period, AMD
 * PERFEVTSEL0 = 0x530076) and attributes each sample's interrupted EIP to the
 * workload function it hit; a second counter counts instructions perfctr-style
 * (a-mode).  vCPU 1 runs a perfctr-style a-mode count of its own.  The profile
 * goes to the console; vpmu-run prints the host's accounting after it.
 */
#include "guest.h"

/* ---- the workload: three kernels kept in source order (no_reorder) in one
 * section, so [start of one, start of the next) is a function's code. */
#define WORKLOAD __attribute__((noinline, no_reorder, section(".text.demo_workload")))

static uint8_t buffer[32768];
static uint32_t numbers[1200];
static uint8_t composite[60000];
static volatile uint32_t sink;

WORKLOAD static uint32_t crc32_buffer(void)
{
	uint32_t crc = 0xFFFFFFFFu;
	for (size_t i = 0; i < sizeof(buffer); i++) {
		crc ^= buffer[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
	}
	return ~crc;
}

WORKLOAD static uint32_t insertion_sort(void)
{
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;   /* xorshift32 */
		numbers[i] = x;
	}
	for (size_t i = 1; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		uint32_t v = numbers[i];
		size_t j = i;
		for (; j > 0 && numbers[j - 1] > v; j--)
			numbers[j] = numbers[j - 1];
		numbers[j] = v;
	}
	return numbers[0];
}

WORKLOAD static uint32_t sieve_primes(void)
{
	uint32_t count = 0;
	memset(composite, 0, sizeof(composite));
	for (uint32_t i = 2; i < sizeof(composite); i++) {
		if (composite[i])
			continue;
		count++;
		for (uint32_t j = i * 2; j < sizeof(composite); j += i)
			composite[j] = 1;
	}
	return count;
}

WORKLOAD static void workload_end(void) { }

struct sym {
	const char *name;
	uintptr_t start;
	uint32_t samples;
};
static struct sym syms[] = {
	{ "crc32_buffer", (uintptr_t)crc32_buffer, 0 },
	{ "insertion_sort", (uintptr_t)insertion_sort, 0 },
	{ "sieve_primes", (uintptr_t)sieve_primes, 0 },
};
#define NSYMS (sizeof(syms) / sizeof(syms[0]))
static volatile uint32_t samples_total, samples_other;

/* ---- the PMU, as Linux perf's legacy drivers program it ---- */
struct pmu_layout {
	const char *driver;
	uint32_t evntsel0, evntsel1, perfctr0, perfctr1;
	uint64_t cycles_sampling;   /* INT | EN | OS | USR | cycles (Linux perf) */
	uint64_t instr_counting;    /* EN | OS | USR | instructions, no INT (perfctr a-mode) */
	uint64_t width_mask;
};
static const struct pmu_layout p6_layout = {
	"Linux p6 (arch/x86/events/intel/p6.c)", 0x186, 0x187, 0xC1, 0xC2,
	0x530079, 0x0300C0, (1ull << 40) - 1,   /* EN lives in EVNTSEL0 only */
};
static const struct pmu_layout amd_layout = {
	"Linux amd legacy (arch/x86/events/amd/core.c)", 0xC0010000, 0xC0010001, 0xC0010004,
	0xC0010005, 0x530076, 0x4300C0, (1ull << 48) - 1,
};
static const struct pmu_layout *pmu;
/* 1 ms of vCPU time per sample: natively about 1000 samples a second; in the
 * nested TCG tier the kick that delivers a PMI takes milliseconds itself
 * (docs/performance.md), so a longer period loses little there. */
static uint64_t period = 1000000;
#define ROUNDS 300

static void pmi_handler(struct irq_frame *f)
{
	/* Linux's handler rewrites the LVTPC first: on the CPUs that auto-mask it
	 * (Pentium M, P4) an overflow while it is masked would be lost. */
	apic_write(APIC_LVTPC, VEC_PMI);
	samples_total++;
	uintptr_t eip = f->eip;
	int hit = -1;
	for (unsigned i = 0; i < NSYMS; i++)
		if (eip >= syms[i].start && eip < (i + 1 < NSYMS ? syms[i + 1].start :
						   (uintptr_t)workload_end))
			hit = (int)i;
	if (hit >= 0)
		syms[hit].samples++;
	else
		samples_other++;
	/* perf's handler: restart the period. */
	wrmsr_safe(pmu->perfctr0, (0 - period) & pmu->width_mask);
	apic_eoi();
}

/* vCPU 1: a perfctr-style a-mode count of instructions over the same kernels. */
static volatile uint64_t ap_instructions;
static void ap_count(void *arg)
{
	(void)arg;
	wrmsr_safe(pmu->perfctr0, 0);
	wrmsr_safe(pmu->evntsel0, pmu->instr_counting | (pmu == &p6_layout ? 0x400000 : 0));
	sink += crc32_buffer() + insertion_sort();
	wrmsr_safe(pmu->evntsel0, 0);
	uint64_t v = 0;
	rdmsr_safe(pmu->perfctr0, &v);
	ap_instructions = v;
}

static const struct pmu_layout *detect(void)
{
	uint32_t r[4];
	char vendor[13];
	cpuid(0, 0, r);
	memcpy(vendor, &r[1], 4);
	memcpy(vendor + 4, &r[3], 4);
	memcpy(vendor + 8, &r[2], 4);
	vendor[12] = 0;
	cpuid(1, 0, r);
	unsigned family = (r[0] >> 8) & 0xF;
	/* Linux's vendor dispatch (arch/x86/events/core.c). */
	if (!strcmp(vendor, "GenuineIntel") && family == 6)
		return &p6_layout;
	if (!strcmp(vendor, "AuthenticAMD") && family >= 6)
		return &amd_layout;
	return NULL;
}

void guest_main(void)
{
	char line[128];
	pmu = detect();
	if (!pmu) {
		snprintf(line, sizeof(line), "vpmu demo: model %s has no PMU that Linux perf "
			 "samples with (P6, K7 and K8 do): nothing to profile", opts.model);
		console_line(line);
		guest_exit();
	}
	for (size_t i = 0; i < sizeof(buffer); i++)
		buffer[i] = (uint8_t)(i * 7 + 3);

	bool ap = opts.vcpus > 1 && smp_wait_online(2, 2000) && ap_run(1, ap_count, NULL);

	set_irq_handler(VEC_PMI, pmi_handler);
	apic_enable();
	apic_write(APIC_LVTPC, VEC_PMI);
	wrmsr_safe(pmu->perfctr0, (0 - period) & pmu->width_mask);
	wrmsr_safe(pmu->perfctr1, 0);
	wrmsr_safe(pmu->evntsel1, pmu->instr_counting);
	wrmsr_safe(pmu->evntsel0, pmu->cycles_sampling);
	sti();
	uint64_t t0 = rdtsc();
	for (int round = 0; round < ROUNDS; round++)
		sink += crc32_buffer() + insertion_sort() + sieve_primes();
	uint64_t t1 = rdtsc();
	/* Off in Linux's order: the global enable last on P6. */
	wrmsr_safe(pmu->evntsel1, 0);
	wrmsr_safe(pmu->evntsel0, 0);
	cli();
	uint64_t instructions = 0;
	rdmsr_safe(pmu->perfctr1, &instructions);

	snprintf(line, sizeof(line), "vpmu demo: %s guest, driver sequence of %s", opts.model,
		 pmu->driver);
	console_line(line);
	snprintf(line, sizeof(line), "  cycles sampled every %llu events with PMIs on vector 0x%x; "
		 "%llu TSC ticks", (unsigned long long)period, VEC_PMI, (unsigned long long)(t1 - t0));
	console_line(line);
	/* What the samples stand for on this host (vpmu-run's counts=,
	 * docs/integration.md "What the host counts"). */
	bool all = !strcmp(opts.counts, "all") || !opts.counts[0];
	if (!strcmp(opts.counts, "clock"))
		console_line("  (no host PMU: cycles are the vCPU thread's time at the guest's TSC rate, "
			     "a time profile; instructions are not countable here)");
	else if (!strcmp(opts.counts, "none"))
		console_line("  (the host counts nothing: no samples)");
	snprintf(line, sizeof(line), "  %8s  %6s  %s", "samples", "share", "function");
	console_line(line);
	uint32_t total = samples_total ? samples_total : 1;
	for (unsigned i = 0; i < NSYMS; i++) {
		uint32_t permille = syms[i].samples * 1000 / total;
		snprintf(line, sizeof(line), "  %8u  %3u.%u%%  %s", syms[i].samples, permille / 10,
			 permille % 10, syms[i].name);
		console_line(line);
	}
	snprintf(line, sizeof(line), "  %8u  %6s  (outside the workload)", samples_other, "");
	console_line(line);
	if (all)
		snprintf(line, sizeof(line), "  instructions counted by counter 1 (a-mode): %llu",
			 (unsigned long long)instructions);
	else
		snprintf(line, sizeof(line), "  instructions (counter 1, a-mode): not countable on "
			 "this host (reads %llu)", (unsigned long long)instructions);
	console_line(line);
	if (ap && ap_wait_done(1, 20000) && !all) {
		snprintf(line, sizeof(line), "  vCPU 1's instructions (perfctr a-mode): not countable on "
			 "this host (reads %llu)", (unsigned long long)ap_instructions);
		console_line(line);
	} else if (ap && ap_wait_done(1, 20000)) {
		snprintf(line, sizeof(line), "  vCPU 1 counted %llu instructions (perfctr a-mode) over "
			 "crc32_buffer + insertion_sort", (unsigned long long)ap_instructions);
		console_line(line);
	}
	guest_exit();
}
