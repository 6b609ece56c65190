/* SPDX-License-Identifier: MIT */
/*
 * Core API and caching rules, through the public API with the sim backend and
 * the P6 model.  Expected host write counts follow perfctr's caching (low-level-x86.txt
 * "Caching"; x86.c p6_like_*): cache all-ones at reserve, write_control writes images
 * that differ, isuspend writes 0 to each i-mode control, iresume zeroes an
 * i-mode control unless the cache shows 0 and then restores the counter.  And
 * vpmu_vcpu_reset on an architectural-perfmon model (test_reset).
 */
#include <errno.h>
#include <string.h>

#include "guest_msr.h"
#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/perfctr.h"
#include "vpmu/vpmu.h"

#define EVNTSEL0 0x186
#define EVNTSEL1 0x187
#define PERFCTR0 0xC1
#define PERFCTR1 0xC2
/* EN | OS | USR | INST_RETIRED: an a-mode counter (no INT). */
#define AMODE_INSTR 0x4300C0
/* EN | INT | OS | USR | CPU_CLK_UNHALTED: Linux's P6 cycles sampling (events/intel/p6.c). */
#define IMODE_CYCLES 0x530079

static struct vpmu_sim *sim;
static struct vpmu_host *host;
static uint64_t ctrl_mark, ctr_mark;

static uint64_t ctrl_writes(void)
{
	uint64_t n = vpmu_sim_ctrl_writes(sim) - ctrl_mark;
	ctrl_mark = vpmu_sim_ctrl_writes(sim);
	return n;
}

static uint64_t ctr_writes(void)
{
	uint64_t n = vpmu_sim_ctr_writes(sim) - ctr_mark;
	ctr_mark = vpmu_sim_ctr_writes(sim);
	return n;
}

static struct vpmu_vm *new_vm(unsigned flags)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	cfg.model = "p6";
	cfg.flags = flags;
	if (vpmu_vm_create(host, &cfg, &vm))
		return NULL;
	return vm;
}

static void test_argument_errors(void)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	struct vpmu_vcpu *v;
	cfg.model = "no-such-cpu";
	ok(vpmu_vm_create(host, &cfg, &vm) == -ENOENT && !vm, "unknown model: -ENOENT, nothing created");
	cfg.model = "p6";
	cfg.flags = 0x80;
	ok(vpmu_vm_create(host, &cfg, &vm) == -EINVAL, "unknown flag: -EINVAL");
	cfg.flags = 0;
	cfg.ht = 1;
	ok(vpmu_vm_create(host, &cfg, &vm) == -EINVAL, "hyper-threading on a P6: -EINVAL");
	cfg.ht = 0;
	cfg.stepping = 16;
	ok(vpmu_vm_create(host, &cfg, &vm) == -EINVAL, "stepping 16: -EINVAL");
	ok(vpmu_vm_create(NULL, &cfg, &vm) == -EINVAL, "no host: -EINVAL");

	vm = new_vm(0);
	ok(vm != NULL, "p6 VM created");
	ok(vpmu_vcpu_create(vm, 0, &v) == 0, "vCPU 0 created");
	ok(vpmu_vcpu_create(vm, 0, NULL) == -EEXIST, "vCPU 0 again: -EEXIST");
	ok(vpmu_vcpu_create(vm, VPMU_MAX_VCPUS, NULL) == -EINVAL, "vCPU index out of range: -EINVAL");
	ok(vpmu_vcpu_switch_out(v) == -EINVAL, "switch-out of a vCPU not switched in: -EINVAL");
	ok(vpmu_vcpu_switch_in(v, VPMU_MAX_HOST_CPUS) == -EINVAL, "host CPU out of range: -EINVAL");
	ok(vpmu_vcpu_switch_in(v, 3) == 0, "switch-in on CPU 3");
	ok(vpmu_vcpu_switch_in(v, 4) == -EBUSY, "switch-in while switched in: -EBUSY");
	struct vpmu_vcpu *w;
	vpmu_vcpu_create(vm, 1, &w);
	ok(vpmu_vcpu_switch_in(w, 3) == -EBUSY, "a second vCPU on a busy host CPU: -EBUSY");
	enum vpmu_fault f;
	ok(vpmu_reg_write(v, VPMU_SPACE_MSR, EVNTSEL0, 0, NULL) == -EINVAL, "write without fault pointer: -EINVAL");
	ok(vpmu_reg_write(v, VPMU_SPACE_MSR, 0x10, 0, &f) == 0 && f == VPMU_FAULT_NO_REG,
	   "write to an MSR the model does not own: #GP (no-such-register)");
	uint32_t regs[8];
	ok(vpmu_vm_regs(vm, VPMU_SPACE_MSR, regs, 8) == 5 && regs[0] == PERFCTR0 && regs[3] == EVNTSEL1 &&
	   regs[4] == 0x1A0,
	   "P6 owns 5 MSRs (IA32_MISC_ENABLE last), listed in order");
	ok(vpmu_vm_owns_reg(vm, VPMU_SPACE_MSR, EVNTSEL1) && !vpmu_vm_owns_reg(vm, VPMU_SPACE_MSR, 0x188),
	   "owns EVNTSEL1, not 0x188");
	ok(vpmu_vm_regs(vm, VPMU_SPACE_SPR, NULL, 0) == 0, "P6 owns no SPR");
	vpmu_vm_destroy(vm); /* switches v out: the host CPU is free again */
	vm = new_vm(0);
	vpmu_vcpu_create(vm, 0, &v);
	ok(vpmu_vcpu_switch_in(v, 3) == 0, "destroying a VM switched its vCPU out of the host CPU");
	vpmu_vm_destroy(vm);
}

