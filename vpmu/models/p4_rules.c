/* SPDX-License-Identifier: MIT */
/* perfctr's Pentium 4 rules (p4_rules.h). */
#include "p4_escr.h"
#include "p4_rules.h"

#define R(id) (1u << (id))

const struct vpmu_rule p4_rules[P4_NR_RULES] = {
	[P4_RULE_CCCR_RESERVED] = { "cccr-reserved",
		"CCCR bits 0xB80007FF are reserved: OVF, bits 27-29 (OVF_PMI_T1 and two "
		"reserved), 0-10 (perfctr x86.c p4_check_control, -EPERM)", 0 },
	[P4_RULE_EXT_CASCADE] = { "cccr-extended-cascade",
		"EXTENDED_CASCADE (CCCR bit 11) exists on CPUID model 2 and later, and only on "
		"counters 12 and 15-17 (perfctr x86.c p4_check_control, -EPERM)", 0 },
	[P4_RULE_ESCR_RESERVED] = { "escr-reserved",
		"ESCR bit 31 is reserved (perfctr x86.c p4_check_control, -EPERM)", 0 },
	[P4_RULE_PEBS_RESERVED] = { "pebs-enable-reserved",
		"PEBS_ENABLE may set only UOP_TAG (bit 24) and the replay bits 0-2, 9, 10: "
		"0x01000607 (perfctr x86.c p4_check_control, -EPERM)", 0 },
	[P4_RULE_PMV_RESERVED] = { "pebs-matrix-vert-reserved",
		"PEBS_MATRIX_VERT may set only bits 0-1 (perfctr x86.c p4_check_control, -EPERM)", 0 },
	[P4_RULE_ACTIVE_THREAD] = { "cccr-active-thread",
		"without hyper-threading a CCCR's ACTIVE_THREAD (bits 16-17) must be 3, any "
		"thread (perfctr x86.c p4_check_control, -EINVAL)", 0 },
	[P4_RULE_FORCE_OVF] = { "force-ovf-ireset",
		"an interrupting counter with FORCE_OVF must start at -1 (perfctr x86.c "
		"p4_check_control, -EINVAL)", 0 },
	[P4_RULE_CPL_T1] = { "escr-cpl-t1",
		"ESCR T1_OS/T1_USR (bits 0-1) only on a hyper-threaded P4 in global mode (perfctr "
		"x86.c p4_check_control, -EINVAL)", 0 },
	[P4_RULE_ESCR_SELECT] = { "cccr-escr-select",
		"the CCCR's ESCR_SELECT must name an ESCR of the counter's group (perfctr x86.c "
		"p4_escr_addr, -EINVAL)", 0 },
	[P4_RULE_IQ_ESCR] = { "iq-escr-model",
		"IQ_ESCR0/1 exist only on CPUID models 0-2 (perfctr x86.c p4_check_control, "
		"-EINVAL)", 0 },
	[P4_RULE_PEBS_INCOMPLETE] = { "pebs-enable-incomplete",
		"a nonzero PEBS_ENABLE needs UOP_TAG (bit 24) and a replay bit of 0x607 (perfctr "
		"x86.c p4_check_control, -EINVAL)", 0 },
	[P4_RULE_PMV_NONE] = { "pebs-matrix-vert-none",
		"with PEBS_ENABLE set, PEBS_MATRIX_VERT must set bit 0 or 1 (perfctr x86.c "
		"p4_check_control, -EINVAL)", 0 },
	[P4_RULE_PMV_ALONE] = { "pebs-matrix-vert-alone",
		"PEBS_MATRIX_VERT without PEBS_ENABLE (perfctr x86.c p4_check_control, -EPERM)", 0 },
	[P4_RULE_IRESET] = { "ireset-nonnegative",
		"an i-mode counter must start negative, ireset < 0 (perfctr x86.c check_ireset)",
		VPMU_RULE_CHECK_IRESET },
};

uint32_t p4_cccr_violations(uint64_t cccr, unsigned pmc, unsigned cpumodel)
{
	uint32_t v = 0;
	/* perfctr's mask includes OVF (bit 31): a guest writing OVF back as it
	 * read it is the model's to accept; the rule is perfctr's. */
	if (cccr & P4_CCCR_PERFCTR_RESV)
		v |= R(P4_RULE_CCCR_RESERVED);
	if ((cccr & P4_CCCR_EXT_CASCADE) && (cpumodel < 2 || !(pmc == 12 || pmc >= 15)))
		v |= R(P4_RULE_EXT_CASCADE);
	return v;
}

uint32_t p4_escr_violations(uint64_t escr)
{
	return (escr & P4_ESCR_RESERVED) ? R(P4_RULE_ESCR_RESERVED) : 0;
}

uint32_t p4_pebs_enable_violations(uint64_t pebs_enable)
{
	return (pebs_enable & ~(uint64_t)P4_PEBS_ALLOWED) ? R(P4_RULE_PEBS_RESERVED) : 0;
}

uint32_t p4_pmv_violations(uint64_t pebs_matrix_vert)
{
	return (pebs_matrix_vert & ~(uint64_t)P4_PMV_ALLOWED) ? R(P4_RULE_PMV_RESERVED) : 0;
}

uint32_t p4_control_violations(const struct vpmu_ctl *ctl, unsigned cpumodel, bool ht)
{
	uint32_t v = 0;
	unsigned n = vpmu_ctl_n(ctl);
	for (unsigned i = 0; i < n && i < VPMU_MAX_CTRS; i++) {
		const struct vpmu_ctl_ctr *e = &ctl->ctr[i];
		uint32_t escr = p4_escr_addr(e->pmc, P4_CCCR_ESCR_SELECT(e->evntsel));
		if (!ht && (e->evntsel & P4_CCCR_ACTIVE_THREAD) != P4_CCCR_ACTIVE_THREAD)
			v |= R(P4_RULE_ACTIVE_THREAD);
		/* perfctr's ireset is an int: -1 is the low 32 bits all ones. */
		if (i >= ctl->nractrs && (e->evntsel & P4_CCCR_FORCE_OVF) &&
		    (uint32_t)e->ireset != 0xFFFFFFFFu)
			v |= R(P4_RULE_FORCE_OVF);
		if (!ht && (e->aux & P4_ESCR_CPL_T1))
			v |= R(P4_RULE_CPL_T1);
		if (!escr)
			v |= R(P4_RULE_ESCR_SELECT);
		else if ((escr & ~1u) == 0x3BA && cpumodel > 2)
			v |= R(P4_RULE_IQ_ESCR);
	}
	uint64_t pe = ctl->global[0], pmv = ctl->global[1];
	if (pe) {
		if (!(pe & P4_PEBS_UOP_TAG) || !(pe & P4_PEBS_REPLAY_BITS))
			v |= R(P4_RULE_PEBS_INCOMPLETE);
		if (!(pmv & P4_PMV_ALLOWED))
			v |= R(P4_RULE_PMV_NONE);
	} else if (pmv) {
		v |= R(P4_RULE_PMV_ALONE);
	}
	return v;
}
