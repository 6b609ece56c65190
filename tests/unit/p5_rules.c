/* SPDX-License-Identifier: MIT */
/*
 * Every perfctr rule of every P5-family model, through the public API with the
 * sim backend.  The models have one rule each, cesr-reserved: perfctr's reserved
 * mask per 16-bit CESR half (perfctr low-level-x86.txt "Intel P5"; x86.c
 * p5_check_control), 0xFE00 on Intel, 0xFA00 on Cyrix, 0xFF00 on WinChip.
 * Strict mode refuses a violating write with #GP and leaves the register as it
 * was; the default mode lets it land and counts it in totals.violations[0].
 * Bits the hardware itself refuses fault in both modes and are no rule
 * violation (docs/models/p5.md "Assumptions").
 */
#include <string.h>

#include "guest_msr.h"
#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

#define CESR 0x11
#define CTR0 0x12

struct family_case {
	const char *model;
	uint16_t perfctr_only;  /* a bit in perfctr's mask the hardware accepts */
	uint32_t hw_reserved;   /* a CESR bit below 32 the hardware refuses (0: none) */
	uint16_t valid_half;    /* a half that counts and breaks nothing */
};

static const struct family_case cases[] = {
	/* Intel: PC (bit 9) is the one bit of 0xFE00 the hardware accepts. */
	{ "p5",         0x0200, 0x00000400, 0x00D6 },
	{ "p5mmx",      0x0200, 0x04000000, 0x01F0 },
	/* Cyrix: PC again; bit 10 is event bit 6 and outside 0xFA00. */
	{ "6x86mx",     0x0200, 0x00000800, 0x04D6 },
	{ "mii",        0x0200, 0x08000000, 0x04D6 },
	{ "cyrix-iii",  0x0200, 0x00008000, 0x04D6 },
	/* WinChip: bits 8-15 are plain storage to the hardware. */
	{ "winchip-c6", 0x0100, 0,          0x0002 },
	{ "winchip2",   0x8000, 0,          0x003F },
	{ "winchip3",   0x1000, 0,          0x0016 },
};

static struct vpmu_host *host;

static struct vpmu_vcpu *new_vcpu(const char *model, unsigned flags, struct vpmu_vm **vm)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vcpu *v = NULL;
	cfg.model = model;
	cfg.flags = flags;
	*vm = NULL;
	if (vpmu_vm_create(host, &cfg, vm) || vpmu_vcpu_create(*vm, 0, &v))
		return NULL;
	return v;
}

static uint64_t violations(const struct vpmu_vm *vm)
{
	struct vpmu_totals t;
	memset(&t, 0, sizeof(t));
	vpmu_vm_totals(vm, &t);
	return t.violations[0];
}

static void test_names(const struct family_case *c)
{
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v = new_vcpu(c->model, 0, &vm);
	ok(v != NULL, "%s: VM and vCPU created", c->model);
	const char *name = vpmu_vm_rule_name(vm, 0);
	ok(name && strcmp(name, "cesr-reserved") == 0, "%s: rule 0 is cesr-reserved", c->model);
	ok(vpmu_vm_rule_name(vm, 1) == NULL, "%s: no rule 1 (the others hold by construction)",
	   c->model);
	vpmu_vm_destroy(vm);
}

static void test_default(const struct family_case *c)
{
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v = new_vcpu(c->model, 0, &vm);
	if (!v)
		return;
	is_u64(wr(v, CESR, c->valid_half), VPMU_FAULT_NONE, "%s default: valid half accepted", c->model);
	is_u64(violations(vm), 0, "%s default: a valid write breaks no rule", c->model);
	uint64_t half0 = (uint64_t)(c->valid_half | c->perfctr_only);
	is_u64(wr(v, CESR, half0), VPMU_FAULT_NONE, "%s default: perfctr-reserved bit in half 0 lands",
	       c->model);
	is_u64(rd(v, CESR), half0, "%s default: and reads back", c->model);
	is_u64(violations(vm), 1, "%s default: recorded once", c->model);
	uint64_t half1 = (uint64_t)c->perfctr_only << 16;
	is_u64(wr(v, CESR, half1), VPMU_FAULT_NONE, "%s default: perfctr-reserved bit in half 1 lands",
	       c->model);
	is_u64(violations(vm), 2, "%s default: recorded again (half 1, checked on every write)",
	       c->model);
	is_u64(wr(v, CESR, 1ull << 32), VPMU_FAULT_RESERVED, "%s default: bit 32 is a hardware #GP",
	       c->model);
	if (c->hw_reserved)
		is_u64(wr(v, CESR, c->hw_reserved), VPMU_FAULT_RESERVED,
		       "%s default: hardware-reserved bit 0x%x faults", c->model, c->hw_reserved);
	is_u64(violations(vm), 2, "%s default: hardware faults are no rule violation", c->model);
	is_u64(rd(v, CESR), half1, "%s default: faulting writes changed nothing", c->model);
	vpmu_vm_destroy(vm);
}

static void test_strict(const struct family_case *c)
{
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v = new_vcpu(c->model, VPMU_VM_STRICT, &vm);
	if (!v)
		return;
	is_u64(wr(v, CESR, c->valid_half), VPMU_FAULT_NONE, "%s strict: valid half accepted", c->model);
	is_u64(wr(v, CTR0, 1234), VPMU_FAULT_NONE, "%s strict: counter write accepted", c->model);
	uint64_t control_id = vpmu_vcpu_control_id(v);
	is_u64(wr(v, CESR, c->valid_half | c->perfctr_only), VPMU_FAULT_STRICT,
	       "%s strict: perfctr-reserved bit in half 0 refused", c->model);
	is_u64(wr(v, CESR, (uint64_t)c->perfctr_only << 16 | c->valid_half), VPMU_FAULT_STRICT,
	       "%s strict: perfctr-reserved bit in half 1 refused", c->model);
	is_u64(wr(v, CESR, (uint64_t)c->perfctr_only << 16), VPMU_FAULT_STRICT,
	       "%s strict: refused even with no counter left counting (step 1)", c->model);
	if (c->hw_reserved)
		is_u64(wr(v, CESR, c->hw_reserved), VPMU_FAULT_RESERVED,
		       "%s strict: hardware-reserved bit is a hardware #GP", c->model);
	is_u64(rd(v, CESR), c->valid_half, "%s strict: CESR unchanged", c->model);
	is_u64(rd(v, CTR0), 1234, "%s strict: counter unchanged", c->model);
	is_u64(vpmu_vcpu_control_id(v), control_id, "%s strict: control unchanged", c->model);
	struct vpmu_totals t;
	memset(&t, 0, sizeof(t));
	vpmu_vm_totals(vm, &t);
	is_u64(t.strict_refusals, 3, "%s strict: three refusals counted", c->model);
	/* Strict mode names what it refused: each refusal is counted against the
	 * rule it would have broken (vpmu.h, struct vpmu_totals). */
	is_u64(t.violations[0], 3, "%s strict: the three refusals are recorded against cesr-reserved", c->model);
	vpmu_vm_destroy(vm);
}

int main(void)
{
	struct vpmu_sim *sim;
	struct vpmu_backend be;
	if (vpmu_sim_create(1, &sim))
		return 1;
	vpmu_sim_backend(sim, &be);
	if (vpmu_host_create(&be, 1, &host))
		return 1;
	vpmu_sim_attach(sim, host);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ok(vpmu_model_description(cases[i].model) != NULL, "%s is registered",
		   cases[i].model);
		test_names(&cases[i]);
		test_default(&cases[i]);
		test_strict(&cases[i]);
	}
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return tap_done();
}
