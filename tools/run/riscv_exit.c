/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run's RISC-V exits, one small handler each (the shape of QEMU's
 * target/riscv/kvm/kvm-cpu.c kvm_arch_handle_exit and kvmtool's
 * riscv/kvm-cpu.c).  What reaches user space under KVM (Linux 6.12,
 * arch/riscv/kvm/vcpu_sbi*.c): the SBI extensions KVM forwards (the debug
 * console once enabled, the v0.1 console, and, with the tier's patched KVM,
 * the PMU), CSRs KVM does not emulate, MMIO, and SRST as a system event.  The
 * base, timer, IPI, RFENCE and HSM extensions never leave the kernel.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>

#include "riscv_run.h"
#include "../../vmm-glue/kvm_riscv_uapi.h"

#define SBI_ERR_NOT_SUPPORTED   (-2L)
#define SBI_ERR_INVALID_PARAM   (-3L)
#define SBI_ERR_INVALID_ADDRESS (-5L)

/* Guest bytes to the console, under the run's lock (several harts print). */
static void console_write(struct rv_vcpu *c, const void *buf, size_t len)
{
	struct rv_run *rn = c->rn;
	pthread_mutex_lock(&rn->lock);
	fwrite(buf, 1, len, rn->console);
	fflush(rn->console);
	pthread_mutex_unlock(&rn->lock);
	c->stats.console_bytes += len;
}

/* The debug console (SBI v2.0, chapter 12): write(num_bytes, base_lo,
 * base_hi) of guest physical memory, write_byte(byte); read has no input
 * here (0 bytes).  A buffer not wholly in RAM is SBI_ERR_INVALID_PARAM
 * ("the memory pointed to by ... does not satisfy the requirements"), and
 * nothing of it is written. */
static void sbi_dbcn(struct rv_vcpu *c, struct kvm_run *run)
{
	unsigned long *ret = run->riscv_sbi.ret;
	const unsigned long *a = run->riscv_sbi.args;
	ret[0] = 0, ret[1] = 0;
	switch (run->riscv_sbi.function_id) {
	case RV_SBI_DBCN_WRITE: {
		/* rv64: base_hi is 0 (a0-a2: num_bytes, base_addr_lo, base_addr_hi). */
		const struct kvm_riscv_ram *ram = &c->rn->ram;
		uint64_t gpa = a[1], n = a[0];
		if (a[2] || gpa < ram->gpa || n > ram->size || gpa - ram->gpa > ram->size - n) {
			ret[0] = (unsigned long)SBI_ERR_INVALID_PARAM;
			return;
		}
		console_write(c, ram->host + (gpa - ram->gpa), n);
		ret[1] = n;
		return;
	}
	case RV_SBI_DBCN_READ:
		return;   /* no console input: 0 bytes read */
	case RV_SBI_DBCN_WRITE_BYTE: {
		uint8_t b = (uint8_t)a[0];
		console_write(c, &b, 1);
		return;
	}
	default:
		ret[0] = (unsigned long)SBI_ERR_NOT_SUPPORTED;
	}
}

static void handle_sbi(struct rv_vcpu *c, struct kvm_run *run)
{
	c->stats.sbi_exits++;
	switch (run->riscv_sbi.extension_id) {
	case RV_SBI_EXT_ID_DBCN:
		sbi_dbcn(c, run);
		return;
	case RV_SBI_EXT_0_1_PUTCHAR: {
		/* SBI v0.1 console_putchar (chapter 5): a0 the byte; no return value. */
		uint8_t b = (uint8_t)run->riscv_sbi.args[0];
		console_write(c, &b, 1);
		run->riscv_sbi.ret[0] = 0;
		return;
	}
	case RV_SBI_EXT_0_1_GETCHAR:
		run->riscv_sbi.ret[0] = (unsigned long)-1L;   /* no input */
		return;
	default:
		/* KVM forwards the experimental and vendor ranges too: none here. */
		run->riscv_sbi.ret[0] = (unsigned long)SBI_ERR_NOT_SUPPORTED;
		run->riscv_sbi.ret[1] = 0;
	}
}

/* SBI SRST (chapter 10) arrives as a system event (api.rst
 * "KVM_EXIT_SYSTEM_EVENT"; kvm_riscv_vcpu_sbi_system_reset puts the reset
 * reason in data[0]): "no reason" is status 0, "system failure" 1. */
static int handle_system_event(struct rv_vcpu *c, struct kvm_run *run)
{
	uint64_t reason = run->system_event.ndata ? run->system_event.data[0] : 0;
	int status = reason == 0 ? 0 : 1;
	const char *what = run->system_event.type == KVM_SYSTEM_EVENT_SHUTDOWN ? "shutdown"
			 : run->system_event.type == KVM_SYSTEM_EVENT_RESET ? "reboot" : "system event";
	rv_finish(c->rn, status, "the guest asked for %s (SBI system reset, reason %llu) on hart %u",
		  what, (unsigned long long)reason, c->index);
	return 1;
}

int rv_handle_exit(struct rv_vcpu *c)
{
	struct kvm_run *run = c->run;
	int r = kvm_riscv_pmu_exit(&c->pmu, c->err, sizeof(c->err));
	if (r < 0) {
		rv_finish(c->rn, RV_EXIT_VMM_ERROR, "hart %u: %s", c->index, c->err);
		return 1;
	}
	if (r == 1)
		return 0;
	switch (run->exit_reason) {
	case KVM_EXIT_RISCV_SBI:
		handle_sbi(c, run);
		return 0;
	case KVM_EXIT_RISCV_CSR:
		/* A CSR neither KVM nor the vPMU has (Zkr's seed, or a counter
		 * CSR with --no-pmu on a patched KVM): illegal, as on a hart
		 * without it. */
		c->stats.csr_other++;
		if ((r = kvm_riscv_inject_illegal_insn(c->fd, run)) < 0) {
			rv_finish(c->rn, RV_EXIT_VMM_ERROR, "hart %u: CSR 0x%lx: illegal-instruction "
				  "trap: %s", c->index, (unsigned long)run->riscv_csr.csr_num,
				  strerror(-r));
			return 1;
		}
		return 0;
	case KVM_EXIT_SYSTEM_EVENT:
		return handle_system_event(c, run);
	case KVM_EXIT_MMIO:
		/* No device is mapped: reads see all-ones, writes are dropped. */
		c->stats.mmio++;
		if (!run->mmio.is_write)
			memset(run->mmio.data, 0xFF, sizeof(run->mmio.data));
		return 0;
	case KVM_EXIT_INTR:
		return 0;
	case KVM_EXIT_FAIL_ENTRY:
		rv_finish(c->rn, RV_EXIT_VMM_ERROR, "hart %u: KVM_EXIT_FAIL_ENTRY (hardware reason "
			  "0x%llx)", c->index,
			  (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		return 1;
	default:
		rv_finish(c->rn, RV_EXIT_VMM_ERROR, "hart %u: unexpected KVM exit %u", c->index,
			  run->exit_reason);
		return 1;
	}
}
