/* SPDX-License-Identifier: MIT */
/*
 * What the guest expects of each CPU model, in one table (models.c).  Every
 * value comes from the model pages (docs/models/<name>.md) and the public
 * sources of docs/sources.md (perfctr's low-level-x86.txt and x86.c, the Intel
 * and AMD manuals, Linux's perf drivers); none from running libvpmu.
 */
#ifndef PMU_MODEL_H
#define PMU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

enum pmu_style {
	STYLE_NONE,   /* generic: no PMU MSR at all */
	STYLE_CESR,   /* P5, P5MMX, Cyrix, WinChip: CESR 0x11 with two 16-bit halves */
	STYLE_P6,     /* EVNTSEL0/1, EN only in EVNTSEL0 (the global enable) */
	STYLE_K7,     /* K7/K8: four EVNTSELs, each with its own EN */
	STYLE_C3,     /* VIA C3: only EVNTSEL1/PERFCTR1 */
	STYLE_P4,     /* P4 (NetBurst): 18 counters, 18 CCCRs, 45 ESCRs (p4.md) */
};

/* The driver Linux's vendor dispatch picks (arch/x86/events/core.c). */
enum linux_driver {
	LINUX_NONE, LINUX_P6, LINUX_AMD,
	/* never expected here: what a wrong CPUID would make Linux choose */
	LINUX_ARCH_PERFMON, LINUX_P4, LINUX_AMD_CORE, LINUX_ZHAOXIN,
};

#define MAX_CTRS 4
#define MAX_WRITES 4

/* P4 (docs/models/p4.md "Registers"; SDM vol. 3, NetBurst CCCR and ESCR
 * figures; perfctr low-level-x86.txt "Intel P4"). */
#define P4_NCTRS           18
#define P4_CTR(i)          (0x300u + (i))
#define P4_CCCR(i)         (0x360u + (i))
#define P4_PEBS_ENABLE     0x3F1u
#define P4_PEBS_MATRIX_VERT 0x3F2u
#define P4_BSU_ESCR0       0x3A0u
#define P4_FSB_ESCR0       0x3A2u
#define P4_FSB_ESCR1       0x3A3u
#define P4_BPU_ESCR1       0x3B3u
#define P4_IQ_ESCR0        0x3BAu
#define P4_IQ_ESCR1        0x3BBu
#define P4_CCCR_EXT_CASCADE (1u << 11)
#define P4_CCCR_ENABLE     (1u << 12)
#define P4_CCCR_ESCR_SEL(n) ((uint32_t)(n) << 13)
#define P4_CCCR_ACTIVE_THREAD(n) ((uint32_t)(n) << 16)
#define P4_CCCR_COMPARE    (1u << 18)
#define P4_CCCR_COMPLEMENT (1u << 19)
#define P4_CCCR_THRESHOLD(n) ((uint32_t)(n) << 20)
#define P4_CCCR_EDGE       (1u << 24)
#define P4_CCCR_FORCE_OVF  (1u << 25)
#define P4_CCCR_OVF_PMI_T0 (1u << 26)
#define P4_CCCR_OVF_PMI_T1 (1u << 27)
#define P4_CCCR_CASCADE    (1u << 30)
#define P4_CCCR_OVF        (1u << 31)
#define P4_ESCR_T1_USR     (1u << 0)
#define P4_ESCR_T1_OS      (1u << 1)
#define P4_ESCR_T0_USR     (1u << 2)
#define P4_ESCR_T0_OS      (1u << 3)
#define P4_ESCR_EMASK(m)   ((uint32_t)(m) << 9)
#define P4_ESCR_EVENT(e)   ((uint32_t)(e) << 25)
/* GLOBAL_POWER_EVENTS:RUNNING (event 0x13, FSB_ESCR0/1, ESCR_SELECT 6):
 * Linux p4_general_events' cycles; T0_OS|T0_USR. */
