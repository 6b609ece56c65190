/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "acct_snapshot.h"

/* s into dst (size bytes), cut to fit: snprintf's result, without its
 * format parsing (a few thousand per export: docs/performance.md). */
static void copy_str(char *dst, size_t size, const char *s)
{
	size_t n = s ? strnlen(s, size - 1) : 0;
	memcpy(dst, s ? s : "", n);
	dst[n] = 0;
}

size_t acct_utf8_check(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		unsigned char c = p[i];
		size_t len;
		/* the lead byte gives the length and the range of its second byte
		 * (table 3-7): E0 and F0 exclude overlong forms, ED the surrogates,
		 * F4 what lies above U+10FFFF */
		unsigned char lo = 0x80, hi = 0xBF;
		if (c < 0x80)
			len = 1;
		else if (c >= 0xC2 && c <= 0xDF)
			len = 2;
		else if (c >= 0xE0 && c <= 0xEF)
			len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
		else if (c >= 0xF0 && c <= 0xF4)
			len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
		else
			return i;
		if (len > n - i || (len > 1 && (p[i + 1] < lo || p[i + 1] > hi)))
			return i;
		for (size_t k = 2; k < len; k++)
			if ((p[i + k] & 0xC0) != 0x80)
				return i;
		i += len;
	}
	return n;
}

int acct_vm_set_sources(struct acct_vm *out, const struct acct_event_source *src, unsigned n)
{
	if (!out || (n && !src))
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		size_t le = strnlen(src[i].event, ACCT_EVENT_NAME_MAX);
		size_t lh = strnlen(src[i].host_event, ACCT_EVENT_NAME_MAX);
		if (!le || le == ACCT_EVENT_NAME_MAX || lh == ACCT_EVENT_NAME_MAX ||
		    acct_utf8_check(src[i].event, le) != le ||
		    acct_utf8_check(src[i].host_event, lh) != lh ||
		    (unsigned)src[i].source > VPMU_COUNT_RAW)
			return -EINVAL;
	}
	struct acct_event_source *copy = n ? malloc(n * sizeof(*copy)) : NULL;
	if (n && !copy)
		return -ENOMEM;
	if (n)
		memcpy(copy, src, n * sizeof(*copy));
	free(out->event_source);
	out->event_source = copy;
	out->nr_sources = n;
	return 0;
}

/* The VM's event sources into the snapshot (they grow while guests program
 * new events: what one call returns is the snapshot's). */
static int collect_sources(struct acct_vm *out, const struct vpmu_vm *vm)
{
	int n = vpmu_vm_event_sources(vm, NULL, 0);
	if (n <= 0)
		return n;
	struct vpmu_event_source *s = malloc((size_t)n * sizeof(*s));
	struct acct_event_source *a = malloc((size_t)n * sizeof(*a));
	int err = s && a ? 0 : -ENOMEM;
	if (!err) {
		int got = vpmu_vm_event_sources(vm, s, (unsigned)n);
		unsigned k = got < n ? (unsigned)(got > 0 ? got : 0) : (unsigned)n;
		for (unsigned i = 0; i < k; i++) {
			copy_str(a[i].event, sizeof(a[i].event), s[i].event);
			copy_str(a[i].host_event, sizeof(a[i].host_event), s[i].host_event);
			a[i].source = s[i].source;
			a[i].programmings = s[i].programmings;
		}
		err = acct_vm_set_sources(out, a, k);
	}
	free(s);
	free(a);
	return err;
}

