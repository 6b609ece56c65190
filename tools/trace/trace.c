/* SPDX-License-Identifier: MIT */
/*
 * Replays a trace (docs/trace.md, version 1) against libvpmu with the
 * sim backend.  Every malformed line is reported as NAME:LINE and fails the file;
 * nothing is guessed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "accounting/acct_formats.h"
#include "trace.h"
#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

#define MAX_TOK 16
#define MAX_VMS 64
#define MAX_LINE 4096

/* The guest memory of a VM whose PMU shares memory with its guest (the SBI
 * PMU's snapshot): TRACE_RAM_SIZE bytes at TRACE_RAM_BASE (docs/trace.md). */
#define TRACE_RAM_BASE 0x80000000ull
#define TRACE_RAM_SIZE 0x10000u

struct tvm {
	char name[64];
	struct vpmu_vm *vm;
	uint64_t pmi_mark[VPMU_MAX_VCPUS];
	uint8_t *ram;        /* TRACE_RAM_SIZE bytes, or NULL */
};

/* The guest memory accessors the replayer gives a VM (vpmu_guest_memory). */
static bool ram_range(uint64_t gpa, size_t len)
{
	return gpa >= TRACE_RAM_BASE && len <= TRACE_RAM_SIZE &&
	       gpa - TRACE_RAM_BASE <= TRACE_RAM_SIZE - len;
}
static int ram_read(void *opaque, uint64_t gpa, void *buf, size_t len)
{
	if (!ram_range(gpa, len))
		return -EFAULT;
	memcpy(buf, (uint8_t *)opaque + (gpa - TRACE_RAM_BASE), len);
	return 0;
}
static int ram_write(void *opaque, uint64_t gpa, const void *buf, size_t len)
{
	if (!ram_range(gpa, len))
		return -EFAULT;
	memcpy((uint8_t *)opaque + (gpa - TRACE_RAM_BASE), buf, len);
	return 0;
}

struct ctx {
	const char *name;
	unsigned line;
	FILE *diag, *tap;
	int verbose;
	unsigned *tapno;
	struct trace_result *res;
	struct vpmu_sim *sim;
	struct vpmu_host *host;
	struct tvm vms[MAX_VMS];
	unsigned nvms;
	struct tvm *cur;
	struct vpmu_vcpu *vcpu;
	unsigned vcpu_index;
	uint64_t ctrl_mark, ctr_mark;
};

static void diag(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diag(struct ctx *c, const char *fmt, ...)
{
	if (!c->diag)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(c->diag, "%s:%u: ", c->name, c->line);
	vfprintf(c->diag, fmt, ap);
	fputc('\n', c->diag);
	va_end(ap);
}

/* A malformed trace: report and stop the file. */
static int bad(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct ctx *c, const char *fmt, ...)
{
	if (c->diag) {
		va_list ap;
		va_start(ap, fmt);
		fprintf(c->diag, "%s:%u: error: ", c->name, c->line);
		vfprintf(c->diag, fmt, ap);
		fputc('\n', c->diag);
		va_end(ap);
	}
	c->res->error = 1;
	return -1;
}

/* An expectation: count it, report it.  Returns 0 (the trace goes on). */
static int check(struct ctx *c, int ok, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int check(struct ctx *c, int ok, const char *what, const char *fmt, ...)
{
	char msg[256] = "";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->res->checks++;
	if (!ok) {
		c->res->failed++;
		diag(c, "expected %s", msg);
	}
	if (c->verbose && c->tap)
		fprintf(c->tap, "%s %u - %s:%u: %s\n", ok ? "ok" : "not ok", ++*c->tapno,
			c->name, c->line, what);
	return 0;
}

/* Numbers are C literals (docs/trace.md, "Lexical rules"): decimal, 0x hex, or
 * negative decimal, 64-bit, a negative value being its two's complement.  Any
 * other spelling is refused rather than read some way: a leading 0 (C octal),
 * a sign on hex, suffixes, and values that do not fit in 64 bits. */
static int parse_u64(const char *s, uint64_t *out)
{
	int neg = 0;
	unsigned base = 10;
	uint64_t v = 0, limit;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (neg)
			return -1;
		base = 16;
		s += 2;
	} else if (s[0] == '0' && s[1] != 0) {
		return -1;
	}
	if (!*s)
		return -1;
	/* The magnitude may reach 2^63 when negative (-9223372036854775808). */
	limit = neg ? 1ull << 63 : UINT64_MAX;
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -1;
		if (v > (limit - d) / base)
			return -1;
		v = v * base + d;
	}
	*out = neg ? (uint64_t)0 - v : v;
	return 0;
}

static int num(struct ctx *c, const char *s, uint64_t *out)
{
	if (parse_u64(s, out))
		return bad(c, "malformed number '%s' (decimal, 0x hex or negative decimal, 64-bit)", s);
	return 0;
}

static int need_args(struct ctx *c, int ntok, int lo, int hi, const char *usage)
{
	if (ntok < lo || ntok > hi)
		return bad(c, "%s operands: usage: %s", ntok < lo ? "missing" : "extra", usage);
	return 0;
}

