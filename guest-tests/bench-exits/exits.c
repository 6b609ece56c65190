/* SPDX-License-Identifier: MIT */
/*
 * bench/kvm-exits.sh's guest: what one trapped PMU register access costs, and
 * what of it is libvpmu's.  Each PMU access is timed in blocks of BLOCK
 * accesses that alternate (A B B A ...) between libvpmu answering the exits
 * and the host's null handler answering the same exits (VPMU_UCALL_NULL_PMU,
 * vpmu-run --null-pmu): the two are side by side in one run, so the slow drift
 * of a nested test tier falls on both alike.  The accesses:
 *   - RDMSR of a counter that counts cycles (the host's count is read);
 *   - WRMSR of an event select with the value it holds;
 *   - WRMSR alternating an event select between two events (each write
 *     changes what the host counts);
 *   - RDPMC of that counter, where the host's KVM exits on RDPMC (docs/rdpmc.md;
 *     elsewhere KVM answers it in the kernel, timed as such);
 * and, for scale, two exits KVM handles in the kernel: CPUID and WRMSR of
 * IA32_BIOS_SIGN_ID (0x8B, which KVM intercepts and ignores; SYSENTER_CS would
 * not do: SVM passes it through).  Marks report the guest's TSC ticks per
 * access; vpmu-run's accounting adds libvpmu's own time per MSR exit.
 *
 * Under QEMU (null=qemu on the command line: bench/qemu-exits.sh) there is no
 * null-handler switch: the baseline of a read is the same RDMSR exit answered
 * by QEMU's own MSR filter handler, MSR_CORE_THREAD_COUNT (0x35,
 * kvm_rdmsr_core_thread_count() in QEMU's target/i386/kvm/kvm.c), through the
 * same exit dispatch as the vPMU's registers.  QEMU has no such handler for a
 * write, so writes are timed alone.
 */
#include "guest.h"

#define BLOCK 250
#define PAIRS 8            /* 2 * PAIRS blocks of each access: 4000 accesses */
#define N_KVM 2000
#define MSR_BIOS_SIGN_ID 0x8B
#define MSR_CORE_THREAD_COUNT 0x35

struct pmu_regs {
	uint32_t ctrl, ctr;
	uint64_t ctrl_value;    /* counter 0 counts cycles (a-mode): reads take the host's count */
	uint32_t ctrl1;         /* counter 1's event select */
	uint64_t ev1[2];        /* two events it alternates between */
};

static const struct pmu_regs *pmu_of_cpu(void)
{
	/* P6: EVNTSEL0 0x430079 (EN|OS|USR, CPU_CLK_UNHALTED), EVNTSEL1 0x0300C0 /
	 * 0x030079 (INST_RETIRED / cycles, enabled by EVNTSEL0.EN); K7: 0x430076
	 * (CPU_CLK_UNHALTED), EVNTSEL1 0x4300C0 / 0x430076. */
	static const struct pmu_regs p6 = { 0x186, 0xC1, 0x430079, 0x187, { 0x0300C0, 0x030079 } };
	static const struct pmu_regs k7 = { 0xC0010000, 0xC0010004, 0x430076, 0xC0010001,
					    { 0x4300C0, 0x430076 } };
	uint32_t r[4];
	cpuid(0, 0, r);
	/* "Auth" of AuthenticAMD in EBX: the K7 layout; anything else here is P6. */
	return r[1] == 0x68747541 ? &k7 : &p6;
}

typedef void access_fn(const struct pmu_regs *p, unsigned i);

static void read_ctr(const struct pmu_regs *p, unsigned i)
{
	uint64_t v;
	(void)i;
	rdmsr_safe(p->ctr, &v);
}

static void rdpmc_ctr(const struct pmu_regs *p, unsigned i)
{
	uint64_t v;
	(void)p;
	(void)i;
	rdpmc_safe(0, &v);
}

static void write_same(const struct pmu_regs *p, unsigned i)
{
	(void)i;
	wrmsr_safe(p->ctrl, p->ctrl_value);
}

static void write_changing(const struct pmu_regs *p, unsigned i)
{
	wrmsr_safe(p->ctrl1, p->ev1[i & 1]);
}

static void report(const char *what, const char *who, uint64_t ticks, uint32_t n)
{
	char label[128];
	snprintf(label, sizeof(label), "%s: %s: TSC ticks per access", what, who);
	/* No libgcc in the guests: 32-bit division (each total fits in 32 bits
	 * at < 1 ms per access). */
	uint32_t t = ticks > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)ticks;
	mark(label, t / n);
}

/* Blocks A B B A ...: A = libvpmu, B = the null handler.  The first access
 * after each switch (the vPMU's switch-in or pause) is not timed. */
