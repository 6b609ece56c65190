/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: drives the public API (vpmu.h, the sim backend of backend.h)
 * with operations decoded from the input and checks, with abort(), invariants
 * every VMM relies on:
 *   - a faulting guest write changes no register of any vCPU and writes no host
 *     register;
 *   - a read of a register the model does not own faults; one it owns faults only
 *     where the presented CPU lacks it (P6's IA32_MISC_ENABLE before the Pentium
 *     M), always the same way, with the value 0; and a read never
 *     writes a host register;
 *   - a tick on host CPU c changes no register of a vCPU that is not running on c;
 *   - totals never decrease;
 *   - switch-in/out return codes follow the documented contract.
 * ASan/UBSan/LSan (from -fsanitize) catch crashes, undefined behaviour and leaks.
 *
 * Input layout: a header (number of VMs; per VM: model, strict, CPUID options,
 * number of vCPUs), then one operation per leading byte until the input ends.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

#define FUZZ_NAME "fuzz_reg_access"
#include "fuzz_input.h"
#include "fuzz_world.h"

#define NR_HOST_CPUS 3
#define MAX_VMS 2
#define MAX_VCPUS 3
#define MAX_OPS 2000
/* The library takes counter differences on 32 bits (perfctr low-level-x86.txt,
 * "General"): the VMM must sample (switch out/in) before a host counter advances
 * 2^32 events, as perfctr's timer does.  Ticks on a host CPU are capped to this many events between two
 * switch-ins so that the totals invariant tests the library, not the contract. */
#define TICK_BUDGET 0x7fffffffull

struct reg {
	enum vpmu_regspace space;
	uint32_t addr;
};

struct fvm {
	struct vpmu_vm *vm;
	struct reg *regs;                   /* the model's own registers */
	unsigned nregs;
	unsigned nvcpus;
	struct vpmu_vcpu *vcpu[MAX_VCPUS];
	struct vpmu_totals last[MAX_VCPUS]; /* for the monotonicity check */
	struct vpmu_totals last_vm;
};

struct world {
	struct vpmu_sim *sim;
	struct vpmu_host *host;
	struct fvm vms[MAX_VMS];
	unsigned nvms;
	struct vpmu_vcpu *on_cpu[NR_HOST_CPUS]; /* our own view of who runs where */
	uint64_t ticked[NR_HOST_CPUS];         /* events since the last switch-in */
};

/* ---------------------------------------------------------------- snapshots */

struct snap {
	uint64_t val;
	enum vpmu_fault fault;
};

/* Every register of every vCPU of the VM, as the guest would read it. */
static struct snap *snapshot_vm(struct fvm *fv)
{
	struct snap *s = calloc((size_t)fv->nvcpus * fv->nregs + 1, sizeof(*s));
	CHECK(s != NULL, "out of memory");
	for (unsigned k = 0; k < fv->nvcpus; k++)
		for (unsigned r = 0; r < fv->nregs; r++) {
			struct snap *e = &s[k * fv->nregs + r];
			int rc = vpmu_reg_read(fv->vcpu[k], fv->regs[r].space, fv->regs[r].addr,
					       &e->val, &e->fault);
			CHECK(rc == 0, "read rc %d", rc);
			CHECK(e->fault == VPMU_FAULT_NONE || (e->fault == VPMU_FAULT_NO_REG && !e->val),
			      "read of own register %#x faulted (%s) or read %#llx", fv->regs[r].addr,
			      vpmu_fault_name(e->fault), (unsigned long long)e->val);
		}
	return s;
}

/* Compare a vCPU's registers with a snapshot (only vCPUs `keep` says must not change). */
static void compare_vm(struct fvm *fv, const struct snap *before, const bool *keep,
		       const char *after_what)
{
	for (unsigned k = 0; k < fv->nvcpus; k++) {
		if (keep && !keep[k])
			continue;
		for (unsigned r = 0; r < fv->nregs; r++) {
			uint64_t val = 0;
			enum vpmu_fault f;
			vpmu_reg_read(fv->vcpu[k], fv->regs[r].space, fv->regs[r].addr, &val, &f);
			const struct snap *e = &before[k * fv->nregs + r];
			CHECK(f == e->fault && val == e->val,
			      "%s: %s vCPU %u register %#x changed: %#llx -> %#llx",
			      after_what, vpmu_vm_model(fv->vm), k, fv->regs[r].addr,
			      (unsigned long long)e->val, (unsigned long long)val);
		}
	}
}