int acct_vm_begin(struct acct_vm *out, const char *name, const struct vpmu_vm *vm,
		  const struct vpmu_host *host, unsigned max_vcpus)
{
	struct vpmu_model_info mi;
	if (!out)
		return -EINVAL;
	/* the header only: the rule names are written in full below, and the
	 * vCPUs' room is filled as they are added */
	memset(out, 0, offsetof(struct acct_vm, rule));
	memset(&out->nr_sources, 0, sizeof(*out) - offsetof(struct acct_vm, nr_sources));
	/* the model, its rules and the host's event sources are fixed once the VM
	 * exists (include/vpmu/vpmu.h), so no vCPU thread has to stop for this */
	if (!name || !vm || max_vcpus > VPMU_MAX_VCPUS || vpmu_model_info(vpmu_vm_model(vm), &mi) ||
	    acct_utf8_check(name, strlen(name)) != strlen(name)) {
		memset(out, 0, sizeof(*out));
		return -EINVAL;
	}
	/* cut, it would be another domain's name, or no longer UTF-8 */
	if (strlen(name) >= sizeof(out->name)) {
		memset(out, 0, sizeof(*out));
		return -ENAMETOOLONG;
	}
	if (max_vcpus) {
		out->vcpu = malloc(max_vcpus * sizeof(*out->vcpu));
		if (!out->vcpu) {
			memset(out, 0, sizeof(*out));
			return -ENOMEM;
		}
	}
	out->max_vcpus = max_vcpus;
	copy_str(out->name, sizeof(out->name), name);
	copy_str(out->model, sizeof(out->model), mi.name);
	out->nr_ctrs = mi.nr_ctrs < VPMU_MAX_CTRS ? mi.nr_ctrs : VPMU_MAX_CTRS;
	out->nr_rules = mi.nr_rules < VPMU_MAX_RULES ? mi.nr_rules : VPMU_MAX_RULES;
	for (unsigned r = 0; r < out->nr_rules; r++)
		copy_str(out->rule[r], sizeof(out->rule[r]), vpmu_vm_rule_name(vm, r));
	if (out->nr_rules < VPMU_MAX_RULES)
		memset(out->rule[out->nr_rules], 0,
		       (VPMU_MAX_RULES - out->nr_rules) * sizeof(out->rule[0]));
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		out->source[e] = vpmu_host_event_source(host, (enum vpmu_event)e, NULL);
	/* the host publishes them atomically, any thread may read them */
	int err = collect_sources(out, vm);
	if (err)
		acct_vm_release(out);
	return err;
}

int acct_vm_add_vcpu(struct acct_vm *out, unsigned index, const struct vpmu_totals *t,
		     const struct vpmu_kvm_stats *kvm)
{
	struct acct_vcpu *a;
	if (!out || !t || index >= VPMU_MAX_VCPUS)
		return -EINVAL;
	if (out->nr_vcpus >= out->max_vcpus || !out->vcpu)
		return -ENOSPC;
	/* one entry per vCPU: the VM's total sums each once (at most 64: a scan) */
	for (unsigned i = 0; i < out->nr_vcpus; i++)
		if (out->vcpu[i].index == index)
			return -EINVAL;
	a = &out->vcpu[out->nr_vcpus++];
	a->index = index;
	if (&a->t != t)         /* acct_collect reads the totals in place */
		a->t = *t;
	a->have_kvm = kvm != NULL;
	if (kvm)
		a->kvm = *kvm;
	else
		memset(&a->kvm, 0, sizeof(a->kvm));
	/* field by field, from the one list of counts (include/vpmu/vpmu.h) */
	vpmu_totals_add(&out->total, t);
	return 0;
}

void acct_vm_release(struct acct_vm *vm)
{
	if (!vm)
		return;
	free(vm->event_source);
	free(vm->vcpu);
	memset(vm, 0, sizeof(*vm));
}

void acct_vms_release(struct acct_vm *vms, unsigned n)
{
	if (!vms)
		return;
	for (unsigned i = 0; i < n; i++)
		acct_vm_release(&vms[i]);
	free(vms);
}

int acct_collect(struct acct_vm *out, const char *name, struct vpmu_vm *vm,
		 const struct vpmu_host *host, const struct vpmu_kvm_stats *const *kvm)
{
	struct vpmu_vcpu *v[VPMU_MAX_VCPUS];
	unsigned nv = 0;
	int err;
	if (!out)
		return -EINVAL;
	for (unsigned k = 0; vm && k < VPMU_MAX_VCPUS; k++)
		v[k] = vpmu_vcpu_get(vm, k), nv += v[k] != NULL;
	err = acct_vm_begin(out, name, vm, host, nv);
	if (err)
		return err;
	for (unsigned k = 0; k < VPMU_MAX_VCPUS && nv; k++) {
		struct vpmu_totals *t;
		if (!v[k])
			continue;
		nv--;
		/* straight into the vCPU's slot: one copy of the totals, not two */
		t = &out->vcpu[out->nr_vcpus].t;
		if (vpmu_vcpu_totals(v[k], t))
			continue;
		err = acct_vm_add_vcpu(out, k, t, kvm ? kvm[k] : NULL);
		if (err) {
			acct_vm_release(out);
			return err;
		}
	}
	return 0;
}
