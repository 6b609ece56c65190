/* SPDX-License-Identifier: MIT */
/*
 * libvpmu on RISC-V KVM: the SBI PMU extension and the counter CSRs answered
 * by the model, the local counter-overflow interrupt (LCOFI) delivered, the
 * guest's RAM for the snapshot page (docs/riscv.md "vpmu-run on RISC-V";
 * docs/integration.md "A RISC-V VMM").  It needs the patched KVM of the
 * RISC-V tier (kvm_riscv_uapi.h).  Not part of libvpmu: vpmu-run links it.
 *
 * Per vCPU, on its thread, around each KVM_RUN:
 *   kvm_riscv_pmu_pre_run   the pending PMI as LCOFI, then vpmu_vcpu_enter;
 *   KVM_RUN;
 *   kvm_riscv_pmu_post_run  a kick (the perf backend's overflow signal)
 *                           consumed, then vpmu_vcpu_poll: its PMI is
 *                           pending for the next entry;
 *   kvm_riscv_pmu_exit      the exit, if the vPMU's: 1 answered, 0 not ours.
 * The vCPU is switched in (vpmu_vcpu_switch_in) before its first run and out
 * when its thread stops running it, as on x86 (include/vpmu/kvm_x86.h).
 */
#ifndef VPMU_VMM_GLUE_KVM_RISCV_H
#define VPMU_VMM_GLUE_KVM_RISCV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vpmu/vpmu.h"

struct kvm_run;

/* What the glue did for one vCPU (vpmu-run's accounting). */
struct kvm_riscv_pmu_stats {
	uint64_t sbi_calls;     /* SBI PMU calls answered (KVM_EXIT_RISCV_SBI, EID 0x504D55) */
	uint64_t csr_reads;     /* counter CSR reads answered (KVM_EXIT_RISCV_CSR) */
	uint64_t csr_faults;    /* of which the guest took as an illegal instruction */
	uint64_t lcofis;        /* LCOFIs raised (KVM_INTERRUPT_PMU_OVF_SET) */
	uint64_t kicks;         /* KVM_RUNs the kick signal ended (overflows polled) */
};

struct kvm_riscv_pmu {
	int vcpu_fd;
	struct kvm_run *run;
	struct vpmu_vcpu *vcpu;
	int signo;              /* the kick: the perf backend's overflow signal */
	struct kvm_riscv_pmu_stats stats;
};

/* The guest's RAM as the VMM mapped it: [gpa, gpa + size) at host. */
struct kvm_riscv_ram {
	uint8_t *host;
	uint64_t gpa, size;
};
/* vpmu_guest_memory's accessors over a struct kvm_riscv_ram (opaque): len
 * bytes at gpa, 0; -EFAULT (nothing copied) where any byte is outside RAM. */
int kvm_riscv_ram_read(void *opaque, uint64_t gpa, void *buf, size_t len);
int kvm_riscv_ram_write(void *opaque, uint64_t gpa, const void *buf, size_t len);

/* ONE_REG get and set of one 64-bit register (kvm_riscv_uapi.h's ids):
 * 0 or -errno. */
int kvm_riscv_get_reg(int vcpu_fd, uint64_t id, uint64_t *value);
int kvm_riscv_set_reg(int vcpu_fd, uint64_t id, uint64_t value);

/* KVM_ENABLE_CAP of the patched series' user-space PMU on the VM, before any
 * vCPU exists: 0, or -errno with the reason in err (a stock kernel refuses
 * it: -EINVAL). */
int kvm_riscv_user_pmu_enable(int vm_fd, char *err, size_t errlen);

/* kv for one vCPU, whose KVM vCPU is vcpu_fd with its mapped run. */
void kvm_riscv_pmu_init(struct kvm_riscv_pmu *kv, int vcpu_fd, struct kvm_run *run,
			struct vpmu_vcpu *vcpu, int signo);
/* Before each KVM_RUN: 0, or -errno with the reason in err (the LCOFI's
 * KVM_INTERRUPT refused). */
int kvm_riscv_pmu_pre_run(struct kvm_riscv_pmu *kv, char *err, size_t errlen);
/* After each KVM_RUN, with its result (0 or -errno). */
void kvm_riscv_pmu_post_run(struct kvm_riscv_pmu *kv, int run_ret);
/* The exit in kv->run: 1 when it was the vPMU's and is answered, 0 when it
 * is not the vPMU's, -errno (reason in err) when answering it failed. */
int kvm_riscv_pmu_exit(struct kvm_riscv_pmu *kv, char *err, size_t errlen);
/* The counter CSR exit in run answered by an illegal-instruction trap in the
 * guest: the CSR instruction completed (KVM_RUN with immediate_exit), then
 * KVM's own trap redirection (arch/riscv/kvm/vcpu_exit.c
 * kvm_riscv_vcpu_trap_redirect) done through ONE_REG.  0 or -errno. */
int kvm_riscv_inject_illegal_insn(int vcpu_fd, struct kvm_run *run);

#endif
