/* SPDX-License-Identifier: MIT */
/*
 * The perf backend's task clock (no host PMU: vpmu/backends/perf_slot.c)
 * through the system-call double (perf_double.h), where the test sets the
 * clock's value, CLOCK_MONOTONIC and the mmap page's lock word:
 *   - a reading within PERF_CLOCK_EXTRAPOLATE_NS of the last read(2), with the
 *     lock word unchanged, is extrapolated with CLOCK_MONOTONIC (no read(2));
 *     a later one reads;
 *   - a guest counter never goes back, when a read(2) finds the task clock
 *     behind an extrapolation (the two clocks' rates differ: under an
 *     emulating hypervisor by far more than NTP's slew; seen under QEMU in
 *     the nested tier) or when the lock word says the thread slept;
 *   - an overflow timer armed early stays armed: the exits' VMM time moves
 *     the task clock but not the guest's, and setting the period again at
 *     each exit would restart the timer, which would then never fire while
 *     exits come faster than it (under QEMU in the nested tier, a sampling
 *     guest got 2 PMIs for 50); a counter moved to overflow sooner, or a
 *     deadline passed without its signal's poll, arms it again.
 */
#include "perf_double.h"

#define EVNTSEL0 0x186
#define PERFCTR0 0xC1
#define EN  0x400000u
#define INT 0x100000u
#define OS  0x20000u
#define USR 0x10000u
#define EV_CYCLES 0x79u
#define MASK40 ((1ull << 40) - 1)

/* world_up without a host PMU (the probe refused), the task clock's mmap page
 * lock word mapped if `lock`: the slot's task clock in the double, its fd in
 * *fd (a case of its own: it is open); NULL if the world or the clock is not
 * up (world_down is still due). */
