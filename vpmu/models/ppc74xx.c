/* SPDX-License-Identifier: MIT */
/*
 * PowerPC 74xx, the G4 (MPC7400 RISC Microprocessor User's Manual, MPC7410
 * and MPC7450 RISC Microprocessor Family Reference Manuals, "Performance
 * Monitor"): MMCR0/1/2, BAMR, PMC1-PMC4 (7400, 7410) or PMC1-PMC6 (7450,
 * 7451/7441, 7455/7445, 7457/7447, 7447A, 7448), SIA, and their user-mode
 * read-only copies; the exception clears MMCR0[PMXE]; MMCR2[THRESHMULT]
 * scales MMCR0[THRESHOLD] by 32 instead of 2.  Ops: ppc.c; pages:
 * docs/models/ppc7400.md, docs/models/ppc7450.md.
 */
#include "../events.h"
#include "ppc_pmu.h"

static const struct vpmu_reg ppc7400_regs[] = {
	PPC_UCTRL(PPC_SPR_MMCR2, PPC_MMCR2),        /* 928 UMMCR2 */
	PPC_UMISC(PPC_SPR_BAMR, PPC_MISC_BAMR),     /* 935 UBAMR */
	PPC_UCTRL(PPC_SPR_MMCR0, PPC_MMCR0),        /* 936 UMMCR0 */
	PPC_UCTR(PPC_SPR_PMC1, 0),                  /* 937 UPMC1 */
	PPC_UCTR(PPC_SPR_PMC2, 1),                  /* 938 UPMC2 */
	PPC_UMISC(PPC_SPR_SIA, PPC_MISC_SIA),       /* 939 USIA */
	PPC_UCTRL(PPC_SPR_MMCR1, PPC_MMCR1),        /* 940 UMMCR1 */
	PPC_UCTR(PPC_SPR_PMC3, 2),                  /* 941 UPMC3 */
	PPC_UCTR(PPC_SPR_PMC4, 3),                  /* 942 UPMC4 */
	PPC_CTRL(PPC_SPR_MMCR2, PPC_MMCR2),         /* 944 MMCR2 */
	PPC_MISC(PPC_SPR_BAMR, PPC_MISC_BAMR),      /* 951 BAMR */
	PPC_CTRL(PPC_SPR_MMCR0, PPC_MMCR0),         /* 952 MMCR0 */
	PPC_CTR(PPC_SPR_PMC1, 0),                   /* 953 PMC1 */
	PPC_CTR(PPC_SPR_PMC2, 1),                   /* 954 PMC2 */
	PPC_MISC(PPC_SPR_SIA, PPC_MISC_SIA),        /* 955 SIA */
	PPC_CTRL(PPC_SPR_MMCR1, PPC_MMCR1),         /* 956 MMCR1 */
	PPC_CTR(PPC_SPR_PMC3, 2),                   /* 957 PMC3 */
	PPC_CTR(PPC_SPR_PMC4, 3),                   /* 958 PMC4 */
};

static const struct vpmu_reg ppc7450_regs[] = {
	PPC_UCTRL(PPC_SPR_MMCR2, PPC_MMCR2),        /* 928 UMMCR2 */
	PPC_UCTR(PPC_SPR_PMC5, 4),                  /* 929 UPMC5 */
	PPC_UCTR(PPC_SPR_PMC6, 5),                  /* 930 UPMC6 */
	PPC_UMISC(PPC_SPR_BAMR, PPC_MISC_BAMR),     /* 935 UBAMR */
	PPC_UCTRL(PPC_SPR_MMCR0, PPC_MMCR0),        /* 936 UMMCR0 */
	PPC_UCTR(PPC_SPR_PMC1, 0),                  /* 937 UPMC1 */
	PPC_UCTR(PPC_SPR_PMC2, 1),                  /* 938 UPMC2 */
	PPC_UMISC(PPC_SPR_SIA, PPC_MISC_SIA),       /* 939 USIA */
	PPC_UCTRL(PPC_SPR_MMCR1, PPC_MMCR1),        /* 940 UMMCR1 */
	PPC_UCTR(PPC_SPR_PMC3, 2),                  /* 941 UPMC3 */
	PPC_UCTR(PPC_SPR_PMC4, 3),                  /* 942 UPMC4 */
	PPC_CTRL(PPC_SPR_MMCR2, PPC_MMCR2),         /* 944 MMCR2 */
	PPC_CTR(PPC_SPR_PMC5, 4),                   /* 945 PMC5 */
	PPC_CTR(PPC_SPR_PMC6, 5),                   /* 946 PMC6 */
	PPC_MISC(PPC_SPR_BAMR, PPC_MISC_BAMR),      /* 951 BAMR */
	PPC_CTRL(PPC_SPR_MMCR0, PPC_MMCR0),         /* 952 MMCR0 */
	PPC_CTR(PPC_SPR_PMC1, 0),                   /* 953 PMC1 */
	PPC_CTR(PPC_SPR_PMC2, 1),                   /* 954 PMC2 */
	PPC_MISC(PPC_SPR_SIA, PPC_MISC_SIA),        /* 955 SIA */
	PPC_CTRL(PPC_SPR_MMCR1, PPC_MMCR1),         /* 956 MMCR1 */
	PPC_CTR(PPC_SPR_PMC3, 2),                   /* 957 PMC3 */
	PPC_CTR(PPC_SPR_PMC4, 3),                   /* 958 PMC4 */
};

