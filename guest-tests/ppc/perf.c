// SPDX-License-Identifier: MIT
/*
 * The perf checks of the PowerPC guest's /init: Linux's MPC7450-family driver
 * (arch/powerpc/perf/mpc7450-pmu.c on arch/powerpc/perf/core-book3s.c)
 * counting, sampling and taking six events at once, on the virtual PMU.
 *
 * Expected values come from the loops' construction (vpmu-init.h: two
 * instructions per iteration) and from the vPMU's documented cycle rule
 * under QEMU's TCG: one cycle per instruction retired (synthetic CPI 1), so
 * cycles count exactly as instructions do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vpmu-init.h"

#define N1 1000000ul
#define N2 5000000ul
/* The loop's instructions between the two lengths. */
#define LOOP_DIFF (2 * (N2 - N1))

struct rd {
	uint64_t value, enabled, running;
};

/* One measured region: the counter reset and enabled, N iterations (or N
 * getppid system calls), disabled and read.  Both lengths run this same code.
 * A group is enabled and disabled through its leader alone, its members
 * opened enabled: they then start and stop with it, in one PMU transaction.
 * (PERF_IOC_FLAG_GROUP would disable each member too, and enable them one
 * by one after the leader: the kernel's instructions in between would count
 * in the leader alone.) */
static __attribute__((noinline)) int measure(int fd, unsigned long n, int syscalls, struct rd *r)
{
	ioctl(fd, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	if (syscalls)
		while (n--)
			syscall(SYS_getppid);
	else
		loop(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	return read(fd, r, sizeof(*r)) == sizeof(*r) ? 0 : -1;
}

static int open_or_fail(const char *check, struct perf_event_attr *a, int group, const char *what)
{
	int fd = perf_open(a, group);

	if (fd < 0)
		fail(check, "a file descriptor", strerror(errno), "perf_event_open(%s)", what);
	return fd;
}

/* The growth of a user-only count from N1 to N2 iterations (a warm-up run
 * first: the first touch of a page is not part of the loop's cost). */
static void exact_growth(const char *what, uint64_t config)
{
	struct perf_event_attr a;
	struct rd r0, r1, r2;
	int fd;

	perf_attr(&a, PERF_TYPE_HARDWARE, config, 0, 1);
	if ((fd = open_or_fail("count", &a, -1, what)) < 0)
		return;
	if (measure(fd, N1, 0, &r0) || measure(fd, N1, 0, &r1) || measure(fd, N2, 0, &r2)) {
		fail("count", "a read", strerror(errno), "read(%s)", what);
	} else {
		info("count", "%s: %llu at N=%lu, %llu at N=%lu", what, (unsigned long long)r1.value, N1,
		     (unsigned long long)r2.value, N2);
		expect(r2.value - r1.value == LOOP_DIFF && r1.value >= 2 * N1, "count", LOOP_DIFF,
		       r2.value - r1.value,
		       "%s grows by exactly 2*(N2-N1) from N1=%lu to N2=%lu loop iterations", what, N1, N2);
		expect(r2.enabled == r2.running && r2.enabled > 0, "count", r2.enabled, r2.running,
		       "%s ran on a PMC the whole time it was enabled", what);
	}
	close(fd);
}

/* Kernel-only counts: a user loop adds nothing but the interrupts it takes;
 * system calls add their supervisor-state paths. */
static void kernel_only(void)
{
	/* A generous bound on one interrupt in supervisor state (a decrementer
	 * tick with its softirqs and a possible reschedule are a few thousand
	 * instructions); the loop's 8,000,000 user instructions are far above
	 * it for any plausible number of ticks. */
	const uint64_t per_irq = 50000;
	/* Each system call runs at least the entry and exit paths of
	 * arch/powerpc/kernel/entry_32.S and interrupt.c in supervisor state,
	 * well over 20 instructions. */
	const uint64_t per_sc = 20;
	const unsigned long m1 = 1000, m2 = 5000;
	struct perf_event_attr a;
	struct rd r1, r2;
	uint64_t i0, i1;
	int fd;

	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, 0);
	if ((fd = open_or_fail("count", &a, -1, "instructions:k")) < 0)
		return;
	measure(fd, N1, 0, &r1);
	measure(fd, N1, 0, &r1);
	i0 = irq_all();
	measure(fd, N2, 0, &r2);
	i1 = irq_all();
	info("count", "instructions:k of the user loop: %llu at N=%lu, %llu at N=%lu, %llu interrupts",
	     (unsigned long long)r1.value, N1, (unsigned long long)r2.value, N2, (unsigned long long)(i1 - i0));
	expect(r2.value <= r1.value + per_irq * (i1 - i0 + 1), "count", r1.value + per_irq * (i1 - i0 + 1),
	       r2.value, "instructions:k of a user loop 5x longer stays within %llu per interrupt taken",
	       (unsigned long long)per_irq);
	measure(fd, m1, 1, &r1);
	measure(fd, m1, 1, &r1);
	measure(fd, m2, 1, &r2);
	info("count", "instructions:k of getppid loops: %llu at M=%lu, %llu at M=%lu", (unsigned long long)r1.value,
	     m1, (unsigned long long)r2.value, m2);
	expect(r2.value >= r1.value + per_sc * (m2 - m1), "count", r1.value + per_sc * (m2 - m1), r2.value,
	       "instructions:k grows by at least %llu per system call", (unsigned long long)per_sc);
	close(fd);
}

/* cycles and instructions as one group over one region: equal under CPI 1. */
static void cycles_group(void)
{
	struct perf_event_attr a;
	struct {
		uint64_t nr, enabled, running, v[2];
	} g;
	int lead, fd;

	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0);
	a.read_format |= PERF_FORMAT_GROUP;
	if ((lead = open_or_fail("count", &a, -1, "cycles (group leader)")) < 0)
		return;
	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 0);
	a.disabled = 0;
	if ((fd = open_or_fail("count", &a, lead, "instructions (in the group)")) >= 0) {
		struct rd dummy;

		measure(lead, N1, 0, &dummy); /* warm-up; reads the group's start */
		measure(lead, N1, 0, &dummy);
		if (read(lead, &g, sizeof(g)) != sizeof(g) || g.nr != 2)
			fail("count", "a group of 2", strerror(errno), "read of the cycles+instructions group");
		else
			expect(g.v[0] == g.v[1] && g.v[1] >= 2 * N1, "count", g.v[1], g.v[0],
			       "cycles == instructions over one region counted as a group (CPI 1)");
		close(fd);
	}
	close(lead);
}

