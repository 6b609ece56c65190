/* SPDX-License-Identifier: MIT */
/*
 * The RISC-V vpmu-run's exit dispatch (tools/run/riscv_exit.c) and the PMU
 * glue under it (vmm-glue/kvm_riscv.c), on a fake KVM: this test is linked
 * with -Wl,--wrap=ioctl (Makefile), so the glue's KVM_RUN, KVM_INTERRUPT and
 * ONE_REG calls reach __wrap_ioctl, which answers them as the tier's patched
 * KVM would (api.rst; arch/riscv/kvm/vcpu_insn.c kvm_riscv_vcpu_csr_return)
 * over a small register file.  The exits are written into a kvm_run as KVM
 * writes them: the SBI PMU's calls, the debug console, counter CSRs, a
 * system reset, MMIO.  libvpmu is real, with the sim backend.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vpmu/backend.h"
#include "run/riscv_run.h"
#include "../../vmm-glue/kvm_riscv_uapi.h"
#include "tap.h"

int __wrap_ioctl(int fd, unsigned long req, ...);
int __real_ioctl(int fd, unsigned long req, ...);

#define VCPU_FD 1001
#define RAM_MB 1

/* The fake vCPU: its registers by ONE_REG id, and what was asked of it. */
static struct { uint64_t id, value; } regs[16];
static unsigned nregs;
static struct kvm_run kvm_run;
static struct { unsigned interrupts, runs, immediate_runs; uint32_t last_irq; } calls;

static uint64_t *reg(uint64_t id)
{
	for (unsigned i = 0; i < nregs; i++)
		if (regs[i].id == id)
			return &regs[i].value;
	if (nregs == sizeof(regs) / sizeof(regs[0]))
		abort();
	regs[nregs].id = id;
	return &regs[nregs++].value;
}
#define CORE(i) RV_REG(RV_REG_TYPE_CORE, 0, (i))
#define CSR(i) RV_REG(RV_REG_TYPE_CSR, 0, (i))

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != VCPU_FD)
		return __real_ioctl(fd, req, arg);
	switch (req) {
	case KVM_INTERRUPT:
		calls.interrupts++;
		calls.last_irq = ((struct kvm_interrupt *)arg)->irq;
		return 0;
	case KVM_GET_ONE_REG: {
		struct kvm_one_reg *r = arg;
		memcpy((void *)(uintptr_t)r->addr, reg(r->id), 8);
		return 0;
	}
	case KVM_SET_ONE_REG: {
		struct kvm_one_reg *r = arg;
		memcpy(reg(r->id), (void *)(uintptr_t)r->addr, 8);
		return 0;
	}
	case KVM_RUN:
		calls.runs++;
		/* The CSR exit completes (sepc past the instruction), then
		 * immediate_exit returns EINTR before the guest runs. */
		if (kvm_run.exit_reason == KVM_EXIT_RISCV_CSR)
			*reg(CORE(RV_CORE_PC)) += 4;
		if (kvm_run.immediate_exit) {
			calls.immediate_runs++;
			errno = EINTR;
			return -1;
		}
		return 0;
	}
	errno = ENOTTY;
	return -1;
}

/* The run's end, as riscv_main.c's would record it. */
static int finished = -1;
static char finish_why[320];
void rv_finish(struct rv_run *rn, int status, const char *fmt, ...)
{
	(void)rn;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(finish_why, sizeof(finish_why), fmt, ap);
	va_end(ap);
	finished = status;
}

static struct rv_run rn;
static struct rv_vcpu *c = &rn.cpu[0];
static struct vpmu_sim *sim;
static char *console_buf;
static size_t console_len;

static void setup(void)
{
	struct vpmu_backend be;
	struct vpmu_host *host;
	if (vpmu_sim_create(1, &sim) || (vpmu_sim_backend(sim, &be), vpmu_host_create(&be, 1, &host)))
		abort();
	vpmu_sim_attach(sim, host);
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	cfg.model = "riscv-sbi";
	ok(vpmu_vm_create(host, &cfg, &rn.pvm) == 0, "a riscv-sbi VM");
	rn.host = host;
	rn.sim = sim;
	rn.mem_size = (size_t)RAM_MB << 20;
	rn.mem = calloc(1, rn.mem_size);
	rn.ram = (struct kvm_riscv_ram){ .host = rn.mem, .gpa = 0x80000000ull, .size = rn.mem_size };
	const struct vpmu_guest_memory mem = {
		.read = kvm_riscv_ram_read, .write = kvm_riscv_ram_write, .opaque = &rn.ram,
	};
	ok(vpmu_vm_set_guest_memory(rn.pvm, &mem) == 0, "the guest's RAM for the snapshot page");
	ok(vpmu_vcpu_create(rn.pvm, 0, &c->vcpu) == 0, "its vCPU");
	rn.o.vcpus = 1;
	rn.console = open_memstream(&console_buf, &console_len);
	pthread_mutex_init(&rn.lock, NULL);
	c->rn = &rn;
	c->fd = VCPU_FD;
	c->run = &kvm_run;
	kvm_riscv_pmu_init(&c->pmu, VCPU_FD, &kvm_run, c->vcpu, SIGUSR1);
	ok(vpmu_vcpu_switch_in(c->vcpu, 0) == 0, "switched in on host CPU 0");
}

