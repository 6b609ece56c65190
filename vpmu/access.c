/* SPDX-License-Identifier: MIT */
/*
 * The register-access path: every trapped WRMSR/RDMSR (or mtspr/mfspr), every
 * PMU call and every host-initiated access for save/restore lands here.
 *
 * A write is a transaction (model.h), applied in three steps (docs/principles.md
 * §2):
 *   1. the model's write op says whether the hardware accepts the value (#GP in
 *      both modes if not), stages the register values that result and flags the
 *      perfctr per-register rules the value breaks;
 *   2. the perfctr control is derived from the register file as it would then be
 *      and checked: per-register rules always, cross-register rules when at least
 *      one counter is left enabled;
 *   3. strict mode refuses a violation with #GP and puts every register back; the
 *      default mode records it and counts exactly as the hardware would.
 * Host-initiated accesses skip the guest semantics and the rules.  This is a hot
 * path (docs/performance.md): the control is zeroed, compared and copied only as
 * far as the model's counters reach, and the content id is hashed only when a
 * cache decision needs it (vpmu_vcpu_id()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "host_state.h"

uint64_t vpmu_txn_ctr(const struct vpmu_txn *t, unsigned pmc)
{
	if (pmc >= VPMU_MAX_CTRS)
		return 0;
	if (t->ctr_mask & (1ull << pmc))
		return t->ctr_val[pmc];
	return vpmu_counter_value(t->vcpu, pmc);
}

static void record_violations(struct vpmu_vcpu *v, uint32_t viol)
{
	while (viol) {
		unsigned bit = (unsigned)__builtin_ctz(viol);
		v->totals.violations[bit]++;
		viol &= viol - 1;
	}
}

static inline void txn_init(struct vpmu_txn *t, struct vpmu_vcpu *v, bool host)
{
	t->regs = t->rf = v->rf;
	t->vcpu = v;
	t->host = host;
	t->n = 0;
	/* host, n, retarget, retarget_aux, keep_control, regate, membership and
	 * overflowed are adjacent bytes: one store. */
	t->retarget = VPMU_TXN_NO_RETARGET;
	t->retarget_aux = false;
	t->keep_control = false;
	t->regate = 0;
	t->membership = 0;
	t->overflowed = false;
	t->violations = 0;
	t->ctr_mask = 0;
}

/* Put back every register the transaction changed, last change first. */
static void txn_undo(struct vpmu_txn *t)
{
	while (t->n) {
		t->n--;
		if (t->undo[t->n].kind == VPMU_REG_CTRL)
			t->rf->ctrl[t->undo[t->n].index] = t->undo[t->n].old;
		else
			t->rf->misc[t->undo[t->n].index] = t->undo[t->n].old;
	}
}

/* Tell an HT sibling that the file it derives its control from changed. */
static void notify_sibling(struct vpmu_vcpu *v)
{
	struct vpmu_vcpu *s = v->core->thread[v->ctx.thread ^ 1];
	if (s)
		vpmu_mark_stale(s);
}

static void load_counters(struct vpmu_vcpu *v, const struct vpmu_txn *t)
{
	for (uint64_t mask = t->ctr_mask; mask; mask &= mask - 1) {
		unsigned pmc = (unsigned)__builtin_ctzll(mask);
		if (pmc >= v->pmu->nr_ctrs)
			continue;
		uint64_t val = t->ctr_val[pmc] & v->counter[pmc].width_mask;
		vpmu_counter_set(v, pmc, val);
		/* A restore of an interrupting counter is where it starts from: the
		 * i-mode start (perfctr's ireset) is not a register, and restoring the
		 * counters and controls in any order must give the same control. */
		int i = v->counter[pmc].entry;
		if (t->host && i >= (int)v->ctl.nractrs && v->ctl.ctr[i].ireset != val) {
			v->ctl.ctr[i].ireset = val;
			v->id_valid = false;
		}
	}
}

#ifdef VPMU_CONTRACT_CHECKS
/* The test and fuzz builds check every retarget against a full derive. */
static void check_retarget(struct vpmu_vcpu *v, const struct vpmu_ctl *patched)
{
	struct vpmu_ctl full;
	derive_control(v, NULL, &full, NULL);
	for (unsigned i = full.nractrs; i < vpmu_ctl_n(&full); i++)
		full.ctr[i].ireset = patched->ctr[i].ireset;   /* the core's, not the model's */
	if (!ctl_equal(v->model, &full, patched)) {
		fprintf(stderr, "libvpmu: model %s: a retargeting or control-keeping write's "
			"control differs from the derived one\n", v->model->name);
		abort();
	}
}
#endif

