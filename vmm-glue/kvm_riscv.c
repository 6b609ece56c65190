/* SPDX-License-Identifier: MIT */
/*
 * libvpmu on RISC-V KVM (kvm_riscv.h): the vPMU's exits answered, LCOFI
 * delivered, the overflow signal landed.  The exits are those of
 * Documentation/virt/kvm/api.rst ("KVM_EXIT_RISCV_SBI", "KVM_EXIT_RISCV_CSR")
 * as the patched KVM of the RISC-V tier forwards them (kvm_riscv_uapi.h); the
 * steps around KVM_RUN mirror the x86 glue's (vmm-glue/kvm_steps.c).
 */
#include <errno.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "kvm_riscv.h"
#include "kvm_riscv_uapi.h"

static int fail(char *err, size_t errlen, int e, const char *what)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", what, strerror(e));
	return -e;
}

/* Whether [gpa, gpa + len) lies in RAM, without overflow. */
static bool in_ram(const struct kvm_riscv_ram *ram, uint64_t gpa, size_t len)
{
	return ram && ram->host && gpa >= ram->gpa && gpa - ram->gpa <= ram->size &&
	       len <= ram->size - (gpa - ram->gpa);
}

int kvm_riscv_ram_read(void *opaque, uint64_t gpa, void *buf, size_t len)
{
	const struct kvm_riscv_ram *ram = opaque;
	if (!in_ram(ram, gpa, len) || (!buf && len))
		return -EFAULT;
	if (len)
		memcpy(buf, ram->host + (gpa - ram->gpa), len);
	return 0;
}

int kvm_riscv_ram_write(void *opaque, uint64_t gpa, const void *buf, size_t len)
{
	const struct kvm_riscv_ram *ram = opaque;
	if (!in_ram(ram, gpa, len) || (!buf && len))
		return -EFAULT;
	if (len)
		memcpy(ram->host + (gpa - ram->gpa), buf, len);
	return 0;
}

int kvm_riscv_get_reg(int vcpu_fd, uint64_t id, uint64_t *value)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)(uintptr_t)value };
	return ioctl(vcpu_fd, KVM_GET_ONE_REG, &reg) < 0 ? -errno : 0;
}

int kvm_riscv_set_reg(int vcpu_fd, uint64_t id, uint64_t value)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)(uintptr_t)&value };
	return ioctl(vcpu_fd, KVM_SET_ONE_REG, &reg) < 0 ? -errno : 0;
}

int kvm_riscv_user_pmu_enable(int vm_fd, char *err, size_t errlen)
{
	struct kvm_enable_cap cap = { .cap = RV_KVM_CAP_RISCV_USER_PMU };
	if (ioctl(vm_fd, KVM_ENABLE_CAP, &cap) < 0)
		return fail(err, errlen, errno, "KVM_ENABLE_CAP(KVM_CAP_RISCV_USER_PMU)");
	return 0;
}

void kvm_riscv_pmu_init(struct kvm_riscv_pmu *kv, int vcpu_fd, struct kvm_run *run,
			struct vpmu_vcpu *vcpu, int signo)
{
	*kv = (struct kvm_riscv_pmu){ .vcpu_fd = vcpu_fd, .run = run, .vcpu = vcpu, .signo = signo };
}

int kvm_riscv_pmu_pre_run(struct kvm_riscv_pmu *kv, char *err, size_t errlen)
{
	if (!kv->vcpu || !vpmu_vcpu_running(kv->vcpu, NULL))
		return 0;
	if (vpmu_vcpu_pmi_pending(kv->vcpu, NULL)) {
		/* The overflow interrupt is the hart's LCOFIP bit (Sscofpmf):
		 * the series' KVM_INTERRUPT value sets it in the vCPU's hvip.
		 * The guest's handler clears it itself (Linux
		 * drivers/perf/riscv_pmu_sbi.c pmu_sbi_ovf_handler,
		 * csr_clear(CSR_SIP, BIT(riscv_pmu_irq_num))), and KVM syncs that
		 * clear back (arch/riscv/kvm/vcpu.c
		 * kvm_riscv_vcpu_sync_interrupts), so no unset follows. */
		struct kvm_interrupt irq = { .irq = RV_KVM_INTERRUPT_PMU_OVF_SET };
		if (ioctl(kv->vcpu_fd, KVM_INTERRUPT, &irq) < 0)
			return fail(err, errlen, errno, "KVM_INTERRUPT(KVM_INTERRUPT_PMU_OVF_SET)");
		vpmu_vcpu_pmi_ack(kv->vcpu);
		kv->stats.lcofis++;
	}
	/* What this exit's calls changed reaches the host counters now. */
	vpmu_vcpu_enter(kv->vcpu);
	return 0;
}

