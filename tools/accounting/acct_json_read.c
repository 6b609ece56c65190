/* SPDX-License-Identifier: MIT */
/*
 * The JSON accounting read back into snapshots (acct_read_json), with json-c:
 * docs/accounting.md's schema 1, as tools/accounting/acct_json.c writes it.  Everything
 * the formats print comes back, so that a parsed snapshot writes, in any
 * format, what the snapshot it was written from wrote.
 *
 * The input may be hostile (a file, a socket): every value is checked for its
 * type and range before it is stored, and anything that does not fit the
 * schema is refused with -EINVAL and a message that names where it is
 * ("vms[0].vcpus[1].counters[2]").  Keys the schema does not name are
 * ignored, because schema 1 may gain keys (docs/accounting.md); inside the
 * maps keyed by events and rules an unknown key is refused, because it
 * names something the snapshot cannot hold.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "acct_formats.h"

/* The schema nests 7 deep (root, vms, VM, vcpus, VCPU, kvm, pmis). */
#define MAX_DEPTH 10

struct rd {
	char *err;
	size_t errlen;
	char where[96];         /* the VM or vCPU being read: "vms[2].vcpus[0]" */
};

static int fail(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct rd *r, const char *fmt, ...)
{
	va_list ap;
	if (r->err && r->errlen) {
		int n = snprintf(r->err, r->errlen, "%s%s", r->where, r->where[0] ? ": " : "");
		size_t o = n > 0 && (size_t)n < r->errlen ? (size_t)n : 0;
		va_start(ap, fmt);
		vsnprintf(r->err + o, r->errlen - o, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* o's member key, of type t; NULL (and the message) if absent or another type. */
static struct json_object *member(struct rd *r, struct json_object *o, const char *path,
				  const char *key, enum json_type t)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !v) {
		fail(r, "%s%s: missing", path, key);
		return NULL;
	}
	if (!json_object_is_type(v, t)) {
		fail(r, "%s%s: not %s", path, key,
		     t == json_type_object ? "an object" : t == json_type_array ? "an array" :
		     t == json_type_string ? "a string" : t == json_type_boolean ? "a boolean" :
		     "an integer");
		return NULL;
	}
	return v;
}

/* A count: a JSON integer from 0 to INT64_MAX, the most the writer writes
 * (docs/accounting.md).  Above that json-c keeps a number as unsigned, and
 * past 2^64-1 saturates it silently: both refused. */
static int count_of(struct rd *r, struct json_object *v, const char *path, const char *key,
		    uint64_t *out)
{
	if (!v || !json_object_is_type(v, json_type_int))
		return fail(r, "%s%s: not an integer", path, key);
	if (json_object_get_int64(v) < 0)
		return fail(r, "%s%s: negative", path, key);
	if (json_object_get_uint64(v) > (uint64_t)INT64_MAX)
		return fail(r, "%s%s: above 2^63-1", path, key);
	*out = json_object_get_uint64(v);
	return 0;
}

static int count(struct rd *r, struct json_object *o, const char *path, const char *key,
		 uint64_t *out)
{
	struct json_object *v = member(r, o, path, key, json_type_int);
	return v ? count_of(r, v, path, key, out) : -EINVAL;
}

/* A count that documents written before it existed lack: 0 where absent. */
static int count_since(struct rd *r, struct json_object *o, const char *path, const char *key,
		       uint64_t *out)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, key, &v)) {
		*out = 0;
		return 0;
	}
	return count_of(r, v, path, key, out);
}

/* A string of at most max - 1 bytes, UTF-8 and no NUL, into buf.  UTF-8 as
 * the writer checks it (acct_utf8_check): json-c's own check
 * (JSON_TOKENER_VALIDATE_UTF8) takes surrogates, overlong forms and code
 * points above U+10FFFF, which the writer would refuse. */
static int string(struct rd *r, struct json_object *v, const char *what, char *buf, size_t max)
{
	const char *s = json_object_get_string(v);
	size_t n = (size_t)json_object_get_string_len(v), bad;
	if (!s || strlen(s) != n)
		return fail(r, "%s: holds a NUL", what);
	if (n >= max)
		return fail(r, "%s: longer than %zu bytes", what, max - 1);
	if ((bad = acct_utf8_check(s, n)) != n)
		return fail(r, "%s: not UTF-8 (byte 0x%02x at offset %zu)", what,
			    (unsigned char)s[bad], bad);
	memcpy(buf, s, n + 1);
	return 0;
}