static struct tvm *find_vm(struct ctx *c, const char *name)
{
	for (unsigned i = 0; i < c->nvms; i++)
		if (strcmp(c->vms[i].name, name) == 0)
			return &c->vms[i];
	return NULL;
}

static int need_running(struct ctx *c)
{
	if (!c->vcpu)
		return bad(c, "no current vCPU (use 'vcpu N')");
	if (!vpmu_vcpu_running(c->vcpu, NULL))
		return bad(c, "the current vCPU is switched out (use 'run-on CPU')");
	return 0;
}

static int do_vm(struct ctx *c, char **t, int n)
{
	if (n < 2)
		return bad(c, "missing operands: usage: vm NAME [model=MODEL [strict] [key=value...]]");
	struct tvm *existing = find_vm(c, t[1]);
	if (n == 2) {
		if (!existing)
			return bad(c, "no VM named '%s'", t[1]);
		c->cur = existing;
		c->vcpu = NULL;
		return 0;
	}
	if (existing)
		return bad(c, "VM '%s' already exists", t[1]);
	if (strlen(t[1]) >= sizeof(c->vms[0].name))
		return bad(c, "VM name longer than %zu characters", sizeof(c->vms[0].name) - 1);
	/* the accounting's JSON carries the name and must be UTF-8 (acct_snapshot.h) */
	size_t bad_at = acct_utf8_check(t[1], strlen(t[1]));
	if (bad_at != strlen(t[1]))
		return bad(c, "VM name is not UTF-8 (byte 0x%02x at offset %zu)",
			   (unsigned char)t[1][bad_at], bad_at);
	if (c->nvms >= MAX_VMS)
		return bad(c, "more than %d VMs", MAX_VMS);
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	for (int i = 2; i < n; i++) {
		uint64_t v;
		/* A key given twice would make one of them silently win: refuse. */
		size_t klen = strcspn(t[i], "=");
		for (int j = 2; j < i; j++)
			if (strcspn(t[j], "=") == klen && strncmp(t[j], t[i], klen) == 0)
				return bad(c, "'%.*s' given twice", (int)klen, t[i]);
		if (strcmp(t[i], "strict") == 0) {
			cfg.flags |= VPMU_VM_STRICT;
		} else if (strncmp(t[i], "model=", 6) == 0) {
			cfg.model = t[i] + 6;
		} else if (strncmp(t[i], "cpumodel=", 9) == 0) {
			if (num(c, t[i] + 9, &v) || v > 255)
				return c->res->error ? -1 : bad(c, "cpumodel out of range");
			cfg.cpumodel = (int)v;
		} else if (strncmp(t[i], "stepping=", 9) == 0) {
			if (num(c, t[i] + 9, &v) || v > 15)
				return c->res->error ? -1 : bad(c, "stepping out of range");
			cfg.stepping = (int)v;
		} else if (strncmp(t[i], "pmu-version=", 12) == 0) {
			if (num(c, t[i] + 12, &v) || v > 255)
				return c->res->error ? -1 : bad(c, "pmu-version out of range");
			cfg.pmu_version = (int)v;
		} else if (strncmp(t[i], "nr-general=", 11) == 0) {
			if (num(c, t[i] + 11, &v) || v > VPMU_MAX_CTRS)
				return c->res->error ? -1 : bad(c, "nr-general out of range");
			cfg.nr_general = (int)v;
		} else if (strncmp(t[i], "nr-fixed=", 9) == 0) {
			if (num(c, t[i] + 9, &v) || v > VPMU_MAX_CTRS)
				return c->res->error ? -1 : bad(c, "nr-fixed out of range");
			cfg.nr_fixed = (int)v;
		} else if (strncmp(t[i], "ht=", 3) == 0) {
			if (num(c, t[i] + 3, &v) || v > 1)
				return c->res->error ? -1 : bad(c, "ht must be 0 or 1");
			cfg.ht = (int)v;
		} else {
			return bad(c, "unknown key '%s'", t[i]);
		}
	}
	if (!cfg.model)
		return bad(c, "vm '%s': model= is required", t[1]);
	if (!vpmu_model_description(cfg.model))
		return bad(c, "unknown model '%s'", cfg.model);
	struct tvm *tv = &c->vms[c->nvms];
	memset(tv, 0, sizeof(*tv));
	int rc = vpmu_vm_create(c->host, &cfg, &tv->vm);
	if (rc)
		return bad(c, "cannot create VM '%s': %s", t[1], strerror(-rc));
	struct vpmu_model_info mi;
	if (vpmu_model_info(cfg.model, &mi) == 0 && mi.calls) {
		tv->ram = calloc(1, TRACE_RAM_SIZE);
		struct vpmu_guest_memory mem = { ram_read, ram_write, tv->ram };
		if (!tv->ram || vpmu_vm_set_guest_memory(tv->vm, &mem)) {
			free(tv->ram);
			vpmu_vm_destroy(tv->vm);
			return bad(c, "out of memory");
		}
	}
	snprintf(tv->name, sizeof(tv->name), "%s", t[1]);
	c->nvms++;
	c->cur = tv;
	c->vcpu = NULL;
	return 0;
}

