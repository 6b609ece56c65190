/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the pmu-tests guest: MSR accesses that report failures at
 * the caller's line, resetting the PMU between cases, reading counters, and
 * the test groups main.c runs.
 */
#ifndef PMU_PMU_H
#define PMU_PMU_H

#include "guest.h"
#include "model.h"

#define EVTSEL_USR (1u << 16)
#define EVTSEL_OS  (1u << 17)
#define EVTSEL_INT (1u << 20)
#define EVTSEL_EN  (1u << 22)

/* How long a counting window lasts (TSC time; timing.h). */
#define WORK_US 5000

/* What the CPU says it is (CPUID leaves 0, 1, 0xA, 0x80000001). */
struct cpu_ident {
	char vendor[13];
	unsigned family, model, stepping;
	uint32_t max_leaf, max_ext_leaf;
	uint32_t leaf_a_eax;       /* 0 if leaf 0xA is not there */
	bool perfctr_core;         /* CPUID 0x80000001 ECX bit 23 */
};
void cpu_identify(struct cpu_ident *id);

/* The MSR helpers: each records "FILE:LINE: ..." and fails the current case
 * when the access does not do what the name says. */
uint64_t rd_at(const char *f, int l, uint32_t msr);                 /* no #GP */
void wr_at(const char *f, int l, uint32_t msr, uint64_t v);         /* no #GP */
void expect_rd_gp_at(const char *f, int l, uint32_t msr);
/* WRMSR raises #GP and the register (if readable) keeps its value. */
void expect_refused_at(const char *f, int l, uint32_t msr, uint64_t v);
/* WRMSR succeeds and RDMSR returns 'back'. */
void expect_stored_at(const char *f, int l, uint32_t msr, uint64_t v, uint64_t back);
/* A write that breaks a perfctr rule: refused in strict mode, stored otherwise
 * (docs/principles.md §2). */
void expect_rule_at(const char *f, int l, uint32_t msr, uint64_t v);

#define RD(msr)               rd_at(__FILE_NAME__, __LINE__, (msr))
#define WR(msr, v)            wr_at(__FILE_NAME__, __LINE__, (msr), (v))
#define EXPECT_RD_GP(msr)     expect_rd_gp_at(__FILE_NAME__, __LINE__, (msr))
#define EXPECT_REFUSED(msr, v) expect_refused_at(__FILE_NAME__, __LINE__, (msr), (v))
#define EXPECT_STORED(msr, v) expect_stored_at(__FILE_NAME__, __LINE__, (msr), (v), (v))
#define EXPECT_RULE(msr, v)   expect_rule_at(__FILE_NAME__, __LINE__, (msr), (v))

/* False under vpmu-run's sim backend, whose host counters only move when a
 * test tells them to (docs/principles.md §4): nothing advances them there,
 * so cases that need counting or PMIs are skipped with sim_skip_reason. */
bool host_counts(void);
extern const char sim_skip_reason[];
/* Whether the host counts every generic event (a host PMU); false where only
 * the clock-class events count (cycles from the scaled task clock: opts.counts
 * "clock"), and the others count zero (docs/integration.md). */
bool host_counts_all(void);
/* expect_counting, where the counters in `clock` count cycles and the rest of
 * `counting` count events this host may not count: those must not move then. */
void expect_counting_here(const struct pmu_model *m, const uint64_t a[MAX_CTRS],
			  const uint64_t b[MAX_CTRS], uint8_t counting, uint8_t clock,
			  uint8_t frozen, const char *what);
/* One counter from a to b: advanced if the host counts its event, else unmoved. */
void expect_event_counted_at(const char *f, int l, const struct pmu_model *m, uint64_t a,
			     uint64_t b, bool clock_event, const char *what);
#define EXPECT_EVENT_COUNTED(m, a, b, clock, what) \
	expect_event_counted_at(__FILE_NAME__, __LINE__, (m), (a), (b), (clock), (what))

void apply_writes(const struct msr_write *w);     /* WR() each, until msr == 0 */
/* Controls to their quiet values, then every counter to 0 (no rule is
 * broken by either: strict mode accepts them in this order). */
void pmu_reset(const struct pmu_model *m);
/* Stops counting the way perfctr would on this model (model.h stop_what). */
void pmu_stop(const struct pmu_model *m);

uint64_t ctr_width_mask(const struct pmu_model *m);
/* The control's enable bit: EVNTSEL EN (22), or the P4 CCCR's ENABLE (12). */
uint64_t ctl_en_bit(const struct pmu_model *m);
/* The RDPMC index of the table's counter i: i, or on the P4 its number. */
unsigned rdpmc_index(const struct pmu_model *m, unsigned i);
/* The CPUID model presented (cpumodel= on the command line, else the table's). */
unsigned cpu_model(const struct pmu_model *m);
/* Whether a PMI delivery sets the LVTPC mask on the CPU presented: only the
 * Intel parts from the Pentium M (family 6 model 9) and the P4 on do (SDM
 * vol. 3, LVT); the Pentium Pro/II/III and AMD do not.  cpumodel= on the
 * command line is the identity the host presents. */
bool lvtpc_automask(const struct pmu_model *m);
/* What RDMSR returns after WRMSR(counter, v): P6 keeps EAX sign-extended
 * into 40 bits (perfctr low-level-x86.txt "Intel P6"), the others the low
 * 'width' bits (docs/models/). */
uint64_t ctr_write_result(const struct pmu_model *m, uint64_t v);
void read_ctrs(const struct pmu_model *m, uint64_t v[MAX_CTRS]);
/* Counter moved forward (and did not wrap) between a and b. */
bool ctr_advanced(const struct pmu_model *m, uint64_t a, uint64_t b);
/* Checks a window's before/after values against the masks; 'what' names it. */
void expect_counting(const struct pmu_model *m, const uint64_t a[MAX_CTRS],
		     const uint64_t b[MAX_CTRS], uint8_t counting, uint8_t frozen,
		     const char *what);

/* The test groups, in the order main.c runs them. */
void test_detect(const struct pmu_model *m, const struct cpu_ident *id);
void test_rdpmc(const struct pmu_model *m);
void test_counting(const struct pmu_model *m);
void test_writes(const struct pmu_model *m);
void test_strict(const struct pmu_model *m, const struct cpu_ident *id);
void test_pmi(const struct pmu_model *m);
void pmi_install_stray_handlers(void);
uint32_t pmi_strays(void);
void test_linux(const struct pmu_model *m);
void test_smp(const struct pmu_model *m);
void test_p4(const struct pmu_model *m);

#endif
