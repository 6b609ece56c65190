/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: host-initiated register access for save/restore
 * (vpmu_reg_get/vpmu_reg_set, vpmu.h).  Each input runs one migration:
 *
 *   1. two VMs of one (fuzzed) model and configuration, a vCPU in each: the
 *      source on host CPU 0, the destination on host CPU 1;
 *   2. fuzzed guest writes, counter ticks and switches on the source;
 *   3. a snapshot of every register of the source with vpmu_reg_get;
 *   4. a restore into the destination with vpmu_reg_set: first fuzzed writes of
 *      corrupted values (bit flips, random values, all ones), then every
 *      register with its snapshot value, both in a fuzzed order, with the
 *      destination switched in or out between the writes;
 *   5. the two vCPUs compared: host view, guest view and derived perfctr
 *      control; then the same guest writes and ticks applied to both, which
 *      must keep them identical.
 *
 * Invariants (abort() on failure):
 *   - vpmu_reg_get/set of a register the model does not own (or in the other
 *     register space) is -ENOENT and changes nothing; NULL handles are -EINVAL;
 *   - get of an owned register is 0, or -ENOENT where the CPU the VM presents
 *     lacks it (a guest read faults no-such-register); get has no side effects;
 *   - set returns 0, -EINVAL or (for exactly the registers get refuses)
 *     -ENOENT; -EINVAL changes no register; 0 stores the value (a counter: its
 *     low ctr_width bits) and changes no other register (checked after every
 *     corrupted write and after one in four of the clean pass, whose fuzzed
 *     order and final comparison catch the rest);
 *   - a value get returned is accepted by set on a vCPU of the same
 *     configuration (what a migration does);
 *   - host accesses change no guest accounting (violations, strict_refusals,
 *     faults, reads, writes, calls) and, on a vCPU that is not running, write
 *     no host register;
 *   - after the clean pass every register reads back (get) as snapshotted, the
 *     guest reads the same from both vCPUs, and their derived controls match;
 *   - from then on the two behave the same under the same guest writes and
 *     ticks (faults, registers, PMIs).
 * ASan/UBSan/LSan catch crashes, undefined behaviour and leaks.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vpmu/backend.h"
#include "vpmu/perfctr.h"
#include "vpmu/vpmu.h"

#define FUZZ_NAME "fuzz_host_access"
#include "fuzz_input.h"
#include "fuzz_world.h"

#define NR_HOST_CPUS 2
#define MAX_GUEST_OPS 16
#define MAX_CORRUPT 8
#define MAX_DIFF_OPS 8
#define MAX_TICK 0xffffu   /* events per tick: far from the 2^32 sampling contract */
#define MAX_REGS 128       /* registers of a model (P4: about 90) */
#define MAX_MODELS 64

/* What a model's tables say, looked up (by name) once per model and process:
 * which registers are counters, and its event encodings. */
struct model_cache {
	/* A model's VMs may differ in their registers (the P4's IQ_ESCRs exist on
	 * CPUID models 0-2 only): the cache holds the last register list's. */
	unsigned n;          /* registers the mask is for */
	uint64_t *mask;      /* per register: a counter's width, else all ones */
	unsigned nev;
	uint64_t *code;      /* event encodings (vpmu_model_event) */
};

/* The model's registers, in vpmu_vm_regs() order. */
struct regs {
	const char *model;
	const struct model_cache *mc;
	enum vpmu_regspace space;
	unsigned n;
	uint32_t *addr;
	uint64_t *mask;      /* what set keeps of a value: a counter's width, else all */
	unsigned *group;     /* registers of one storage (aliases: a counter's legacy
	                        and full-width addresses) share a group */
};

/* One register's host view. */
struct hv {
	int rc;
	uint64_t val;
};

struct side {
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v;
	unsigned cpu;        /* the host CPU it switches in on */
};

struct world {
	struct vpmu_sim *sim;
	struct vpmu_host *host;
	struct regs r;
	struct side src, dst;
};

static const char *model_of(const struct world *w)
{
	return w->r.model;
}

/* Which registers are one storage, found on a scratch VM of the same
 * configuration: a host set of one register that shows at another address
 * makes the two one group (a K7-layout counter or event select and its
 * Family 17h alias, an architectural counter and its full-width alias).  A
 * host set changes no other register otherwise (checked below). */