void kvm_riscv_pmu_post_run(struct kvm_riscv_pmu *kv, int run_ret)
{
	if (run_ret != -EINTR)
		return;
	/* The kick is blocked outside KVM_RUN: consumed here, it would end the
	 * next KVM_RUN at once.  What the overflow signal kicked for lands now,
	 * its LCOFI raised at the next entry (as vmm-glue/kvm_steps.c). */
	sigset_t kick;
	struct timespec zero = { 0, 0 };
	sigemptyset(&kick);
	sigaddset(&kick, kv->signo);
	while (sigtimedwait(&kick, NULL, &zero) > 0)
		;
	if (kv->vcpu && vpmu_vcpu_running(kv->vcpu, NULL)) {
		vpmu_vcpu_poll(kv->vcpu);
		kv->stats.kicks++;
	}
}

int kvm_riscv_inject_illegal_insn(int vcpu_fd, struct kvm_run *run)
{
	/* KVM completes a CSR exit at the next KVM_RUN
	 * (kvm_riscv_vcpu_csr_return: rd written, sepc past the instruction)
	 * and has no way to refuse it; with immediate_exit it does that and
	 * returns EINTR without entering the guest (api.rst, "immediate_exit"). */
	run->riscv_csr.ret_value = 0;
	run->immediate_exit = 1;
	int r = ioctl(vcpu_fd, KVM_RUN, 0) < 0 ? -errno : 0;
	run->immediate_exit = 0;
	if (r != -EINTR)
		return r < 0 ? r : -EIO;
	/* Then the trap, as KVM redirects one to its guest
	 * (arch/riscv/kvm/vcpu_exit.c kvm_riscv_vcpu_trap_redirect): SPP the
	 * mode it came from, SPIE from SIE, SIE clear, scause/stval/sepc, the
	 * guest at stvec in S-mode.  A CSR instruction is 4 bytes (no
	 * compressed form); stval 0 is allowed for an illegal instruction
	 * (privileged specification, "Supervisor Trap Value Register"). */
	uint64_t pc, mode, sstatus, stvec;
	if ((r = kvm_riscv_get_reg(vcpu_fd, RV_REG(RV_REG_TYPE_CORE, 0, RV_CORE_PC), &pc)) ||
	    (r = kvm_riscv_get_reg(vcpu_fd, RV_REG(RV_REG_TYPE_CORE, 0, RV_CORE_MODE), &mode)) ||
	    (r = kvm_riscv_get_reg(vcpu_fd, RV_REG(RV_REG_TYPE_CSR, 0, RV_CSR_SSTATUS), &sstatus)) ||
	    (r = kvm_riscv_get_reg(vcpu_fd, RV_REG(RV_REG_TYPE_CSR, 0, RV_CSR_STVEC), &stvec)))
		return r;
	sstatus &= ~(RV_SSTATUS_SPP | RV_SSTATUS_SPIE);
	if (mode == RV_MODE_S)
		sstatus |= RV_SSTATUS_SPP;
	if (sstatus & RV_SSTATUS_SIE)
		sstatus |= RV_SSTATUS_SPIE;
	sstatus &= ~RV_SSTATUS_SIE;
	if ((r = kvm_riscv_set_reg(vcpu_fd, RV_REG(RV_REG_TYPE_CSR, 0, RV_CSR_SSTATUS), sstatus)) ||
	    (r = kvm_riscv_set_reg(vcpu_fd, RV_REG(RV_REG_TYPE_CSR, 0, RV_CSR_SCAUSE),
				   RV_CAUSE_ILLEGAL_INSN)) ||
	    (r = kvm_riscv_set_reg(vcpu_fd, RV_REG(RV_REG_TYPE_CSR, 0, RV_CSR_STVAL), 0)) ||
	    (r = kvm_riscv_set_reg(vcpu_fd, RV_REG(RV_REG_TYPE_CSR, 0, RV_CSR_SEPC), pc - 4)) ||
	    (r = kvm_riscv_set_reg(vcpu_fd, RV_REG(RV_REG_TYPE_CORE, 0, RV_CORE_PC), stvec & ~3ull)) ||
	    (r = kvm_riscv_set_reg(vcpu_fd, RV_REG(RV_REG_TYPE_CORE, 0, RV_CORE_MODE), RV_MODE_S)))
		return r;
	return 0;
}