static void side_by_side(const char *what, access_fn *fn, const struct pmu_regs *p)
{
	uint64_t ticks[2] = { 0, 0 };
	for (unsigned b = 0; b < 2 * PAIRS; b++) {
		unsigned null = (b & 1) ^ ((b >> 1) & 1);
		bench_null_pmu(null);
		fn(p, 1);
		uint64_t t0 = rdtsc();
		for (unsigned i = 0; i < BLOCK; i++)
			fn(p, i);
		ticks[null] += rdtsc() - t0;
	}
	bench_null_pmu(false);
	report(what, "libvpmu", ticks[0], PAIRS * BLOCK);
	report(what, "null handler", ticks[1], PAIRS * BLOCK);
}

/* QEMU: blocks A B B A ..., A the vPMU's counter, B QEMU's own MSR. */
static void side_by_side_qemu(const char *what, const struct pmu_regs *p)
{
	uint64_t ticks[2] = { 0, 0 }, v;
	for (unsigned b = 0; b < 2 * PAIRS; b++) {
		unsigned null = (b & 1) ^ ((b >> 1) & 1);
		uint32_t msr = null ? MSR_CORE_THREAD_COUNT : p->ctr;
		rdmsr_safe(msr, &v);
		uint64_t t0 = rdtsc();
		for (unsigned i = 0; i < BLOCK; i++)
			rdmsr_safe(msr, &v);
		ticks[null] += rdtsc() - t0;
	}
	report(what, "libvpmu", ticks[0], PAIRS * BLOCK);
	report(what, "null handler", ticks[1], PAIRS * BLOCK);
}

/* An access timed alone, in as many accesses as a side-by-side run has. */
static void alone(const char *what, access_fn *fn, const struct pmu_regs *p)
{
	fn(p, 1);
	uint64_t t0 = rdtsc();
	for (unsigned i = 0; i < PAIRS * BLOCK; i++)
		fn(p, i);
	report(what, "libvpmu", rdtsc() - t0, PAIRS * BLOCK);
}

static void kvm_exits_and_end(const struct pmu_regs *p);

static void qemu_main(const struct pmu_regs *p)
{
	uint64_t threads = 0;
	case_result("bench: QEMU answers RDMSR of MSR_CORE_THREAD_COUNT (the baseline)",
		    rdmsr_safe(MSR_CORE_THREAD_COUNT, &threads) == 0 && threads != 0);
	side_by_side_qemu("rdmsr PMU counter (user-space exit)", p);
	alone("wrmsr PMU event select (user-space exit)", write_same, p);
	alone("wrmsr PMU event select, changing events (user-space exit)", write_changing, p);
	kvm_exits_and_end(p);
}

static void kvm_exit(const char *what, const struct pmu_regs *p, bool use_cpuid)
{
	uint32_t r[4];
	(void)p;
	uint64_t t0 = rdtsc();
	for (int i = 0; i < N_KVM; i++) {
		if (use_cpuid)
			cpuid(0, 0, r);
		else
			wrmsr_safe(MSR_BIOS_SIGN_ID, 0);
	}
	report(what, "KVM", rdtsc() - t0, N_KVM);
}

/* The exits KVM handles in the kernel, for scale; then the counters off, and the end. */
static void kvm_exits_and_end(const struct pmu_regs *p)
{
	wrmsr_safe(p->ctrl1, 0);
	kvm_exit("wrmsr BIOS_SIGN_ID (exit handled in KVM)", p, false);
	kvm_exit("cpuid (exit handled in KVM)", p, true);
	wrmsr_safe(p->ctrl, 0);
	guest_exit();
}

void guest_main(void)
{
	const struct pmu_regs *p = pmu_of_cpu();
	uint64_t on, off, back;

	wrmsr_safe(p->ctrl, p->ctrl_value);
	if (opts.null_qemu)
		qemu_main(p);
	/* The baseline must be what it says: the null handler reads 0, libvpmu
	 * the counter, which counts cycles. */
	bench_null_pmu(true);
	rdmsr_safe(p->ctr, &off);
	bench_null_pmu(false);
	rdmsr_safe(p->ctr, &on);
	rdmsr_safe(p->ctr, &back);
	case_result("bench: the host's null handler answers while switched on, libvpmu after it",
		    off == 0 && back != 0);
	if (off != 0 || back == 0)
		diag("counter read %llu with the null handler on, %llu and %llu after it "
		     "(vpmu-run --null-pmu allows the switch)", (unsigned long long)off,
		     (unsigned long long)on, (unsigned long long)back);

	side_by_side("rdmsr PMU counter (user-space exit)", read_ctr, p);
	if (host_rdpmc_mode() == 1) {
		side_by_side("rdpmc PMU counter (user-space exit, patched KVM)", rdpmc_ctr, p);
	} else {
		uint64_t t0 = rdtsc();
		for (unsigned i = 0; i < N_KVM; i++)
			rdpmc_ctr(p, i);
		report("rdpmc (handled in KVM: no RDPMC exit here)", "KVM", rdtsc() - t0, N_KVM);
	}
	side_by_side("wrmsr PMU event select (user-space exit)", write_same, p);
	side_by_side("wrmsr PMU event select, changing events (user-space exit)", write_changing, p);
	kvm_exits_and_end(p);
}
