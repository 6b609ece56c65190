/* SPDX-License-Identifier: MIT */
/*
 * Every perfctr rule of the K7, K8, C3 and generic models through the public API
 * (docs/principles.md §2): a default-mode VM takes the write as the hardware does
 * and records the rule in totals.violations[rule]; a strict VM refuses it with
 * VPMU_FAULT_STRICT and every register keeps its value.  Writes the hardware
 * refuses fault in both modes.  Rule ids and names: docs/models/{k7,k8,c3}.md.
 */
#include <string.h>

#include "guest_msr.h"
#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

#define K7_EVNTSEL(n) (0xC0010000u + (n))
#define K7_PERFCTR(n) (0xC0010004u + (n))
#define C3_PERFCTR0 0xC1u
#define C3_PERFCTR1 0xC2u
#define C3_EVNTSEL0 0x186u
#define C3_EVNTSEL1 0x187u

static struct vpmu_sim *sim;
static struct vpmu_host *host;
static unsigned next_cpu;

/* A VM of `model` with vCPU 0 switched in on a host CPU of its own. */
static struct vpmu_vcpu *new_vcpu(const char *model, bool strict, int cpumodel,
				  struct vpmu_vm **vm_out)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	struct vpmu_vcpu *v = NULL;
	cfg.model = model;
	cfg.flags = strict ? VPMU_VM_STRICT : 0;
	cfg.cpumodel = cpumodel;
	if (vpmu_vm_create(host, &cfg, &vm) || vpmu_vcpu_create(vm, 0, &v) ||
	    vpmu_vcpu_switch_in(v, next_cpu++))
		return NULL;
	*vm_out = vm;
	return v;
}

static struct vpmu_totals totals(struct vpmu_vm *vm)
{
	struct vpmu_totals t;
	memset(&t, 0xff, sizeof(t));
	vpmu_vm_totals(vm, &t);
	return t;
}

/* The violation counts of rules 0..VPMU_MAX_RULES-1 as a mask of non-zero ones. */
static uint32_t violated(struct vpmu_vm *vm)
{
	struct vpmu_totals t = totals(vm);
	uint32_t mask = 0;
	for (unsigned i = 0; i < VPMU_MAX_RULES; i++)
		if (t.violations[i])
			mask |= 1u << i;
	return mask;
}

/*
 * One rule, both modes.  `setup` runs first (it must break no rule), then `val` is
 * written to `msr`: the default VM records exactly rule `rule` once, the strict VM
 * refuses it and `msr` and `probe` read back as before.
 */
struct case_ {
	const char *model;
	int cpumodel;
	const char *rule_name;
	unsigned rule;
	uint32_t setup_msr[2];
	uint64_t setup_val[2];
	uint32_t msr;
	uint64_t val;
	uint32_t probe;
};

static void check_rule(const struct case_ *c)
{
	for (int strict = 0; strict <= 1; strict++) {
		struct vpmu_vm *vm = NULL;
		struct vpmu_vcpu *v = new_vcpu(c->model, strict, c->cpumodel, &vm);
		ok(v != NULL, "%s %s: VM created", c->model, strict ? "strict" : "default");
		if (!v)
			continue;
		for (int i = 0; i < 2 && c->setup_msr[i]; i++)
			is_u64(wr(v, c->setup_msr[i], c->setup_val[i]), VPMU_FAULT_NONE,
			       "%s: setup write %d is valid", c->rule_name, i);
		is_u64(violated(vm), 0, "%s: setup breaks no rule", c->rule_name);
		uint64_t before = rd(v, c->msr), probe = rd(v, c->probe);
		enum vpmu_fault f = wr(v, c->msr, c->val);
		struct vpmu_totals t = totals(vm);
		ok(vpmu_vm_rule_name(vm, c->rule) && strcmp(vpmu_vm_rule_name(vm, c->rule),
							      c->rule_name) == 0,
		   "%s: rule %u is named %s", c->model, c->rule, c->rule_name);
		if (strict) {
			is_u64(f, VPMU_FAULT_STRICT, "%s strict: 0x%llx refused", c->rule_name,
			       (unsigned long long)c->val);
			is_u64(t.strict_refusals, 1, "%s strict: one refusal counted", c->rule_name);
			is_u64(violated(vm), 1u << c->rule, "%s strict: the refusal is recorded against its rule",
			       c->rule_name);
			is_u64(rd(v, c->msr), before, "%s strict: register unchanged", c->rule_name);
			is_u64(rd(v, c->probe), probe, "%s strict: counter unchanged", c->rule_name);
		} else {
			is_u64(f, VPMU_FAULT_NONE, "%s default: 0x%llx lands", c->rule_name,
			       (unsigned long long)c->val);
			is_u64(t.violations[c->rule], 1, "%s default: recorded once", c->rule_name);
			is_u64(violated(vm), 1u << c->rule, "%s default: only this rule",
			       c->rule_name);
			is_u64(rd(v, c->msr), c->val, "%s default: value stored", c->rule_name);
		}
		vpmu_vm_destroy(vm);
	}
}

