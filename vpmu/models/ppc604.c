/* SPDX-License-Identifier: MIT */
/*
 * PowerPC 604 and 604e (PowerPC 604e RISC Microprocessor User's Manual,
 * "Performance Monitor"): MMCR0 and PMC1/PMC2, SIA and SDA on the 604; the
 * 604e adds MMCR1 and PMC3/PMC4.  No user-mode copies; the exception leaves
 * MMCR0[PMXE] set.  PVR versions 0x0004 (604) and 0x0009 (604e; 0x000A is the
 * 604ev).  Ops: ppc.c; pages: docs/models/ppc604.md, docs/models/ppc604e.md.
 */
#include "../events.h"
#include "ppc_pmu.h"

static const struct vpmu_reg ppc604_regs[] = {
	PPC_CTRL(PPC_SPR_MMCR0, PPC_MMCR0),         /* 952 MMCR0 */
	PPC_CTR(PPC_SPR_PMC1, 0),                   /* 953 PMC1 */
	PPC_CTR(PPC_SPR_PMC2, 1),                   /* 954 PMC2 */
	PPC_MISC(PPC_SPR_SIA, PPC_MISC_SIA),        /* 955 SIA */
	PPC_MISC(PPC_SPR_SDA, PPC_MISC_SDA),        /* 959 SDA */
};

static const struct vpmu_reg ppc604e_regs[] = {
	PPC_CTRL(PPC_SPR_MMCR0, PPC_MMCR0),         /* 952 MMCR0 */
	PPC_CTR(PPC_SPR_PMC1, 0),                   /* 953 PMC1 */
	PPC_CTR(PPC_SPR_PMC2, 1),                   /* 954 PMC2 */
	PPC_MISC(PPC_SPR_SIA, PPC_MISC_SIA),        /* 955 SIA */
	PPC_CTRL(PPC_SPR_MMCR1, PPC_MMCR1),         /* 956 MMCR1 */
	PPC_CTR(PPC_SPR_PMC3, 2),                   /* 957 PMC3 */
	PPC_CTR(PPC_SPR_PMC4, 3),                   /* 958 PMC4 */
	PPC_MISC(PPC_SPR_SDA, PPC_MISC_SDA),        /* 959 SDA */
};

static const struct ppc_variant ppc604_variant = { 2, 0, false, false, false };
static const struct ppc_variant ppc604e_variant = { 4, MMCR1_PMC34SEL, false, false, false };

const struct vpmu_model vpmu_model_ppc604 = {
	.name = "ppc604",
	.description = "PowerPC 604: 2 x 32-bit PMCs, MMCR0, SIA/SDA; PMXE stays set on the exception",
	.id = { "PowerPC", 0x0004, 0x01, 0x03, 0, 0, 0, 0 },   /* PVR 0x00040103 */
	PPC_MODEL_COMMON,
	.nr_ctrs = 2,
	.regs = ppc604_regs, .nr_regs = sizeof(ppc604_regs) / sizeof(ppc604_regs[0]),
	.table = &vpmu_events_ppc604,   /* data/perfmon/vpmu/ppc.json */
	.priv = &ppc604_variant,
};

const struct vpmu_model vpmu_model_ppc604e = {
	.name = "ppc604e",
	.description = "PowerPC 604e: 4 x 32-bit PMCs, MMCR0/1, SIA/SDA; PMXE stays set on the exception",
	.id = { "PowerPC", 0x0009, 0x02, 0x04, 0, 0, 0, 0 },   /* PVR 0x00090204 */
	PPC_MODEL_COMMON,
	.nr_ctrs = 4,
	.regs = ppc604e_regs, .nr_regs = sizeof(ppc604e_regs) / sizeof(ppc604e_regs[0]),
	.table = &vpmu_events_ppc604e,
	.priv = &ppc604e_variant,
};
