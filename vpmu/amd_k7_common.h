/* SPDX-License-Identifier: MIT */
/*
 * What the AMD K7 and K8 models share: the same four PerfEvtSel/PerfCtr MSR pairs,
 * bit layout, 48-bit counters and perfctr check (seed 000 "AMD K7/K8"; facts 1a, 1c).
 * They differ in CPUID identity and in K8's multicore northbridge-event rule.
 */
#ifndef VPMU_AMD_K7_COMMON_H
#define VPMU_AMD_K7_COMMON_H

#include "internal.h"

#define K7_EVNTSEL0 0xC0010000u
#define K7_PERFCTR0 0xC0010004u
#define K7_NR_CTRS 4
#define K7_CTR_WIDTH 48

/* Rule ids (bit numbers of a violation mask) both models share; K8 appends its own. */
enum {
	K7_RULE_RESERVED,
	K7_RULE_NO_CPL,
	K7_RULE_IRESET,
	K7_NR_RULES
};

#define K7_COMMON_RULES \
	[K7_RULE_RESERVED] = { "evntsel-reserved", \
		"EVNTSEL bits 0x00280000 (21 and 19, PC) are reserved (seed 000 AMD K7/K8, " \
		"as Intel P6; facts 1c)" }, \
	[K7_RULE_NO_CPL] = { "cpl-none", \
		"an enabled counter's evntsel must set USR or OS, 0x30000 (facts 1c)" }, \
	[K7_RULE_IRESET] = { "ireset-nonnegative", \
		"an i-mode counter must start negative, ireset < 0 (facts 1c check_ireset)" }

/* Event encodings K7 and K8 share, none taking a unit mask (AMD Athlon x86 Code
 * Optimization Guide 22007 "Performance-monitoring counter events", K8 BKDG 26094;
 * OProfile athlon/x86-64 event lists; Linux amd_perfmon_event_map for cycles,
 * instructions, branches and branch-misses; data cache accesses/misses stand for
 * cache-references/misses).  Event bits 0-7 only, so match is 0xFF. */
#define K7_COMMON_EVENTS \
	{ 0x76, 0xFF, VPMU_EV_CYCLES, "CPU_CLK_UNHALTED" }, \
	{ 0xC0, 0xFF, VPMU_EV_INSTRUCTIONS, "RETIRED_INSTRUCTIONS" }, \
	{ 0xC2, 0xFF, VPMU_EV_BRANCHES, "RETIRED_BRANCHES" }, \
	{ 0xC3, 0xFF, VPMU_EV_BRANCH_MISSES, "RETIRED_BRANCHES_MISPREDICTED" }, \
	{ 0x40, 0xFF, VPMU_EV_CACHE_REFERENCES, "DATA_CACHE_ACCESSES" }, \
	{ 0x41, 0xFF, VPMU_EV_CACHE_MISSES, "DATA_CACHE_MISSES" }, \
	{ 0xC1, 0xFF, VPMU_EV_NONE, "RETIRED_OPS" }, \
	{ 0x80, 0xFF, VPMU_EV_NONE, "ICACHE_FETCHES" }, \
	{ 0x81, 0xFF, VPMU_EV_NONE, "ICACHE_MISSES" }, \
	{ 0x42, 0xFF, VPMU_EV_NONE, "DATA_CACHE_REFILLS_FROM_L2" }, \
	{ 0x43, 0xFF, VPMU_EV_NONE, "DATA_CACHE_REFILLS_FROM_SYSTEM" }, \
	{ 0xC4, 0xFF, VPMU_EV_NONE, "RETIRED_TAKEN_BRANCHES" }, \
	{ 0xCF, 0xFF, VPMU_EV_NONE, "INTERRUPTS_TAKEN" }

extern const struct vpmu_reg k7_regs[2 * K7_NR_CTRS];
extern const uint8_t k7_ctr_ctrl_slot[K7_NR_CTRS];

enum vpmu_fault k7_ctrl_write(const struct vpmu_cpu_opts *o, unsigned slot, uint64_t val,
			      uint64_t old, uint64_t *stored);
enum vpmu_fault k7_ctr_write(const struct vpmu_cpu_opts *o, unsigned pmc, uint64_t val,
			     uint64_t *stored);
uint32_t k7_check_write(const struct vpmu_cpu_opts *o, unsigned slot, uint64_t val);
void k7_derive(const struct vpmu_cpu_opts *o, const struct vpmu_regfile *r,
	       struct vpmu_ctl *ctl);
uint32_t k7_check_control(const struct vpmu_cpu_opts *o, const struct vpmu_regfile *r,
			  const struct vpmu_ctl *ctl);
unsigned k7_ctrl_images(const struct vpmu_ctl *ctl, struct vpmu_ctrl_image *out);
/* What counter pmc counts under ctrl, the generic event taken from `events`. */
/* The generic event of an enabled counter's EVNTSEL value. */
int k7_event_with(const struct vpmu_event_desc *events, unsigned nr_events, uint64_t ev);
int k7_decode_with(const struct vpmu_event_desc *events, unsigned nr_events,
		   const uint64_t *ctrl, unsigned pmc, unsigned *priv, bool *interrupt);

#endif
