/* SPDX-License-Identifier: MIT */
/*
 * The per-VM event filter (vpmu_vm_set_event_filter) against the sim backend,
 * with the semantics of KVM_SET_PMU_EVENT_FILTER (Linux
 * Documentation/virt/kvm/api.rst; arch/x86/kvm/pmu.c is_gp_event_allowed,
 * is_fixed_event_allowed): a filtered counter keeps its value while an
 * allowed one counts, the guest's write is accepted, each programming the
 * filter stops is counted once, and a malformed filter changes nothing.
 */
#include <errno.h>
#include <string.h>

#include "guest_msr.h"
#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

#define EVNTSEL0 0x186
#define EVNTSEL1 0x187
#define PERFCTR0 0xC1
#define PERFCTR1 0xC2
#define FIXED_CTR0 0x309
#define FIXED_CTR1 0x30A
#define FIXED_CTR_CTRL 0x38D
#define GLOBAL_CTRL 0x38F
#define EN_OS_USR 0x430000ull
/* P6: CPU_CLK_UNHALTED (0x79) and INST_RETIRED (0xC0) (Intel SDM vol. 3B,
 * P6 family events); architectural LLC references 0x2E/0x4F and misses
 * 0x2E/0x41 (Intel SDM vol. 3B, "Pre-defined Architectural Performance
 * Events"). */
#define SEL_CYCLES (EN_OS_USR | 0x79)
#define SEL_INSTR  (EN_OS_USR | 0xC0)
#define SEL_LLC_REF  (EN_OS_USR | 0x4F2E)
#define SEL_LLC_MISS (EN_OS_USR | 0x412E)

/* Each test on a host CPU of its own. */
static struct vpmu_sim *sim;
static struct vpmu_host *host;

static struct vpmu_vm *new_vm(const char *model, struct vpmu_vcpu **v)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	cfg.model = model;
	if (vpmu_vm_create(host, &cfg, &vm) || vpmu_vcpu_create(vm, 0, v))
		return NULL;
	return vm;
}

static uint64_t filtered(struct vpmu_vcpu *v)
{
	struct vpmu_totals t;
	vpmu_vcpu_totals(v, &t);
	return t.filtered;
}

/* Zero both P6 counters, tick 100 cycles and 50 instructions: what each counted. */
static void p6_run(struct vpmu_vcpu *v, uint64_t *c0, uint64_t *c1)
{
	unsigned cpu = 0;
	vpmu_vcpu_running(v, &cpu);
	wr(v, PERFCTR0, 0);
	wr(v, PERFCTR1, 0);
	vpmu_sim_tick(sim, cpu, VPMU_EV_CYCLES, 100, VPMU_MODE_USER);
	vpmu_sim_tick(sim, cpu, VPMU_EV_INSTRUCTIONS, 50, VPMU_MODE_KERNEL);
	*c0 = rd(v, PERFCTR0);
	*c1 = rd(v, PERFCTR1);
}

