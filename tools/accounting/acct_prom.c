/* SPDX-License-Identifier: MIT */
/*
 * Accounting in the Prometheus text exposition format, version 0.0.4
 * (Content-Type: text/plain; version=0.0.4), clean under `promtool check
 * metrics`.  Each family has its # HELP and # TYPE once, then all its samples,
 * every VM's; labels are domain, vcpu and the family's own label only:
 *
 *   vpmu_vm_info{domain,model} 1                                    gauge
 *   vpmu_event_countable{domain,event,source} 1|0                   gauge
 *   vpmu_event_programmings_total{domain,event,source,host_event}
 *                                  the table events the guests programmed
 *   vpmu_events_total{domain,vcpu,event}             countable events only
 *   vpmu_pmc_events_total{domain,vcpu,counter}       counters 0 .. nr_ctrs-1
 *   vpmu_pmis_raised_total{domain,vcpu}
 *   vpmu_pmis_delivered_total{domain,vcpu,delivery="fixed"|"nmi"}            (KVM)
 *   vpmu_pmis_lost_total{domain,vcpu,cause="masked"|"apic_off"|"bad_mode"}   (KVM)
 *   vpmu_pmis_held_total{domain,vcpu}                                        (KVM)
 *   vpmu_register_accesses_total{domain,vcpu,access="read"|"write"|"call"}
 *   vpmu_faults_total{domain,vcpu}
 *   vpmu_strict_refusals_total{domain,vcpu}
 *   vpmu_rule_violations_total{domain,vcpu,rule}     rules with a nonzero count
 *   vpmu_cache_hits_total{domain,vcpu}
 *   vpmu_switch_ins_total{domain,vcpu}
 *   vpmu_msr_exits_total{domain,vcpu}                                        (KVM)
 *   vpmu_rdpmc_exits_total{domain,vcpu}                                      (KVM)
 *
 * The rest are counters.  (KVM): only for the vCPUs that have the KVM glue's
 * statistics.  An event the host cannot count has no vpmu_events_total sample,
 * only vpmu_event_countable 0.  Label values are escaped as the format says
 * (\\, \", \n), and bytes that are not UTF-8 become U+FFFD.
 *
 * (What a guest counter counted is vpmu_pmc_events_total, not
 * vpmu_counter_events_total: promtool's lint refuses a family name with
 * "_counter_" in it, "metric name should not include type 'counter'".)
 *
 * Speed (issue 10: 1,000 VMs of 8 vCPUs in 10 ms; docs/performance.md
 * "Accounting export at scale"): one pass copies the values out of the
 * snapshots into columns (gather(), the VMs in two halves on two threads), and
 * a sample costs a few fixed-size copies and a decimal conversion.  The
 * families are cut into units of about ACCT_UNIT_BYTES (a family over a range
 * of VMs: acct_prom_plan()) that two threads format while the calling one writes them in
 * order (acct_buf_units, tools/accounting/acct_units.c), so the output is the same bytes
 * whichever thread formats what.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acct_prom.h"

static void header(struct acct_buf *b, const char *name, const char *type, const char *help)
{
	ACCT_PUT_LIT(b, "# HELP ");
	acct_put_str(b, name);
	acct_put(b, " ", 1);
	acct_put_str(b, help);
	ACCT_PUT_LIT(b, "\n# TYPE ");
	acct_put_str(b, name);
	acct_put(b, " ", 1);
	acct_put_str(b, type);
	acct_put(b, "\n", 1);
}

static void set_sub(struct sub *s, const char *label, const char *value, unsigned col)
{
	int len;
	memset(s->sfx, 0, sizeof(s->sfx));
	if (label)
		len = snprintf(s->sfx, sizeof(s->sfx), "\",%s=\"%s\"} ", label, value);
	else
		len = snprintf(s->sfx, sizeof(s->sfx), "\"} ");
	/* the labels are ours: they fit */
	s->len = len > 0 && (size_t)len < sizeof(s->sfx) ? (size_t)len : 0;
	s->col = col;
}

/* `name{domain="<escaped domain>",vcpu="` into pre; its length. */
static size_t vm_prefix(char *pre, const char *name, size_t nlen, const struct vm_cols *c)
{
	memcpy(pre, name, nlen);
	memcpy(pre + nlen, "{domain=\"", 9);
	memcpy(pre + nlen + 9, c->dom, c->dlen);
	memcpy(pre + nlen + 9 + c->dlen, "\",vcpu=\"", 8);
	return nlen + 9 + c->dlen + 8;
}

