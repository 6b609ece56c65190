/* SPDX-License-Identifier: MIT */
/*
 * Installing a control, out of line (control.h has the inline parts): the
 * bookkeeping of a new control, perfctr's suspend/install/resume, the gates
 * written in place, and the re-derive of a control the register file changed
 * behind the access path.
 */
#include "control.h"

void vpmu_vcpu_set_control(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl)
{
	unsigned n = vpmu_ctl_n(ctl);
	for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++)
		v->vidx[v->ctl.ctr[i].pmc] = -1;
	v->ctl.nractrs = ctl->nractrs;
	v->ctl.nrictrs = ctl->nrictrs;
	/* The globals past the model's stay 0 (the content id hashes all four). */
	for (unsigned k = 0; k < v->model->nr_globals; k++)
		v->ctl.global[k] = ctl->global[k];
	for (unsigned i = 0; i < n; i++) {
		v->ctl.ctr[i] = ctl->ctr[i];
		v->vidx[ctl->ctr[i].pmc] = (int8_t)i;
		v->pmc[i].sum = 0;
		v->pmc[i].start = 0;
		v->event[i] = VPMU_EVENT_UNRESOLVED;
	}
	v->id_valid = false;
	/* Counter registers of i-mode counters must be (re)loaded at the next resume. */
	v->isuspend_cpu = -1;
}

/* A running vCPU whose control changes only in its globals, on a model whose
 * globals gate counting in the host images (VPMU_CAP_GLOBAL_GATE): the images
 * that changed are written in place; every counter's difference runs on (a
 * gated counter's host count stands still). */
__attribute__((noinline)) void vpmu_control_regate(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl)
{
	for (unsigned k = 0; k < v->model->nr_globals; k++) {
		uint64_t g = ctl->global[k];
		unsigned slot = v->model->global_slot[k];
		v->ctl.global[k] = g;
		if (v->cache->ctrl[slot] != g)
			vpmu_host_write_ctrl(v, slot, g);
	}
	v->id_valid = false;
	v->cache->id = ~0ull;   /* what write_control records for an unhashed control */
}

/* Install a new control; a running vCPU is suspended and resumed around it, as
 * perfctr's vperfctr control update does. */
void vpmu_control_apply(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl)
{
	bool running = v->cpu >= 0;
	if (running)
		vpmu_state_suspend(v);
	for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++)
		vpmu_counter_fold(v, i);
	vpmu_vcpu_set_control(v, ctl);
	if (running)
		vpmu_state_resume(v);
}

void vpmu_vcpu_refresh(struct vpmu_vcpu *v)
{
	struct vpmu_ctl ctl;
	vpmu_clear_stale(v);
	derive_control(v, NULL, &ctl, NULL);
	install_control(v, &ctl);
}