static const struct case_ cases[] = {
	/* K7: PC (bit 19) is valid hardware, reserved by perfctr (x86.c p6_like_check_control). */
	{ "k7", -1, "evntsel-reserved", 0, { 0 }, { 0 },
	  K7_EVNTSEL(0), 0x4B0076, K7_PERFCTR(0) },
	/* Also on a disabled EVNTSEL: step-1 rules apply to every write. */
	{ "k7", -1, "evntsel-reserved", 0, { 0 }, { 0 },
	  K7_EVNTSEL(3), 0x080000, K7_PERFCTR(3) },
	/* EN without USR/OS: enabled, counts nothing, perfctr -EINVAL. */
	{ "k7", -1, "cpl-none", 1, { 0 }, { 0 },
	  K7_EVNTSEL(1), 0x4000C0, K7_PERFCTR(1) },
	/* INT with the counter at 5: a non-negative i-mode start. */
	{ "k7", -1, "ireset-nonnegative", 2, { K7_PERFCTR(2) }, { 5 },
	  K7_EVNTSEL(2), 0x530076, K7_PERFCTR(2) },
	/* The same rules on the K8. */
	{ "k8", -1, "evntsel-reserved", 0, { 0 }, { 0 },
	  K7_EVNTSEL(0), 0x4B0076, K7_PERFCTR(0) },
	{ "k8", -1, "cpl-none", 1, { 0 }, { 0 },
	  K7_EVNTSEL(1), 0x400076, K7_PERFCTR(1) },
	{ "k8", -1, "ireset-nonnegative", 2, { 0 }, { 0 },
	  K7_EVNTSEL(3), 0x5300C0, K7_PERFCTR(3) },
	/* K8 rev E (default model 0x23): an enabled NB event, perfctr 2.6.x -EPERM. */
	{ "k8", -1, "nb-event-reve", 3, { 0 }, { 0 },
	  K7_EVNTSEL(0), 0x4300E0, K7_PERFCTR(0) },
	/* Enabling a disabled NB event later is the write that breaks it. */
	{ "k8", 0x2B, "nb-event-reve", 3, { K7_PERFCTR(1), K7_EVNTSEL(1) }, { 0, 0x0300E9 },
	  K7_EVNTSEL(1), 0x4300E9, K7_PERFCTR(1) },
	/* C3: anything outside the 9-bit event field (perfctr vc3_check_control, -EPERM). */
	{ "c3", -1, "evntsel-reserved", 0, { C3_EVNTSEL1 }, { 0x79 },
	  C3_EVNTSEL1, 0x5300C0, C3_PERFCTR1 },
};

static void check_hardware_faults(void)
{
	static const char *const models[] = { "k7", "k8" };
	for (unsigned m = 0; m < 2; m++)
		for (int strict = 0; strict <= 1; strict++) {
			struct vpmu_vm *vm = NULL;
			struct vpmu_vcpu *v = new_vcpu(models[m], strict, -1, &vm);
			is_u64(wr(v, K7_EVNTSEL(0), 0x200000), VPMU_FAULT_RESERVED,
			       "%s: EVNTSEL bit 21 is #GP", models[m]);
			is_u64(wr(v, K7_EVNTSEL(2), 1ull << 32 | 0x430076), VPMU_FAULT_RESERVED,
			       "%s: EVNTSEL bits 32-63 are #GP", models[m]);
			is_u64(wr(v, K7_PERFCTR(1), ~0ull), VPMU_FAULT_NONE,
			       "%s: counter bits 48-63 are dropped, not #GP", models[m]);
			is_u64(rd(v, K7_PERFCTR(1)), 0xFFFFFFFFFFFFull, "%s: 48 bits kept", models[m]);
			is_u64(wr(v, 0x186, 0), VPMU_FAULT_NO_REG, "%s: no P6 EVNTSEL0", models[m]);
			struct vpmu_totals t = totals(vm);
			is_u64(t.faults, 3, "%s: three hardware faults", models[m]);
			is_u64(t.strict_refusals, 0, "%s: no strict refusal", models[m]);
			is_u64(violated(vm), 0, "%s: no rule recorded", models[m]);
			ok(vpmu_vm_rule_name(vm, m == 0 ? 3 : 4) == NULL, "%s: no rule past the last",
			   models[m]);
			vpmu_vm_destroy(vm);
		}
}