/* A write that only changes counter t->retarget's image (vpmu_txn_retarget):
 * the current control with that entry patched, checked, installed in place. */
static __attribute__((noinline)) void retarget_slow(struct vpmu_vcpu *v, unsigned i,
						     uint64_t sel, bool aux)
{
	struct vpmu_ctl ctl;
	unsigned n = vpmu_ctl_n(&v->ctl);
	ctl.nractrs = v->ctl.nractrs;
	ctl.nrictrs = v->ctl.nrictrs;
	memcpy(ctl.global, v->ctl.global, sizeof(ctl.global));
	memcpy(ctl.ctr, v->ctl.ctr, n * sizeof(ctl.ctr[0]));
	if (aux)
		ctl.ctr[i].aux = sel;
	else
		ctl.ctr[i].evntsel = sel;
	vpmu_state_install(v, &ctl);
}

static inline uint64_t *retarget_field(struct vpmu_ctl_ctr *e, bool aux)
{
	return aux ? &e->aux : &e->evntsel;
}

/* Steps 2 and 3 over the control patched in place (v->ctl, after a retarget or
 * a regate, or as a write keeps it): checked as a derived one would be, the
 * broken rules recorded; true when strict mode refuses (the caller puts its
 * patch and the registers back). */
static inline __attribute__((always_inline)) bool judge_in_place(struct vpmu_vcpu *v,
								  uint32_t viol, bool strict,
								  bool host)
{
#ifdef VPMU_CONTRACT_CHECKS
	check_retarget(v, &v->ctl);
#endif
	if (!host && vpmu_ctl_n(&v->ctl) && v->mops->check_control)
		viol |= v->mops->check_control(v->model, &v->ctx, v->rf, &v->ctl);
	record_violations(v, viol);
	return viol && strict;
}

static inline __attribute__((always_inline)) enum vpmu_fault retarget_commit(struct vpmu_vcpu *v,
									       struct vpmu_txn *t,
									       uint32_t viol, bool strict,
									       bool host, bool aux)
{
	int i = v->counter[t->retarget % VPMU_MAX_CTRS].entry;
	uint64_t sel = t->retarget_sel;
	/* judge_in_place() spelled out for the hottest write (docs/performance.md:
	 * its shared form costs the P6 write 6 instructions): the entry patched
	 * while the rules look at it, a control known to hold a counter. */
	if (i >= 0) {
		uint64_t *f = retarget_field(&v->ctl.ctr[i], aux), old = *f;
		*f = sel;
#ifdef VPMU_CONTRACT_CHECKS
		check_retarget(v, &v->ctl);
#endif
		if (!host && v->mops->check_control)
			viol |= v->mops->check_control(v->model, &v->ctx, v->rf, &v->ctl);
		*f = old;
		record_violations(v, viol);
	} else if (judge_in_place(v, viol, strict, host)) {
		viol = 1;   /* refused below */
	}
	if (viol && strict) {
		txn_undo(t);
		return VPMU_FAULT_STRICT;
	}
	if (i >= 0 && sel != *retarget_field(&v->ctl.ctr[i], aux)) {
		if (v->cpu >= 0 && (unsigned)i < v->ctl.nractrs) {
			if (aux)
				vpmu_state_retarget(v, &v->ctl.ctr[i], sel, true);
			else
				vpmu_state_retarget(v, &v->ctl.ctr[i], sel, false);
		} else {
			retarget_slow(v, (unsigned)i, sel, aux);
		}
	}
	if (v->core)
		notify_sibling(v);
	return VPMU_FAULT_NONE;
}

/* The aux form (vpmu_txn_retarget_aux, the P4's ESCR) out of line: the P6 and
 * K7 event-select writes pay one test for it. */
static __attribute__((noinline)) enum vpmu_fault retarget_commit_aux(struct vpmu_vcpu *v,
								      struct vpmu_txn *t,
								      uint32_t viol, bool strict,
								      bool host)
{
	return retarget_commit(v, t, viol, strict, host, true);
}

static inline __attribute__((always_inline)) enum vpmu_fault txn_retarget(struct vpmu_vcpu *v,
									    struct vpmu_txn *t,
									    uint32_t viol, bool strict,
									    bool host)
{
	if (__builtin_expect(t->retarget_aux, 0))
		return retarget_commit_aux(v, t, viol, strict, host);
	return retarget_commit(v, t, viol, strict, host, false);
}