static struct fake_fd *clock_world(struct world *w, const char *name, bool lock, int *fd)
{
	dbl_lock_mapped = lock;
	dbl_lock_word = 2;
	bool up = world_up(w, ENOENT, name);
	dbl_lock_mapped = false;
	if (!up)
		return NULL;
	*fd = event_fd(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	ok(*fd >= 0, "the slot's task clock is open (fd %d)", *fd);
	return fd_get(*fd);
}

/* An exit that reads counter 0 (its value). */
static uint64_t exit_read(struct vpmu_vcpu *v)
{
	return rd(v, PERFCTR0);
}

static void test_extrapolation(void)
{
	struct world w;
	const char *name = "task clock: extrapolation and monotonic readings";
	int cf;
	struct fake_fd *f = clock_world(&w, name, true, &cf);
	if (!f)
		goto out;
	struct vpmu_vcpu *v = w.v;
	D.now_held = true;
	D.now = 1000000000;
	f->count = 1000000;   /* 1 ms of task clock */
	check_eq(wr(v, EVNTSEL0, EN | OS | USR | EV_CYCLES), VPMU_FAULT_NONE,
		 "EVNTSEL0 = cycles, enabled: no fault");
	vpmu_vcpu_enter(v);
	uint64_t c0 = exit_read(v);
	since();

	/* 100 us later by CLOCK_MONOTONIC, the lock word as it was: extrapolated. */
	vpmu_vcpu_enter(v);
	D.now += 100000;
	uint64_t c1 = exit_read(v);
	struct calls d = since();
	check_eq(d.read, 0, "100 us after the last read(2), lock word unchanged: no read(2)");
	check_eq(c1 - c0, 200000, "... and the counter moved 100 us of cycles at 2 GHz");

	/* The task clock itself moved 40 us, not 100 (its rate is not
	 * CLOCK_MONOTONIC's): the next read(2), after a sched-in, finds it behind. */
	f->count += 40000;
	dbl_lock_word += 2;
	vpmu_vcpu_enter(v);
	uint64_t c2 = exit_read(v);
	d = since();
	ok(d.read >= 1, "a changed lock word reads the clock (%u read(2))", d.read);
	ok(c2 >= c1, "the read(2) behind the extrapolation does not take the counter back: "
	   "%" PRIu64 " after %" PRIu64, c2, c1);
	/* It stands still until the task clock catches up, then counts what the
	 * task clock counted: 40 + 100 us. */
	vpmu_vcpu_enter(v);
	f->count += 100000;
	dbl_lock_word += 2;
	uint64_t c3 = exit_read(v);
	check_eq(c3 - c0, 2 * 140000, "the task clock caught up (140 us since): the counter counts "
		 "them, no more");

	/* Past PERF_CLOCK_EXTRAPOLATE_NS, a reading reads even with the word unchanged. */
	vpmu_vcpu_enter(v);
	D.now += 2000000;
	f->count += 500000;
	uint64_t c4 = exit_read(v);
	d = since();
	ok(d.read >= 1, "2 ms after the last read(2), lock word unchanged: a read(2) (%u)", d.read);
	check_eq(c4 - c3, 2 * 500000, "... which counts the task clock's 500 us, not CLOCK_MONOTONIC's "
		 "2 ms");
out:
	D.now_held = false;
	world_down(&w, name);
}

static void test_early_timer_kept(void)
{
	struct world w;
	const char *name = "task clock: an early overflow timer stays armed";
	int cf;
	struct fake_fd *f = clock_world(&w, name, false, &cf);
	if (!f)
		goto out;
	struct vpmu_vcpu *v = w.v;
	f->count = 1000000;   /* the thread has run 1 ms */
	/* 1,000,000 cycles to the overflow: 500 us of guest time at 2 GHz. */
	check_eq(wr(v, PERFCTR0, (0 - 1000000ull) & MASK40), VPMU_FAULT_NONE, "PERFCTR0 = -1000000");
	check_eq(wr(v, EVNTSEL0, EN | INT | OS | USR | EV_CYCLES), VPMU_FAULT_NONE,
		 "EVNTSEL0 = cycles with INT, enabled");
	since();
	unsigned p0 = D.nperiods;
	advance(cf, 0);
	struct calls d = since();
	check_eq(d.period, 1, "the entry arms the timer once");
	uint64_t first = D.nperiods > p0 ? D.periods[D.nperiods - 1] : 0;
	ok(first >= 499000 && first <= 500000, "for the 500 us of guest time to the overflow "
	   "(%" PRIu64 " ns)", first);
	/* 100 exits: 1 us of guest time each, then 4 us of the VMM's (the task
	 * clock counts both; the guest's clock only the first). */
	for (int i = 0; i < 100; i++) {
		advance(cf, 1000);
		(void)exit_read(v);
		f->count += 4000;
	}
	d = since();
	check_eq(d.period, 0, "100 exits with 400 us of the VMM's time: the timer is not set again "
		 "(each set would restart it)");
	/* The task clock passes the deadline, and no poll follows (the signal
	 * was lost, or is still on its way): the next entry arms the timer
	 * again for what is left, rather than wait for the periodic timer's next
	 * signal a whole old period later. */
	f->count += 1000;
	advance(cf, 0);
	d = since();
	check_eq(d.period, 1, "an entry past the deadline without its poll arms the timer again");
	uint64_t left = D.periods[D.nperiods - 1];
	ok(left >= 398000 && left <= 401000, "for the guest time left: 400 us (%" PRIu64 " ns)", left);
	/* The signal of the deadline kept early comes: the poll finds no
	 * overflow (the guest's clock is short of it by the exits' VMM time). */
	vpmu_vcpu_poll(v);
	struct vpmu_totals t;
	vpmu_vcpu_totals(v, &t);
	check_eq(t.pmis, 0, "the early signal raises no PMI");
	/* The guest moves the counter closer to its overflow: armed sooner. */
	check_eq(wr(v, PERFCTR0, (0 - 2000ull) & MASK40), VPMU_FAULT_NONE, "PERFCTR0 = -2000");
	advance(cf, 0);
	d = since();
	check_eq(d.period, 1, "a counter moved to overflow sooner arms the timer again");
	check_eq(D.periods[D.nperiods - 1], 1000, "for its 1 us of guest time");
	/* It overflows: the signal's poll raises the PMI. */
	advance(cf, 1500);
	vpmu_vcpu_poll(v);
	vpmu_vcpu_totals(v, &t);
	check_eq(t.pmis, 1, "1.5 us later the signal's poll raises the PMI");
out:
	world_down(&w, name);
}

int main(void)
{
	test_extrapolation();
	test_early_timer_kept();
	return tap_done();
}