static void test_amode_cache_hit(void)
{
	struct vpmu_vm *vm = new_vm(0);
	struct vpmu_vcpu *v;
	vpmu_vcpu_create(vm, 0, &v);
	vpmu_vcpu_switch_in(v, 0);
	ctrl_writes(), ctr_writes();
	ok(wr(v, EVNTSEL0, AMODE_INSTR) == VPMU_FAULT_NONE, "a-mode EVNTSEL0 accepted");
	/* EVNTSEL1 = 0 selects no privilege: counter 1 is not in the control. */
	is_u64(ctrl_writes(), 1, "loading a-mode control: one EVNTSEL write");
	is_u64(ctr_writes(), 0, "a-mode: no counter write (accumulate differences)");
	vpmu_sim_tick(sim, 0, VPMU_EV_INSTRUCTIONS, 1000, VPMU_MODE_USER);
	vpmu_sim_tick(sim, 0, VPMU_EV_INSTRUCTIONS, 24, VPMU_MODE_KERNEL);
	vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 77, VPMU_MODE_USER);
	is_u64(rd(v, PERFCTR0), 1024, "counter 0 counts instructions at both CPLs, not cycles");
	vpmu_vcpu_switch_out(v);
	vpmu_sim_tick(sim, 0, VPMU_EV_INSTRUCTIONS, 500, VPMU_MODE_USER);
	vpmu_vcpu_switch_in(v, 0);
	is_u64(ctrl_writes() + ctr_writes(), 0, "switch pair on the same CPU (cache hit): zero host writes");
	is_u64(rd(v, PERFCTR0), 1024, "events on the host while switched out are not the guest's");
	struct vpmu_totals t;
	vpmu_vcpu_totals(v, &t);
	is_u64(t.cache_hits, 1, "one cache hit accounted");
	is_u64(t.pmc[0], 1024, "totals: counter 0 counted 1024");
	is_u64(t.events[VPMU_EV_INSTRUCTIONS], 1024, "totals: 1024 instructions");
	ok(wr(v, PERFCTR0, 5) == VPMU_FAULT_NONE, "guest writes counter 0");
	is_u64(ctr_writes(), 0, "a-mode counter write: no host write");
	vpmu_sim_tick(sim, 0, VPMU_EV_INSTRUCTIONS, 10, VPMU_MODE_USER);
	is_u64(rd(v, PERFCTR0), 15, "counter continues from the written value");
	vpmu_vcpu_totals(v, &t);
	is_u64(t.pmc[0], 1034, "totals are unaffected by the guest's counter write");
	vpmu_vm_destroy(vm);
}

static void test_shared_ids(void)
{
	struct vpmu_vm *a = new_vm(0), *b = new_vm(0);
	struct vpmu_vcpu *a0, *a1, *b0;
	vpmu_vcpu_create(a, 0, &a0);
	vpmu_vcpu_create(a, 1, &a1);
	vpmu_vcpu_create(b, 0, &b0);
	struct vpmu_vcpu *all[3] = { a0, a1, b0 };
	for (int i = 0; i < 3; i++) {
		vpmu_vcpu_switch_in(all[i], 1);
		wr(all[i], EVNTSEL0, AMODE_INSTR);
		vpmu_vcpu_switch_out(all[i]);
	}
	ok(vpmu_vcpu_control_id(a0) == vpmu_vcpu_control_id(a1), "equal controls in one VM: equal ids");
	ok(vpmu_vcpu_control_id(a0) != vpmu_vcpu_control_id(b0), "equal controls in two VMs: different ids");
	ctrl_writes(), ctr_writes();
	vpmu_vcpu_switch_in(a0, 1);
	vpmu_sim_tick(sim, 1, VPMU_EV_INSTRUCTIONS, 100, VPMU_MODE_USER);
	vpmu_vcpu_switch_out(a0);
	vpmu_vcpu_switch_in(a1, 1);
	vpmu_sim_tick(sim, 1, VPMU_EV_INSTRUCTIONS, 50, VPMU_MODE_USER);
	vpmu_vcpu_switch_out(a1);
	vpmu_vcpu_switch_in(b0, 1);
	vpmu_sim_tick(sim, 1, VPMU_EV_INSTRUCTIONS, 7, VPMU_MODE_USER);
	/* b0's id differs, but write_control compares each image with the cache. */
	is_u64(ctrl_writes() + ctr_writes(), 0, "equal images on one CPU: zero writes even on an id miss");
	is_u64(rd(b0, PERFCTR0), 7, "VM b's vCPU counted only its own events");
	vpmu_vcpu_switch_out(b0);
	vpmu_vcpu_switch_in(a0, 1);
	vpmu_vcpu_switch_in(a1, 2);
	is_u64(rd(a0, PERFCTR0), 100, "a0: its own 100 events (accumulate differences on a shared counter)");
	is_u64(rd(a1, PERFCTR0), 50, "a1: its own 50 events");
	struct vpmu_totals t;
	vpmu_vm_totals(a, &t);
	is_u64(t.pmc[0], 150, "per-VM totals sum the vCPUs");
	vpmu_vm_destroy(a);
	vpmu_vm_destroy(b);
}