static void test_p6_deny_allow(void)
{
	struct vpmu_vcpu *v;
	struct vpmu_vm *vm = new_vm("p6", &v);
	uint64_t c0, c1;
	vpmu_vcpu_switch_in(v, 0);
	ok(wr(v, EVNTSEL0, SEL_CYCLES) == VPMU_FAULT_NONE &&
	   wr(v, EVNTSEL1, SEL_INSTR) == VPMU_FAULT_NONE, "p6: cycles on counter 0, instructions on 1");
	p6_run(v, &c0, &c1);
	ok(c0 == 100 && c1 == 50, "no filter: both count (%llu, %llu)", (unsigned long long)c0,
	   (unsigned long long)c1);

	uint64_t instr = 0xC0;
	struct vpmu_event_filter f = { VPMU_FILTER_DENY, 0, 0, 1, &instr, 0, NULL };
	int bad = 7;
	ok(vpmu_vm_set_event_filter(vm, &f, &bad) == 0 && bad == -1, "deny INST_RETIRED: set");
	p6_run(v, &c0, &c1);
	is_u64(c0, 100, "deny: the allowed counter counts");
	is_u64(c1, 0, "deny: the denied counter counts nothing");
	is_u64(rd(v, EVNTSEL1), SEL_INSTR, "deny: the guest's event select holds what it wrote");
	is_u64(filtered(v), 1, "deny: one filtered programming accounted");
	ok(wr(v, EVNTSEL1, SEL_INSTR) == VPMU_FAULT_NONE, "the same programming written again");
	wr(v, EVNTSEL0, SEL_CYCLES);
	is_u64(filtered(v), 1, "rewrites of the same programming are not counted again");
	wr(v, EVNTSEL1, 0);
	wr(v, EVNTSEL1, SEL_INSTR);
	is_u64(filtered(v), 2, "a new programming after disabling is counted");
	wr(v, PERFCTR1, 12345);
	vpmu_sim_tick(sim, 0, VPMU_EV_INSTRUCTIONS, 9, VPMU_MODE_USER);
	is_u64(rd(v, PERFCTR1), 12345, "a denied counter keeps the value the guest wrote");

	/* Counter 0's EVNTSEL0.EN enables both P6 counters: denying counter 0's
	 * event must leave counter 1 counting. */
	uint64_t cyc = 0x79;
	f.events = &cyc;
	ok(vpmu_vm_set_event_filter(vm, &f, NULL) == 0, "deny CPU_CLK_UNHALTED: set");
	p6_run(v, &c0, &c1);
	ok(c0 == 0 && c1 == 50, "p6: counter 0 denied, counter 1 still counts (%llu, %llu)",
	   (unsigned long long)c0, (unsigned long long)c1);

	f.action = VPMU_FILTER_ALLOW;
	ok(vpmu_vm_set_event_filter(vm, &f, NULL) == 0, "allow CPU_CLK_UNHALTED only: set");
	p6_run(v, &c0, &c1);
	ok(c0 == 100 && c1 == 0, "allow: the listed event counts, the other not (%llu, %llu)",
	   (unsigned long long)c0, (unsigned long long)c1);

	/* Entries by name, through the VM's event table. */
	const char *names[] = { "INST_RETIRED" };
	struct vpmu_event_filter byname = { VPMU_FILTER_DENY, 0, 0, 0, NULL, 1, names };
	ok(vpmu_vm_set_event_filter(vm, &byname, NULL) == 0, "deny by name INST_RETIRED: set");
	p6_run(v, &c0, &c1);
	ok(c0 == 100 && c1 == 0, "by name: INST_RETIRED denied (%llu, %llu)",
	   (unsigned long long)c0, (unsigned long long)c1);
	/* A plain entry with a modifier bit matches nothing (KVM's
	 * remove_impossible_events): an allow list of it allows nothing. */
	uint64_t odd = 0x4300C0;
	struct vpmu_event_filter imp = { VPMU_FILTER_ALLOW, 0, 0, 1, &odd, 0, NULL };
	ok(vpmu_vm_set_event_filter(vm, &imp, NULL) == 0, "allow an impossible entry: set");
	p6_run(v, &c0, &c1);
	ok(c0 == 0 && c1 == 0, "an impossible entry allows nothing (%llu, %llu)",
	   (unsigned long long)c0, (unsigned long long)c1);

	ok(vpmu_vm_set_event_filter(vm, NULL, NULL) == 0, "filter removed");
	p6_run(v, &c0, &c1);
	ok(c0 == 100 && c1 == 50, "no filter again: both count (%llu, %llu)",
	   (unsigned long long)c0, (unsigned long long)c1);
	vpmu_vm_destroy(vm);
}