/* Rule r's key in TOTALS.violations and VM.rules: its name, or "rule<r>". */
static void rule_key(const struct acct_vm *vm, unsigned r, char *buf, size_t size)
{
	if (vm->rule[r][0])
		snprintf(buf, size, "%s", vm->rule[r]);
	else
		snprintf(buf, size, "rule%u", r);
}

static int totals(struct rd *r, struct json_object *o, const char *path, const struct acct_vm *vm,
		  struct vpmu_totals *t)
{
	struct json_object *x;
	char p[48];
	int err;

	memset(t, 0, sizeof(*t));
	snprintf(p, sizeof(p), "%sevents.", path);
	if (!(x = member(r, o, path, "events", json_type_object)))
		return -EINVAL;
	json_object_object_foreach(x, key, val) {
		int e = vpmu_event_from_name(key);
		if (e < 0 || e >= VPMU_EV_NR)
			return fail(r, "%s%s: no such event", p, key);
		/* docs/accounting.md: no number for an event the host cannot count */
		if (!acct_countable(vm, (enum vpmu_event)e))
			return fail(r, "%s%s: a count of an event that is not countable", p, key);
		if ((err = count_of(r, val, p, key, &t->events[e])))
			return err;
	}
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		if (acct_countable(vm, (enum vpmu_event)e) &&
		    !json_object_object_get_ex(x, vpmu_event_name((enum vpmu_event)e), NULL))
			return fail(r, "%s%s: missing", p, vpmu_event_name((enum vpmu_event)e));

	if (!(x = member(r, o, path, "counters", json_type_array)))
		return -EINVAL;
	if (json_object_array_length(x) != vm->nr_ctrs)
		return fail(r, "%scounters: %zu counts, the model has %u counters", path,
			    json_object_array_length(x), vm->nr_ctrs);
	for (unsigned i = 0; i < vm->nr_ctrs; i++) {
		char k[24];
		snprintf(k, sizeof(k), "counters[%u]", i);
		if ((err = count_of(r, json_object_array_get_idx(x, i), path, k, &t->pmc[i])))
			return err;
	}

	/* the counts of VPMU_TOTALS_COUNTS (include/vpmu/vpmu.h), in its order,
	 * each in its object of TOTALS ("": TOTALS itself) */
	static const struct {
		unsigned k;
		const char *obj, *key;
	} json_count[] = {
#define JSON_COUNT(f, part, key, obj, jkey, ...) { VPMU_TOTALS_##f, obj, jkey },
		VPMU_TOTALS_COUNTS(JSON_COUNT)
#undef JSON_COUNT
	};
	const char *in = NULL;
	x = o;
	for (size_t i = 0; i < sizeof(json_count) / sizeof(json_count[0]); i++) {
		const char *obj = json_count[i].obj;
		if (!*obj) {
			x = o;
			in = NULL;
			snprintf(p, sizeof(p), "%s", path);
		} else if (!in || strcmp(in, obj)) {
			snprintf(p, sizeof(p), "%s%s.", path, obj);
			if (!(x = member(r, o, path, obj, json_type_object)))
				return -EINVAL;
			in = obj;
		}
		/* A count added to schema 1 after its first documents (the event
		 * filter's) may be absent: the writer had none, so it is 0. */
		if (json_count[i].k == VPMU_TOTALS_filtered &&
		    !json_object_object_get_ex(x, json_count[i].key, NULL))
			continue;
		if (count(r, x, p, json_count[i].key, acct_count_ptr(t, json_count[i].k)))
			return -EINVAL;
	}

	snprintf(p, sizeof(p), "%sviolations.", path);
	if (!(x = member(r, o, path, "violations", json_type_object)))
		return -EINVAL;
	json_object_object_foreach(x, rk, rv) {
		unsigned rule = 0;
		char name[ACCT_RULE_NAME_MAX + 16];
		for (; rule < vm->nr_rules; rule++) {
			rule_key(vm, rule, name, sizeof(name));
			if (!strcmp(name, rk))
				break;
		}
		if (rule == vm->nr_rules)
			return fail(r, "%s%s: not one of the VM's rules", p, rk);
		if ((err = count_of(r, rv, p, rk, &t->violations[rule])))
			return err;
	}
	return 0;
}

