/* SPDX-License-Identifier: MIT */
/*
 * libvirt typed parameters of the accounting (tools/accounting/libvirt/acct_typed_params.c,
 * docs/accounting.md).  A P6 VM is driven through the library with the sim
 * backend, doing what tests/accounting/two-vcpus.trace does: vCPU 0 counts
 * 5000 cycles on counter 0 and 1234 instructions on counter 1, reads both
 * back, then breaks cpl-none (EN without USR or OS) once; vCPU 1 counts 700
 * cycles on counter 0.  Four writes and two reads in all.  The host cannot
 * count bus-cycles (the sim's event_source is replaced for that one event).
 * Every parameter is read back with libvirt's own getters
 * (include/libvirt/libvirt-common.h) against those known counts, and the
 * parameters printed as virsh prints a stats record must be the domstats text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accounting/acct_formats.h"
#include "accounting/acct_keys.h"
#include "accounting/libvirt/acct_typed_params.h"
#include "guest_msr.h"
#include "tap.h"
#include "vpmu/backend.h"

#define NOT_COUNTABLE VPMU_EV_BUS_CYCLES

static enum vpmu_count_source no_bus_cycles(void *ctx, enum vpmu_event ev, const char **why)
{
	(void)ctx;
	if (ev == NOT_COUNTABLE) {
		*why = "not countable on this test's host";
		return VPMU_COUNT_NONE;
	}
	*why = "counted as the test's ticks say";
	return VPMU_COUNT_SIM;
}

static struct vpmu_sim *sim;
static struct vpmu_host *host;
static struct vpmu_vm *vm;

/* two-vcpus.trace's workload; 0 when every step went as on a P6 */
static int run_workload(void)
{
	static struct vpmu_backend_ops ops;
	struct vpmu_backend be;
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vcpu *v0, *v1;
	int bad = 0;
	if (vpmu_sim_create(2, &sim))
		return -1;
	vpmu_sim_backend(sim, &be);
	ops = *be.ops;
	ops.event_source = no_bus_cycles;
	be.ops = &ops;
	if (vpmu_host_create(&be, 2, &host))
		return -1;
	vpmu_sim_attach(sim, host);
	cfg.model = "p6";
	if (vpmu_vm_create(host, &cfg, &vm) || vpmu_vcpu_create(vm, 0, &v0) || vpmu_vcpu_create(vm, 1, &v1))
		return -1;

	bad |= vpmu_vcpu_switch_in(v0, 0);
	bad |= wr(v0, 0x187, 0x0300c0);     /* PerfEvtSel1: INST_RETIRED, USR|OS */
	bad |= wr(v0, 0x186, 0x430079);     /* PerfEvtSel0: CPU_CLK_UNHALTED, USR|OS, EN */
	bad |= vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 5000, VPMU_MODE_USER);
	bad |= vpmu_sim_tick(sim, 0, VPMU_EV_INSTRUCTIONS, 1234, VPMU_MODE_USER);
	bad |= rd(v0, 0xc1) != 5000;
	bad |= rd(v0, 0xc2) != 1234;
	bad |= wr(v0, 0x186, 0x400079);     /* EN without USR or OS: perfctr's cpl-none */
	bad |= vpmu_vcpu_switch_out(v0);

	bad |= vpmu_vcpu_switch_in(v1, 1);
	bad |= wr(v1, 0x186, 0x430079);
	bad |= vpmu_sim_tick(sim, 1, VPMU_EV_CYCLES, 700, VPMU_MODE_USER);
	bad |= vpmu_vcpu_switch_out(v1);
	return bad ? -1 : 0;
}

static void teardown(void)
{
	vpmu_vm_destroy(vm);
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
}

static unsigned long long ull(virTypedParameterPtr p, int n, const char *key, int *found)
{
	unsigned long long v = ~0ull;
	*found = virTypedParamsGetULLong(p, n, key, &v) == 1;
	return v;
}

/* Whether key is there as an unsigned long long of value want. */
static int has_ull(virTypedParameterPtr p, int n, const char *key, unsigned long long want)
{
	int found;
	unsigned long long v = ull(p, n, key, &found);
	if (found && v == want)
		return 1;
	if (found)
		printf("#   %s=%llu, want %llu\n", key, v, want);
	else
		printf("#   no %s\n", key);
	return 0;
}

