/* SPDX-License-Identifier: MIT */
/*
 * The one list of the accounting's counts (VPMU_TOTALS_COUNTS,
 * include/vpmu/vpmu.h): it covers struct vpmu_totals with the arrays pmc[],
 * events[] and violations[]; vpmu_totals_add() sums every field; and every
 * accounting format writes each count of the list under the names the list
 * gives it, once per vCPU and once in the VM's total, and the JSON reader
 * reads it back (docs/accounting.md).
 */
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "accounting/acct_formats.h"
#include "tap.h"

static const struct {
	const char *field, *key, *json_obj, *json_key, *text, *prom, *label, *value;
	size_t off;
} count[] = {
#define COUNT(f, part, key, jo, jk, text, pos, prom, label, value, help) \
	{ #f, key, jo, jk, text, prom, label, value, offsetof(struct vpmu_totals, f) },
	VPMU_TOTALS_COUNTS(COUNT)
#undef COUNT
};
#define NR (sizeof(count) / sizeof(count[0]))

static uint64_t *at(struct vpmu_totals *t, size_t off)
{
	return (uint64_t *)(void *)((char *)t + off);
}

static void layout(void)
{
	size_t lo = offsetof(struct vpmu_totals, events) + sizeof(((struct vpmu_totals *)0)->events);
	size_t hi = offsetof(struct vpmu_totals, violations);
	bool inside = true, distinct = true;
	for (size_t i = 0; i < NR; i++) {
		inside &= count[i].off >= lo && count[i].off + sizeof(uint64_t) <= hi;
		for (size_t j = 0; j < i; j++)
			distinct &= count[i].off != count[j].off;
	}
	ok(NR == VPMU_TOTALS_NR, "VPMU_TOTALS_NR is the length of the list (%zu)", NR);
	ok(offsetof(struct vpmu_totals, pmc) == 0 &&
	   offsetof(struct vpmu_totals, events) == sizeof(((struct vpmu_totals *)0)->pmc),
	   "pmc[] and events[] come first, arrays of their own");
	ok(inside && distinct && hi - lo == NR * sizeof(uint64_t),
	   "the listed counts fill the struct between events[] and violations[], each once");
	ok(sizeof(struct vpmu_totals) == hi + sizeof(((struct vpmu_totals *)0)->violations),
	   "violations[] ends the struct");
}

/* Distinct values in every field of t, from base. */
static void fill(struct vpmu_totals *t, uint64_t base)
{
	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < VPMU_MAX_CTRS; i++)
		t->pmc[i] = base + i;
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		t->events[e] = base + 100 + e;
	for (size_t k = 0; k < NR; k++)
		*at(t, count[k].off) = base + 200 + k;
	for (unsigned r = 0; r < VPMU_MAX_RULES; r++)
		t->violations[r] = base + 300 + r;
}

static void sums(void)
{
	struct vpmu_totals a, b, s;
	fill(&a, 1000);
	fill(&b, 500000);
	s = a;
	vpmu_totals_add(&s, &b);
	bool pmc = true, ev = true, cnt = true, vio = true;
	for (unsigned i = 0; i < VPMU_MAX_CTRS; i++)
		pmc &= s.pmc[i] == 501000 + 2 * i;
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		ev &= s.events[e] == 501200 + 2 * e;
	for (size_t k = 0; k < NR; k++)
		cnt &= *at(&s, count[k].off) == 501400 + 2 * k;
	for (unsigned r = 0; r < VPMU_MAX_RULES; r++)
		vio &= s.violations[r] == 501600 + 2 * r;
	ok(pmc && ev, "vpmu_totals_add: pmc[] and events[] element by element");
	ok(cnt, "vpmu_totals_add: every count of the list");
	ok(vio, "vpmu_totals_add: violations[] element by element");
}

/* How many times s occurs in text. */
static unsigned occurs(const char *text, const char *s)
{
	unsigned n = 0;
	for (const char *p = text; (p = strstr(p, s)); p += strlen(s))
		n++;
	return n;
}

