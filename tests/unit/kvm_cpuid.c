/* SPDX-License-Identifier: MIT */
/*
 * The CPUID the KVM glue presents per model (vmm-glue/kvm_cpuid.c).  Expected
 * signatures are the CPUID.1:EAX encoding of the processors' documented
 * family/model/stepping (Intel SDM vol 2 CPUID, "Version Information": stepping
 * 3:0, model 7:4, family 11:8, extended model 19:16, extended family 27:20 used
 * only for family 0Fh), for the identities the model pages give.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>

#include "run/kvm_pvclock.h"
#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/kvm_x86.h"
#include "vpmu/vpmu.h"

static struct vpmu_host *host;

static struct vpmu_vm *vm_of(const char *model, int cpumodel)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	cfg.model = model;
	cfg.cpumodel = cpumodel;
	vpmu_vm_create(host, &cfg, &vm);
	return vm;
}

static const struct kvm_cpuid_entry2 *leaf(const struct kvm_cpuid_entry2 *e, int n, uint32_t fn)
{
	for (int i = 0; i < n; i++)
		if (e[i].function == fn)
			return &e[i];
	return NULL;
}

static void vendor_of(const struct kvm_cpuid_entry2 *e, char out[13])
{
	memcpy(out, &e->ebx, 4);
	memcpy(out + 4, &e->edx, 4);
	memcpy(out + 8, &e->ecx, 4);
	out[12] = 0;
}

#define CPUID_APIC (1u << 9)
#define CPUID_TSC  (1u << 4)
#define CPUID_MSR  (1u << 5)
#define CPUID_MMX  (1u << 23)
#define EXT_LM     (1u << 29)

struct want {
	const char *model;
	int cpumodel;
	const char *vendor;
	uint32_t eax1;
	int has_apic;
	int has_mmx;
	int ext_leaves;     /* extended leaves: 0, 2 (80000000h-80000001h), 5 (and the brand string) */
};

static struct vpmu_vm *p3_vm;
static struct vpmu_vm *p3_of(void)
{
	if (!p3_vm)
		p3_vm = vm_of("p6", -1);
	return p3_vm;
}