static void sbi_exit(unsigned long eid, unsigned long fid, uint64_t a0, uint64_t a1, uint64_t a2,
		     uint64_t a3, uint64_t a4)
{
	memset(&kvm_run, 0, sizeof(kvm_run));
	kvm_run.exit_reason = KVM_EXIT_RISCV_SBI;
	kvm_run.riscv_sbi.extension_id = eid;
	kvm_run.riscv_sbi.function_id = fid;
	const uint64_t a[5] = { a0, a1, a2, a3, a4 };
	for (unsigned i = 0; i < 5; i++)
		kvm_run.riscv_sbi.args[i] = a[i];
	/* KVM's default answer (kvm_riscv_vcpu_sbi_forward). */
	kvm_run.riscv_sbi.ret[0] = (unsigned long)VPMU_SBI_ERR_NOT_SUPPORTED;
}

static void csr_exit(unsigned long csr, unsigned long write_mask)
{
	memset(&kvm_run, 0, sizeof(kvm_run));
	kvm_run.exit_reason = KVM_EXIT_RISCV_CSR;
	kvm_run.riscv_csr.csr_num = csr;
	kvm_run.riscv_csr.write_mask = write_mask;
	kvm_run.riscv_csr.ret_value = 0xdead;
}

static void test_pmu_calls(void)
{
	sbi_exit(RV_SBI_EXT_ID_PMU, VPMU_SBI_PMU_NUM_COUNTERS, 0, 0, 0, 0, 0);
	ok(rv_handle_exit(c) == 0, "num_counters: the run goes on");
	is_u64(kvm_run.riscv_sbi.ret[0], 0, "num_counters: SBI_SUCCESS in a0");
	uint64_t n = kvm_run.riscv_sbi.ret[1];
	ok(n > 22 && n <= VPMU_MAX_CTRS, "num_counters: %llu counters in a1", (unsigned long long)n);
	sbi_exit(RV_SBI_EXT_ID_PMU, VPMU_SBI_PMU_COUNTER_GET_INFO, 0, 0, 0, 0, 0);
	rv_handle_exit(c);
	is_u64(kvm_run.riscv_sbi.ret[1] & 0xFFF, 0xC00, "get_info(0): CSR cycle");
	sbi_exit(RV_SBI_EXT_ID_PMU, 0x77, 0, 0, 0, 0, 0);
	rv_handle_exit(c);
	is_u64(kvm_run.riscv_sbi.ret[0], (unsigned long)VPMU_SBI_ERR_NOT_SUPPORTED,
	       "an unknown function: SBI_ERR_NOT_SUPPORTED");
	is_u64(c->pmu.stats.sbi_calls, 3, "three PMU calls counted by the glue");
	is_u64(c->stats.sbi_exits, 0, "none by the VMM's SBI handler");
}

