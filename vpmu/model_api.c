/* SPDX-License-Identifier: MIT */
/*
 * What the library says about its models: the public model queries, the one
 * table-driven event matcher every model uses, and the register union a VMM traps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "core.h"

unsigned vpmu_model_count(void) { return vpmu_nr_models; }

const char *vpmu_model_name(unsigned index)
{
	return index < vpmu_nr_models ? vpmu_models[index]->name : NULL;
}

const struct vpmu_model *vpmu_model_find(const char *name)
{
	if (!name)
		return NULL;
	for (unsigned i = 0; i < vpmu_nr_models; i++)
		if (strcmp(vpmu_models[i]->name, name) == 0)
			return vpmu_models[i];
	return NULL;
}

const char *vpmu_model_description(const char *name)
{
	const struct vpmu_model *m = vpmu_model_find(name);
	return m ? m->description : NULL;
}

/* The options of a VM that asks for nothing: the model's default identity. */
static struct vpmu_vm_opts default_opts(const struct vpmu_model *m)
{
	return (struct vpmu_vm_opts){ .family = m->id.family, .cpumodel = m->id.cpumodel,
				      .stepping = m->id.stepping, .pmu_version = -1,
				      .nr_general = -1, .nr_fixed = -1 };
}

int vpmu_model_info(const char *name, struct vpmu_model_info *out)
{
	const struct vpmu_model *m = vpmu_model_find(name);
	if (!m || !out)
		return m ? -EINVAL : -ENOENT;
	struct vpmu_vm_opts o = default_opts(m);
	struct vpmu_pmu *p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	o.pmu = p;
	int r = vpmu_pmu_init(p, m, &o);
	if (r < 0) {
		free(p);
		return r;
	}
	out->name = m->name;
	out->description = m->description;
	out->vendor = m->id.vendor;
	out->regspace = m->regspace;
	out->family = m->id.family;
	out->cpumodel = m->id.cpumodel;
	out->stepping = m->id.stepping;
	out->nr_ctrs = p->nr_ctrs;
	out->ctr_width = p->nr_general ? p->width[0] : 0;
	out->pmu_version = p->version;
	out->nr_general = p->nr_general;
	out->nr_fixed = p->nr_fixed;
	out->fixed_width = p->nr_fixed ? p->width[p->fixed_base] : 0;
	out->overflow_interrupts = (m->caps & VPMU_CAP_PCINT) != 0;
	out->pmi_automask = m->ops->pmi_automask && m->ops->pmi_automask(m, &o);
	out->hyper_threading = (m->caps & VPMU_CAP_HT) != 0;
	out->calls = m->ops->call != NULL;
	/* vpmu_model_reg() and vpmu_model_event() list the descriptor's: every
	 * register and event of the model, whatever a VM narrows. */
	out->nr_regs = m->nr_regs;
	out->nr_events = m->table ? m->table->nr_match : 0;
	out->nr_rules = m->nr_rules;
	free(p);
	return 0;
}

int vpmu_model_reg(const char *name, unsigned i, uint32_t *addr, const char **kind)
{
	static const char *const kinds[] = { "?", "control", "counter", "misc" };
	const struct vpmu_model *m = vpmu_model_find(name);
	if (!m || i >= m->nr_regs)
		return -ENOENT;
	if (addr)
		*addr = m->regs[i].addr;
	if (kind)
		*kind = m->regs[i].space == VPMU_SPACE_STATE ? "state"
			: kinds[m->regs[i].kind <= VPMU_REG_MISC ? m->regs[i].kind : 0];
	return 0;
}

int vpmu_model_event(const char *name, unsigned i, uint64_t *code, uint64_t *match,
		     const char **event_name, int *generic)
{
	const struct vpmu_model *m = vpmu_model_find(name);
	if (!m || !m->table || i >= m->table->nr_match)
		return -ENOENT;
	const struct vpmu_event_desc *e = &m->table->match[i];
	if (code)
		*code = e->code;
	if (match)
		*match = e->match;
	if (event_name)
		*event_name = e->name;
	if (generic)
		*generic = e->generic;
	return 0;
}