NO_COVERAGE static void find_aliases(struct world *w, const struct vpmu_vm_config *cfg)
{
	/* 0x80000000 for registers that hold little else: PowerPC's MMCR2
	 * (THRESHMULT alone) and MMCR1 (its selectors, bits 31:11), which
	 * refuse the others; their user copies are one storage with them. */
	static const uint64_t marks[] = { 0x5A5A5A5A5A5A5A5Aull, 0x1, 0x2, 0x10000, 0x80000000ull };
	w->r.group = calloc(w->r.n, sizeof(*w->r.group));
	CHECK(w->r.group, "out of memory");
	for (unsigned i = 0; i < w->r.n; i++)
		w->r.group[i] = i;
	struct vpmu_vm *vm = NULL;
	struct vpmu_vcpu *v = NULL;
	CHECK(vpmu_vm_create(w->host, cfg, &vm) == 0 && vpmu_vcpu_create(vm, 0, &v) == 0,
	      "scratch VM");
	for (unsigned i = 0; i < w->r.n; i++) {
		uint64_t old = 0, got;
		if (w->r.group[i] != i || vpmu_reg_get(v, w->r.space, w->r.addr[i], &old) != 0)
			continue;
		for (unsigned k = 0; k < sizeof(marks) / sizeof(marks[0]); k++) {
			uint64_t mark = marks[k] & w->r.mask[i];
			if (mark == old || vpmu_reg_set(v, w->r.space, w->r.addr[i], mark) != 0)
				continue;
			for (unsigned j = i + 1; j < w->r.n; j++)
				if (vpmu_reg_get(v, w->r.space, w->r.addr[j], &got) == 0 && got == mark)
					w->r.group[j] = i;
			vpmu_reg_set(v, w->r.space, w->r.addr[i], old);
			break;
		}
	}
	vpmu_vm_destroy(vm);
}

NO_COVERAGE static void host_view(const struct world *w, struct vpmu_vcpu *v, struct hv *out)
{
	for (unsigned i = 0; i < w->r.n; i++) {
		out[i].val = 0;
		out[i].rc = vpmu_reg_get(v, w->r.space, w->r.addr[i], &out[i].val);
	}
}

NO_COVERAGE static void same_view(const struct world *w, const struct hv *a, const struct hv *b,
		      int skip, const char *what)
{
	for (unsigned i = 0; i < w->r.n; i++) {
		if ((int)i == skip || (skip >= 0 && w->r.group[i] == w->r.group[skip]))
			continue;
		CHECK(a[i].rc == b[i].rc && a[i].val == b[i].val,
		      "%s: %s register %#x: rc %d value %#llx, then rc %d value %#llx", what,
		      model_of(w), w->r.addr[i], a[i].rc, (unsigned long long)a[i].val, b[i].rc,
		      (unsigned long long)b[i].val);
	}
}

static uint64_t host_writes(const struct world *w)
{
	return vpmu_sim_ctrl_writes(w->sim) + vpmu_sim_ctr_writes(w->sim);
}

/* The guest accounting a host access must leave alone. */
NO_COVERAGE static void same_guest_totals(const struct vpmu_totals *a, const struct vpmu_totals *b,
			      const char *what)
{
	CHECK(a->reads == b->reads && a->writes == b->writes && a->calls == b->calls &&
	      a->faults == b->faults && a->strict_refusals == b->strict_refusals,
	      "%s changed the guest accounting (reads %llu->%llu writes %llu->%llu faults "
	      "%llu->%llu strict %llu->%llu)", what, (unsigned long long)a->reads,
	      (unsigned long long)b->reads, (unsigned long long)a->writes,
	      (unsigned long long)b->writes, (unsigned long long)a->faults,
	      (unsigned long long)b->faults, (unsigned long long)a->strict_refusals,
	      (unsigned long long)b->strict_refusals);
	CHECK(memcmp(a->violations, b->violations, sizeof(a->violations)) == 0,
	      "%s recorded a perfctr rule violation", what);
}

static void totals_of(struct vpmu_vcpu *v, struct vpmu_totals *t)
{
	CHECK(vpmu_vcpu_totals(v, t) == 0, "totals");
}