static uint64_t host_writes(const struct world *w)
{
	return vpmu_sim_ctrl_writes(w->sim) + vpmu_sim_ctr_writes(w->sim);
}

static void check_totals_monotonic(struct fvm *fv)
{
	for (unsigned k = 0; k < fv->nvcpus; k++) {
		struct vpmu_totals t;
		CHECK(vpmu_vcpu_totals(fv->vcpu[k], &t) == 0, "totals failed");
		const char *f = totals_decreased(&fv->last[k], &t);
		CHECK(!f, "%s vCPU %u totals: %s decreased", vpmu_vm_model(fv->vm), k, f);
		fv->last[k] = t;
	}
	struct vpmu_totals t;
	CHECK(vpmu_vm_totals(fv->vm, &t) == 0, "vm totals failed");
	const char *f = totals_decreased(&fv->last_vm, &t);
	CHECK(!f, "VM totals: %s decreased", f);
	fv->last_vm = t;
}

/* ---------------------------------------------------------------- choices */

static const struct reg *pick_reg(struct fvm *fv, struct input *in, struct reg *scratch)
{
	uint8_t sel = take8(in);
	if (sel < 200 && fv->nregs)                /* mostly the model's own registers */
		return &fv->regs[take8(in) % fv->nregs];
	if (sel < 235 && fv->nregs) {              /* neighbours: off-by-N addresses */
		*scratch = fv->regs[take8(in) % fv->nregs];
		scratch->addr += (uint32_t)(int32_t)(int8_t)take8(in);
		return scratch;
	}
	static const enum vpmu_regspace spaces[4] = { VPMU_SPACE_MSR, VPMU_SPACE_SPR, VPMU_SPACE_CSR,
						       VPMU_SPACE_MSR };
	scratch->space = spaces[take8(in) & 3];
	scratch->addr = (uint32_t)take_bytes(in, 4);
	return scratch;
}

static uint64_t pick_value(struct vpmu_vcpu *v, const struct reg *r, struct input *in)
{
	uint64_t cur = 0;
	enum vpmu_fault f;
	switch (take8(in) % 9) {
	case 0: return 0;
	case 1: return take_bytes(in, 1);
	case 2: return take_bytes(in, 3);          /* event select, unit mask, low flags */
	case 3: return take_bytes(in, 4);
	case 4: return take_bytes(in, 8);
	case 5:                                    /* flip one bit of the current value */
		vpmu_reg_read(v, r->space, r->addr, &cur, &f);
		return cur ^ (1ull << (take8(in) & 63));
	case 6:                                    /* rewrite the current value */
		vpmu_reg_read(v, r->space, r->addr, &cur, &f);
		return cur;
	case 7: return ~0ull;
	default:                                   /* a sampling period: -N in 32 bits */
		return (uint64_t)-(int64_t)(take_bytes(in, 2) + 1) & 0xffffffffull;
	}
}

/* ---------------------------------------------------------------- operations */

static void op_write(struct world *w, struct fvm *fv, struct vpmu_vcpu *v, struct input *in,
		     bool counter_like)
{
	struct reg scratch;
	const struct reg *r = pick_reg(fv, in, &scratch);
	uint64_t val = counter_like ? (uint64_t)-(int64_t)(take_bytes(in, 3) + 1)
				    : pick_value(v, r, in);
	struct snap *before = snapshot_vm(fv);
	uint64_t hw = host_writes(w);
	enum vpmu_fault f = VPMU_FAULT_NONE;
	int rc = vpmu_reg_write(v, r->space, r->addr, val, &f);
	CHECK(rc == 0, "write rc %d", rc);
	bool owned = vpmu_vm_owns_reg(fv->vm, r->space, r->addr);
	CHECK(owned || f == VPMU_FAULT_NO_REG, "write to unowned %#x: fault %s", r->addr,
	      vpmu_fault_name(f));
	/* An owned register faults no-such-register only where the presented CPU
	 * lacks it: then a read of it faults too. */
	if (owned && f == VPMU_FAULT_NO_REG) {
		uint64_t rv;
		enum vpmu_fault rf;
		CHECK(vpmu_reg_read(v, r->space, r->addr, &rv, &rf) == 0 && rf == VPMU_FAULT_NO_REG,
		      "write to owned %#x: no-such-register, but it reads", r->addr);
	}
	if (f != VPMU_FAULT_NONE) {
		compare_vm(fv, before, NULL, "faulting write");
		CHECK(host_writes(w) == hw, "faulting write to %#x wrote host registers", r->addr);
	}
	free(before);
}

