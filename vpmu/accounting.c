/* SPDX-License-Identifier: MIT */
/* Accounting totals and the perfctr ABI export of a vCPU's control and state. */
#include <errno.h>
#include <string.h>

#include "host_state.h"
#include "vpmu/perfctr.h"

/* A count added to struct vpmu_totals without its line in VPMU_TOTALS_COUNTS
 * would be summed by nothing and written by no format. */
_Static_assert(sizeof(struct vpmu_totals) ==
	       sizeof(uint64_t) * (VPMU_MAX_CTRS + VPMU_EV_NR + VPMU_TOTALS_NR + VPMU_MAX_RULES),
	       "every count of struct vpmu_totals has its line in VPMU_TOTALS_COUNTS");

int vpmu_vcpu_totals(const struct vpmu_vcpu *v, struct vpmu_totals *out)
{
	if (!v || !out)
		return -EINVAL;
	*out = v->totals;
	/* Sums not yet folded, plus the live differences while switched in. */
	for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++) {
		unsigned pmc = v->ctl.ctr[i].pmc;
		const struct vpmu_counter *k = &v->counter[pmc];
		uint64_t d = k->sum;
		if (v->cpu >= 0)
			d += vpmu_host_read(v, pmc) - k->start;
		out->pmc[pmc] += d;
		int ev = vpmu_counter_event_of(v, pmc);
		if (ev >= 0)
			out->events[ev] += d;
	}
	return 0;
}

int vpmu_vm_totals(const struct vpmu_vm *vm, struct vpmu_totals *out)
{
	if (!vm || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (unsigned k = 0; k < VPMU_MAX_VCPUS; k++) {
		struct vpmu_totals t;
		if (!vm->vcpu[k] || vpmu_vcpu_totals(vm->vcpu[k], &t))
			continue;
		vpmu_totals_add(out, &t);
	}
	return 0;
}

int vpmu_vcpu_perfctr_x86(const struct vpmu_vcpu *v, struct perfctr_cpu_state *out)
{
	if (!v || !out || v->model->regspace != VPMU_SPACE_MSR)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	const struct vpmu_ctl *c = &v->ctl;
	unsigned n = vpmu_ctl_n(c);
	out->control.nractrs = c->nractrs;
	out->control.nrictrs = c->nrictrs;
	out->control.p4.pebs_enable = (unsigned)c->global[0];
	out->control.p4.pebs_matrix_vert = (unsigned)c->global[1];
	for (unsigned i = 0; i < n; i++) {
		out->control.pmc_map[i] = c->ctr[i].pmc;
		out->control.evntsel[i] = (unsigned)c->ctr[i].evntsel;
		out->control.p4.escr[i] = (unsigned)c->ctr[i].aux;
		out->control.ireset[i] = i >= c->nractrs ? (int)(uint32_t)c->ctr[i].ireset : 0;
		out->p4_escr_map[i] = c->ctr[i].aux_slot;
		out->pmc[i].map = c->ctr[i].pmc;
		out->pmc[i].start = (unsigned)v->counter[c->ctr[i].pmc].start; /* perfctr's ABI: 32 bits */
		out->pmc[i].sum = v->counter[c->ctr[i].pmc].sum;
	}
	out->cstatus = perfctr_mk_cstatus(0, c->nractrs, c->nrictrs);
	out->k1.id = (unsigned)vpmu_vcpu_control_id(v);
	out->k1.isuspend_cpu = v->isuspend_cpu;
	return 0;
}

int vpmu_vcpu_perfctr_ppc32(const struct vpmu_vcpu *v, struct perfctr_ppc32_cpu_state *out)
{
	if (!v || !out || v->model->regspace != VPMU_SPACE_SPR)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	const struct vpmu_ctl *c = &v->ctl;
	unsigned n = vpmu_ctl_n(c);
	if (n > 8)
		return -EINVAL;
	out->control.nractrs = c->nractrs;
	out->control.nrictrs = c->nrictrs;
	out->control.ppc.mmcr0 = (unsigned)c->global[0];
	out->control.ppc.mmcr2 = (unsigned)c->global[2];
	/* ppc_mmcr[] is what the driver writes into MMCR0-2: the control's
	 * images, selectors included (low-level-ppc32.txt). */
	if (v->mops->ctrl_images) {
		struct vpmu_ctrl_image img[VPMU_MAX_CTRL_SLOTS];
		unsigned k = v->mops->ctrl_images(v->model, c, img);
		for (unsigned j = 0; j < k; j++)
			if (img[j].slot < 3)
				out->ppc_mmcr[img[j].slot] = (unsigned)img[j].value;
	}
	for (unsigned i = 0; i < n; i++) {
		out->control.pmc_map[i] = c->ctr[i].pmc;
		out->control.evntsel[i] = (unsigned)c->ctr[i].evntsel;
		out->control.ireset[i] = i >= c->nractrs ? (int)(uint32_t)c->ctr[i].ireset : 0;
		out->pmc[i].map = c->ctr[i].pmc;
		out->pmc[i].start = (unsigned)v->counter[c->ctr[i].pmc].start; /* perfctr's ABI: 32 bits */
		out->pmc[i].sum = v->counter[c->ctr[i].pmc].sum;
	}
	out->cstatus = perfctr_mk_cstatus(0, c->nractrs, c->nrictrs);
	out->k1.id = (unsigned)vpmu_vcpu_control_id(v);
	out->k1.isuspend_cpu = v->isuspend_cpu;
	return 0;
}