/* ---------------------------------------------------------------- choices */

static uint64_t pick_value(const struct world *w, struct input *in)
{
	const struct model_cache *mc = w->r.mc;
	uint64_t code = mc->nev ? mc->code[take8(in) % mc->nev] : 0;
	switch (take8(in) % 10) {
	case 0: return 0;
	case 1: return take_bytes(in, 1);
	case 2: return take_bytes(in, 3);        /* event select, unit mask, low flags */
	case 3: return take_bytes(in, 4);
	case 4: return take_bytes(in, 8);
	case 5: return ~0ull;
	case 6: return (uint64_t)-(int64_t)(take_bytes(in, 2) + 1);  /* a sampling period */
	case 7: return take_bytes(in, 3) | 0x430000;   /* EN|OS|USR on P6/K7 layouts */
	case 8: return code | 0x530000;                /* + INT: a sampling counter there */
	default: return code | (take_bytes(in, 2) << 6);   /* an event, other layouts' flags */
	}
}

static uint64_t corrupt(uint64_t v, struct input *in)
{
	switch (take8(in) % 6) {
	case 0: return v ^ (1ull << (take8(in) & 63));
	case 1: return v ^ ((uint64_t)take8(in) << (8 * (take8(in) & 7)));
	case 2: return take_bytes(in, 8);
	case 3: return ~0ull;
	case 4: return v | 0xffffffff00000000ull;
	default: return ~v;
	}
}

/* A register address the model does not own, or an owned one in the other space. */
static void pick_unowned(const struct world *w, struct input *in, enum vpmu_regspace *space,
			 uint32_t *addr)
{
	uint8_t sel = take8(in);
	*space = w->r.space;
	if (sel < 128 && w->r.n)
		*addr = w->r.addr[take8(in) % w->r.n] + (uint32_t)(int32_t)(int8_t)take8(in);
	else
		*addr = (uint32_t)take_bytes(in, 4);
	if (sel & 1)
		*space = w->r.space == VPMU_SPACE_MSR ? VPMU_SPACE_SPR : VPMU_SPACE_MSR;
}

static void check_unowned(struct world *w, struct side *s, struct input *in)
{
	enum vpmu_regspace space;
	uint32_t addr;
	pick_unowned(w, in, &space, &addr);
	if (vpmu_vm_owns_reg(s->vm, space, addr))
		return;
	struct vpmu_totals t0, t1;
	totals_of(s->v, &t0);
	uint64_t val = 0x5a5a5a5a5a5a5a5aull, hw = host_writes(w);
	int rc = vpmu_reg_get(s->v, space, addr, &val);
	CHECK(rc == -ENOENT, "get of unowned %s %#x: rc %d", space ? "SPR" : "MSR", addr, rc);
	CHECK(val == 0x5a5a5a5a5a5a5a5aull, "a failed get wrote *value");
	rc = vpmu_reg_set(s->v, space, addr, pick_value(w, in));
	CHECK(rc == -ENOENT, "set of unowned %s %#x: rc %d", space ? "SPR" : "MSR", addr, rc);
	totals_of(s->v, &t1);
	same_guest_totals(&t0, &t1, "a host access to an unowned register");
	CHECK(host_writes(w) == hw, "a host access to an unowned register wrote host registers");
}

/* ---------------------------------------------------------------- guest side */

static void switch_to(struct side *s, bool in)
{
	bool running = vpmu_vcpu_running(s->v, NULL);
	if (in && !running)
		CHECK(vpmu_vcpu_switch_in(s->v, s->cpu) == 0, "switch-in");
	else if (!in && running)
		CHECK(vpmu_vcpu_switch_out(s->v) == 0, "switch-out");
}

static void tick(struct world *w, unsigned cpu, struct input *in)
{
	enum vpmu_event ev = (enum vpmu_event)(take8(in) % VPMU_EV_NR);
	enum vpmu_mode mode = (take8(in) & 1) ? VPMU_MODE_KERNEL : VPMU_MODE_USER;
	uint64_t count = take_bytes(in, 2) & MAX_TICK;
	CHECK(vpmu_sim_tick(w->sim, cpu, ev, count, mode) == 0, "tick");
}