static void test_console(void)
{
	memcpy(rn.mem + 0x1000, "hello, hart\n", 12);
	sbi_exit(RV_SBI_EXT_ID_DBCN, RV_SBI_DBCN_WRITE, 12, 0x80001000ull, 0, 0, 0);
	ok(rv_handle_exit(c) == 0, "DBCN write");
	fflush(rn.console);
	ok(console_len == 12 && !memcmp(console_buf, "hello, hart\n", 12), "its bytes on the console");
	is_u64(kvm_run.riscv_sbi.ret[0], 0, "DBCN write: success");
	is_u64(kvm_run.riscv_sbi.ret[1], 12, "DBCN write: 12 bytes written");
	sbi_exit(RV_SBI_EXT_ID_DBCN, RV_SBI_DBCN_WRITE, 16, 0x80000000ull + (RAM_MB << 20) - 8, 0, 0, 0);
	rv_handle_exit(c);
	is_u64(kvm_run.riscv_sbi.ret[0], (unsigned long)-3L, "a buffer running past RAM's end: "
	       "INVALID_PARAM");
	sbi_exit(RV_SBI_EXT_ID_DBCN, RV_SBI_DBCN_WRITE, 4, 0x1000, 0, 0, 0);
	rv_handle_exit(c);
	is_u64(kvm_run.riscv_sbi.ret[0], (unsigned long)-3L, "a buffer outside RAM: INVALID_PARAM");
	sbi_exit(RV_SBI_EXT_ID_DBCN, RV_SBI_DBCN_WRITE, 4, 0x80001000ull, 1, 0, 0);
	rv_handle_exit(c);
	is_u64(kvm_run.riscv_sbi.ret[0], (unsigned long)-3L, "a buffer above 4 GiB's base_hi on rv64: "
	       "INVALID_PARAM");
	sbi_exit(RV_SBI_EXT_ID_DBCN, RV_SBI_DBCN_WRITE_BYTE, '!', 0, 0, 0, 0);
	rv_handle_exit(c);
	sbi_exit(RV_SBI_EXT_0_1_PUTCHAR, 0, '?', 0, 0, 0, 0);
	rv_handle_exit(c);
	fflush(rn.console);
	ok(console_len == 14 && !memcmp(console_buf + 12, "!?", 2),
	   "DBCN write_byte and the v0.1 putchar");
	sbi_exit(0x0A000000, 0, 0, 0, 0, 0, 0);
	rv_handle_exit(c);
	is_u64(kvm_run.riscv_sbi.ret[0], (unsigned long)VPMU_SBI_ERR_NOT_SUPPORTED,
	       "a vendor extension: SBI_ERR_NOT_SUPPORTED");
	is_u64(c->stats.console_bytes, 14, "14 console bytes counted, none of the refused buffers'");
}

static void test_csrs(void)
{
	csr_exit(0xC00, 0);
	ok(rv_handle_exit(c) == 0, "csrr cycle");
	is_u64(kvm_run.riscv_csr.ret_value, 0, "cycle: the model's value (nothing counted)");
	is_u64(calls.immediate_runs, 0, "no trap");

	/* An illegal instruction at 0x80400000 from S-mode, interrupts on. */
	*reg(CORE(RV_CORE_PC)) = 0x80400000ull;
	*reg(CORE(RV_CORE_MODE)) = RV_MODE_S;
	*reg(CSR(RV_CSR_SSTATUS)) = RV_SSTATUS_SIE;
	*reg(CSR(RV_CSR_STVEC)) = 0xffffffff80001001ull;   /* vectored: exceptions at BASE */
	csr_exit(0xC00, ~0ul);
	ok(rv_handle_exit(c) == 0, "csrw cycle (read-only): the run goes on");
	is_u64(calls.immediate_runs, 1, "the CSR exit completed by a KVM_RUN with immediate_exit");
	ok(!kvm_run.immediate_exit, "immediate_exit cleared after");
	is_u64(*reg(CSR(RV_CSR_SCAUSE)), RV_CAUSE_ILLEGAL_INSN, "scause: illegal instruction");
	is_u64(*reg(CSR(RV_CSR_SEPC)), 0x80400000ull, "sepc: the CSR instruction");
	is_u64(*reg(CSR(RV_CSR_STVAL)), 0, "stval 0");
	is_u64(*reg(CORE(RV_CORE_PC)), 0xffffffff80001000ull, "the guest at stvec's BASE");
	is_u64(*reg(CSR(RV_CSR_SSTATUS)), RV_SSTATUS_SPP | RV_SSTATUS_SPIE,
	       "sstatus: SPP=S, SPIE=SIE, SIE clear");
	is_u64(*reg(CORE(RV_CORE_MODE)), RV_MODE_S, "in S-mode");
	is_u64(c->pmu.stats.csr_faults, 1, "one CSR fault counted");

	*reg(CORE(RV_CORE_PC)) = 0x10000ull;
	*reg(CORE(RV_CORE_MODE)) = 0;   /* from U-mode, interrupts off */
	*reg(CSR(RV_CSR_SSTATUS)) = 0;
	csr_exit(0x015, 0);             /* Zkr's seed: neither KVM's nor the vPMU's */
	ok(rv_handle_exit(c) == 0, "csrr seed");
	is_u64(c->stats.csr_other, 1, "an other CSR counted");
	is_u64(*reg(CSR(RV_CSR_SEPC)), 0x10000ull, "sepc: the user's instruction");
	is_u64(*reg(CSR(RV_CSR_SSTATUS)), 0, "sstatus: SPP=U, SPIE clear");
}

