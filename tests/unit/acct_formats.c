/* SPDX-License-Identifier: MIT */
/*
 * The accounting snapshot (tools/accounting/acct_snapshot.h) and its formats
 * (tools/accounting/) on snapshots built by hand and from libvpmu: two VMs, one
 * with KVM statistics on its vCPUs, an event the host cannot count, a rule
 * violation, a domain name that needs escaping, and a count above INT64_MAX.
 * The Prometheus output goes through `promtool check metrics` (Debian's
 * prometheus package: a test dependency), the JSON back through json-c's
 * parser and through acct_read_json: every format of a parsed snapshot is
 * byte for byte that of the original, and malformed JSON is refused.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "accounting/acct_buf.h"
#include "accounting/acct_formats.h"
#include "accounting/acct_keys.h"
#include "tap.h"
#include "trace/trace.h"
#include "vpmu/backend.h"

#define DOM0 "a\"b\\c"            /* a"b\c */
#define DOM0_ESC "a\\\"b\\\\c"    /* a\"b\\c, as a Prometheus label value */
#define NOT_COUNTABLE VPMU_EV_REF_CYCLES

static struct acct_vm vms[2];

static void sum(struct vpmu_totals *s, const struct vpmu_totals *t)
{
	for (unsigned i = 0; i < VPMU_MAX_CTRS; i++)
		s->pmc[i] += t->pmc[i];
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		s->events[e] += t->events[e];
	s->pmis += t->pmis;
	s->reads += t->reads;
	s->writes += t->writes;
	s->calls += t->calls;
	s->faults += t->faults;
	s->strict_refusals += t->strict_refusals;
	s->switch_ins += t->switch_ins;
	s->cache_hits += t->cache_hits;
	for (unsigned r = 0; r < VPMU_MAX_RULES; r++)
		s->violations[r] += t->violations[r];
}

/* Distinct counts: base + small offsets per field. */
static void fill_totals(struct vpmu_totals *t, uint64_t base, unsigned nr_ctrs)
{
	for (unsigned i = 0; i < nr_ctrs; i++)
		t->pmc[i] = base + 100 + i;
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		t->events[e] = base + 200 + e;
	t->pmis = base + 1;
	t->reads = base + 2;
	t->writes = base + 3;
	t->calls = base + 4;
	t->faults = base + 5;
	t->strict_refusals = base + 6;
	t->switch_ins = base + 7;
	t->cache_hits = base + 8;
}

static void fill_kvm(struct vpmu_kvm_stats *k, uint64_t base)
{
	k->msr_exits = base + 11;
	k->msr_faults = base + 12;
	k->pmis_fixed = base + 13;
	k->pmis_nmi = base + 14;
	k->pmis_masked = base + 15;
	k->pmis_apic_off = base + 16;
	k->pmis_bad_mode = base + 17;
	k->kicks = base + 18;
	k->rdpmc_exits = base + 19;
	k->rdpmc_syncs = base + 20;
	k->pmis_held = base + 21;
}

static void add_vcpu(struct acct_vm *vm, unsigned index, const struct vpmu_totals *t,
		     const struct vpmu_kvm_stats *k)
{
	int err = acct_vm_add_vcpu(vm, index, t, k);
	if (err) {
		printf("Bail out! acct_vm_add_vcpu: %d\n", err);
		exit(1);
	}
}

static void room(struct acct_vm *vm, unsigned max)
{
	vm->vcpu = calloc(max, sizeof(*vm->vcpu));
	vm->max_vcpus = max;
	if (!vm->vcpu) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
}

static void build(void)
{
	struct acct_vm *a = &vms[0], *b = &vms[1];
	struct vpmu_totals t, want = { 0 };
	struct vpmu_kvm_stats k;
	memset(vms, 0, sizeof(vms));

	/* VM 0: p6, two KVM vCPUs, ref-cycles not countable, rule 1 broken on vCPU 1 */
	snprintf(a->name, sizeof(a->name), "%s", DOM0);
	snprintf(a->model, sizeof(a->model), "p6");
	a->nr_ctrs = 2;
	a->nr_rules = 2;
	snprintf(a->rule[0], sizeof(a->rule[0]), "evntsel-reserved");
	snprintf(a->rule[1], sizeof(a->rule[1]), "evntsel1-enable");
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		a->source[e] = VPMU_COUNT_HARDWARE;
	a->source[VPMU_EV_CYCLES] = VPMU_COUNT_TASK_CLOCK;
	a->source[NOT_COUNTABLE] = VPMU_COUNT_NONE;
	room(a, 2);
	for (unsigned i = 0; i < 2; i++) {
		memset(&t, 0, sizeof(t));
		memset(&k, 0, sizeof(k));
		fill_totals(&t, 1000 * (i + 1), a->nr_ctrs);
		if (i == 1)
			t.violations[1] = 3;
		fill_kvm(&k, 5000 * (i + 1));
		add_vcpu(a, i, &t, &k);
		sum(&want, &t);
	}
	ok(!memcmp(&a->total, &want, sizeof(want)) && a->nr_vcpus == 2,
	   "acct_vm_add_vcpu: the VM's total is the sum of its vCPUs");
	/* the P6 table's events its guest programmed: one counted as the generic
	 * event, one the host cannot count */
	const struct acct_event_source src[2] = {
		{ "INST_RETIRED", "instructions", VPMU_COUNT_HARDWARE, 3 },
		{ "DATA_MEM_REFS", "", VPMU_COUNT_NONE, 1 },
	};
	ok(acct_vm_set_sources(a, src, 2) == 0 && a->nr_sources == 2,
	   "acct_vm_set_sources: two event sources");
	struct acct_event_source bad = { "X\xff", "", VPMU_COUNT_NONE, 1 };
	ok(acct_vm_set_sources(a, &bad, 1) == -EINVAL && a->nr_sources == 2 &&
	   !strcmp(a->event_source[1].event, "DATA_MEM_REFS"),
	   "acct_vm_set_sources: a name that is not UTF-8 is -EINVAL, the sources as they were");

	/* VM 1: k7, one vCPU (index 3) without KVM statistics, every event sim */
	snprintf(b->name, sizeof(b->name), "plain");
	snprintf(b->model, sizeof(b->model), "k7");
	b->nr_ctrs = 4;
	b->nr_rules = 1;
	snprintf(b->rule[0], sizeof(b->rule[0]), "k7-rule");
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		b->source[e] = VPMU_COUNT_SIM;
	room(b, 1);
	memset(&t, 0, sizeof(t));
	fill_totals(&t, 70000, b->nr_ctrs);
	t.pmc[3] = UINT64_MAX;
	add_vcpu(b, 3, &t, NULL);
	ok(b->vcpu[0].index == 3 && !b->vcpu[0].have_kvm && b->total.pmc[3] == UINT64_MAX,
	   "acct_vm_add_vcpu: index kept, no KVM statistics for NULL");
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1))) {
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = 0;
		}
	}
	fclose(f);
	return buf;
}

/* Writes with fn to a new temporary file; its path in path. */
static int write_tmp(int (*fn)(FILE *, const struct acct_vm *, unsigned), const struct acct_vm *v,
		     unsigned n, char *path, size_t size, const char *tag)
{
	const char *dir = getenv("TMPDIR");
	FILE *f;
	int fd, err;
	snprintf(path, size, "%s/vpmu-acct-%s-XXXXXX", dir && *dir ? dir : "/tmp", tag);
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	err = fn(f, v, n);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* Whether text has exactly this line. */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, line, n) && (p[n] == '\n' || !p[n]))
			return 1;
	return 0;
}