static void test_imode_suspend_resume(void)
{
	struct vpmu_vm *vm = new_vm(0);
	struct vpmu_vcpu *v, *w;
	vpmu_vcpu_create(vm, 0, &v);
	vpmu_vcpu_create(vm, 1, &w);
	vpmu_vcpu_switch_in(v, 5);
	wr(v, PERFCTR0, (uint64_t)-100);
	ctrl_writes(), ctr_writes();
	wr(v, EVNTSEL0, IMODE_CYCLES);
	/* iresume: cache all-ones -> zero the control, restore the counter; then load. */
	is_u64(ctrl_writes(), 2, "i-mode load: stop + EVNTSEL0");
	is_u64(ctr_writes(), 1, "i-mode load: counter restored to its start value");
	vpmu_sim_tick(sim, 5, VPMU_EV_CYCLES, 60, VPMU_MODE_KERNEL);
	vpmu_vcpu_switch_out(v);
	is_u64(ctrl_writes(), 1, "i-mode suspend: one control write (stop)");
	vpmu_sim_tick(sim, 5, VPMU_EV_CYCLES, 1000, VPMU_MODE_KERNEL);
	vpmu_vcpu_switch_in(v, 5);
	is_u64(ctrl_writes(), 1, "resume on the suspend CPU: one control write (restart)");
	is_u64(ctr_writes(), 0, "resume on the suspend CPU: counter still valid, no write");
	ok(!vpmu_vcpu_pmi_pending(v, NULL), "stopped counter did not overflow while switched out");
	vpmu_sim_tick(sim, 5, VPMU_EV_CYCLES, 40, VPMU_MODE_USER);
	uint64_t mask = 0;
	ok(vpmu_vcpu_pmi_pending(v, &mask) && mask == 1, "overflow after 100 cycles: PMI pending, mask bit 0");
	is_u64(vpmu_vcpu_pmi_ack(v), 1, "ack returns the overflow mask");
	ok(!vpmu_vcpu_pmi_pending(v, NULL), "ack clears the pending PMI");
	is_u64(rd(v, PERFCTR0), 0, "counter wrapped to zero and keeps counting");

	/* w: the same control (same VM, same start value) shares the id, but the
	 * counter registers on CPU 5 hold v's count: they must be restored. */
	vpmu_vcpu_switch_out(v);
	vpmu_vcpu_switch_in(w, 6);
	wr(w, PERFCTR0, (uint64_t)-100);
	wr(w, EVNTSEL0, IMODE_CYCLES);
	vpmu_vcpu_switch_out(w);
	ok(vpmu_vcpu_control_id(v) == vpmu_vcpu_control_id(w), "same control, same VM: shared id");
	ctrl_writes(), ctr_writes();
	vpmu_vcpu_switch_in(w, 5);
	is_u64(ctr_writes(), 1, "shared id, other owner on this CPU: counter restored");
	is_u64(rd(w, PERFCTR0), 0xFFFFFFFF9Cull, "w reads its own value, not v's");
	vpmu_sim_tick(sim, 5, VPMU_EV_CYCLES, 100, VPMU_MODE_USER);
	uint64_t wm = 0, vm_mask = 0;
	ok(vpmu_vcpu_pmi_pending(w, &wm) && wm == 1, "w overflows after its own 100 cycles");
	ok(!vpmu_vcpu_pmi_pending(v, &vm_mask), "v (switched out) gets no PMI for w's overflow");

	struct perfctr_cpu_state st;
	ok(vpmu_vcpu_perfctr_x86(w, &st) == 0, "perfctr x86 export");
	ok(st.control.nractrs == 0 && st.control.nrictrs == 1 && st.control.pmc_map[0] == 0 &&
	   st.control.evntsel[0] == IMODE_CYCLES && st.control.ireset[0] == -100,
	   "exported control: one i-mode counter, pmc 0, evntsel, ireset -100");
	ok(st.cstatus == perfctr_mk_cstatus(0, 0, 1), "cstatus encodes nri=1");
	ok(st.k1.id == (unsigned)vpmu_vcpu_control_id(w), "k1.id is the content id's low 32 bits");
	struct perfctr_ppc32_cpu_state pst;
	ok(vpmu_vcpu_perfctr_ppc32(w, &pst) == -EINVAL, "PPC32 export of an x86 vCPU: -EINVAL");
	vpmu_vm_destroy(vm);
}

