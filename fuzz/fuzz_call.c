/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the call-shaped entry point vpmu_call() (the RISC-V SBI PMU
 * extension; vpmu.h), with fuzzed function ids and arguments, on VMs of every
 * registered model (most answer VPMU_SBI_ERR_NOT_SUPPORTED), interleaved with
 * guest register writes, counter ticks and switches.  Invariants (abort()):
 *   - vpmu_call returns 0, or -EINVAL for a NULL vCPU, args or out, and then
 *     changes nothing (out, accounting);
 *   - out.error is one of the VPMU_SBI_* codes; out.value is 0 when out.error
 *     is not SUCCESS; a model without calls answers NOT_SUPPORTED;
 *   - a refused call (error != SUCCESS) changes no register of any vCPU of any
 *     VM (host view, vpmu_reg_get) and writes no host register;
 *   - each call counts once in totals.calls (the vCPU's at once, the VM's at
 *     the end) and in no other guest access counter; a refusal records no rule
 *     violation, and strict_refusals grows only for DENIED in strict mode;
 *   - args are not written; totals never decrease (checked around calls).
 * ASan/UBSan/LSan catch crashes, undefined behaviour and leaks.
 *
 * Input layout: a header (number of VMs; per VM: model, options, number of
 * vCPUs), then one operation per leading byte until the input ends.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

#define FUZZ_NAME "fuzz_call"
#include "fuzz_input.h"
#include "fuzz_world.h"

#define NR_HOST_CPUS 2
#define MAX_VMS 2
#define MAX_VCPUS 2
#define MAX_OPS 64
#define MAX_SNAP 512      /* registers of all vCPUs of all VMs (P4: 2 x 2 x ~90) */
#define MAX_TICK 0xffffu   /* events per tick: far from the 2^32 sampling contract */

struct fvm {
	struct vpmu_vm *vm;
	const char *model;
	bool calls;                 /* the model is reached by calls */
	bool strict, ht;
	enum vpmu_regspace space;
	unsigned nregs;
	uint32_t *regs;
	unsigned nvcpus;
	struct vpmu_vcpu *vcpu[MAX_VCPUS];
	struct vpmu_totals last[MAX_VCPUS];
	uint64_t ncalls;            /* calls made (vpmu_call returned 0) */
	uint8_t *ram;               /* models with calls: FUZZ_RAM_SIZE at FUZZ_RAM_BASE */
};

/* Guest memory for the models that share memory with their guest (the SBI
 * PMU's snapshot and event_get_info table): small, so that fuzzed addresses
 * land in it and around it. */
#define FUZZ_RAM_BASE 0x80000000ull
#define FUZZ_RAM_SIZE 0x2000u
static bool ram_range(uint64_t gpa, size_t len)
{
	return gpa >= FUZZ_RAM_BASE && len <= FUZZ_RAM_SIZE && gpa - FUZZ_RAM_BASE <= FUZZ_RAM_SIZE - len;
}
static int ram_read(void *opaque, uint64_t gpa, void *buf, size_t len)
{
	if (!ram_range(gpa, len))
		return -EFAULT;
	memcpy(buf, (uint8_t *)opaque + (gpa - FUZZ_RAM_BASE), len);
	return 0;
}
static int ram_write(void *opaque, uint64_t gpa, const void *buf, size_t len)
{
	if (!ram_range(gpa, len))
		return -EFAULT;
	memcpy((uint8_t *)opaque + (gpa - FUZZ_RAM_BASE), buf, len);
	return 0;
}

struct world {
	struct vpmu_sim *sim;
	struct vpmu_host *host;
	struct fvm vms[MAX_VMS];
	unsigned nvms;
	struct vpmu_vcpu *on_cpu[NR_HOST_CPUS];
};

static uint64_t host_writes(const struct world *w)
{
	return vpmu_sim_ctrl_writes(w->sim) + vpmu_sim_ctr_writes(w->sim);
}

/* Every register of every vCPU of every VM, host view: a flat array of (rc, value). */
NO_COVERAGE static unsigned nsnap(const struct world *w)
{
	unsigned n = 0;
	for (unsigned i = 0; i < w->nvms; i++)
		n += w->vms[i].nvcpus * w->vms[i].nregs;
	return n;
}

NO_COVERAGE static void snapshot(const struct world *w, int64_t *out)
{
	unsigned n = 0;
	for (unsigned i = 0; i < w->nvms; i++) {
		const struct fvm *fv = &w->vms[i];
		for (unsigned k = 0; k < fv->nvcpus; k++)
			for (unsigned r = 0; r < fv->nregs; r++, n++) {
				uint64_t val = 0;
				int rc = vpmu_reg_get(fv->vcpu[k], fv->space, fv->regs[r], &val);
				out[2 * n] = rc;
				out[2 * n + 1] = (int64_t)val;
			}
	}
}

