/* SPDX-License-Identifier: MIT */
/*
 * The PowerPC 604/750/74xx performance monitor, shared by the ppc* models
 * (vpmu/models/ppc.c has the ops; each CPU family's file its registers and
 * descriptors).  docs/models/ppc7450.md and its siblings describe them.
 *
 * Registers (PowerPC 604e RISC Microprocessor User's Manual, MPC750 RISC
 * Microprocessor Family User's Manual and MPC7450 RISC Microprocessor Family
 * Reference Manual, chapters "Performance Monitor"; perfctr low-level-ppc32.txt):
 * MMCR0 SPR 952, PMC1/PMC2 953/954, SIA 955, MMCR1 956, PMC3/PMC4 957/958, SDA
 * 959 (604/604e), MMCR2 944, PMC5/PMC6 945/946, BAMR 951 (74xx); from the 750
 * on, user-mode read-only copies 16 below each (UMMCR0 936, UPMC1 937, ...).
 * Bits are numbered here as masks of the 32-bit register (the manuals number
 * bit 0 as the most significant).
 */
#ifndef VPMU_MODELS_PPC_PMU_H
#define VPMU_MODELS_PPC_PMU_H

#include "../model.h"

#define PPC_SPR_MMCR2 944
#define PPC_SPR_PMC5  945
#define PPC_SPR_PMC6  946
#define PPC_SPR_BAMR  951
#define PPC_SPR_MMCR0 952
#define PPC_SPR_PMC1  953
#define PPC_SPR_PMC2  954
#define PPC_SPR_SIA   955
#define PPC_SPR_MMCR1 956
#define PPC_SPR_PMC3  957
#define PPC_SPR_PMC4  958
#define PPC_SPR_SDA   959
/* The user-mode copy of supervisor SPR n (750 and later): SPR n - 16. */
#define PPC_SPR_USER(n) ((n) - 16)
/* User copies sit at 928-943, the supervisor registers at 944-959. */
static inline bool ppc_spr_is_user_copy(uint32_t spr) { return spr < PPC_SPR_MMCR2; }

/* Register table entries (struct vpmu_reg) of the models' files. */
#define PPC_CTRL(spr, i) { spr, VPMU_SPACE_SPR, VPMU_REG_CTRL, i, 0 }
#define PPC_CTR(spr, i)  { spr, VPMU_SPACE_SPR, VPMU_REG_CTR, i, 0 }
#define PPC_MISC(spr, i) { spr, VPMU_SPACE_SPR, VPMU_REG_MISC, i, 0 }
/* The same for the user-mode copy of supervisor SPR spr. */
#define PPC_UCTRL(spr, i) PPC_CTRL(PPC_SPR_USER(spr), i)
#define PPC_UCTR(spr, i)  PPC_CTR(PPC_SPR_USER(spr), i)
#define PPC_UMISC(spr, i) PPC_MISC(PPC_SPR_USER(spr), i)

/* MMCR0 */
#define MMCR0_FC      0x80000000u  /* freeze counters */
#define MMCR0_FCS     0x40000000u  /* freeze in supervisor state (MSR[PR] = 0) */
#define MMCR0_FCP     0x20000000u  /* freeze in problem state (MSR[PR] = 1) */
#define MMCR0_FCM1    0x10000000u  /* freeze while MSR[PMM] = 1 */
#define MMCR0_FCM0    0x08000000u  /* freeze while MSR[PMM] = 0 */
#define MMCR0_PMXE    0x04000000u  /* performance-monitor exception enable */
#define MMCR0_FCECE   0x02000000u  /* freeze counters on enabled condition or event */
#define MMCR0_TBSEL   0x01800000u  /* time-base bit selected for TBEE */
#define MMCR0_TBEE    0x00400000u  /* time-base transition event enable */
#define MMCR0_THRESHOLD 0x003F0000u
#define MMCR0_PMC1CE  0x00008000u  /* PMC1 condition enable: PMC1 negative */
#define MMCR0_PMCJCE  0x00004000u  /* PMCj condition enable: PMC2..PMCn negative */
#define MMCR0_TRIGGER 0x00002000u  /* PMC2..n count only once PMC1 has gone negative */
#define MMCR0_PMC1SEL 0x00001FC0u  /* PMC1 event, 7 bits */
#define MMCR0_PMC2SEL 0x0000003Fu  /* PMC2 event, 6 bits */
#define MMCR0_SELECTORS (MMCR0_PMC1SEL | MMCR0_PMC2SEL)
/* MMCR1: PMC3SEL 5 bits at 27, PMC4SEL 5 at 22, PMC5SEL 5 at 17, PMC6SEL 6 at 11. */
#define MMCR1_PMC34SEL 0xFFC00000u
#define MMCR1_PMC56SEL 0x003FF800u
/* MMCR2 (7400 and later): THRESHMULT scales THRESHOLD by 32 instead of 2. */
#define MMCR2_THRESHMULT 0x80000000u

/* Control slots: the MMCRs (perfctr's ppc_mmcr[]); misc: SIA, SDA, BAMR. */
enum { PPC_MMCR0, PPC_MMCR1, PPC_MMCR2, PPC_NR_MMCR };
enum { PPC_MISC_SIA, PPC_MISC_SDA, PPC_MISC_BAMR };

/* What differs between the CPU families (struct vpmu_model.priv). */
struct ppc_variant {
	unsigned nr_pmcs;            /* 2 (604), 4 (604e, 750, 7400/7410), 6 (745x) */
	uint32_t mmcr1_valid;        /* the MMCR1 bits the CPU has (0: no MMCR1) */
	bool has_mmcr2;              /* MMCR2 and BAMR (7400 and later) */
	bool pmxe_cleared;           /* the exception clears MMCR0[PMXE] (7xx, 74xx; not the 604) */
	bool user_copies;            /* UMMCRn/UPMCn/USIA, read-only in problem state (750 on) */
};

/* The rules of perfctr's PPC32 driver (ppc.c, ppc_check_control; strict mode
 * follows the release with overflow interrupts: docs/models/ppc7450.md). */
enum {
	PPC_RULE_PMXE_NO_IMODE,
	PPC_RULE_MMCR1_RESERVED,
	PPC_RULE_MMCR2_RESERVED,
	PPC_RULE_IRESET,
	PPC_NR_RULES
};
extern const struct vpmu_rule ppc_rules[PPC_NR_RULES];
extern const struct vpmu_model_ops ppc_ops;
/* Where each PMC's event selector lives (i-mode suspend clears it there). */
extern const uint8_t ppc_ctr_ctrl_slot[6];
/* Each PMC's event selector field in its MMCR, and its shift (ppc.c). */
extern const uint32_t ppc_sel_field[6];
extern const uint8_t ppc_sel_shift[6];

/* The descriptor fields every ppc model shares. */
#define PPC_MODEL_COMMON \
	.regspace = VPMU_SPACE_SPR, \
	.caps = VPMU_CAP_PCINT | VPMU_CAP_OVF_ON_MSB, \
	.ctr_width = 32, .nr_ctrl_slots = PPC_NR_MMCR, .nr_globals = 3, \
	.rules = ppc_rules, .nr_rules = PPC_NR_RULES, \
	.ctr_ctrl_slot = ppc_ctr_ctrl_slot, \
	.ctr_sel_mask = ppc_sel_field, .ctr_sel_shift = ppc_sel_shift, \
	.ops = &ppc_ops

#endif