/* How many lines start with prefix. */
static unsigned count_prefix(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	unsigned c = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		c += !strncmp(p, prefix, n);
	return c;
}

/* Lines that start with prefix and contain needle. */
static unsigned count_with(const char *text, const char *prefix, const char *needle)
{
	size_t n = strlen(prefix);
	unsigned c = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (strncmp(p, prefix, n))
			continue;
		if (memmem(p, len, needle, strlen(needle)))
			c++;
	}
	return c;
}

static int has(const char *text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int has(const char *text, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (has_line(text, line))
		return 1;
	printf("#   no line: %s\n", line);
	return 0;
}

static void promtool_check(const char *path)
{
	char cmd[600], out[4096];
	size_t n = 0;
	FILE *p;
	int st;
	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		ok(0, "promtool check metrics: promtool not found (Debian package prometheus, a test dependency)");
		return;
	}
	snprintf(cmd, sizeof(cmd), "promtool check metrics < '%s' 2>&1", path);
	p = popen(cmd, "r");
	if (!p) {
		ok(0, "promtool check metrics: popen: %s", strerror(errno));
		return;
	}
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	st = pclose(p);
	ok(st == 0 && n == 0, "promtool check metrics: clean (exit 0, no output)");
	if (st != 0 || n)
		printf("#   status %d, output:\n# %s\n", st, out);
}

static const char *const families[] = {
	"vpmu_vm_info", "vpmu_event_countable", "vpmu_event_programmings_total", "vpmu_events_total",
	"vpmu_pmc_events_total",
	"vpmu_pmis_raised_total", "vpmu_pmis_delivered_total", "vpmu_pmis_lost_total",
	"vpmu_pmis_held_total",
	"vpmu_register_accesses_total", "vpmu_faults_total", "vpmu_strict_refusals_total",
	"vpmu_filtered_programmings_total",
	"vpmu_rule_violations_total", "vpmu_cache_hits_total", "vpmu_switch_ins_total",
	"vpmu_msr_exits_total", "vpmu_rdpmc_exits_total",
};
#define NR_FAMILIES ((unsigned)(sizeof(families) / sizeof(families[0])))

static void test_prometheus(void)
{
	const struct acct_vm *a = &vms[0], *b = &vms[1];
	const struct acct_vcpu *a0 = &a->vcpu[0], *a1 = &a->vcpu[1], *b3 = &b->vcpu[0];
	char path[256], pfx[128];
	char *t;
	int err = write_tmp(acct_write_prometheus, vms, 2, path, sizeof(path), "prom");
	ok(err == 0, "acct_write_prometheus: 0 (%d)", err);
	t = slurp(path);
	ok(t != NULL, "read the Prometheus output back");
	if (!t) {
		unlink(path);
		return;
	}
	promtool_check(path);

	for (unsigned f = 0; f < NR_FAMILIES; f++) {
		char help[96], type[96];
		snprintf(help, sizeof(help), "# HELP %s ", families[f]);
		snprintf(type, sizeof(type), "# TYPE %s %s", families[f], f < 2 ? "gauge" : "counter");
		ok(count_prefix(t, help) == 1 && has_line(t, type) && count_prefix(t, "# TYPE ") == NR_FAMILIES,
		   "%s: one # HELP and one # TYPE", families[f]);
	}
	/* families grouped: once a family's samples end, none of it comes later */
	{
		unsigned switches = 0;
		char last[64] = "";
		for (const char *p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
			size_t n = strcspn(p, "{ \n");
			if (*p == '#' || n >= sizeof(last))
				continue;
			if (strncmp(p, last, n) || last[n]) {
				memcpy(last, p, n);
				last[n] = 0;
				switches++;
			}
		}
		ok(switches == NR_FAMILIES, "samples grouped by family (%u runs, %u families)", switches,
		   NR_FAMILIES);
	}

	ok(has(t, "vpmu_event_programmings_total{domain=\"%s\",event=\"INST_RETIRED\",source=\"hardware\",host_event=\"instructions\"} 3",
	       DOM0_ESC) &&
	   has(t, "vpmu_event_programmings_total{domain=\"%s\",event=\"DATA_MEM_REFS\",source=\"not-countable\",host_event=\"\"} 1",
	       DOM0_ESC) && count_prefix(t, "vpmu_event_programmings_total{domain=\"plain\"") == 0,
	   "vpmu_event_programmings_total: the sources of VM 0, none for VM 1");
	ok(has(t, "vpmu_vm_info{domain=\"%s\",model=\"p6\"} 1", DOM0_ESC) &&
	   has(t, "vpmu_vm_info{domain=\"plain\",model=\"k7\"} 1"),
	   "vpmu_vm_info: one per VM, domain escaped");
	ok(has(t, "vpmu_event_countable{domain=\"%s\",event=\"ref-cycles\",source=\"not-countable\"} 0",
	       DOM0_ESC) &&
	   has(t, "vpmu_event_countable{domain=\"%s\",event=\"cycles\",source=\"task-clock\"} 1", DOM0_ESC) &&
	   has(t, "vpmu_event_countable{domain=\"%s\",event=\"instructions\",source=\"hardware\"} 1",
	       DOM0_ESC) &&
	   has(t, "vpmu_event_countable{domain=\"plain\",event=\"ref-cycles\",source=\"sim\"} 1"),
	   "vpmu_event_countable: 0 for the event the host cannot count, 1 with the source otherwise");
	ok(count_prefix(t, "vpmu_event_countable{") == 2 * VPMU_EV_NR, "vpmu_event_countable: every event of both VMs");

	snprintf(pfx, sizeof(pfx), "vpmu_events_total{domain=\"%s\",", DOM0_ESC);
	ok(count_with(t, pfx, "event=\"ref-cycles\"") == 0,
	   "vpmu_events_total: no sample of the not-countable event");
	ok(count_prefix(t, pfx) == 2 * (VPMU_EV_NR - 1) &&
	   count_prefix(t, "vpmu_events_total{domain=\"plain\",") == VPMU_EV_NR,
	   "vpmu_events_total: the countable events of every vCPU");
	ok(has(t, "vpmu_events_total{domain=\"%s\",vcpu=\"0\",event=\"cycles\"} %" PRIu64, DOM0_ESC,
	       a0->t.events[VPMU_EV_CYCLES]) &&
	   has(t, "vpmu_events_total{domain=\"%s\",vcpu=\"1\",event=\"cache-misses\"} %" PRIu64, DOM0_ESC,
	       a1->t.events[VPMU_EV_CACHE_MISSES]) &&
	   has(t, "vpmu_events_total{domain=\"plain\",vcpu=\"3\",event=\"ref-cycles\"} %" PRIu64,
	       b3->t.events[VPMU_EV_REF_CYCLES]),
	   "vpmu_events_total: values");

	ok(count_prefix(t, "vpmu_pmc_events_total{") == 2 * 2 + 4,
	   "vpmu_pmc_events_total: nr_ctrs samples per vCPU");
	ok(has(t, "vpmu_pmc_events_total{domain=\"%s\",vcpu=\"1\",counter=\"1\"} %" PRIu64, DOM0_ESC,
	       a1->t.pmc[1]) &&
	   has(t, "vpmu_pmc_events_total{domain=\"plain\",vcpu=\"3\",counter=\"3\"} 18446744073709551615"),
	   "vpmu_pmc_events_total: values, 64-bit exact");

	ok(has(t, "vpmu_pmis_raised_total{domain=\"%s\",vcpu=\"0\"} %" PRIu64, DOM0_ESC, a0->t.pmis) &&
	   has(t, "vpmu_pmis_raised_total{domain=\"plain\",vcpu=\"3\"} %" PRIu64, b3->t.pmis),
	   "vpmu_pmis_raised_total");
	ok(has(t, "vpmu_pmis_delivered_total{domain=\"%s\",vcpu=\"0\",delivery=\"fixed\"} %" PRIu64,
	       DOM0_ESC, a0->kvm.pmis_fixed) &&
	   has(t, "vpmu_pmis_delivered_total{domain=\"%s\",vcpu=\"1\",delivery=\"nmi\"} %" PRIu64,
	       DOM0_ESC, a1->kvm.pmis_nmi) &&
	   has(t, "vpmu_pmis_lost_total{domain=\"%s\",vcpu=\"0\",cause=\"masked\"} %" PRIu64,
	       DOM0_ESC, a0->kvm.pmis_masked) &&
	   has(t, "vpmu_pmis_lost_total{domain=\"%s\",vcpu=\"1\",cause=\"apic_off\"} %" PRIu64,
	       DOM0_ESC, a1->kvm.pmis_apic_off) &&
	   has(t, "vpmu_pmis_lost_total{domain=\"%s\",vcpu=\"1\",cause=\"bad_mode\"} %" PRIu64,
	       DOM0_ESC, a1->kvm.pmis_bad_mode),
	   "vpmu_pmis_delivered_total, vpmu_pmis_lost_total: the KVM vCPUs");
	ok(count_prefix(t, "vpmu_pmis_delivered_total{") == 4 && count_prefix(t, "vpmu_pmis_lost_total{") == 6 &&
	   count_prefix(t, "vpmu_msr_exits_total{") == 2 && count_prefix(t, "vpmu_rdpmc_exits_total{") == 2 &&
	   count_prefix(t, "vpmu_pmis_held_total{") == 2 &&
	   count_with(t, "vpmu_", "domain=\"plain\",vcpu=\"3\"") == VPMU_EV_NR + 4 + 1 + 3 + 4 + 1,
	   "no KVM samples for the vCPU without KVM statistics");
	ok(has(t, "vpmu_pmis_held_total{domain=\"%s\",vcpu=\"1\"} %" PRIu64, DOM0_ESC, a1->kvm.pmis_held),
	   "vpmu_pmis_held_total");
	ok(has(t, "vpmu_msr_exits_total{domain=\"%s\",vcpu=\"1\"} %" PRIu64, DOM0_ESC, a1->kvm.msr_exits) &&
	   has(t, "vpmu_rdpmc_exits_total{domain=\"%s\",vcpu=\"0\"} %" PRIu64, DOM0_ESC, a0->kvm.rdpmc_exits),
	   "vpmu_msr_exits_total, vpmu_rdpmc_exits_total");

	ok(has(t, "vpmu_register_accesses_total{domain=\"%s\",vcpu=\"0\",access=\"read\"} %" PRIu64,
	       DOM0_ESC, a0->t.reads) &&
	   has(t, "vpmu_register_accesses_total{domain=\"%s\",vcpu=\"0\",access=\"write\"} %" PRIu64,
	       DOM0_ESC, a0->t.writes) &&
	   has(t, "vpmu_register_accesses_total{domain=\"plain\",vcpu=\"3\",access=\"call\"} %" PRIu64,
	       b3->t.calls),
	   "vpmu_register_accesses_total");
	ok(has(t, "vpmu_faults_total{domain=\"%s\",vcpu=\"1\"} %" PRIu64, DOM0_ESC, a1->t.faults) &&
	   has(t, "vpmu_strict_refusals_total{domain=\"%s\",vcpu=\"1\"} %" PRIu64, DOM0_ESC,
	       a1->t.strict_refusals) &&
	   has(t, "vpmu_cache_hits_total{domain=\"plain\",vcpu=\"3\"} %" PRIu64, b3->t.cache_hits) &&
	   has(t, "vpmu_switch_ins_total{domain=\"%s\",vcpu=\"0\"} %" PRIu64, DOM0_ESC, a0->t.switch_ins),
	   "faults, strict refusals, cache hits, switch-ins");
	ok(has(t, "vpmu_rule_violations_total{domain=\"%s\",vcpu=\"1\",rule=\"evntsel1-enable\"} 3", DOM0_ESC) &&
	   count_prefix(t, "vpmu_rule_violations_total{") == 1,
	   "vpmu_rule_violations_total: the one nonzero rule count, by name");
	free(t);
	unlink(path);
}