static enum vpmu_fault guest_write(struct world *w, struct vpmu_vcpu *v, unsigned reg,
				   uint64_t val)
{
	enum vpmu_fault f = VPMU_FAULT_NONE;
	CHECK(vpmu_reg_write(v, w->r.space, w->r.addr[reg], val, &f) == 0, "guest write rc");
	return f;
}

/* ---------------------------------------------------------------- setup */

static bool setup(struct world *w, struct input *in)
{
	fuzz_sim_host(NR_HOST_CPUS, &w->sim, &w->host);
	struct vpmu_vm_config cfg;
	unsigned model = fuzz_vm_create(w->host, in, &w->src.vm, &cfg);
	int rc = vpmu_vm_create(w->host, &cfg, &w->dst.vm);
	CHECK(rc == 0, "model %s: a second VM of an accepted configuration: %d", cfg.model, rc);
	CHECK(vpmu_vcpu_create(w->src.vm, 0, &w->src.v) == 0, "vcpu create");
	CHECK(vpmu_vcpu_create(w->dst.vm, 0, &w->dst.v) == 0, "vcpu create");
	w->src.cpu = 0;
	w->dst.cpu = 1;

	struct vpmu_model_info info;
	CHECK(vpmu_model_info(cfg.model, &info) == 0, "model info");
	w->r.model = cfg.model;
	w->r.space = info.regspace;
	w->r.n = vpmu_vm_regs(w->src.vm, info.regspace, NULL, 0);
	/* The VM's registers: the model's, or the subset its PMU has (a
	 * narrowed or smaller architectural PMU: vpmu_vm_pmu). */
	struct vpmu_pmu_info pi;
	unsigned hidden = vpmu_vm_regs(w->src.vm, VPMU_SPACE_STATE, NULL, 0);
	CHECK(vpmu_vm_pmu(w->src.vm, &pi) == 0 && w->r.n + hidden == pi.nr_regs &&
	      pi.nr_regs <= info.nr_regs,
	      "%s: %u registers and %u of hidden state, the VM's PMU says %u, the model %u",
	      cfg.model, w->r.n, hidden, pi.nr_regs, info.nr_regs);
	if (!w->r.n)
		return false;           /* "generic": nothing to save */
	CHECK(w->r.n <= MAX_REGS, "%s: %u registers: raise MAX_REGS", cfg.model, w->r.n);
	w->r.addr = calloc(w->r.n, sizeof(*w->r.addr));
	w->r.mask = calloc(w->r.n, sizeof(*w->r.mask));
	CHECK(w->r.addr && w->r.mask, "out of memory");
	CHECK(vpmu_vm_regs(w->src.vm, info.regspace, w->r.addr, w->r.n) == w->r.n, "regs");
	static struct model_cache cache[MAX_MODELS];
	CHECK(model < MAX_MODELS, "%u models: raise MAX_MODELS", vpmu_model_count());
	struct model_cache *mc = &cache[model];
	if (mc->mask && mc->n != w->r.n) {
		free(mc->mask);
		free(mc->code);
		mc->mask = NULL;
		mc->code = NULL;
	}
	if (!mc->mask) {
		mc->n = w->r.n;
		uint64_t width = info.ctr_width >= 64 ? ~0ull : (1ull << info.ctr_width) - 1;
		mc->mask = calloc(w->r.n, sizeof(*mc->mask));
		mc->nev = info.nr_events;
		mc->code = calloc(mc->nev + 1, sizeof(*mc->code));
		CHECK(mc->mask && mc->code, "out of memory");
		for (unsigned i = 0; i < w->r.n; i++) {
			uint32_t a = 0;
			const char *kind = NULL;
			unsigned k = 0;
			while (vpmu_model_reg(cfg.model, k, &a, &kind) == 0 && a != w->r.addr[i])
				k++;
			CHECK(kind && a == w->r.addr[i], "%s: the VM's register %#x is the model's",
			      cfg.model, w->r.addr[i]);
			mc->mask[i] = strcmp(kind, "counter") == 0 ? width : ~0ull;
		}
		for (unsigned i = 0; i < mc->nev; i++)
			CHECK(vpmu_model_event(cfg.model, i, &mc->code[i], NULL, NULL, NULL) == 0,
			      "%s: event %u", cfg.model, i);
	}
	w->r.mc = mc;
	memcpy(w->r.mask, mc->mask, w->r.n * sizeof(uint64_t));
	find_aliases(w, &cfg);
	return true;
}

