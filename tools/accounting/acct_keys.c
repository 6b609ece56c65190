/* SPDX-License-Identifier: MIT */
/*
 * The one list of a VM's libvirt-style accounting keys (tools/accounting/acct_keys.h,
 * docs/accounting.md "domstats: libvirt's form, vpmu's keys").  Every key is
 * under "vpmu.": libvirt's perf.* keys mean what libvirt measures, host perf
 * events on the domain's threads, and these are what the guest's own virtual
 * counters counted, so they take only libvirt's event names
 * (VIR_PERF_PARAM_*, include/libvirt/libvirt-domain.h), not its keys.  An
 * event the host cannot count has no count key, as libvirt leaves out a perf
 * event that is not enabled; "vpmu.<name>.countable=0" says why.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "acct_formats.h"
#include "acct_keys.h"

/* libvirt's name of each generic event (VIR_PERF_PARAM_*, its perf.* keys' suffixes). */
static const char *const libvirt_perf_key[VPMU_EV_NR] = {
	[VPMU_EV_CYCLES] = "cpu_cycles",
	[VPMU_EV_INSTRUCTIONS] = "instructions",
	[VPMU_EV_REF_CYCLES] = "ref_cpu_cycles",
	[VPMU_EV_BUS_CYCLES] = "bus_cycles",
	[VPMU_EV_BRANCHES] = "branch_instructions",
	[VPMU_EV_BRANCH_MISSES] = "branch_misses",
	[VPMU_EV_CACHE_REFERENCES] = "cache_references",
	[VPMU_EV_CACHE_MISSES] = "cache_misses",
};

/* The per-VM and per-vCPU counts every block has: VPMU_TOTALS_COUNTS
 * (include/vpmu/vpmu.h), in its order, which is the one domstats has always
 * printed (tests/accounting-cli.t, docs/accounting.md). */
static const struct {
	const char *name;
	size_t len;
	unsigned k;
} totals_key[] = {
#define KEY(f, part, key, ...) { key, sizeof(key) - 1, VPMU_TOTALS_##f },
	VPMU_TOTALS_COUNTS(KEY)
#undef KEY
};

/* The key being built: a prefix ("vpmu.", "vpmu.vcpu.<i>.") that
 * stays while the suffixes after it change. */
struct walk {
	acct_key_fn fn;
	void *ctx;
	size_t plen;
	char key[ACCT_KEY_MAX];
};

/* Appends s[0..n) to the key's first `at` bytes. */
static int put(struct walk *w, size_t at, const char *s, size_t n, size_t *end)
{
	if (at + n >= sizeof(w->key))
		return -ENAMETOOLONG;
	memcpy(w->key + at, s, n);
	w->key[at + n] = 0;
	*end = at + n;
	return 0;
}

/* v in decimal at the key's byte at. */
static int put_dec(struct walk *w, size_t at, unsigned v, size_t *end)
{
	char tmp[16], *p = tmp + sizeof(tmp);
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	return put(w, at, p, (size_t)(tmp + sizeof(tmp) - p), end);
}

static int emit(struct walk *w, size_t len, enum acct_key_type type, uint64_t u, const char *s)
{
	const struct acct_key k = { w->key, len, type, u, s };
	return w->fn(w->ctx, &k);
}

#define TRY(x) do { int err_ = (x); if (err_) return err_; } while (0)

/* The prefix's key plus one suffix, with a count. */
static int count(struct walk *w, const char *sfx, size_t n, uint64_t v)
{
	size_t end;
	TRY(put(w, w->plen, sfx, n, &end));
	return emit(w, end, ACCT_KEY_ULLONG, v, NULL);
}

#define LIT(s) s, sizeof(s) - 1

static int totals(struct walk *w, const struct acct_vm *vm, const struct vpmu_totals *t)
{
	size_t end;
	for (unsigned k = 0; k < sizeof(totals_key) / sizeof(totals_key[0]); k++) {
		TRY(count(w, totals_key[k].name, totals_key[k].len, acct_count(t, totals_key[k].k)));
	}
	for (unsigned i = 0; i < vm->nr_ctrs && i < VPMU_MAX_CTRS; i++) {
		TRY(put(w, w->plen, LIT("counter."), &end));
		TRY(put_dec(w, end, i, &end));
		TRY(emit(w, end, ACCT_KEY_ULLONG, t->pmc[i], NULL));
	}
	for (unsigned r = 0; r < vm->nr_rules && r < VPMU_MAX_RULES; r++) {
		/* a pointer, so that this reads the same whether the snapshot holds
		 * rule names as pointers or in arrays ("" or NULL: no name) */
		const char *name = vm->rule[r];
		if (!t->violations[r] || !name || !*name)
			continue;
		TRY(put(w, w->plen, LIT("violations."), &end));
		TRY(put(w, end, name, strnlen(name, sizeof(w->key)), &end));
		TRY(emit(w, end, ACCT_KEY_ULLONG, t->violations[r], NULL));
	}
	return 0;
}

