/* SPDX-License-Identifier: MIT */
/*
 * Guest events on the host (vpmu/backends/perf_translate.c,
 * docs/integration.md "Guest events on the host"), through the perf backend's
 * system-call double (perf_double.h) with a host CPU each case chooses: the
 * same event by its encoding (PERF_TYPE_RAW) where the host's table has the
 * guest's event with the same name and encoding, else the generic event
 * (PERF_TYPE_HARDWARE), else nothing, reported.
 *
 * The encodings expected are the vendors' data, read off the files under
 * data/perfmon (Intel's skylake_core.json and icelake_core.json, Linux perf's
 * amdzen4 files), not the tables generated from them.
 */
#include "perf_double.h"

#define PERFEVTSEL0 0x186u
#define PMC0 0xC1u
#define FIXED_CTR0 0x309u
#define FIXED_CTR_CTRL 0x38Du
#define GLOBAL_CTRL 0x38Fu
#define SEL_EN (1ull << 22)
#define SEL_OS (1ull << 17)
#define SEL_USR (1ull << 16)
#define CMASK(n) ((uint64_t)(n) << 24)

#define ZEN_PERF_CTL0 0xC0010200u
#define ZEN_PERF_CTR0 0xC0010201u

/* skylake_core.json: L2_RQSTS.MISS EventCode 0x24 UMask 0x3F. */
#define L2_RQSTS_MISS 0x3F24ull
/* CYCLE_ACTIVITY.STALLS_TOTAL EventCode 0xA3 UMask 0x04 CounterMask 4. */
#define STALLS_TOTAL (0x04A3ull | CMASK(4))
/* ARITH.DIVIDER_ACTIVE: Skylake EventCode 0x14 UMask 0x01 CounterMask 1;
 * Ice Lake's event of that name is UMask 0x09. */
#define SKL_DIVIDER_ACTIVE (0x0114ull | CMASK(1))
/* L2_RQSTS.PF_MISS EventCode 0x24 UMask 0x38: Ice Lake has no such event. */
#define L2_RQSTS_PF_MISS 0x3824ull
/* LONGEST_LAT_CACHE.REFERENCE EventCode 0x2E UMask 0x4F: not in Ice Lake's
 * file, and the SDM's architectural "LLC Reference" (cache-references). */
#define LLC_REFERENCE 0x4F2Eull
/* BR_INST_RETIRED.ALL_BRANCHES EventCode 0xC4 UMask 0x00 (architectural
 * "Branch Instruction Retired": branches). */
#define ALL_BRANCHES 0x00C4ull
/* amdzen4 cache.json: ic_tag_hit_miss.instruction_cache_miss EventCode 0x18E
 * UMask 0x18; PerfEvtSel holds event bits 11:8 in 35:32 (AMD64 APM vol. 2). */
#define ZEN_IC_MISS (0x8Eull | 0x18ull << 8 | 1ull << 32)

static const struct host_cpu skylake_host = { "GenuineIntel", 6, 0x5E, 3 };
static const struct host_cpu icelake_host = { "GenuineIntel", 6, 0x7E, 5 };
static const struct host_cpu zen4_host = { "AuthenticAMD", 0x19, 0x11, 1 };
static const struct host_cpu unknown_host = { "", 0, 0, 0 };

/* The VM's sources entry of `event`, or NULL. */
static const struct vpmu_event_source *source_of(struct vpmu_vm *vm, const char *event)
{
	static struct vpmu_event_source s[16];
	int n = vpmu_vm_event_sources(vm, s, 16);
	for (int i = 0; i < n && i < 16; i++)
		if (!strcmp(s[i].event, event))
			return &s[i];
	return NULL;
}

