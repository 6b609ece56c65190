/* SPDX-License-Identifier: MIT */
/* The RISC-V machine of vpmu-run (tools/run/riscv_boot.c). */
#ifndef VPMU_TOOLS_RUN_RISCV_BOOT_H
#define VPMU_TOOLS_RUN_RISCV_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "riscv_run.h"

/* The VM with rn->mem as its RAM, the user-space PMU (unless --no-pmu), the
 * harts with their run structures, kick mask and debug console.  The harts'
 * vPMU (rn->cpu[i].vcpu) must exist already.  0, or -1 with err set. */
int rv_create_vm(struct rv_run *rn, char *err, size_t errlen);
/* The Image k and the initrd rd (rdsize 0: none) in RAM, the device tree,
 * hart 0 at the entry.  0, or -1 with err set. */
int rv_boot_linux(struct rv_run *rn, const uint8_t *k, size_t ksize, const uint8_t *rd,
		  size_t rdsize, char *err, size_t errlen);

#endif
