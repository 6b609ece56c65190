/* SPDX-License-Identifier: MIT */
/*
 * Accounting in the Prometheus text exposition format, version 0.0.4
 * (Content-Type: text/plain; version=0.0.4), clean under `promtool check
 * metrics`.  Each family has its # HELP and # TYPE once, then all its samples,
 * every VM's; labels are domain, vcpu and the family's own label only:
 *
 *   vpmu_vm_info{domain,model} 1                                    gauge
 *   vpmu_event_countable{domain,event,source} 1|0                   gauge
 *   vpmu_events_total{domain,vcpu,event}             countable events only
 *   vpmu_pmc_events_total{domain,vcpu,counter}       counters 0 .. nr_ctrs-1
 *   vpmu_pmis_raised_total{domain,vcpu}
 *   vpmu_pmis_delivered_total{domain,vcpu,delivery="fixed"|"nmi"}            (KVM)
 *   vpmu_pmis_lost_total{domain,vcpu,cause="masked"|"apic_off"|"bad_mode"}   (KVM)
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
 * Speed (issue 10: 1,000 VMs of 8 vCPUs in 10 ms): one pass copies the
 * values out of the snapshots into columns (see gather()), the lines are
 * assembled in one buffer flushed with one fwrite per 64 KiB, and a sample
 * costs a few fixed-size copies and a decimal conversion; no allocation but
 * the buffer and the columns, once per call.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acct_buf.h"
#include "acct_formats.h"

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

static unsigned nr_vcpus(const struct acct_vm *vm)
{
	return vm->nr_vcpus < VPMU_MAX_VCPUS ? vm->nr_vcpus : VPMU_MAX_VCPUS;
}

static unsigned nr_ctrs(const struct acct_vm *vm)
{
	return vm->nr_ctrs < VPMU_MAX_CTRS ? vm->nr_ctrs : VPMU_MAX_CTRS;
}

static unsigned nr_rules(const struct acct_vm *vm)
{
	return vm->nr_rules < VPMU_MAX_RULES ? vm->nr_rules : VPMU_MAX_RULES;
}

/*
 * The families are grouped, so every family reads a field or two of every
 * vCPU; in the snapshots those lie ~660 bytes apart, in one allocation per VM,
 * so that cache and TLB misses would cost more than the formatting.  One pass
 * over the snapshots first copies the values into columns (one array per
 * value, every vCPU of every VM in order), and the families read those.
 */
enum col {
	C_EV = 0,                       /* + event */
	C_PMC = C_EV + VPMU_EV_NR,      /* + guest counter */
	C_PMIS = C_PMC + VPMU_MAX_CTRS,
	C_FIXED, C_NMI, C_MASKED, C_APIC_OFF, C_BAD_MODE,
	C_READS, C_WRITES, C_CALLS,
	C_FAULTS, C_STRICT, C_CACHE_HITS, C_SWITCH_INS,
	C_MSR_EXITS, C_RDPMC_EXITS,
	C_NR,
};

#define DOM_CAP 200u    /* an escaped domain: 63 bytes, 3 each at most */

_Static_assert(VPMU_EV_NR <= 8, "vm_cols.countable holds a bit per event");

struct vm_cols {
	char dom[DOM_CAP];      /* the domain, escaped as a label value */
	uint16_t dlen;
	uint8_t nr_ctrs;
	uint8_t countable;      /* bit e: event e is countable */
	unsigned nv;            /* its vCPUs, in the columns */
};

enum { R_KVM = 1, R_VIOLATIONS = 2 };

struct prom {
	struct acct_buf b;
	const struct acct_vm *vms;
	unsigned n;
	size_t nv;              /* vCPUs of all the VMs */
	uint64_t *col;          /* value c of vCPU j: col[c * nv + j] */
	uint32_t *index;        /* vCPU j's index */
	uint8_t *rflags;        /* R_* */
	struct vm_cols *vm;
};

