/* SPDX-License-Identifier: MIT */
/*
 * The Pentium 4's PMU registers as the model contract sees them (issue 11,
 * item 1; docs/design.md, "Pentium 4"): 18 counters (0x300-0x311), 18 CCCRs
 * (0x360-0x371) in control slots 0-17, the 45 ESCRs in slots 18-62 in address
 * order, PEBS_ENABLE (0x3F1) and PEBS_MATRIX_VERT (0x3F2) in slots 63-64, and
 * IA32_MISC_ENABLE (0x1A0) as a MISC register read through the model.  Which
 * ESCRs a CPUID model has (IQ_ESCR0/1 only on models 0-2) is the write and
 * read hooks' to say (p4_escr_exists): the table lists every ESCR any P4 has.
 */
#ifndef VPMU_P4_REGFILE_H
#define VPMU_P4_REGFILE_H

#include "../model.h"
#include "p4_escr.h"

#define P4_PEBS_ENABLE_MSR       0x3F1u
#define P4_PEBS_MATRIX_VERT_MSR  0x3F2u
#define P4_MISC_ENABLE_MSR       0x1A0u

#define P4_SLOT_CCCR0   0u
#define P4_SLOT_ESCR0   18u                    /* + the ESCR's rank by address */
#define P4_SLOT_PEBS    (P4_SLOT_ESCR0 + P4_NR_ESCRS)       /* 63 */
#define P4_SLOT_PMV     (P4_SLOT_PEBS + 1)                  /* 64 */
#define P4_NR_CTRL_SLOTS (P4_SLOT_PMV + 1)                  /* 65 */
#define P4_MISC_ENABLE  0u                     /* misc[] index */
#define P4_MISC_CASCADED 1u                    /* misc[]: counters started by a cascade (no MSR) */
#define P4_MISC_ENABLED  2u                    /* misc[]: CCCRs with ENABLE (no MSR; derived by write) */

/* The MSRs (84), and the cascade state save/restore carries (VPMU_SPACE_STATE). */
#define P4_NR_REGS (2 * P4_NR_COUNTERS + P4_NR_ESCRS + 4)
#define P4_STATE_CASCADED VPMU_STATE_BASE

/* Sorted by address (the contract's lookup is a binary search). */
extern const struct vpmu_reg p4_regs[P4_NR_REGS];

/* The control slot of ESCR msr (P4_SLOT_ESCR0 + rank), or -1 if msr is no
 * ESCR.  O(1). */
int p4_escr_slot(uint32_t msr);
/* The ESCR MSR in control slot `slot`, or 0 if the slot holds no ESCR.  O(1). */
uint32_t p4_slot_escr(unsigned slot);

#endif