NO_COVERAGE static void compare(const struct world *w, const int64_t *before, const int64_t *after,
		    unsigned long fid, long error)
{
	unsigned n = 0;
	for (unsigned i = 0; i < w->nvms; i++) {
		const struct fvm *fv = &w->vms[i];
		for (unsigned k = 0; k < fv->nvcpus; k++)
			for (unsigned r = 0; r < fv->nregs; r++, n++)
				CHECK(before[2 * n] == after[2 * n] && before[2 * n + 1] == after[2 * n + 1],
				      "call %#lx refused (%ld) but %s vCPU %u register %#x changed: "
				      "%#llx -> %#llx", fid, error, fv->model, k, fv->regs[r],
				      (unsigned long long)before[2 * n + 1],
				      (unsigned long long)after[2 * n + 1]);
	}
}

static void totals_of(struct vpmu_vcpu *v, struct vpmu_totals *t)
{
	CHECK(vpmu_vcpu_totals(v, t) == 0, "totals");
}

NO_COVERAGE static void check_monotonic(struct fvm *fv)
{
	for (unsigned k = 0; k < fv->nvcpus; k++) {
		struct vpmu_totals t;
		totals_of(fv->vcpu[k], &t);
		const char *f = totals_decreased(&fv->last[k], &t);
		CHECK(!f, "%s vCPU %u totals: %s decreased", fv->model, k, f);
		fv->last[k] = t;
	}
}

/* ---------------------------------------------------------------- choices */

static unsigned long pick_fid(struct input *in)
{
	uint8_t sel = take8(in);
	if (sel < 192)
		return sel % 12;                       /* the SBI PMU FIDs 0..8 and a few more */
	if (sel < 240)
		return (unsigned long)take_bytes(in, 2);
	return (unsigned long)take_bytes(in, 8);
}

static uint64_t pick_arg(struct input *in)
{
	switch (take8(in) % 9) {
	case 0: return 0;
	case 1: return take8(in) % 8;             /* counter indices, small masks */
	case 2: return take_bytes(in, 1);
	case 3: return take_bytes(in, 4);
	case 4: return take_bytes(in, 8);
	case 5: return ~0ull;
	case 6: return 1ull << (take8(in) & 63);
	case 7: if (take8(in) & 1)              /* guest memory, aligned or not */
			return FUZZ_RAM_BASE + (take_bytes(in, 2) & 0x3FF0) - (take8(in) & 1 ? 0 : 8);
		/* fall through */
	default: return (uint64_t)-(int64_t)(take_bytes(in, 2) + 1);
	}
}

/* ---------------------------------------------------------------- operations */

static bool valid_sbi_error(long e)
{
	return e <= VPMU_SBI_SUCCESS && e >= VPMU_SBI_ERR_NO_SHMEM;
}