static int do_vcpu(struct ctx *c, char **t, int n)
{
	uint64_t idx;
	if (need_args(c, n, 2, 2, "vcpu N") || num(c, t[1], &idx))
		return -1;
	if (!c->cur)
		return bad(c, "no current VM");
	if (idx >= VPMU_MAX_VCPUS)
		return bad(c, "vCPU %" PRIu64 " out of range (max %d)", idx, VPMU_MAX_VCPUS - 1);
	struct vpmu_vcpu *v = vpmu_vcpu_get(c->cur->vm, (unsigned)idx);
	if (!v && vpmu_vcpu_create(c->cur->vm, (unsigned)idx, &v))
		return bad(c, "cannot create vCPU %" PRIu64, idx);
	c->vcpu = v;
	c->vcpu_index = (unsigned)idx;
	return 0;
}

static int do_run_on(struct ctx *c, char **t, int n)
{
	uint64_t cpu;
	unsigned now;
	if (need_args(c, n, 2, 2, "run-on CPU") || num(c, t[1], &cpu))
		return -1;
	if (!c->vcpu)
		return bad(c, "no current vCPU (use 'vcpu N')");
	if (cpu >= VPMU_MAX_HOST_CPUS)
		return bad(c, "host CPU %" PRIu64 " out of range (max %d)", cpu, VPMU_MAX_HOST_CPUS - 1);
	if (vpmu_vcpu_running(c->vcpu, &now)) {
		if (now == cpu)
			return 0;
		vpmu_vcpu_switch_out(c->vcpu);
	}
	/* Another vCPU on that host CPU is preempted: the host scheduler switches it out. */
	for (unsigned i = 0; i < c->nvms; i++)
		for (unsigned k = 0; k < VPMU_MAX_VCPUS; k++) {
			struct vpmu_vcpu *o = vpmu_vcpu_get(c->vms[i].vm, k);
			unsigned oc;
			if (o && vpmu_vcpu_running(o, &oc) && oc == cpu)
				vpmu_vcpu_switch_out(o);
		}
	int rc = vpmu_vcpu_switch_in(c->vcpu, (unsigned)cpu);
	if (rc)
		return bad(c, "switch-in failed: %s", strerror(-rc));
	return 0;
}

/* One guest-visible register and what it read. */
struct reg_value {
	enum vpmu_regspace space;
	uint32_t reg;
	uint64_t value;
	enum vpmu_fault fault;
};

/* Read every register the vCPU's model owns, in both spaces, into a new array
 * (*count entries).  Returns NULL only when out of memory. */
static struct reg_value *read_all_regs(struct vpmu_vcpu *v, struct vpmu_vm *vm, unsigned *count)
{
	static const enum vpmu_regspace spaces[] = { VPMU_SPACE_MSR, VPMU_SPACE_SPR };
	unsigned total = 0, n = 0;
	for (unsigned s = 0; s < 2; s++)
		total += vpmu_vm_regs(vm, spaces[s], NULL, 0);
	struct reg_value *out = calloc(total + 1, sizeof(*out));
	uint32_t *regs = calloc(total + 1, sizeof(*regs));
	if (!out || !regs) {
		free(out);
		free(regs);
		return NULL;
	}
	for (unsigned s = 0; s < 2; s++) {
		unsigned k = vpmu_vm_regs(vm, spaces[s], regs, total);
		for (unsigned i = 0; i < k && n < total; i++, n++) {
			out[n].space = spaces[s];
			out[n].reg = regs[i];
			vpmu_reg_read(v, spaces[s], regs[i], &out[n].value, &out[n].fault);
		}
	}
	free(regs);
	*count = n;
	return out;
}

/* The instructions that reach each register space, for messages. */
static const char *space_insns(enum vpmu_regspace sp)
{
	return sp == VPMU_SPACE_MSR ? "wrmsr/rdmsr" : sp == VPMU_SPACE_SPR ? "mtspr/mfspr" : "csrr";
}

/* A model that owns registers only in another space is another ISA: a guest
 * of it cannot execute this instruction at all (an impossible request). */
static int need_space(struct ctx *c, enum vpmu_regspace sp)
{
	static const enum vpmu_regspace guest[] = { VPMU_SPACE_MSR, VPMU_SPACE_SPR, VPMU_SPACE_CSR };
	struct vpmu_vm *vm = c->cur->vm;
	if (vpmu_vm_regs(vm, sp, NULL, 0) != 0)
		return 0;
	for (unsigned i = 0; i < sizeof(guest) / sizeof(guest[0]); i++)
		if (guest[i] != sp && vpmu_vm_regs(vm, guest[i], NULL, 0) != 0)
			return bad(c, "model '%s' has no %s (use %s)", vpmu_vm_model(vm),
				   sp == VPMU_SPACE_MSR ? "MSRs" : sp == VPMU_SPACE_SPR ? "SPRs" : "CSRs",
				   space_insns(guest[i]));
	return 0;
}

