/* SPDX-License-Identifier: MIT */
/*
 * The RISC-V KVM user-space ABI that vpmu-run's RISC-V glue uses, spelled out
 * here with a RV_ prefix rather than taken from <asm/kvm.h>: the cross
 * toolchain's kernel headers (Debian bookworm, Linux 6.1) predate the SBI
 * extension registers (Linux 6.4) and the satp_mode config register, and the
 * x86 build compiles this glue too for its unit tests, where <asm/kvm.h> is
 * x86's.  The values are UAPI, fixed once released: Linux
 * arch/riscv/include/uapi/asm/kvm.h (6.12) and include/uapi/linux/kvm.h;
 * Documentation/virt/kvm/api.rst, "KVM_SET_ONE_REG" (the RISC-V register
 * ids) and "KVM_INTERRUPT".
 */
#ifndef VPMU_VMM_GLUE_KVM_RISCV_UAPI_H
#define VPMU_VMM_GLUE_KVM_RISCV_UAPI_H

#include <stdint.h>

/* ONE_REG ids: arch, size, type (bits 31:24), subtype (23:16), index. */
#define RV_REG_ARCH          0x8000000000000000ull   /* KVM_REG_RISCV */
#define RV_REG_U64           0x0030000000000000ull   /* KVM_REG_SIZE_U64 (rv64: unsigned long) */
#define RV_REG(type, sub, idx) \
	(RV_REG_ARCH | RV_REG_U64 | ((uint64_t)(type) << 24) | ((uint64_t)(sub) << 16) | (uint64_t)(idx))
#define RV_REG_TYPE_CONFIG   1
#define RV_REG_TYPE_CORE     2
#define RV_REG_TYPE_CSR      3   /* subtype 0: KVM_REG_RISCV_CSR_GENERAL */
#define RV_REG_TYPE_TIMER    4
#define RV_REG_TYPE_ISA_EXT  7   /* subtype 0: KVM_REG_RISCV_ISA_SINGLE */
#define RV_REG_TYPE_SBI_EXT  8   /* subtype 0: KVM_REG_RISCV_SBI_SINGLE (Linux 6.4) */

/* struct kvm_riscv_config, in unsigned longs. */
#define RV_CONFIG_ISA        0   /* single-letter extensions, bit n = 'a' + n */
#define RV_CONFIG_SATP_MODE  6   /* 8 Sv39, 9 Sv48, 10 Sv57 (Linux 6.4) */
/* struct kvm_riscv_core: user_regs_struct (pc, x1..x31), then mode. */
#define RV_CORE_PC           0
#define RV_CORE_A0           10
#define RV_CORE_A1           11
#define RV_CORE_MODE         32
#define RV_MODE_S            1   /* KVM_RISCV_MODE_S */
/* struct kvm_riscv_csr: the guest's VS-level copies of the S-mode CSRs. */
#define RV_CSR_SSTATUS       0
#define RV_CSR_STVEC         2
#define RV_CSR_SEPC          4
#define RV_CSR_SCAUSE        5
#define RV_CSR_STVAL         6
/* struct kvm_riscv_timer */
#define RV_TIMER_FREQUENCY   0
/* enum KVM_RISCV_ISA_EXT_ID */
#define RV_ISA_EXT_SSTC      8
/* enum KVM_RISCV_SBI_EXT_ID */
#define RV_SBI_EXT_PMU       6
#define RV_SBI_EXT_DBCN      9

/* sstatus bits (RISC-V privileged specification, "Supervisor Status Register"). */
#define RV_SSTATUS_SIE       (1ull << 1)
#define RV_SSTATUS_SPIE      (1ull << 5)
#define RV_SSTATUS_SPP       (1ull << 8)
/* scause 2, "Illegal instruction" (privileged specification, the scause table). */
#define RV_CAUSE_ILLEGAL_INSN 2

/* SBI extension ids (RISC-V SBI specification v2.0: chapter 5 "Legacy
 * Extensions", chapter 11 "Performance Monitoring Unit Extension", chapter 12
 * "Debug Console Extension"). */
#define RV_SBI_EXT_0_1_PUTCHAR 0x01
#define RV_SBI_EXT_0_1_GETCHAR 0x02
#define RV_SBI_EXT_ID_PMU    0x504D55   /* "PMU" (VPMU_SBI_EXT_PMU) */
#define RV_SBI_EXT_ID_DBCN   0x4442434E /* "DBCN" */
#define RV_SBI_DBCN_WRITE       0
#define RV_SBI_DBCN_READ        1
#define RV_SBI_DBCN_WRITE_BYTE  2

/* The counter CSRs (privileged specification, "Hardware Performance
 * Monitor"): cycle 0xC00, time 0xC01, instret 0xC02, hpmcounter3-31
 * 0xC03-0xC1F; read-only (address bits 11:10 are 0b11). */
#define RV_CSR_COUNTER_FIRST 0xC00
#define RV_CSR_COUNTER_LAST  0xC1F

/*
 * The patched KVM of the RISC-V tier (patches/kvm-riscv-pmu/, docs/riscv.md
 * "vpmu-run on RISC-V"): no released kernel has these.  Stock KVM answers the
 * SBI PMU extension in the kernel (arch/riscv/kvm/vcpu_sbi_pmu.c) and its
 * counter CSRs too (vcpu_pmu.c kvm_riscv_vcpu_pmu_read_hpm), and its
 * KVM_INTERRUPT takes only KVM_INTERRUPT_SET (vcpu.c
 * kvm_arch_vcpu_async_ioctl).  The series makes a VM with the capability
 * forward EID 0x504D55 as KVM_EXIT_RISCV_SBI and the counter CSRs as
 * KVM_EXIT_RISCV_CSR, and adds two KVM_INTERRUPT values that set and clear
 * the vCPU's local counter-overflow interrupt (LCOFI, interrupt 13,
 * Sscofpmf).  Its 0004 adds the capability to include/uapi/linux/kvm.h after
 * Linux 6.12's last one (KVM_CAP_X86_GUEST_MODE, 238), and documents all of
 * it in api.rst ("KVM_CAP_RISCV_USER_PMU"); KVM refuses the capability with
 * -EINVAL where the host lacks Sscofpmf or a vCPU exists already.  Counter
 * CSR writes stay illegal instructions in the kernel.
 */
#define RV_KVM_CAP_RISCV_USER_PMU      239
#define RV_KVM_INTERRUPT_PMU_OVF_SET   (-3U)
#define RV_KVM_INTERRUPT_PMU_OVF_UNSET (-4U)

#endif