/* A write the model says leaves the control as it is (vpmu_txn_keep_control):
 * the rules over the current control, and nothing to install. */
static __attribute__((noinline)) enum vpmu_fault txn_keep(struct vpmu_vcpu *v, struct vpmu_txn *t,
							   uint32_t viol, bool strict, bool host)
{
	if (judge_in_place(v, viol, strict, host)) {
		txn_undo(t);
		return VPMU_FAULT_STRICT;
	}
	if (v->core)
		notify_sibling(v);
	return VPMU_FAULT_NONE;
}

/* A write that changes only global k of the control (vpmu_txn_regate): the
 * gate's image written in place, or, switched out, the control patched. */
static enum vpmu_fault txn_regate(struct vpmu_vcpu *v, struct vpmu_txn *t, uint32_t viol,
				  bool strict, bool host)
{
	unsigned k = (t->regate - 1u) % 4u;
	uint64_t old = v->ctl.global[k];
	v->ctl.global[k] = t->regate_val;
	if (judge_in_place(v, viol, strict, host)) {
		v->ctl.global[k] = old;
		txn_undo(t);
		return VPMU_FAULT_STRICT;
	}
	if (old != t->regate_val) {
		v->id_valid = false;
		if (v->cpu >= 0) {
			unsigned slot = v->model->global_slot[k];
			if (v->cache->ctrl[slot] != t->regate_val)
				vpmu_host_write_ctrl(v, slot, t->regate_val);
			v->cache->id = ~0ull;   /* what write_control records for an unhashed control */
		}
	}
	if (v->core)
		notify_sibling(v);
	return VPMU_FAULT_NONE;
}

/* Steps 2 and 3 in full: the control derived and checked (strict mode refuses
 * it and puts the registers back), the counters loaded, and the control
 * installed; with filter, the VM's event filter applied to it first.  Inline:
 * the write without a filter pays nothing for the filter's case. */
static inline __attribute__((always_inline)) enum vpmu_fault txn_install(struct vpmu_vcpu *v,
									   struct vpmu_txn *t,
									   uint32_t viol, bool strict,
									   bool host, bool filter)
{
	struct vpmu_ctl ctl;
	derive_control(v, t, &ctl, host ? NULL : &viol);
	if (!host && vpmu_ctl_n(&ctl) && v->mops->check_control)
		viol |= v->mops->check_control(v->model, &v->ctx, v->rf, &ctl);
	record_violations(v, viol);
	if (viol && strict) {
		txn_undo(t);
		return VPMU_FAULT_STRICT;
	}
	if (t->ctr_mask)
		load_counters(v, t);
	if (filter)
		vpmu_filter_apply(v, &ctl);
	install_control(v, &ctl);
	if (v->core)
		notify_sibling(v);
	if (!host && (v->model->caps & VPMU_CAP_OVF_ON_MSB) && ctl.nrictrs)
		vpmu_msb_level_check(v);
	return VPMU_FAULT_NONE;
}

/* txn_install without a filter, out of line: the fallback of the fast
 * paths below, which then keep its frame (a whole control) off theirs. */
static __attribute__((noinline)) enum vpmu_fault txn_install_out_of_line(struct vpmu_vcpu *v,
									  struct vpmu_txn *t,
									  uint32_t viol,
									  bool strict, bool host)
{
	return txn_install(v, t, viol, strict, host, false);
}

/* A transaction that adds or drops one counter of the control
 * (vpmu_txn_add_counter, vpmu_txn_drop_counter): that entry alone, checked
 * and installed in place.  True when the move cannot be judged or done in
 * place and takes the full derive: a model with cross-register rules
 * (check_control, which judges a whole control), no overflow interrupt (an
 * i-mode counter would count as a-mode), a counter loaded other than the one
 * that joins, or a hint the control contradicts. */
static inline bool membership_needs_derive(const struct vpmu_vcpu *v, const struct vpmu_txn *t,
					   unsigned pmc, bool add)
{
	return v->mops->check_control || !(v->model->caps & VPMU_CAP_PCINT) ||
	       (t->ctr_mask & ~(add ? 1ull << pmc : 0)) || (v->counter[pmc].entry >= 0) == add;
}

/* Step 3 of both moves: the broken rules recorded, and in strict mode the
 * transaction refused (its registers put back). */