#define NAME_MAX_LEN 64u
/* What family() may write past cap: a head rounded up to 64, a sfx, 24 digits, \n. */
_Static_assert(NAME_MAX_LEN + 17 + DOM_CAP + 10 + 63 + sizeof(((struct sub *)0)->sfx) + 24 + 1 <= ACCT_BUF_SLACK,
	       "ACCT_BUF_SLACK holds a line");

static void family(const struct prom *p, struct acct_buf *b, const struct fam *f, unsigned m0,
		   unsigned m1)
{
	size_t nlen = f->nlen;
	/* the line's head: room for copying it whole in 64-byte steps */
	char pre[NAME_MAX_LEN + 17 + DOM_CAP + 32 + 64];
	if (nlen > NAME_MAX_LEN) {
		b->err = -ENAMETOOLONG;
		return;
	}
	memset(pre, 0, sizeof(pre));
	for (unsigned m = m0; m < m1 && !b->err; m++) {
		const struct vm_cols *c = &p->vm[m];
		size_t pl = vm_prefix(pre, f->name, nlen, c);
		unsigned ns = f->nsubs;
		if ((f->flags & F_CTRS) && c->nr_ctrs < ns)
			ns = c->nr_ctrs;
		for (size_t j = c->j0; j < c->j0 + c->nv; j++) {
			size_t vl;
			if ((f->flags & F_KVM) && !(p->rflags[j] & R_KVM))
				continue;
			memcpy(pre + pl, p->index[j].digits, 16);
			vl = pl + p->index[j].len;
			for (unsigned k = 0; k < ns; k++) {
				const struct sub *s = &f->subs[k];
				char num[48], *d, *o;
				if ((f->flags & F_EVENTS) && !(c->countable & (1u << k)))
					continue;
				d = acct_u64_dec(num + 24, p->col[(size_t)s->col * p->nv + j]);
				if (b->len > b->cap)
					acct_buf_flush(b);
				/* fixed-size copies (the buffer has ACCT_BUF_SLACK to spare
				 * past cap), each advanced by its real length */
				o = b->buf + b->len;
				memcpy(o, pre, 64);
				for (size_t x = 64; x < vl; x += 64)
					memcpy(o + x, pre + x, 64);
				o += vl;
				memcpy(o, s->sfx, sizeof(s->sfx));
				o += s->len;
				memcpy(o, d, 24);
				o += num + 24 - d;
				*o++ = '\n';
				b->len = (size_t)(o - b->buf);
			}
		}
	}
}

static void rule_violations(const struct prom *p, struct acct_buf *b, unsigned m0, unsigned m1)
{
	for (unsigned m = m0; m < m1 && !b->err; m++) {
		const struct acct_vm *vm = &p->vms[m];
		size_t j = p->vm[m].j0;
		for (unsigned i = 0; i < p->vm[m].nv; i++, j++) {
			const struct acct_vcpu *v = &vm->vcpu[i];
			if (!(p->rflags[j] & R_VIOLATIONS))
				continue;
			for (unsigned r = 0; r < nr_rules(vm); r++) {
				if (!v->t.violations[r])
					continue;
				ACCT_PUT_LIT(b, "vpmu_rule_violations_total{domain=\"");
				acct_put(b, p->vm[m].dom, p->vm[m].dlen);
				ACCT_PUT_LIT(b, "\",vcpu=\"");
				acct_put_u64(b, v->index);
				ACCT_PUT_LIT(b, "\",rule=\"");
				if (vm->rule[r][0]) {
					acct_put_esc(b, vm->rule[r], strnlen(vm->rule[r], ACCT_RULE_NAME_MAX));
				} else {
					ACCT_PUT_LIT(b, "rule");
					acct_put_u64(b, r);
				}
				ACCT_PUT_LIT(b, "\"} ");
				acct_put_u64(b, v->t.violations[r]);
				acct_put(b, "\n", 1);
			}
		}
	}
}

static void vm_info(const struct prom *p, struct acct_buf *b, unsigned m0, unsigned m1)
{
	for (unsigned m = m0; m < m1; m++) {
		ACCT_PUT_LIT(b, "vpmu_vm_info{domain=\"");
		acct_put(b, p->vm[m].dom, p->vm[m].dlen);
		ACCT_PUT_LIT(b, "\",model=\"");
		acct_put_esc(b, p->vms[m].model, strnlen(p->vms[m].model, sizeof(p->vms[m].model)));
		ACCT_PUT_LIT(b, "\"} 1\n");
	}
}