static void check_source(struct vpmu_vm *vm, const char *event, enum vpmu_count_source want,
			 const char *host_event, uint64_t programmings, const char *what)
{
	const struct vpmu_event_source *s = source_of(vm, event);
	ok(s && s->source == want && s->programmings == programmings &&
	   ((!host_event && !s->host_event) ||
	    (host_event && s->host_event && !strcmp(s->host_event, host_event))),
	   "%s: the accounting's source of %s: expected %s (%s), %" PRIu64 " programmings; seen %s (%s), %" PRIu64 " (%s)",
	   what, event, vpmu_count_source_name(want), host_event ? host_event : "no host event",
	   programmings, s ? vpmu_count_source_name(s->source) : "no entry",
	   s && s->host_event ? s->host_event : "no host event", s ? s->programmings : 0,
	   s && s->why ? s->why : "");
}

/* Counter 0 of an Intel VM programmed with `sel` (counting user and kernel):
 * what the next entry opens. */
static const struct open_rec *program_intel(struct vpmu_vcpu *v, uint64_t sel)
{
	unsigned before = D.nrec;
	wr(v, PERFEVTSEL0, 0);
	wr(v, PERFEVTSEL0, SEL_EN | SEL_OS | SEL_USR | sel);
	vpmu_vcpu_enter(v);
	return D.nrec > before ? last_rec() : NULL;
}

/* A Skylake guest on a Skylake host: every event of its file is the host's. */
static void test_same_cpu(void)
{
	struct world w;
	const char *name = "skylake guest, skylake host";
	if (!world_up_on(&w, 0, name, "skylake", skylake_host))
		goto out;
	wr(w.v, GLOBAL_CTRL, 0xF);
	const struct open_rec *r = program_intel(w.v, L2_RQSTS_MISS);
	ok(r && r->type == PERF_TYPE_RAW && r->config == L2_RQSTS_MISS && r->fd >= 0,
	   "%s: L2_RQSTS.MISS opens PERF_TYPE_RAW config 0x%llx: seen type %u config 0x%" PRIx64,
	   name, L2_RQSTS_MISS, r ? r->type : 99, r ? r->config : 0);
	advance(event_fd(PERF_TYPE_RAW, L2_RQSTS_MISS), 4321);
	check_eq(rd(w.v, PMC0), 4321, "%s: the guest's PMC0 reads the host event's count", name);
	check_source(w.vm, "L2_RQSTS.MISS", VPMU_COUNT_RAW, "L2_RQSTS.MISS", 1, name);

	/* The counter mask is part of the encoding. */
	r = program_intel(w.v, STALLS_TOTAL);
	ok(r && r->type == PERF_TYPE_RAW && r->config == STALLS_TOTAL,
	   "%s: CYCLE_ACTIVITY.STALLS_TOTAL (counter mask 4) opens raw config 0x%llx: seen type %u config 0x%" PRIx64,
	   name, STALLS_TOTAL, r ? r->type : 99, r ? r->config : 0);
	check_eq(rd(w.v, PMC0), 4321, "%s: the counter keeps its value across the new event", name);

	/* An encoding the data does not list (L2_RQSTS.MISS with a counter mask)
	 * is no event of the table, and no generic event: nothing opens. */
	unsigned logged = w.log.n;
	r = program_intel(w.v, L2_RQSTS_MISS | CMASK(1));
	ok(!r, "%s: L2_RQSTS.MISS with counter mask 1 opens nothing: seen an open of type %u config 0x%" PRIx64,
	   name, r ? r->type : 0, r ? r->config : 0);
	check_eq(w.log.n, logged + 1, "%s: one line logged for the event not countable", name);
	check_contains(w.log.n > logged ? w.log.line[logged] : NULL, "counts zero",
		       "%s: the line says its counter counts zero", name);

	/* Programmed again: counted once more, and the log line is not repeated. */
	program_intel(w.v, L2_RQSTS_MISS);
	check_source(w.vm, "L2_RQSTS.MISS", VPMU_COUNT_RAW, "L2_RQSTS.MISS", 2, name);
	program_intel(w.v, L2_RQSTS_MISS | CMASK(1));
	check_eq(w.log.n, logged + 1, "%s: the not-countable line is logged once per host", name);

	/* The fixed counter's INST_RETIRED.ANY is event 0, which a general
	 * counter's raw event cannot name: it goes as instructions. */
	unsigned before = D.nrec;
	wr(w.v, FIXED_CTR_CTRL, 0x3);
	wr(w.v, GLOBAL_CTRL, 0xF | 1ull << 32);
	vpmu_vcpu_enter(w.v);
	r = D.nrec > before ? last_rec() : NULL;
	ok(r && r->type == PERF_TYPE_HARDWARE && r->config == PERF_COUNT_HW_INSTRUCTIONS,
	   "%s: fixed counter 0 opens PERF_TYPE_HARDWARE instructions: seen type %u config 0x%" PRIx64,
	   name, r ? r->type : 99, r ? r->config : 0);
	check_source(w.vm, "INST_RETIRED.ANY", VPMU_COUNT_HARDWARE, "instructions", 1, name);
out:
	world_down(&w, name);
}