/* An SBI PMU call (SBI specification v2.0, chapter 11): a6 the function,
 * a0-a5 its arguments; KVM returns ret[0] in a0 (the error) and ret[1] in a1
 * (the value) when the vCPU next runs (kvm_riscv_vcpu_sbi_return). */
static void answer_call(struct kvm_riscv_pmu *kv, struct kvm_run *run)
{
	uint64_t args[VPMU_CALL_ARGS];
	for (unsigned i = 0; i < VPMU_CALL_ARGS; i++)
		args[i] = run->riscv_sbi.args[i];
	struct vpmu_call_result res = { .error = VPMU_SBI_ERR_FAILED };
	if (vpmu_call(kv->vcpu, run->riscv_sbi.function_id, args, &res) < 0)
		res = (struct vpmu_call_result){ .error = VPMU_SBI_ERR_FAILED };
	run->riscv_sbi.ret[0] = (unsigned long)res.error;
	run->riscv_sbi.ret[1] = (unsigned long)res.value;
	kv->stats.sbi_calls++;
}

/* A counter CSR read (csrr cycle, hpmcounterN): the model's value in rd, or
 * an illegal instruction where the model faults it.  The counters are
 * read-only CSRs, so an instruction that writes one is illegal on any hart
 * (privileged specification, "CSR Address Mapping Conventions"). */
static int answer_csr(struct kvm_riscv_pmu *kv, struct kvm_run *run, char *err, size_t errlen)
{
	enum vpmu_fault f = VPMU_FAULT_READ_ONLY;
	uint64_t value = 0;
	if (!run->riscv_csr.write_mask &&
	    vpmu_reg_read(kv->vcpu, VPMU_SPACE_CSR, (uint32_t)run->riscv_csr.csr_num, &value, &f) < 0)
		f = VPMU_FAULT_NO_REG;
	kv->stats.csr_reads++;
	if (f == VPMU_FAULT_NONE) {
		run->riscv_csr.ret_value = (unsigned long)value;
		return 1;
	}
	kv->stats.csr_faults++;
	int r = kvm_riscv_inject_illegal_insn(kv->vcpu_fd, run);
	if (r < 0)
		return fail(err, errlen, -r, "illegal-instruction trap for a counter CSR");
	/* A trap the VMM redirects is a firmware event of SBI's (chapter 11,
	 * "Firmware Events": SBI_PMU_FW_ILLEGAL_INSN); a model without
	 * firmware counters refuses it, which changes nothing. */
	vpmu_vcpu_fw_event(kv->vcpu, VPMU_SBI_FW_ILLEGAL_INSN, 1);
	return 1;
}

int kvm_riscv_pmu_exit(struct kvm_riscv_pmu *kv, char *err, size_t errlen)
{
	struct kvm_run *run = kv->run;
	if (!kv->vcpu)
		return 0;
	if (run->exit_reason == KVM_EXIT_RISCV_SBI &&
	    run->riscv_sbi.extension_id == RV_SBI_EXT_ID_PMU) {
		answer_call(kv, run);
		return 1;
	}
	if (run->exit_reason == KVM_EXIT_RISCV_CSR && run->riscv_csr.csr_num >= RV_CSR_COUNTER_FIRST &&
	    run->riscv_csr.csr_num <= RV_CSR_COUNTER_LAST)
		return answer_csr(kv, run, err, errlen);
	return 0;
}
