/* SPDX-License-Identifier: MIT */
/*
 * KVM's paravirtual clock (kvmclock) for Linux guests of vpmu-run.  The CPUID
 * of a legacy model gives Linux no TSC frequency (no leaf 15h), so it
 * calibrates the TSC against the PIT; under nested KVM that fails in every
 * boot ("tsc: Unable to calibrate against PIT", "Marking TSC unstable") and
 * Linux keeps time with the jiffies clocksource alone.  Presenting kvmclock, as
 * QEMU does for KVM guests, gives it the TSC rate and a stable clocksource;
 * KVM answers the clock's MSRs in the kernel (Linux
 * Documentation/virt/kvm/x86/cpuid.rst and msr.rst).
 */
#ifndef VPMU_TOOLS_KVM_PVCLOCK_H
#define VPMU_TOOLS_KVM_PVCLOCK_H

#include <stddef.h>

struct kvm_cpuid_entry2;
struct vpmu_vm;

/* Adds kvmclock to a CPUID table of n entries (room for max): the hypervisor
 * bit (CPUID.1:ECX bit 31), leaf 40000000h with the "KVMKVMKVM" signature and
 * leaf 40000001h with KVM_FEATURE_CLOCKSOURCE2 and the stable bit, nothing
 * else KVM offers.  Returns the new count; -ENOSPC (nothing changed) without
 * room for two entries; -EINVAL without leaf 1. */
int kvm_pvclock_leaves(struct kvm_cpuid_entry2 *e, unsigned n, unsigned max);

/* Sets vCPU vcpu_fd's CPUID to the glue's table for vm (vpmu_kvm_cpuid_entries)
 * plus kvmclock, before its first KVM_RUN.  0, or a negative errno with err
 * saying why. */
int kvm_pvclock_present(int vcpu_fd, const struct vpmu_vm *vm, unsigned apic_id, char *err,
			size_t errlen);

#endif