/* ---------------------------------------------------------------- the restore */

/* What the destination looked like after the last host write: its host view
 * and accounting.  Nothing in between (switches, accesses to unowned registers)
 * may change either. */
struct dst_state {
	struct hv view[MAX_REGS];
	struct vpmu_totals t;
};

/* One vpmu_reg_set on the destination, with every check of a host write. */
static void restore_one(struct world *w, struct dst_state *d, unsigned i, uint64_t val,
			const struct hv *snap, bool clean, bool full)
{
	struct vpmu_vcpu *v = w->dst.v;
	const struct hv *before = d->view;
	struct hv after[MAX_REGS];
	struct vpmu_totals t1;
	bool running = vpmu_vcpu_running(v, NULL);
	uint64_t hw = host_writes(w);

	int rc = vpmu_reg_set(v, w->r.space, w->r.addr[i], val);
	CHECK(rc == 0 || rc == -EINVAL || rc == -ENOENT, "set %#x: rc %d", w->r.addr[i], rc);
	if (full) {
		host_view(w, v, after);
	} else {
		/* Only the register written and its aliases (zen1's legacy event
		 * selects are its PerfEvtSel registers: they change together); the
		 * others as they were (the final comparison, after registers restored
		 * in fuzzed orders, checks them). */
		memcpy(after, before, w->r.n * sizeof(after[0]));
		for (unsigned j = 0; j < w->r.n; j++) {
			if (w->r.group[j] != w->r.group[i])
				continue;
			after[j].val = 0;
			after[j].rc = vpmu_reg_get(v, w->r.space, w->r.addr[j], &after[j].val);
		}
	}
	if (rc == -ENOENT) {
		CHECK(before[i].rc == -ENOENT && snap[i].rc == -ENOENT,
		      "%s: set of owned register %#x: -ENOENT, but get gives %d (source) / %d",
		      model_of(w), w->r.addr[i], snap[i].rc, before[i].rc);
	} else {
		CHECK(snap[i].rc == 0 && before[i].rc == 0,
		      "%s: get of %#x refused (%d) but set rc %d", model_of(w), w->r.addr[i],
		      before[i].rc, rc);
	}
	if (rc != 0) {
		/* A value get returned must restore: a migration fails otherwise. */
		CHECK(!(clean && snap[i].rc == 0),
		      "%s: set %#x refused (rc %d) the value %#llx that get returned",
		      model_of(w), w->r.addr[i], rc, (unsigned long long)val);
		same_view(w, before, after, -1, "a refused set (or what came before it)");
	} else {
		CHECK(after[i].val == (val & w->r.mask[i]),
		      "%s: set %#x to %#llx, get returns %#llx", model_of(w), w->r.addr[i],
		      (unsigned long long)val, (unsigned long long)after[i].val);
		same_view(w, before, after, (int)i, "a set of another register (or what came before it)");
	}
	totals_of(v, &t1);
	same_guest_totals(&d->t, &t1, "a host write");
	if (!running)
		CHECK(host_writes(w) == hw, "a host write to a switched-out vCPU wrote host registers");
	memcpy(d->view, after, w->r.n * sizeof(after[0]));
	d->t = t1;
}