static inline bool membership_refused(struct vpmu_vcpu *v, struct vpmu_txn *t, uint32_t viol,
				      bool strict)
{
	if (!viol)
		return false;
	record_violations(v, viol);
	if (!strict)
		return false;
	txn_undo(t);
	return true;
}

/* The rest of both moves: an HT sibling told, PowerPC's level rechecked. */
static inline void membership_done(struct vpmu_vcpu *v, bool host, bool add)
{
#ifdef VPMU_CONTRACT_CHECKS
	check_retarget(v, &v->ctl);
#endif
	if (v->core)
		notify_sibling(v);
	if (!host && (v->model->caps & VPMU_CAP_OVF_ON_MSB) && add)
		vpmu_msb_level_check(v);
}

/* One move, add or drop; each has its own out-of-line copy below (a constant
 * add), so that neither carries the other's registers. */
static inline __attribute__((always_inline)) enum vpmu_fault txn_move(struct vpmu_vcpu *v,
								     struct vpmu_txn *t,
								     uint32_t viol, bool strict,
								     bool host, bool add)
{
	unsigned pmc = t->member_pmc % VPMU_MAX_CTRS;
	if (membership_needs_derive(v, t, pmc, add))
		return txn_install_out_of_line(v, t, viol, strict, host);
	uint64_t start = 0;
	if (add) {
		start = t->ctr_mask ? t->ctr_val[pmc] & v->counter[pmc].width_mask
				    : vpmu_base(v, pmc);
		/* perfctr compares ireset as a signed 32-bit int (check_ireset). */
		if (!host && v->vm->ireset_rule >= 0 &&
		    ((int32_t)(uint32_t)start >= 0) != !!(v->model->caps & VPMU_CAP_OVF_ON_MSB))
			viol |= 1u << v->vm->ireset_rule;
	}
	if (membership_refused(v, t, viol, strict))
		return VPMU_FAULT_STRICT;
	if (add)
		vpmu_state_add_imode(v, pmc, t->retarget_sel, start);
	else
		vpmu_state_drop(v, pmc);
	membership_done(v, host, add);
	return VPMU_FAULT_NONE;
}

static __attribute__((noinline)) enum vpmu_fault txn_add_counter(struct vpmu_vcpu *v,
								  struct vpmu_txn *t, uint32_t viol,
								  bool strict, bool host)
{
	return txn_move(v, t, viol, strict, host, true);
}

static __attribute__((noinline)) enum vpmu_fault txn_drop_counter(struct vpmu_vcpu *v,
								   struct vpmu_txn *t, uint32_t viol,
								   bool strict, bool host)
{
	return txn_move(v, t, viol, strict, host, false);
}

static inline enum vpmu_fault txn_membership(struct vpmu_vcpu *v, struct vpmu_txn *t,
					     uint32_t viol, bool strict, bool host)
{
	if (t->membership == VPMU_TXN_ADD_COUNTER)
		return txn_add_counter(v, t, viol, strict, host);
	return txn_drop_counter(v, t, viol, strict, host);
}

/* Steps 2 and 3 with an event filter: always the full derive, as the fast
 * paths (retarget, keep, regate, an unchanged file) patch or re-check the
 * installed control, which the filter changed (vpmu_filter_apply). */
static __attribute__((noinline)) enum vpmu_fault txn_commit_filtered(struct vpmu_vcpu *v,
								     struct vpmu_txn *t,
								     bool host)
{
	if (!t->n && t->regate)
		return VPMU_FAULT_NONE;
	return txn_install(v, t, host ? 0 : t->violations, v->strict && !host, host, true);
}

/* Steps 2 and 3 of a transaction whose step 1 (the model's op) accepted it.
 * may_filter: the vCPU may have an event filter (false only on the write fast
 * path, which a vCPU with one never takes). */