static void op_read(struct world *w, struct fvm *fv, struct vpmu_vcpu *v, struct input *in)
{
	struct reg scratch;
	const struct reg *r = pick_reg(fv, in, &scratch);
	/* Work deferred to the next entry or access (an overflow's status, a
	 * cascade started, an HT sibling's write) may write host registers: take
	 * it in first, as the VMM's entry would, so the read alone is checked. */
	vpmu_vcpu_enter(v);
	uint64_t hw = host_writes(w), val = 0;
	enum vpmu_fault f;
	CHECK(vpmu_reg_read(v, r->space, r->addr, &val, &f) == 0, "read rc");
	bool owned = vpmu_vm_owns_reg(fv->vm, r->space, r->addr);
	CHECK(owned || f == VPMU_FAULT_NO_REG, "read of unowned %#x gave fault %s", r->addr,
	      vpmu_fault_name(f));
	CHECK(f == VPMU_FAULT_NONE || (f == VPMU_FAULT_NO_REG && val == 0),
	      "read of %#x gave fault %s with value %#llx", r->addr, vpmu_fault_name(f),
	      (unsigned long long)val);
	CHECK(host_writes(w) == hw, "a read wrote host registers");
}

static void op_switch_in(struct world *w, struct vpmu_vcpu *v, struct input *in)
{
	unsigned cpu = take8(in) % (NR_HOST_CPUS + 1); /* one past the end: -EINVAL */
	bool running = vpmu_vcpu_running(v, NULL);
	int rc = vpmu_vcpu_switch_in(v, cpu);
	if (cpu >= NR_HOST_CPUS)
		CHECK(rc == -EINVAL, "switch-in on host CPU %u: rc %d", cpu, rc);
	else if (running || w->on_cpu[cpu])
		CHECK(rc == -EBUSY, "switch-in busy: rc %d", rc);
	else {
		CHECK(rc == 0, "switch-in: rc %d", rc);
		w->on_cpu[cpu] = v;
		w->ticked[cpu] = 0;
	}
}

static void op_switch_out(struct world *w, struct vpmu_vcpu *v)
{
	unsigned cpu;
	bool running = vpmu_vcpu_running(v, &cpu);
	int rc = vpmu_vcpu_switch_out(v);
	CHECK(rc == (running ? 0 : -EINVAL), "switch-out: rc %d (running %d)", rc, running);
	if (running)
		w->on_cpu[cpu] = NULL;
}

static void op_tick(struct world *w, struct input *in)
{
	unsigned cpu = take8(in) % NR_HOST_CPUS;
	uint8_t e = take8(in);
	int ev = e < 240 ? e % VPMU_EV_NR : (int)e;   /* some out-of-range events */
	enum vpmu_mode mode = (take8(in) & 1) ? VPMU_MODE_KERNEL : VPMU_MODE_USER;
	uint64_t count = take_bytes(in, 1 + take8(in) % 4);
	uint64_t left = TICK_BUDGET - w->ticked[cpu];
	if (count > left)
		count = left;
	w->ticked[cpu] += count;

	struct snap *before[MAX_VMS];
	bool keep[MAX_VMS][MAX_VCPUS];
	for (unsigned i = 0; i < w->nvms; i++) {
		before[i] = snapshot_vm(&w->vms[i]);
		for (unsigned k = 0; k < w->vms[i].nvcpus; k++)
			keep[i][k] = w->vms[i].vcpu[k] != w->on_cpu[cpu];
	}
	uint64_t hw = host_writes(w);
	int rc = vpmu_sim_tick(w->sim, cpu, (enum vpmu_event)ev, count, mode);
	CHECK(rc == (ev < VPMU_EV_NR ? 0 : -EINVAL), "tick rc %d for event %d", rc, ev);
	CHECK(host_writes(w) == hw, "a tick wrote host registers");
	for (unsigned i = 0; i < w->nvms; i++) {
		compare_vm(&w->vms[i], before[i], keep[i], "tick on another host CPU");
		free(before[i]);
	}
}

static void op_pmi_ack(struct vpmu_vcpu *v)
{
	uint64_t mask = 0;
	bool pending = vpmu_vcpu_pmi_pending(v, &mask);
	uint64_t acked = vpmu_vcpu_pmi_ack(v);
	CHECK(acked == mask, "ack returned %#llx, pending mask was %#llx",
	      (unsigned long long)acked, (unsigned long long)mask);
	CHECK(!pending || mask, "PMI pending with an empty overflow mask");
	CHECK(!vpmu_vcpu_pmi_pending(v, &mask) && mask == 0, "PMI still pending after ack");
}