static void test_strict_and_default(void)
{
	struct vpmu_vm *s = new_vm(VPMU_VM_STRICT), *d = new_vm(0);
	struct vpmu_vcpu *vs, *vd;
	vpmu_vcpu_create(s, 0, &vs);
	vpmu_vcpu_create(d, 0, &vd);
	vpmu_vcpu_switch_in(vs, 7);
	vpmu_vcpu_switch_in(vd, 8);
	/* Linux's no-op event with the global enable (events/intel/p6.c): CPL = 0. */
	ok(wr(vs, EVNTSEL0, 0x40002E) == VPMU_FAULT_STRICT, "strict: EVNTSEL0 0x40002E (no CPL) refused");
	is_u64(rd(vs, EVNTSEL0), 0, "strict refusal leaves EVNTSEL0 unchanged");
	ok(wr(vd, EVNTSEL0, 0x40002E) == VPMU_FAULT_NONE, "default: 0x40002E accepted");
	struct vpmu_totals t;
	vpmu_vcpu_totals(vd, &t);
	ok(vpmu_vm_rule_name(d, 2) && strcmp(vpmu_vm_rule_name(d, 2), "cpl-none") == 0 &&
	   t.violations[2] == 1, "default: violation 'cpl-none' recorded once");
	ok(vpmu_vm_rule_name(d, VPMU_MAX_RULES) == NULL, "rule name out of range: NULL");
	ok(wr(vd, EVNTSEL0, 0xFFFFFFFF00000000ull) == VPMU_FAULT_RESERVED &&
	   wr(vs, EVNTSEL0, 0x200000) == VPMU_FAULT_RESERVED,
	   "hardware-reserved bits #GP in both modes");
	vpmu_vcpu_totals(vs, &t);
	ok(t.strict_refusals == 1 && t.faults == 1, "strict: refusals and faults accounted apart");
	vpmu_vm_destroy(s);
	vpmu_vm_destroy(d);
}

/* P6's IA32_MISC_ENABLE exists only from the Pentium M on: save/restore skips it
 * on both sides (-ENOENT) where the presented CPU lacks it, and round-trips it
 * where it has it, guest-read-only bits included. */
static void test_misc_enable_save_restore(void)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *piii, *pm;
	struct vpmu_vcpu *a, *b;
	uint64_t val = 0;
	enum vpmu_fault f;
	cfg.model = "p6";
	if (vpmu_vm_create(host, &cfg, &piii) || vpmu_vcpu_create(piii, 0, &a)) {
		ok(0, "create a Pentium III VM");
		return;
	}
	cfg.cpumodel = 9;
	if (vpmu_vm_create(host, &cfg, &pm) || vpmu_vcpu_create(pm, 0, &b)) {
		ok(0, "create a Pentium M VM");
		return;
	}
	ok(vpmu_reg_get(a, VPMU_SPACE_MSR, 0x1A0, &val) == -ENOENT,
	   "Pentium III: get of IA32_MISC_ENABLE is -ENOENT (the CPU has no such MSR)");
	ok(vpmu_reg_set(a, VPMU_SPACE_MSR, 0x1A0, 0x1880) == -ENOENT,
	   "Pentium III: set of IA32_MISC_ENABLE is -ENOENT, not -EINVAL");
	ok(vpmu_reg_get(b, VPMU_SPACE_MSR, 0x1A0, &val) == 0, "Pentium M: get of IA32_MISC_ENABLE");
	is_u64(val, 0x1880, "Pentium M: IA32_MISC_ENABLE resets with bits 7, 11, 12 set");
	ok(vpmu_reg_write(b, VPMU_SPACE_MSR, 0x1A0, 0x8, &f) == 0 && f == VPMU_FAULT_NONE,
	   "Pentium M: a guest write of IA32_MISC_ENABLE is accepted");
	ok(vpmu_reg_read(b, VPMU_SPACE_MSR, 0x1A0, &val, &f) == 0 && f == VPMU_FAULT_NONE,
	   "Pentium M: guest read of IA32_MISC_ENABLE");
	is_u64(val, 0x1888, "the guest cannot clear PERF_AVAIL/BTS_UNAVAIL/PEBS_UNAVAIL");
	ok(vpmu_reg_set(b, VPMU_SPACE_MSR, 0x1A0, 0x1) == 0 &&
	   vpmu_reg_get(b, VPMU_SPACE_MSR, 0x1A0, &val) == 0,
	   "Pentium M: a restore loads IA32_MISC_ENABLE as saved");
	is_u64(val, 0x1, "host-initiated set skips the guest's read-only bits");
	vpmu_vm_destroy(piii);
	vpmu_vm_destroy(pm);
}

