/* SPDX-License-Identifier: MIT */
/*
 * Guest RDPMC on KVM (docs/rdpmc.md), internal to the glue: the exit reason of
 * the KVM change in patches/kvm-rdpmc, and the stock-KVM fallback that keeps
 * kvm_amd's legacy counters in step with the virtual PMU (kvm_rdpmc.c).
 */
#ifndef VPMU_KVM_RDPMC_H
#define VPMU_KVM_RDPMC_H

#include <stdint.h>

#include "vpmu/kvm_x86.h"

/* Not in any released <linux/kvm.h> yet. */
#ifndef KVM_MSR_EXIT_REASON_RDPMC
#define KVM_MSR_EXIT_REASON_RDPMC (1 << 3)
#endif

#define KVM_RDPMC_SYNC_CTRS 4

/* What KVM's legacy counters hold, as the glue last loaded them. */
struct kvm_rdpmc_sync {
	uint64_t synced[KVM_RDPMC_SYNC_CTRS];
};

/* Stock KVM: VPMU_KVM_RDPMC_SYNC where this vCPU has counters that
 * KVM_SET_MSRS loads and KVM's RDPMC reads back, else VPMU_KVM_RDPMC_STOCK. */
enum vpmu_kvm_rdpmc kvm_rdpmc_probe_sync(int vcpu_fd);
/* Before an entry: load KVM's counters with what RDPMC 0-3 reads from the
 * virtual PMU now.  1 if KVM_SET_MSRS ran, 0 if nothing changed, -errno. */
int kvm_rdpmc_sync(int vcpu_fd, struct vpmu_vcpu *vcpu, struct kvm_rdpmc_sync *s);

#endif