#define P4_ESCR_CYCLES     (P4_ESCR_EVENT(0x13) | P4_ESCR_EMASK(1) | P4_ESCR_T0_OS | P4_ESCR_T0_USR)
/* ENABLE, ESCR_SELECT 6 (FSB_ESCRx), ACTIVE_THREAD 3 (required without HT). */
#define P4_CCCR_CYCLES     (P4_CCCR_ENABLE | P4_CCCR_ESCR_SEL(6) | P4_CCCR_ACTIVE_THREAD(3))

/* The 45 ESCRs of p4.md (IQ_ESCR0/1 only on CPUID models 0-2). */
extern const uint32_t p4_escrs[];
extern const unsigned p4_nescrs;
/* Whether a P4 with CPUID model 'model' has this PMU MSR (p4.md "Registers"). */
bool p4_has_msr(unsigned model, uint32_t msr);

/* One WRMSR; lists end at msr == 0. */
struct msr_write {
	uint32_t msr;
	uint64_t val;
	const char *what;
};

/* A perfctr-valid a-mode programming and what it must do. */
struct count_setup {
	const char *what;
	struct msr_write on[MAX_WRITES];
	uint8_t counting;   /* counters (bit i = counter i) that must advance */
	uint8_t frozen;     /* counters that must not move */
	uint8_t clock;      /* of `counting`, those counting cycles: the rest count
	                       only on a host with a PMU (host_counts_all) */
};

struct pmu_model {
	const char *name;
	/* CPUID presented by default (model page, first paragraph) */
	const char *vendor;
	unsigned family, model, stepping;

	enum pmu_style style;
	uint8_t ctr_mask;                /* programmable counters */
	uint32_t ctr[MAX_CTRS];          /* counter MSR by counter index */
	uint32_t ctl[MAX_CTRS];          /* control MSRs the guest programs */
	unsigned nctl;
	uint32_t readonly[2];            /* C3: PERFCTR0, EVNTSEL0 */
	unsigned width;                  /* counter bits */
	bool sext32;                     /* a write sign-extends bit 31 (P6) */
	bool pmi;                        /* overflow interrupts through the LVTPC */
	bool no_rdpmc;                   /* no RDPMC instruction (plain P5: SDM vol. 2, RDPMC) */
	bool intel_lvtpc;                /* Intel LVTPC: auto-masks on P4/Pentium M+ (lvtpc_automask) */
	enum linux_driver linux;

	struct count_setup count[3];
	const char *stop_what;           /* how perfctr stops counting on this model */
	uint8_t stop_counting;           /* counters that still advance after that */
	uint8_t stop_clock;              /* of those, the ones counting cycles */
	struct msr_write quiet[MAX_WRITES]; /* every counter still (for write tests) */

	struct msr_write hw_gp[4];       /* hardware-reserved bits: #GP in both modes */
	struct msr_write stored[3];      /* valid values: read back exactly, both modes */
	struct msr_write rule1[6];       /* step-1 perfctr rules: strict #GP, default stored */

	struct msr_write smp_pre;        /* written on both vCPUs before smp[] (P4: the CCCR) */
	struct msr_write smp[2];         /* the BSP's and the AP's value of one control */
	unsigned smp_ctr;                /* the counter that control drives */
	uint8_t smp_clock;               /* bit 0: the BSP's event is cycles, bit 1: the AP's */

	uint64_t sample_evntsel;         /* i-mode cycles on counter 0: EN|INT|OS|USR */
	struct msr_write sample_pre;     /* written before the counter (P4: the ESCR) */
	uint64_t en_bit;                 /* the control's enable bit; 0: EVNTSEL EN (bit 22) */
};

extern const struct pmu_model pmu_models[];
extern const unsigned pmu_nmodels;

const struct pmu_model *model_by_name(const char *name);
const struct pmu_model *model_by_cpuid(const char *vendor, unsigned family, unsigned model,
				       unsigned stepping);
const char *linux_driver_name(enum linux_driver d);

/* Every PMU MSR of every family this project knows, for the #GP checks of
 * MSRs a model does not own (generic.md, k7.md "Any other MSR"). */
extern const uint32_t all_pmu_msrs[];
extern const unsigned all_pmu_nmsrs;

#endif