/* RDPMC, per the manuals (Intel SDM vol. 2 and AMD APM vol. 3, RDPMC; perfctr
 * low-level-x86.txt for the counter widths and the P6's sign extension):
 * ECX selects a counter the CPU has and the read returns it at its width (what
 * RDMSR of its register returns); any other index #GPs, and a plain P5 has no
 * RDPMC at all. */
static void rdpmc_model(const char *model, uint32_t ctr_msr, unsigned valid_mask, unsigned nr,
			uint64_t write, uint64_t want)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	struct vpmu_vcpu *v = NULL;
	cfg.model = model;
	if (vpmu_vm_create(host, &cfg, &vm) || vpmu_vcpu_create(vm, 0, &v)) {
		ok(0, "%s: VM for RDPMC", model);
		return;
	}
	struct vpmu_totals t0, t1;
	vpmu_vcpu_totals(v, &t0);
	for (unsigned i = 0; i < 8; i++) {
		enum vpmu_fault f = VPMU_FAULT_NONE;
		uint64_t val = 0x55;
		bool has = valid_mask & (1u << i);
		if (has) {
			/* counter i's register: the model's counters are contiguous from ctr_msr */
			uint32_t msr = ctr_msr + (i - (unsigned)__builtin_ctz(valid_mask));
			enum vpmu_fault wf = wr(v, msr, write + i);
			ok(wf == VPMU_FAULT_NONE, "%s: WRMSR 0x%x := 0x%llx", model, msr, (unsigned long long)(write + i));
			ok(vpmu_rdpmc(v, i, &val, &f) == 0 && f == VPMU_FAULT_NONE,
			   "%s: RDPMC ECX=%u reads counter %u", model, i, i);
			is_u64(val, want + i, "%s: ... at its width, as RDMSR 0x%x does", model, msr);
			is_u64(rd(v, msr), val, "%s: ... RDMSR 0x%x agrees", model, msr);
			uint64_t peek = 0;
			ok(vpmu_rdpmc_get(v, i, &peek) == 0 && peek == val,
			   "%s: vpmu_rdpmc_get(%u) returns the same without counting an access", model, i);
		} else {
			ok(vpmu_rdpmc(v, i, &val, &f) == 0 && f == VPMU_FAULT_NO_REG && val == 0,
			   "%s: RDPMC ECX=%u #GPs (%s) and reads 0", model, i,
			   nr ? "no such counter" : "no RDPMC on this CPU");
			ok(vpmu_rdpmc_get(v, i, &val) == -ENOENT, "%s: vpmu_rdpmc_get(%u) is -ENOENT", model, i);
		}
	}
	enum vpmu_fault f = VPMU_FAULT_NONE;
	uint64_t val = 1;
	ok(vpmu_rdpmc(v, 0x80000000u, &val, &f) == 0 && f == VPMU_FAULT_NO_REG,
	   "%s: ECX bit 31 (the P4's fast read) is no counter here: #GP", model);
	vpmu_vcpu_totals(v, &t1);
	unsigned nvalid = (unsigned)__builtin_popcount(valid_mask);
	is_u64(t1.reads - t0.reads, 8 + 1 + nvalid, "%s: each RDPMC (and each RDMSR) counted as a read, rdpmc_get not", model);
	is_u64(t1.faults - t0.faults, 8 - nvalid + 1, "%s: each RDPMC #GP counted as a fault", model);
	vpmu_vm_destroy(vm);
}

static void test_rdpmc(void)
{
	/* P6: EAX sign-extended into 40 bits on a write. */
	rdpmc_model("p6", 0xC1, 0x3, 2, 0x80001234, 0xFF80001234ull);
	/* K7/K8: 48 bits. */
	rdpmc_model("k7", 0xC0010004, 0xF, 4, 0x0000800000000010ull, 0x800000000010ull);
	rdpmc_model("k8", 0xC0010004, 0xF, 4, 0xFFFF123456789A00ull, 0x123456789A00ull);
	/* Pentium MMX: 40 bits, no sign extension. */
	rdpmc_model("p5mmx", 0x12, 0x3, 2, 0xFFFFFFFF00000001ull, 0xFF00000001ull);
	/* Plain Pentium: no RDPMC. */
	rdpmc_model("p5", 0x12, 0, 0, 0, 0);
	/* VIA C3: only counter 1 (PERFCTR1), 32 bits. */
	rdpmc_model("c3", 0xC2, 0x2, 1, 0x1234567890ull, 0x34567890ull);
	enum vpmu_fault f;
	uint64_t val;
	ok(vpmu_rdpmc(NULL, 0, &val, &f) == -EINVAL && vpmu_rdpmc_get(NULL, 0, &val) == -EINVAL,
	   "RDPMC of no vCPU: -EINVAL");
}