static void op_call(struct world *w, struct fvm *fv, unsigned k, struct input *in)
{
	struct vpmu_vcpu *v = fv->vcpu[k];
	unsigned long fid = pick_fid(in);
	uint64_t args[VPMU_CALL_ARGS], copy[VPMU_CALL_ARGS];
	unsigned nargs = take8(in) % (VPMU_CALL_ARGS + 1);
	for (unsigned i = 0; i < VPMU_CALL_ARGS; i++)
		args[i] = i < nargs ? pick_arg(in) : 0;
	memcpy(copy, args, sizeof(args));

	int64_t before[2 * MAX_SNAP], after[2 * MAX_SNAP];
	CHECK(nsnap(w) <= MAX_SNAP, "%u registers: raise MAX_SNAP", nsnap(w));
	snapshot(w, before);
	struct vpmu_totals t0, t1;
	totals_of(v, &t0);
	uint64_t hw = host_writes(w);

	static uint8_t ram_before[FUZZ_RAM_SIZE];
	if (fv->ram)
		memcpy(ram_before, fv->ram, FUZZ_RAM_SIZE);
	struct vpmu_call_result out = { 0x5a5a5a5a, 0xa5a5a5a5a5a5a5a5ull };
	int rc = vpmu_call(v, fid, args, &out);
	CHECK(rc == 0, "call %#lx on %s: rc %d", fid, fv->model, rc);
	CHECK(valid_sbi_error(out.error), "call %#lx on %s: error %ld is no SBI error code", fid,
	      fv->model, out.error);
	CHECK(out.error == VPMU_SBI_SUCCESS || out.value == 0,
	      "call %#lx on %s: error %ld with value %#llx", fid, fv->model, out.error,
	      (unsigned long long)out.value);
	CHECK(fv->calls || out.error == VPMU_SBI_ERR_NOT_SUPPORTED,
	      "call %#lx on %s (no calls): error %ld, not NOT_SUPPORTED", fid, fv->model, out.error);
	CHECK(memcmp(args, copy, sizeof(args)) == 0, "call %#lx on %s wrote its args", fid,
	      fv->model);

	totals_of(v, &t1);
	CHECK(t1.calls == t0.calls + 1, "call on %s: calls %llu -> %llu", fv->model,
	      (unsigned long long)t0.calls, (unsigned long long)t1.calls);
	fv->ncalls++;
	CHECK(t1.reads == t0.reads && t1.writes == t0.writes && t1.faults == t0.faults,
	      "a call on %s counted as a register access", fv->model);
	bool denied = out.error == VPMU_SBI_ERR_DENIED && fv->strict;
	CHECK(t1.strict_refusals == t0.strict_refusals ||
	      (denied && t1.strict_refusals == t0.strict_refusals + 1),
	      "call on %s: strict_refusals %llu -> %llu with error %ld", fv->model,
	      (unsigned long long)t0.strict_refusals, (unsigned long long)t1.strict_refusals,
	      out.error);
	/* ALREADY_STARTED and ALREADY_STOPPED report part of a start or stop:
	 * the rest of the set is done (vpmu_call). */
	bool partial = out.error == VPMU_SBI_ERR_ALREADY_STARTED ||
		       out.error == VPMU_SBI_ERR_ALREADY_STOPPED;
	if (out.error != VPMU_SBI_SUCCESS && !partial) {
		/* Strict mode's refusal counts the rule it refused for (as a
		 * refused write does); any other refusal counts none. */
		bool counted = memcmp(t0.violations, t1.violations, sizeof(t0.violations)) != 0;
		CHECK(counted == denied, "refused call %#lx on %s (error %ld) %s a rule violation",
		      fid, fv->model, out.error, counted ? "recorded" : "did not record");
		snapshot(w, after);
		compare(w, before, after, fid, out.error);
		CHECK(!fv->ram || memcmp(fv->ram, ram_before, FUZZ_RAM_SIZE) == 0,
		      "refused call %#lx on %s (error %ld) wrote guest memory", fid, fv->model, out.error);
		/* An HT sibling may re-derive a stale control at the access: not a change. */
		if (!fv->ht)
			CHECK(host_writes(w) == hw, "refused call %#lx on %s wrote host registers", fid,
			      fv->model);
	}
	if (!fv->calls) {
		/* Nothing but the call count moves. */
		t0.calls++;
		CHECK(memcmp(&t0, &t1, sizeof(t0)) == 0, "unsupported call on %s changed the totals",
		      fv->model);
	}
}

static void op_bad_call(struct world *w, struct fvm *fv, unsigned k, struct input *in)
{
	struct vpmu_vcpu *v = fv->vcpu[k];
	uint64_t args[VPMU_CALL_ARGS] = { 0 };
	struct vpmu_call_result out = { 0x5a5a5a5a, 0xa5a5a5a5a5a5a5a5ull };
	struct vpmu_totals t0, t1;
	totals_of(v, &t0);
	uint64_t hw = host_writes(w);
	unsigned long fid = pick_fid(in);
	int rc;
	switch (take8(in) % 3) {
	case 0: rc = vpmu_call(NULL, fid, args, &out); break;
	case 1: rc = vpmu_call(v, fid, NULL, &out); break;
	default: rc = vpmu_call(v, fid, args, NULL); break;
	}
	CHECK(rc == -EINVAL, "call with a NULL argument: rc %d", rc);
	CHECK(out.error == 0x5a5a5a5a && out.value == 0xa5a5a5a5a5a5a5a5ull,
	      "a call refused with -EINVAL wrote out");
	totals_of(v, &t1);
	CHECK(memcmp(&t0, &t1, sizeof(t0)) == 0, "a call refused with -EINVAL changed the totals");
	CHECK(host_writes(w) == hw, "a call refused with -EINVAL wrote host registers");
}

static uint64_t pick_value(struct input *in)
{
	switch (take8(in) % 6) {
	case 0: return 0;
	case 1: return take_bytes(in, 3);
	case 2: return take_bytes(in, 3) | 0x430000;   /* EN|OS|USR on P6/K7 layouts */
	case 3: return take_bytes(in, 8);
	case 4: return (uint64_t)-(int64_t)(take_bytes(in, 2) + 1);
	default: return ~0ull;
	}
}