static int gather(struct prom *p)
{
	size_t nv = 0, j = 0;
	for (unsigned m = 0; m < p->n; m++)
		nv += nr_vcpus(&p->vms[m]);
	p->nv = nv;
	/* one allocation: columns, then vm_cols, then index, then rflags */
	size_t sz_col = C_NR * (nv ? nv : 1) * sizeof(uint64_t);
	size_t sz_vm = (size_t)p->n * sizeof(struct vm_cols);
	char *mem = malloc(sz_col + sz_vm + nv * sizeof(uint32_t) + nv + 1);
	if (!mem)
		return -ENOMEM;
	p->col = (uint64_t *)(void *)mem;
	p->vm = (struct vm_cols *)(void *)(mem + sz_col);
	p->index = (uint32_t *)(void *)(mem + sz_col + sz_vm);
	p->rflags = (uint8_t *)(mem + sz_col + sz_vm + nv * sizeof(uint32_t));

	for (unsigned m = 0; m < p->n; m++) {
		const struct acct_vm *vm = &p->vms[m];
		struct vm_cols *c = &p->vm[m];
		struct acct_buf d = { .out = NULL, .buf = c->dom, .len = 0, .cap = DOM_CAP, .err = 0 };
		unsigned nc = nr_ctrs(vm), nr = nr_rules(vm);
		acct_put_esc(&d, vm->name, strnlen(vm->name, sizeof(vm->name)));
		c->dlen = (uint16_t)d.len;
		c->nr_ctrs = (uint8_t)nc;
		c->countable = 0;
		for (unsigned e = 0; e < VPMU_EV_NR; e++)
			if (acct_countable(vm, (enum vpmu_event)e))
				c->countable |= (uint8_t)(1u << e);
		c->nv = nr_vcpus(vm);
		for (unsigned i = 0; i < c->nv; i++, j++) {
			const struct acct_vcpu *v = &vm->vcpu[i];
			const struct vpmu_totals *t = &v->t;
			uint64_t *col = p->col + j;
			uint8_t f = v->have_kvm ? R_KVM : 0;
			p->index[j] = v->index;
			for (unsigned e = 0; e < VPMU_EV_NR; e++)
				col[(C_EV + e) * nv] = t->events[e];
			for (unsigned k = 0; k < nc; k++)
				col[(C_PMC + k) * nv] = t->pmc[k];
			col[C_PMIS * nv] = t->pmis;
			col[C_READS * nv] = t->reads;
			col[C_WRITES * nv] = t->writes;
			col[C_CALLS * nv] = t->calls;
			col[C_FAULTS * nv] = t->faults;
			col[C_STRICT * nv] = t->strict_refusals;
			col[C_CACHE_HITS * nv] = t->cache_hits;
			col[C_SWITCH_INS * nv] = t->switch_ins;
			if (v->have_kvm) {
				col[C_FIXED * nv] = v->kvm.pmis_fixed;
				col[C_NMI * nv] = v->kvm.pmis_nmi;
				col[C_MASKED * nv] = v->kvm.pmis_masked;
				col[C_APIC_OFF * nv] = v->kvm.pmis_apic_off;
				col[C_BAD_MODE * nv] = v->kvm.pmis_bad_mode;
				col[C_MSR_EXITS * nv] = v->kvm.msr_exits;
				col[C_RDPMC_EXITS * nv] = v->kvm.rdpmc_exits;
			}
			for (unsigned r = 0; r < nr; r++)
				if (t->violations[r])
					f |= R_VIOLATIONS;
			p->rflags[j] = f;
		}
	}
	return 0;
}

/* One of a family's samples per vCPU: the rest of the line up to the value
 * (`",event="cycles"} `), and the value's column. */
struct sub {
	char sfx[48];
	size_t len;
	unsigned col;
};

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

enum {
	F_KVM = 1,      /* only the vCPUs with the glue's statistics */
	F_EVENTS = 2,   /* sub k is event k: countable ones only */
	F_CTRS = 4,     /* sub k is counter k: k < nr_ctrs only */
};

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

