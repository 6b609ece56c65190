/* SPDX-License-Identifier: MIT */
/*
 * Accounting as JSON, written with json-c.  The schema (docs/accounting.md):
 *
 * {"schema": 1, "vms": [VM, ...]}
 * VM     = {"name": "<domain>", "model": "<model>", "counters": N,
 *           "events": {"<event>": {"countable": bool, "source": "<source>"}, ...},
 *           "event_sources": [{"event": "<table event>", "source": "<source>",
 *                              "host_event": "<host event>" | null,
 *                              "programmings": N}, ...],
 *           "rules": ["<rule>", ...],
 *           "vcpus": [VCPU, ...],
 *           "total": TOTALS}
 * TOTALS = {"events": {"<event>": N, ...},
 *           "counters": [N, ...],
 *           "pmis": {"raised": N},
 *           "accesses": {"reads": N, "writes": N, "calls": N},
 *           "faults": N, "strict_refusals": N,
 *           "violations": {"<rule>": N, ...},
 *           "cache_hits": N, "switch_ins": N}
 * VCPU   = {"index": N} + TOTALS
 *          + {"kvm": {"msr_exits": N, "msr_faults": N, "rdpmc_exits": N,
 *                     "rdpmc_syncs": N,
 *                     "pmis": {"fixed": N, "nmi": N, "lost_masked": N,
 *                              "lost_apic_off": N, "lost_bad_mode": N},
 *                     "kicks": N}}
 *
 * - <event>: the generic event names (vpmu_event_name(): "cycles",
 *   "instructions", "ref-cycles", "bus-cycles", "branches", "branch-misses",
 *   "cache-references", "cache-misses"), all of them in VM.events; <source>:
 *   vpmu_count_source_name() ("not-countable", "sim", "hardware", "task-clock",
 *   "hardware-raw").
 * - "event_sources": the events of the VM's event table (vpmu-events) its
 *   guests programmed, in the table's order, and how the host counted each
 *   (vpmu_vm_event_sources): "hardware-raw" with the host table's event of the
 *   same name and encoding, "hardware" or "task-clock" with the generic event,
 *   "not-countable" with null.  Absent from documents before it existed: a
 *   reader takes that as none.
 * - TOTALS.events has the countable events only: an event the host cannot count
 *   has no number anywhere, only "countable": false in VM.events.
 * - "counters" (VM) is how many guest counters the model has; TOTALS.counters
 *   holds that many counts, guest counter 0 first.
 * - "rules": the model's perfctr rule names by rule id; TOTALS.violations has
 *   the rules with a nonzero count only (a rule without a name: "rule<id>").
 * - "total" is the sum of the VM's vCPUs.  "kvm" appears only on the vCPUs run
 *   by the KVM glue (vpmu-run), never in "total".
 * - Every N is a JSON integer: a count above 2^63-1 (not reached in practice)
 *   reads 9223372036854775807.
 * - Every string is UTF-8 (RFC 8259, section 8.1): a snapshot whose name,
 *   model or rule names are not is refused (-EINVAL), nothing written.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

#include "acct_formats.h"

/* The keys live at least as long as the tree (freed before returning): no copies. */
#define KEY_NEW (JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_ADD_CONSTANT_KEY)

struct jb {
	int err;
};

/* Adds v under key to parent; v is freed (and err set) if that fails.  A NULL
 * parent is one that failed before (err is set): v is dropped. */
static struct json_object *add(struct jb *b, struct json_object *parent, const char *key,
			       struct json_object *v, unsigned opts)
{
	if (!v) {
		b->err = -ENOMEM;
		return NULL;
	}
	if (!parent || json_object_object_add_ex(parent, key, v, opts)) {
		json_object_put(v);
		b->err = -ENOMEM;
		return NULL;
	}
	return v;
}

static struct json_object *push(struct jb *b, struct json_object *arr, struct json_object *v)
{
	if (!v) {
		b->err = -ENOMEM;
		return NULL;
	}
	if (!arr || json_object_array_add(arr, v)) {
		json_object_put(v);
		b->err = -ENOMEM;
		return NULL;
	}
	return v;
}

static struct json_object *num(uint64_t v)
{
	return json_object_new_int64(v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v);
}

static void add_num(struct jb *b, struct json_object *o, const char *key, uint64_t v)
{
	add(b, o, key, num(v), KEY_NEW);
}

/* Whether s (a field of max bytes) is a string the reader takes back as it
 * is: NUL-terminated inside the field, and UTF-8.  Neither replaced (U+FFFD is
 * three bytes: a 63-byte name would no longer fit the reader's 63) nor cut:
 * a snapshot that holds anything else is refused (-EINVAL). */