static char *write_mem(enum acct_format f, const struct acct_vm *vm)
{
	char *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return NULL;
	int err = acct_write(m, f, vm, 1);
	fclose(m);
	if (err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static uint64_t json_at(struct json_object *o, const char *obj, const char *key)
{
	struct json_object *x = o, *v;
	if (*obj && !json_object_object_get_ex(o, obj, &x))
		return 0;
	if (!json_object_object_get_ex(x, key, &v))
		return 0;
	return (uint64_t)json_object_get_int64(v);
}

/* Count k alone, as value v, in a one-vCPU VM: each format writes it under
 * its names, in the vCPU's block and in the total, and nowhere else. */
static void formats(size_t k)
{
	const uint64_t v = 7770001 + k;
	char vs[24], want[160];
	struct acct_vm vm;
	struct vpmu_totals t;
	memset(&vm, 0, sizeof(vm));
	snprintf(vm.name, sizeof(vm.name), "dom");
	snprintf(vm.model, sizeof(vm.model), "p6");
	vm.nr_ctrs = 2;
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		vm.source[e] = VPMU_COUNT_SIM;
	vm.vcpu = calloc(1, sizeof(*vm.vcpu));
	vm.max_vcpus = 1;
	memset(&t, 0, sizeof(t));
	*at(&t, count[k].off) = v;
	if (!vm.vcpu || acct_vm_add_vcpu(&vm, 0, &t, NULL)) {
		printf("Bail out! no snapshot\n");
		exit(1);
	}
	snprintf(vs, sizeof(vs), "%" PRIu64, v);

	char *out = write_mem(ACCT_TEXT, &vm);
	if (*count[k].text) {
		snprintf(want, sizeof(want), "%s=%s\n", count[k].text, vs);
		unsigned at_end = out ? occurs(out, want) : 0;
		snprintf(want, sizeof(want), "%s=%s ", count[k].text, vs);
		unsigned inside = out ? occurs(out, want) : 0;
		ok(out && at_end + inside == 2 && occurs(out, vs) == 2,
		   "text: %s=%s in the vCPU's block and the total", count[k].text, vs);
	} else {
		ok(out && occurs(out, vs) == 0, "text: %s is not written", count[k].field);
	}
	free(out);

	out = write_mem(ACCT_DOMSTATS, &vm);
	snprintf(want, sizeof(want), "  vpmu.%s=%s\n", count[k].key, vs);
	char want2[160];
	snprintf(want2, sizeof(want2), "  vpmu.vcpu.0.%s=%s\n", count[k].key, vs);
	ok(out && occurs(out, want) == 1 && occurs(out, want2) == 1 && occurs(out, vs) == 2,
	   "domstats: vpmu.%s and vpmu.vcpu.0.%s", count[k].key, count[k].key);
	free(out);

	out = write_mem(ACCT_PROMETHEUS, &vm);
	if (*count[k].label)
		snprintf(want, sizeof(want), "%s{domain=\"dom\",vcpu=\"0\",%s=\"%s\"} %s\n", count[k].prom,
			 count[k].label, count[k].value, vs);
	else
		snprintf(want, sizeof(want), "%s{domain=\"dom\",vcpu=\"0\"} %s\n", count[k].prom, vs);
	ok(out && occurs(out, want) == 1 && occurs(out, vs) == 1, "prometheus: %.*s", (int)strlen(want) - 1,
	   want);
	free(out);

	out = write_mem(ACCT_JSON, &vm);
	struct json_object *doc = out ? json_tokener_parse(out) : NULL, *vms, *o, *cpus;
	uint64_t total = 0, vcpu = 0;
	if (doc && json_object_object_get_ex(doc, "vms", &vms) &&
	    (o = json_object_array_get_idx(vms, 0))) {
		struct json_object *tot;
		if (json_object_object_get_ex(o, "total", &tot))
			total = json_at(tot, count[k].json_obj, count[k].json_key);
		if (json_object_object_get_ex(o, "vcpus", &cpus) && json_object_array_get_idx(cpus, 0))
			vcpu = json_at(json_object_array_get_idx(cpus, 0), count[k].json_obj,
				       count[k].json_key);
	}
	ok(total == v && vcpu == v && occurs(out ? out : "", vs) == 2, "json: %s%s%s in the total and the vCPU",
	   count[k].json_obj, *count[k].json_obj ? "." : "", count[k].json_key);
	struct acct_vm *back = NULL;
	unsigned nb = 0;
	char err[256] = "";
	int rc = out ? acct_read_json(out, strlen(out), &back, &nb, err, sizeof(err)) : -1;
	ok(rc == 0 && nb == 1 && back[0].nr_vcpus == 1 &&
	   !memcmp(&back[0].vcpu[0].t, &t, sizeof(t)) && !memcmp(&back[0].total, &t, sizeof(t)),
	   "json read back: %s alone, in the vCPU and the total%s%s", count[k].field, *err ? ": " : "", err);
	acct_vms_release(back, nb);
	json_object_put(doc);
	free(out);
	acct_vm_release(&vm);
}

int main(void)
{
	layout();
	sums();
	for (size_t k = 0; k < NR; k++)
		formats(k);
	return tap_done();
}