/* ---------------------------------------------------------------- setup */

static void vm_setup(struct world *w, struct fvm *fv, struct input *in)
{
	struct vpmu_vm_config cfg;
	fuzz_vm_create(w->host, in, &fv->vm, &cfg);
	unsigned nmsr = vpmu_vm_regs(fv->vm, VPMU_SPACE_MSR, NULL, 0);
	unsigned nspr = vpmu_vm_regs(fv->vm, VPMU_SPACE_SPR, NULL, 0);
	unsigned ncsr = vpmu_vm_regs(fv->vm, VPMU_SPACE_CSR, NULL, 0);
	fv->nregs = nmsr + nspr + ncsr;
	/* Only "generic" and "ppc-generic" (a TSC or a time base and no
	 * counters) own no register. */
	CHECK(fv->nregs > 0 || strcmp(cfg.model, "generic") == 0 ||
	      strcmp(cfg.model, "ppc-generic") == 0, "model %s owns no registers", cfg.model);
	fv->regs = calloc(fv->nregs + 1, sizeof(*fv->regs));
	uint32_t *addr = calloc(fv->nregs + 1, sizeof(*addr));
	CHECK(fv->regs && addr, "out of memory");
	CHECK(vpmu_vm_regs(fv->vm, VPMU_SPACE_MSR, addr, nmsr) == nmsr, "regs count");
	CHECK(vpmu_vm_regs(fv->vm, VPMU_SPACE_SPR, addr + nmsr, nspr) == nspr, "regs count");
	CHECK(vpmu_vm_regs(fv->vm, VPMU_SPACE_CSR, addr + nmsr + nspr, ncsr) == ncsr, "regs count");
	for (unsigned i = 0; i < fv->nregs; i++) {
		fv->regs[i].space = i < nmsr ? VPMU_SPACE_MSR
				    : i < nmsr + nspr ? VPMU_SPACE_SPR : VPMU_SPACE_CSR;
		fv->regs[i].addr = addr[i];
		CHECK(vpmu_vm_owns_reg(fv->vm, fv->regs[i].space, addr[i]),
		      "%s lists %#x but does not own it", cfg.model, addr[i]);
	}
	free(addr);
	fv->nvcpus = 1 + take8(in) % MAX_VCPUS;
	for (unsigned k = 0; k < fv->nvcpus; k++)
		CHECK(vpmu_vcpu_create(fv->vm, k, &fv->vcpu[k]) == 0, "vcpu create");
	CHECK(vpmu_vcpu_create(fv->vm, 0, NULL) == -EEXIST, "duplicate vCPU accepted");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct world w;
	memset(&w, 0, sizeof(w));
	fuzz_sim_host(NR_HOST_CPUS, &w.sim, &w.host);

	w.nvms = 1 + take8(&in) % MAX_VMS;
	for (unsigned i = 0; i < w.nvms; i++)
		vm_setup(&w, &w.vms[i], &in);

	for (unsigned nops = 0; in.n && nops < MAX_OPS; nops++) {
		uint8_t op = take8(&in);
		struct fvm *fv = &w.vms[take8(&in) % w.nvms];
		struct vpmu_vcpu *v = fv->vcpu[take8(&in) % fv->nvcpus];
		switch (op % 12) {
		case 0: case 1: case 2: op_write(&w, fv, v, &in, false); break;
		case 3: op_write(&w, fv, v, &in, true); break;
		case 4: case 5: op_read(&w, fv, v, &in); break;
		case 6: case 7: op_switch_in(&w, v, &in); break;
		case 8: op_switch_out(&w, v); break;
		case 9: case 10: op_tick(&w, &in); break;
		default: op_pmi_ack(v); break;
		}
		for (unsigned i = 0; i < w.nvms; i++)
			check_totals_monotonic(&w.vms[i]);
		for (unsigned cpu = 0; cpu < NR_HOST_CPUS; cpu++) {
			unsigned where;
			CHECK(!w.on_cpu[cpu] || (vpmu_vcpu_running(w.on_cpu[cpu], &where) && where == cpu),
			      "vCPU not running where it was switched in");
		}
	}

	for (unsigned i = 0; i < w.nvms; i++) {
		vpmu_vm_destroy(w.vms[i].vm);
		free(w.vms[i].regs);
	}
	vpmu_host_destroy(w.host);
	vpmu_sim_destroy(w.sim);
	return 0;
}