void check_count(void)
{
	exact_growth("instructions:u", PERF_COUNT_HW_INSTRUCTIONS);
	exact_growth("cycles:u", PERF_COUNT_HW_CPU_CYCLES);
	kernel_only();
	cycles_group();
}

/* Sampling: one PMI per period, each a PERF_RECORD_SAMPLE in the ring buffer. */
void check_sample(void)
{
	const uint64_t period = 100000;
	/* 10,050,000 loop instructions: the 100th period ends 50,000 before
	 * the loop does, so no PMI is pending at the disable (one delivered in
	 * the kernel would be dropped for exclude_kernel when SIAR holds a
	 * kernel address: core-book3s.c record_and_restart()). */
	const unsigned long n = 5025000;
	const size_t pages = 16;
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_event_attr a;
	struct perf_event_mmap_page *mp;
	uint64_t pmi0, pmi1, head, off, samples = 0, lost = 0, throttled = 0, other = 0, expect_n;
	struct rd r;
	char *data;
	int fd;

	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 1);
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP;
	a.wakeup_events = 1;
	if ((fd = open_or_fail("sample", &a, -1, "instructions:u, period 100000")) < 0)
		return;
	mp = mmap(NULL, (pages + 1) * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mp == MAP_FAILED) {
		fail("sample", "a ring buffer", strerror(errno), "mmap of the event's ring buffer");
		close(fd);
		return;
	}
	pmi0 = irq_pmi();
	measure(fd, n, 0, &r);
	pmi1 = irq_pmi();
	head = mp->data_head;
	__sync_synchronize(); /* read data_head before the records (perf_event.h) */
	data = (char *)mp + psz;
	for (off = mp->data_tail; off < head;) {
		struct perf_event_header *h = (void *)(data + off % (pages * psz));

		if (h->size == 0)
			break;
		if (h->type == PERF_RECORD_SAMPLE)
			samples++;
		else if (h->type == PERF_RECORD_LOST)
			lost++;
		else if (h->type == PERF_RECORD_THROTTLE)
			throttled++;
		else
			other++;
		off += h->size;
	}
	info("sample", "count %llu, %llu samples, %llu PMIs, %llu lost, %llu throttle, %llu other records",
	     (unsigned long long)r.value, (unsigned long long)samples, (unsigned long long)(pmi1 - pmi0),
	     (unsigned long long)lost, (unsigned long long)throttled, (unsigned long long)other);
	expect(samples == pmi1 - pmi0 && samples > 0, "sample", pmi1 - pmi0, samples,
	       "PERF_RECORD_SAMPLEs in the ring buffer == growth of the PMI line of /proc/interrupts");
	/* Each PMI ends a period: the driver reloads the PMC with 2^31 minus
	 * what is left of the next period (core-book3s.c record_and_restart()),
	 * so skid (at most a translated block) does not accumulate, and the
	 * region's last, partial period (half a period here) gives no sample:
	 * floor(count / P) samples. */
	expect_n = r.value / period;
	expect(samples == expect_n && lost == 0 && throttled == 0, "sample", expect_n, samples,
	       "samples == floor(count / period), none lost, never throttled (period %llu)",
	       (unsigned long long)period);
	expect(r.value >= 2 * n, "sample", 2 * n, r.value, "the sampling event counted the loop's instructions");
	munmap(mp, (pages + 1) * psz);
	close(fd);
}