static int kvm_stats(struct rd *r, struct json_object *k, struct vpmu_kvm_stats *s)
{
	struct json_object *p;
	memset(s, 0, sizeof(*s));
	if (count(r, k, "kvm.", "msr_exits", &s->msr_exits) ||
	    count(r, k, "kvm.", "msr_faults", &s->msr_faults) ||
	    count(r, k, "kvm.", "rdpmc_exits", &s->rdpmc_exits) ||
	    count(r, k, "kvm.", "rdpmc_syncs", &s->rdpmc_syncs) ||
	    count(r, k, "kvm.", "kicks", &s->kicks) ||
	    !(p = member(r, k, "kvm.", "pmis", json_type_object)) ||
	    count(r, p, "kvm.pmis.", "fixed", &s->pmis_fixed) ||
	    count(r, p, "kvm.pmis.", "nmi", &s->pmis_nmi) ||
	    count_since(r, p, "kvm.pmis.", "held", &s->pmis_held) ||
	    count(r, p, "kvm.pmis.", "lost_masked", &s->pmis_masked) ||
	    count(r, p, "kvm.pmis.", "lost_apic_off", &s->pmis_apic_off) ||
	    count(r, p, "kvm.pmis.", "lost_bad_mode", &s->pmis_bad_mode))
		return -EINVAL;
	return 0;
}

static int source_of(const char *name, enum vpmu_count_source *out)
{
	for (int s = VPMU_COUNT_NONE; s <= VPMU_COUNT_RAW; s++) {
		const char *n = vpmu_count_source_name((enum vpmu_count_source)s);
		if (n && !strcmp(n, name)) {
			*out = (enum vpmu_count_source)s;
			return 0;
		}
	}
	return -1;
}

/* VM.event_sources (optional: documents before it have none). */
static int event_sources(struct rd *r, struct json_object *o, struct acct_vm *vm)
{
	struct json_object *x;
	if (!json_object_object_get_ex(o, "event_sources", &x))
		return 0;
	if (!json_object_is_type(x, json_type_array))
		return fail(r, "event_sources: not an array");
	size_t n = json_object_array_length(x);
	/* no table has more events than this: a bigger list is not the writer's */
	if (n > 65535)
		return fail(r, "event_sources: %zu entries, more than 65535", n);
	struct acct_event_source *es = n ? calloc(n, sizeof(*es)) : NULL;
	if (n && !es)
		return fail(r, "event_sources: out of memory");
	int err = 0;
	for (unsigned i = 0; i < n && !err; i++) {
		struct json_object *e = json_object_array_get_idx(x, i), *v;
		char p[40];
		snprintf(p, sizeof(p), "event_sources[%u].", i);
		if (!json_object_is_type(e, json_type_object)) {
			err = fail(r, "event_sources[%u]: not an object", i);
			break;
		}
		if (!(v = member(r, e, p, "event", json_type_string)) ||
		    string(r, v, "event_sources[].event", es[i].event, sizeof(es[i].event)) ||
		    !(v = member(r, e, p, "source", json_type_string)) ||
		    count(r, e, p, "programmings", &es[i].programmings)) {
			err = -EINVAL;
			break;
		}
		if (source_of(json_object_get_string(v), &es[i].source)) {
			err = fail(r, "%ssource: unknown source '%.40s'", p, json_object_get_string(v));
			break;
		}
		if (!json_object_object_get_ex(e, "host_event", &v)) {
			err = fail(r, "%shost_event: missing", p);
			break;
		}
		if (v && (!json_object_is_type(v, json_type_string) ||
			  string(r, v, "event_sources[].host_event", es[i].host_event,
				 sizeof(es[i].host_event)))) {
			err = v && !json_object_is_type(v, json_type_string)
			      ? fail(r, "%shost_event: neither a string nor null", p) : -EINVAL;
			break;
		}
		if (!v != (es[i].source == VPMU_COUNT_NONE) || (v && !es[i].host_event[0])) {
			err = fail(r, "%shost_event: disagrees with its source", p);
			break;
		}
	}
	if (!err && acct_vm_set_sources(vm, es, (unsigned)n))
		err = fail(r, "event_sources: refused");
	free(es);
	return err;
}