/* A host CPU a destroyed VM last programmed: events ticked there must not
 * reach the dead VM's PMU (ASan: a use after free), and the next VM's vCPU
 * there starts from its own control. */
static void test_destroyed_vm(void)
{
	struct vpmu_vm *vm = new_vm(0);
	struct vpmu_vcpu *v;
	vpmu_vcpu_create(vm, 0, &v);
	vpmu_vcpu_switch_in(v, 3);
	ok(wr(v, EVNTSEL0, AMODE_INSTR) == VPMU_FAULT_NONE, "a VM programs host CPU 3");
	vpmu_vcpu_switch_out(v);
	vpmu_vm_destroy(vm);
	ok(vpmu_sim_tick(sim, 3, VPMU_EV_INSTRUCTIONS, 100, VPMU_MODE_USER) == 0,
	   "events on the CPU the destroyed VM last ran: nothing reads its PMU");
	vm = new_vm(0);
	vpmu_vcpu_create(vm, 0, &v);
	vpmu_vcpu_switch_in(v, 3);
	ok(wr(v, EVNTSEL0, AMODE_INSTR) == VPMU_FAULT_NONE, "a new VM programs the same CPU");
	vpmu_sim_tick(sim, 3, VPMU_EV_INSTRUCTIONS, 7, VPMU_MODE_USER);
	is_u64(rd(v, PERFCTR0), 7, "the new VM's counter counts its own events only");
	vpmu_vcpu_switch_out(v);
	vpmu_vm_destroy(vm);
}

/* vpmu_vcpu_reset: a guest reboot returns the PMU to its power-on state.  On
 * architectural perfmon (Intel SDM vol. 3B, "Architectural Performance
 * Monitoring Version 2"; vol. 4, the architectural MSRs): the event selects,
 * counters, FIXED_CTR_CTRL and GLOBAL_STATUS are 0, and GLOBAL_CTRL has the
 * enable bit of every general counter set, so that version-1 software counts
 * with EN alone.  The accounting is not part of the PMU: it stays. */
#define ARCH_PMC0           0xC1
#define ARCH_PERFEVTSEL0    0x186
#define ARCH_FIXED_CTR0     0x309
#define ARCH_FIXED_CTR_CTRL 0x38D
#define ARCH_GLOBAL_STATUS  0x38E
#define ARCH_GLOBAL_CTRL    0x38F
#define ARCH_CYCLES_INT_EN  0x53003C   /* UnHalted Core Cycles, USR|OS|INT|EN */

static uint64_t host_get(struct vpmu_vcpu *v, uint32_t msr)
{
	uint64_t val = 0xDEAD;
	return vpmu_reg_get(v, VPMU_SPACE_MSR, msr, &val) == 0 ? val : 0xDEAD;
}