static void countable(const struct prom *p, struct acct_buf *b, unsigned m0, unsigned m1)
{
	for (unsigned m = m0; m < m1; m++) {
		for (unsigned e = 0; e < VPMU_EV_NR; e++) {
			const char *src = vpmu_count_source_name(p->vms[m].source[e]);
			ACCT_PUT_LIT(b, "vpmu_event_countable{domain=\"");
			acct_put(b, p->vm[m].dom, p->vm[m].dlen);
			ACCT_PUT_LIT(b, "\",event=\"");
			acct_put_str(b, vpmu_event_name((enum vpmu_event)e));
			ACCT_PUT_LIT(b, "\",source=\"");
			acct_put_esc(b, src, strlen(src));
			if (p->vm[m].countable & (1u << e))
				ACCT_PUT_LIT(b, "\"} 1\n");
			else
				ACCT_PUT_LIT(b, "\"} 0\n");
		}
	}
}

/* The table events the VM's guests programmed, and how the host counted each
 * (host_event "": none). */
static void sources(const struct prom *p, struct acct_buf *b, unsigned m0, unsigned m1)
{
	for (unsigned m = m0; m < m1; m++) {
		const struct acct_vm *vm = &p->vms[m];
		for (unsigned i = 0; i < vm->nr_sources; i++) {
			const struct acct_event_source *es = &vm->event_source[i];
			const char *src = vpmu_count_source_name(es->source);
			ACCT_PUT_LIT(b, "vpmu_event_programmings_total{domain=\"");
			acct_put(b, p->vm[m].dom, p->vm[m].dlen);
			ACCT_PUT_LIT(b, "\",event=\"");
			acct_put_esc(b, es->event, strnlen(es->event, sizeof(es->event)));
			ACCT_PUT_LIT(b, "\",source=\"");
			acct_put_str(b, src);
			ACCT_PUT_LIT(b, "\",host_event=\"");
			acct_put_esc(b, es->host_event, strnlen(es->host_event, sizeof(es->host_event)));
			ACCT_PUT_LIT(b, "\"} ");
			acct_put_u64(b, es->programmings);
			acct_put(b, "\n", 1);
		}
	}
}

/* Unit u (acct_buf_units): its family's header if it starts the family. */
static void prom_unit(void *ctx, unsigned u, struct acct_buf *b)
{
	const struct prom *p = ctx;
	const struct unit *un = &p->unit[u];
	const struct fam *f = &p->fam[un->fam];
	if (un->m0 == 0)
		header(b, f->name, f->kind == K_INFO || f->kind == K_COUNTABLE ? "gauge" : "counter",
		       f->help);
	switch (f->kind) {
	case K_INFO: vm_info(p, b, un->m0, un->m1); break;
	case K_COUNTABLE: countable(p, b, un->m0, un->m1); break;
	case K_SOURCES: sources(p, b, un->m0, un->m1); break;
	case K_RULES: rule_violations(p, b, un->m0, un->m1); break;
	case K_COUNTER: family(p, b, f, un->m0, un->m1); break;
	}
}

static void add(struct prom *p, enum kind kind, const char *name, const char *help,
		const struct sub *subs, unsigned nsubs, unsigned flags)
{
	assert(p->nfam < NR_FAMS);      /* a family more than NR_FAMS holds */
	p->fam[p->nfam++] = (struct fam){ kind, name, help, strlen(name), subs, nsubs, flags };
}

static void scalar(struct prom *p, const char *name, const char *help, unsigned col, unsigned flags)
{
	struct sub *s = &p->one[p->nfam];
	set_sub(s, NULL, NULL, col);
	add(p, K_COUNTER, name, help, s, 1, flags);
}

/* The families of one part of VPMU_TOTALS_COUNTS (include/vpmu/vpmu.h), in
 * its order: a count without a label of its own is a family; consecutive
 * counts of one family with a label are its samples. */