static int do_wr(struct ctx *c, char **t, int n, enum vpmu_regspace sp)
{
	uint64_t reg, val;
	const char *usage = sp == VPMU_SPACE_MSR ? "wrmsr MSR VALUE [gp]" : "mtspr SPR VALUE [gp]";
	if (need_args(c, n, 3, 4, usage) || num(c, t[1], &reg) || num(c, t[2], &val))
		return -1;
	if (n == 4 && strcmp(t[3], "gp") != 0)
		return bad(c, "unknown operand '%s' (only 'gp')", t[3]);
	if (reg > 0xFFFFFFFFull)
		return bad(c, "register number out of range");
	if (need_running(c) || need_space(c, sp))
		return -1;
	int want_gp = n == 4;
	enum vpmu_fault f;
	/* A refused write must change nothing (docs/trace.md, "Semantics"): compare
	 * every register before and after it. */
	unsigned nregs = 0, nafter = 0;
	struct reg_value *before = want_gp ? read_all_regs(c->vcpu, c->cur->vm, &nregs) : NULL;
	if (want_gp && !before)
		return bad(c, "out of memory");
	vpmu_reg_write(c->vcpu, sp, (uint32_t)reg, val, &f);
	if (!want_gp || f == VPMU_FAULT_NONE) {
		free(before);
		return check(c, (f != VPMU_FAULT_NONE) == want_gp, t[0],
			     "%s 0x%" PRIx64 " <- 0x%" PRIx64 " to %s, got %s", t[0], reg, val,
			     want_gp ? "fault" : "succeed",
			     f == VPMU_FAULT_NONE ? "success" : vpmu_fault_name(f));
	}
	struct reg_value *after = read_all_regs(c->vcpu, c->cur->vm, &nafter);
	if (!after) {
		free(before);
		return bad(c, "out of memory");
	}
	unsigned changed = nregs;
	for (unsigned i = 0; i < nregs && i < nafter && changed == nregs; i++)
		if (before[i].value != after[i].value || before[i].fault != after[i].fault)
			changed = i;
	int rc;
	if (changed == nregs)
		rc = check(c, 1, t[0], "%s", "");
	else
		rc = check(c, 0, t[0],
			   "%s 0x%" PRIx64 " <- 0x%" PRIx64 " (%s) to change nothing, got 0x%" PRIx32
			   " changed from 0x%" PRIx64 " to 0x%" PRIx64, t[0], reg, val,
			   vpmu_fault_name(f), before[changed].reg, before[changed].value,
			   after[changed].value);
	free(before);
	free(after);
	return rc;
}

/* rdmsr/mfspr REG EXPECT, and rdpmc ECX EXPECT (x86: vpmu_rdpmc, the P4's
 * fast-read bit included).  EXPECT is a value, `gp` or `*` (print only). */
static int do_rd(struct ctx *c, char **t, int n, enum vpmu_regspace sp, bool rdpmc)
{
	uint64_t reg, want = 0;
	const char *usage = rdpmc ? "rdpmc ECX EXPECT"
			    : sp == VPMU_SPACE_MSR ? "rdmsr MSR EXPECT"
			    : sp == VPMU_SPACE_SPR ? "mfspr SPR EXPECT" : "csrr CSR EXPECT";
	if (need_args(c, n, 3, 3, usage) || num(c, t[1], &reg))
		return -1;
	int want_gp = strcmp(t[2], "gp") == 0, any = strcmp(t[2], "*") == 0;
	if (!want_gp && !any && num(c, t[2], &want))
		return -1;
	if (reg > 0xFFFFFFFFull)
		return bad(c, rdpmc ? "ECX out of range" : "register number out of range");
	if (need_running(c) || need_space(c, sp))
		return -1;
	uint64_t val = 0;
	enum vpmu_fault f;
	if (rdpmc)
		vpmu_rdpmc(c->vcpu, (uint32_t)reg, &val, &f);
	else
		vpmu_reg_read(c->vcpu, sp, (uint32_t)reg, &val, &f);
	if (any) {
		if (f != VPMU_FAULT_NONE)
			diag(c, "%s 0x%" PRIx64 " = fault (%s)", t[0], reg, vpmu_fault_name(f));
		else
			diag(c, "%s 0x%" PRIx64 " = 0x%" PRIx64, t[0], reg, val);
		return 0;
	}
	if (want_gp)
		return check(c, f != VPMU_FAULT_NONE, t[0], "%s 0x%" PRIx64 " to fault, got 0x%" PRIx64,
			     t[0], reg, val);
	if (f != VPMU_FAULT_NONE)
		return check(c, 0, t[0], "%s 0x%" PRIx64 " = 0x%" PRIx64 ", got fault (%s)", t[0], reg,
			     want, vpmu_fault_name(f));
	return check(c, val == want, t[0], "%s 0x%" PRIx64 " = 0x%" PRIx64 ", got 0x%" PRIx64, t[0],
		     reg, want, val);
}

/* The writes of the current vCPU that broke rule RULE (by name) since its
 * creation: what default mode records (docs/principles.md §2). */
