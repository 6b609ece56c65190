/* SPDX-License-Identifier: MIT */
/*
 * Save and restore of a vCPU's and a VM's virtual PMU state (include/vpmu/save.h;
 * the wire format is save_format.c's).
 *
 * The registers go through the host-initiated accessors (vpmu_reg_get and
 * vpmu_reg_set: KVM's host_initiated MSR accesses, Linux
 * arch/x86/kvm/pmu.c kvm_pmu_set_msr), which restore in any order to the same
 * state.  What no register holds is carried beside them: the value of every
 * counter (the C3's counter 0 has no register), perfctr's i-mode start of the
 * interrupting counters (its ireset, which the perfctr ABI export and the P4's
 * rules read: a register restore would make it the restored value), the
 * pending PMI and the counters that raised it, and the accounting, which a
 * restore replaces so that the destination's counts continue the source's.
 *
 * A restore reads and checks the whole blob first, then takes the
 * destination's own state, the same way, and applies the blob; should the
 * destination refuse a value a forged but well-checksummed blob carries, it
 * applies its own state again, which it accepts (a value vpmu_reg_get gives,
 * vpmu_reg_set takes: fuzz/fuzz_host_access.c checks it).
 */
#include <errno.h>
#include <string.h>
#include <xxhash.h>

#include "control.h"
#include "filter.h"
#include "host_state.h"
#include "save_format.h"

static void core_lock(struct vpmu_vcpu *v)
{
	if (v->core)
		pthread_mutex_lock(&v->core->lock);
}
static void core_unlock(struct vpmu_vcpu *v)
{
	if (v->core)
		pthread_mutex_unlock(&v->core->lock);
}

/* Switched in, or an HT sibling is: its counters move under a save or restore. */
static bool vcpu_busy(const struct vpmu_vcpu *v)
{
	if (v->cpu >= 0)
		return true;
	if (!v->core)
		return false;
	const struct vpmu_vcpu *s = v->core->thread[v->ctx.thread ^ 1];
	return s && s->cpu >= 0;
}

/* The vCPU's state, as vpmu_reg_get and the counters show it. */
static void capture(struct vpmu_vcpu *v, struct state_vcpu *s)
{
	const struct vpmu_pmu *p = v->pmu;
	s->nr_regs = 0;
	for (unsigned i = 0; i < p->nr_regs; i++) {
		const struct vpmu_reg *r = &p->regs[i];
		uint64_t val;
		/* -ENOENT: a register the presented CPU lacks, which the
		 * destination lacks as well. */
		if (vpmu_reg_get_at(v, r, &val))
			continue;
		s->reg[s->nr_regs++] = (struct state_reg){ r->addr, r->space, (uint8_t)i, val };
	}
	core_lock(v);
	for (unsigned pmc = 0; pmc < p->nr_ctrs; pmc++)
		s->ctr[pmc] = vpmu_counter_value(v, pmc);
	s->imode = 0;
	for (unsigned i = v->ctl.nractrs; i < vpmu_ctl_n(&v->ctl); i++) {
		unsigned pmc = v->ctl.ctr[i].pmc;
		s->imode |= 1ull << pmc;
		s->ireset[pmc] = v->ctl.ctr[i].ireset;
	}
	s->pmi_pending = v->pmi_pending;
	s->pmi_ctrs = v->pmi_ctrs;
	vpmu_vcpu_totals(v, &s->totals);
	core_unlock(v);
}

/* Apply a state whose registers are the vCPU's own, those of its capture
 * `own` in the same order (checked by the caller); 0, or -EINVAL where the
 * vCPU refuses a value, with some of the state applied. */
static int apply(struct vpmu_vcpu *v, const struct state_vcpu *s, const struct state_vcpu *own,
		 char *err)
{
	for (unsigned i = 0; i < s->nr_regs; i++) {
		const struct state_reg *r = &s->reg[i];
		if (vpmu_reg_set_at(v, &v->pmu->regs[own->reg[i].index], r->value))
			return state_error(err, -EINVAL, "register %#x: value %#llx refused",
					   r->addr, (unsigned long long)r->value);
	}
	core_lock(v);
	if (vpmu_attn(v) & VPMU_ATTN_STALE)
		vpmu_control_refresh(v);
	uint64_t imode = 0;
	for (unsigned i = v->ctl.nractrs; i < vpmu_ctl_n(&v->ctl); i++)
		imode |= 1ull << v->ctl.ctr[i].pmc;
	if (imode != s->imode) {
		core_unlock(v);
		return state_error(err, -EINVAL, "interrupting counters %#llx, the registers "
				   "make %#llx", (unsigned long long)s->imode,
				   (unsigned long long)imode);
	}
	for (unsigned pmc = 0; pmc < v->pmu->nr_ctrs; pmc++)
		vpmu_counter_set(v, pmc, s->ctr[pmc] & v->counter[pmc].width_mask);
	for (unsigned i = v->ctl.nractrs; i < vpmu_ctl_n(&v->ctl); i++) {
		struct vpmu_ctl_ctr *e = &v->ctl.ctr[i];
		if (e->ireset != s->ireset[e->pmc]) {
			e->ireset = s->ireset[e->pmc];
			v->id_valid = false;
		}
	}
	v->pmi_pending = s->pmi_pending;
	v->pmi_ctrs = s->pmi_ctrs;
	/* Every sum was folded by the counter loads: the totals are these. */
	v->totals = s->totals;
	core_unlock(v);
	return 0;
}