static void counts(struct prom *p, unsigned part)
{
	static const struct {
		unsigned part;
		const char *name, *label, *value, *help;
	} prom_count[VPMU_TOTALS_NR] = {
#define PROM_COUNT(f, part, key, jo, jk, text, pos, name, label, value, help) \
		[VPMU_TOTALS_##f] = { part, name, label, value, help },
		VPMU_TOTALS_COUNTS(PROM_COUNT)
#undef PROM_COUNT
	};
	for (unsigned k = 0; k < VPMU_TOTALS_NR;) {
		unsigned n = 1;
		if (prom_count[k].part != part) {
			k++;
			continue;
		}
		if (!*prom_count[k].label) {
			scalar(p, prom_count[k].name, prom_count[k].help, C_COUNT + k, 0);
			k++;
			continue;
		}
		while (k + n < VPMU_TOTALS_NR && prom_count[k + n].part == part &&
		       !strcmp(prom_count[k + n].name, prom_count[k].name))
			n++;
		for (unsigned i = k; i < k + n; i++)
			set_sub(&p->count[i], prom_count[i].label, prom_count[i].value, C_COUNT + i);
		add(p, K_COUNTER, prom_count[k].name, prom_count[k].help, &p->count[k], n, 0);
		k += n;
	}
}

/* The families, in the order of the exposition (the table at the top). */
static void families(struct prom *p)
{
	char idx[8];
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		set_sub(&p->ev[e], "event", vpmu_event_name((enum vpmu_event)e), C_EV + e);
	for (unsigned i = 0; i < VPMU_MAX_CTRS; i++) {
		snprintf(idx, sizeof(idx), "%u", i);
		set_sub(&p->ctr[i], "counter", idx, C_PMC + i);
	}
	set_sub(&p->deliv[0], "delivery", "fixed", C_FIXED);
	set_sub(&p->deliv[1], "delivery", "nmi", C_NMI);
	set_sub(&p->lost[0], "cause", "masked", C_MASKED);
	set_sub(&p->lost[1], "cause", "apic_off", C_APIC_OFF);
	set_sub(&p->lost[2], "cause", "bad_mode", C_BAD_MODE);

	add(p, K_INFO, "vpmu_vm_info", "The VM's virtual PMU: the CPU model it presents.", NULL, 0, 0);
	add(p, K_COUNTABLE, "vpmu_event_countable",
	    "Whether the host counts the event (1) or not (0: its counts stay zero), and how.", NULL, 0, 0);
	add(p, K_SOURCES, "vpmu_event_programmings_total",
	    "Guest counters programmed with each event of the VM's event table, and how the host "
	    "counted it: the same event (hardware-raw), the generic event (hardware, task-clock), "
	    "or not at all (not-countable, host_event \"\").", NULL, 0, 0);
	add(p, K_COUNTER, "vpmu_events_total",
	    "Events the vCPU's guest counters counted, per generic event (countable events only).",
	    p->ev, VPMU_EV_NR, F_EVENTS);
	add(p, K_COUNTER, "vpmu_pmc_events_total",
	    "Events each guest counter counted (monotonic, unaffected by guest writes to the counter).",
	    p->ctr, VPMU_MAX_CTRS, F_CTRS);
	counts(p, VPMU_TOTALS_PART_PMIS);
	add(p, K_COUNTER, "vpmu_pmis_delivered_total",
	    "PMIs the KVM glue delivered, by LVTPC delivery mode.", p->deliv, 2, F_KVM);
	add(p, K_COUNTER, "vpmu_pmis_lost_total",
	    "PMIs the KVM glue could not deliver, by cause (as the hardware drops them).", p->lost, 3,
	    F_KVM);
	scalar(p, "vpmu_pmis_held_total", "PMIs that met a masked LVTPC on a CPU whose PMI is a level "
	       "(the P4), held and delivered at the unmask.", C_HELD, F_KVM);
	counts(p, VPMU_TOTALS_PART_ACCESSES);
	add(p, K_RULES, "vpmu_rule_violations_total",
	    "Guest writes that broke a perfctr rule of the model (stored anyway, or refused in strict mode).",
	    NULL, 0, 0);
	counts(p, VPMU_TOTALS_PART_SWITCHES);
	scalar(p, "vpmu_msr_exits_total", "PMU MSR exits the KVM glue answered (RDPMC exits included).",
	       C_MSR_EXITS, F_KVM);
	scalar(p, "vpmu_rdpmc_exits_total", "RDPMC exits the KVM glue answered.", C_RDPMC_EXITS, F_KVM);
}

int acct_write_prometheus(FILE *out, const struct acct_vm *vms, unsigned n)
{
	struct prom p = { .vms = vms, .n = n };
	struct acct_buf b;
	int err, cerr;

	if (!out || (n && !vms))
		return -EINVAL;
	if (acct_buf_open(&b, out))
		return -ENOMEM;
	err = acct_prom_gather(&p);
	if (err) {
		acct_buf_close(&b);
		return err;
	}
	families(&p);
	p.nunits = acct_prom_plan(&p, NULL);
	p.unit = malloc(p.nunits * sizeof(*p.unit));
	if (!p.unit) {
		err = -ENOMEM;
	} else {
		acct_prom_plan(&p, p.unit);
		err = acct_buf_units(&b, p.nunits, prom_unit, &p, p.nv);
	}
	free(p.unit);
	acct_mem_put(p.col, p.mem_size);
	cerr = acct_buf_close(&b);
	return err ? err : cerr;
}