/* A permutation of 0..n-1 from the input. */
static void shuffle(unsigned *order, unsigned n, struct input *in)
{
	for (unsigned i = 0; i < n; i++)
		order[i] = i;
	for (unsigned i = n; i > 1; i--) {
		unsigned j = take8(in) % i;
		unsigned t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}

/* Guest view and derived control of the two vCPUs. */
NO_COVERAGE static void compare_sides(struct world *w, const char *what)
{
	for (unsigned i = 0; i < w->r.n; i++) {
		uint64_t a = 0, b = 0;
		enum vpmu_fault fa, fb;
		CHECK(vpmu_reg_read(w->src.v, w->r.space, w->r.addr[i], &a, &fa) == 0, "read");
		CHECK(vpmu_reg_read(w->dst.v, w->r.space, w->r.addr[i], &b, &fb) == 0, "read");
		CHECK(fa == fb && a == b, "%s: %s %#x reads %#llx (%s) on the source, %#llx (%s) "
		      "on the destination", what, model_of(w), w->r.addr[i], (unsigned long long)a,
		      vpmu_fault_name(fa), (unsigned long long)b, vpmu_fault_name(fb));
	}
	struct perfctr_cpu_state ps, pd;
	if (vpmu_vcpu_perfctr_x86(w->src.v, &ps) == 0) {
		CHECK(vpmu_vcpu_perfctr_x86(w->dst.v, &pd) == 0, "perfctr export");
		const struct perfctr_cpu_control *a = &ps.control, *b = &pd.control;
		CHECK(a->nractrs == b->nractrs && a->nrictrs == b->nrictrs,
		      "%s: %s control: %u+%u counters on the source, %u+%u on the destination",
		      what, model_of(w), a->nractrs, a->nrictrs, b->nractrs, b->nrictrs);
		for (unsigned k = 0; k < a->nractrs + a->nrictrs; k++)
			CHECK(a->pmc_map[k] == b->pmc_map[k] && a->evntsel[k] == b->evntsel[k] &&
			      a->p4.escr[k] == b->p4.escr[k],
			      "%s: %s control counter %u: pmc %u evntsel %#x / pmc %u evntsel %#x",
			      what, model_of(w), k, a->pmc_map[k], a->evntsel[k], b->pmc_map[k],
			      b->evntsel[k]);
	}
}

/* The same guest writes and ticks on both: they must stay indistinguishable. */
static void differential(struct world *w, struct input *in)
{
	bool run = take8(in) & 1;
	switch_to(&w->src, run);
	switch_to(&w->dst, run);
	vpmu_vcpu_pmi_ack(w->src.v);
	vpmu_vcpu_pmi_ack(w->dst.v);
	unsigned k = 0;
	for (; k < MAX_DIFF_OPS && in->n; k++) {
		uint8_t op = take8(in);
		if (op % 3 != 2) {
			unsigned reg = take8(in) % w->r.n;
			uint64_t val = pick_value(w, in);
			enum vpmu_fault fa = guest_write(w, w->src.v, reg, val);
			enum vpmu_fault fb = guest_write(w, w->dst.v, reg, val);
			CHECK(fa == fb, "after restore: %s guest write %#llx to %#x: %s on the source, "
			      "%s on the destination", model_of(w), (unsigned long long)val,
			      w->r.addr[reg], vpmu_fault_name(fa), vpmu_fault_name(fb));
			uint64_t a = 0, b = 0;
			CHECK(vpmu_reg_get(w->src.v, w->r.space, w->r.addr[reg], &a) ==
			      vpmu_reg_get(w->dst.v, w->r.space, w->r.addr[reg], &b) && a == b,
			      "after restore: %s guest write %#llx to %#x: %#llx on the source, %#llx "
			      "on the destination", model_of(w), (unsigned long long)val,
			      w->r.addr[reg], (unsigned long long)a, (unsigned long long)b);
		} else if (run) {
			struct input copy = *in;
			tick(w, w->src.cpu, &copy);
			tick(w, w->dst.cpu, in);
		}
		uint64_t ma = 0, mb = 0;
		bool pa = vpmu_vcpu_pmi_pending(w->src.v, &ma), pb = vpmu_vcpu_pmi_pending(w->dst.v, &mb);
		CHECK(pa == pb && ma == mb, "after restore: %s PMI pending %d (%#llx) on the source, "
		      "%d (%#llx) on the destination", model_of(w), pa, (unsigned long long)ma, pb,
		      (unsigned long long)mb);
	}
	if (k)
		compare_sides(w, "after restore, same guest operations");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct world w;
	memset(&w, 0, sizeof(w));
	uint64_t scratch;

	CHECK(vpmu_reg_get(NULL, VPMU_SPACE_MSR, 0xc1, &scratch) == -EINVAL, "get(NULL vcpu)");
	CHECK(vpmu_reg_set(NULL, VPMU_SPACE_MSR, 0xc1, 0) == -EINVAL, "set(NULL vcpu)");
	if (!setup(&w, &in))
		goto out;
	CHECK(vpmu_reg_get(w.src.v, w.r.space, w.r.addr[0], NULL) == -EINVAL, "get(NULL value)");

	/* 2. The source's guest runs. */
	unsigned nops = take8(&in) % (MAX_GUEST_OPS + 1);
	for (unsigned k = 0; k < nops && in.n; k++) {
		uint8_t op = take8(&in);
		switch (op % 6) {
		case 0: case 1: case 2:
			guest_write(&w, w.src.v, take8(&in) % w.r.n, pick_value(&w, &in));
			break;
		case 3: switch_to(&w.src, !vpmu_vcpu_running(w.src.v, NULL)); break;
		case 4: tick(&w, w.src.cpu, &in); break;
		default: check_unowned(&w, &w.src, &in); break;
		}
	}
	if (take8(&in) & 1)
		switch_to(&w.src, false);

	/* 3. Save. */
	struct hv snap[MAX_REGS], again[MAX_REGS];
	unsigned order[MAX_REGS];
	struct vpmu_totals t0, t1;
	totals_of(w.src.v, &t0);
	uint64_t hw = host_writes(&w);
	host_view(&w, w.src.v, snap);
	host_view(&w, w.src.v, again);
	same_view(&w, snap, again, -1, "a second get");
	totals_of(w.src.v, &t1);
	same_guest_totals(&t0, &t1, "get");
	CHECK(host_writes(&w) == hw, "%s: get wrote host registers", w.r.model);
	for (unsigned i = 0; i < w.r.n; i++) {
		if (snap[i].rc == 0)
			continue;
		CHECK(snap[i].rc == -ENOENT, "%s: get of owned %#x: rc %d", w.r.model, w.r.addr[i],
		      snap[i].rc);
		/* Only a register the presented CPU lacks may refuse. */
		uint64_t gv;
		enum vpmu_fault f;
		CHECK(vpmu_reg_read(w.src.v, w.r.space, w.r.addr[i], &gv, &f) == 0 &&
		      f == VPMU_FAULT_NO_REG, "%s: get of owned %#x: -ENOENT, but the guest reads it",
		      w.r.model, w.r.addr[i]);
	}

	/* 4. Restore: corrupted writes, then a clean pass, in fuzzed orders. */
	struct vpmu_totals vt0, vt1;
	CHECK(vpmu_vm_totals(w.dst.vm, &vt0) == 0, "vm totals");
	struct dst_state d;
	host_view(&w, w.dst.v, d.view);
	totals_of(w.dst.v, &d.t);
	unsigned ncorrupt = take8(&in) % (MAX_CORRUPT + 1);
	for (unsigned k = 0; k < ncorrupt && in.n; k++) {
		unsigned i = take8(&in) % w.r.n;
		uint64_t val = corrupt(snap[i].val, &in);
		if (take8(&in) < 32)
			switch_to(&w.dst, !vpmu_vcpu_running(w.dst.v, NULL));
		restore_one(&w, &d, i, val, snap, val == snap[i].val, true);
		if (take8(&in) < 64)
			check_unowned(&w, &w.dst, &in);
	}
	shuffle(order, w.r.n, &in);
	for (unsigned k = 0; k < w.r.n; k++) {
		if (take8(&in) < 32)
			switch_to(&w.dst, !vpmu_vcpu_running(w.dst.v, NULL));
		restore_one(&w, &d, order[k], snap[order[k]].val, snap, true, in.n && take8(&in) < 64);
	}
	CHECK(vpmu_vm_totals(w.dst.vm, &vt1) == 0, "vm totals");
	same_guest_totals(&vt0, &vt1, "the restore (VM totals)");

	/* 5. Compare, then run both the same way. */
	host_view(&w, w.dst.v, again);
	same_view(&w, snap, again, -1, "restored (source, then destination)");
	compare_sides(&w, "restored");
	differential(&w, &in);
out:
	vpmu_vm_destroy(w.src.vm);
	vpmu_vm_destroy(w.dst.vm);
	CHECK(vpmu_host_destroy(w.host) == 0, "host destroy");
	vpmu_sim_destroy(w.sim);
	free(w.r.addr);
	free(w.r.mask);
	free(w.r.group);
	return 0;
}