static void op_write(struct fvm *fv, unsigned k, struct input *in)
{
	if (!fv->nregs)
		return;
	uint32_t reg = fv->regs[take8(in) % fv->nregs];
	enum vpmu_fault f;
	CHECK(vpmu_reg_write(fv->vcpu[k], fv->space, reg, pick_value(in), &f) == 0, "write rc");
}

static void op_switch(struct world *w, struct fvm *fv, unsigned k, struct input *in)
{
	struct vpmu_vcpu *v = fv->vcpu[k];
	unsigned cpu;
	if (vpmu_vcpu_running(v, &cpu)) {
		CHECK(vpmu_vcpu_switch_out(v) == 0, "switch-out");
		w->on_cpu[cpu] = NULL;
		return;
	}
	cpu = take8(in) % NR_HOST_CPUS;
	int rc = vpmu_vcpu_switch_in(v, cpu);
	CHECK(rc == (w->on_cpu[cpu] ? -EBUSY : 0), "switch-in: rc %d", rc);
	if (!rc)
		w->on_cpu[cpu] = v;
}

static void op_tick(struct world *w, struct input *in)
{
	unsigned cpu = take8(in) % NR_HOST_CPUS;
	enum vpmu_event ev = (enum vpmu_event)(take8(in) % VPMU_EV_NR);
	enum vpmu_mode mode = (take8(in) & 1) ? VPMU_MODE_KERNEL : VPMU_MODE_USER;
	CHECK(vpmu_sim_tick(w->sim, cpu, ev, take_bytes(in, 2) & MAX_TICK, mode) == 0, "tick");
}

/* ---------------------------------------------------------------- setup */

static void vm_setup(struct world *w, struct fvm *fv, struct input *in)
{
	struct vpmu_vm_config cfg;
	fuzz_vm_create(w->host, in, &fv->vm, &cfg);
	struct vpmu_model_info info;
	CHECK(vpmu_model_info(cfg.model, &info) == 0, "model info");
	fv->model = cfg.model;
	fv->calls = info.calls;
	fv->strict = cfg.flags & VPMU_VM_STRICT;
	fv->ht = cfg.ht;
	fv->space = info.regspace;
	fv->nregs = vpmu_vm_regs(fv->vm, info.regspace, NULL, 0);
	fv->regs = calloc(fv->nregs + 1, sizeof(*fv->regs));
	CHECK(fv->regs, "out of memory");
	vpmu_vm_regs(fv->vm, info.regspace, fv->regs, fv->nregs);
	if (fv->calls) {
		fv->ram = calloc(1, FUZZ_RAM_SIZE);
		CHECK(fv->ram, "out of memory");
		struct vpmu_guest_memory mem = { ram_read, ram_write, fv->ram };
		CHECK(vpmu_vm_set_guest_memory(fv->vm, &mem) == 0, "guest memory");
	}
	fv->nvcpus = 1 + take8(in) % MAX_VCPUS;
	for (unsigned k = 0; k < fv->nvcpus; k++)
		CHECK(vpmu_vcpu_create(fv->vm, k, &fv->vcpu[k]) == 0, "vcpu create");
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
		unsigned k = take8(&in) % fv->nvcpus;
		switch (op % 10) {
		case 0: case 1: case 2: case 3: op_call(&w, fv, k, &in); break;
		case 4: op_bad_call(&w, fv, k, &in); break;
		case 5: case 6: op_write(fv, k, &in); break;
		case 7: op_switch(&w, fv, k, &in); break;
		case 8: op_tick(&w, &in); break;
		default: vpmu_vcpu_pmi_ack(fv->vcpu[k]); break;
		}
		if (op % 10 < 5)
			check_monotonic(fv);
	}
	for (unsigned i = 0; i < w.nvms; i++)
		check_monotonic(&w.vms[i]);

	for (unsigned i = 0; i < w.nvms; i++) {
		struct vpmu_totals t;
		CHECK(vpmu_vm_totals(w.vms[i].vm, &t) == 0, "vm totals");
		CHECK(t.calls == w.vms[i].ncalls, "%s: VM totals count %llu calls, %llu were made",
		      w.vms[i].model, (unsigned long long)t.calls,
		      (unsigned long long)w.vms[i].ncalls);
		CHECK(vpmu_vm_destroy(w.vms[i].vm) == 0, "vm destroy");
		free(w.vms[i].ram);
		free(w.vms[i].regs);
	}
	CHECK(vpmu_host_destroy(w.host) == 0, "host destroy");
	vpmu_sim_destroy(w.sim);
	return 0;
}
