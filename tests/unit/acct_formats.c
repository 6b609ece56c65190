/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus and JSON accounting formats (tools/acct_prom.c,
 * tools/acct_json.c) on a snapshot built by hand: two VMs, one with KVM
 * statistics on its vCPUs, an event the host cannot count, a rule violation,
 * a domain name that needs escaping, and a count above INT64_MAX.  The
 * Prometheus output goes through `promtool check metrics` (Debian's prometheus
 * package: a test dependency), the JSON back through json-c's parser.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "acct_formats.h"
#include "tap.h"

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
}

static void build(void)
{
	struct acct_vm *a = &vms[0], *b = &vms[1];
	memset(vms, 0, sizeof(vms));

	/* VM 0: p6, two KVM vCPUs, ref-cycles not countable, rule 1 broken on vCPU 1 */
	snprintf(a->name, sizeof(a->name), "%s", DOM0);
	snprintf(a->model, sizeof(a->model), "p6");
	a->nr_ctrs = 2;
	a->nr_rules = 2;
	a->rule[0] = "evntsel-reserved";
	a->rule[1] = "evntsel1-enable";
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		a->source[e] = VPMU_COUNT_HARDWARE;
	a->source[VPMU_EV_CYCLES] = VPMU_COUNT_TASK_CLOCK;
	a->source[NOT_COUNTABLE] = VPMU_COUNT_NONE;
	a->nr_vcpus = 2;
	for (unsigned i = 0; i < 2; i++) {
		struct acct_vcpu *v = &a->vcpu[i];
		v->index = i;
		fill_totals(&v->t, 1000 * (i + 1), a->nr_ctrs);
		v->have_kvm = true;
		fill_kvm(&v->kvm, 5000 * (i + 1));
	}
	a->vcpu[1].t.violations[1] = 3;
	for (unsigned i = 0; i < a->nr_vcpus; i++)
		sum(&a->total, &a->vcpu[i].t);

	/* VM 1: k7, one vCPU (index 3) without KVM statistics, every event sim */
	snprintf(b->name, sizeof(b->name), "plain");
	snprintf(b->model, sizeof(b->model), "k7");
	b->nr_ctrs = 4;
	b->nr_rules = 1;
	b->rule[0] = "k7-rule";
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		b->source[e] = VPMU_COUNT_SIM;
	b->nr_vcpus = 1;
	b->vcpu[0].index = 3;
	fill_totals(&b->vcpu[0].t, 70000, b->nr_ctrs);
	b->vcpu[0].t.pmc[3] = UINT64_MAX;
	sum(&b->total, &b->vcpu[0].t);
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
	"vpmu_vm_info", "vpmu_event_countable", "vpmu_events_total", "vpmu_pmc_events_total",
	"vpmu_pmis_raised_total", "vpmu_pmis_delivered_total", "vpmu_pmis_lost_total",
	"vpmu_register_accesses_total", "vpmu_faults_total", "vpmu_strict_refusals_total",
	"vpmu_rule_violations_total", "vpmu_cache_hits_total", "vpmu_switch_ins_total",
	"vpmu_msr_exits_total", "vpmu_rdpmc_exits_total",
};

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

	for (unsigned f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		char help[96], type[96];
		snprintf(help, sizeof(help), "# HELP %s ", families[f]);
		snprintf(type, sizeof(type), "# TYPE %s %s", families[f], f < 2 ? "gauge" : "counter");
		ok(count_prefix(t, help) == 1 && has_line(t, type) && count_prefix(t, "# TYPE ") == 15,
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
		ok(switches == 15, "samples grouped by family (%u runs, 15 families)", switches);
	}

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
	   count_with(t, "vpmu_", "domain=\"plain\",vcpu=\"3\"") == VPMU_EV_NR + 4 + 1 + 3 + 4,
	   "no KVM samples for the vCPU without KVM statistics");
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
	ok(t && count_prefix(t, "# TYPE ") == 15 && count_prefix(t, "vpmu_") == 0,
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
	   is_int(doc, "vms/0/vcpus/0/kvm/pmis/lost_masked", i64(a0->kvm.pmis_masked)) &&
	   is_int(doc, "vms/0/vcpus/1/kvm/pmis/lost_apic_off", i64(a1->kvm.pmis_apic_off)) &&
	   is_int(doc, "vms/0/vcpus/0/kvm/pmis/lost_bad_mode", i64(a0->kvm.pmis_bad_mode)) &&
	   is_int(doc, "vms/0/vcpus/1/kvm/kicks", i64(a1->kvm.kicks)),
	   "kvm: the glue's statistics");
	ok(!at(doc, "vms/1/vcpus/0/kvm") && !at(doc, "vms/0/total/kvm"),
	   "no kvm object without KVM statistics, nor in the total");
	json_object_put(doc);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Issue 10: 1,000 VMs of 8 vCPUs each.  Timings only (a diagnostic, not a test). */