static int do_expect_violations(struct ctx *c, char **t, int n)
{
	uint64_t want;
	if (need_args(c, n, 3, 3, "expect-violations RULE N") || num(c, t[2], &want))
		return -1;
	if (!c->vcpu)
		return bad(c, "no current vCPU (use 'vcpu N')");
	const char *name;
	unsigned rule = 0;
	while ((name = vpmu_vm_rule_name(c->cur->vm, rule)) && strcmp(name, t[1]) != 0)
		rule++;
	if (!name)
		return bad(c, "model '%s' has no rule '%s'", vpmu_vm_model(c->cur->vm), t[1]);
	struct vpmu_totals tot;
	vpmu_vcpu_totals(c->vcpu, &tot);
	return check(c, tot.violations[rule] == want, t[0], "%" PRIu64 " violation(s) of %s, got %" PRIu64,
		     want, t[1], tot.violations[rule]);
}

/* event-filter allow|deny|none [fixed=BITMAP] [event=E/U | masked=E/M/T | exclude=E/M/T |
 * name=EVENT]...: the current VM's event filter (vpmu_vm_set_event_filter;
 * docs/trace.md).  A filter the library refuses is an error of the trace. */
static int do_event_filter(struct ctx *c, char **t, int n)
{
	static uint64_t ev[VPMU_FILTER_MAX_EVENTS];
	static const char *names[VPMU_FILTER_MAX_EVENTS];
	struct vpmu_event_filter f = { VPMU_FILTER_DENY, 0, 0, 0, ev, 0, names };
	if (need_args(c, n, 2, 2 + VPMU_FILTER_MAX_EVENTS, "event-filter allow|deny|none [ENTRY...]"))
		return -1;
	if (!c->cur)
		return bad(c, "no current VM");
	if (!strcmp(t[1], "none")) {
		if (n != 2)
			return bad(c, "extra operands: usage: event-filter none");
		int rc = vpmu_vm_set_event_filter(c->cur->vm, NULL, NULL);
		return rc ? bad(c, "removing the event filter: %s", strerror(-rc)) : 0;
	}
	if (strcmp(t[1], "allow") && strcmp(t[1], "deny"))
		return bad(c, "event-filter takes allow, deny or none, not '%s'", t[1]);
	f.action = !strcmp(t[1], "allow") ? VPMU_FILTER_ALLOW : VPMU_FILTER_DENY;
	bool plain = false;
	for (int i = 2; i < n; i++) {
		char *eq = strchr(t[i], '=');
		if (!eq)
			return bad(c, "event-filter entry '%s': KEY=VALUE", t[i]);
		*eq = 0;
		char *key = t[i], *val = eq + 1;
		uint64_t x[3];
		unsigned nx = 0;
		if (!strcmp(key, "name")) {
			names[f.nnames++] = val;
			continue;
		}
		for (char *p = strtok(val, "/"); p && nx < 3; p = strtok(NULL, "/"))
			if (num(c, p, &x[nx++]))
				return -1;
		if (!strcmp(key, "fixed") && nx == 1 && x[0] <= UINT32_MAX) {
			f.fixed_counter_bitmap = (uint32_t)x[0];
		} else if (!strcmp(key, "event") && nx == 2 && x[0] <= 0xFFF && x[1] <= 0xFF) {
			plain = true;
			ev[f.nevents++] = (x[0] & 0xFF) | ((x[0] & 0xF00) << 24) | (x[1] << 8);
		} else if ((!strcmp(key, "masked") || !strcmp(key, "exclude")) && nx == 3 &&
			   x[0] <= 0xFFF && x[1] <= 0xFF && x[2] <= 0xFF) {
			f.flags = VPMU_FILTER_MASKED_EVENTS;
			ev[f.nevents++] = VPMU_FILTER_MASKED_ENTRY(x[0], x[1], x[2], key[0] == 'e');
		} else {
			return bad(c, "event-filter entry '%s=': fixed=BITMAP, event=EVENT/UMASK, "
				   "masked=EVENT/MASK/MATCH, exclude=EVENT/MASK/MATCH or name=EVENT", key);
		}
	}
	if (plain && f.flags)
		return bad(c, "event-filter: event= and masked=/exclude= entries in one filter");
	int badi = -1, rc = vpmu_vm_set_event_filter(c->cur->vm, &f, &badi);
	if (rc == -ENOENT && badi >= (int)f.nevents)
		return bad(c, "event-filter: no event '%s' in the VM's event table",
			   names[badi - (int)f.nevents]);
	if (rc)
		return bad(c, "the event filter is refused (%s%s%d)", strerror(-rc),
			   badi >= 0 ? ", entry " : "", badi >= 0 ? badi + 1 : 0);
	return 0;
}

/* expect-filtered N: the programmings the event filter stopped on the current
 * vCPU since its creation (vpmu_totals.filtered). */
static int do_expect_filtered(struct ctx *c, char **t, int n)
{
	uint64_t want;
	if (need_args(c, n, 2, 2, "expect-filtered N") || num(c, t[1], &want))
		return -1;
	if (!c->vcpu)
		return bad(c, "no current vCPU (use 'vcpu N')");
	struct vpmu_totals tot;
	vpmu_vcpu_totals(c->vcpu, &tot);
	return check(c, tot.filtered == want, t[0], "%" PRIu64 " filtered programming(s), got %" PRIu64,
		     want, tot.filtered);
}