/* A Skylake guest on an Ice Lake host: the events of both files with one
 * encoding are raw, the others generic where the table makes them one, the
 * rest not countable. */
static void test_newer_host(void)
{
	struct world w;
	const char *name = "skylake guest, icelake host";
	if (!world_up_on(&w, 0, name, "skylake", icelake_host))
		goto out;
	wr(w.v, GLOBAL_CTRL, 0xF);
	const struct open_rec *r = program_intel(w.v, L2_RQSTS_MISS);
	ok(r && r->type == PERF_TYPE_RAW && r->config == L2_RQSTS_MISS,
	   "%s: L2_RQSTS.MISS (one encoding in both files) opens raw 0x%llx: seen type %u config 0x%" PRIx64,
	   name, L2_RQSTS_MISS, r ? r->type : 99, r ? r->config : 0);
	r = program_intel(w.v, LLC_REFERENCE);
	ok(r && r->type == PERF_TYPE_HARDWARE && r->config == PERF_COUNT_HW_CACHE_REFERENCES,
	   "%s: LONGEST_LAT_CACHE.REFERENCE (not Ice Lake's) opens cache-references: seen type %u config 0x%" PRIx64,
	   name, r ? r->type : 99, r ? r->config : 0);
	r = program_intel(w.v, SKL_DIVIDER_ACTIVE);
	ok(!r, "%s: ARITH.DIVIDER_ACTIVE (Ice Lake's has another unit mask) opens nothing: seen type %u config 0x%" PRIx64,
	   name, r ? r->type : 0, r ? r->config : 0);
	check_eq(rd(w.v, PMC0), 0, "%s: its counter reads 0", name);
	r = program_intel(w.v, L2_RQSTS_PF_MISS);
	ok(!r, "%s: L2_RQSTS.PF_MISS (no Ice Lake event) opens nothing", name);
	check_source(w.vm, "L2_RQSTS.MISS", VPMU_COUNT_RAW, "L2_RQSTS.MISS", 1, name);
	check_source(w.vm, "LONGEST_LAT_CACHE.REFERENCE", VPMU_COUNT_HARDWARE, "cache-references", 1,
		     name);
	check_source(w.vm, "ARITH.DIVIDER_ACTIVE", VPMU_COUNT_NONE, NULL, 1, name);
	check_source(w.vm, "L2_RQSTS.PF_MISS", VPMU_COUNT_NONE, NULL, 1, name);
	const struct vpmu_event_source *s = source_of(w.vm, "ARITH.DIVIDER_ACTIVE");
	check_contains(s ? s->why : NULL, "icelake", "%s: why not: names the host's table", name);
out:
	world_down(&w, name);
}