/* A newline and a byte that is not UTF-8 in a domain name; no VMs at all. */
static void test_prometheus_edges(void)
{
	static struct acct_vm odd;
	char path[256], *t;
	int err;
	odd = vms[1];
	snprintf(odd.name, sizeof(odd.name), "x\ny\xff\xc3\xa9");
	err = write_tmp(acct_write_prometheus, &odd, 1, path, sizeof(path), "prom-odd");
	t = err ? NULL : slurp(path);
	ok(t && has(t, "vpmu_vm_info{domain=\"x\\ny\xef\xbf\xbd\xc3\xa9\",model=\"k7\"} 1"),
	   "a domain with a newline and a stray byte: escaped, U+FFFD (%d)", err);
	if (!err)
		promtool_check(path);
	free(t);
	unlink(path);
	err = write_tmp(acct_write_prometheus, vms, 0, path, sizeof(path), "prom-none");
	t = err ? NULL : slurp(path);
	ok(t && count_prefix(t, "# TYPE ") == NR_FAMILIES && count_prefix(t, "vpmu_") == 0,
	   "no VMs: the families' headers only (%d)", err);
	if (!err)
		promtool_check(path);
	free(t);
	unlink(path);
}

/* The value at a path of keys and array indexes ("vms/0/name"); NULL if none. */
static struct json_object *at(struct json_object *o, const char *path)
{
	char buf[256], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, "/", &save); k && o; k = strtok_r(NULL, "/", &save)) {
		if (json_object_is_type(o, json_type_array)) {
			char *end;
			unsigned long i = strtoul(k, &end, 10);
			o = *end || i >= json_object_array_length(o) ? NULL : json_object_array_get_idx(o, i);
		} else if (!json_object_object_get_ex(o, k, &o)) {
			o = NULL;
		}
	}
	return o;
}

static int is_int(struct json_object *doc, const char *path, int64_t want)
{
	struct json_object *o = at(doc, path);
	if (o && json_object_is_type(o, json_type_int) && json_object_get_int64(o) == want)
		return 1;
	printf("#   %s: %s, want %" PRId64 "\n", path, o ? json_object_to_json_string(o) : "absent", want);
	return 0;
}

static int is_str(struct json_object *doc, const char *path, const char *want)
{
	struct json_object *o = at(doc, path);
	if (o && json_object_is_type(o, json_type_string) && !strcmp(json_object_get_string(o), want))
		return 1;
	printf("#   %s: %s, want \"%s\"\n", path, o ? json_object_to_json_string(o) : "absent", want);
	return 0;
}

static int64_t i64(uint64_t v)
{
	return (int64_t)v;
}