/* Six events at once: raw codes that name their PMC (bits 8-10 of the code,
 * mpc7450-pmu.c PM_PMC_SH), instructions (PMCnSEL 2) on PMC1-4, cycles
 * (PMCnSEL 1) on PMC5 and PMC6. */
void check_six(void)
{
	static const uint64_t codes[6] = { 0x102, 0x202, 0x302, 0x402, 0x501, 0x601 };
	struct perf_event_attr a;
	struct {
		uint64_t nr, enabled, running, v[6];
	} g1, g2;
	int fd[7], i, ok = 1;

	for (i = 0; i < 6; i++) {
		perf_attr(&a, PERF_TYPE_RAW, codes[i], 0, 1);
		a.read_format |= PERF_FORMAT_GROUP;
		a.disabled = i == 0;
		if ((fd[i] = perf_open(&a, i ? fd[0] : -1)) < 0) {
			fail("six", "a file descriptor", strerror(errno), "perf_event_open(raw 0x%llx) as event %d of the group",
			     (unsigned long long)codes[i], i + 1);
			while (i--)
				close(fd[i]);
			return;
		}
	}
	/* A seventh event has no PMC left: the group cannot be built
	 * (core-book3s.c power_pmu_event_init(): n > ppmu->n_counter). */
	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 1);
	fd[6] = perf_open(&a, fd[0]);
	expect(fd[6] < 0, "six", 0, (uint64_t)(fd[6] >= 0), "a seventh event in the group is refused (%s)",
	       fd[6] < 0 ? strerror(errno) : "accepted");
	if (fd[6] >= 0)
		close(fd[6]);
	struct rd dummy;
	measure(fd[0], N1, 0, &dummy);
	measure(fd[0], N1, 0, &dummy);
	ok = read(fd[0], &g1, sizeof(g1)) == sizeof(g1);
	measure(fd[0], N2, 0, &dummy);
	ok = ok && read(fd[0], &g2, sizeof(g2)) == sizeof(g2) && g1.nr == 6 && g2.nr == 6;
	if (!ok) {
		fail("six", "6 counts", strerror(errno), "read of the six-event group");
	} else {
		expect(g2.enabled == g2.running && g2.running > 0, "six", g2.enabled, g2.running,
		       "all six counted the whole time the group was enabled");
		for (i = 0; i < 6; i++)
			expect(g2.v[i] - g1.v[i] == LOOP_DIFF, "six", LOOP_DIFF, g2.v[i] - g1.v[i],
			       "raw 0x%llx (PMC%d, %s:u) grows by exactly 2*(N2-N1)", (unsigned long long)codes[i],
			       i + 1, i < 4 ? "instructions" : "cycles");
		for (i = 1; i < 6; i++)
			expect(g2.v[i] == g2.v[0], "six", g2.v[0], g2.v[i],
			       "PMC%d's count == PMC1's over the same region (CPI 1)", i + 1);
	}
	for (i = 0; i < 6; i++)
		close(fd[i]);
}