int vpmu_model_rule(const char *name, unsigned i, const char **rule_name, const char **text)
{
	const struct vpmu_model *m = vpmu_model_find(name);
	if (!m || i >= m->nr_rules)
		return -ENOENT;
	if (rule_name)
		*rule_name = m->rules[i].name;
	if (text)
		*text = m->rules[i].text;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

unsigned vpmu_pmu_regs(enum vpmu_regspace space, uint32_t *regs, unsigned max)
{
	/* A few hundred registers at most (P4: ~90): collect, sort, drop repeats. */
	unsigned total = 0;
	for (unsigned k = 0; k < vpmu_nr_models; k++)
		total += vpmu_models[k]->nr_regs;
	uint32_t *all = malloc((total ? total : 1) * sizeof(*all));
	if (!all)
		return 0;
	unsigned n = 0;
	for (unsigned k = 0; k < vpmu_nr_models; k++)
		for (unsigned i = 0; i < vpmu_models[k]->nr_regs; i++)
			if (vpmu_models[k]->regs[i].space == space &&
			    !(vpmu_models[k]->regs[i].flags & VPMU_REGF_OWN_ONLY))
				all[n++] = vpmu_models[k]->regs[i].addr;
	unsigned u = vpmu_regs_sorted_unique(all, n, regs, max);
	free(all);
	return u;
}

unsigned vpmu_regs_sorted_unique(uint32_t *all, unsigned n, uint32_t *regs, unsigned max)
{
	qsort(all, n, sizeof(*all), cmp_u32);
	unsigned u = 0;
	for (unsigned i = 0; i < n; i++) {
		if (u && all[i] == all[u - 1])
			continue;
		if (regs && u < max)
			regs[u] = all[i];
		all[u++] = all[i];
	}
	return u;
}

/* ---------------------------------------------------------------- names */

static const char *const event_names[VPMU_EV_NR] = {
	"cycles", "instructions", "ref-cycles", "bus-cycles",
	"branches", "branch-misses", "cache-references", "cache-misses",
};

const char *vpmu_event_name(enum vpmu_event ev)
{
	return (unsigned)ev < VPMU_EV_NR ? event_names[ev] : "none";
}

int vpmu_event_from_name(const char *name)
{
	for (int i = 0; name && i < VPMU_EV_NR; i++)
		if (strcmp(event_names[i], name) == 0)
			return i;
	return -1;
}

const char *vpmu_fault_name(enum vpmu_fault f)
{
	switch (f) {
	case VPMU_FAULT_NONE: return "none";
	case VPMU_FAULT_NO_REG: return "no-such-register";
	case VPMU_FAULT_RESERVED: return "reserved-bits";
	case VPMU_FAULT_READ_ONLY: return "read-only";
	case VPMU_FAULT_STRICT: return "strict-rule";
	}
	return "?";
}

const char *vpmu_count_source_name(enum vpmu_count_source src)
{
	switch (src) {
	case VPMU_COUNT_NONE: return "not-countable";
	case VPMU_COUNT_SIM: return "sim";
	case VPMU_COUNT_HARDWARE: return "hardware";
	case VPMU_COUNT_TASK_CLOCK: return "task-clock";
	case VPMU_COUNT_RAW: return "hardware-raw";
	}
	return "?";
}

const char *vpmu_totals_count_name(unsigned k)
{
	static const char *const names[VPMU_TOTALS_NR] = {
#define VPMU_TOTALS_NAME_(f, part, key, ...) [VPMU_TOTALS_##f] = key,
		VPMU_TOTALS_COUNTS(VPMU_TOTALS_NAME_)
#undef VPMU_TOTALS_NAME_
	};
	return k < VPMU_TOTALS_NR ? names[k] : NULL;
}