static int do_tick(struct ctx *c, char **t, int n)
{
	uint64_t count;
	if (need_args(c, n, 3, 4, "tick EVENT COUNT [user|kernel]"))
		return -1;
	int ev = vpmu_event_from_name(t[1]);
	if (ev < 0)
		return bad(c, "unknown event '%s'", t[1]);
	if (num(c, t[2], &count))
		return -1;
	enum vpmu_mode mode = VPMU_MODE_USER;
	if (n == 4) {
		if (strcmp(t[3], "kernel") == 0)
			mode = VPMU_MODE_KERNEL;
		else if (strcmp(t[3], "user") != 0)
			return bad(c, "unknown privilege '%s' (user or kernel)", t[3]);
	}
	if (!c->vcpu)
		return bad(c, "no current vCPU (use 'vcpu N')");
	unsigned cpu;
	if (!vpmu_vcpu_running(c->vcpu, &cpu))
		return 0; /* a switched-out vCPU counts nothing */
	/* The guest runs after an entry, and the VMM enters through
	 * vpmu_vcpu_enter() (what overflow status or an HT sibling changed is
	 * taken in there). */
	vpmu_vcpu_enter(c->vcpu);
	vpmu_sim_tick(c->sim, cpu, (enum vpmu_event)ev, count, mode);
	return 0;
}

static int do_expect_pmi(struct ctx *c, char **t, int n, int none)
{
	uint64_t want = 0;
	if (none ? need_args(c, n, 1, 1, "expect-no-pmi")
		 : (need_args(c, n, 2, 2, "expect-pmi N") || num(c, t[1], &want)))
		return -1;
	if (!c->vcpu)
		return bad(c, "no current vCPU (use 'vcpu N')");
	struct vpmu_totals tot;
	vpmu_vcpu_totals(c->vcpu, &tot);
	uint64_t got = tot.pmis - c->cur->pmi_mark[c->vcpu_index];
	c->cur->pmi_mark[c->vcpu_index] = tot.pmis;
	return check(c, got == want, t[0], "%" PRIu64 " PMI(s), got %" PRIu64, want, got);
}

static int do_expect_writes(struct ctx *c, char **t, int n, int ctrl)
{
	uint64_t want = 0;
	if (need_args(c, n, 2, 2, ctrl ? "expect-host-ctrl-writes N|*" : "expect-host-ctr-writes N|*"))
		return -1;
	int any = strcmp(t[1], "*") == 0;
	if (!any && num(c, t[1], &want))
		return -1;
	uint64_t total = ctrl ? vpmu_sim_ctrl_writes(c->sim) : vpmu_sim_ctr_writes(c->sim);
	uint64_t *mark = ctrl ? &c->ctrl_mark : &c->ctr_mark;
	uint64_t got = total - *mark;
	*mark = total;
	if (any) {
		diag(c, "%s = %" PRIu64, t[0], got);
		return 0;
	}
	return check(c, got == want, t[0], "%" PRIu64 " host %s write(s), got %" PRIu64, want,
		     ctrl ? "control" : "counter", got);
}

static int vcpu_ref(struct ctx *c, const char *s, struct vpmu_vcpu **out)
{
	const char *colon = strrchr(s, ':');
	uint64_t idx;
	char name[64];
	if (!colon || (size_t)(colon - s) >= sizeof(name) || colon == s)
		return bad(c, "malformed vCPU reference '%s' (VM:N)", s);
	memcpy(name, s, (size_t)(colon - s));
	name[colon - s] = 0;
	if (num(c, colon + 1, &idx))
		return -1;
	struct tvm *tv = find_vm(c, name);
	if (!tv)
		return bad(c, "no VM named '%s'", name);
	*out = idx < VPMU_MAX_VCPUS ? vpmu_vcpu_get(tv->vm, (unsigned)idx) : NULL;
	if (!*out)
		return bad(c, "VM '%s' has no vCPU %" PRIu64, name, idx);
	return 0;
}

static int do_expect_id(struct ctx *c, char **t, int n, int equal)
{
	struct vpmu_vcpu *a, *b;
	if (need_args(c, n, 3, 3, equal ? "expect-id-equal VM:N VM:N" : "expect-id-differ VM:N VM:N") ||
	    vcpu_ref(c, t[1], &a) || vcpu_ref(c, t[2], &b))
		return -1;
	uint64_t ia = vpmu_vcpu_control_id(a), ib = vpmu_vcpu_control_id(b);
	return check(c, (ia == ib) == equal, t[0],
		     "ids of %s and %s to %s, got 0x%016" PRIx64 " and 0x%016" PRIx64, t[1], t[2],
		     equal ? "be equal" : "differ", ia, ib);
}

/* sbi FID [ARGS...] -> ERR [VALUE]: the syntax is checked in full so that a
 * malformed line is reported as such on every model. */