static void test_pmi(void)
{
	unsigned before = calls.interrupts;
	ok(kvm_riscv_pmu_pre_run(&c->pmu, NULL, 0) == 0 && calls.interrupts == before,
	   "no PMI pending: no KVM_INTERRUPT");
	/* Counter 0 counts cycles from -5 (SBI chapter 11: config_matching,
	 * then start with SET_INIT_VALUE); ten cycles overflow it. */
	sbi_exit(RV_SBI_EXT_ID_PMU, VPMU_SBI_PMU_COUNTER_CONFIG_MATCHING, 0, 1, 0, 1, 0);
	rv_handle_exit(c);
	is_u64(kvm_run.riscv_sbi.ret[0], 0, "config_matching(cycles)");
	uint64_t idx = kvm_run.riscv_sbi.ret[1];
	sbi_exit(RV_SBI_EXT_ID_PMU, VPMU_SBI_PMU_COUNTER_START, idx, 1, 1, (uint64_t)-5, 0);
	rv_handle_exit(c);
	is_u64(kvm_run.riscv_sbi.ret[0], 0, "start at -5");
	kvm_riscv_pmu_pre_run(&c->pmu, NULL, 0);
	vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 10, VPMU_MODE_KERNEL);
	vpmu_vcpu_poll(c->vcpu);
	ok(vpmu_vcpu_pmi_pending(c->vcpu, NULL), "the overflow's PMI is pending");
	ok(kvm_riscv_pmu_pre_run(&c->pmu, NULL, 0) == 0, "the next entry");
	is_u64(calls.interrupts, before + 1, "one KVM_INTERRUPT");
	is_u64(calls.last_irq, RV_KVM_INTERRUPT_PMU_OVF_SET, "KVM_INTERRUPT_PMU_OVF_SET (-3U)");
	ok(!vpmu_vcpu_pmi_pending(c->vcpu, NULL), "the PMI acknowledged");
	is_u64(c->pmu.stats.lcofis, 1, "one LCOFI counted");
}

static void test_ends(void)
{
	memset(&kvm_run, 0, sizeof(kvm_run));
	kvm_run.exit_reason = KVM_EXIT_MMIO;
	kvm_run.mmio.is_write = 0;
	ok(rv_handle_exit(c) == 0 && kvm_run.mmio.data[0] == 0xFF, "an MMIO read sees all-ones");
	memset(&kvm_run, 0, sizeof(kvm_run));
	kvm_run.exit_reason = KVM_EXIT_SYSTEM_EVENT;
	kvm_run.system_event.type = KVM_SYSTEM_EVENT_SHUTDOWN;
	kvm_run.system_event.ndata = 1;
	ok(rv_handle_exit(c) == 1 && finished == 0 && strstr(finish_why, "shutdown"),
	   "SRST shutdown, no reason: status 0 (%s)", finish_why);
	kvm_run.system_event.type = KVM_SYSTEM_EVENT_RESET;
	kvm_run.system_event.data[0] = 1;
	ok(rv_handle_exit(c) == 1 && finished == 1 && strstr(finish_why, "reboot"),
	   "SRST reboot for a system failure: status 1 (%s)", finish_why);
	memset(&kvm_run, 0, sizeof(kvm_run));
	kvm_run.exit_reason = KVM_EXIT_HYPERV;
	ok(rv_handle_exit(c) == 1 && finished == RV_EXIT_VMM_ERROR, "an unexpected exit: status 125 "
	   "(%s)", finish_why);
}

static void test_ram(void)
{
	uint8_t b[8];
	ok(kvm_riscv_ram_read(&rn.ram, 0x80000000ull, b, 8) == 0, "RAM's first bytes");
	ok(kvm_riscv_ram_read(&rn.ram, 0x80000000ull + (RAM_MB << 20) - 8, b, 8) == 0,
	   "RAM's last bytes");
	ok(kvm_riscv_ram_read(&rn.ram, 0x80000000ull + (RAM_MB << 20) - 7, b, 8) == -EFAULT,
	   "past RAM's end: -EFAULT");
	ok(kvm_riscv_ram_write(&rn.ram, 0x7ffffffcull, b, 8) == -EFAULT, "below RAM: -EFAULT");
	ok(kvm_riscv_ram_write(&rn.ram, UINT64_MAX - 3, b, 8) == -EFAULT,
	   "an address that wraps: -EFAULT");
	ok(kvm_riscv_ram_read(&rn.ram, 0x80000000ull, b, SIZE_MAX) == -EFAULT, "a huge length: -EFAULT");
}

int main(void)
{
	setup();
	test_pmu_calls();
	test_console();
	test_csrs();
	test_pmi();
	test_ends();
	test_ram();
	vpmu_vcpu_switch_out(c->vcpu);
	vpmu_vm_destroy(rn.pvm);
	vpmu_host_destroy(rn.host);
	vpmu_sim_destroy(sim);
	fclose(rn.console);
	free(console_buf);
	free(rn.mem);
	return tap_done();
}
