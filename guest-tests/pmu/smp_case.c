/* SPDX-License-Identifier: MIT */
/*
 * Case group 8: two vCPUs program the same control register differently.  The
 * PMU registers are per vCPU (each vCPU has its own perfctr state, docs/principles.md
 * §1), so each must read back its own value after the other wrote, and
 * both counters must count.  The AP reports through shared memory and the BSP
 * reports the case.
 */
#include "pmu.h"

#define AP 1u
#define STEP_MS 3000u

static struct smp_work {
	const struct pmu_model *m;
	volatile uint32_t ap_programmed, bsp_checked;
	volatile int wr_fault, rd_fault;
	volatile uint64_t readback_before, readback_after, before, after;
	volatile bool timed_out;
} w;

/* Runs on the AP with interrupts off.  No EXPECT here: the case state is the
 * BSP's, so every outcome goes into 'w'. */
static void ap_work(void *arg)
{
	struct smp_work *p = arg;
	const struct pmu_model *m = p->m;
	const struct msr_write *mine = &m->smp[1];
	uint64_t v;

	for (unsigned i = 0; i < MAX_WRITES && m->quiet[i].msr; i++)
		wrmsr_safe(m->quiet[i].msr, m->quiet[i].val);
	p->wr_fault = m->smp_pre.msr ? wrmsr_safe(m->smp_pre.msr, m->smp_pre.val) : 0;
	p->wr_fault |= wrmsr_safe(mine->msr, mine->val);
	p->rd_fault = rdmsr_safe(mine->msr, &v);
	p->readback_before = v;
	mb();
	p->ap_programmed = 1;
	/* The BSP now reads its own register: after this AP's write. */
	if (!WAIT_UNTIL(p->bsp_checked, STEP_MS)) {
		p->timed_out = true;
	} else {
		p->rd_fault |= rdmsr_safe(mine->msr, &v);
		p->readback_after = v;
		p->rd_fault |= rdmsr_safe(m->ctr[m->smp_ctr], &v);
		p->before = v;
		spin_us(WORK_US);
		p->rd_fault |= rdmsr_safe(m->ctr[m->smp_ctr], &v);
		p->after = v;
	}
	for (unsigned i = 0; i < MAX_WRITES && m->quiet[i].msr; i++)
		wrmsr_safe(m->quiet[i].msr, m->quiet[i].val);
}

void test_smp(const struct pmu_model *m)
{
	const char *name = "smp: two vCPUs program one control differently, each reads back its own, "
			   "both count";
	const struct msr_write *bsp = &m->smp[0], *ap = &m->smp[1];
	uint64_t a, b;

	if (m->style == STYLE_NONE) {
		case_skip(name, "%s has no performance counters", m->name);
		return;
	}
	if (opts.vcpus < 2) {
		case_skip(name, "needs vcpus=2 (this run has %u)", opts.vcpus);
		return;
	}
	begin_case("%s", name);
	diag("BSP: msr 0x%x = 0x%llx, AP: 0x%llx; counter %u", bsp->msr,
	     (unsigned long long)bsp->val, (unsigned long long)ap->val, m->smp_ctr);
	if (!smp_wait_online(2, STEP_MS)) {
		FAIL("AP %u did not come online", AP);
		end_case();
		return;
	}
	memset((void *)&w, 0, sizeof(w));
	w.m = m;
	pmu_reset(m);
	if (m->smp_pre.msr)     /* P4: the CCCR that counts through the ESCR below */
		WR(m->smp_pre.msr, m->smp_pre.val);
	WR(bsp->msr, bsp->val);
	if (!ap_run(AP, ap_work, &w)) {
		FAIL("AP %u is busy", AP);
		pmu_reset(m);
		end_case();
		return;
	}
	if (!WAIT_UNTIL(w.ap_programmed, STEP_MS))
		FAIL("AP %u did not program its PMU within %u ms", AP, STEP_MS);
	EXPECT_EQ(RD(bsp->msr), bsp->val);
	a = RD(m->ctr[m->smp_ctr]);
	mb();
	w.bsp_checked = 1;
	spin_us(WORK_US);
	b = RD(m->ctr[m->smp_ctr]);
	if (!ap_wait_done(AP, 2 * STEP_MS + WORK_US / 1000))
		FAIL("AP %u did not finish within %u ms", AP, 2 * STEP_MS);

	EXPECT_EQ(w.timed_out, 0);
	EXPECT_EQ(w.wr_fault, 0);
	EXPECT_EQ(w.rd_fault, 0);
	EXPECT_EQ(w.readback_before, ap->val);
	EXPECT_EQ(w.readback_after, ap->val);
	EXPECT_EQ(RD(bsp->msr), bsp->val);
	if (!host_counts())
		diag("%s: counting not checked", sim_skip_reason);
	else {
		EXPECT_EVENT_COUNTED(m, a, b, m->smp_clock & 1, "the BSP's counter");
		EXPECT_EVENT_COUNTED(m, w.before, w.after, m->smp_clock & 2, "the AP's counter");
	}
	pmu_reset(m);
	end_case();
}
