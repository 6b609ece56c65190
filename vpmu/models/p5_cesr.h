/* SPDX-License-Identifier: MIT */
/*
 * The P5-family PMU shared by Intel P5/P5MMX, Cyrix 6x86MX/MII/III and Centaur
 * WinChip C6/2/3: one control register, CESR (MSR 0x11), holding a 16-bit control
 * half per counter (counter 0: bits 0-15, counter 1: bits 16-31), and two counters
 * CTR0/CTR1 (MSR 0x12/0x13).  perfctr low-level-x86.txt "Intel P5"; Intel SDM
 * vol. 3, "Pentium Processor Performance-Monitoring Facility" (the CESR figure).
 *
 * The variants differ only in what the hardware accepts in CESR, perfctr's
 * reserved mask per half, whether the half has a CC (privilege/enable) field and
 * how the event field is laid out: a struct p5_cesr_variant, which a model gives
 * as its descriptor's priv.  The ops are one set for all (p5_cesr_ops); a
 * P5-family model file is data only.
 */
#ifndef VPMU_P5_CESR_H
#define VPMU_P5_CESR_H

#include "../events.h"
#include "../model.h"
#include "x86_cpuid.h"

#define P5_CESR_MSR 0x11
#define P5_CTR0_MSR 0x12

/* One control half (Intel SDM vol. 3, "Pentium processor performance monitoring"). */
#define P5_HALF_EVENT    0x003Fu   /* ES: event select (Cyrix adds bit 10, WinChip uses 0-7) */
#define P5_HALF_CC       0x01C0u   /* CC: 000/100 off, x01 CPL 0-2, x10 CPL 3, x11 any */
#define P5_HALF_CC_OS    0x0040u   /* count while CPL 0-2 */
#define P5_HALF_CC_USR   0x0080u   /* count while CPL 3 */
#define P5_HALF_CC_CLK   0x0100u   /* count clocks (duration) instead of events */
#define P5_HALF_PC       0x0200u   /* pin control: the PMn pin signals overflow */
#define P5_CYRIX_EV6     0x0400u   /* Cyrix: event select bit 6 */

/*
 * Event keys.  The model's event table is matched against
 *   key = half & variant->event_key_bits
 * which keeps CC's clock bit (duration events count clocks only with it set);
 * events that differ per counter (P5MMX) say so in their ctr_mask.
 */
#define P5_CTR0 0x1u
#define P5_CTR1 0x2u

enum { P5_CESR_RULE_RESERVED, P5_CESR_NR_RULES };

struct p5_cesr_variant {
	uint64_t hw_defined;      /* CESR bits the hardware accepts; any other raises #GP */
	uint16_t perfctr_reserved;/* perfctr's reserved bits per half (step-1 rule) */
	bool has_cc;              /* false on WinChip: no CC field, counts always, every CPL */
	uint16_t event_key_bits;  /* half bits that select the event (see the key above) */
};

extern const struct vpmu_reg p5_cesr_regs[3];
extern const uint8_t p5_cesr_ctr_ctrl_slot[2];
extern const struct vpmu_model_ops p5_cesr_ops;

/* The three variants (p5_cesr.c has the reasons for each value). */
extern const struct p5_cesr_variant p5_cesr_intel, p5_cesr_cyrix, p5_cesr_winchip;
extern const struct vpmu_rule p5_cesr_intel_rules[P5_CESR_NR_RULES];
extern const struct vpmu_rule p5_cesr_cyrix_rules[P5_CESR_NR_RULES];
extern const struct vpmu_rule p5_cesr_winchip_rules[P5_CESR_NR_RULES];


/* The descriptor fields every P5-family model shares. */
#define P5_CESR_MODEL_FIELDS(VARIANT, RULES, TABLE)                           \
	.regspace = VPMU_SPACE_MSR,                                                       \
	/* .caps: no VPMU_CAP_PCINT (no LVTPC, no overflow interrupt: the PMn pins only) */ \
	.nr_ctrs = 2, .nr_ctrl_slots = 1,                                                 \
	.regs = p5_cesr_regs, .nr_regs = 3,                                               \
	.rules = RULES, .nr_rules = P5_CESR_NR_RULES,                                     \
	.table = TABLE,   /* data/perfmon/vpmu/ (tables.csv) */                           \
	.ctr_ctrl_slot = p5_cesr_ctr_ctrl_slot,                                           \
	.priv = &VARIANT,                                                                 \
	.ops = &p5_cesr_ops

#endif