static inline __attribute__((always_inline)) enum vpmu_fault txn_commit(struct vpmu_vcpu *v,
									  struct vpmu_txn *t,
									  bool host, bool may_filter)
{
	if (may_filter && __builtin_expect(v->filter != NULL, 0))
		return txn_commit_filtered(v, t, host);
	const struct vpmu_model *m = v->model;
	bool strict = v->strict && !host;
	uint32_t viol = host ? 0 : t->violations;
	if (!t->n) {
		/* A gate written with the value it holds changes nothing (KVM's
		 * GLOBAL_CTRL write: `if (pmu->global_ctrl == data)`; model.h
		 * vpmu_txn_regate). */
		if (t->regate)
			return VPMU_FAULT_NONE;
		/* The register file, hence the control, is unchanged (Linux's
		 * read-modify-write of EVNTSEL0 often is): only the rules are re-checked. */
		if (!t->ctr_mask && !host && vpmu_ctl_n(&v->ctl) && v->mops->check_control)
			viol |= v->mops->check_control(m, &v->ctx, v->rf, &v->ctl);
		record_violations(v, viol);
		if (viol && strict)
			return VPMU_FAULT_STRICT;
		if (t->ctr_mask) {
			load_counters(v, t);
			/* A negative value loaded into a counter whose exception is
			 * enabled raises it (PowerPC: a level). */
			if (!host && (m->caps & VPMU_CAP_OVF_ON_MSB) && v->ctl.nrictrs)
				vpmu_msb_level_check(v);
		}
		return VPMU_FAULT_NONE;
	}
	if (t->retarget != VPMU_TXN_NO_RETARGET && t->n == 1 && !t->ctr_mask)
		return txn_retarget(v, t, viol, strict, host);
	if (t->keep_control && !t->ctr_mask)
		return txn_keep(v, t, viol, strict, host);
	if (t->regate && t->n == 1 && !t->ctr_mask)
		return txn_regate(v, t, viol, strict, host);
	if (t->membership)
		return txn_membership(v, t, viol, strict, host);
	return txn_install(v, t, viol, strict, host, false);
}

/* A transaction the op faulted, or one it staged more than the contract
 * allows (a model bug: model.h vpmu_txn_stage): nothing changes. */
static __attribute__((noinline, cold)) enum vpmu_fault txn_refuse(struct vpmu_vcpu *v,
								   struct vpmu_txn *t,
								   enum vpmu_fault f)
{
	txn_undo(t);
	if (f != VPMU_FAULT_NONE)
		return f;
#ifdef VPMU_CONTRACT_CHECKS
	fprintf(stderr, "libvpmu: model %s: a transaction changed more than %d registers, or "
		"one past the register file\n", v->model->name, VPMU_TXN_MAX);
	abort();
#else
	(void)v;
	return VPMU_FAULT_RESERVED;
#endif
}

static inline void count_fault(struct vpmu_vcpu *v, enum vpmu_fault f)
{
	if (f == VPMU_FAULT_STRICT)
		v->totals.strict_refusals++;
	else if (f != VPMU_FAULT_NONE)
		v->totals.faults++;
}

static inline __attribute__((always_inline)) enum vpmu_fault write_reg(struct vpmu_vcpu *v,
									 const struct vpmu_reg *r,
									 uint64_t val, bool host,
									 bool may_filter)
{
	struct vpmu_txn t;
	txn_init(&t, v, host);
	enum vpmu_fault f = v->mops->write(v->model, &v->ctx, &t, r, val);
	if (__builtin_expect(f != VPMU_FAULT_NONE || t.overflowed, 0))
		return txn_refuse(v, &t, f);
	return txn_commit(v, &t, host, may_filter);
}

/* A read of a counter the HT sibling also counts sees the sibling's count
 * as of its last fold; it folds again at its next entry. */
static void ht_ask_fold(struct vpmu_vcpu *v, unsigned pmc)
{
	struct vpmu_vcpu *s = v->core->thread[v->ctx.thread ^ 1];
	if (s && s->counter[pmc].entry >= 0)
		v->core->fold_req[v->ctx.thread ^ 1] = true;
}

static enum vpmu_fault read_reg(struct vpmu_vcpu *v, const struct vpmu_reg *r, uint64_t *val,
				bool host)
{
	uint64_t raw;
	if (r->kind == VPMU_REG_CTR) {
		raw = vpmu_counter_value(v, r->index);
		if (v->core)
			ht_ask_fold(v, r->index);
	}
	else if (r->kind == VPMU_REG_CTRL)
		raw = v->rf->ctrl[r->index];
	else
		raw = v->rf->misc[r->index];
	if (!host && (r->flags & VPMU_REGF_READ_HOOK))
		return v->mops->read(v->model, &v->ctx, v->rf, r, raw, val);
	*val = raw;
	return VPMU_FAULT_NONE;
}

/* The vCPU needs attention before an access: an HT core's lock, or a control to
 * derive again.  Out of line: neither happens on the P6/K7 hot paths. */
static __attribute__((noinline, cold)) void access_begin(struct vpmu_vcpu *v, bool refresh)
{
	if (v->core) {
		pthread_mutex_lock(&v->core->lock);
		vpmu_ht_sync(v, false);
	}
	if (refresh && (vpmu_attn(v) & VPMU_ATTN_STALE))
		vpmu_control_refresh(v);
}