static void check_c3_registers(void)
{
	for (int strict = 0; strict <= 1; strict++) {
		struct vpmu_vm *vm = NULL;
		struct vpmu_vcpu *v = new_vcpu("c3", strict, -1, &vm);
		is_u64(wr(v, C3_EVNTSEL0, 0x79), VPMU_FAULT_READ_ONLY, "c3: EVNTSEL0 is read-only");
		is_u64(wr(v, C3_PERFCTR0, 5), VPMU_FAULT_READ_ONLY, "c3: PERFCTR0 is read-only");
		is_u64(wr(v, C3_EVNTSEL0, 0), VPMU_FAULT_NONE, "c3: rewriting 0 is harmless");
		is_u64(wr(v, C3_EVNTSEL1, 1ull << 40), VPMU_FAULT_RESERVED, "c3: bits 32-63 #GP");
		is_u64(wr(v, C3_EVNTSEL1, 0x1C0), VPMU_FAULT_NONE, "c3: 9-bit event field valid");
		is_u64(wr(v, C3_PERFCTR1, 0x700000003ull), VPMU_FAULT_NONE, "c3: counter write");
		is_u64(rd(v, C3_PERFCTR1), 3, "c3: 32 bits kept");
		is_u64(violated(vm), 0, "c3 %s: no rule recorded", strict ? "strict" : "default");
		ok(vpmu_vm_rule_name(vm, 1) == NULL, "c3: one rule only");
		vpmu_vm_destroy(vm);
	}
}

static void check_generic(void)
{
	static const uint32_t msrs[] = { 0x11, 0x12, 0xC1, 0xC2, 0x186, 0x187, 0x1A0,
					 0x300, 0x360, 0x3A0, 0x3F1, 0xC0010000, 0xC0010007 };
	for (int strict = 0; strict <= 1; strict++) {
		struct vpmu_vm *vm = NULL;
		struct vpmu_vcpu *v = new_vcpu("generic", strict, -1, &vm);
		unsigned refused = 0;
		for (unsigned i = 0; i < sizeof(msrs) / sizeof(msrs[0]); i++) {
			enum vpmu_fault f;
			uint64_t val;
			vpmu_reg_read(v, VPMU_SPACE_MSR, msrs[i], &val, &f);
			refused += f == VPMU_FAULT_NO_REG;
			refused += wr(v, msrs[i], 0) == VPMU_FAULT_NO_REG;
			refused += !vpmu_vm_owns_reg(vm, VPMU_SPACE_MSR, msrs[i]);
		}
		is_u64(refused, 3 * sizeof(msrs) / sizeof(msrs[0]),
		       "generic: every PMU MSR is #GP and unowned");
		is_u64(vpmu_vm_regs(vm, VPMU_SPACE_MSR, NULL, 0), 0, "generic: owns no register");
		ok(vpmu_vm_rule_name(vm, 0) == NULL, "generic: no rule");
		is_u64(violated(vm), 0, "generic: nothing recorded");
		vpmu_vm_destroy(vm);
	}
}

/* Two K7 i-mode counters wrapping in one tick: one PMI, both in the overflow mask. */
static void check_k7_overflow_mask(void)
{
	struct vpmu_vm *vm = NULL;
	struct vpmu_vcpu *v = new_vcpu("k7", true, -1, &vm);
	unsigned cpu = 0;
	vpmu_vcpu_running(v, &cpu);
	wr(v, K7_PERFCTR(0), -4ull);
	wr(v, K7_PERFCTR(3), -4ull);
	is_u64(wr(v, K7_EVNTSEL(0), 0x530076), VPMU_FAULT_NONE, "k7 strict: i-mode from -4");
	is_u64(wr(v, K7_EVNTSEL(3), 0x510076), VPMU_FAULT_NONE, "k7 strict: user-only i-mode");
	vpmu_sim_tick(sim, cpu, VPMU_EV_CYCLES, 4, VPMU_MODE_USER);
	uint64_t mask = 0;
	ok(vpmu_vcpu_pmi_pending(v, &mask), "k7: PMI pending");
	is_u64(mask, 0x9, "k7: counters 0 and 3 overflowed");
	is_u64(totals(vm).pmis, 1, "k7: one PMI for both");
	vpmu_vcpu_pmi_ack(v);
	vpmu_vm_destroy(vm);
}

int main(void)
{
	struct vpmu_backend be;
	if (vpmu_sim_create(64, &sim) != 0)
		return 1;
	vpmu_sim_backend(sim, &be);
	if (vpmu_host_create(&be, 64, &host) != 0)
		return 1;
	vpmu_sim_attach(sim, host);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_rule(&cases[i]);
	check_hardware_faults();
	check_c3_registers();
	check_generic();
	check_k7_overflow_mask();
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return tap_done();
}