/* Every refusal leaves the filter as it was: INST_RETIRED stays denied. */
static void test_refusals(void)
{
	struct vpmu_vcpu *v;
	struct vpmu_vm *vm = new_vm("p6", &v);
	uint64_t c0, c1;
	vpmu_vcpu_switch_in(v, 1);
	wr(v, EVNTSEL0, SEL_CYCLES);
	wr(v, EVNTSEL1, SEL_INSTR);
	uint64_t ev[VPMU_FILTER_MAX_EVENTS + 1];
	for (unsigned i = 0; i <= VPMU_FILTER_MAX_EVENTS; i++)
		ev[i] = 0xC0;
	struct vpmu_event_filter good = { VPMU_FILTER_DENY, 0, 0, 1, ev, 0, NULL };
	ok(vpmu_vm_set_event_filter(vm, &good, NULL) == 0, "deny INST_RETIRED: set");
	int bad;
	struct vpmu_event_filter f = good;
	f.action = 2;
	ok(vpmu_vm_set_event_filter(vm, &f, &bad) == -EINVAL && bad == -1, "an unknown action: -EINVAL");
	f = good;
	f.flags = 0x2;
	ok(vpmu_vm_set_event_filter(vm, &f, &bad) == -EINVAL, "an unknown flag: -EINVAL");
	f = good;
	f.nevents = VPMU_FILTER_MAX_EVENTS + 1;
	ok(vpmu_vm_set_event_filter(vm, &f, &bad) == -E2BIG, "301 entries: -E2BIG");
	uint64_t masked[2] = { VPMU_FILTER_MASKED_ENTRY(0x79, 0, 0, 0), 1ull << 40 };
	f = (struct vpmu_event_filter){ VPMU_FILTER_DENY, VPMU_FILTER_MASKED_EVENTS, 0, 2, masked, 0, NULL };
	ok(vpmu_vm_set_event_filter(vm, &f, &bad) == -EINVAL && bad == 1,
	   "a masked entry with a bit outside the format: -EINVAL, entry 1");
	f = good;
	f.events = NULL;
	ok(vpmu_vm_set_event_filter(vm, &f, &bad) == -EINVAL, "no array for a count: -EINVAL");
	const char *names[] = { "CPU_CLK_UNHALTED", "NO_SUCH_EVENT" };
	f = (struct vpmu_event_filter){ VPMU_FILTER_DENY, 0, 0, 1, ev, 2, names };
	ok(vpmu_vm_set_event_filter(vm, &f, &bad) == -ENOENT && bad == 2,
	   "an unknown event name: -ENOENT, entry 2 (events, then names)");
	ok(vpmu_vm_set_event_filter(NULL, &good, &bad) == -EINVAL, "no VM: -EINVAL");
	p6_run(v, &c0, &c1);
	ok(c0 == 100 && c1 == 0, "after the refusals the filter is as it was (%llu, %llu)",
	   (unsigned long long)c0, (unsigned long long)c1);

	struct vpmu_vcpu *w;
	struct vpmu_vm *p5 = new_vm("p5", &w);
	ok(vpmu_vm_set_event_filter(p5, &good, &bad) == -EOPNOTSUPP,
	   "a PMU without KVM's event select layout (p5): -EOPNOTSUPP");
	vpmu_vm_destroy(p5);
	vpmu_vm_destroy(vm);
}