static inline void access_end(struct vpmu_vcpu *v)
{
	if (v->core)
		pthread_mutex_unlock(&v->core->lock);
}

#define ACCESS_BEGIN(v) do { if (__builtin_expect(vpmu_attn(v) != 0, 0)) access_begin(v, true); } while (0)
/* A host-initiated get (a save) reads the registers and counts as they are and
 * leaves a stale control for the next entry or guest access: deriving it here
 * could write host registers (PowerPC's FCECE freeze), and a save changes
 * nothing. */
#define GET_BEGIN(v) do { if (__builtin_expect(vpmu_attn(v) != 0, 0)) access_begin(v, false); } while (0)
#define ACCESS_END(v) access_end(v)

/* The write path out of line, for the callers that are not hot. */
static __attribute__((noinline)) enum vpmu_fault write_reg_call(struct vpmu_vcpu *v,
								 const struct vpmu_reg *r,
								 uint64_t val, bool host)
{
	return write_reg(v, r, val, host, true);
}

static __attribute__((noinline)) enum vpmu_fault txn_commit_call(struct vpmu_vcpu *v,
								  struct vpmu_txn *t)
{
	return txn_commit(v, t, false, true);
}

/* Every write but one to a plain register of an unshared, up-to-date vCPU. */
static __attribute__((noinline)) enum vpmu_fault reg_write_slow(struct vpmu_vcpu *v,
								 enum vpmu_regspace space,
								 uint32_t addr, uint64_t val)
{
	const struct vpmu_reg *r = vpmu_vcpu_guest_reg(v, space, addr);
	if (!r)
		return VPMU_FAULT_NO_REG;
	ACCESS_BEGIN(v);
	enum vpmu_fault f = write_reg_call(v, r, val, false);
	ACCESS_END(v);
	return f;
}

int vpmu_reg_write(struct vpmu_vcpu *v, enum vpmu_regspace space, uint32_t addr,
		   uint64_t val, enum vpmu_fault *fault)
{
	if (!v || !fault)
		return -EINVAL;
	v->totals.writes++;
	/* The read path's index (vpmu_reg_read): a miss is an unknown register, a
	 * hooked one, or a vCPU that needs attention first. */
	unsigned e = space == v->regspace ? vpmu_reg_slot(v->rix_read, addr) : 0;
	enum vpmu_fault f;
	/* No vCPU with an event filter comes here (its rix_read is empty: the
	 * filter costs this path nothing), so the commit need not test for one. */
	if (__builtin_expect(e != 0, 1))
		f = write_reg(v, &v->mregs[e - 1], val, false, false);
	else
		f = reg_write_slow(v, space, addr, val);
	count_fault(v, f);
	*fault = f;
	return 0;
}

/* Every read but a plain one on an unshared, up-to-date vCPU. */
static __attribute__((noinline)) int reg_read_slow(struct vpmu_vcpu *v, enum vpmu_regspace space,
						    uint32_t addr, uint64_t *val,
						    enum vpmu_fault *fault)
{
	const struct vpmu_reg *r = vpmu_vcpu_guest_reg(v, space, addr);
	enum vpmu_fault f = VPMU_FAULT_NO_REG;
	if (r) {
		ACCESS_BEGIN(v);
		f = read_reg(v, r, val, false);
		ACCESS_END(v);
	}
	if (f != VPMU_FAULT_NONE) {
		*val = 0;
		v->totals.faults++;
	}
	*fault = f;
	return 0;
}

int vpmu_reg_read(struct vpmu_vcpu *v, enum vpmu_regspace space, uint32_t addr,
		  uint64_t *val, enum vpmu_fault *fault)
{
	if (__builtin_expect(!v | !fault | !val, 0))
		return -EINVAL;
	v->totals.reads++;
	/* rix_read holds only registers without a read hook, and nothing while
	 * the vCPU needs attention: a hit is a plain read. */
	unsigned e = space == v->regspace ? vpmu_reg_slot(v->rix_read, addr) : 0;
	if (__builtin_expect(!e, 0))
		return reg_read_slow(v, space, addr, val, fault);
	const struct vpmu_reg *r = &v->mregs[e - 1];
	*fault = VPMU_FAULT_NONE;
	if (r->kind == VPMU_REG_CTR)
		*val = vpmu_counter_value(v, r->index);
	else
		*val = r->kind == VPMU_REG_CTRL ? v->rf->ctrl[r->index] : v->rf->misc[r->index];
	return 0;
}