static void test_reset(void)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v;
	struct vpmu_pmu_info pmu;
	struct vpmu_totals before, after;
	enum vpmu_fault f;
	cfg.model = "skylake";
	if (vpmu_vm_create(host, &cfg, &vm) || vpmu_vcpu_create(vm, 0, &v) ||
	    vpmu_vm_pmu(vm, &pmu) || vpmu_vcpu_switch_in(v, 0)) {
		ok(0, "create a Skylake VM and switch its vCPU in");
		return;
	}
	uint64_t gp_enables = (1ull << pmu.nr_general) - 1;
	is_u64(host_get(v, ARCH_GLOBAL_CTRL), gp_enables,
	       "skylake: GLOBAL_CTRL powers on with the %u general counters enabled", pmu.nr_general);
	/* The guest's driver: counter 0 10 cycles from overflow with INT, fixed
	 * counter 0 on, then 100 cycles: an overflow, its status and a PMI. */
	vpmu_reg_write(v, VPMU_SPACE_MSR, ARCH_PMC0, (uint64_t)-10 & 0xFFFFFFFFu, &f);
	vpmu_reg_write(v, VPMU_SPACE_MSR, ARCH_PERFEVTSEL0, ARCH_CYCLES_INT_EN, &f);
	vpmu_reg_write(v, VPMU_SPACE_MSR, ARCH_FIXED_CTR_CTRL, 0xB, &f);
	vpmu_reg_write(v, VPMU_SPACE_MSR, ARCH_GLOBAL_CTRL, 1 | 1ull << 32, &f);
	vpmu_vcpu_enter(v);
	vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 100, VPMU_MODE_KERNEL);
	vpmu_sim_tick(sim, 0, VPMU_EV_INSTRUCTIONS, 50, VPMU_MODE_KERNEL);
	ok(vpmu_vcpu_pmi_pending(v, NULL) && (host_get(v, ARCH_GLOBAL_STATUS) & 1) &&
	   host_get(v, ARCH_FIXED_CTR0) == 50, "skylake: the guest's counters ran and overflowed");
	vpmu_vcpu_totals(v, &before);
	ok(vpmu_vcpu_reset(v) == 0, "vpmu_vcpu_reset");
	is_u64(host_get(v, ARCH_GLOBAL_CTRL), gp_enables, "reset: GLOBAL_CTRL its power-on value");
	is_u64(host_get(v, ARCH_PERFEVTSEL0), 0, "reset: PERFEVTSEL0 0");
	is_u64(host_get(v, ARCH_PMC0), 0, "reset: PMC0 0");
	is_u64(host_get(v, ARCH_FIXED_CTR_CTRL), 0, "reset: FIXED_CTR_CTRL 0");
	is_u64(host_get(v, ARCH_FIXED_CTR0), 0, "reset: FIXED_CTR0 0");
	is_u64(host_get(v, ARCH_GLOBAL_STATUS), 0, "reset: GLOBAL_STATUS 0");
	ok(!vpmu_vcpu_pmi_pending(v, NULL), "reset: the pending PMI dropped");
	vpmu_vcpu_totals(v, &after);
	ok(after.writes == before.writes && after.reads == before.reads,
	   "reset: the accounting is kept, and the reset's own accesses are not guest accesses");
	vpmu_vcpu_enter(v);
	vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 100, VPMU_MODE_KERNEL);
	vpmu_sim_tick(sim, 0, VPMU_EV_INSTRUCTIONS, 50, VPMU_MODE_KERNEL);
	ok(host_get(v, ARCH_PMC0) == 0 && host_get(v, ARCH_FIXED_CTR0) == 0 &&
	   !vpmu_vcpu_pmi_pending(v, NULL), "after the reset nothing counts: every select is off");
	vpmu_vcpu_switch_out(v);
	ok(vpmu_vcpu_reset(v) == 0 && host_get(v, ARCH_GLOBAL_CTRL) == gp_enables,
	   "reset of a vCPU switched out");
	ok(vpmu_vcpu_reset(NULL) == -EINVAL, "vpmu_vcpu_reset(NULL): -EINVAL");
	vpmu_vm_destroy(vm);
}

/* vpmu_vcpu_counting: what an emulator that ticks the sim itself asks before
 * it counts (docs/ppc.md).  PowerPC 7450: MMCR0 (SPR 952) PMC1SEL 2 counts
 * instructions on PMC1; FC freezes; FCECE freezes at PMC1's condition. */
static void test_counting_mask(void)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v;
	enum vpmu_fault f;
	cfg.model = "ppc7450";
	if (vpmu_vm_create(host, &cfg, &vm) || vpmu_vcpu_create(vm, 0, &v) ||
	    vpmu_vcpu_switch_in(v, 0)) {
		ok(0, "create a 7450 VM and switch its vCPU in");
		return;
	}
	ok(vpmu_vcpu_counting(v) == 0, "counting: nothing at power-on (every selector 0)");
	vpmu_reg_write(v, VPMU_SPACE_SPR, 952, 0x80000080, &f);
	ok(vpmu_vcpu_counting(v) == 0, "counting: nothing while MMCR0[FC] freezes PMC1");
	vpmu_reg_write(v, VPMU_SPACE_SPR, 953, 0x7ffffffe, &f);
	vpmu_reg_write(v, VPMU_SPACE_SPR, 952, 0x06008081, &f);   /* PMXE|FCECE|PMC1CE, PMC2 cycles */
	is_u64(vpmu_vcpu_counting(v), 3, "counting: PMC1 and PMC2 once FC is clear");
	/* perfctr's PPC32 state: PMC2 (no PMCjCE) a-mode first, then PMC1; the
	 * control's mmcr0 without the selectors, ppc_mmcr[0] with them. */
	struct perfctr_ppc32_cpu_state st;
	ok(vpmu_vcpu_perfctr_ppc32(v, &st) == 0 && st.control.nractrs == 1 &&
	   st.control.nrictrs == 1 && st.control.pmc_map[0] == 1 && st.control.evntsel[0] == 1 &&
	   st.control.pmc_map[1] == 0 && st.control.evntsel[1] == 2 &&
	   st.control.ireset[1] == 0x7ffffffe && st.control.ppc.mmcr0 == 0x06008000 &&
	   st.ppc_mmcr[0] == 0x06008081 && st.ppc_mmcr[1] == 0 && st.ppc_mmcr[2] == 0,
	   "perfctr ppc32 state: a-mode PMC2, i-mode PMC1 from 0x7ffffffe, the MMCR0 image");
	vpmu_vcpu_enter(v);
	vpmu_sim_tick(sim, 0, VPMU_EV_INSTRUCTIONS, 2, VPMU_MODE_USER);
	ok(vpmu_vcpu_pmi_pending(v, NULL), "counting: PMC1 went negative: the exception is pending");
	vpmu_vcpu_enter(v);
	ok(vpmu_vcpu_counting(v) == 0, "counting: nothing after the entry that took FCECE's freeze in");
	ok(vpmu_vcpu_counting(NULL) == 0, "counting: NULL counts nothing");
	vpmu_vcpu_switch_out(v);
	vpmu_vm_destroy(vm);
}