static void test_json(void)
{
	const struct acct_vm *a = &vms[0], *b = &vms[1];
	const struct acct_vcpu *a0 = &a->vcpu[0], *a1 = &a->vcpu[1], *b3 = &b->vcpu[0];
	char path[256];
	struct json_object *doc, *o;
	char *t;
	int err = write_tmp(acct_write_json, vms, 2, path, sizeof(path), "json");
	ok(err == 0, "acct_write_json: 0 (%d)", err);
	t = slurp(path);
	unlink(path);
	doc = t ? json_tokener_parse(t) : NULL;
	ok(doc && json_object_is_type(doc, json_type_object), "the JSON output parses");
	free(t);
	if (!doc)
		return;

	ok(is_int(doc, "schema", 1) && json_object_array_length(at(doc, "vms")) == 2, "schema 1, two VMs");
	ok(is_str(doc, "vms/0/name", DOM0) && is_str(doc, "vms/0/model", "p6") &&
	   is_int(doc, "vms/0/counters", 2) && is_str(doc, "vms/1/name", "plain") &&
	   is_int(doc, "vms/1/counters", 4),
	   "name (escaping round-trips), model, counters");
	o = at(doc, "vms/0/event_sources/0/event");
	ok(o && !strcmp(json_object_get_string(o), "INST_RETIRED") &&
	   json_object_array_length(at(doc, "vms/0/event_sources")) == 2 &&
	   json_object_array_length(at(doc, "vms/1/event_sources")) == 0 &&
	   json_object_get_int64(at(doc, "vms/0/event_sources/0/programmings")) == 3 &&
	   !strcmp(json_object_get_string(at(doc, "vms/0/event_sources/1/source")), "not-countable"),
	   "JSON: VM.event_sources, in order, with their sources and counts");
	o = at(doc, "vms/0/events/ref-cycles/countable");
	ok(o && json_object_is_type(o, json_type_boolean) && !json_object_get_boolean(o) &&
	   is_str(doc, "vms/0/events/ref-cycles/source", "not-countable"),
	   "the not-countable event: countable false, source not-countable");
	o = at(doc, "vms/0/events/cycles/countable");
	ok(o && json_object_get_boolean(o) && is_str(doc, "vms/0/events/cycles/source", "task-clock") &&
	   is_str(doc, "vms/1/events/ref-cycles/source", "sim") &&
	   json_object_object_length(at(doc, "vms/0/events")) == VPMU_EV_NR,
	   "events: every event with countable and source");
	ok(!at(doc, "vms/0/total/events/ref-cycles") && !at(doc, "vms/0/vcpus/0/events/ref-cycles") &&
	   !at(doc, "vms/0/vcpus/1/events/ref-cycles") &&
	   json_object_object_length(at(doc, "vms/0/total/events")) == VPMU_EV_NR - 1 &&
	   json_object_object_length(at(doc, "vms/1/total/events")) == VPMU_EV_NR,
	   "no number for the not-countable event, in the vCPUs or the total");
	ok(is_int(doc, "vms/0/vcpus/0/events/cycles", i64(a0->t.events[VPMU_EV_CYCLES])) &&
	   is_int(doc, "vms/0/vcpus/1/events/branch-misses", i64(a1->t.events[VPMU_EV_BRANCH_MISSES])) &&
	   is_int(doc, "vms/0/total/events/cycles", i64(a->total.events[VPMU_EV_CYCLES])) &&
	   is_int(doc, "vms/1/vcpus/0/events/ref-cycles", i64(b3->t.events[VPMU_EV_REF_CYCLES])),
	   "events: values, total = the sum of the vCPUs");
	ok(json_object_array_length(at(doc, "vms/0/vcpus/0/counters")) == 2 &&
	   json_object_array_length(at(doc, "vms/1/total/counters")) == 4 &&
	   is_int(doc, "vms/0/vcpus/1/counters/1", i64(a1->t.pmc[1])) &&
	   is_int(doc, "vms/0/total/counters/0", i64(a->total.pmc[0])) &&
	   is_int(doc, "vms/1/vcpus/0/counters/3", INT64_MAX) &&
	   is_int(doc, "vms/1/vcpus/0/counters/2", i64(b3->t.pmc[2])),
	   "counters: nr_ctrs of them, a count above INT64_MAX clamped");
	ok(is_int(doc, "vms/0/vcpus/0/index", 0) && is_int(doc, "vms/0/vcpus/1/index", 1) &&
	   is_int(doc, "vms/1/vcpus/0/index", 3) && !at(doc, "vms/0/total/index"),
	   "vcpus: index");
	ok(is_int(doc, "vms/0/vcpus/0/pmis/raised", i64(a0->t.pmis)) &&
	   is_int(doc, "vms/0/total/pmis/raised", i64(a->total.pmis)) &&
	   is_int(doc, "vms/0/vcpus/1/accesses/reads", i64(a1->t.reads)) &&
	   is_int(doc, "vms/0/vcpus/1/accesses/writes", i64(a1->t.writes)) &&
	   is_int(doc, "vms/1/total/accesses/calls", i64(b->total.calls)) &&
	   is_int(doc, "vms/0/vcpus/0/faults", i64(a0->t.faults)) &&
	   is_int(doc, "vms/0/total/strict_refusals", i64(a->total.strict_refusals)) &&
	   is_int(doc, "vms/1/vcpus/0/cache_hits", i64(b3->t.cache_hits)) &&
	   is_int(doc, "vms/0/total/switch_ins", i64(a->total.switch_ins)),
	   "pmis, accesses, faults, strict_refusals, cache_hits, switch_ins");
	o = at(doc, "vms/0/rules");
	ok(o && json_object_array_length(o) == 2 && is_str(doc, "vms/0/rules/0", "evntsel-reserved") &&
	   is_str(doc, "vms/0/rules/1", "evntsel1-enable") && is_str(doc, "vms/1/rules/0", "k7-rule"),
	   "rules: names by id");
	ok(is_int(doc, "vms/0/vcpus/1/violations/evntsel1-enable", 3) &&
	   is_int(doc, "vms/0/total/violations/evntsel1-enable", 3) &&
	   json_object_object_length(at(doc, "vms/0/vcpus/1/violations")) == 1 &&
	   json_object_object_length(at(doc, "vms/0/vcpus/0/violations")) == 0 &&
	   json_object_object_length(at(doc, "vms/1/total/violations")) == 0,
	   "violations: nonzero rules only, by name");
	ok(is_int(doc, "vms/0/vcpus/0/kvm/msr_exits", i64(a0->kvm.msr_exits)) &&
	   is_int(doc, "vms/0/vcpus/0/kvm/msr_faults", i64(a0->kvm.msr_faults)) &&
	   is_int(doc, "vms/0/vcpus/1/kvm/rdpmc_exits", i64(a1->kvm.rdpmc_exits)) &&
	   is_int(doc, "vms/0/vcpus/1/kvm/rdpmc_syncs", i64(a1->kvm.rdpmc_syncs)) &&
	   is_int(doc, "vms/0/vcpus/1/kvm/pmis/fixed", i64(a1->kvm.pmis_fixed)) &&
	   is_int(doc, "vms/0/vcpus/0/kvm/pmis/nmi", i64(a0->kvm.pmis_nmi)) &&
	   is_int(doc, "vms/0/vcpus/1/kvm/pmis/held", i64(a1->kvm.pmis_held)) &&
	   is_int(doc, "vms/0/vcpus/0/kvm/pmis/lost_masked", i64(a0->kvm.pmis_masked)) &&
	   is_int(doc, "vms/0/vcpus/1/kvm/pmis/lost_apic_off", i64(a1->kvm.pmis_apic_off)) &&
	   is_int(doc, "vms/0/vcpus/0/kvm/pmis/lost_bad_mode", i64(a0->kvm.pmis_bad_mode)) &&
	   is_int(doc, "vms/0/vcpus/1/kvm/kicks", i64(a1->kvm.kicks)),
	   "kvm: the glue's statistics");
	ok(!at(doc, "vms/1/vcpus/0/kvm") && !at(doc, "vms/0/total/kvm"),
	   "no kvm object without KVM statistics, nor in the total");
	json_object_put(doc);
}

