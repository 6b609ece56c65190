/* SPDX-License-Identifier: MIT */
/* Per-vCPU and per-VM counter accounting, printed the same way by every tool. */
#ifndef VPMU_TOOLS_ACCOUNTING_H
#define VPMU_TOOLS_ACCOUNTING_H

#include <stdio.h>

#include "vpmu/vpmu.h"

/* Prints the VM's accounting: one block per vCPU, then the VM's totals. */
void accounting_print_vm(FILE *out, const char *vm_name, struct vpmu_vm *vm);

#endif
