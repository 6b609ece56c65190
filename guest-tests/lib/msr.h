/* SPDX-License-Identifier: MIT */
/*
 * MSR and PMC access that survives a fault, like Linux's rdmsr_safe/wrmsr_safe:
 * each returns 0, or -1 when the instruction raised #GP (the value is then 0
 * for the reads).  -2 means another recovered exception (#UD: QEMU TCG raises
 * it for RDPMC) so a test can report the wrong vector instead of crashing.
 */
#ifndef GUEST_MSR_H
#define GUEST_MSR_H

#include <stdint.h>

int rdmsr_safe(uint32_t msr, uint64_t *v);
int wrmsr_safe(uint32_t msr, uint64_t v);
int rdpmc_safe(uint32_t idx, uint64_t *v);

/* The vector of this vCPU's last recovered fault (13 #GP, 6 #UD), 0 if none. */
uint32_t last_fault_vector(void);

#endif
