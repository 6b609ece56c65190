/* SPDX-License-Identifier: MIT */
/*
 * The round trip of one SBI PMU call under RISC-V KVM, answered three ways,
 * beside an SBI call KVM always answers itself (docs/performance.md, "RISC-V:
 * an SBI PMU call's round trip").  A tiny S-mode guest makes N ecalls and
 * then an SBI SRST shutdown (KVM_EXIT_SYSTEM_EVENT); the time is
 * CLOCK_MONOTONIC around the KVM_RUN loop, from the first entry to that exit.
 *
 *   floor       BASE get_spec_version (EID 0x10): KVM's own, every time
 *   kernel-pmu  PMU num_counters (EID 0x504D55, FID 0), no capability: KVM's
 *               in-kernel SBI PMU (arch/riscv/kvm/vcpu_sbi_pmu.c) answers
 *   user-pmu    the same call with KVM_CAP_RISCV_USER_PMU (the series in
 *               patches/kvm-riscv-pmu/): each call is a KVM_EXIT_RISCV_SBI,
 *               answered here with a constant (error 0, value 41)
 *   libvpmu     the same exits answered by vpmu_call() on a riscv-sbi VM
 *               (sim backend), with vpmu_vcpu_enter() before each entry, as
 *               vmm-glue/kvm_riscv.c does for vpmu-run
 *
 * Static riscv64, run inside the nested tier:
 *   bench/riscv-roundtrip.sh   (make riscv64 first)
 * Output: one "RESULT" line per case, key=value, microseconds per call (the
 * best of RUNS runs, and every run), KVM_RUN returns per run, and the last
 * call's a0/a1 as the guest saw them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "vmm-glue/kvm_riscv_uapi.h"
#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

#define RAM_BASE   0x80000000ull
#define RAM_SIZE   (4 * 4096)
#define SBI_EXT_BASE 0x10
#define SBI_BASE_GET_SPEC_VERSION 0
#define SBI_EXT_SRST 0x53525354
#define SBI_PMU_NUM_COUNTERS 0
#define USER_ANSWER 41

/* Registers (x-numbers; struct kvm_riscv_core's index is the same). */
enum { X0 = 0, S0 = 8, S1 = 9, A0 = 10, A1 = 11, A6 = 16, A7 = 17, S2 = 18, S3 = 19,
       S4 = 20, S5 = 21 };

/* RV64I encodings (the unprivileged specification, "RV32I Base Integer
 * Instruction Set"): addi (I-type), bne (B-type), jal (J-type), ecall. */
#define ADDI(rd, rs1, imm) \
	((((uint32_t)(imm) & 0xfffu) << 20) | ((uint32_t)(rs1) << 15) | ((uint32_t)(rd) << 7) | 0x13u)
#define MV(rd, rs) ADDI(rd, rs, 0)
#define BNE(rs1, rs2, off)                                                                   \
	(((((uint32_t)(off) >> 12) & 1u) << 31) | ((((uint32_t)(off) >> 5) & 0x3fu) << 25) |  \
	 ((uint32_t)(rs2) << 20) | ((uint32_t)(rs1) << 15) | (1u << 12) |                    \
	 ((((uint32_t)(off) >> 1) & 0xfu) << 8) | ((((uint32_t)(off) >> 11) & 1u) << 7) | 0x63u)
#define JAL0_SELF 0x0000006fu
#define ECALL     0x00000073u

/*
 * s0 the count, s1 the EID, s2 the FID, s3 SRST's EID (set by ONE_REG).
 * KVM writes only a0/a1 back (kvm_riscv_vcpu_sbi_return), so the loop sets
 * a7/a6 each time anyway and keeps the answer in s4/s5 for the host to check.
 */
static const uint32_t guest_code[] = {
	/* loop: */
	MV(A7, S1),            /* 0x00 a7 = EID */
	MV(A6, S2),            /* 0x04 a6 = FID */
	ECALL,                 /* 0x08 */
	MV(S4, A0),            /* 0x0c the error */
	MV(S5, A1),            /* 0x10 the value */
	ADDI(S0, S0, -1),      /* 0x14 */
	BNE(S0, X0, -0x18),    /* 0x18 -> loop */
	/* SRST: system_reset(shutdown, no reason) */
	MV(A7, S3),            /* 0x1c */
	ADDI(A6, X0, 0),       /* 0x20 */
	ADDI(A0, X0, 0),       /* 0x24 */
	ADDI(A1, X0, 0),       /* 0x28 */
	ECALL,                 /* 0x2c */
	JAL0_SELF,             /* 0x30 not reached */
};

enum bench_case { C_FLOOR, C_KERNEL_PMU, C_USER_PMU, C_LIBVPMU, C_COUNT };
static const char *const case_name[C_COUNT] = { "floor", "kernel-pmu", "user-pmu", "libvpmu" };
static const char *const case_what[C_COUNT] = {
	"BASE get_spec_version, KVM in-kernel",
	"PMU num_counters, KVM's in-kernel SBI PMU",
	"PMU num_counters, KVM_EXIT_RISCV_SBI, constant answer",
	"PMU num_counters, KVM_EXIT_RISCV_SBI, vpmu_call (riscv-sbi)",
};

