/* SPDX-License-Identifier: MIT */
/*
 * The compiled event filter (filter.c makes it, control.c applies it): every
 * entry in KVM's masked form (Linux arch/x86/kvm/pmu.c convert_to_masked_filter).
 */
#ifndef VPMU_FILTER_H
#define VPMU_FILTER_H

#include <stdint.h>

/* api.rst, masked events: event select 7:0 and 35:32, match 15:8, exclude 55,
 * mask 63:56. */
#define FILT_EVENT      0x0000000F000000FFull
#define FILT_MATCH      0x000000000000FF00ull
#define FILT_EXCLUDE    (1ull << 55)
#define FILT_MASK       0xFF00000000000000ull
/* The event select register's event and unit mask (Intel SDM vol. 3B
 * IA32_PERFEVTSELx; AMD64 APM vol. 2 PerfEvtSel, EventSelect[11:8] in 35:32). */
#define FILT_SEL_EVENT_UMASK 0x0000000F0000FFFFull
#define FILT_SEL_USR_OS      0x30000ull   /* USR (16), OS (17): the same on all four PMUs */
#define FILT_FIX_OS_USR      0x3ull       /* IA32_FIXED_CTR_CTRL's field: OS (0), USR (1) */

struct vpmu_filter_entry {
	uint16_t event;   /* 12-bit event select */
	uint8_t mask, match;
};

struct vpmu_filter {
	unsigned action;
	uint32_t fixed;
	unsigned nr_inc, nr_exc;
	struct vpmu_filter_entry e[];   /* the includes, then the excludes */
};

#endif
