/* SPDX-License-Identifier: MIT */
/*
 * One vCPU of the KVM glue, internal to vmm-glue/: what kvm_x86.c sets up and
 * the steps of kvm_steps.c (include/vpmu/kvm_x86.h, "The steps") work on.
 */
#ifndef VPMU_GLUE_KVM_VCPU_H
#define VPMU_GLUE_KVM_VCPU_H

#include <stdint.h>

#include "kvm_live.h"
#include "kvm_pmi.h"
#include "kvm_rdpmc.h"
#include "vpmu/kvm_x86.h"

/* The MSRs the glue's filter makes exit (vpmu_vm_trapped_regs): at most this
 * many. */
#define KVM_TRAPPED_MSRS 512

struct vpmu_kvm_vcpu {
	int vm_fd;
	int vcpu_fd;
	struct kvm_run *run;
	struct vpmu_vcpu *vcpu;
	const struct vpmu_vm *vm;
	int signo;               /* the kick signal */
	struct kvm_pmi pmi;      /* PMI delivery (kvm_pmi.h) */
	enum vpmu_kvm_rdpmc rdpmc;
	struct kvm_rdpmc_sync sync;  /* VPMU_KVM_RDPMC_SYNC: what KVM's counters hold */
	struct vpmu_kvm_stats stats;
	/* When the exit being timed (one in VPMU_KVM_TIMED_EXITS) came back to
	 * the glue, CLOCK_MONOTONIC ns; 0: none is (kvm_steps.c). */
	uint64_t msr_t0;
	/* The MSR exits that are the vPMU's, sorted (vpmu_kvm_vcpu_handle_exit). */
	unsigned nr_trapped;
	uint32_t trapped[KVM_TRAPPED_MSRS];
	struct kvm_live live;    /* live accounting for other threads (kvm_live.h) */
};

/* The glue's error convention (kvm_x86.h): err gets the message and what
 * errno e says; returns -e. */
int kvm_glue_fail(char *err, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
