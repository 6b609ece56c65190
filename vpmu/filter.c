/* SPDX-License-Identifier: MIT */
/*
 * The per-VM event filter (include/vpmu/vpmu.h vpmu_vm_set_event_filter), with
 * the semantics of KVM's KVM_SET_PMU_EVENT_FILTER: Linux
 * Documentation/virt/kvm/api.rst, "KVM_SET_PMU_EVENT_FILTER", and
 * arch/x86/kvm/pmu.c (kvm_vm_ioctl_set_pmu_event_filter, convert_to_masked_filter,
 * remove_impossible_events, filter_contains_match, is_gp_event_allowed,
 * is_fixed_event_allowed).  Every entry is kept in KVM's masked form (a plain
 * entry is the masked entry with mask 0xFF and its unit mask as match, as
 * convert_to_masked_filter makes it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "core.h"
#include "events.h"
#include "filter.h"

void vpmu_filter_free(struct vpmu_filter *f)
{
	free(f);
}

/* The PMUs with an x86 event select register of KVM's layout. */
static bool filter_pmu(const struct vpmu_vm *vm)
{
	static const char *const pmus[] = { "p6", "k7", "zen", "intel-arch" };
	const struct vpmu_event_table *t = vm->model->table;
	if (vm->model->regspace != VPMU_SPACE_MSR || !t)
		return false;
	for (unsigned i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++)
		if (!strcmp(t->pmu, pmus[i]))
			return true;
	return false;
}

static int fail(int *bad, int index, int err)
{
	if (bad)
		*bad = index;
	return err;
}

int vpmu_vm_set_event_filter(struct vpmu_vm *vm, const struct vpmu_event_filter *uf, int *bad)
{
	if (bad)
		*bad = -1;
	if (!vm)
		return -EINVAL;
	struct vpmu_filter *f = NULL;
	if (uf) {
		if (uf->action != VPMU_FILTER_ALLOW && uf->action != VPMU_FILTER_DENY)
			return -EINVAL;
		if (uf->flags & ~VPMU_FILTER_MASKED_EVENTS)
			return -EINVAL;
		if ((uf->nevents && !uf->events) || (uf->nnames && !uf->names))
			return -EINVAL;
		if (uf->nevents > VPMU_FILTER_MAX_EVENTS ||
		    uf->nnames > VPMU_FILTER_MAX_EVENTS - uf->nevents)
			return -E2BIG;
		if (!filter_pmu(vm))
			return -EOPNOTSUPP;
		unsigned n = uf->nevents + uf->nnames;
		f = calloc(1, sizeof(*f) + (n ? n : 1) * sizeof(f->e[0]));
		if (!f)
			return -ENOMEM;
		f->action = uf->action;
		f->fixed = uf->fixed_counter_bitmap;
		/* The excludes are gathered at the end, then moved after the includes. */
		struct vpmu_filter_entry exc[VPMU_FILTER_MAX_EVENTS];
		bool masked = uf->flags & VPMU_FILTER_MASKED_EVENTS;
		for (unsigned i = 0; i < uf->nevents; i++) {
			uint64_t x = uf->events[i];
			struct vpmu_filter_entry e = {
				(uint16_t)((x & 0xFF) | ((x >> 24) & 0xF00)), 0xFF, (uint8_t)(x >> 8)
			};
			if (masked) {
				if (x & ~(FILT_EVENT | FILT_MATCH | FILT_EXCLUDE | FILT_MASK)) {
					free(f);
					return fail(bad, (int)i, -EINVAL);
				}
				e.mask = (uint8_t)(x >> 56);
				if (x & FILT_EXCLUDE) {
					exc[f->nr_exc++] = e;
					continue;
				}
			} else if (x & ~FILT_SEL_EVENT_UMASK) {
				continue;   /* matches no event: remove_impossible_events */
			}
			f->e[f->nr_inc++] = e;
		}
		const struct vpmu_event_table *t = vm->pmu.table;
		for (unsigned j = 0; j < uf->nnames; j++) {
			const char *name = uf->names[j];
			const struct vpmu_event_entry *ev = NULL;
			for (unsigned k = 0; name && t && k < t->nr && !ev; k++)
				if (!strcmp(t->ev[k].name, name))
					ev = &t->ev[k];
			if (!ev) {
				free(f);
				return fail(bad, (int)(uf->nevents + j), name ? -ENOENT : -EINVAL);
			}
			f->e[f->nr_inc++] =
				(struct vpmu_filter_entry){ (uint16_t)(ev->event & 0xFFF), 0xFF, ev->umask };
		}
		memcpy(&f->e[f->nr_inc], exc, f->nr_exc * sizeof(exc[0]));
	}
	struct vpmu_filter *old = vm->filter;
	vm->filter = f;
	for (unsigned i = 0; i < VPMU_MAX_VCPUS; i++) {
		struct vpmu_vcpu *v = vm->vcpu[i];
		if (!v)
			continue;
		if (v->core)
			pthread_mutex_lock(&v->core->lock);
		v->filter = f;
		if (!f)
			v->filtered_ctrs = 0;
		/* Also points rix_read past the fast paths while a filter is set
		 * (vpmu_clear_stale). */
		vpmu_control_refresh(v);
		if (v->core)
			pthread_mutex_unlock(&v->core->lock);
	}
	vpmu_filter_free(old);
	return 0;
}
