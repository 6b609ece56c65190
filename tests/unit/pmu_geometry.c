/* SPDX-License-Identifier: MIT */
/*
 * The per-VM PMU (docs/design.md "The per-VM PMU"): the geometry a VM asks for
 * (vpmu_vm_config's pmu_version, nr_general, nr_fixed) is applied by the
 * model's refresh, a wider one is refused, a legacy PMU takes no narrowing,
 * and the CPUID leaves follow (leaf 0AH: Intel SDM vol. 2A, CPUID
 * "Architectural Performance Monitoring Leaf").
 */
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

static struct vpmu_host *host;

static int make_vm(const char *model, int version, int gp, int fixed, struct vpmu_vm **vm)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	cfg.model = model;
	cfg.pmu_version = version;
	cfg.nr_general = gp;
	cfg.nr_fixed = fixed;
	*vm = NULL;
	return vpmu_vm_create(host, &cfg, vm);
}

static const struct vpmu_cpuid_leaf *leaf(const struct vpmu_cpuid_leaf *l, int n, uint32_t fn)
{
	for (int i = 0; i < n; i++)
		if (l[i].function == fn)
			return &l[i];
	return NULL;
}

int main(void)
{
	struct vpmu_sim *sim;
	struct vpmu_backend be;
	if (vpmu_sim_create(1, &sim) || (vpmu_sim_backend(sim, &be), vpmu_host_create(&be, 1, &host))) {
		printf("Bail out! no host\n");
		return 1;
	}
	struct vpmu_vm *vm;
	ok(make_vm("skylake", -1, 5, -1, &vm) == -EINVAL && !vm, "skylake: 5 general counters refused (it has 4)");
	ok(make_vm("skylake", -1, -1, 4, &vm) == -EINVAL, "skylake: 4 fixed counters refused (it has 3)");
	ok(make_vm("skylake", 5, -1, -1, &vm) == -EINVAL, "skylake: version 5 refused (it is version 4)");
	ok(make_vm("skylake", 0, -1, -1, &vm) == -EINVAL, "skylake: version 0 refused (architectural: 1 on)");
	ok(make_vm("skylake", 1, -1, 1, &vm) == -EINVAL, "skylake as version 1: no fixed counter to have");
	ok(make_vm("p6", -1, 1, -1, &vm) == -EINVAL, "p6: a legacy PMU takes no narrowing");
	ok(make_vm("p6", -1, 2, 0, &vm) == 0, "p6: its own geometry is accepted");
	vpmu_vm_destroy(vm);
	ok(make_vm("p4", -1, 17, -1, &vm) == -EINVAL, "p4: no narrowing either (its refresh op)");
	ok(make_vm("p4", -1, 18, 0, &vm) == 0, "p4: its own geometry is accepted");
	vpmu_vm_destroy(vm);

	struct vpmu_pmu_info pi;
	struct vpmu_cpuid_leaf l[VPMU_MAX_CPUID_LEAVES];
	ok(make_vm("skylake", -1, -1, -1, &vm) == 0, "skylake with its own geometry");
	ok(vpmu_vm_pmu(vm, &pi) == 0 && pi.version == 4 && pi.nr_general == 4 && pi.general_width == 48 &&
	   pi.nr_fixed == 3 && pi.fixed_width == 48, "skylake: v4, 4 x 48-bit general, 3 x 48-bit fixed");
	ok(pi.ctr_regs == (0xFull | 0x7ull << 8), "skylake: counters 0-3 and fixed 8-10 have registers "
	   "(%#llx)", (unsigned long long)pi.ctr_regs);
	int n = vpmu_vm_cpuid(vm, l, VPMU_MAX_CPUID_LEAVES);
	const struct vpmu_cpuid_leaf *a = leaf(l, n, 0xA), *z = leaf(l, n, 0);
	/* EAX: version 4, 4 counters, 48 bits, 7 architectural events; EDX: 3
	 * fixed counters of 48 bits. */
	ok(a && a->eax == 0x07300404 && a->ebx == 0 && a->edx == 0x603 && a->ecx == 0,
	   "skylake: leaf 0AH EAX 0x07300404, EBX 0, EDX 0x603");
	ok(z && z->eax == 0xA, "leaf 0 names 0AH the highest basic leaf");
	ok(vpmu_vm_cpuid(vm, l, 2) == -ENOSPC, "a short buffer: -ENOSPC");
	vpmu_vm_destroy(vm);

	ok(make_vm("c3", -1, -1, -1, &vm) == 0 && vpmu_vm_pmu(vm, &pi) == 0 && pi.nr_ctrs == 2 &&
	   pi.ctr_regs == 0x2, "c3: counter 1 alone has a register (PERFCTR1; %#llx)",
	   (unsigned long long)pi.ctr_regs);
	vpmu_vm_destroy(vm);
	/* IQ_ESCR0/1 (0x3BA, 0x3BB) exist on CPUID models 0-2 only. */
	{
		static const char *const m[] = { "p4", "p4-em64t" };
		bool has[2];
		for (int k = 0; k < 2; k++) {
			has[k] = make_vm(m[k], -1, -1, -1, &vm) == 0 && vpmu_vm_owns_reg(vm, VPMU_SPACE_MSR, 0x3BA) &&
				 vpmu_vm_owns_reg(vm, VPMU_SPACE_MSR, 0x3BB);
			vpmu_vm_destroy(vm);
		}
		ok(has[0] && !has[1], "IQ_ESCR0/1: registers of a p4 VM (model 2), not of a p4-em64t (model 4)");
	}

	ok(make_vm("skylake", 1, -1, -1, &vm) == 0 && vpmu_vm_pmu(vm, &pi) == 0 && pi.version == 1 &&
	   pi.nr_fixed == 0, "skylake as version 1: no fixed counters");
	n = vpmu_vm_cpuid(vm, l, VPMU_MAX_CPUID_LEAVES);
	a = leaf(l, n, 0xA);
	ok(a && a->eax == 0x07300401 && a->edx == 0, "skylake as version 1: leaf 0AH EAX 0x07300401, EDX 0");
	vpmu_vm_destroy(vm);

	ok(make_vm("sapphirerapids", -1, 3, 2, &vm) == 0, "sapphirerapids narrowed to 3 general, 2 fixed");
	n = vpmu_vm_cpuid(vm, l, VPMU_MAX_CPUID_LEAVES);
	a = leaf(l, n, 0xA);
	/* v5: EAX version 5, 3 counters, 48 bits, 8 events; ECX the fixed-counter
	 * bitmap (0x3); EDX 2 fixed counters, 48 bits, AnyThread deprecated (bit 15). */
	ok(a && a->eax == 0x08300305 && a->ecx == 0x3 && a->edx == (2u | 48u << 5 | 1u << 15),
	   "sapphirerapids narrowed: leaf 0AH follows");
	/* The 9 others: MISC_ENABLE, DEBUGCTL, PERF_CAPABILITIES, FIXED_CTR_CTRL,
	 * GLOBAL_STATUS, _CTRL, _OVF_CTRL, _STATUS_SET, _INUSE. */
	ok(vpmu_vm_pmu(vm, &pi) == 0 && pi.nr_regs == 3 + 3 + 3 + 2 + 9,
	   "narrowed: 3 counters, 3 selects, 3 aliases, 2 fixed and 9 other registers");
	vpmu_vm_destroy(vm);

	ok(make_vm("core2", -1, -1, -1, &vm) == 0 && vpmu_vm_pmu(vm, &pi) == 0 && pi.version == 2 &&
	   pi.general_width == 40 && pi.fixed_width == 40, "core2: v2, 40-bit counters");
	n = vpmu_vm_cpuid(vm, l, VPMU_MAX_CPUID_LEAVES);
	a = leaf(l, n, 0xA);
	ok(a && a->eax == 0x07280202 && a->edx == (3u | 40u << 5), "core2: leaf 0AH");
	ok(vpmu_vm_pmi_automask(vm), "core2 masks the LVTPC on PMI delivery (Pentium M and later)");
	vpmu_vm_destroy(vm);

	/* IA32_DEBUGCTL exits for an architectural VM (the model emulates its
	 * Freeze_PerfMon_On_PMI), not for the others, whose CPUs have it outside
	 * their PMU and for which KVM answers it. */
	uint32_t regs[512];
	unsigned nu = vpmu_pmu_regs(VPMU_SPACE_MSR, regs, 512), has = 0;
	for (unsigned i = 0; i < nu; i++)
		has += regs[i] == 0x1D9;
	ok(has == 0, "the models' union leaves IA32_DEBUGCTL to KVM");
	ok(make_vm("skylake", -1, -1, -1, &vm) == 0, "a skylake VM");
	unsigned nt = vpmu_vm_trapped_regs(vm, VPMU_SPACE_MSR, regs, 512);
	has = 0;
	for (unsigned i = 0; i < nt; i++)
		has += regs[i] == 0x1D9;
	ok(has == 1 && nt == nu + 1, "skylake: its VM traps the union and IA32_DEBUGCTL (%u, %u)", nt, nu);
	vpmu_vm_destroy(vm);
	ok(make_vm("p6", -1, -1, -1, &vm) == 0 && vpmu_vm_trapped_regs(vm, VPMU_SPACE_MSR, NULL, 0) == nu,
	   "p6: its VM traps the union alone (KVM answers IA32_DEBUGCTL)");
	vpmu_vm_destroy(vm);

	struct vpmu_model_info mi;
	ok(vpmu_model_info("icelake", &mi) == 0 && mi.pmu_version == 5 && mi.nr_general == 8 &&
	   mi.nr_fixed == 4 && mi.fixed_width == 48, "model info: icelake's limits");
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return tap_done();
}