/* ---- the snapshot API on libvpmu's own VMs (the sim backend) ---- */

#define P6_EVNTSEL0 0x186
#define P6_PERFCTR0 0xC1
#define P6_CYCLES_EN 0x430079ull /* EN, USR, OS, event 0x79: cycles (docs/models/p6.md) */

static void test_api(void)
{
	struct vpmu_sim *sim = NULL;
	struct vpmu_host *host = NULL;
	struct vpmu_vm *vm = NULL;
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_backend be;
	struct vpmu_vcpu *v[3];
	static const unsigned idx[3] = { 0, 2, 5 };
	struct acct_vm s, z;
	struct vpmu_totals t;
	enum vpmu_fault f;
	int err;

	cfg.model = "p6";
	if (vpmu_sim_create(4, &sim) || (vpmu_sim_backend(sim, &be), vpmu_host_create(&be, 4, &host)) ||
	    (vpmu_sim_attach(sim, host), vpmu_vm_create(host, &cfg, &vm))) {
		ok(0, "a p6 VM on the sim backend");
		goto out;
	}
	/* vCPU idx[i] counts 1000 * (i + 1) cycles in counter 0: one write, one read */
	for (unsigned i = 0; i < 3; i++) {
		uint64_t val;
		err = vpmu_vcpu_create(vm, idx[i], &v[i]);
		err = err ? err : vpmu_vcpu_switch_in(v[i], i);
		err = err ? err : vpmu_reg_write(v[i], VPMU_SPACE_MSR, P6_EVNTSEL0, P6_CYCLES_EN, &f);
		err = err ? err : vpmu_sim_tick(sim, i, VPMU_EV_CYCLES, 1000 * (i + 1), VPMU_MODE_USER);
		err = err ? err : vpmu_reg_read(v[i], VPMU_SPACE_MSR, P6_PERFCTR0, &val, &f);
		err = err ? err : vpmu_vcpu_switch_out(v[i]);
		if (err) {
			ok(0, "vCPU %u: set up (%d)", idx[i], err);
			goto out;
		}
	}

	err = acct_collect(&s, "dom", vm, host, NULL);
	ok(err == 0 && s.nr_vcpus == 3 && s.max_vcpus == 3 && s.vcpu[0].index == 0 &&
	   s.vcpu[1].index == 2 && s.vcpu[2].index == 5 && !strcmp(s.name, "dom") &&
	   !strcmp(s.model, "p6") && s.nr_ctrs == 2,
	   "acct_collect: the three vCPUs that exist, by index, room for those only (%d)", err);
	ok(s.vcpu[0].t.events[VPMU_EV_CYCLES] == 1000 && s.vcpu[1].t.pmc[0] == 2000 &&
	   s.vcpu[2].t.events[VPMU_EV_CYCLES] == 3000 && s.total.events[VPMU_EV_CYCLES] == 6000 &&
	   s.total.writes == 3 && s.total.reads == 3 && s.total.switch_ins == 3,
	   "acct_collect: each vCPU's counts, and the VM's sum");
	ok(s.nr_rules > 0 && s.rule[0][0] && !strcmp(s.rule[0], vpmu_vm_rule_name(vm, 0)) &&
	   s.source[VPMU_EV_CYCLES] == VPMU_COUNT_SIM,
	   "acct_collect: rule names copied, the host's sources");
	acct_vm_release(&s);
	ok(!s.vcpu && !s.nr_vcpus && !s.name[0], "acct_vm_release: zeroed");
	acct_vm_release(&s);
	ok(1, "acct_vm_release: twice is harmless");

	err = acct_vm_begin(&s, "dom", vm, host, 1);
	vpmu_vcpu_totals(v[0], &t);
	ok(err == 0 && acct_vm_add_vcpu(&s, 0, &t, NULL) == 0 &&
	   acct_vm_add_vcpu(&s, 2, &t, NULL) == -ENOSPC && s.nr_vcpus == 1,
	   "acct_vm_add_vcpu: -ENOSPC past max_vcpus");
	acct_vm_release(&s);
	err = acct_vm_begin(&s, "dom", vm, host, 2);
	ok(err == 0 && acct_vm_add_vcpu(&s, 0, &t, NULL) == 0 &&
	   acct_vm_add_vcpu(&s, 0, &t, NULL) == -EINVAL &&
	   acct_vm_add_vcpu(&s, VPMU_MAX_VCPUS, &t, NULL) == -EINVAL &&
	   acct_vm_add_vcpu(&s, 1, NULL, NULL) == -EINVAL && s.nr_vcpus == 1 &&
	   s.total.events[VPMU_EV_CYCLES] == 1000,
	   "acct_vm_add_vcpu: a vCPU twice, a bad index, no totals: -EINVAL, nothing added");
	acct_vm_release(&s);
	memset(&z, 0, sizeof(z));
	memset(&s, 0xA5, sizeof(s));
	ok(acct_vm_begin(&s, "dom", NULL, host, 1) == -EINVAL && !memcmp(&s, &z, sizeof(z)) &&
	   acct_vm_begin(&s, "dom", vm, host, VPMU_MAX_VCPUS + 1) == -EINVAL &&
	   !memcmp(&s, &z, sizeof(z)) && acct_vm_begin(NULL, "dom", vm, host, 1) == -EINVAL,
	   "acct_vm_begin: -EINVAL leaves the snapshot zeroed");
	acct_vm_release(&s);
	err = acct_vm_begin(&s, "dom", vm, host, 0);
	ok(err == 0 && acct_vm_add_vcpu(&s, 0, &t, NULL) == -ENOSPC,
	   "acct_vm_begin: room for no vCPUs");
	acct_vm_release(&s);
out:
	vpmu_vm_destroy(vm);
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
}

/* ---- JSON read back ---- */

/* What fn writes of vms, in memory; NULL on failure. */
static char *write_mem(enum acct_format f, const struct acct_vm *v, unsigned n, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	int err;
	if (!m)
		return NULL;
	err = acct_write(m, f, v, n);
	fclose(m);
	if (err) {
		printf("#   acct_write: %d\n", err);
		free(buf);
		return NULL;
	}
	return buf;
}

static const char *const fmt_name[] = { "text", "domstats", "prometheus", "json" };

/* Writes v in JSON, reads it back, and checks that every format of the parsed
 * snapshots is that of v, byte for byte. */