static bool text_ok(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	return n < max && acct_utf8_check(s, n) == n;
}

static const char *rule_key(const struct acct_vm *vm, unsigned r, char *tmp, size_t size)
{
	if (vm->rule[r][0])
		return vm->rule[r];
	snprintf(tmp, size, "rule%u", r);
	return tmp;
}

static unsigned nr_ctrs(const struct acct_vm *vm)
{
	return vm->nr_ctrs < VPMU_MAX_CTRS ? vm->nr_ctrs : VPMU_MAX_CTRS;
}

static unsigned nr_rules(const struct acct_vm *vm)
{
	return vm->nr_rules < VPMU_MAX_RULES ? vm->nr_rules : VPMU_MAX_RULES;
}

/* The counts of VPMU_TOTALS_COUNTS (include/vpmu/vpmu.h), in its order: the
 * object of TOTALS that holds each ("": TOTALS itself) and its key there. */
static const struct {
	unsigned part, k;
	const char *obj, *key;
} json_count[] = {
#define JSON_COUNT(f, part, key, obj, jkey, ...) { part, VPMU_TOTALS_##f, obj, jkey },
	VPMU_TOTALS_COUNTS(JSON_COUNT)
#undef JSON_COUNT
};

/* The counts of one part into o, each count of an object after the one before
 * it in that object. */
static void counts(struct jb *b, struct json_object *o, const struct vpmu_totals *t, unsigned part)
{
	struct json_object *x = NULL;
	const char *in = NULL;
	for (size_t i = 0; i < sizeof(json_count) / sizeof(json_count[0]); i++) {
		const char *obj = json_count[i].obj;
		if (json_count[i].part != part)
			continue;
		if (!*obj) {
			add_num(b, o, json_count[i].key, acct_count(t, json_count[i].k));
			in = NULL;
			continue;
		}
		if (!in || strcmp(in, obj)) {
			x = add(b, o, obj, json_object_new_object(), KEY_NEW);
			in = obj;
		}
		add_num(b, x, json_count[i].key, acct_count(t, json_count[i].k));
	}
}

/* TOTALS, into the object o. */
static void totals(struct jb *b, struct json_object *o, const struct acct_vm *vm,
		   const struct vpmu_totals *t)
{
	struct json_object *x;
	char tmp[16];

	x = add(b, o, "events", json_object_new_object(), KEY_NEW);
	for (unsigned e = 0; e < VPMU_EV_NR && x; e++)
		if (acct_countable(vm, (enum vpmu_event)e))
			add_num(b, x, vpmu_event_name((enum vpmu_event)e), t->events[e]);
	x = add(b, o, "counters", json_object_new_array(), KEY_NEW);
	for (unsigned i = 0; i < nr_ctrs(vm) && x; i++)
		push(b, x, num(t->pmc[i]));
	counts(b, o, t, VPMU_TOTALS_PART_PMIS);
	counts(b, o, t, VPMU_TOTALS_PART_ACCESSES);
	x = add(b, o, "violations", json_object_new_object(), KEY_NEW);
	for (unsigned r = 0; r < nr_rules(vm) && x; r++) {
		if (!t->violations[r])
			continue;
		/* rule names are the model's, unique in practice: checked anyway */
		if (vm->rule[r][0])
			add(b, x, vm->rule[r], num(t->violations[r]), JSON_C_OBJECT_ADD_CONSTANT_KEY);
		else
			add(b, x, rule_key(vm, r, tmp, sizeof(tmp)), num(t->violations[r]), 0);
	}
	counts(b, o, t, VPMU_TOTALS_PART_SWITCHES);
}

static void kvm_stats(struct jb *b, struct json_object *o, const struct vpmu_kvm_stats *k)
{
	struct json_object *x = add(b, o, "kvm", json_object_new_object(), KEY_NEW), *p;
	add_num(b, x, "msr_exits", k->msr_exits);
	add_num(b, x, "msr_faults", k->msr_faults);
	add_num(b, x, "rdpmc_exits", k->rdpmc_exits);
	add_num(b, x, "rdpmc_syncs", k->rdpmc_syncs);
	p = add(b, x, "pmis", json_object_new_object(), KEY_NEW);
	add_num(b, p, "fixed", k->pmis_fixed);
	add_num(b, p, "nmi", k->pmis_nmi);
	add_num(b, p, "held", k->pmis_held);
	add_num(b, p, "lost_masked", k->pmis_masked);
	add_num(b, p, "lost_apic_off", k->pmis_apic_off);
	add_num(b, p, "lost_bad_mode", k->pmis_bad_mode);
	add_num(b, x, "kicks", k->kicks);
}