struct result {
	double us[16];
	uint64_t exits;
	uint64_t a0, a1;
};

static int kvm_fd = -1;
static long run_size;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "riscv_sbi_roundtrip: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static int set_reg(int fd, uint64_t id, uint64_t v)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)(uintptr_t)&v };
	return ioctl(fd, KVM_SET_ONE_REG, &reg) < 0 ? -errno : 0;
}

static uint64_t get_reg(int fd, uint64_t id, const char *what)
{
	uint64_t v = 0;
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)(uintptr_t)&v };
	if (ioctl(fd, KVM_GET_ONE_REG, &reg) < 0)
		die("KVM_GET_ONE_REG(%s): %s", what, strerror(errno));
	return v;
}

#define CORE(i) RV_REG(RV_REG_TYPE_CORE, 0, (i))

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* One fresh VM and vCPU, N calls, the SRST exit.  Returns µs per call. */
static double one_run(enum bench_case c, unsigned n, struct vpmu_vcpu *pv, struct result *res)
{
	int vm = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm < 0)
		die("KVM_CREATE_VM: %s", strerror(errno));
	void *mem = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap of the guest's RAM: %s", strerror(errno));
	memcpy(mem, guest_code, sizeof(guest_code));
	struct kvm_userspace_memory_region region = {
		.slot = 0, .guest_phys_addr = RAM_BASE, .memory_size = RAM_SIZE,
		.userspace_addr = (uint64_t)(uintptr_t)mem,
	};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		die("KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	bool user = c == C_USER_PMU || c == C_LIBVPMU;
	if (user) {
		/* Before the vCPU: the series forwards the PMU for vCPUs created after. */
		struct kvm_enable_cap cap = { .cap = RV_KVM_CAP_RISCV_USER_PMU };
		if (ioctl(vm, KVM_ENABLE_CAP, &cap) < 0)
			die("KVM_ENABLE_CAP(KVM_CAP_RISCV_USER_PMU = %d) refused: %s: this KVM keeps "
			    "the SBI PMU in the kernel; the capability needs the patched kvm.ko "
			    "(patches/kvm-riscv-pmu/, scripts/kvm-env --patched-kvm) on a host with "
			    "Sscofpmf", RV_KVM_CAP_RISCV_USER_PMU, strerror(errno));
	}
	int vcpu = ioctl(vm, KVM_CREATE_VCPU, 0ul);
	if (vcpu < 0)
		die("KVM_CREATE_VCPU: %s", strerror(errno));
	struct kvm_run *run = mmap(NULL, (size_t)run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		die("mmap of kvm_run: %s", strerror(errno));
	uint64_t eid = c == C_FLOOR ? SBI_EXT_BASE : RV_SBI_EXT_ID_PMU;
	uint64_t fid = c == C_FLOOR ? SBI_BASE_GET_SPEC_VERSION : SBI_PMU_NUM_COUNTERS;
	int r;
	if ((r = set_reg(vcpu, CORE(RV_CORE_PC), RAM_BASE)) ||
	    (r = set_reg(vcpu, CORE(RV_CORE_MODE), RV_MODE_S)) ||
	    (r = set_reg(vcpu, CORE(S0), n)) || (r = set_reg(vcpu, CORE(S1), eid)) ||
	    (r = set_reg(vcpu, CORE(S2), fid)) || (r = set_reg(vcpu, CORE(S3), SBI_EXT_SRST)))
		die("KVM_SET_ONE_REG (core registers): %s", strerror(-r));

	uint64_t exits = 0, calls = 0;
	double t0 = now_us();
	for (;;) {
		if (pv)
			vpmu_vcpu_enter(pv);
		r = ioctl(vcpu, KVM_RUN, 0);
		exits++;
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			die("%s: KVM_RUN: %s", case_name[c], strerror(errno));
		}
		if (run->exit_reason == KVM_EXIT_SYSTEM_EVENT)
			break;
		if (run->exit_reason == KVM_EXIT_RISCV_SBI && user &&
		    run->riscv_sbi.extension_id == RV_SBI_EXT_ID_PMU) {
			calls++;
			if (!pv) {
				run->riscv_sbi.ret[0] = 0;
				run->riscv_sbi.ret[1] = USER_ANSWER;
				continue;
			}
			uint64_t args[VPMU_CALL_ARGS];
			for (unsigned i = 0; i < VPMU_CALL_ARGS; i++)
				args[i] = run->riscv_sbi.args[i];
			struct vpmu_call_result cr = { .error = VPMU_SBI_ERR_FAILED };
			if (vpmu_call(pv, run->riscv_sbi.function_id, args, &cr) < 0)
				cr = (struct vpmu_call_result){ .error = VPMU_SBI_ERR_FAILED };
			run->riscv_sbi.ret[0] = (unsigned long)cr.error;
			run->riscv_sbi.ret[1] = (unsigned long)cr.value;
			continue;
		}
		if (run->exit_reason == KVM_EXIT_RISCV_SBI)
			die("%s: unexpected SBI exit: EID %#lx FID %#lx (pc %#" PRIx64 ")", case_name[c],
			    run->riscv_sbi.extension_id, run->riscv_sbi.function_id,
			    get_reg(vcpu, CORE(RV_CORE_PC), "pc"));
		die("%s: unexpected exit reason %u (pc %#" PRIx64 ")", case_name[c], run->exit_reason,
		    get_reg(vcpu, CORE(RV_CORE_PC), "pc"));
	}
	double t = now_us() - t0;

	if (run->system_event.type != KVM_SYSTEM_EVENT_SHUTDOWN)
		die("%s: system event %u, not the guest's shutdown", case_name[c], run->system_event.type);
	uint64_t left = get_reg(vcpu, CORE(S0), "s0");
	if (left != 0)
		die("%s: the guest stopped with %" PRIu64 " of %u calls left", case_name[c], left, n);
	if (user && calls != n)
		die("%s: %" PRIu64 " SBI PMU exits for %u calls: KVM did not forward them all",
		    case_name[c], calls, n);
	res->exits = exits;
	res->a0 = get_reg(vcpu, CORE(S4), "s4");
	res->a1 = get_reg(vcpu, CORE(S5), "s5");
	munmap(run, (size_t)run_size);
	close(vcpu);
	close(vm);
	munmap(mem, RAM_SIZE);
	return t / n;
}