static void family(struct prom *p, const char *name, const char *help, const struct sub *subs,
		   unsigned nsubs, unsigned flags)
{
	struct acct_buf *b = &p->b;
	size_t nlen = strlen(name), j0 = 0;
	/* the line's head: room for copying it whole in 64-byte steps */
	char pre[NAME_MAX_LEN + 17 + DOM_CAP + 32 + 64];
	if (nlen > NAME_MAX_LEN) {
		b->err = -ENAMETOOLONG;
		return;
	}
	memset(pre, 0, sizeof(pre));
	header(b, name, "counter", help);
	for (unsigned m = 0; m < p->n && !b->err; j0 += p->vm[m].nv, m++) {
		const struct vm_cols *c = &p->vm[m];
		size_t pl = vm_prefix(pre, name, nlen, c);
		unsigned ns = nsubs;
		if ((flags & F_CTRS) && c->nr_ctrs < ns)
			ns = c->nr_ctrs;
		for (size_t j = j0; j < j0 + c->nv; j++) {
			char *end, *q;
			size_t vl;
			if ((flags & F_KVM) && !(p->rflags[j] & R_KVM))
				continue;
			end = pre + pl + 10;
			q = acct_u64_dec(end, p->index[j]);
			vl = (size_t)(end - q);
			memmove(pre + pl, q, vl);
			vl += pl;
			for (unsigned k = 0; k < ns; k++) {
				const struct sub *s = &subs[k];
				char num[48], *d, *o;
				if ((flags & F_EVENTS) && !(c->countable & (1u << k)))
					continue;
				d = acct_u64_dec(num + 24, p->col[(size_t)s->col * p->nv + j]);
				if (b->len > b->cap)
					acct_buf_flush(b);
				/* fixed-size copies (the buffer has ACCT_BUF_SLACK to spare
				 * past cap), each advanced by its real length */
				o = b->buf + b->len;
				for (size_t x = 0; x < vl; x += 64)
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

static void scalar(struct prom *p, const char *name, const char *help, unsigned col, unsigned flags)
{
	struct sub s;
	set_sub(&s, NULL, NULL, col);
	family(p, name, help, &s, 1, flags);
}

static void rule_violations(struct prom *p)
{
	static const char name[] = "vpmu_rule_violations_total";
	struct acct_buf *b = &p->b;
	size_t j = 0;
	header(b, name, "counter",
	       "Guest writes that broke a perfctr rule of the model (stored anyway, or refused in strict mode).");
	for (unsigned m = 0; m < p->n && !b->err; m++) {
		const struct acct_vm *vm = &p->vms[m];
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

static void gauges(struct prom *p)
{
	struct acct_buf *b = &p->b;
	header(b, "vpmu_vm_info", "gauge", "The VM's virtual PMU: the CPU model it presents.");
	for (unsigned m = 0; m < p->n; m++) {
		ACCT_PUT_LIT(b, "vpmu_vm_info{domain=\"");
		acct_put(b, p->vm[m].dom, p->vm[m].dlen);
		ACCT_PUT_LIT(b, "\",model=\"");
		acct_put_esc(b, p->vms[m].model, strnlen(p->vms[m].model, sizeof(p->vms[m].model)));
		ACCT_PUT_LIT(b, "\"} 1\n");
	}
	header(b, "vpmu_event_countable", "gauge",
	       "Whether the host counts the event (1) or not (0: its counts stay zero), and how.");
	for (unsigned m = 0; m < p->n; m++) {
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

int acct_write_prometheus(FILE *out, const struct acct_vm *vms, unsigned n)
{
	struct sub ev[VPMU_EV_NR], ctr[VPMU_MAX_CTRS], deliv[2], lost[3], acc[3];
	struct prom p = { .vms = vms, .n = n };
	char idx[8];
	int err;

	if (!out || (n && !vms))
		return -EINVAL;
	if (acct_buf_open(&p.b, out))
		return -ENOMEM;
	err = gather(&p);
	if (err) {
		acct_buf_close(&p.b);
		return err;
	}

	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		set_sub(&ev[e], "event", vpmu_event_name((enum vpmu_event)e), C_EV + e);
	for (unsigned i = 0; i < VPMU_MAX_CTRS; i++) {
		snprintf(idx, sizeof(idx), "%u", i);
		set_sub(&ctr[i], "counter", idx, C_PMC + i);
	}
	set_sub(&deliv[0], "delivery", "fixed", C_FIXED);
	set_sub(&deliv[1], "delivery", "nmi", C_NMI);
	set_sub(&lost[0], "cause", "masked", C_MASKED);
	set_sub(&lost[1], "cause", "apic_off", C_APIC_OFF);
	set_sub(&lost[2], "cause", "bad_mode", C_BAD_MODE);
	set_sub(&acc[0], "access", "read", C_READS);
	set_sub(&acc[1], "access", "write", C_WRITES);
	set_sub(&acc[2], "access", "call", C_CALLS);

	gauges(&p);
	family(&p, "vpmu_events_total",
	       "Events the vCPU's guest counters counted, per generic event (countable events only).",
	       ev, VPMU_EV_NR, F_EVENTS);
	family(&p, "vpmu_pmc_events_total",
	       "Events each guest counter counted (monotonic, unaffected by guest writes to the counter).",
	       ctr, VPMU_MAX_CTRS, F_CTRS);
	scalar(&p, "vpmu_pmis_raised_total",
	       "PMIs raised (counter overflows the model made a PMI of).", C_PMIS, 0);
	family(&p, "vpmu_pmis_delivered_total",
	       "PMIs the KVM glue delivered, by LVTPC delivery mode.", deliv, 2, F_KVM);
	family(&p, "vpmu_pmis_lost_total",
	       "PMIs the KVM glue could not deliver, by cause (as the hardware drops them).",
	       lost, 3, F_KVM);
	family(&p, "vpmu_register_accesses_total",
	       "Guest PMU register reads and writes, and PMU calls, handled.", acc, 3, 0);
	scalar(&p, "vpmu_faults_total",
	       "Guest accesses refused by the hardware rules (a fault in the guest).", C_FAULTS, 0);
	scalar(&p, "vpmu_strict_refusals_total", "Guest accesses refused by strict mode.", C_STRICT, 0);
	rule_violations(&p);
	scalar(&p, "vpmu_cache_hits_total",
	       "Switch-ins that found perfctr's per-CPU cache still holding the vCPU's control.",
	       C_CACHE_HITS, 0);
	scalar(&p, "vpmu_switch_ins_total", "Times the virtual PMU was switched in on a host CPU.",
	       C_SWITCH_INS, 0);
	scalar(&p, "vpmu_msr_exits_total",
	       "PMU MSR exits the KVM glue answered (RDPMC exits included).", C_MSR_EXITS, F_KVM);
	scalar(&p, "vpmu_rdpmc_exits_total", "RDPMC exits the KVM glue answered.", C_RDPMC_EXITS, F_KVM);

	free(p.col);
	return acct_buf_close(&p.b);
}
