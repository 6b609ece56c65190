/* SPDX-License-Identifier: MIT */
/*
 * perfctr's Pentium 4 rules (vpmu/models/p4_rules.c) case by case: for each
 * rule a control or register value that breaks exactly it, next to the same
 * with the one field right, from perfctr's p4_check_control as its
 * documentation and source give it (the expected rule of each case is what
 * perfctr returns -EPERM/-EINVAL for).  The programming is Linux's P4 driver's
 * (arch/x86/events/intel/p4.c): cycles as GLOBAL_POWER_EVENTS (event 0x13,
 * EMASK RUNNING) through FSB_ESCR0 (ESCR_SELECT 6) on counter 0, and
 * instructions as INSTR_RETIRED (event 0x02) through CRU_ESCR0 (ESCR_SELECT
 * 4) on counter 12, interrupting.
 */
#include <stdio.h>
#include <string.h>

#include "models/p4_escr.h"
#include "models/p4_rules.h"
#include "tap.h"

#define SEL(s)       ((uint64_t)(s) << 13)
#define ANY_THREAD   P4_CCCR_ACTIVE_THREAD
#define T0_OS_USR    0xCu
#define ESCR(ev, em) (((uint64_t)(ev) << 25) | ((uint64_t)(em) << 9) | T0_OS_USR)

static const char *names(uint32_t v)
{
	static char buf[256];
	buf[0] = '\0';
	for (unsigned r = 0; r < P4_NR_RULES; r++)
		if (v & (1u << r))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s ", p4_rules[r].name);
	return v ? buf : "none";
}

#define EXPECT(got, want, ...) do { \
	uint32_t g_ = (got), w_ = (want); \
	ok(g_ == w_, __VA_ARGS__); \
	if (g_ != w_) printf("#   broke: %s\n", names(g_)); \
} while (0)
#define R(id) (1u << (id))

/* A control with counter 0 counting cycles (a-mode) and counter 12 counting
 * instructions with an interrupt (i-mode, starting at -0x100000). */
static struct vpmu_ctl linux_like(void)
{
	struct vpmu_ctl c;
	memset(&c, 0, sizeof(c));
	c.nractrs = 1;
	c.nrictrs = 1;
	c.ctr[0] = (struct vpmu_ctl_ctr){ .pmc = 0, .evntsel = P4_CCCR_ENABLE | ANY_THREAD | SEL(6),
					  .aux = ESCR(0x13, 1) };
	c.ctr[1] = (struct vpmu_ctl_ctr){ .pmc = 12,
					  .evntsel = P4_CCCR_ENABLE | ANY_THREAD | SEL(4) | P4_CCCR_OVF_PMI_T0,
					  .aux = ESCR(0x02, 1), .ireset = 0xFFFFF00000ull };
	return c;
}

