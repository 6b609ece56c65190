/* SPDX-License-Identifier: MIT */
/*
 * What the KVM glue (vmm-glue/, built into libvpmu) records per VM between its
 * VM and vCPU setup calls.  Internal: not part of the API.
 */
#ifndef VPMU_VM_GLUE_H
#define VPMU_VM_GLUE_H

#include <stdbool.h>

#include "vpmu/vpmu.h"

/* KVM exits on guest RDPMC for this VM (KVM_MSR_EXIT_REASON_RDPMC enabled). */
void vpmu_vm_glue_set_rdpmc_exits(struct vpmu_vm *vm, bool on);
bool vpmu_vm_glue_rdpmc_exits(const struct vpmu_vm *vm);

#endif