int vpmu_vcpu_save(struct vpmu_vcpu *v, void *buf, size_t size, size_t *len)
{
	if (!v || !len)
		return -EINVAL;
	if (vcpu_busy(v))
		return -EBUSY;
	struct state_header h;
	struct state_vcpu s;
	state_header_of(v->vm, v, &h);
	capture(v, &s);
	size_t need = state_vcpu_size(&h, &s);
	*len = need;
	if (!buf)
		return 0;
	if (size < need)
		return -ENOSPC;
	state_vcpu_write(&h, &s, buf);
	return 0;
}

int vpmu_vcpu_restore(struct vpmu_vcpu *v, const void *buf, size_t len,
		      char err[VPMU_STATE_ERR_LEN])
{
	if (err)
		err[0] = '\0';
	if (!v)
		return state_error(err, -EINVAL, "no vCPU");
	if (vcpu_busy(v))
		return state_error(err, -EBUSY, "vCPU %u%s is switched in", v->ctx.vcpu,
				   v->cpu >= 0 ? "" : "'s hyper-thread sibling");
	struct state_header want;
	struct state_vcpu in, own;
	state_header_of(v->vm, v, &want);
	int rc = state_vcpu_read(buf, len, &want, &in, err);
	if (rc)
		return rc;
	capture(v, &own);
	/* The registers the destination has, in its order: then the restore
	 * leaves none of its own values behind. */
	bool same = in.nr_regs == own.nr_regs;
	for (unsigned i = 0; same && i < in.nr_regs; i++)
		same = in.reg[i].addr == own.reg[i].addr && in.reg[i].space == own.reg[i].space;
	if (!same)
		return state_error(err, -EINVAL, "the registers saved are not the destination's");
	rc = apply(v, &in, &own, err);
	if (rc && apply(v, &own, &own, NULL))
		return state_error(err, -EIO, "vCPU %u: its own state refused back", v->ctx.vcpu);
	return rc;
}

/* The VM's event filter, digested field by field (filter.h): two VMs with
 * the same digest stop the same programmings. */
static uint64_t filter_digest(const struct vpmu_filter *f)
{
	uint8_t b[16];
	const uint32_t head[4] = { f->action, f->fixed, f->nr_inc, f->nr_exc };
	for (unsigned k = 0; k < 4; k++)
		for (unsigned i = 0; i < 4; i++)
			b[4 * k + i] = (uint8_t)(head[k] >> (8 * i));
	/* Each entry chained on the digest so far (the seed): no buffer to size. */
	uint64_t d = XXH3_64bits(b, sizeof(b));
	for (unsigned k = 0; k < f->nr_inc + f->nr_exc; k++) {
		const struct vpmu_filter_entry *e = &f->e[k];
		const uint8_t entry[4] = { (uint8_t)e->event, (uint8_t)(e->event >> 8), e->mask,
					   e->match };
		d = XXH3_64bits_withSeed(entry, sizeof(entry), d);
	}
	return d ? d : 1;   /* 0 is "no filter" */
}

static void vm_state(const struct vpmu_vm *vm, struct state_vm *s)
{
	s->filter = vm->filter != NULL;
	s->filter_digest = vm->filter ? filter_digest(vm->filter) : 0;
}

int vpmu_vm_save(const struct vpmu_vm *vm, void *buf, size_t size, size_t *len)
{
	if (!vm || !len)
		return -EINVAL;
	*len = state_vm_size();
	if (!buf)
		return 0;
	if (size < *len)
		return -ENOSPC;
	struct state_header h;
	struct state_vm s;
	state_header_of(vm, NULL, &h);
	vm_state(vm, &s);
	state_vm_write(&h, &s, buf);
	return 0;
}

int vpmu_vm_restore(const struct vpmu_vm *vm, const void *buf, size_t len,
		    char err[VPMU_STATE_ERR_LEN])
{
	if (err)
		err[0] = '\0';
	if (!vm)
		return state_error(err, -EINVAL, "no VM");
	struct state_header want;
	struct state_vm in, own;
	state_header_of(vm, NULL, &want);
	int rc = state_vm_read(buf, len, &want, &in, err);
	if (rc)
		return rc;
	vm_state(vm, &own);
	if (in.filter != own.filter || in.filter_digest != own.filter_digest)
		return state_error(err, -EPROTO, "event filter: %s on the source, %s here",
				   in.filter ? "one" : "none", !own.filter ? "none" :
				   in.filter ? "another" : "one");
	return 0;
}