int main(void)
{
	struct vpmu_ctl c = linux_like();
	EXPECT(p4_control_violations(&c, 2, false), 0, "Linux's cycles and instructions: no rule broken");
	EXPECT(p4_control_violations(&c, 3, true), 0, "the same on a hyper-threaded model 3");

	c = linux_like();
	c.ctr[0].evntsel &= ~(uint64_t)(1u << 17);   /* ACTIVE_THREAD 1: thread 0 only */
	EXPECT(p4_control_violations(&c, 2, false), R(P4_RULE_ACTIVE_THREAD),
	       "ACTIVE_THREAD other than 3 without HT");
	EXPECT(p4_control_violations(&c, 2, true), 0, "... is fine with HT");

	c = linux_like();
	c.ctr[1].evntsel |= P4_CCCR_FORCE_OVF;
	EXPECT(p4_control_violations(&c, 2, false), R(P4_RULE_FORCE_OVF),
	       "FORCE_OVF on an i-mode counter starting at -0x100000");
	c.ctr[1].ireset = 0xFFFFFFFFFFull;
	EXPECT(p4_control_violations(&c, 2, false), 0, "... starting at -1: fine");
	c = linux_like();
	c.ctr[0].evntsel |= P4_CCCR_FORCE_OVF;
	EXPECT(p4_control_violations(&c, 2, false), 0, "FORCE_OVF on an a-mode counter: no rule");

	c = linux_like();
	c.ctr[0].aux |= 0x3;   /* T1_OS | T1_USR */
	EXPECT(p4_control_violations(&c, 2, false), R(P4_RULE_CPL_T1), "ESCR T1 bits without HT");
	EXPECT(p4_control_violations(&c, 2, true), 0, "... with HT: fine");

	c = linux_like();
	c.ctr[0].pmc = 4;      /* an MS counter: select 6 names no ESCR there */
	EXPECT(p4_control_violations(&c, 2, false), R(P4_RULE_ESCR_SELECT),
	       "ESCR_SELECT 6 on counter 4 (MS group: selects 0-2 only)");
	c = linux_like();
	c.ctr[1].pmc = 14;
	c.ctr[1].evntsel = (c.ctr[1].evntsel & ~SEL(7)) | SEL(3);   /* SSU_ESCR1: none */
	EXPECT(p4_control_violations(&c, 2, false), R(P4_RULE_ESCR_SELECT),
	       "ESCR_SELECT 3 on counter 14 (SSU_ESCR1 does not exist)");

	c = linux_like();
	c.ctr[1].evntsel = (c.ctr[1].evntsel & ~SEL(7)) | SEL(0);   /* IQ_ESCR0 */
	EXPECT(p4_control_violations(&c, 3, false), R(P4_RULE_IQ_ESCR), "IQ_ESCR0 on model 3");
	EXPECT(p4_control_violations(&c, 2, false), 0, "... on model 2: fine");

	c = linux_like();
	c.global[0] = P4_PEBS_UOP_TAG | 0x1;
	c.global[1] = 0x1;
	EXPECT(p4_control_violations(&c, 2, false), 0, "PEBS: UOP_TAG, replay bit 0, matrix bit 0: fine");
	c.global[0] = 0x1;
	EXPECT(p4_control_violations(&c, 2, false), R(P4_RULE_PEBS_INCOMPLETE), "PEBS_ENABLE without UOP_TAG");
	c.global[0] = P4_PEBS_UOP_TAG;
	EXPECT(p4_control_violations(&c, 2, false), R(P4_RULE_PEBS_INCOMPLETE), "PEBS_ENABLE without a replay bit");
	c.global[0] = P4_PEBS_UOP_TAG | 0x200;
	c.global[1] = 0;
	EXPECT(p4_control_violations(&c, 2, false), R(P4_RULE_PMV_NONE), "PEBS_ENABLE with PEBS_MATRIX_VERT 0");
	c.global[0] = 0;
	c.global[1] = 0x2;
	EXPECT(p4_control_violations(&c, 2, false), R(P4_RULE_PMV_ALONE), "PEBS_MATRIX_VERT without PEBS_ENABLE");

	/* Per register, as the write hook flags them. */
	EXPECT(p4_cccr_violations(P4_CCCR_ENABLE | ANY_THREAD | SEL(6), 0, 2), 0, "a CCCR as Linux writes it");
	EXPECT(p4_cccr_violations(P4_CCCR_ENABLE | ANY_THREAD | 0x1, 0, 2), R(P4_RULE_CCCR_RESERVED),
	       "CCCR bit 0 (reserved)");
	EXPECT(p4_cccr_violations(P4_CCCR_ENABLE | (1u << 28), 0, 2), R(P4_RULE_CCCR_RESERVED),
	       "CCCR bit 28 (reserved)");
	EXPECT(p4_cccr_violations(P4_CCCR_OVF | P4_CCCR_ENABLE, 0, 2), R(P4_RULE_CCCR_RESERVED),
	       "CCCR.OVF in a write: in perfctr's mask");
	EXPECT(p4_cccr_violations(P4_CCCR_ENABLE | P4_CCCR_CASCADE | P4_CCCR_OVF_PMI_T0 |
				  P4_CCCR_FORCE_OVF | (0xFu << 20) | (1u << 19) | (1u << 18) | (1u << 24),
				  0, 2), 0, "every defined CCCR bit but EXTENDED_CASCADE and OVF: fine");
	EXPECT(p4_cccr_violations(P4_CCCR_EXT_CASCADE, 12, 2) | p4_cccr_violations(P4_CCCR_EXT_CASCADE, 15, 2) |
	       p4_cccr_violations(P4_CCCR_EXT_CASCADE, 17, 2), 0,
	       "EXTENDED_CASCADE on counters 12, 15 and 17 of model 2");
	EXPECT(p4_cccr_violations(P4_CCCR_EXT_CASCADE, 13, 2), R(P4_RULE_EXT_CASCADE),
	       "EXTENDED_CASCADE on counter 13");
	EXPECT(p4_cccr_violations(P4_CCCR_EXT_CASCADE, 0, 2), R(P4_RULE_EXT_CASCADE),
	       "EXTENDED_CASCADE on counter 0");
	EXPECT(p4_cccr_violations(P4_CCCR_EXT_CASCADE, 12, 1), R(P4_RULE_EXT_CASCADE),
	       "EXTENDED_CASCADE on model 1");
	EXPECT(p4_escr_violations(ESCR(0x13, 1)), 0, "an ESCR as Linux writes it");
	EXPECT(p4_escr_violations(ESCR(0x13, 1) | (1ull << 31)), R(P4_RULE_ESCR_RESERVED), "ESCR bit 31");
	EXPECT(p4_pebs_enable_violations(0x01000607), 0, "PEBS_ENABLE 0x01000607: every allowed bit");
	EXPECT(p4_pebs_enable_violations(0x8), R(P4_RULE_PEBS_RESERVED), "PEBS_ENABLE bit 3");
	EXPECT(p4_pebs_enable_violations(1u << 25), R(P4_RULE_PEBS_RESERVED), "PEBS_ENABLE bit 25 (ENABLE_PEBS_MY_THR)");
	EXPECT(p4_pmv_violations(3), 0, "PEBS_MATRIX_VERT 3");
	EXPECT(p4_pmv_violations(4), R(P4_RULE_PMV_RESERVED), "PEBS_MATRIX_VERT bit 2");

	unsigned dup = 0, empty = 0;
	for (unsigned i = 0; i < P4_NR_RULES; i++) {
		empty += !p4_rules[i].name || !p4_rules[i].text || !*p4_rules[i].text;
		for (unsigned j = i + 1; j < P4_NR_RULES; j++)
			dup += p4_rules[i].name && p4_rules[j].name && !strcmp(p4_rules[i].name, p4_rules[j].name);
	}
	ok(P4_NR_RULES <= 32 && !dup && !empty, "%d rules, named once each, each with its source",
	   P4_NR_RULES);
	return tap_done();
}