/*
 * RDPMC (Intel SDM vol. 2, RDPMC; AMD APM vol. 3, RDPMC): ECX selects a
 * counter, and the instruction returns it in EDX:EAX, or #GP for an index the
 * CPU does not have and on a CPU without the instruction.  Which counter an
 * ECX names is the model's (its rdpmc op: architectural perfmon's fixed
 * counters at ECX bit 30); the default is the counter's number, at its width,
 * and the descriptor's rdpmc_fast bit (the P4's ECX bit 31) asks for the low
 * 32 bits.  The value is the one RDMSR of that counter's register returns.
 * CR4.PCE at CPL > 0 is checked before the VMM is asked (KVM, patches/kvm-rdpmc).
 */
static enum vpmu_fault rdpmc_decode(const struct vpmu_vcpu *v, uint32_t ecx, unsigned *pmc,
				    unsigned *width)
{
	const struct vpmu_model *m = v->model;
	if (m->ops->rdpmc)
		return m->ops->rdpmc(m, v->pmu, ecx, pmc, width);
	uint32_t fast = ecx & m->rdpmc_fast;
	ecx &= ~fast;
	/* Only counters with a register (the C3 has no PERFCTR0: RDPMC 0 faults). */
	if (m->regspace != VPMU_SPACE_MSR || (m->caps & VPMU_CAP_NO_RDPMC) ||
	    ecx >= VPMU_MAX_CTRS || !((v->vm->ctr_regs >> ecx) & 1))
		return VPMU_FAULT_NO_REG;
	*pmc = ecx;
	*width = fast ? 32 : v->pmu->width[ecx];
	return VPMU_FAULT_NONE;
}

static enum vpmu_fault rdpmc_read(struct vpmu_vcpu *v, uint32_t index, uint64_t *val)
{
	unsigned pmc = 0, width = 0;
	enum vpmu_fault f = rdpmc_decode(v, index, &pmc, &width);
	*val = 0;
	if (f != VPMU_FAULT_NONE || pmc >= v->pmu->nr_ctrs)
		return f != VPMU_FAULT_NONE ? f : VPMU_FAULT_NO_REG;
	ACCESS_BEGIN(v);
	*val = vpmu_counter_value(v, pmc) & vpmu_width_mask(width);
	if (v->core)
		ht_ask_fold(v, pmc);
	ACCESS_END(v);
	return VPMU_FAULT_NONE;
}

int vpmu_rdpmc(struct vpmu_vcpu *v, uint32_t index, uint64_t *val, enum vpmu_fault *fault)
{
	if (!v || !val || !fault)
		return -EINVAL;
	v->totals.reads++;
	*fault = rdpmc_read(v, index, val);
	v->totals.faults += *fault != VPMU_FAULT_NONE;
	return 0;
}

int vpmu_rdpmc_get(struct vpmu_vcpu *v, uint32_t index, uint64_t *val)
{
	if (!v || !val)
		return -EINVAL;
	return rdpmc_read(v, index, val) == VPMU_FAULT_NONE ? 0 : -ENOENT;
}

int vpmu_reg_get_at(struct vpmu_vcpu *v, const struct vpmu_reg *r, uint64_t *val)
{
	uint64_t raw, seen;
	GET_BEGIN(v);
	read_reg(v, r, &raw, true);
	/* A register the presented CPU lacks (the read hook says so) is not saved:
	 * what a restore could not load either. */
	bool absent = (r->flags & VPMU_REGF_READ_HOOK) &&
		      v->mops->read(v->model, &v->ctx, v->rf, r, raw, &seen) == VPMU_FAULT_NO_REG;
	ACCESS_END(v);
	if (absent)
		return -ENOENT;
	*val = raw;
	return 0;
}

int vpmu_reg_get(struct vpmu_vcpu *v, enum vpmu_regspace space, uint32_t addr, uint64_t *val)
{
	if (!v || !val)
		return -EINVAL;
	const struct vpmu_reg *r = vpmu_vcpu_reg(v, space, addr);
	if (!r)
		return -ENOENT;
	return vpmu_reg_get_at(v, r, val);
}