static int do_sbi(struct ctx *c, char **t, int n)
{
	static const char usage[] = "sbi FID [a0..a5] -> ERR [VALUE]";
	uint64_t v;
	int arrow = -1;
	for (int i = 1; i < n && arrow < 0; i++)
		if (strcmp(t[i], "->") == 0)
			arrow = i;
	if (arrow < 0 || arrow < 2 || n < arrow + 2)
		return bad(c, "missing operands: usage: %s", usage);
	if (arrow > 8 || n > arrow + 3)
		return bad(c, "extra operands: usage: %s", usage);
	for (int i = 1; i < n; i++)
		if (i != arrow && num(c, t[i], &v))
			return -1;
	if (need_running(c))
		return -1;
	struct vpmu_model_info mi;
	if (vpmu_model_info(vpmu_vm_model(c->cur->vm), &mi) || !mi.calls)
		return bad(c, "model '%s' has no SBI PMU extension", vpmu_vm_model(c->cur->vm));
	uint64_t fid, args[VPMU_CALL_ARGS] = { 0 }, err, want = 0;
	num(c, t[1], &fid);
	for (int i = 2; i < arrow; i++)
		num(c, t[i], &args[i - 2]);
	num(c, t[arrow + 1], &err);
	bool value = n == arrow + 3;
	if (value)
		num(c, t[arrow + 2], &want);
	struct vpmu_call_result r;
	vpmu_call(c->vcpu, (unsigned long)fid, args, &r);
	if ((uint64_t)r.error != err)
		return check(c, 0, t[0], "sbi %" PRIu64 " to return error %" PRId64 ", got %ld (value 0x%"
			     PRIx64 ")", fid, (int64_t)err, r.error, r.value);
	return check(c, !value || r.value == want, t[0], "sbi %" PRIu64 " to return 0x%" PRIx64
		     ", got 0x%" PRIx64, fid, want, r.value);
}

/* mem-write GPA VALUE / expect-mem GPA EXPECT: a little-endian u64 of the
 * current VM's guest memory (the SBI PMU's snapshot page lives there). */
static int do_mem(struct ctx *c, char **t, int n, bool write)
{
	uint64_t gpa, v;
	if (need_args(c, n, 3, 3, write ? "mem-write GPA VALUE" : "expect-mem GPA EXPECT") ||
	    num(c, t[1], &gpa) || num(c, t[2], &v))
		return -1;
	if (!c->cur)
		return bad(c, "no current VM (use 'vm NAME')");
	if (!c->cur->ram)
		return bad(c, "model '%s' shares no memory with its guest", vpmu_vm_model(c->cur->vm));
	if (!ram_range(gpa, 8))
		return bad(c, "guest address 0x%" PRIx64 " outside 0x%llx..0x%llx", gpa,
			   TRACE_RAM_BASE, TRACE_RAM_BASE + TRACE_RAM_SIZE - 8);
	uint8_t *b = c->cur->ram + (gpa - TRACE_RAM_BASE);
	if (write) {
		for (int i = 0; i < 8; i++, v >>= 8)
			b[i] = (uint8_t)v;
		return 0;
	}
	uint64_t got = 0;
	for (int i = 7; i >= 0; i--)
		got = got << 8 | b[i];
	return check(c, got == v, t[0], "guest u64 at 0x%" PRIx64 " = 0x%" PRIx64 ", got 0x%" PRIx64,
		     gpa, v, got);
}

/* fw-event CODE [N]: the VMM handled N (default 1) firmware events CODE for
 * the current vCPU (vpmu_vcpu_fw_event). */
static int do_fw_event(struct ctx *c, char **t, int n)
{
	uint64_t code, cnt = 1;
	if (need_args(c, n, 2, 3, "fw-event CODE [N]") || num(c, t[1], &code) ||
	    (n == 3 && num(c, t[2], &cnt)))
		return -1;
	if (need_running(c))
		return -1;
	int r = vpmu_vcpu_fw_event(c->vcpu, code > 0xFFFF ? 0xFFFF : (unsigned)code, cnt);
	if (r == -ENOTSUP)
		return bad(c, "model '%s' has no firmware counters", vpmu_vm_model(c->cur->vm));
	if (r)
		return bad(c, "no firmware event %" PRIu64, code);
	return 0;
}