/* The type libvirt gives a key of this kind (docs/accounting.md; counts as
 * libvirt's own perf group, include/libvirt/libvirt-domain.h). */
static int want_type(const char *field)
{
	size_t n = strlen(field);
	if (!strcmp(field, "vpmu.model"))
		return VIR_TYPED_PARAM_STRING;
	if (!strcmp(field, "vpmu.vcpu.count") || (n > 10 && !strcmp(field + n - 10, ".countable")))
		return VIR_TYPED_PARAM_UINT;
	return VIR_TYPED_PARAM_ULLONG;
}

/* The parameters as virsh prints a stats record (virshDomainStatsPrintRecord:
 * "Domain: 'NAME'", then "  FIELD=VALUE" per parameter); NULL on failure. */
static char *as_virsh(const char *name, virTypedParameterPtr p, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "Domain: '%s'\n", name);
	for (int i = 0; i < n; i++) {
		fprintf(f, "  %s=", p[i].field);
		switch (p[i].type) {
		case VIR_TYPED_PARAM_ULLONG: fprintf(f, "%llu\n", p[i].value.ul); break;
		case VIR_TYPED_PARAM_UINT: fprintf(f, "%u\n", p[i].value.ui); break;
		case VIR_TYPED_PARAM_STRING: fprintf(f, "%s\n", p[i].value.s); break;
		default: fprintf(f, "(type %d)\n", p[i].type); break;
		}
	}
	fputc('\n', f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *domstats(const struct acct_vm *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;
	if (!f)
		return NULL;
	err = acct_write_domstats(f, v, 1);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static unsigned key_lines(const char *text)
{
	unsigned c = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		c += !strncmp(p, "  ", 2);
	return c;
}

/* Types, names, and the whole set against the domstats text of v. */
static void check_shape(const char *what, const struct acct_vm *v, virTypedParameterPtr p, int n)
{
	int types = 1, unique = 1, fits = 1;
	char *text = domstats(v), *mine = as_virsh(v->name, p, n);
	for (int i = 0; i < n; i++) {
		if (p[i].type != want_type(p[i].field)) {
			types = 0;
			printf("#   %s: type %d, want %d\n", p[i].field, p[i].type, want_type(p[i].field));
		}
		if (virTypedParamsGet(p, n, p[i].field) != &p[i]) {
			unique = 0;
			printf("#   %s: twice\n", p[i].field);
		}
		fits &= memchr(p[i].field, 0, sizeof(p[i].field)) != NULL;
	}
	ok(types, "%s: events and counts ULLONG, vpmu.model STRING, vpmu.vcpu.count and countable UINT", what);
	ok(unique && fits, "%s: every key once, within VIR_TYPED_PARAM_FIELD_LENGTH", what);
	ok(text && (int)key_lines(text) == n, "%s: as many parameters as domstats lines (%d, %u)", what, n,
	   text ? key_lines(text) : 0);
	ok(text && mine && !strcmp(text, mine),
	   "%s: printed as virsh prints a stats record, the parameters are the domstats text", what);
	if (text && mine && strcmp(text, mine))
		printf("# domstats:\n%s# parameters:\n%s", text, mine);
	free(text);
	free(mine);
}

/* vpmu.vcpu.<i>.<key> summed over the vCPUs equals the VM's vpmu.<key>. */
static void check_sums(virTypedParameterPtr p, int n)
{
	int good = 1, checked = 0;
	for (int i = 0; i < n; i++) {
		const char *f = p[i].field, *rest;
		char vmkey[VIR_TYPED_PARAM_FIELD_LENGTH + 8];
		unsigned long long sum = 0;
		int found;
		if (!strncmp(f, "vpmu.", 5) && strncmp(f, "vpmu.vcpu.", 10) &&
		    p[i].type == VIR_TYPED_PARAM_ULLONG) {
			rest = f + 5;
		} else {
			continue;
		}
		/* every vCPU's key of the same name */
		for (int j = 0; j < n; j++) {
			const char *g = p[j].field, *dot;
			if (strncmp(g, "vpmu.vcpu.", 10) || g[10] < '0' || g[10] > '9')
				continue;
			dot = strchr(g + 10, '.');
			if (dot && !strcmp(dot + 1, rest) && p[j].type == VIR_TYPED_PARAM_ULLONG)
				sum += p[j].value.ul;
		}
		snprintf(vmkey, sizeof(vmkey), "vpmu.%s", rest);
		if (ull(p, n, vmkey, &found) != sum || !found) {
			good = 0;
			printf("#   %s=%llu, the vCPUs' sum %llu\n", vmkey, p[i].value.ul, sum);
		}
		checked++;
	}
	ok(good && checked == 7 + VPMU_TOTALS_NR + 2 + 1,
	   "the vCPUs' keys sum to the VM's (%d keys: 7 events, the counts, 2 counters, 1 violation)", checked);
}

static void test_workload(const struct acct_vm *snap)
{
	virTypedParameterPtr p = NULL;
	int n = -1, err, found;
	const char *s = NULL;
	unsigned u = ~0u;

	err = acct_typed_params(snap, &p, &n);
	ok(err == 0 && p && n > 0, "acct_typed_params: 0, %d parameters (%d)", n, err);
	if (err)
		return;
	check_shape("two vCPUs", snap, p, n);

	ok(has_ull(p, n, "vpmu.cpu_cycles", 5000 + 700) && has_ull(p, n, "vpmu.instructions", 1234),
	   "vpmu.cpu_cycles=5700, vpmu.instructions=1234: the VM's counts");
	ok(has_ull(p, n, "vpmu.ref_cpu_cycles", 0) && has_ull(p, n, "vpmu.branch_instructions", 0) &&
	   has_ull(p, n, "vpmu.branch_misses", 0) && has_ull(p, n, "vpmu.cache_references", 0) &&
	   has_ull(p, n, "vpmu.cache_misses", 0),
	   "the other countable events: keys of 0");
	ull(p, n, "vpmu.bus_cycles", &found);
	ok(!found && !virTypedParamsGet(p, n, "vpmu.bus_cycles") && !virTypedParamsGet(p, n, "vpmu.vcpu.0.bus_cycles") &&
	   !virTypedParamsGet(p, n, "vpmu.vcpu.1.bus_cycles"),
	   "bus-cycles, which the host cannot count: no vpmu.bus_cycles, no per-vCPU key");
	{
		int perf = 0;
		for (int i = 0; i < n; i++)
			perf |= !strncmp(p[i].field, "perf.", 5);
		ok(!perf, "no key of libvirt's perf.* group: those are host measurements of the domain, "
		   "these the guest's virtual counters");
	}
	ok(virTypedParamsGetUInt(p, n, "vpmu.bus_cycles.countable", &u) == 1 && u == 0,
	   "vpmu.bus_cycles.countable=0, an unsigned int (%u)", u);
	{
		unsigned c = 0;
		for (int i = 0; i < n; i++)
			c += strstr(p[i].field, ".countable") != NULL;
		ok(c == 1, "no countable key for the events the host counts (%u)", c);
	}
	ok(virTypedParamsGetString(p, n, "vpmu.model", &s) == 1 && s && !strcmp(s, "p6"),
	   "vpmu.model=p6, a string (%s)", s ? s : "none");
	u = ~0u;
	ok(virTypedParamsGetUInt(p, n, "vpmu.vcpu.count", &u) == 1 && u == 2, "vpmu.vcpu.count=2 (%u)", u);
	ok(has_ull(p, n, "vpmu.vcpu.0.cpu_cycles", 5000) && has_ull(p, n, "vpmu.vcpu.0.instructions", 1234) &&
	   has_ull(p, n, "vpmu.vcpu.1.cpu_cycles", 700) && has_ull(p, n, "vpmu.vcpu.1.instructions", 0),
	   "per-vCPU events: vCPU 0 5000 cycles and 1234 instructions, vCPU 1 700 cycles");
	ok(has_ull(p, n, "vpmu.counter.0", 5700) && has_ull(p, n, "vpmu.counter.1", 1234) &&
	   has_ull(p, n, "vpmu.vcpu.0.counter.0", 5000) && has_ull(p, n, "vpmu.vcpu.1.counter.0", 700) &&
	   !virTypedParamsGet(p, n, "vpmu.counter.2"),
	   "guest counters: the P6's two, counter 0 cycles and counter 1 instructions");
	ok(has_ull(p, n, "vpmu.writes", 4) && has_ull(p, n, "vpmu.reads", 2) &&
	   has_ull(p, n, "vpmu.vcpu.0.writes", 3) && has_ull(p, n, "vpmu.vcpu.1.writes", 1) &&
	   has_ull(p, n, "vpmu.faults", 0) && has_ull(p, n, "vpmu.calls", 0) &&
	   has_ull(p, n, "vpmu.switch_ins", 2),
	   "accesses: four writes (three on vCPU 0), two reads, no faults; two switch-ins");
	ok(has_ull(p, n, "vpmu.violations.cpl-none", 1) && has_ull(p, n, "vpmu.vcpu.0.violations.cpl-none", 1) &&
	   !virTypedParamsGet(p, n, "vpmu.vcpu.1.violations.cpl-none"),
	   "the one cpl-none violation, on vCPU 0; none on vCPU 1");
	check_sums(p, n);
	virTypedParamsFree(p, n);
}

/* A zeroed snapshot: no vCPUs, and (VPMU_COUNT_NONE is 0) no event countable. */
static void test_empty(void)
{
	struct acct_vm z;
	virTypedParameterPtr p = NULL;
	int n = -1, err, found;
	unsigned u = ~0u;
	memset(&z, 0, sizeof(z));
	snprintf(z.name, sizeof(z.name), "empty");
	snprintf(z.model, sizeof(z.model), "k7");
	z.nr_ctrs = 4;
	err = acct_typed_params(&z, &p, &n);
	ok(err == 0 && n == VPMU_EV_NR + 2 + VPMU_TOTALS_NR + 4,
	   "no vCPUs, nothing countable: %d parameters (the events' countable keys, model, vCPU count, "
	   "the counts, 4 counters) (%d)", n, err);
	if (err)
		return;
	check_shape("empty", &z, p, n);
	ull(p, n, "vpmu.cpu_cycles", &found);
	ok(!found && virTypedParamsGetUInt(p, n, "vpmu.cpu_cycles.countable", &u) == 1 && u == 0 &&
	   virTypedParamsGetUInt(p, n, "vpmu.vcpu.count", &u) == 1 && u == 0,
	   "no event count at all; vpmu.cpu_cycles.countable=0; vpmu.vcpu.count=0");
	virTypedParamsFree(p, n);
}

static int stop_at;
static int stop(void *ctx, const struct acct_key *k)
{
	unsigned *calls = ctx;
	(void)k;
	return ++*calls == (unsigned)stop_at ? -ENOSPC : 0;
}

static void test_errors(const struct acct_vm *snap)
{
	virTypedParameterPtr p = (virTypedParameterPtr)1;
	int n = 7;
	unsigned calls = 0;
	ok(acct_typed_params(NULL, &p, &n) == -EINVAL && p == NULL && n == 0,
	   "NULL snapshot: -EINVAL, *params NULL, *nparams 0");
	n = 7;
	ok(acct_typed_params(snap, NULL, &n) == -EINVAL && n == 0, "NULL params: -EINVAL");
	p = (virTypedParameterPtr)1;
	ok(acct_typed_params(snap, &p, NULL) == -EINVAL && p == NULL, "NULL nparams: -EINVAL");
	ok(acct_domstats_walk(snap, NULL, NULL) == -EINVAL && acct_domstats_walk(NULL, stop, &calls) == -EINVAL,
	   "acct_domstats_walk: NULL arguments, -EINVAL");
	stop_at = 3;
	ok(acct_domstats_walk(snap, stop, &calls) == -ENOSPC && calls == 3,
	   "acct_domstats_walk: stops at the callback's first error, and returns it (%u calls)", calls);
}

int main(void)
{
	struct acct_vm snap;
	int err = run_workload();
	ok(err == 0, "the workload ran: every access answered as a P6 answers it");
	memset(&snap, 0, sizeof(snap));
	err = err ? err : acct_collect(&snap, "dom1", vm, host, NULL);
	ok(err == 0 && snap.nr_vcpus == 2, "snapshot of the VM (%d)", err);
	if (!err) {
		test_workload(&snap);
		test_errors(&snap);
	}
	test_empty();
	acct_vm_release(&snap);
	teardown();
	return tap_done();
}