/* Another vendor, and a host whose CPU has no table: generic events only. */
static void test_other_hosts(void)
{
	struct world w;
	const char *name = "skylake guest, zen4 host";
	if (world_up_on(&w, 0, name, "skylake", zen4_host)) {
		wr(w.v, GLOBAL_CTRL, 0xF);
		const struct open_rec *r = program_intel(w.v, ALL_BRANCHES);
		ok(r && r->type == PERF_TYPE_HARDWARE && r->config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		   "%s: BR_INST_RETIRED.ALL_BRANCHES opens branches: seen type %u config 0x%" PRIx64,
		   name, r ? r->type : 99, r ? r->config : 0);
		r = program_intel(w.v, L2_RQSTS_MISS);
		ok(!r, "%s: L2_RQSTS.MISS opens nothing on an AMD host", name);
		check_source(w.vm, "L2_RQSTS.MISS", VPMU_COUNT_NONE, NULL, 1, name);
	}
	world_down(&w, name);

	name = "skylake guest, host CPU unknown";
	if (world_up_on(&w, 0, name, "skylake", unknown_host)) {
		wr(w.v, GLOBAL_CTRL, 0xF);
		const struct open_rec *r = program_intel(w.v, L2_RQSTS_MISS);
		ok(!r, "%s: L2_RQSTS.MISS opens nothing", name);
		r = program_intel(w.v, 0xC0);
		ok(r && r->type == PERF_TYPE_HARDWARE && r->config == PERF_COUNT_HW_INSTRUCTIONS,
		   "%s: INST_RETIRED.ANY_P opens instructions: seen type %u config 0x%" PRIx64, name,
		   r ? r->type : 99, r ? r->config : 0);
		const struct vpmu_event_source *s = source_of(w.vm, "L2_RQSTS.MISS");
		check_contains(s ? s->why : NULL, "unknown", "%s: why not: the host CPU is unknown", name);
	}
	world_down(&w, name);
}

/* A Zen 4 guest on a Zen 4 host: the 12-bit event select goes over whole. */
static void test_amd(void)
{
	struct world w;
	const char *name = "zen4 guest, zen4 host";
	if (world_up_on(&w, 0, name, "zen4", zen4_host)) {
		unsigned before = D.nrec;
		wr(w.v, ZEN_PERF_CTL0, SEL_EN | SEL_OS | SEL_USR | ZEN_IC_MISS);
		vpmu_vcpu_enter(w.v);
		const struct open_rec *r = D.nrec > before ? last_rec() : NULL;
		ok(r && r->type == PERF_TYPE_RAW && r->config == ZEN_IC_MISS,
		   "%s: ic_tag_hit_miss.instruction_cache_miss opens raw 0x%llx: seen type %u config 0x%" PRIx64,
		   name, ZEN_IC_MISS, r ? r->type : 99, r ? r->config : 0);
		advance(event_fd(PERF_TYPE_RAW, ZEN_IC_MISS), 99);
		check_eq(rd(w.v, ZEN_PERF_CTR0), 99, "%s: PERF_CTR0 reads the host event's count", name);
		check_source(w.vm, "ic_tag_hit_miss.instruction_cache_miss", VPMU_COUNT_RAW,
			     "ic_tag_hit_miss.instruction_cache_miss", 1, name);
	}
	world_down(&w, name);
}

/* Without a host PMU the sources say how each programmed event counted. */
static void test_no_host_pmu(void)
{
	struct world w;
	const char *name = "skylake guest, no host PMU";
	if (world_up_on(&w, ENOENT, name, "skylake", skylake_host)) {
		wr(w.v, GLOBAL_CTRL, 0xF);
		program_intel(w.v, 0x3C);
		program_intel(w.v, L2_RQSTS_MISS);
		check_source(w.vm, "CPU_CLK_UNHALTED.THREAD_P", VPMU_COUNT_TASK_CLOCK, "cycles", 1,
			     name);
		check_source(w.vm, "L2_RQSTS.MISS", VPMU_COUNT_NONE, NULL, 1, name);
		struct vpmu_event_source one;
		check_eq(vpmu_vm_event_sources(w.vm, &one, 1), 2,
			 "%s: vpmu_vm_event_sources with room for one says there are two", name);
		check_eq(vpmu_vm_event_sources(NULL, &one, 1), (uint64_t)(int64_t)-EINVAL,
			 "%s: a NULL VM is -EINVAL", name);
	}
	world_down(&w, name);
}

int main(void)
{
	test_same_cpu();
	test_newer_host();
	test_other_hosts();
	test_amd();
	test_no_host_pmu();
	return tap_done();
}