static void round_trip(const char *what, const struct acct_vm *v, unsigned n)
{
	struct acct_vm *back = NULL;
	unsigned nb = 0;
	char err[256];
	size_t jl;
	char *json = write_mem(ACCT_JSON, v, n, &jl);
	int rc = json ? acct_read_json(json, jl, &back, &nb, err, sizeof(err)) : -1;
	ok(rc == 0 && nb == n, "%s: the JSON reads back (%d: %s)", what, rc, rc ? err : "");
	for (int f = ACCT_TEXT; f <= ACCT_JSON && rc == 0; f++) {
		size_t l1 = 0, l2 = 0;
		char *o1 = write_mem((enum acct_format)f, v, n, &l1);
		char *o2 = write_mem((enum acct_format)f, back, nb, &l2);
		ok(o1 && o2 && l1 == l2 && !memcmp(o1, o2, l1),
		   "%s: %s of the parsed snapshots = %s of the originals (%zu bytes)", what,
		   fmt_name[f], fmt_name[f], l1);
		free(o1);
		free(o2);
	}
	acct_vms_release(back, nb);
	free(json);
}

/* A deep copy (the vCPUs are the snapshot's own). */
static void clone_vm(struct acct_vm *dst, const struct acct_vm *src)
{
	*dst = *src;
	dst->vcpu = calloc(src->max_vcpus ? src->max_vcpus : 1, sizeof(*dst->vcpu));
	dst->event_source = NULL;
	dst->nr_sources = 0;
	if (!dst->vcpu || acct_vm_set_sources(dst, src->event_source, src->nr_sources)) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	memcpy(dst->vcpu, src->vcpu, src->nr_vcpus * sizeof(*dst->vcpu));
}

static void test_round_trip_hand(void)
{
	struct acct_vm rt[2];
	struct acct_vm *back = NULL;
	unsigned nb = 0;
	char err[256];
	size_t jl;
	char *json;
	int rc;

	/* a count above INT64_MAX reads INT64_MAX in JSON (docs/accounting.md) */
	json = write_mem(ACCT_JSON, vms, 2, &jl);
	rc = json ? acct_read_json(json, jl, &back, &nb, err, sizeof(err)) : -1;
	ok(rc == 0 && nb == 2 && back[1].vcpu[0].t.pmc[3] == INT64_MAX &&
	   back[1].total.pmc[3] == INT64_MAX && back[1].vcpu[0].t.pmc[2] == 70000 + 102,
	   "a count above INT64_MAX comes back as INT64_MAX, the others exact (%d)", rc);
	ok(rc == 0 && back[0].vcpu[1].t.violations[1] == 3 && back[0].vcpu[1].have_kvm &&
	   back[0].vcpu[1].kvm.rdpmc_syncs == 5000 * 2 + 20 && !back[1].vcpu[0].have_kvm &&
	   back[1].vcpu[0].index == 3 && !strcmp(back[0].name, DOM0) &&
	   back[0].source[NOT_COUNTABLE] == VPMU_COUNT_NONE &&
	   back[0].source[VPMU_EV_CYCLES] == VPMU_COUNT_TASK_CLOCK && !strcmp(back[0].rule[1], "evntsel1-enable"),
	   "parsed: the violation, the KVM statistics, index, name, sources, rule names");
	ok(rc == 0 && back[0].nr_sources == 2 && back[1].nr_sources == 0 &&
	   !strcmp(back[0].event_source[0].event, "INST_RETIRED") &&
	   !strcmp(back[0].event_source[0].host_event, "instructions") &&
	   back[0].event_source[0].source == VPMU_COUNT_HARDWARE &&
	   back[0].event_source[0].programmings == 3 &&
	   back[0].event_source[1].source == VPMU_COUNT_NONE && !back[0].event_source[1].host_event[0],
	   "parsed: the event sources, a null host event as none");
	acct_vms_release(back, nb);

	/* Documents written before pmis.held existed read it as 0. */
	struct json_object *doc = json ? json_tokener_parse(json) : NULL;
	struct json_object *pmis = doc ? at(doc, "vms/0/vcpus/1/kvm/pmis") : NULL;
	if (pmis)
		json_object_object_del(pmis, "held");
	const char *old = doc ? json_object_to_json_string(doc) : "";
	rc = acct_read_json(old, strlen(old), &back, &nb, err, sizeof(err));
	ok(pmis && rc == 0 && nb == 2 && back[0].vcpu[1].kvm.pmis_held == 0 &&
	   back[0].vcpu[0].kvm.pmis_held == vms[0].vcpu[0].kvm.pmis_held,
	   "a document without kvm.pmis.held reads it as 0, the others as written (%d: %s)", rc,
	   rc ? err : "");
	acct_vms_release(back, nb);
	json_object_put(doc);
	free(json);

	/* libvpmu never counts an event the host cannot count, nor past 2^63:
	 * as such, the hand-built VMs round-trip whole */
	clone_vm(&rt[0], &vms[0]);
	clone_vm(&rt[1], &vms[1]);
	for (unsigned i = 0; i < rt[0].nr_vcpus; i++)
		rt[0].vcpu[i].t.events[NOT_COUNTABLE] = 0;
	rt[0].total.events[NOT_COUNTABLE] = 0;
	rt[1].vcpu[0].t.pmc[3] = rt[1].total.pmc[3] = INT64_MAX;
	round_trip("hand-built VMs", rt, 2);
	/* a rule without a name: "?" in text, "rule1" in JSON, and back */
	rt[0].rule[1][0] = 0;
	round_trip("a rule without a name", rt, 2);
	round_trip("no VMs", rt, 0);
	acct_vm_release(&rt[0]);
	acct_vm_release(&rt[1]);
}

static char *slurp_n(const char *path, size_t *len)
{
	char *t = slurp(path);
	*len = t ? strlen(t) : 0;
	return t;
}

/* tests/accounting/two-vcpus.trace: its counts are the trace's own (ticks):
 * vCPU 0 counts 5000 cycles and 1234 instructions and breaks cpl-none once,
 * vCPU 1 counts 700 cycles. */
