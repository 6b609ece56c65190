/* SPDX-License-Identifier: MIT */
/*
 * bench/kvm-exits.sh's guest: what one trapped PMU register access costs.
 * Each loop runs N accesses between two marks (VPMU_UCALL_MARK: the host
 * stamps them with its clock), and reports the guest's TSC ticks per access:
 *   - RDMSR and WRMSR of a PMU MSR: a KVM_EXIT_X86_RDMSR/WRMSR to user space,
 *     answered by libvpmu through the glue;
 *   - CPUID and WRMSR of IA32_BIOS_SIGN_ID (0x8B, which KVM intercepts and
 *     ignores): exits KVM handles in the kernel, the baseline of an exit that
 *     never reaches user space.  (SYSENTER_CS would not do: SVM passes it
 *     through, no exit at all.)
 * vpmu-run's accounting then gives libvpmu's own time per MSR exit.
 */
#include "guest.h"

#define N 2000
#define MSR_BIOS_SIGN_ID 0x8B

struct pmu_regs {
	uint32_t ctrl, ctr;
	uint64_t ctrl_value;    /* a valid a-mode image: the write lands, counts */
};

static const struct pmu_regs *pmu_of_cpu(void)
{
	static const struct pmu_regs p6 = { 0x186, 0xC1, 0x4300C0 };
	static const struct pmu_regs k7 = { 0xC0010000, 0xC0010004, 0x4300C0 };
	uint32_t r[4];
	cpuid(0, 0, r);
	/* "Auth" of AuthenticAMD in EBX: the K7 layout; anything else here is P6. */
	return r[1] == 0x68747541 ? &k7 : &p6;
}

static void report(const char *what, uint64_t ticks)
{
	char label[96];
	snprintf(label, sizeof(label), "%s: TSC ticks per access", what);
	/* No libgcc in the guests: 32-bit division (N accesses of < 2 ms each fit). */
	uint32_t t = ticks > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)ticks;
	mark(label, t / N);
}

void guest_main(void)
{
	const struct pmu_regs *p = pmu_of_cpu();
	uint64_t v, t0;
	uint32_t r[4];

	mark("rdmsr PMU counter: start", N);
	t0 = rdtsc();
	for (int i = 0; i < N; i++)
		rdmsr_safe(p->ctr, &v);
	report("rdmsr PMU counter (user-space exit)", rdtsc() - t0);

	mark("wrmsr PMU event select: start", N);
	t0 = rdtsc();
	for (int i = 0; i < N; i++)
		wrmsr_safe(p->ctrl, p->ctrl_value);
	report("wrmsr PMU event select (user-space exit)", rdtsc() - t0);

	mark("wrmsr BIOS_SIGN_ID: start", N);
	t0 = rdtsc();
	for (int i = 0; i < N; i++)
		wrmsr_safe(MSR_BIOS_SIGN_ID, 0);
	report("wrmsr BIOS_SIGN_ID (exit handled in KVM)", rdtsc() - t0);

	mark("cpuid: start", N);
	t0 = rdtsc();
	for (int i = 0; i < N; i++)
		cpuid(0, 0, r);
	report("cpuid (exit handled in KVM)", rdtsc() - t0);
	wrmsr_safe(p->ctrl, 0);
	guest_exit();
}