static void timing(void)
{
	enum { NVM = 1000, NVCPU = 8 };
	struct acct_vm *big = calloc(NVM, sizeof(*big));
	static const struct {
		const char *name, *path;
		int (*fn)(FILE *, const struct acct_vm *, unsigned);
	} runs[] = {
		{ "prometheus", "/dev/null", acct_write_prometheus },
		{ "json", "/dev/null", acct_write_json },
		{ "prometheus", NULL, acct_write_prometheus },
	};
	if (!big) {
		printf("# timing: out of memory\n");
		return;
	}
	for (unsigned m = 0; m < NVM; m++) {
		struct acct_vm *vm = &big[m];
		snprintf(vm->name, sizeof(vm->name), "guest-%04u", m);
		snprintf(vm->model, sizeof(vm->model), "p6");
		vm->nr_ctrs = 2;
		vm->nr_rules = 2;
		vm->rule[0] = vms[0].rule[0];
		vm->rule[1] = vms[0].rule[1];
		memcpy(vm->source, vms[0].source, sizeof(vm->source));
		vm->nr_vcpus = NVCPU;
		for (unsigned i = 0; i < NVCPU; i++) {
			struct acct_vcpu *v = &vm->vcpu[i];
			v->index = i;
			fill_totals(&v->t, 123456789ull * (m + 1) + i, vm->nr_ctrs);
			v->have_kvm = true;
			fill_kvm(&v->kvm, 987654321ull * (i + 1) + m);
			sum(&vm->total, &v->t);
		}
	}
	for (unsigned r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		char path[256];
		const char *dir = getenv("TMPDIR");
		double best = 1e9;
		int err = 0;
		long size = 0;
		if (runs[r].path)
			snprintf(path, sizeof(path), "%s", runs[r].path);
		else
			snprintf(path, sizeof(path), "%s/vpmu-acct-timing-%d", dir && *dir ? dir : "/tmp",
				 (int)getpid());
		for (unsigned k = 0; k < 5 && !err; k++) {
			struct timespec t0;
			FILE *f;
			if (!runs[r].path)
				unlink(path);   /* a new file each time, as an exporter writes one */
			f = fopen(path, "w");
			double ms;
			if (!f) {
				err = -errno;
				break;
			}
			clock_gettime(CLOCK_MONOTONIC, &t0);
			err = runs[r].fn(f, big, NVM);
			ms = ms_since(&t0);
			if (!runs[r].path)
				size = ftell(f);
			fclose(f);
			if (ms < best)
				best = ms;
		}
		if (!runs[r].path)
			unlink(path);
		if (err)
			printf("# %s, %u VMs x %u vCPUs: error %d\n", runs[r].name, NVM, NVCPU, err);
		else if (runs[r].path)
			printf("# %s, %u VMs x %u vCPUs to %s: %.2f ms (best of 5)\n", runs[r].name, NVM,
			       NVCPU, runs[r].path, best);
		else
			printf("# %s, %u VMs x %u vCPUs to a new file: %.2f ms (best of 5; %ld bytes)\n",
			       runs[r].name, NVM, NVCPU, best, size);
	}
	free(big);
}

int main(void)
{
	build();
	ok(acct_write_prometheus(NULL, vms, 1) == -EINVAL && acct_write_json(NULL, vms, 1) == -EINVAL &&
	   acct_write_prometheus(stdout, NULL, 1) == -EINVAL && acct_write_json(stdout, NULL, 1) == -EINVAL,
	   "NULL arguments: -EINVAL");
	test_prometheus();
	test_prometheus_edges();
	test_json();
	timing();
	return tap_done();
}
