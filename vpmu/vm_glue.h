/* SPDX-License-Identifier: MIT */
/*
 * What the KVM glue (vmm-glue/, built into libvpmu) records per VM between its
 * VM and vCPU setup calls.  Internal: not part of the API.
 */
#ifndef VPMU_VM_GLUE_H
#define VPMU_VM_GLUE_H

#include <stdbool.h>

#include "vpmu/vpmu.h"

/* The glue's own per-VM state (vmm-glue/kvm_gate.h), freed with free_fn when
 * the VM is destroyed; attached once, before any vCPU thread runs (NULL: none). */
void vpmu_vm_glue_attach(struct vpmu_vm *vm, void *data, void (*free_fn)(void *));
void *vpmu_vm_glue_data(const struct vpmu_vm *vm);

/* KVM exits on guest RDPMC for this VM (KVM_MSR_EXIT_REASON_RDPMC enabled). */
void vpmu_vm_glue_set_rdpmc_exits(struct vpmu_vm *vm, bool on);
bool vpmu_vm_glue_rdpmc_exits(const struct vpmu_vm *vm);

#endif