static const struct ppc_variant ppc7400_variant = { 4, MMCR1_PMC34SEL, true, true, true };
static const struct ppc_variant ppc7450_variant = { 6, MMCR1_PMC34SEL | MMCR1_PMC56SEL, true,
						     true, true };

#define PPC7400_COMMON \
	PPC_MODEL_COMMON, \
	.nr_ctrs = 4, \
	.regs = ppc7400_regs, .nr_regs = sizeof(ppc7400_regs) / sizeof(ppc7400_regs[0]), \
	.priv = &ppc7400_variant

#define PPC7450_COMMON \
	PPC_MODEL_COMMON, \
	.nr_ctrs = 6, \
	.regs = ppc7450_regs, .nr_regs = sizeof(ppc7450_regs) / sizeof(ppc7450_regs[0]), \
	.table = &vpmu_events_ppc7450,   /* data/perfmon/vpmu/ppc.json */ \
	.priv = &ppc7450_variant

/* The default PVRs are those of QEMU's CPUs of the same name
 * (target/ppc/cpu-models.h), which Linux's cputable matches. */
const struct vpmu_model vpmu_model_ppc7400 = {
	.name = "ppc7400",
	.description = "PowerPC 7400 (G4): 4 x 32-bit PMCs, MMCR0/1/2, BAMR, user-mode copies",
	.id = { "PowerPC", 0x000C, 0x02, 0x09, 0, 0, 0, 0 },   /* PVR 0x000C0209 */
	PPC7400_COMMON,
	.table = &vpmu_events_ppc7400,
};

const struct vpmu_model vpmu_model_ppc7410 = {
	.name = "ppc7410",
	.description = "PowerPC 7410 (G4): the 7400's performance monitor, PVR version 0x800C",
	.id = { "PowerPC", 0x800C, 0x11, 0x04, 0, 0, 0, 0 },  /* PVR 0x800C1104 */
	PPC7400_COMMON,
	.table = &vpmu_events_ppc7400,
};

const struct vpmu_model vpmu_model_ppc7450 = {
	.name = "ppc7450",
	.description = "PowerPC 7450 (G4): 6 x 32-bit PMCs, MMCR0/1/2, BAMR, user-mode copies",
	.id = { "PowerPC", 0x8000, 0x02, 0x01, 0, 0, 0, 0 },   /* PVR 0x80000201 */
	PPC7450_COMMON,
};

const struct vpmu_model vpmu_model_ppc7455 = {
	.name = "ppc7455",
	.description = "PowerPC 7455/7445 (G4): the 7450's performance monitor, PVR version 0x8001",
	.id = { "PowerPC", 0x8001, 0x03, 0x03, 0, 0, 0, 0 },   /* PVR 0x80010303 */
	PPC7450_COMMON,
};

const struct vpmu_model vpmu_model_ppc7447a = {
	.name = "ppc7447a",
	.description = "PowerPC 7447A (G4): the 7450's performance monitor, PVR version 0x8003",
	.id = { "PowerPC", 0x8003, 0x01, 0x02, 0, 0, 0, 0 },   /* PVR 0x80030102 */
	PPC7450_COMMON,
};

const struct vpmu_model vpmu_model_ppc7448 = {
	.name = "ppc7448",
	.description = "PowerPC 7448 (G4): the 7450's performance monitor, PVR version 0x8004",
	.id = { "PowerPC", 0x8004, 0x02, 0x02, 0, 0, 0, 0 },   /* PVR 0x80040202 */
	PPC7450_COMMON,
};
