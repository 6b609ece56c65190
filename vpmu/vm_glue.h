/* SPDX-License-Identifier: MIT */
/*
 * What the KVM glue (vmm-glue/, built into libvpmu) records per VM between its
 * VM and vCPU setup calls.  Internal: not part of the API.
 */
#ifndef VPMU_VM_GLUE_H
#define VPMU_VM_GLUE_H

#include "vpmu/vpmu.h"

/* The glue's own per-VM state (vmm-glue/kvm_x86.c's struct kvm_glue_vm), freed with free_fn when
 * the VM is destroyed; attached once, before any vCPU thread runs (NULL: none). */
void vpmu_vm_glue_attach(struct vpmu_vm *vm, void *data, void (*free_fn)(void *));
void *vpmu_vm_glue_data(const struct vpmu_vm *vm);

#endif