/* VM's header: name, model, counters, events, event sources, rules. */
static int vm_header(struct rd *r, struct json_object *o, struct acct_vm *vm)
{
	struct json_object *x, *v;
	uint64_t nc;
	int err;
	if (!(v = member(r, o, "", "name", json_type_string)) ||
	    string(r, v, "name", vm->name, sizeof(vm->name)) ||
	    !(v = member(r, o, "", "model", json_type_string)) ||
	    string(r, v, "model", vm->model, sizeof(vm->model)) ||
	    count(r, o, "", "counters", &nc))
		return -EINVAL;
	if (nc > VPMU_MAX_CTRS)
		return fail(r, "counters: %" PRIu64 ", more than %u", nc, VPMU_MAX_CTRS);
	vm->nr_ctrs = (unsigned)nc;

	if (!(x = member(r, o, "", "events", json_type_object)))
		return -EINVAL;
	json_object_object_foreach(x, key, val) {
		if (vpmu_event_from_name(key) < 0)
			return fail(r, "events.%s: no such event", key);
		(void)val;
	}
	for (unsigned e = 0; e < VPMU_EV_NR; e++) {
		const char *en = vpmu_event_name((enum vpmu_event)e);
		char p[48];
		struct json_object *ev, *c, *s;
		snprintf(p, sizeof(p), "events.%s.", en);
		if (!(ev = member(r, x, "events.", en, json_type_object)) ||
		    !(c = member(r, ev, p, "countable", json_type_boolean)) ||
		    !(s = member(r, ev, p, "source", json_type_string)))
			return -EINVAL;
		if (source_of(json_object_get_string(s), &vm->source[e]))
			return fail(r, "%ssource: unknown source '%.40s'", p, json_object_get_string(s));
		if (json_object_get_boolean(c) != acct_countable(vm, (enum vpmu_event)e))
			return fail(r, "%scountable: disagrees with its source", p);
	}

	if ((err = event_sources(r, o, vm)))
		return err;

	if (!(x = member(r, o, "", "rules", json_type_array)))
		return -EINVAL;
	if (json_object_array_length(x) > VPMU_MAX_RULES)
		return fail(r, "rules: more than %u", VPMU_MAX_RULES);
	vm->nr_rules = (unsigned)json_object_array_length(x);
	for (unsigned i = 0; i < vm->nr_rules; i++) {
		char what[24], unnamed[16];
		v = json_object_array_get_idx(x, i);
		snprintf(what, sizeof(what), "rules[%u]", i);
		if (!v || !json_object_is_type(v, json_type_string))
			return fail(r, "%s: not a string", what);
		if (string(r, v, what, vm->rule[i], sizeof(vm->rule[i])))
			return -EINVAL;
		/* the writer names a rule without a name "rule<id>" (acct_json.c) */
		snprintf(unnamed, sizeof(unnamed), "rule%u", i);
		if (!strcmp(vm->rule[i], unnamed))
			vm->rule[i][0] = 0;
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(vm->rule[i], vm->rule[j]) && vm->rule[i][0])
				return fail(r, "%s: '%s' twice", what, vm->rule[i]);
	}
	return 0;
}

static int read_vm(struct rd *r, struct json_object *o, unsigned m, struct acct_vm *vm)
{
	struct json_object *x;
	size_t nv;
	int err;

	snprintf(r->where, sizeof(r->where), "vms[%u]", m);
	if (!json_object_is_type(o, json_type_object))
		return fail(r, "not an object");
	if ((err = vm_header(r, o, vm)))
		return err;
	if (!(x = member(r, o, "", "vcpus", json_type_array)))
		return -EINVAL;
	nv = json_object_array_length(x);
	if (nv > VPMU_MAX_VCPUS)
		return fail(r, "vcpus: %zu, more than %u", nv, VPMU_MAX_VCPUS);
	if (nv) {
		vm->vcpu = calloc(nv, sizeof(*vm->vcpu));
		if (!vm->vcpu)
			return -ENOMEM;
	}
	vm->max_vcpus = (unsigned)nv;
	for (unsigned i = 0; i < nv; i++) {
		struct json_object *v = json_object_array_get_idx(x, i), *k;
		struct acct_vcpu c;
		uint64_t index;
		snprintf(r->where, sizeof(r->where), "vms[%u].vcpus[%u]", m, i);
		if (!v || !json_object_is_type(v, json_type_object))
			return fail(r, "not an object");
		if (count(r, v, "", "index", &index) || totals(r, v, "", vm, &c.t))
			return -EINVAL;
		if (index >= VPMU_MAX_VCPUS)
			return fail(r, "index: %" PRIu64 ", at most %u", index, VPMU_MAX_VCPUS - 1);
		if (json_object_object_get_ex(v, "kvm", &k)) {
			if (!k || !json_object_is_type(k, json_type_object))
				return fail(r, "kvm: not an object");
			if (kvm_stats(r, k, &c.kvm))
				return -EINVAL;
		} else {
			k = NULL;       /* not under KVM: no "kvm" (docs/accounting.md) */
		}
		if (acct_vm_add_vcpu(vm, (unsigned)index, &c.t, k ? &c.kvm : NULL))
			return fail(r, "index: vCPU %" PRIu64 " twice", index);
	}
	snprintf(r->where, sizeof(r->where), "vms[%u]", m);
	/* "total" as written, not summed again: a count above INT64_MAX is
	 * written clamped (docs/accounting.md), so the vCPUs' clamped counts need
	 * not add up to it */
	if (!(x = member(r, o, "", "total", json_type_object)) ||
	    totals(r, x, "total.", vm, &vm->total))
		return -EINVAL;
	return 0;
}