static int run_line(struct ctx *c, char *line)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	char *t[MAX_TOK + 1];
	int n = 0;
	for (char *s = strtok(line, " \t\r\v\f"); s; s = strtok(NULL, " \t\r\v\f")) {
		if (n == MAX_TOK)
			return bad(c, "too many operands");
		t[n++] = s;
	}
	if (n == 0)
		return 0;
	const char *d = t[0];
	if (!strcmp(d, "vm")) return do_vm(c, t, n);
	if (!strcmp(d, "vcpu")) return do_vcpu(c, t, n);
	if (!strcmp(d, "run-on")) return do_run_on(c, t, n);
	if (!strcmp(d, "switch-out")) {
		if (need_args(c, n, 1, 1, "switch-out") || need_running(c))
			return -1;
		vpmu_vcpu_switch_out(c->vcpu);
		return 0;
	}
	if (!strcmp(d, "wrmsr")) return do_wr(c, t, n, VPMU_SPACE_MSR);
	if (!strcmp(d, "rdmsr")) return do_rd(c, t, n, VPMU_SPACE_MSR, false);
	if (!strcmp(d, "mtspr")) return do_wr(c, t, n, VPMU_SPACE_SPR);
	if (!strcmp(d, "mfspr")) return do_rd(c, t, n, VPMU_SPACE_SPR, false);
	if (!strcmp(d, "rdpmc")) return do_rd(c, t, n, VPMU_SPACE_MSR, true);
	if (!strcmp(d, "csrr")) return do_rd(c, t, n, VPMU_SPACE_CSR, false);
	if (!strcmp(d, "sbi")) return do_sbi(c, t, n);
	if (!strcmp(d, "mem-write")) return do_mem(c, t, n, true);
	if (!strcmp(d, "expect-mem")) return do_mem(c, t, n, false);
	if (!strcmp(d, "fw-event")) return do_fw_event(c, t, n);
	if (!strcmp(d, "expect-violations")) return do_expect_violations(c, t, n);
	if (!strcmp(d, "tick")) return do_tick(c, t, n);
	if (!strcmp(d, "event-filter")) return do_event_filter(c, t, n);
	if (!strcmp(d, "expect-filtered")) return do_expect_filtered(c, t, n);
	if (!strcmp(d, "expect-pmi")) return do_expect_pmi(c, t, n, 0);
	if (!strcmp(d, "expect-no-pmi")) return do_expect_pmi(c, t, n, 1);
	if (!strcmp(d, "expect-host-ctrl-writes")) return do_expect_writes(c, t, n, 1);
	if (!strcmp(d, "expect-host-ctr-writes")) return do_expect_writes(c, t, n, 0);
	if (!strcmp(d, "expect-id-equal")) return do_expect_id(c, t, n, 1);
	if (!strcmp(d, "expect-id-differ")) return do_expect_id(c, t, n, 0);
	return bad(c, "unknown directive '%s'", d);
}

static FILE *accounting_out;
static enum acct_format accounting_format;

static trace_accounting_sink *accounting_sink;
static void *accounting_sink_arg;

void trace_set_accounting(FILE *out, enum acct_format f)
{
	accounting_out = out;
	accounting_format = f;
	accounting_sink = NULL;
}

void trace_set_accounting_sink(trace_accounting_sink *sink, void *arg)
{
	accounting_sink = sink;
	accounting_sink_arg = arg;
	accounting_out = NULL;
}

/* One snapshot per VM of the trace, in the chosen format (acct_snapshot.h). */
static void print_accounting(struct ctx *c)
{
	struct acct_vm *snap = calloc(c->nvms ? c->nvms : 1, sizeof(*snap));
	unsigned n = 0;
	if (!snap) {
		fprintf(stderr, "vpmu-trace: out of memory for the accounting\n");
		return;
	}
	for (unsigned i = 0; i < c->nvms; i++)
		if (acct_collect(&snap[n], c->vms[i].name, c->vms[i].vm, c->host, NULL) == 0)
			n++;
	if (accounting_sink) {
		accounting_sink(accounting_sink_arg, c->name, snap, n);
		return;
	}
	if (acct_write(accounting_out, accounting_format, snap, n) < 0)
		fprintf(stderr, "vpmu-trace: writing the accounting failed\n");
	acct_vms_release(snap, n);
}

void trace_run(const char *name, const char *text, size_t len, FILE *diagf, FILE *tap,
	       int verbose, unsigned *tapno, struct trace_result *res)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct vpmu_backend be;
	memset(res, 0, sizeof(*res));
	if (!c) {
		if (diagf)
			fprintf(diagf, "%s: error: out of memory\n", name);
		res->error = 1;
		return;
	}
	c->name = name;
	c->diag = diagf;
	c->tap = tap;
	c->verbose = verbose;
	c->tapno = tapno;
	c->res = res;
	if (vpmu_sim_create(VPMU_MAX_HOST_CPUS, &c->sim)) {
		bad(c, "cannot create the sim backend");
		free(c);
		return;
	}
	vpmu_sim_backend(c->sim, &be);
	if (vpmu_host_create(&be, VPMU_MAX_HOST_CPUS, &c->host)) {
		bad(c, "cannot create the host");
		vpmu_sim_destroy(c->sim);
		free(c);
		return;
	}
	vpmu_sim_attach(c->sim, c->host);

	char buf[MAX_LINE];
	size_t pos = 0;
	while (pos < len && !res->error) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		c->line++;
		size_t l = end - pos;
		if (end < len && l > 0 && text[end - 1] == '\r')
			l--; /* CRLF: the '\r' is the line ending's, not the line's */
		if (l >= sizeof(buf)) {
			bad(c, "line too long (more than %d characters)", MAX_LINE - 1);
			break;
		}
		if (memchr(text + pos, 0, l)) {
			bad(c, "NUL byte in line");
			break;
		}
		memcpy(buf, text + pos, l);
		buf[l] = 0;
		run_line(c, buf);
		pos = end + 1;
	}
	if ((accounting_out || accounting_sink) && !res->error)
		print_accounting(c);
	for (unsigned i = 0; i < c->nvms; i++) {
		vpmu_vm_destroy(c->vms[i].vm);
		free(c->vms[i].ram);
	}
	vpmu_host_destroy(c->host);
	vpmu_sim_destroy(c->sim);
	free(c);
}