static void test_round_trip_trace(void)
{
	static const char *trace = "tests/accounting/two-vcpus.trace";
	struct acct_vm *back = NULL;
	unsigned nb = 0, tapno = 0, cpl = VPMU_MAX_RULES;
	struct trace_result res;
	char err[256];
	size_t tl, jl[ACCT_JSON + 1] = { 0 };
	char *text = slurp_n(trace, &tl), *out[ACCT_JSON + 1] = { 0 };
	int rc = -1;

	if (!text) {
		ok(0, "read %s (run from the source tree)", trace);
		return;
	}
	for (int f = ACCT_TEXT; f <= ACCT_JSON; f++) {
		FILE *m = open_memstream(&out[f], &jl[f]);
		if (!m)
			break;
		trace_set_accounting(m, (enum acct_format)f);
		trace_run(trace, text, tl, NULL, NULL, 0, &tapno, &res);
		fclose(m);
	}
	trace_set_accounting(NULL, ACCT_TEXT);
	if (out[ACCT_JSON])
		rc = acct_read_json(out[ACCT_JSON], jl[ACCT_JSON], &back, &nb, err, sizeof(err));
	ok(rc == 0 && nb == 1, "%s: its JSON reads back (%d: %s)", trace, rc, rc ? err : "");
	if (rc == 0 && nb == 1) {
		const struct acct_vm *vm = &back[0];
		for (unsigned r = 0; r < vm->nr_rules; r++)
			if (!strcmp(vm->rule[r], "cpl-none"))
				cpl = r;
		ok(!strcmp(vm->name, "dom1") && !strcmp(vm->model, "p6") && vm->nr_vcpus == 2 &&
		   vm->vcpu[0].index == 0 && vm->vcpu[1].index == 1 &&
		   vm->vcpu[0].t.events[VPMU_EV_CYCLES] == 5000 &&
		   vm->vcpu[0].t.events[VPMU_EV_INSTRUCTIONS] == 1234 &&
		   vm->vcpu[1].t.events[VPMU_EV_CYCLES] == 700 &&
		   vm->total.events[VPMU_EV_CYCLES] == 5700 && cpl < VPMU_MAX_RULES &&
		   vm->vcpu[0].t.violations[cpl] == 1 && vm->total.violations[cpl] == 1 &&
		   !vm->vcpu[0].have_kvm && vm->source[VPMU_EV_CYCLES] == VPMU_COUNT_SIM,
		   "parsed: the trace's counts, its violation of cpl-none, the sim source");
	}
	for (int f = ACCT_TEXT; f <= ACCT_JSON && rc == 0; f++) {
		size_t l = 0;
		char *o = write_mem((enum acct_format)f, back, nb, &l);
		ok(o && out[f] && l == jl[f] && !memcmp(o, out[f], l),
		   "%s: %s of the parsed snapshot = vpmu-trace's %s (%zu bytes)", trace, fmt_name[f],
		   fmt_name[f], jl[f]);
		free(o);
	}
	acct_vms_release(back, nb);
	for (int f = ACCT_TEXT; f <= ACCT_JSON; f++)
		free(out[f]);
	free(text);
}
/* A small schema-1 document written by hand (docs/accounting.md): one p6 VM,
 * ref-cycles not countable, one vCPU that counted 5 cycles and 3
 * instructions and broke cpl-none once. */
#define EV(n) "\"" n "\":{\"countable\":true,\"source\":\"sim\"}"
#define TOTB "\"events\":{\"cycles\":5,\"instructions\":3,\"bus-cycles\":0,\"branches\":0," \
	"\"branch-misses\":0,\"cache-references\":0,\"cache-misses\":0},\"counters\":[5,3]," \
	"\"pmis\":{\"raised\":0},\"accesses\":{\"reads\":1,\"writes\":2,\"calls\":0},\"faults\":0," \
	"\"strict_refusals\":0,\"violations\":{\"cpl-none\":1},\"cache_hits\":0,\"switch_ins\":1"
#define VCPU0 "{\"index\":0," TOTB "}"
#define DOC_HEAD "{\"schema\":1,\"vms\":[{\"name\":\"d\",\"model\":\"p6\",\"counters\":2,\"events\":{" \
	EV("cycles") "," EV("instructions") ",\"ref-cycles\":{\"countable\":false," \
	"\"source\":\"not-countable\"}," EV("bus-cycles") "," EV("branches") "," EV("branch-misses") \
	"," EV("cache-references") "," EV("cache-misses") "},\"rules\":[\"evntsel-reserved\"," \
	"\"cpl-none\"],\"vcpus\":["
#define DOC_TAIL "],\"total\":{" TOTB "}}]}"

/* base with the first needle replaced (NULL: base as is), appended to. */
static char *variant(const char *base, const char *needle, const char *with, const char *append)
{
	const char *at = needle ? strstr(base, needle) : NULL;
	size_t n = strlen(base) + (with ? strlen(with) : 0) + strlen(append) + 1;
	char *out = malloc(n);
	if (!out)
		return NULL;
	if (needle && !at) {
		printf("#   test bug: no '%s' in the document\n", needle);
		free(out);
		return NULL;
	}
	if (at)
		snprintf(out, n, "%.*s%s%s%s", (int)(at - base), base, with, at + strlen(needle), append);
	else
		snprintf(out, n, "%s%s", base, append);
	return out;
}

static void test_read_malformed(void)
{
	static const char base[] = DOC_HEAD VCPU0 DOC_TAIL;
	static const struct {
		const char *what, *needle, *with;
	} bad[] = {
		{ "a member without a name", "\"total\"", "" },
		{ "schema 2", "\"schema\":1", "\"schema\":2" },
		{ "schema a string", "\"schema\":1", "\"schema\":\"1\"" },
		{ "no schema", "\"schema\":1", "\"schemo\":1" },
		{ "vms not an array", "\"vms\":[{", "\"vms\":7,\"x\":[{" },
		{ "name not a string", "\"name\":\"d\"", "\"name\":7" },
		{ "name of 64 bytes",  "\"name\":\"d\"",
		  "\"name\":\"0123456789012345678901234567890123456789012345678901234567890123\"" },
		{ "a NUL in the name", "\"name\":\"d\"", "\"name\":\"d\\u0000e\"" },
		{ "a negative count", "\"faults\":0", "\"faults\":-1" },
		{ "a count that is not an integer", "\"reads\":1", "\"reads\":1.5" },
		{ "a count as a string", "\"writes\":2", "\"writes\":\"2\"" },
		{ "a count past 2^64", "\"faults\":0", "\"faults\":99999999999999999999999" },
		{ "counters of the wrong length", "\"counters\":[5,3]", "\"counters\":[5]" },
		{ "more counters than a model has", "\"counters\":2", "\"counters\":19" },
		{ "an unknown source", "\"source\":\"sim\"", "\"source\":\"magic\"" },
		{ "countable disagreeing with its source", "\"countable\":true", "\"countable\":false" },
		{ "an unknown event", "\"cycles\":5,", "\"cycles\":5,\"flops\":1," },
		{ "a count of an event that is not countable", "\"cycles\":5,", "\"cycles\":5,\"ref-cycles\":1," },
		{ "a violation of no rule of the VM", "{\"cpl-none\":1}", "{\"nope\":1}" },
		{ "a vCPU index of 64", "\"index\":0", "\"index\":64" },
		{ "a vCPU twice", VCPU0, VCPU0 "," VCPU0 },
		{ "kvm not an object", "\"index\":0,", "\"index\":0,\"kvm\":[]," },
		{ "kvm without its counts", "\"index\":0,", "\"index\":0,\"kvm\":{\"msr_exits\":1}," },
		{ "no total", "\"total\":", "\"totl\":" },
		{ "a rule name of 48 bytes", "\"evntsel-reserved\"",
		  "\"0123456789012345678901234567890123456789012345678\"" },
		{ "an event without its source", ",\"source\":\"not-countable\"", "" },
	};
	struct acct_vm *v = (struct acct_vm *)1;
	unsigned n = 7;
	char err[256];
	int rc = acct_read_json(base, sizeof(base) - 1, &v, &n, err, sizeof(err));
	ok(rc == 0 && n == 1 && v[0].nr_vcpus == 1 && v[0].vcpu[0].t.events[VPMU_EV_CYCLES] == 5 &&
	   v[0].vcpu[0].t.pmc[1] == 3 && v[0].vcpu[0].t.violations[1] == 1 &&
	   v[0].total.writes == 2 && v[0].source[VPMU_EV_REF_CYCLES] == VPMU_COUNT_NONE &&
	   !strcmp(v[0].rule[1], "cpl-none") && v[0].nr_ctrs == 2,
	   "a hand-written schema-1 document reads (%d: %s)", rc, rc ? err : "");
	if (rc == 0)
		acct_vms_release(v, n);

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *doc = variant(base, bad[i].needle, bad[i].with, "");
		v = (struct acct_vm *)1;
		n = 7;
		err[0] = 0;
		rc = doc ? acct_read_json(doc, strlen(doc), &v, &n, err, sizeof(err)) : 0;
		ok(rc == -EINVAL && err[0] && !v && !n, "malformed, %s: -EINVAL (%d: %s)", bad[i].what,
		   rc, err);
		if (rc == 0)
			acct_vms_release(v, n);
		free(doc);
	}

	/* built: 65 vCPUs, trailing bytes, nesting 64 deep, not JSON at all, cut short */
	{
		size_t cap = sizeof(base) + 66 * sizeof(VCPU0);
		char *doc = malloc(cap), *p;
		const char *docs[5];
		static const char *const what[5] = { "65 vCPUs", "trailing bytes", "nesting 64 deep",
						     "not JSON", "cut short" };
		char deep[130];
		memset(deep, '[', 64);
		memset(deep + 64, ']', 64);
		deep[128] = 0;
		if (doc) {
			p = doc + snprintf(doc, cap, "%s", DOC_HEAD);
			for (unsigned i = 0; i < 65; i++)
				p += snprintf(p, cap - (size_t)(p - doc), "%s{\"index\":%u,%s}", i ? "," : "",
					      i, TOTB);
			snprintf(p, cap - (size_t)(p - doc), "%s", DOC_TAIL);
		}
		docs[0] = doc;
		docs[1] = DOC_HEAD VCPU0 DOC_TAIL " x";
		docs[2] = deep;
		docs[3] = "vpmu accounting";
		docs[4] = base;
		for (unsigned i = 0; i < 5; i++) {
			size_t len = docs[i] ? strlen(docs[i]) : 0;
			v = (struct acct_vm *)1;
			n = 7;
			err[0] = 0;
			if (i == 4)
				len /= 2;
			rc = docs[i] ? acct_read_json(docs[i], len, &v, &n, err, sizeof(err)) : 0;
			ok(rc == -EINVAL && err[0] && !v && !n, "malformed, %s: -EINVAL (%d: %s)", what[i],
			   rc, err);
			if (rc == 0)
				acct_vms_release(v, n);
		}
		free(doc);
	}
	ok(acct_read_json(NULL, 1, &v, &n, err, sizeof(err)) == -EINVAL &&
	   acct_read_json(base, sizeof(base) - 1, NULL, &n, err, sizeof(err)) == -EINVAL,
	   "acct_read_json: NULL arguments: -EINVAL");
}