/* A debugger's reads of a running vCPU after an overflow (QEMU's gdbstub and
 * monitor read the 7450's SPRs with vpmu_reg_get: patches/qemu-ppc 0005):
 * they show the registers as they are, FC set by FCECE included, and write no
 * host register; the freeze reaches the host at the next entry.  The fuzzer
 * found gets that applied it (fuzz_host_access). */
static void test_debugger_get_after_freeze(void)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v;
	enum vpmu_fault f;
	uint64_t val;
	cfg.model = "ppc7450";
	if (vpmu_vm_create(host, &cfg, &vm) || vpmu_vcpu_create(vm, 0, &v) ||
	    vpmu_vcpu_switch_in(v, 0)) {
		ok(0, "create a 7450 VM and switch its vCPU in");
		return;
	}
	vpmu_reg_write(v, VPMU_SPACE_SPR, 953, 0x7fffffff, &f);
	vpmu_reg_write(v, VPMU_SPACE_SPR, 952, 0x06008080, &f);   /* PMXE|FCECE|PMC1CE, instructions */
	vpmu_vcpu_enter(v);
	vpmu_sim_tick(sim, 0, VPMU_EV_INSTRUCTIONS, 1, VPMU_MODE_KERNEL);
	ctrl_writes();
	ok(vpmu_reg_get(v, VPMU_SPACE_SPR, 952, &val) == 0 && val == 0x82008080,
	   "debugger get: MMCR0 shows FC set and PMXE cleared by the exception");
	ok(vpmu_reg_get(v, VPMU_SPACE_SPR, 953, &val) == 0 && val == 0x80000000,
	   "debugger get: PMC1 reads 0x80000000");
	is_u64(ctrl_writes(), 0, "debugger gets write no host control register");
	vpmu_vcpu_enter(v);
	ok(ctrl_writes() > 0 && vpmu_vcpu_counting(v) == 0,
	   "the next entry writes the freeze to the host, and nothing counts");
	vpmu_vcpu_switch_out(v);
	vpmu_vm_destroy(vm);
}

int main(void)
{
	struct vpmu_backend be;
	if (vpmu_sim_create(16, &sim) || (vpmu_sim_backend(sim, &be), vpmu_host_create(&be, 16, &host))) {
		printf("Bail out! cannot create the sim host\n");
		return 1;
	}
	vpmu_sim_attach(sim, host);
	ok(vpmu_model_count() >= 1 && vpmu_model_description("p6") != NULL, "p6 is registered");
	ok(vpmu_event_from_name("branch-misses") == VPMU_EV_BRANCH_MISSES && vpmu_event_from_name("x") == -1,
	   "event names");
	/* The counts' names are VPMU_TOTALS_COUNTS' keys (the domstats keys of
	 * docs/accounting.md: vpmu.pmis, vpmu.strict_refusals, ...). */
	struct vpmu_totals nt;
	memset(&nt, 0, sizeof(nt));
	nt.reads = 7;
	nt.strict_refusals = 3;
	ok(!strcmp(vpmu_totals_count_name(VPMU_TOTALS_pmis), "pmis") &&
	   !strcmp(vpmu_totals_count_name(VPMU_TOTALS_strict_refusals), "strict_refusals") &&
	   !vpmu_totals_count_name(VPMU_TOTALS_NR) &&
	   vpmu_totals_count(&nt, VPMU_TOTALS_reads) == 7 &&
	   vpmu_totals_count(&nt, VPMU_TOTALS_strict_refusals) == 3 &&
	   vpmu_totals_count(&nt, VPMU_TOTALS_NR) == 0,
	   "vpmu_totals_count_name and vpmu_totals_count: a count's name and value by its index");
	test_argument_errors();
	test_amode_cache_hit();
	test_shared_ids();
	test_imode_suspend_resume();
	test_strict_and_default();
	test_misc_enable_save_restore();
	test_rdpmc();
	test_destroyed_vm();
	test_reset();
	test_counting_mask();
	test_debugger_get_after_freeze();
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return tap_done();
}