int main(void)
{
	struct vpmu_sim *sim;
	struct vpmu_backend be;
	vpmu_sim_create(1, &sim);
	vpmu_sim_backend(sim, &be);
	vpmu_host_create(&be, 1, &host);

	static const struct want wants[] = {
		/* P54C (family 5 model 2): integrated APIC, no MMX, no extended leaves. */
		{ "p5", -1, "GenuineIntel", 0x52C, 1, 0, 0 },
		{ "p5mmx", -1, "GenuineIntel", 0x543, 1, 1, 0 },
		/* Pentium III Coppermine: family 6 model 8 stepping 3. */
		{ "p6", -1, "GenuineIntel", 0x683, 1, 1, 0 },
		/* Athlon (Palomino) family 6 model 6 stepping 2. */
		{ "k7", -1, "AuthenticAMD", 0x662, 1, 1, 2 },
		/* K8 rev E: family 0Fh, model 35 = 0x23 -> extended model 2, model 3. */
		{ "k8", -1, "AuthenticAMD", 0x20F32, 1, 1, 2 },
		/* VIA C3 Samuel 2 / Ezra: family 6 model 7; no APIC on these parts. */
		{ "c3", -1, "CentaurHauls", 0x673, 0, 1, 2 },
		{ "winchip-c6", -1, "CentaurHauls", 0x541, 0, 1, 0 },
		/* K6-2 stands in for "any x86 with a TSC": family 5 model 8 stepping 12. */
		{ "generic", -1, "AuthenticAMD", 0x58C, 0, 1, 2 },
		/* Pentium 4 Northwood (family 0Fh model 2 stepping 9) and Prescott 2M
		 * (model 4 stepping 3): the brand string leaves, as every P4 has. */
		{ "p4", -1, "GenuineIntel", 0xF29, 1, 1, 5 },
		{ "p4-em64t", -1, "GenuineIntel", 0xF43, 1, 1, 5 },
		/* A config's cpumodel reaches the signature (Pentium M model 13). */
		{ "p6", 13, "GenuineIntel", 0x6D3, 1, 1, 0 },
	};
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const struct want *w = &wants[i];
		struct vpmu_vm *vm = vm_of(w->model, w->cpumodel);
		struct kvm_cpuid_entry2 e[8];
		int n = vm ? vpmu_kvm_cpuid_entries(vm, 3, e, 8) : -1;
		ok(n == 2 + w->ext_leaves, "%s: %d CPUID leaves (%d)", w->model, 2 + w->ext_leaves, n);
		const struct kvm_cpuid_entry2 *l0 = leaf(e, n, 0), *l1 = leaf(e, n, 1);
		char vendor[13] = "";
		if (l0)
			vendor_of(l0, vendor);
		ok(l0 && l0->eax == 1 && strcmp(vendor, w->vendor) == 0,
		   "%s: leaf 0 says max leaf 1 and vendor %s (%s)", w->model, w->vendor, vendor);
		is_u64(l1 ? l1->eax : 0, w->eax1, "%s (cpumodel %d): leaf 1 signature", w->model,
		       w->cpumodel);
		ok(l1 && (l1->ebx >> 24) == 3, "%s: leaf 1 EBX carries the initial APIC id", w->model);
		ok(l1 && ((l1->ebx >> 8) & 0xFF) == ((l1->edx & (1u << 19)) ? 8u : 0u),
		   "%s: leaf 1 EBX's CLFLUSH line size is 8 (64 bytes) exactly when CLFSH is set "
		   "(seen %u, CLFSH %s)", w->model, l1 ? (l1->ebx >> 8) & 0xFF : 0,
		   l1 && (l1->edx & (1u << 19)) ? "set" : "clear");
		ok(l1 && (l1->edx & (CPUID_TSC | CPUID_MSR)) == (CPUID_TSC | CPUID_MSR),
		   "%s: TSC and MSR (RDMSR/WRMSR) present", w->model);
		ok(l1 && !!(l1->edx & CPUID_APIC) == w->has_apic, "%s: APIC bit %s", w->model,
		   w->has_apic ? "set" : "clear");
		ok(l1 && !!(l1->edx & CPUID_MMX) == w->has_mmx, "%s: MMX bit %s", w->model,
		   w->has_mmx ? "set" : "clear");
		if (w->ext_leaves) {
			const struct kvm_cpuid_entry2 *x0 = leaf(e, n, 0x80000000);
			char xv[13] = "";
			if (x0)
				vendor_of(x0, xv);
			uint32_t max = 0x80000000u + (uint32_t)w->ext_leaves - 1;
			ok(x0 && x0->eax == max && strcmp(xv, w->vendor) == 0,
			   "%s: leaf 80000000h: max %xh, vendor %s", w->model, max, w->vendor);
		}
		if (w->ext_leaves == 5) {
			/* The brand string is 48 bytes in leaves 80000002h-80000004h,
			 * EAX EBX ECX EDX each (Intel SDM vol. 2A, CPUID). */
			char brand[49] = "";
			for (unsigned k = 0; k < 3; k++) {
				const struct kvm_cpuid_entry2 *b = leaf(e, n, 0x80000002u + k);
				if (!b)
					break;
				memcpy(brand + 16 * k, &b->eax, 4);
				memcpy(brand + 16 * k + 4, &b->ebx, 4);
				memcpy(brand + 16 * k + 8, &b->ecx, 4);
				memcpy(brand + 16 * k + 12, &b->edx, 4);
			}
			struct vpmu_cpu_identity id;
			vpmu_vm_cpu(vm, &id);
			ok(id.brand && strcmp(brand, id.brand) == 0 &&
			   strncmp(brand, "Intel(R) Pentium(R) 4 CPU", 25) == 0,
			   "%s: the brand string leaves spell \"%s\"", w->model, brand);
		}
		vpmu_vm_destroy(vm);
	}

	/* Long mode only where the real CPUs had it (KVM's __kvm_valid_efer: EFER.LME needs LM). */
	struct vpmu_vm *k8 = vm_of("k8", -1), *k7 = vm_of("k7", -1);
	struct kvm_cpuid_entry2 e[8];
	int n = vpmu_kvm_cpuid_entries(k8, 0, e, 8);
	const struct kvm_cpuid_entry2 *x1 = leaf(e, n, 0x80000001);
	ok(x1 && (x1->edx & EXT_LM), "k8 presents long mode");
	n = vpmu_kvm_cpuid_entries(k7, 0, e, 8);
	x1 = leaf(e, n, 0x80000001);
	ok(x1 && !(x1->edx & EXT_LM), "k7 (32-bit only) does not");
	memset(e, 0x5a, sizeof(e));
	n = vpmu_kvm_cpuid_entries(k7, 0, e, 3);
	ok(n == -ENOSPC && e[0].function == 0x5a5a5a5a,
	   "a table with too few entries (3 for k7's 4 leaves): -ENOSPC, nothing written (got %d)", n);
	n = vpmu_kvm_cpuid_entries(p3_of(), 0, e, 2);
	ok(n == 2, "p6 has no extended leaves: 2 entries fit a table of 2 (got %d)", n);
	ok(vpmu_kvm_cpuid_entries(NULL, 0, e, 8) == -EINVAL, "NULL VM: -EINVAL, no crash");
	ok(vpmu_kvm_cpuid_entries(k7, 0, NULL, 8) == -EINVAL, "NULL table: -EINVAL, no crash");
	char err[VPMU_KVM_ERRLEN] = "";
	ok(vpmu_kvm_vcpu_run(NULL, 0, err) == -EINVAL && err[0] != '\0',
	   "vpmu_kvm_vcpu_run(NULL): -EINVAL with a message, no crash");
	ok(vpmu_kvm_vcpu_run(NULL, 0, NULL) == -EINVAL, "... and without a message buffer");
	ok(vpmu_kvm_vcpu_stats(NULL) == NULL, "vpmu_kvm_vcpu_stats(NULL): NULL");
	vpmu_kvm_vcpu_destroy(NULL);
	ok(1, "vpmu_kvm_vcpu_destroy(NULL) is a no-op");
	/* kvmclock for vpmu-run's Linux guests (tools/run/kvm_pvclock.c): Linux
	 * Documentation/virt/kvm/x86/cpuid.rst gives the signature and bits. */
	struct kvm_cpuid_entry2 pv[10];
	memset(pv, 0, sizeof(pv));
	n = vpmu_kvm_cpuid_entries(k7, 0, pv, 8);
	uint32_t ecx1 = n > 0 && leaf(pv, n, 1) ? leaf(pv, n, 1)->ecx : 0;
	int m = n > 0 ? kvm_pvclock_leaves(pv, (unsigned)n, 10) : -1;
	const struct kvm_cpuid_entry2 *sig = m > 0 ? leaf(pv, m, 0x40000000) : NULL;
	const struct kvm_cpuid_entry2 *feat = m > 0 ? leaf(pv, m, 0x40000001) : NULL;
	char kvmsig[13] = "";
	if (sig) {
		memcpy(kvmsig, &sig->ebx, 4);
		memcpy(kvmsig + 4, &sig->ecx, 4);
		memcpy(kvmsig + 8, &sig->edx, 4);
	}
	ok(m == n + 2 && leaf(pv, m, 1)->ecx == (ecx1 | 0x80000000u) && sig &&
	   sig->eax == 0x40000001 && !memcmp(kvmsig, "KVMKVMKVM\0\0\0", 12) && feat &&
	   feat->eax == ((1u << 3) | (1u << 24)) && !feat->ebx && !feat->ecx && !feat->edx,
	   "kvmclock: the hypervisor bit, \"KVMKVMKVM\" at 40000000h, CLOCKSOURCE2 and the "
	   "stable bit alone at 40000001h (%d entries)", m);
	ok(leaf(pv, m, 0) && leaf(pv, m, 0x80000000) && leaf(pv, m, 0x80000001),
	   "... and the model's own leaves kept");
	struct kvm_cpuid_entry2 tight[4];
	memset(tight, 0, sizeof(tight));
	n = vpmu_kvm_cpuid_entries(p3_of(), 0, tight, 4);
	ok(n == 2 && kvm_pvclock_leaves(tight, 2, 3) == -ENOSPC && !(tight[1].ecx & 0x80000000u),
	   "kvmclock without room for two leaves: -ENOSPC, the table unchanged");
	ok(kvm_pvclock_leaves(tight, 1, 4) == -EINVAL, "kvmclock on a table without leaf 1: -EINVAL");

	/* LVTPC auto-mask on PMI delivery: Pentium M and P4 only (SDM vol. 3, LVT). */
	struct vpmu_vm *p3 = vm_of("p6", -1), *pm = vm_of("p6", 13), *banias = vm_of("p6", 9);
	ok(!vpmu_vm_pmi_automask(p3), "a Pentium III (p6 model 8) does not auto-mask the LVTPC");
	ok(vpmu_vm_pmi_automask(pm) && vpmu_vm_pmi_automask(banias),
	   "a Pentium M (p6 cpumodel 9 and 13) does");
	ok(!vpmu_vm_pmi_automask(k7) && !vpmu_vm_pmi_automask(k8), "AMD K7/K8 never do");
	/* Family-6 model numbers are not in release order: the P-III class goes on
	 * past the Pentium M's 9 with the Pentium III Xeon "Cascades" (10) and the
	 * Pentium III "Tualatin" (11), which do not auto-mask; the Pentium M Dothan
	 * (13), Core Solo/Duo (14) and Core 2 (15) do (Linux
	 * arch/x86/events/intel/p6.c names 10 and 11 Pentium III; perfctr's x86.c
	 * re-arms the LVTPC on 9, 13, 14 and 15 only). */
	static const struct { int cpumodel; bool automask; const char *name; } id6[] = {
		{ 1, false, "Pentium Pro (model 1)" },
		{ 3, false, "Pentium II Klamath (model 3)" },
		{ 7, false, "Pentium III Katmai (model 7)" },
		{ 10, false, "Pentium III Xeon Cascades (model 10)" },
		{ 11, false, "Pentium III Tualatin (model 11)" },
		{ 14, true, "Core Solo/Duo Yonah (model 14)" },
		{ 15, true, "Core 2 Merom (model 15)" },
	};
	for (size_t i = 0; i < sizeof(id6) / sizeof(id6[0]); i++) {
		struct vpmu_vm *v = vm_of("p6", id6[i].cpumodel);
		ok(v && vpmu_vm_pmi_automask(v) == id6[i].automask, "p6 as a %s: %s", id6[i].name,
		   id6[i].automask ? "auto-masks the LVTPC" : "does not auto-mask the LVTPC");
		vpmu_vm_destroy(v);
	}
	struct vpmu_model_info mi;
	ok(vpmu_model_info("p6", &mi) == 0 && !mi.pmi_automask,
	   "the p6 model's default identity reports no auto-mask");
	/* AMD Zen: Fn8000_0001 ECX bit 23 PerfCtrExtCore on both; zen4's PerfMonV2
	 * leaf Fn8000_0022 (EAX bit 0; EBX[3:0] NumPerfCtrCore), which a narrowed
	 * VM shows narrowed; wider than the CPU's six or zero: refused (AMD APM
	 * vol. 2 "Performance Monitoring Counters"; CPUID Fn8000_0022). */
	{
		struct vpmu_cpuid_leaf cl[VPMU_MAX_CPUID_LEAVES];
		const struct vpmu_cpuid_leaf *l;
		struct vpmu_vm_config zc = VPMU_VM_CONFIG_INIT;
		struct vpmu_vm *z1 = NULL, *z4 = NULL, *z4n = NULL, *bad = NULL;
		zc.model = "zen1";
		ok(vpmu_vm_create(host, &zc, &z1) == 0, "zen1: created");
		int nl = vpmu_vm_cpuid(z1, cl, VPMU_MAX_CPUID_LEAVES);
		l = NULL;
		for (int i = 0; i < nl; i++)
			if (cl[i].function == 0x80000001)
				l = &cl[i];
		ok(l && (l->ecx & (1u << 23)) && l->eax == 0x800F11,
		   "zen1: 80000001h ECX PerfCtrExtCore, signature family 17h model 1 stepping 1");
		l = NULL;
		for (int i = 0; i < nl; i++)
			if (cl[i].function == 0x80000022)
				l = &cl[i];
		ok(!l, "zen1: no PerfMonV2 leaf");
		zc.nr_general = 4;
		ok(vpmu_vm_create(host, &zc, &bad) == -EINVAL, "zen1: no narrowing (nothing would tell the guest)");
		zc.model = "zen4";
		zc.nr_general = -1;
		ok(vpmu_vm_create(host, &zc, &z4) == 0, "zen4: created");
		nl = vpmu_vm_cpuid(z4, cl, VPMU_MAX_CPUID_LEAVES);
		l = NULL;
		for (int i = 0; i < nl; i++)
			if (cl[i].function == 0x80000022)
				l = &cl[i];
		ok(l && l->eax == 1 && l->ebx == 6, "zen4: 80000022h EAX PerfMonV2, EBX 6 counters");
		for (int i = 0; i < nl; i++)
			if (cl[i].function == 0x80000000)
				l = &cl[i];
		ok(l && l->function == 0x80000000 && l->eax >= 0x80000022, "zen4: 80000000h reaches 80000022h");
		zc.nr_general = 3;
		ok(vpmu_vm_create(host, &zc, &z4n) == 0, "zen4 nr_general 3: created");
		nl = vpmu_vm_cpuid(z4n, cl, VPMU_MAX_CPUID_LEAVES);
		l = NULL;
		for (int i = 0; i < nl; i++)
			if (cl[i].function == 0x80000022)
				l = &cl[i];
		ok(l && l->ebx == 3, "zen4 nr_general 3: 80000022h EBX 3");
		struct vpmu_pmu_info pi;
		ok(vpmu_vm_pmu(z4n, &pi) == 0 && pi.nr_general == 3 && pi.general_width == 48 &&
		   pi.version == 2, "zen4 nr_general 3: 3 x 48-bit counters, version 2");
		zc.nr_general = 7;
		ok(vpmu_vm_create(host, &zc, &bad) == -EINVAL, "zen4 nr_general 7: -EINVAL");
		zc.nr_general = 0;
		ok(vpmu_vm_create(host, &zc, &bad) == -EINVAL, "zen4 nr_general 0: -EINVAL");
		vpmu_vm_destroy(z1);
		vpmu_vm_destroy(z4);
		vpmu_vm_destroy(z4n);
	}
	vpmu_vm_destroy(p3);
	vpmu_vm_destroy(pm);
	vpmu_vm_destroy(banias);
	vpmu_vm_destroy(k8);
	vpmu_vm_destroy(k7);
	vpmu_vm_destroy(p3_vm);
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return tap_done();
}
