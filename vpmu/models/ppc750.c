/* SPDX-License-Identifier: MIT */
/*
 * PowerPC 750 family, the G3 (MPC750 RISC Microprocessor Family User's Manual
 * and the IBM PowerPC 750CX/750FX/750GX user's manuals, "Performance
 * Monitor"): MMCR0/MMCR1, PMC1-PMC4, SIA, and their user-mode read-only copies
 * UMMCR0/UMMCR1, UPMC1-UPMC4, USIA; the exception clears MMCR0[PMXE].  PVR
 * versions 0x0008 (740, 750, 750CX/CXe: revisions differ), 0x7000 (750FX) and
 * 0x7002 (750GX).  Ops: ppc.c; page: docs/models/ppc750.md.
 */
#include "../events.h"
#include "ppc_pmu.h"

static const struct vpmu_reg ppc750_regs[] = {
	PPC_UCTRL(PPC_SPR_MMCR0, PPC_MMCR0),        /* 936 UMMCR0 */
	PPC_UCTR(PPC_SPR_PMC1, 0),                  /* 937 UPMC1 */
	PPC_UCTR(PPC_SPR_PMC2, 1),                  /* 938 UPMC2 */
	PPC_UMISC(PPC_SPR_SIA, PPC_MISC_SIA),       /* 939 USIA */
	PPC_UCTRL(PPC_SPR_MMCR1, PPC_MMCR1),        /* 940 UMMCR1 */
	PPC_UCTR(PPC_SPR_PMC3, 2),                  /* 941 UPMC3 */
	PPC_UCTR(PPC_SPR_PMC4, 3),                  /* 942 UPMC4 */
	PPC_CTRL(PPC_SPR_MMCR0, PPC_MMCR0),         /* 952 MMCR0 */
	PPC_CTR(PPC_SPR_PMC1, 0),                   /* 953 PMC1 */
	PPC_CTR(PPC_SPR_PMC2, 1),                   /* 954 PMC2 */
	PPC_MISC(PPC_SPR_SIA, PPC_MISC_SIA),        /* 955 SIA */
	PPC_CTRL(PPC_SPR_MMCR1, PPC_MMCR1),         /* 956 MMCR1 */
	PPC_CTR(PPC_SPR_PMC3, 2),                   /* 957 PMC3 */
	PPC_CTR(PPC_SPR_PMC4, 3),                   /* 958 PMC4 */
};

static const struct ppc_variant ppc750_variant = { 4, MMCR1_PMC34SEL, false, true, true };

#define PPC750_COMMON \
	PPC_MODEL_COMMON, \
	.nr_ctrs = 4, \
	.regs = ppc750_regs, .nr_regs = sizeof(ppc750_regs) / sizeof(ppc750_regs[0]), \
	.table = &vpmu_events_ppc750,   /* data/perfmon/vpmu/ppc.json */ \
	.priv = &ppc750_variant

const struct vpmu_model vpmu_model_ppc750 = {
	.name = "ppc750",
	.description = "PowerPC 750 (G3; also the 740, 750CX): 4 x 32-bit PMCs, MMCR0/1, user copies",
	.id = { "PowerPC", 0x0008, 0x03, 0x01, 0, 0, 0, 0 },   /* PVR 0x00080301: QEMU's 750 v3.1 */
	PPC750_COMMON,
};

const struct vpmu_model vpmu_model_ppc750fx = {
	.name = "ppc750fx",
	.description = "IBM PowerPC 750FX: the 750's performance monitor, PVR version 0x7000",
	.id = { "PowerPC", 0x7000, 0x02, 0x03, 0, 0, 0, 0 },   /* PVR 0x70000203 */
	PPC750_COMMON,
};

const struct vpmu_model vpmu_model_ppc750gx = {
	.name = "ppc750gx",
	.description = "IBM PowerPC 750GX: the 750's performance monitor, PVR version 0x7002",
	.id = { "PowerPC", 0x7002, 0x01, 0x02, 0, 0, 0, 0 },   /* PVR 0x70020102 */
	PPC750_COMMON,
};
