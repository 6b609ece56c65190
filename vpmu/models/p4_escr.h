/* SPDX-License-Identifier: MIT */
/*
 * The Pentium 4 (NetBurst) event-selection control registers (ESCRs) and which
 * ESCR a counter's CCCR selects: the first piece of the P4 model (issue 11;
 * docs/design.md, "Pentium 4").  Sources: IA-32 Intel Architecture Software
 * Developer's Manual, vol. 3, "Performance monitoring (processors based on
 * Intel NetBurst microarchitecture)", the ESCR/counter/CCCR table (order
 * number 245472-007 and later: earlier revisions swapped ESCR_SELECT 2 and 3
 * for counters 12, 13 and 16); perfctr's x86.c `p4_escr_addr()`; Linux
 * arch/x86/events/intel/p4.c `p4_escr_table`/`p4_event_bind_map`.
 */
#ifndef VPMU_P4_ESCR_H
#define VPMU_P4_ESCR_H

#include <stdbool.h>
#include <stdint.h>

#define P4_NR_COUNTERS  18
#define P4_NR_ESCRS     45
#define P4_COUNTER_MSR  0x300u      /* + counter: 40-bit counters */
#define P4_CCCR_MSR     0x360u      /* + counter */
#define P4_ESCR_FIRST   0x3A0u
#define P4_ESCR_LAST    0x3E1u

/* CCCR.ESCR_SELECT, bits 13-15. */
#define P4_CCCR_ESCR_SELECT(cccr) ((unsigned)(((cccr) >> 13) & 7u))

/* The ESCR that counter `pmc` (0-17) counts through with ESCR_SELECT `sel`
 * (0-7): its MSR address, or 0 when that combination selects no ESCR (the
 * hardware counts nothing; perfctr refuses it with -EINVAL).  O(1). */
static inline uint32_t p4_escr_addr(unsigned pmc, unsigned sel)
{
	extern const uint16_t p4_escr_by_counter[P4_NR_COUNTERS][8];
	return pmc < P4_NR_COUNTERS && sel < 8 ? p4_escr_by_counter[pmc][sel] : 0;
}

/* Whether msr is one of the 45 ESCRs of a P4 with CPUID model `cpu_model`:
 * IQ_ESCR0/1 (0x3BA/0x3BB) only on models 0-2, and no 0x3BF (Linux's
 * "SSU_ESCR1" is a guess that faults on the hardware). */
bool p4_escr_exists(uint32_t msr, unsigned cpu_model);

/* The ESCR's name as the manual gives it ("BSU_ESCR0"), or NULL. */
const char *p4_escr_name(uint32_t msr);

#endif