static int events(struct walk *w, const struct acct_vm *vm, const uint64_t *ev)
{
	/* the keys' lengths once, not per vCPU (issue 10's 8,000 of them) */
	static const size_t len[VPMU_EV_NR] = {
		[VPMU_EV_CYCLES] = sizeof("cpu_cycles") - 1,
		[VPMU_EV_INSTRUCTIONS] = sizeof("instructions") - 1,
		[VPMU_EV_REF_CYCLES] = sizeof("ref_cpu_cycles") - 1,
		[VPMU_EV_BUS_CYCLES] = sizeof("bus_cycles") - 1,
		[VPMU_EV_BRANCHES] = sizeof("branch_instructions") - 1,
		[VPMU_EV_BRANCH_MISSES] = sizeof("branch_misses") - 1,
		[VPMU_EV_CACHE_REFERENCES] = sizeof("cache_references") - 1,
		[VPMU_EV_CACHE_MISSES] = sizeof("cache_misses") - 1,
	};
	for (int e = 0; e < VPMU_EV_NR; e++)
		if (acct_countable(vm, (enum vpmu_event)e))
			TRY(count(w, libvirt_perf_key[e], len[e], ev[e]));
	return 0;
}

int acct_domstats_walk(const struct acct_vm *vm, acct_key_fn fn, void *ctx)
{
	struct walk w = { .fn = fn, .ctx = ctx };
	size_t end;
	if (!vm || !fn || !memchr(vm->model, 0, sizeof(vm->model)))
		return -EINVAL;
	TRY(put(&w, 0, LIT("vpmu."), &w.plen));
	TRY(events(&w, vm, vm->total.events));
	/* UINT, not BOOLEAN: virsh prints a boolean as yes/no (vshGetTypedParamValue),
	 * and this key reads "=0" */
	for (int e = 0; e < VPMU_EV_NR; e++) {
		if (acct_countable(vm, (enum vpmu_event)e))
			continue;
		TRY(put(&w, w.plen, libvirt_perf_key[e], strlen(libvirt_perf_key[e]), &end));
		TRY(put(&w, end, LIT(".countable"), &end));
		TRY(emit(&w, end, ACCT_KEY_UINT, 0, NULL));
	}
	TRY(put(&w, w.plen, LIT("model"), &end));
	TRY(emit(&w, end, ACCT_KEY_STRING, 0, vm->model));
	TRY(put(&w, w.plen, LIT("vcpu.count"), &end));
	TRY(emit(&w, end, ACCT_KEY_UINT, vm->nr_vcpus, NULL));
	TRY(totals(&w, vm, &vm->total));
	/* the table events programmed, numbered as libvirt numbers a domain's
	 * disks and interfaces (block.<n>.name, net.<n>.name; virsh domstats) */
	if (vm->nr_sources) {
		TRY(put(&w, w.plen, LIT("event_source.count"), &end));
		TRY(emit(&w, end, ACCT_KEY_UINT, vm->nr_sources, NULL));
	}
	for (unsigned i = 0; i < vm->nr_sources; i++) {
		const struct acct_event_source *es = &vm->event_source[i];
		size_t at;
		if (!memchr(es->event, 0, sizeof(es->event)) ||
		    !memchr(es->host_event, 0, sizeof(es->host_event)))
			return -EINVAL;
		TRY(put(&w, w.plen, LIT("event_source."), &at));
		TRY(put_dec(&w, at, i, &at));
		TRY(put(&w, at, LIT(".name"), &end));
		TRY(emit(&w, end, ACCT_KEY_STRING, 0, es->event));
		TRY(put(&w, at, LIT(".source"), &end));
		TRY(emit(&w, end, ACCT_KEY_STRING, 0, vpmu_count_source_name(es->source)));
		if (es->host_event[0]) {
			TRY(put(&w, at, LIT(".host_event"), &end));
			TRY(emit(&w, end, ACCT_KEY_STRING, 0, es->host_event));
		}
		TRY(put(&w, at, LIT(".programmings"), &end));
		TRY(emit(&w, end, ACCT_KEY_ULLONG, es->programmings, NULL));
	}

	for (unsigned i = 0; i < vm->nr_vcpus; i++) {
		const struct acct_vcpu *c = &vm->vcpu[i];
		TRY(put(&w, 0, LIT("vpmu.vcpu."), &end));
		TRY(put_dec(&w, end, c->index, &end));
		TRY(put(&w, end, LIT("."), &w.plen));
		TRY(events(&w, vm, c->t.events));
		TRY(totals(&w, vm, &c->t));
	}
	return 0;
}
