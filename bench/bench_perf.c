/* SPDX-License-Identifier: MIT */
/*
 * What a guest's change of event costs the perf backend on a host PMU
 * (docs/performance.md "Guest events on the host"): a WRMSR of event select 0
 * alternating between INST_RETIRED.ANY_P (0xC0) and BR_INST_RETIRED.ALL_BRANCHES
 * (0xC4) in a Skylake VM, then the entry that applies it (vpmu_vcpu_enter: the
 * old host event closed, the new one opened).  Both events are generic events
 * and in Skylake's table, so the host opens the same number of events whichever
 * way it translates them:
 *   --host skylake   the host CPU has the skylake table: PERF_TYPE_RAW events
 *                    (the translation's name and encoding match)
 *   --host unknown   no host identity: PERF_TYPE_HARDWARE events (the generic
 *                    path, as before translation existed)
 * The system calls are a table that does nothing (backends/perf_sys.h), so the
 * figure is the library's and the backend's own work; a real perf_event_open and
 * close add their kernel time on top, the same for both.
 *
 *   bench_perf [--iters N] [--runs R]                  ns/op, both hosts
 *   bench_perf --callgrind --host H [--iters N]        one host, collection on
 *                                                      only around the loop
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <valgrind/callgrind.h>

#include "vpmu/backend.h"
#include "vpmu/vpmu.h"
/* Internal: the backend's system-call table. */
#include "backends/perf_sys.h"

#define PERFEVTSEL0 0x186u
#define SEL_A 0x4300C0ull   /* EN | OS | USR, INST_RETIRED.ANY_P */
#define SEL_B 0x4300C4ull   /* EN | OS | USR, BR_INST_RETIRED.ALL_BRANCHES */

static int null_next;
static uint64_t opens, raw_opens;

static int null_open(void *c, struct perf_event_attr *a)
{
	(void)c;
	opens++;
	raw_opens += a->type == PERF_TYPE_RAW;
	return 100 + (null_next++ & 1023);
}
static int null_read(void *c, int fd, uint64_t *v) { (void)c, (void)fd; *v = 0; return 1; }
static int null_period(void *c, int fd, uint64_t p) { (void)c, (void)fd, (void)p; return 0; }
static int null_signal(void *c, int fd, int s) { (void)c, (void)fd, (void)s; return 0; }
static const volatile uint32_t *null_map(void *c, int fd) { (void)c, (void)fd; return NULL; }
static void null_unmap(void *c, const volatile uint32_t *l) { (void)c, (void)l; }
static void null_close(void *c, int fd) { (void)c, (void)fd; }
static uint64_t null_now(void *c) { static uint64_t t; (void)c; return t += 1000; }

static int skylake_cpu(void *c, char vendor[13], unsigned *family, unsigned *model,
		       unsigned *stepping)
{
	(void)c;
	memcpy(vendor, "GenuineIntel", 13);
	*family = 6, *model = 0x5E, *stepping = 3;
	return 0;
}

static const struct vpmu_perf_sys sys_skylake = {
	null_open, null_read, null_period, null_signal, null_map, null_unmap, null_close,
	null_now, skylake_cpu, NULL,
};
static const struct vpmu_perf_sys sys_unknown = {
	null_open, null_read, null_period, null_signal, null_map, null_unmap, null_close,
	null_now, NULL, NULL,
};

struct world {
	struct vpmu_perf *perf;
	struct vpmu_host *host;
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v;
};

static void die(const char *what)
{
	fprintf(stderr, "bench_perf: %s\n", what);
	exit(2);
}

static void setup(struct world *w, const struct vpmu_perf_sys *sys)
{
	struct vpmu_backend be;
	if (vpmu_perf_create_sys(1, SIGUSR1, 0, sys, &w->perf) || !vpmu_perf_host_pmu(w->perf))
		die("perf backend over the null system calls");
	vpmu_perf_backend(w->perf, &be);
	if (vpmu_host_create(&be, 1, &w->host))
		die("host create");
	vpmu_perf_attach(w->perf, w->host);
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	cfg.model = "skylake";
	if (vpmu_vm_create(w->host, &cfg, &w->vm) || vpmu_vcpu_create(w->vm, 0, &w->v) ||
	    vpmu_vcpu_switch_in(w->v, 0))
		die("skylake VM");
}

static void teardown(struct world *w)
{
	vpmu_vcpu_switch_out(w->v);
	vpmu_vm_destroy(w->vm);
	vpmu_host_destroy(w->host);
	vpmu_perf_destroy(w->perf);
}

/* One guest change of event and the entry after it. */
__attribute__((noinline)) static void bench_event_change(struct world *w, uint64_t i)
{
	enum vpmu_fault f;
	vpmu_reg_write(w->v, VPMU_SPACE_MSR, PERFEVTSEL0, (i & 1) ? SEL_A : SEL_B, &f);
	vpmu_vcpu_enter(w->v);
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static const struct vpmu_perf_sys *sys_of(const char *host)
{
	return !strcmp(host, "skylake") ? &sys_skylake : !strcmp(host, "unknown") ? &sys_unknown
										  : NULL;
}

static void report(const char *host, uint64_t iters, uint64_t o0, uint64_t r0)
{
	printf("host=%s iters=%" PRIu64 " opens/op=%.3f raw/op=%.3f\n", host, iters,
	       (double)(opens - o0) / (double)iters, (double)(raw_opens - r0) / (double)iters);
}

int main(int argc, char **argv)
{
	uint64_t iters = 0;
	unsigned runs = 7;
	int callgrind = 0;
	const char *host = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--callgrind"))
			callgrind = 1;
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--host") && i + 1 < argc && sys_of(argv[i + 1]))
			host = argv[++i];
		else
			die("usage: bench_perf [--callgrind --host skylake|unknown] [--iters N] [--runs R]");
	}
	if (callgrind && !host)
		die("--callgrind needs --host");
	static const char *const hosts[] = { "unknown", "skylake" };
	for (unsigned h = 0; h < 2; h++) {
		if (host && strcmp(host, hosts[h]))
			continue;
		struct world w;
		setup(&w, sys_of(hosts[h]));
		bench_event_change(&w, 0);   /* the first programming builds the translations */
		uint64_t n = iters ? iters : callgrind ? 100000 : 1000000, o0 = opens, r0 = raw_opens;
		if (callgrind) {
			CALLGRIND_TOGGLE_COLLECT;
			for (uint64_t i = 1; i <= n; i++)
				bench_event_change(&w, i);
			CALLGRIND_TOGGLE_COLLECT;
			report(hosts[h], n, o0, r0);
		} else {
			double best = 0;
			for (unsigned r = 0; r < runs; r++) {
				double t0 = now_ns();
				for (uint64_t i = 1; i <= n; i++)
					bench_event_change(&w, i);
				double ns = (now_ns() - t0) / (double)n;
				if (!r || ns < best)
					best = ns;
			}
			printf("%-8s event change + entry %8.1f ns (min of %u runs)  ", hosts[h], best, runs);
			report(hosts[h], n * runs, o0, r0);
		}
		teardown(&w);
	}
	return 0;
}