/* Masked entries and the fixed-counter bitmap on an architectural-perfmon VM. */
static void test_arch_masked_fixed(void)
{
	struct vpmu_vcpu *v;
	struct vpmu_vm *vm = new_vm("skylake", &v);
	vpmu_vcpu_switch_in(v, 2);
	/* Both fixed counters 0 (instructions) and 1 (cycles) at OS and USR. */
	ok(wr(v, EVNTSEL0, SEL_LLC_MISS) == VPMU_FAULT_NONE &&
	   wr(v, EVNTSEL1, SEL_LLC_REF) == VPMU_FAULT_NONE &&
	   wr(v, FIXED_CTR_CTRL, 0x33) == VPMU_FAULT_NONE &&
	   wr(v, GLOBAL_CTRL, 0x300000003ull) == VPMU_FAULT_NONE,
	   "skylake: LLC misses on PMC0, references on PMC1, fixed 0 and 1 enabled");
	/* Deny every unit mask of event 0x2E but 0x4F (api.rst: an exclude entry
	 * takes its matches out of the include entries'). */
	uint64_t m[2] = { VPMU_FILTER_MASKED_ENTRY(0x2E, 0x00, 0x00, 0),
			  VPMU_FILTER_MASKED_ENTRY(0x2E, 0xFF, 0x4F, 1) };
	struct vpmu_event_filter f = { VPMU_FILTER_DENY, VPMU_FILTER_MASKED_EVENTS, 0x1, 2, m, 0, NULL };
	ok(vpmu_vm_set_event_filter(vm, &f, NULL) == 0, "masked deny of 0x2E except umask 0x4F, fixed 0 denied");
	vpmu_sim_tick(sim, 2, VPMU_EV_CACHE_MISSES, 30, VPMU_MODE_USER);
	vpmu_sim_tick(sim, 2, VPMU_EV_CACHE_REFERENCES, 70, VPMU_MODE_USER);
	vpmu_sim_tick(sim, 2, VPMU_EV_INSTRUCTIONS, 500, VPMU_MODE_USER);
	vpmu_sim_tick(sim, 2, VPMU_EV_CYCLES, 900, VPMU_MODE_USER);
	is_u64(rd(v, PERFCTR0), 0, "masked: the matched unit mask (0x41) is denied");
	is_u64(rd(v, PERFCTR1), 70, "masked: the excluded unit mask (0x4F) counts");
	is_u64(rd(v, FIXED_CTR0), 0, "fixed bitmap bit 0 with deny: fixed counter 0 counts nothing");
	is_u64(rd(v, FIXED_CTR1), 900, "fixed counter 1 (bit clear) counts");
	is_u64(filtered(v), 2, "two filtered programmings");

	/* The same with allow: the bitmap says which fixed counters count. */
	uint64_t a[1] = { VPMU_FILTER_MASKED_ENTRY(0x2E, 0xF0, 0x40, 0) };
	f = (struct vpmu_event_filter){ VPMU_FILTER_ALLOW, VPMU_FILTER_MASKED_EVENTS, 0x1, 1, a, 0, NULL };
	ok(vpmu_vm_set_event_filter(vm, &f, NULL) == 0, "masked allow of 0x2E umasks 0x4X, fixed 0 allowed");
	for (uint32_t r = PERFCTR0; r <= PERFCTR1; r++)
		wr(v, r, 0);
	wr(v, FIXED_CTR0, 0);
	wr(v, FIXED_CTR1, 0);
	vpmu_sim_tick(sim, 2, VPMU_EV_CACHE_MISSES, 30, VPMU_MODE_USER);
	vpmu_sim_tick(sim, 2, VPMU_EV_CACHE_REFERENCES, 70, VPMU_MODE_USER);
	vpmu_sim_tick(sim, 2, VPMU_EV_INSTRUCTIONS, 500, VPMU_MODE_USER);
	vpmu_sim_tick(sim, 2, VPMU_EV_CYCLES, 900, VPMU_MODE_USER);
	is_u64(rd(v, PERFCTR0), 30, "allow: umask 0x41 matches 0x40 under mask 0xF0");
	is_u64(rd(v, PERFCTR1), 70, "allow: umask 0x4F matches too");
	is_u64(rd(v, FIXED_CTR0), 500, "allow: fixed counter 0 (bit set) counts");
	is_u64(rd(v, FIXED_CTR1), 0, "allow: fixed counter 1 (bit clear) counts nothing");
	vpmu_vm_destroy(vm);
}

/* A vCPU created after the filter is set is filtered too. */
static void test_late_vcpu(void)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	struct vpmu_vcpu *v = NULL;
	cfg.model = "k7";
	uint64_t instr = 0xC0;   /* AMD: retired instructions (AMD64 APM vol. 2) */
	struct vpmu_event_filter f = { VPMU_FILTER_DENY, 0, 0, 1, &instr, 0, NULL };
	ok(vpmu_vm_create(host, &cfg, &vm) == 0 && vpmu_vm_set_event_filter(vm, &f, NULL) == 0 &&
	   vpmu_vcpu_create(vm, 0, &v) == 0, "k7: filter set before the vCPU exists");
	vpmu_vcpu_switch_in(v, 3);
	wr(v, 0xC0010000, SEL_INSTR);
	wr(v, 0xC0010001, EN_OS_USR | 0x76);   /* CPU clocks not halted */
	vpmu_sim_tick(sim, 3, VPMU_EV_INSTRUCTIONS, 40, VPMU_MODE_USER);
	vpmu_sim_tick(sim, 3, VPMU_EV_CYCLES, 60, VPMU_MODE_USER);
	is_u64(rd(v, 0xC0010004), 0, "k7: denied instructions count nothing");
	is_u64(rd(v, 0xC0010005), 60, "k7: cycles count");
	vpmu_vm_destroy(vm);
}

int main(void)
{
	struct vpmu_backend be;
	if (vpmu_sim_create(4, &sim) || (vpmu_sim_backend(sim, &be), vpmu_host_create(&be, 4, &host))) {
		printf("Bail out! cannot create the sim host\n");
		return 1;
	}
	vpmu_sim_attach(sim, host);
	test_p6_deny_allow();
	test_refusals();
	test_arch_masked_fixed();
	test_late_vcpu();
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return tap_done();
}
