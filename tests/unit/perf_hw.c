/* SPDX-License-Identifier: MIT */
/*
 * The perf backend's host-PMU path (vpmu/backends/perf.c, perf_slot.c) through a
 * test double of its system-call table (backends/perf_sys.h): no machine here
 * has a host PMU, so the double plays one.  It records every perf_event_attr
 * opened, hands out fake fds, returns the counts the test scripts per fd,
 * refuses an open (or the overflow signal's setup) with a given errno when told,
 * reads end of file for a fd the host "could not schedule", and counts every
 * call.  The test drives it through the real core API with a P6 VM on one host
 * CPU, as a VMM would: register accesses at an exit, vpmu_vcpu_enter before each
 * run of the guest, the double's counts advancing as if the guest ran,
 * vpmu_vcpu_poll after an overflow signal.
 */
#include <stdarg.h>

#include "perf_double.h"

#define EVNTSEL0 0x186
#define EVNTSEL1 0x187
#define PERFCTR0 0xC1
#define PERFCTR1 0xC2
#define EN  0x400000u     /* EVNTSEL0 only: the global enable */
#define INT 0x100000u
#define OS  0x20000u
#define USR 0x10000u
#define EV_CYCLES       0x79u    /* CPU_CLK_UNHALTED */
#define EV_INSTRUCTIONS 0xC0u    /* INST_RETIRED */
#define EV_BRANCHES     0xC4u    /* BR_INST_RETIRED */
#define EV_BR_MISSES    0xC5u    /* BR_MISS_PRED_RETIRED */
#define EV_BUS_CYCLES   0x62u    /* BUS_DRDY_CLOCKS */
#define EV_L2_REFS      0x0F2Eu  /* L2_RQSTS.MESI: cache references */
#define EV_L2_MISSES    0x012Eu  /* L2_RQSTS.I: cache misses */
#define EV_DATA_MEM_REFS 0x43u   /* no generic equivalent */
#define MASK40 ((1ull << 40) - 1)

/* ------------------------------------------------------------ cases */

/* Detection, the attributes built, where the syscalls happen, a-mode cache hit,
 * an event with no generic equivalent (items 1, 2, 3, 7). */
