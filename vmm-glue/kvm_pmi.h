/* SPDX-License-Identifier: MIT */
/*
 * Virtual PMIs into a KVM guest through its LVTPC (docs/integration.md
 * "PMIs"): delivered as the LVTPC says (NMI or a fixed vector), masked on
 * delivery on the CPUs that auto-mask, dropped where the real CPU would lose
 * them, and, on CPUs whose PMI is a level (the P4: vpmu_vcpu_pmi_asserted),
 * held while the LVTPC is masked and delivered once the guest unmasks it.
 */
#ifndef VPMU_KVM_PMI_H
#define VPMU_KVM_PMI_H

#include <stdbool.h>
#include <time.h>

#include "kvm_gate.h"
#include "vpmu/kvm_x86.h"
#include "vpmu/vpmu.h"

struct kvm_pmi {
	int vm_fd, vcpu_fd;
	int signo;          /* the vCPU thread's kick signal */
	bool automask;      /* delivery masks the LVTPC (vpmu_vm_pmi_automask) */
	struct kvm_gate *gate;  /* the VM's LVTPC write gate (NULL: none) */
	unsigned index;     /* this vCPU's place in it */
	bool held;          /* a level PMI waits for the LVTPC to be unmasked */
	bool timer_ok;      /* timer: kicks the vCPU thread to look again */
	timer_t timer;
};

/* Before an entry, with a PMI pending or held: deliver it, drop it, or hold
 * it.  0, or a negative errno with *what the KVM call that failed. */
int kvm_pmi_deliver(struct kvm_pmi *p, struct vpmu_vcpu *v, struct vpmu_kvm_stats *st,
		    const char **what);
/* The recheck of a held PMI called off (a reset dropped what it held). */
void kvm_pmi_disarm(struct kvm_pmi *p);
void kvm_pmi_destroy(struct kvm_pmi *p);

#endif