/* ---- domstats: the same keys as acct_domstats_walk (tools/accounting/acct_keys.h) ---- */

static int key_line(void *ctx, const struct acct_key *k)
{
	FILE *m = ctx;
	if (k->type == ACCT_KEY_STRING)
		fprintf(m, "  %s=%s\n", k->key, k->s);
	else
		fprintf(m, "  %s=%" PRIu64 "\n", k->key, k->u);
	return 0;
}

static void test_domstats_walk(void)
{
	for (unsigned i = 0; i < 2; i++) {
		char *walked = NULL, *text;
		size_t wl = 0, tl = 0;
		FILE *m = open_memstream(&walked, &wl);
		int err = -1;
		if (m) {
			fprintf(m, "Domain: '%s'\n", vms[i].name);
			err = acct_domstats_walk(&vms[i], key_line, m);
			fputc('\n', m);
			fclose(m);
		}
		text = write_mem(ACCT_DOMSTATS, &vms[i], 1, &tl);
		ok(err == 0 && text && wl == tl && !memcmp(walked, text, tl),
		   "domstats of VM %u: the keys and values acct_domstats_walk yields (%d)", i, err);
		if (i == 0)
			ok(text && strstr(text, "\n  vpmu.event_source.count=2\n") &&
			   strstr(text, "\n  vpmu.event_source.0.name=INST_RETIRED\n"
				  "  vpmu.event_source.0.source=hardware\n"
				  "  vpmu.event_source.0.host_event=instructions\n"
				  "  vpmu.event_source.0.programmings=3\n"
				  "  vpmu.event_source.1.name=DATA_MEM_REFS\n"
				  "  vpmu.event_source.1.source=not-countable\n"
				  "  vpmu.event_source.1.programmings=1\n"),
			   "domstats of VM 0: its event sources, numbered, no host_event for none");
		else
			ok(text && !strstr(text, "event_source"), "domstats of VM 1: no event sources");
		free(walked);
		free(text);
	}
}

/* 120 VMs of 8 vCPUs: past acct_par_min_vcpus, and several units a format
 * (tools/accounting/acct_units.c); the two threads' output is the one thread's. */
static void test_threads(void)
{
	enum { NVM = 120, NV = 8 };
	struct acct_vm *big = calloc(NVM, sizeof(*big));
	if (!big) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	for (unsigned m = 0; m < NVM; m++) {
		struct acct_vm *vm = &big[m];
		const struct acct_vm *like = &vms[m % 2];
		memcpy(vm->model, like->model, sizeof(vm->model));
		memcpy(vm->rule, like->rule, sizeof(vm->rule));
		memcpy(vm->source, like->source, sizeof(vm->source));
		vm->nr_ctrs = like->nr_ctrs;
		vm->nr_rules = like->nr_rules;
		snprintf(vm->name, sizeof(vm->name), m % 7 ? "vm-%u" : "vm\"%u\\", m);
		room(vm, NV);
		for (unsigned i = 0; i < NV; i++) {
			struct vpmu_totals t = { 0 };
			struct vpmu_kvm_stats k = { 0 };
			fill_totals(&t, 1000003ull * (m * NV + i + 1), vm->nr_ctrs);
			if ((m + i) % 5 == 0)
				t.violations[0] = m + i;
			fill_kvm(&k, 77ull * m + i);
			add_vcpu(vm, NV - 1 - i, &t, (m + i) % 3 ? &k : NULL);
		}
	}
	for (int f = ACCT_TEXT; f <= ACCT_PROMETHEUS; f++) {
		size_t l1 = 0, l2 = 0;
		char *o1, *o2;
		acct_par_min_vcpus = SIZE_MAX;
		o1 = write_mem((enum acct_format)f, big, NVM, &l1);
		acct_par_min_vcpus = 0;
		o2 = write_mem((enum acct_format)f, big, NVM, &l2);
		acct_par_min_vcpus = 256;
		ok(o1 && o2 && l1 == l2 && l1 > ACCT_UNIT_BYTES / 4 && !memcmp(o1, o2, l1),
		   "%s of %u vCPUs: two threads write what one does (%zu bytes)", fmt_name[f], NVM * NV, l1);
		free(o1);
		free(o2);
	}
	acct_vms_release(big, NVM);
}

int main(void)
{
	build();
	ok(acct_write_prometheus(NULL, vms, 1) == -EINVAL && acct_write_json(NULL, vms, 1) == -EINVAL &&
	   acct_write_prometheus(stdout, NULL, 1) == -EINVAL && acct_write_json(stdout, NULL, 1) == -EINVAL &&
	   acct_write_text(NULL, vms, 1) == -EINVAL && acct_write_domstats(stdout, NULL, 1) == -EINVAL,
	   "NULL arguments: -EINVAL");
	test_prometheus();
	test_prometheus_edges();
	test_json();
	test_api();
	test_round_trip_hand();
	test_round_trip_trace();
	test_read_malformed();
	test_domstats_walk();
	test_threads();
	acct_vm_release(&vms[0]);
	acct_vm_release(&vms[1]);
	return tap_done();
}