int main(int argc, char **argv)
{
	unsigned n = 2000, runs = 3;
	if (argc > 1)
		n = (unsigned)strtoul(argv[1], NULL, 0);
	if (argc > 2)
		runs = (unsigned)strtoul(argv[2], NULL, 0);
	if (argc > 3 || n == 0 || runs == 0 || runs > 16)
		die("usage: riscv_sbi_roundtrip [N (2000) [RUNS (3, at most 16)]]");

	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0)
		die("/dev/kvm: %s (a RISC-V host with the H extension and kvm.ko loaded: "
		    "docs/riscv.md)", strerror(errno));
	run_size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size <= 0)
		die("KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
	int has_cap = ioctl(kvm_fd, KVM_CHECK_EXTENSION, (unsigned long)RV_KVM_CAP_RISCV_USER_PMU);
	if (has_cap <= 0)
		die("KVM_CHECK_EXTENSION(KVM_CAP_RISCV_USER_PMU = %d) = %d: this KVM lacks the "
		    "capability; load the patched kvm.ko (patches/kvm-riscv-pmu/, scripts/kvm-env "
		    "--patched-kvm)", RV_KVM_CAP_RISCV_USER_PMU, has_cap);

	/* libvpmu: one host CPU, the sim backend, a riscv-sbi VM, vCPU 0 switched in. */
	struct vpmu_sim *sim;
	struct vpmu_backend be;
	struct vpmu_host *host;
	struct vpmu_vm *pvm;
	struct vpmu_vcpu *pv;
	int r;
	if ((r = vpmu_sim_create(1, &sim)) < 0)
		die("vpmu_sim_create: %s", strerror(-r));
	vpmu_sim_backend(sim, &be);
	if ((r = vpmu_host_create(&be, 1, &host)) < 0)
		die("vpmu_host_create: %s", strerror(-r));
	vpmu_sim_attach(sim, host);
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	cfg.model = "riscv-sbi";
	if ((r = vpmu_vm_create(host, &cfg, &pvm)) < 0)
		die("vpmu_vm_create(riscv-sbi): %s", strerror(-r));
	if ((r = vpmu_vcpu_create(pvm, 0, &pv)) < 0)
		die("vpmu_vcpu_create: %s", strerror(-r));
	if ((r = vpmu_vcpu_switch_in(pv, 0)) < 0)
		die("vpmu_vcpu_switch_in: %s", strerror(-r));

	/* The cases in turn, RUNS rounds: a drift of the nested tier's clock
	 * falls on all of them alike. */
	struct result res[C_COUNT];
	memset(res, 0, sizeof(res));
	for (unsigned k = 0; k < runs; k++)
		for (int c = 0; c < C_COUNT; c++)
			res[c].us[k] = one_run((enum bench_case)c, n, c == C_LIBVPMU ? pv : NULL, &res[c]);

	vpmu_vcpu_switch_out(pv);
	vpmu_vm_destroy(pvm);
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);

	printf("# riscv_sbi_roundtrip: N=%u calls per run, best of %u runs, us per call "
	       "(CLOCK_MONOTONIC around KVM_RUN, a fresh VM per run)\n", n, runs);
	for (int c = 0; c < C_COUNT; c++) {
		double best = res[c].us[0];
		for (unsigned k = 1; k < runs; k++)
			if (res[c].us[k] < best)
				best = res[c].us[k];
		printf("RESULT case=%s us_per_call=%.3f runs=", case_name[c], best);
		for (unsigned k = 0; k < runs; k++)
			printf("%s%.3f", k ? "," : "", res[c].us[k]);
		printf(" kvm_runs=%" PRIu64 " a0=%" PRId64 " a1=%" PRIu64 " what=\"%s\"\n", res[c].exits,
		       (int64_t)res[c].a0, res[c].a1, case_what[c]);
	}
	return 0;
}
