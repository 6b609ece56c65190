/* SPDX-License-Identifier: MIT */
/*
 * The re-derive of a control the register file changed behind the access path
 * (an overflow's status, an HT sibling's write), out of line: the access and
 * switch paths call it only when the vCPU asks for attention (VPMU_ATTN_STALE);
 * and the event filter's checks of a derived control (vpmu_filter_apply).
 */
#include "control.h"
#include "filter.h"

void vpmu_control_refresh(struct vpmu_vcpu *v)
{
	struct vpmu_ctl ctl;
	vpmu_clear_stale(v);
	derive_control(v, NULL, &ctl, NULL);
	if (v->filter)
		vpmu_filter_apply(v, &ctl);
	install_control(v, &ctl);
}

/* The event filter's checks (vpmu_vm_set_event_filter), here beside the
 * re-derive that applies them. */
static bool contains(const struct vpmu_filter_entry *e, unsigned n, unsigned event,
		     unsigned umask)
{
	for (unsigned i = 0; i < n; i++)
		if (e[i].event == event && (umask & e[i].mask) == e[i].match)
			return true;
	return false;
}

/* is_gp_event_allowed: in the filter when an include entry matches and no
 * exclude entry does. */
static bool gp_allowed(const struct vpmu_filter *f, uint64_t sel)
{
	unsigned event = (unsigned)((sel & 0xFF) | ((sel >> 24) & 0xF00));
	unsigned umask = (unsigned)(sel >> 8) & 0xFF;
	bool in = contains(f->e, f->nr_inc, event, umask) &&
		  !contains(f->e + f->nr_inc, f->nr_exc, event, umask);
	return in == (f->action == VPMU_FILTER_ALLOW);
}

/* is_fixed_event_allowed: the bitmap alone. */
static bool fixed_allowed(const struct vpmu_filter *f, unsigned j)
{
	bool set = j < 32 && (f->fixed >> j) & 1;
	return set == (f->action == VPMU_FILTER_ALLOW);
}

void vpmu_filter_apply(struct vpmu_vcpu *v, struct vpmu_ctl *ctl)
{
	const struct vpmu_filter *f = v->filter;
	const struct vpmu_pmu *p = v->pmu;
	uint64_t stopped = 0;
	for (unsigned i = 0; i < vpmu_ctl_n(ctl); i++) {
		struct vpmu_ctl_ctr *e = &ctl->ctr[i];
		unsigned pmc = e->pmc % VPMU_MAX_CTRS;
		uint64_t clear;
		if (pmc < p->nr_general) {
			if (gp_allowed(f, e->evntsel))
				continue;
			clear = FILT_SEL_USR_OS;
		} else if (pmc >= p->fixed_base && pmc - p->fixed_base < p->nr_fixed) {
			if (fixed_allowed(f, pmc - p->fixed_base))
				continue;
			clear = FILT_FIX_OS_USR;
		} else {
			continue;
		}
		uint64_t bit = 1ull << pmc;
		stopped |= bit;
		if (!(v->filtered_ctrs & bit) || v->counter[pmc].filtered_sel != e->evntsel) {
			v->totals.filtered++;
			v->counter[pmc].filtered_sel = e->evntsel;
		}
		e->evntsel &= ~clear;
	}
	v->filtered_ctrs = stopped;
}