static void vm_object(struct jb *b, struct json_object *vms, const struct acct_vm *vm)
{
	struct json_object *o = push(b, vms, json_object_new_object()), *x, *y;
	unsigned nv = vm->nr_vcpus < VPMU_MAX_VCPUS ? vm->nr_vcpus : VPMU_MAX_VCPUS;
	char tmp[16];

	if (!o)
		return;
	bool ok = text_ok(vm->name, sizeof(vm->name)) && text_ok(vm->model, sizeof(vm->model));
	for (unsigned r = 0; r < nr_rules(vm) && ok; r++)
		ok = text_ok(vm->rule[r], sizeof(vm->rule[r]));
	if (!ok) {
		b->err = -EINVAL;
		return;
	}
	add(b, o, "name", json_object_new_string(vm->name), KEY_NEW);
	add(b, o, "model", json_object_new_string(vm->model), KEY_NEW);
	add_num(b, o, "counters", nr_ctrs(vm));
	x = add(b, o, "events", json_object_new_object(), KEY_NEW);
	for (unsigned e = 0; e < VPMU_EV_NR && x; e++) {
		y = add(b, x, vpmu_event_name((enum vpmu_event)e), json_object_new_object(), KEY_NEW);
		add(b, y, "countable", json_object_new_boolean(acct_countable(vm, (enum vpmu_event)e)),
		    KEY_NEW);
		add(b, y, "source", json_object_new_string(vpmu_count_source_name(vm->source[e])),
		    KEY_NEW);
	}
	x = add(b, o, "event_sources", json_object_new_array(), KEY_NEW);
	for (unsigned i = 0; i < vm->nr_sources && x; i++) {
		const struct acct_event_source *es = &vm->event_source[i];
		if (!text_ok(es->event, sizeof(es->event)) ||
		    !text_ok(es->host_event, sizeof(es->host_event))) {
			b->err = -EINVAL;
			return;
		}
		y = push(b, x, json_object_new_object());
		add(b, y, "event", json_object_new_string(es->event), KEY_NEW);
		add(b, y, "source", json_object_new_string(vpmu_count_source_name(es->source)), KEY_NEW);
		if (es->host_event[0])
			add(b, y, "host_event", json_object_new_string(es->host_event), KEY_NEW);
		else if (y && json_object_object_add_ex(y, "host_event", NULL, KEY_NEW))
			b->err = -ENOMEM;   /* JSON null: json-c's NULL value */
		add_num(b, y, "programmings", es->programmings);
	}
	x = add(b, o, "rules", json_object_new_array(), KEY_NEW);
	for (unsigned r = 0; r < nr_rules(vm) && x; r++)
		push(b, x, json_object_new_string(rule_key(vm, r, tmp, sizeof(tmp))));
	x = add(b, o, "vcpus", json_object_new_array(), KEY_NEW);
	for (unsigned i = 0; i < nv && x && !b->err; i++) {
		const struct acct_vcpu *v = &vm->vcpu[i];
		y = push(b, x, json_object_new_object());
		add_num(b, y, "index", v->index);
		if (y)
			totals(b, y, vm, &v->t);
		if (y && v->have_kvm)
			kvm_stats(b, y, &v->kvm);
	}
	y = add(b, o, "total", json_object_new_object(), KEY_NEW);
	if (y)
		totals(b, y, vm, &vm->total);
}

int acct_write_json(FILE *out, const struct acct_vm *vms, unsigned n)
{
	struct jb b = { 0 };
	struct json_object *doc, *arr;
	const char *text;
	size_t len;

	if (!out || (n && !vms))
		return -EINVAL;
	doc = json_object_new_object();
	if (!doc)
		return -ENOMEM;
	add_num(&b, doc, "schema", 1);
	arr = add(&b, doc, "vms", json_object_new_array(), KEY_NEW);
	for (unsigned m = 0; m < n && arr && !b.err; m++)
		vm_object(&b, arr, &vms[m]);
	if (b.err) {
		json_object_put(doc);
		return b.err;
	}
	text = json_object_to_json_string_length(doc,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	if (!text) {
		json_object_put(doc);
		return -ENOMEM;
	}
	errno = 0;
	if (fwrite(text, 1, len, out) != len || fputc('\n', out) == EOF || fflush(out))
		b.err = errno ? -errno : -EIO;
	json_object_put(doc);
	return b.err;
}