int acct_read_json(const char *text, size_t len, struct acct_vm **vms, unsigned *n,
		   char *err, size_t errlen)
{
	struct rd r = { .err = err, .errlen = errlen };
	struct json_tokener *tok;
	struct json_object *doc, *x;
	struct acct_vm *out = NULL;
	size_t nvm = 0, end;
	int ret = 0;
	uint64_t schema;

	if (err && errlen)
		err[0] = 0;
	if (!vms || !n || (!text && len))
		return -EINVAL;
	*vms = NULL;
	*n = 0;
	/* json-c builds the whole tree first, at up to 36 times the text's size
	 * (an array of 50 million zeros, 100 MB: 8.8 s and 3.6 GB, -O2; at the
	 * cap, 1.4 s and 0.6 GB), while a VM of 64 vCPUs is about 100 KB: the
	 * size is refused before parsing */
	if (len > ACCT_JSON_MAX)
		return fail(&r, "%zu bytes, larger than the %u MiB a document may have", len,
			    ACCT_JSON_MAX >> 20);
	tok = json_tokener_new_ex(MAX_DEPTH);
	if (!tok)
		return -ENOMEM;
	/* RFC 8259, section 8.1: JSON between systems is UTF-8; this catches
	 * stray bytes anywhere, string() the rest in what is kept */
	json_tokener_set_flags(tok, JSON_TOKENER_VALIDATE_UTF8);
	doc = json_tokener_parse_ex(tok, text ? text : "", (int)len);
	if (!doc) {
		enum json_tokener_error je = json_tokener_get_error(tok);
		end = json_tokener_get_parse_end(tok);
		if (je == json_tokener_error_parse_utf8_string && end < len)
			ret = fail(&r, "not UTF-8 (byte 0x%02x at offset %zu)", (unsigned char)text[end],
				   end);
		else
			ret = fail(&r, "not JSON: %s at byte %zu", je == json_tokener_continue ?
				   "unexpected end" : json_tokener_error_desc(je), end);
		json_tokener_free(tok);
		return ret;
	}
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	while (end < len && strchr(" \t\r\n", text[end]) && text[end])
		end++;
	if (end < len) {
		ret = fail(&r, "not JSON: trailing bytes at byte %zu", end);
		goto out;
	}
	if (!json_object_is_type(doc, json_type_object)) {
		ret = fail(&r, "not a JSON object");
		goto out;
	}
	if (count(&r, doc, "", "schema", &schema)) {
		ret = -EINVAL;
		goto out;
	}
	if (schema != 1) {
		ret = fail(&r, "schema %" PRIu64 ": unknown (this reads schema 1)", schema);
		goto out;
	}
	if (!(x = member(&r, doc, "", "vms", json_type_array))) {
		ret = -EINVAL;
		goto out;
	}
	nvm = json_object_array_length(x);
	if (nvm > UINT_MAX / 2) {
		ret = fail(&r, "vms: too many");
		goto out;
	}
	if (nvm && !(out = calloc(nvm, sizeof(*out)))) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t m = 0; m < nvm && !ret; m++)
		ret = read_vm(&r, json_object_array_get_idx(x, m), (unsigned)m, &out[m]);
out:
	json_object_put(doc);
	if (ret) {
		acct_vms_release(out, (unsigned)nvm);
		if (ret == -ENOMEM && err && errlen)
			snprintf(err, errlen, "out of memory");
		return ret;
	}
	*vms = out;
	*n = (unsigned)nvm;
	return 0;
}