int vpmu_reg_set_at(struct vpmu_vcpu *v, const struct vpmu_reg *r, uint64_t val)
{
	ACCESS_BEGIN(v);
	enum vpmu_fault f = write_reg_call(v, r, val, true);
	ACCESS_END(v);
	/* A register the presented CPU lacks: -ENOENT, as vpmu_reg_get says; a
	 * value the hardware cannot hold (reserved bits) is bad saved state. */
	if (f == VPMU_FAULT_NO_REG)
		return -ENOENT;
	return f == VPMU_FAULT_NONE ? 0 : -EINVAL;
}

int vpmu_reg_set(struct vpmu_vcpu *v, enum vpmu_regspace space, uint32_t addr, uint64_t val)
{
	if (!v)
		return -EINVAL;
	const struct vpmu_reg *r = vpmu_vcpu_reg(v, space, addr);
	if (!r)
		return -ENOENT;
	return vpmu_reg_set_at(v, r, val);
}

int vpmu_call(struct vpmu_vcpu *v, unsigned long fid, const uint64_t args[VPMU_CALL_ARGS],
	      struct vpmu_call_result *out)
{
	if (!v || !args || !out)
		return -EINVAL;
	v->totals.calls++;
	out->value = 0;
	if (!v->mops->call) {
		out->error = VPMU_SBI_ERR_NOT_SUPPORTED;
		return 0;
	}
	ACCESS_BEGIN(v);
	struct vpmu_txn t;
	struct vpmu_txn_mem mem;
	txn_init(&t, v, false);
	mem.len = 0;
	t.mem = &mem;
	t.commit_on_error = false;
	uint64_t value = 0;
	long e = v->mops->call(v->model, &v->ctx, &t, fid, args, &value);
	if (t.overflowed) {
		txn_refuse(v, &t, VPMU_FAULT_NONE);
		e = VPMU_SBI_ERR_FAILED;
	} else if (e != VPMU_SBI_SUCCESS && !t.commit_on_error) {
		txn_undo(&t);
	} else if (!t.n && !t.ctr_mask && !t.violations && !mem.len && !v->mops->check_control) {
		/* A call that reads (num_counters, get_info, fw_read): nothing to
		 * commit, and no rule over the control to check again. */
	} else {
		/* A start or stop that moves one counter (model.h
		 * vpmu_txn_add_counter), a configure that keeps the control: straight
		 * to their commits, as txn_commit would after its tests. */
		enum vpmu_fault f;
		if (t.membership && !v->filter)
			f = txn_membership(v, &t, t.violations, v->strict, false);
		else if (t.keep_control && !t.ctr_mask && !v->filter)
			f = txn_keep(v, &t, t.violations, v->strict, false);
		else
			f = txn_commit_call(v, &t);
		if (f == VPMU_FAULT_STRICT) {
			/* Strict mode refuses what breaks a rule; the SBI's word for a
			 * refused request is DENIED. */
			v->totals.strict_refusals++;
			e = VPMU_SBI_ERR_DENIED;
		} else if (mem.len &&
			   v->vm->guest_mem.write(v->vm->guest_mem.opaque, mem.gpa, mem.buf, mem.len)) {
			/* The accessor refused memory it accepted when the area was
			 * set (the VMM unmapped it): what the call changed stays, as
			 * KVM RISC-V's kvm_vcpu_write_guest failing after a stop. */
			e = VPMU_SBI_ERR_FAILED;
		}
	}
	ACCESS_END(v);
	out->error = e;
	out->value = e == VPMU_SBI_SUCCESS ? value : 0;
	return 0;
}

int vpmu_vcpu_fw_event(struct vpmu_vcpu *v, unsigned code, uint64_t n)
{
	if (!v)
		return -EINVAL;
	if (!v->mops->firmware_counters)
		return -ENOTSUP;
	ACCESS_BEGIN(v);
	uint64_t mask = v->mops->firmware_counters(v->model, &v->ctx, v->rf, code);
	int r = 0;
	if (mask == ~0ull) {
		r = -EINVAL;
	} else if (mask && n) {
		/* Firmware counters count no host event: the count is loaded, as
		 * KVM RISC-V's kvm_riscv_vcpu_pmu_incr_fw adds to fw_event[].value. */
		struct vpmu_txn t;
		txn_init(&t, v, true);
		for (uint64_t m = mask; m; m &= m - 1) {
			unsigned pmc = (unsigned)__builtin_ctzll(m);
			vpmu_txn_set_ctr(&t, pmc, vpmu_txn_ctr(&t, pmc) + n);
			v->totals.pmc[pmc] += n;
		}
		load_counters(v, &t);
	}
	ACCESS_END(v);
	return r;
}