static void test_attributes_and_syscalls(void)
{
	struct world w;
	const char *name = "host PMU, a-mode";
	dbl_reset();
	if (!world_up(&w, 0, name))
		goto out;
	/* The probe at creation: one hardware cycles event in guest mode, closed. */
	ok(D.nrec >= 1 && D.rec[0].type == PERF_TYPE_HARDWARE &&
	   D.rec[0].config == PERF_COUNT_HW_CPU_CYCLES && D.rec[0].exclude_host == 1,
	   "creation probed the host PMU with a guest-mode hardware cycles event: expected type %u "
	   "config %u exclude_host 1, seen type %u config %" PRIu64 " exclude_host %u",
	   PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, D.rec[0].type, D.rec[0].config,
	   D.rec[0].exclude_host);
	check_eq(D.calls.open, 1, "creation, bind, VM and switch-in make exactly one open (the probe)");
	check_eq(D.calls.close, 1, "the probe's event is closed again");
	ok(vpmu_perf_host_pmu(w.p), "vpmu_perf_host_pmu: expected true (the probe opened), seen false");
	const char *why = NULL;
	enum vpmu_count_source src = vpmu_host_event_source(w.host, VPMU_EV_CYCLES, &why);
	check_eq(src, VPMU_COUNT_HARDWARE, "vpmu_host_event_source(cycles) with a host PMU is "
		 "VPMU_COUNT_HARDWARE (%s)", why ? why : "");
	src = vpmu_host_event_source(w.host, VPMU_EV_INSTRUCTIONS, &why);
	check_eq(src, VPMU_COUNT_HARDWARE, "vpmu_host_event_source(instructions) with a host PMU is "
		 "VPMU_COUNT_HARDWARE (%s)", why ? why : "");

	/* Item 7 and 1: cycles at OS+USR on counter 0, DATA_MEM_REFS on counter 1. */
	struct vpmu_vcpu *v = w.v;
	since();
	check_eq(wr(v, EVNTSEL1, OS | USR | EV_DATA_MEM_REFS), VPMU_FAULT_NONE,
		 "EVNTSEL1 = DATA_MEM_REFS at OS+USR: no fault");
	check_eq(wr(v, EVNTSEL0, EN | OS | USR | EV_CYCLES), VPMU_FAULT_NONE,
		 "EVNTSEL0 = EN|OS|USR|cycles: no fault");
	struct calls c = since();
	check_eq(all_calls(c), 0, "the register writes make no system call at all (%u open, %u read, "
		 "%u close)", c.open, c.read, c.close);
	check_eq(vpmu_vcpu_enter(v), 0, "vpmu_vcpu_enter");
	c = since();
	check_calls(c, 1, 0, 0, "the entry opens counter 0's cycles event only (DATA_MEM_REFS opens "
		    "nothing)");
	check_eq(c.signal, 0, "an a-mode counter asks for no overflow signal (signal_thread calls)");
	check_attr(last_rec(), PERF_COUNT_HW_CPU_CYCLES, 0, 0, 0, "cycles at OS+USR, a-mode");
	int fd0 = hw_fd(PERF_COUNT_HW_CPU_CYCLES);
	ok(fd0 >= 0, "counter 0's cycles event is open: expected a fd, seen %d", fd0);

	check_eq(vpmu_vcpu_enter(v), 0, "a second vpmu_vcpu_enter");
	c = since();
	check_eq(all_calls(c), 0, "a second entry with nothing changed makes no system call (%u open, "
		 "%u read, %u close, %u set_period)", c.open, c.read, c.close, c.period);

	advance(fd0, 12345);
	check_eq(rd(v, PERFCTR0), 12345, "PERFCTR0 reads what counter 0's event counted");
	advance(fd0, 55);
	check_eq(rd(v, PERFCTR1), 0, "PERFCTR1 (DATA_MEM_REFS, no generic equivalent) reads 0");
	check_eq(fds_open(), 1, "only one event open (counter 1 has none)");

	/* Item 1: instructions at USR only on counter 1. */
	since();
	check_eq(wr(v, EVNTSEL1, USR | EV_INSTRUCTIONS), VPMU_FAULT_NONE,
		 "EVNTSEL1 = USR|instructions: no fault");
	c = since();
	check_eq(all_calls(c), 0, "changing counter 1 from an event with no generic equivalent makes "
		 "no system call at the write (%u open, %u read, %u close)", c.open, c.read, c.close);
	vpmu_vcpu_enter(v);
	c = since();
	check_calls(c, 1, 0, 0, "the entry opens counter 1's instructions event, nothing else");
	check_attr(last_rec(), PERF_COUNT_HW_INSTRUCTIONS, 0, 1, 0, "instructions at USR only");
	int fd1 = hw_fd(PERF_COUNT_HW_INSTRUCTIONS);

	/* OS only: the reverse. */
	advance(fd1, 400);
	check_eq(wr(v, EVNTSEL1, OS | EV_INSTRUCTIONS), VPMU_FAULT_NONE,
		 "EVNTSEL1 = OS|instructions: no fault");
	c = since();
	check_calls(c, 0, 0, 0, "the write reopens nothing by itself (the counter is only read)");
	printf("# the write of an open counter's event select read %u times\n", c.read);
	vpmu_vcpu_enter(v);
	c = since();
	check_calls(c, 1, 1, 0, "the entry closes and reopens counter 1's event");
	check_attr(last_rec(), PERF_COUNT_HW_INSTRUCTIONS, 1, 0, 0, "instructions at OS only");
	ok(fd_get(fd1) && !fd_get(fd1)->open, "counter 1's old event (fd %d) is closed", fd1);
	check_eq(rd(v, PERFCTR1), 400, "PERFCTR1 keeps the 400 its USR event counted across the reopen");
	fd1 = hw_fd(PERF_COUNT_HW_INSTRUCTIONS);
	advance(fd1, 11);
	check_eq(rd(v, PERFCTR1), 411, "and counts on from there with its new event");

	/* Item 3: a new event in EVNTSEL1, EVNTSEL0 unchanged. */
	check_eq(wr(v, EVNTSEL1, OS | USR | EV_BRANCHES), VPMU_FAULT_NONE,
		 "EVNTSEL1 = OS|USR|branches: no fault");
	vpmu_vcpu_enter(v);
	c = since();
	check_calls(c, 1, 1, 0, "a new event in EVNTSEL1 alone: exactly one close and one open");
	check_attr(last_rec(), PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0, 0, 0, "branches at OS+USR");
	ok(hw_fd(PERF_COUNT_HW_CPU_CYCLES) == fd0 && fd_get(fd0)->open,
	   "counter 0's event is untouched: expected fd %d still open, seen fd %d", fd0,
	   hw_fd(PERF_COUNT_HW_CPU_CYCLES));
	check_eq(rd(v, PERFCTR0), 12400, "PERFCTR0 counted on (12345 + 55)");

	/* Item 2: a switch pair of the same vCPU on the same CPU, a cache hit. */
	int fd2 = hw_fd(PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	advance(fd2, 9);
	struct vpmu_totals t0 = totals(v);
	since();
	check_eq(vpmu_vcpu_switch_out(v), 0, "switch-out");
	struct calls out = since();
	check_eq(vpmu_vcpu_switch_in(v, 0), 0, "switch-in on the same host CPU");
	struct calls in = since();
	vpmu_vcpu_enter(v);
	struct calls ent = since();
	struct vpmu_totals t1 = totals(v);
	since();
	check_eq(t1.cache_hits - t0.cache_hits, 1, "the switch pair is a cache hit (cache_hits grows)");
	printf("# a-mode cache-hit switch pair: switch-out %u read, switch-in %u read, entry %u read\n",
	       out.read, in.read, ent.read);
	struct calls sum = { out.open + in.open + ent.open, 0, out.period + in.period + ent.period,
			     out.close + in.close + ent.close, out.signal + in.signal + ent.signal, 0, 0 };
	check_calls(sum, 0, 0, 0, "an a-mode cache-hit switch pair and entry open, close and re-arm "
		    "nothing");
	check_eq(all_calls(in) + all_calls(ent), 0, "the cache-hit switch-in and the entry after it "
		 "make no system call at all (%u read)", in.read + ent.read);
	ok(out.read <= 2, "the switch-out reads each counting event at most once: expected <= 2 "
	   "read(2)s, seen %u", out.read);
	check_eq(rd(v, PERFCTR0), 12400, "PERFCTR0 unchanged by the switch pair");
	check_eq(rd(v, PERFCTR1), 420, "PERFCTR1 unchanged by the switch pair (411 + 9 branches: "
		 "a new event select does not clear the counter)");
	check_eq(fds_open(), 2, "both events still open");
out:
	world_down(&w, name);
}

/* i-mode: the sample period, the signal, overflow and PMI, re-arm (items 1, 2, 5). */
static void test_imode(void)
{
	struct world w;
	const char *name = "host PMU, i-mode";
	if (!world_up(&w, 0, name))
		goto out;
	struct vpmu_vcpu *v = w.v;
	check_eq(wr(v, PERFCTR0, (uint64_t)-1000 & MASK40), VPMU_FAULT_NONE, "PERFCTR0 = -1000");
	check_eq(wr(v, EVNTSEL0, EN | INT | OS | USR | EV_CYCLES), VPMU_FAULT_NONE,
		 "EVNTSEL0 = EN|INT|OS|USR|cycles: no fault");
	struct calls c = since();
	check_eq(all_calls(c), 0, "the writes make no system call (%u open, %u read, %u close)",
		 c.open, c.read, c.close);
	vpmu_vcpu_enter(v);
	c = since();
	check_calls(c, 1, 0, 0, "the entry opens counter 0's sampling event");
	check_attr(last_rec(), PERF_COUNT_HW_CPU_CYCLES, 0, 0, 1000,
		   "i-mode cycles at -1000: sample_period is the distance to overflow");
	int fd0 = hw_fd(PERF_COUNT_HW_CPU_CYCLES);
	check_eq(c.signal, 1, "the i-mode event's overflow is a signal to the thread (signal_thread "
		 "calls)");
	check_eq(D.last_signal_fd, fd0, "signal_thread on the sampling event's fd");
	check_eq(D.last_signo, KICK, "signal_thread with the signal given at creation");

	/* Item 5: no PMI before the period passes, then one for counter 0. */
	uint64_t mask = 0;
	advance(fd0, 999);
	vpmu_vcpu_poll(v);
	ok(!vpmu_vcpu_pmi_pending(v, &mask), "999 of 1000 events: expected no PMI, seen one pending "
	   "(mask 0x%" PRIx64 ")", mask);
	check_eq(rd(v, PERFCTR0), MASK40, "PERFCTR0 reads -1 (40 bits) one event before overflow");
	advance(fd0, 1);
	vpmu_vcpu_poll(v);
	mask = 0;
	bool pending = vpmu_vcpu_pmi_pending(v, &mask);
	ok(pending && mask == 1, "the 1000th event: expected a PMI pending with mask 0x1, seen %s "
	   "with mask 0x%" PRIx64, pending ? "pending" : "none", mask);
	check_eq(rd(v, PERFCTR0), 0, "PERFCTR0 wrapped to 0");
	check_eq(totals(v).pmis, 1, "the accounting counted one PMI");

	/* The guest's handler reloads the counter: one set_period at the next entry. */
	vpmu_vcpu_pmi_ack(v);
	since();
	check_eq(wr(v, PERFCTR0, (uint64_t)-1000 & MASK40), VPMU_FAULT_NONE, "handler: PERFCTR0 = -1000");
	c = since();
	check_calls(c, 0, 0, 0, "the counter write re-arms nothing by itself");
	vpmu_vcpu_enter(v);
	c = since();
	check_calls(c, 0, 0, 1, "the entry re-arms the event with one set_period, no reopen");
	check_eq(D.nperiods ? D.periods[D.nperiods - 1] : 0, 1000, "the new period is the distance "
		 "to the next overflow");
	advance(fd0, 1000);
	vpmu_vcpu_poll(v);
	mask = 0;
	pending = vpmu_vcpu_pmi_pending(v, &mask);
	ok(pending && mask == 1, "1000 events after the reload: expected a PMI with mask 0x1, seen %s "
	   "with mask 0x%" PRIx64, pending ? "pending" : "none", mask);
	vpmu_vcpu_pmi_ack(v);
	/* No reload this time: the next overflow is a full 2^40 lap away. */
	vpmu_vcpu_enter(v);
	c = since();
	check_calls(c, 0, 0, 1, "without a reload the entry re-arms once");
	check_eq(D.nperiods ? D.periods[D.nperiods - 1] : 0, 1ull << 40, "the period is a full lap "
		 "of the 40-bit counter");

	/* Item 2 with a sampling counter: a cache-hit switch pair. */
	advance(fd0, 77);
	uint64_t before = rd(v, PERFCTR0);
	struct vpmu_totals t0 = totals(v);
	since();
	vpmu_vcpu_switch_out(v);
	struct calls out = since();
	vpmu_vcpu_switch_in(v, 0);
	struct calls in = since();
	vpmu_vcpu_enter(v);
	struct calls ent = since();
	struct vpmu_totals t1 = totals(v);
	since();
	check_eq(t1.cache_hits - t0.cache_hits, 1, "i-mode: the switch pair is a cache hit");
	printf("# i-mode cache-hit switch pair: switch-out %u read %u open %u close; switch-in %u read "
	       "%u open %u close; entry %u read %u open %u close %u set_period %u signal_thread\n",
	       out.read, out.open, out.close, in.read, in.open, in.close, ent.read, ent.open,
	       ent.close, ent.period, ent.signal);
	struct calls sum = { out.open + in.open + ent.open, 0, out.period + in.period + ent.period,
			     out.close + in.close + ent.close, out.signal + in.signal + ent.signal, 0, 0 };
	check_calls(sum, 0, 0, 0, "an i-mode cache-hit switch pair and entry open, close and re-arm "
		    "nothing (the guest's configuration did not change)");
	check_eq(all_calls(in) + all_calls(ent), 0, "i-mode: the cache-hit switch-in and the entry "
		 "after it make no system call at all (%u read)", in.read + ent.read);
	check_eq(rd(v, PERFCTR0), before, "PERFCTR0 unchanged by the switch pair");
	fd0 = hw_fd(PERF_COUNT_HW_CPU_CYCLES);
	advance(fd0, 23);
	check_eq(rd(v, PERFCTR0), (before + 23) & MASK40, "PERFCTR0 counts on after the switch pair");

	/* A second counter joins while counter 0 samples: only its event opens. */
	since();
	check_eq(wr(v, EVNTSEL1, OS | USR | EV_INSTRUCTIONS), VPMU_FAULT_NONE,
		 "EVNTSEL1 = OS|USR|instructions while counter 0 samples: no fault");
	vpmu_vcpu_enter(v);
	c = since();
	check_calls(c, 1, 0, 0, "counter 1 joining opens its event only (counter 0's configuration "
		    "did not change)");
	int fd1 = hw_fd(PERF_COUNT_HW_INSTRUCTIONS);
	ok(fd1 >= 0, "counter 1's instructions event is open: expected a fd, seen %d", fd1);
	advance(fd1, 5);
	check_eq(rd(v, PERFCTR1), 5, "PERFCTR1 counts");
	check_eq(rd(v, PERFCTR0), (before + 23) & MASK40, "PERFCTR0 unchanged by counter 1 joining");

	/* Item 3 with a sampling counter 0: EVNTSEL1's event changes. */
	check_eq(wr(v, EVNTSEL1, OS | USR | EV_BRANCHES), VPMU_FAULT_NONE,
		 "EVNTSEL1 = OS|USR|branches: no fault");
	vpmu_vcpu_enter(v);
	c = since();
	check_calls(c, 1, 1, 0, "EVNTSEL1's new event with counter 0 sampling: one close, one open");
	check_eq(last_rec()->config, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "the event opened is branches");
	check_eq(rd(v, PERFCTR1), 5, "PERFCTR1 keeps its count across the new event");
out:
	world_down(&w, name);
}

/* Item 4: no count lost above 32 bits, and the accounting has it all. */
static void test_counts(void)
{
	struct world w;
	const char *name = "host PMU, counts";
	if (!world_up(&w, 0, name))
		goto out;
	struct vpmu_vcpu *v = w.v;
	wr(v, EVNTSEL0, EN | OS | USR | EV_CYCLES);
	vpmu_vcpu_enter(v);
	int fd0 = hw_fd(PERF_COUNT_HW_CPU_CYCLES);
	ok(fd0 >= 0, "counter 0's event is open: expected a fd, seen %d", fd0);
	advance(fd0, (1ull << 33) + 5);
	check_eq(rd(v, PERFCTR0), 0x200000005ull, "PERFCTR0 after 2^33+5 events");
	check_eq(totals(v).events[VPMU_EV_CYCLES], (1ull << 33) + 5,
		 "vpmu_vcpu_totals().events[cycles] while switched in");
	vpmu_vcpu_switch_out(v);
	check_eq(rd(v, PERFCTR0), 0x200000005ull, "PERFCTR0 after the switch-out");
	check_eq(totals(v).events[VPMU_EV_CYCLES], (1ull << 33) + 5,
		 "vpmu_vcpu_totals().events[cycles] after the switch-out");
	vpmu_vcpu_switch_in(v, 0);
	vpmu_vcpu_enter(v);
	fd0 = hw_fd(PERF_COUNT_HW_CPU_CYCLES);
	advance(fd0, 1ull << 40);
	check_eq(rd(v, PERFCTR0), 0x200000005ull, "PERFCTR0 after 2^40 more events (a full lap)");
	check_eq(totals(v).events[VPMU_EV_CYCLES], (1ull << 40) + (1ull << 33) + 5,
		 "the accounting has every event, above the counter's 40 bits too");
	check_eq(totals(v).pmc[0], (1ull << 40) + (1ull << 33) + 5, "vpmu_vcpu_totals().pmc[0]");
out:
	world_down(&w, name);
}

/* Item 6: every refusal path. */
static void test_refusals(void)
{
	struct world w;
	const char *name = "host PMU, refusals";
	if (!world_up(&w, 0, name))
		goto out;
	struct vpmu_vcpu *v = w.v;
	check_eq(wr(v, EVNTSEL0, EN | OS | USR | EV_CYCLES), VPMU_FAULT_NONE, "EVNTSEL0 = cycles");
	vpmu_vcpu_enter(v);
	int fd0 = hw_fd(PERF_COUNT_HW_CPU_CYCLES);
	uint64_t cycles = 0;
	ok(fd0 >= 0, "counter 0's cycles event is open: expected a fd, seen %d", fd0);
	since();
	static const struct {
		int err;
		uint32_t sel;
		uint64_t config;
		enum vpmu_perf_refusal cause;
		const char *ename;
	} cases[] = {
		{ EACCES, EV_INSTRUCTIONS, PERF_COUNT_HW_INSTRUCTIONS, VPMU_PERF_REFUSED_ACCESS, "EACCES" },
		{ EMFILE, EV_BRANCHES, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, VPMU_PERF_REFUSED_RESOURCES,
		  "EMFILE" },
		{ ENOENT, EV_BR_MISSES, PERF_COUNT_HW_BRANCH_MISSES, VPMU_PERF_REFUSED_UNSUPPORTED,
		  "ENOENT" },
		{ EOPNOTSUPP, EV_BUS_CYCLES, PERF_COUNT_HW_BUS_CYCLES, VPMU_PERF_REFUSED_UNSUPPORTED,
		  "EOPNOTSUPP" },
		{ EBUSY, EV_L2_REFS, PERF_COUNT_HW_CACHE_REFERENCES, VPMU_PERF_REFUSED_RESOURCES, "EBUSY" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char what[64];
		snprintf(what, sizeof(what), "open refused with %s", cases[k].ename);
		struct vpmu_perf_stats s0 = stats(&w);
		check_eq(wr(v, PERFCTR1, 0), VPMU_FAULT_NONE, "%s: PERFCTR1 = 0", what);
		D.refuse_next_open = cases[k].err;
		int f = wr(v, EVNTSEL1, OS | USR | cases[k].sel);
		check_eq(f, VPMU_FAULT_NONE, "%s: the EVNTSEL1 write succeeds (no fault)", what);
		check_eq(vpmu_vcpu_enter(v), 0, "%s: vpmu_vcpu_enter", what);
		struct calls c = since();
		check_eq(c.open, 1, "%s: one open tried", what);
		check_eq(last_rec()->config, cases[k].config, "%s: the event tried", what);
		check_eq(D.refuse_next_open, 0, "%s: the refusal was used", what);
		struct vpmu_perf_stats s1 = stats(&w);
		check_eq(s1.refused[cases[k].cause] - s0.refused[cases[k].cause], 1,
			 "%s: vpmu_perf_stats counts it under %s", what,
			 vpmu_perf_refusal_name(cases[k].cause));
		uint64_t others = 0;
		for (unsigned r = 0; r < VPMU_PERF_REFUSAL_NR; r++)
			if (r != (unsigned)cases[k].cause)
				others += s1.refused[r] - s0.refused[r];
		check_eq(others, 0, "%s: no other cause counted", what);
		check_contains(vpmu_perf_error(w.p), strerror(cases[k].err),
			       "%s: vpmu_perf_error() names the cause", what);
		/* The VM keeps running: the guest runs, counter 0 counts, counter 1 not. */
		advance(fd0, 100);
		cycles += 100;
		check_eq(rd(v, PERFCTR1), 0, "%s: the refused counter reads 0 and does not count", what);
		check_eq(rd(v, PERFCTR0), cycles, "%s: counter 0 counts on", what);
		check_eq(rd(v, EVNTSEL1), OS | USR | cases[k].sel, "%s: EVNTSEL1 reads what was written",
			 what);
		vpmu_vcpu_enter(v);
		c = since();
		check_eq(c.open, 0, "%s: a later entry without a change does not retry the open", what);
	}
	check_eq(w.log.n, 3, "the log function is called once per cause (access, resources, "
		 "unsupported), not per refusal");
	check_contains(w.log.n > 0 ? w.log.line[0] : NULL, strerror(EACCES), "log line 1 (access)");
	check_contains(w.log.n > 1 ? w.log.line[1] : NULL, strerror(EMFILE), "log line 2 (resources)");
	check_contains(w.log.n > 2 ? w.log.line[2] : NULL, strerror(ENOENT), "log line 3 (unsupported)");

	/* A later configuration change retries the open. */
	check_eq(wr(v, PERFCTR1, 0), VPMU_FAULT_NONE, "PERFCTR1 = 0");
	check_eq(wr(v, EVNTSEL1, OS | USR | EV_L2_MISSES), VPMU_FAULT_NONE,
		 "EVNTSEL1 = cache misses after the refusals: no fault");
	vpmu_vcpu_enter(v);
	struct calls c = since();
	check_eq(c.open, 1, "the configuration change retries the open");
	int fd1 = hw_fd(PERF_COUNT_HW_CACHE_MISSES);
	ok(fd1 >= 0, "counter 1's cache-misses event is open: expected a fd, seen %d", fd1);
	advance(fd1, 100);
	check_eq(rd(v, PERFCTR1), 100, "the retried counter counts");

	/* End of file: the host could not schedule the pinned event (seen at the
	 * first read after the guest ran again). */
	struct vpmu_perf_stats s0 = stats(&w);
	struct fake_fd *f1 = fd_get(fd1);
	if (f1)
		f1->eof = true;
	vpmu_vcpu_enter(v);
	since();
	uint64_t held = rd(v, PERFCTR1);
	c = since();
	struct vpmu_perf_stats s1 = stats(&w);
	check_eq(s1.refused[VPMU_PERF_REFUSED_HELD] - s0.refused[VPMU_PERF_REFUSED_HELD], 1,
		 "a read at end of file counts a refusal under held-by-host");
	check_eq(c.close, 1, "the unschedulable event is closed");
	check_eq(held, 100, "end of file: PERFCTR1 keeps the 100 it had counted and read before");
	check_eq(w.log.n, 4, "held-by-host is a new cause: logged once more");
	check_contains(vpmu_perf_error(w.p), "held by a host user",
		       "vpmu_perf_error() after end of file");
	advance(fd0, 10);
	cycles += 10;
	vpmu_vcpu_enter(v);
	check_eq(rd(v, PERFCTR1), 100, "end of file: the counter stops counting (still 100)");
	check_eq(totals(v).events[VPMU_EV_CACHE_MISSES], 100,
		 "the accounting keeps the 100 cache misses counted before the end of file");
	check_eq(rd(v, PERFCTR0), cycles, "counter 0 counts on after counter 1's end of file");
	c = since();
	check_eq(c.open, 0, "the held counter is not reopened without a configuration change");

	/* The overflow signal refused: the event is closed again, the counter counts zero. */
	struct vpmu_perf_stats s2 = stats(&w);
	check_eq(wr(v, PERFCTR1, (uint64_t)-50 & MASK40), VPMU_FAULT_NONE, "PERFCTR1 = -50");
	D.refuse_next_signal = EPERM;
	check_eq(wr(v, EVNTSEL1, INT | OS | USR | EV_INSTRUCTIONS), VPMU_FAULT_NONE,
		 "EVNTSEL1 = INT|OS|USR|instructions, its signal setup refused: no fault");
	vpmu_vcpu_enter(v);
	struct vpmu_perf_stats s3 = stats(&w);
	check_eq(s3.refused[VPMU_PERF_REFUSED_ACCESS] - s2.refused[VPMU_PERF_REFUSED_ACCESS], 1,
		 "signal_thread refused with EPERM: counted under access");
	check_eq(hw_fd(PERF_COUNT_HW_INSTRUCTIONS), -1, "the event whose signal was refused is closed");
	check_contains(vpmu_perf_error(w.p), strerror(EPERM), "vpmu_perf_error() after the refused "
		       "signal");
	advance(fd0, 1000);
	cycles += 1000;
	vpmu_vcpu_poll(v);
	ok(!vpmu_vcpu_pmi_pending(v, NULL), "a counter without its overflow signal raises no PMI: "
	   "expected none, seen one");
	check_eq(rd(v, PERFCTR1), (uint64_t)-50 & MASK40, "it holds its value, -50");
	check_eq(rd(v, PERFCTR0), cycles, "counter 0 counts on");
out:
	world_down(&w, name);
}

/* No host PMU: the probe refused with ENOENT. */
static void test_no_host_pmu(void)
{
	struct world w;
	const char *name = "no host PMU";
	if (!world_up(&w, ENOENT, name))
		goto out;
	ok(!vpmu_perf_host_pmu(w.p), "vpmu_perf_host_pmu with the probe refused (ENOENT): expected "
	   "false, seen true");
	const char *why = NULL;
	enum vpmu_count_source src = vpmu_host_event_source(w.host, VPMU_EV_INSTRUCTIONS, &why);
	check_eq(src, VPMU_COUNT_NONE, "vpmu_host_event_source(instructions) without a host PMU is "
		 "VPMU_COUNT_NONE (%s)", why ? why : "");
	check_contains(why, strerror(ENOENT), "the reason names the probe's error");
	src = vpmu_host_event_source(w.host, VPMU_EV_CYCLES, &why);
	check_eq(src, VPMU_COUNT_TASK_CLOCK, "vpmu_host_event_source(cycles) without a host PMU is "
		 "the task clock (%s)", why ? why : "");
	unsigned hw_before = 0;
	for (unsigned i = 0; i < D.nrec; i++)
		hw_before += D.rec[i].type == PERF_TYPE_HARDWARE;
	struct vpmu_vcpu *v = w.v;
	check_eq(wr(v, EVNTSEL0, EN | OS | USR | EV_INSTRUCTIONS), VPMU_FAULT_NONE,
		 "EVNTSEL0 = instructions: no fault");
	vpmu_vcpu_enter(v);
	unsigned hw_after = 0;
	for (unsigned i = 0; i < D.nrec; i++)
		hw_after += D.rec[i].type == PERF_TYPE_HARDWARE;
	check_eq(hw_after - hw_before, 0, "no hardware event is opened without a host PMU");
	check_eq(rd(v, PERFCTR0), 0, "instructions read 0 (not countable)");
out:
	world_down(&w, name);
}

/* The event filter (vpmu_vm_set_event_filter; KVM_SET_PMU_EVENT_FILTER's
 * semantics): a denied counter's programming is accepted, but no host event
 * is opened for it; removing the filter opens it. */
static void test_event_filter(void)
{
	struct world w;
	const char *name = "host PMU, event filter";
	dbl_reset();
	if (!world_up(&w, 0, name))
		goto out;
	struct vpmu_vcpu *v = w.v;
	uint64_t deny = EV_INSTRUCTIONS;
	struct vpmu_event_filter f = { VPMU_FILTER_DENY, 0, 0, 1, &deny, 0, NULL };
	check_eq(vpmu_vm_set_event_filter(vpmu_vcpu_vm(v), &f, NULL), 0, "deny INST_RETIRED");
	since();
	check_eq(wr(v, EVNTSEL1, OS | USR | EV_INSTRUCTIONS), VPMU_FAULT_NONE,
		 "EVNTSEL1 = instructions (denied): no fault");
	check_eq(wr(v, EVNTSEL0, EN | OS | USR | EV_CYCLES), VPMU_FAULT_NONE,
		 "EVNTSEL0 = EN|OS|USR|cycles: no fault");
	vpmu_vcpu_enter(v);
	struct calls c = since();
	check_calls(c, 1, 0, 0, "the entry opens counter 0's cycles event only, none for the denied "
		    "counter");
	ok(hw_fd(PERF_COUNT_HW_INSTRUCTIONS) < 0, "no instructions event was opened");
	check_eq(fds_open(), 1, "one event open");
	advance(hw_fd(PERF_COUNT_HW_CPU_CYCLES), 77);
	check_eq(rd(v, PERFCTR0), 77, "the allowed counter counts");
	check_eq(rd(v, PERFCTR1), 0, "the denied counter reads 0");
	check_eq(vpmu_vm_set_event_filter(vpmu_vcpu_vm(v), NULL, NULL), 0, "filter removed");
	vpmu_vcpu_enter(v);
	c = since();
	check_calls(c, 1, 0, 0, "the entry opens the instructions event now");
	ok(hw_fd(PERF_COUNT_HW_INSTRUCTIONS) >= 0, "the instructions event is open");
out:
	world_down(&w, name);
}

/* A 64-bit counter (the RISC-V SBI PMU's: riscv-sbi), in i-mode: the
 * overflow at 2^64 is the host's period, and the next one after it is the
 * counter's next wrap (a lap of 2^64 is no step: perf_poll looped on it). */
static void sbi(struct vpmu_vcpu *v, unsigned long fid, uint64_t a0, uint64_t a1, uint64_t a2,
		uint64_t a3, struct vpmu_call_result *res)
{
	const uint64_t args[VPMU_CALL_ARGS] = { a0, a1, a2, a3, 0, 0 };
	if (vpmu_call(v, fid, args, res) < 0)
		res->error = -100;
}

static void test_imode_64bit(void)
{
	struct world w;
	const char *name = "host PMU, i-mode, 64-bit counter";
	if (!world_up_on(&w, 0, name, "riscv-sbi", (struct host_cpu){ "", 0, 0, 0 }))
		goto out;
	struct vpmu_vcpu *v = w.v;
	struct vpmu_call_result res;
	/* SBI chapter 11: config_matching(base 0, mask 1, flags 0, cycles),
	 * then start(idx, mask 1, SET_INIT_VALUE, -1000). */
	sbi(v, VPMU_SBI_PMU_COUNTER_CONFIG_MATCHING, 0, 1, 0, 1, &res);
	check_eq(res.error, 0, "config_matching(cycles) on counter 0");
	uint64_t idx = res.value;
	sbi(v, VPMU_SBI_PMU_COUNTER_START, idx, 1, 1, (uint64_t)-1000, &res);
	check_eq(res.error, 0, "start at -1000");
	vpmu_vcpu_enter(v);
	check_attr(last_rec(), PERF_COUNT_HW_CPU_CYCLES, 0, 0, 1000,
		   "64-bit cycles at -1000: sample_period is the distance to 2^64");
	int fd0 = hw_fd(PERF_COUNT_HW_CPU_CYCLES);
	uint64_t mask = 0;
	advance(fd0, 999);
	vpmu_vcpu_poll(v);
	ok(!vpmu_vcpu_pmi_pending(v, &mask), "999 of 1000 events: no PMI (mask 0x%" PRIx64 ")", mask);
	advance(fd0, 1);
	vpmu_vcpu_poll(v);
	mask = 0;
	bool pending = vpmu_vcpu_pmi_pending(v, &mask);
	ok(pending && mask == (1ull << idx), "the 1000th event: a PMI for counter %" PRIu64 " (%s, "
	   "mask 0x%" PRIx64 ")", idx, pending ? "pending" : "none", mask);
	vpmu_vcpu_pmi_ack(v);
	since();
	vpmu_vcpu_enter(v);
	advance(fd0, 5);
	vpmu_vcpu_poll(v);
	ok(!vpmu_vcpu_pmi_pending(v, &mask), "the wrapped counter counts on without a PMI");
	/* Sscofpmf: the counter that overflowed has OF set and raises no
	 * second interrupt until the guest restarts it (the model's image). */
	struct calls c = since();
	check_eq(c.open, 1, "after the PMI the event is opened again once");
	check_eq(last_rec()->sample_period, 0, "as a counting event: OF holds the next interrupt");
	sbi(v, VPMU_SBI_PMU_COUNTER_STOP, idx, 1, 0, 0, &res);
	sbi(v, VPMU_SBI_PMU_COUNTER_START, idx, 1, 1, 0, &res);
	check_eq(res.error, 0, "stopped, and started again at 0");
	vpmu_vcpu_enter(v);
	check_eq(last_rec()->sample_period, 1ull << 63, "a 64-bit counter at 0 is 2^64 from its "
		 "overflow: armed as 2^63 (no run counts that many)");
	advance(fd0 = hw_fd(PERF_COUNT_HW_CPU_CYCLES), 1000);
	vpmu_vcpu_poll(v);
	ok(!vpmu_vcpu_pmi_pending(v, &mask), "1000 events from 0: no PMI");
out:
	world_down(&w, name);
}

int main(void)
{
	test_attributes_and_syscalls();
	test_event_filter();
	test_imode();
	test_counts();
	test_refusals();
	test_no_host_pmu();
	test_imode_64bit();
	return tap_done();
}
