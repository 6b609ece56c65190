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
#include <string.h>

#include "core.h"

void vpmu_vcpu_set_control(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl)
{
	unsigned n = vpmu_ctl_n(ctl);
	for (unsigned i = 0; i < vpmu_ctl_n(&v->ctl); i++)
		v->vidx[v->ctl.ctr[i].pmc] = -1;
	v->ctl.nractrs = ctl->nractrs;
	v->ctl.nrictrs = ctl->nrictrs;
	for (unsigned k = 0; k < sizeof(ctl->global) / sizeof(ctl->global[0]); k++)
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

uint64_t vpmu_txn_ctr(const struct vpmu_txn *t, unsigned pmc)
{
	if (pmc >= VPMU_MAX_CTRS)
		return 0;
	if (t->ctr_mask & (1u << pmc))
		return t->ctr_val[pmc];
	return vpmu_ctr_value(t->vcpu, pmc);
}

/* The derived control with i-mode start values: a counter that stays in i-mode
 * keeps its ireset; one that becomes i-mode starts from the value it holds now
 * (or is loaded with in this transaction). */
static inline __attribute__((always_inline)) void derive_control(struct vpmu_vcpu *v,
								   const struct vpmu_txn *t,
								   struct vpmu_ctl *ctl)
{
	/* Models set whole entries (vpmu_ctl_set): only the counts and the globals
	 * need zeroing. */
	ctl->nractrs = ctl->nrictrs = 0;
	for (unsigned k = 0; k < sizeof(ctl->global) / sizeof(ctl->global[0]); k++)
		ctl->global[k] = 0;
	v->mops->derive(v->model, &v->ctx, v->rf, ctl);
	if (__builtin_expect(ctl->nrictrs && !(v->model->caps & VPMU_CAP_PCINT), 0)) {
		/* perfctr: no i-mode counters without PCINT (update_control's -EPERM):
		 * a CPU without an overflow interrupt cannot interrupt, so what a
		 * model derives as i-mode counts as a-mode. */
		ctl->nractrs += ctl->nrictrs;
		ctl->nrictrs = 0;
	}
	for (unsigned i = ctl->nractrs; i < vpmu_ctl_n(ctl); i++) {
		unsigned pmc = ctl->ctr[i].pmc;
		int old = v->vidx[pmc];
		if (t && (t->ctr_mask & (1u << pmc)))
			ctl->ctr[i].ireset = t->ctr_val[pmc];
		else if (old >= (int)v->ctl.nractrs)
			ctl->ctr[i].ireset = v->ctl.ctr[old].ireset;
		else
			ctl->ctr[i].ireset = vpmu_ctr_value(v, pmc);
	}
}

/* Whether b keeps a's a-mode counters on the same pmcs, with no i-mode counter
 * and no global control on either side: a running vCPU then moves to b in place. */
static inline bool same_amode_layout(const struct vpmu_ctl *a, const struct vpmu_ctl *b)
{
	if (a->nrictrs | b->nrictrs || a->nractrs != b->nractrs ||
	    (a->global[0] | a->global[1] | a->global[2] | a->global[3] |
	     b->global[0] | b->global[1] | b->global[2] | b->global[3]))
		return false;
	for (unsigned i = 0; i < a->nractrs; i++)
		if (a->ctr[i].pmc != b->ctr[i].pmc)
			return false;
	return true;
}

/* Whether two controls are equal, compared only as far as their counters reach. */
static inline bool ctl_equal(const struct vpmu_ctl *a, const struct vpmu_ctl *b)
{
	if (a->nractrs != b->nractrs || a->nrictrs != b->nrictrs)
		return false;
	for (unsigned k = 0; k < sizeof(a->global) / sizeof(a->global[0]); k++)
		if (a->global[k] != b->global[k])
			return false;
	for (unsigned i = 0; i < vpmu_ctl_n(a); i++) {
		const struct vpmu_ctl_ctr *x = &a->ctr[i], *y = &b->ctr[i];
		if (x->pmc != y->pmc || x->evntsel != y->evntsel || x->ireset != y->ireset ||
		    x->aux != y->aux || x->aux_slot != y->aux_slot)
			return false;
	}
	return true;
}

/* Install a new control; a running vCPU is suspended and resumed around it, as
 * perfctr's vperfctr control update does. */
static void apply_control(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl)
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

/* Move to a derived control: in place where only a-mode event selects change. */
static inline __attribute__((always_inline)) void install_control(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl)
{
	if (v->cpu >= 0 && same_amode_layout(&v->ctl, ctl)) {
		for (unsigned i = 0; i < ctl->nractrs; i++)
			if (ctl->ctr[i].evntsel != v->ctl.ctr[i].evntsel ||
			    ctl->ctr[i].aux != v->ctl.ctr[i].aux) {
				vpmu_state_reprogram(v, ctl);
				break;
			}
	} else if (!ctl_equal(ctl, &v->ctl)) {
		apply_control(v, ctl);
	}
}

void vpmu_vcpu_refresh(struct vpmu_vcpu *v)
{
	struct vpmu_ctl ctl;
	__atomic_fetch_and(&v->attn, (uint8_t)~VPMU_ATTN_STALE, __ATOMIC_RELAXED);
	derive_control(v, NULL, &ctl);
	install_control(v, &ctl);
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
	t->regs = v->rf;
	t->vcpu = v;
	t->host = host;
	t->n = 0;
	t->violations = 0;
	t->ctr_mask = 0;
}

static inline uint64_t *txn_target(struct vpmu_regfile *rf, unsigned kind, unsigned index)
{
	if (kind == VPMU_REG_CTRL && index < VPMU_MAX_CTRL_SLOTS)
		return &rf->ctrl[index];
	if (kind == VPMU_REG_MISC && index < VPMU_MAX_MISC)
		return &rf->misc[index];
	return NULL;
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
	for (uint32_t mask = t->ctr_mask; mask; mask &= mask - 1) {
		unsigned pmc = (unsigned)__builtin_ctz(mask);
		if (pmc < v->model->nr_ctrs)
			vpmu_ctr_set(v, pmc, t->ctr_val[pmc] & v->width_mask);
	}
}

/* Steps 2 and 3 of a write whose step 1 (the model's op) accepted it. */
static inline __attribute__((always_inline)) enum vpmu_fault txn_commit(struct vpmu_vcpu *v,
									  const struct vpmu_txn *t)
{
	const struct vpmu_model *m = v->model;
	bool strict = v->strict && !t->host;
	uint32_t viol = t->host ? 0 : t->violations;
	unsigned k = 0;
	for (; k < t->n; k++) {
		const uint64_t *p = txn_target(v->rf, t->upd[k].kind, t->upd[k].index);
		if (p && *p != t->upd[k].value)
			break;
	}
	if (k == t->n) {
		/* The register file, hence the control, is unchanged (Linux's
		 * read-modify-write of EVNTSEL0 often is): only the rules are re-checked. */
		if (!t->ctr_mask && !t->host && vpmu_ctl_n(&v->ctl) && v->mops->check_control)
			viol |= v->mops->check_control(m, &v->ctx, v->rf, &v->ctl);
		if (viol && strict)
			return VPMU_FAULT_STRICT;
		record_violations(v, viol);
		load_counters(v, t);
		return VPMU_FAULT_NONE;
	}
	uint64_t undo[VPMU_TXN_MAX];
	for (k = 0; k < t->n; k++) {
		uint64_t *p = txn_target(v->rf, t->upd[k].kind, t->upd[k].index);
		if (p) {
			undo[k] = *p;
			*p = t->upd[k].value;
		}
	}
	struct vpmu_ctl ctl;
	derive_control(v, t, &ctl);
	if (!t->host && vpmu_ctl_n(&ctl) && v->mops->check_control)
		viol |= v->mops->check_control(m, &v->ctx, v->rf, &ctl);
	if (viol && strict) {
		while (k--) {
			uint64_t *p = txn_target(v->rf, t->upd[k].kind, t->upd[k].index);
			if (p)
				*p = undo[k];
		}
		return VPMU_FAULT_STRICT;
	}
	record_violations(v, viol);
	load_counters(v, t);
	install_control(v, &ctl);
	if (v->core)
		notify_sibling(v);
	return VPMU_FAULT_NONE;
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
									 uint64_t val, bool host)
{
	struct vpmu_txn t;
	txn_init(&t, v, host);
	enum vpmu_fault f = v->mops->write(v->model, &v->ctx, &t, r, val);
	if (f != VPMU_FAULT_NONE)
		return f;
	return txn_commit(v, &t);
}

static enum vpmu_fault read_reg(struct vpmu_vcpu *v, const struct vpmu_reg *r, uint64_t *val,
				bool host)
{
	uint64_t raw;
	if (r->kind == VPMU_REG_CTR)
		raw = vpmu_ctr_value(v, r->index);
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
static __attribute__((noinline, cold)) void access_begin(struct vpmu_vcpu *v)
{
	if (v->core)
		pthread_mutex_lock(&v->core->lock);
	if (vpmu_attn(v) & VPMU_ATTN_STALE)
		vpmu_vcpu_refresh(v);
}

static inline void access_end(struct vpmu_vcpu *v)
{
	if (v->core)
		pthread_mutex_unlock(&v->core->lock);
}

#define ACCESS_BEGIN(v) do { if (__builtin_expect(vpmu_attn(v) != 0, 0)) access_begin(v); } while (0)
#define ACCESS_END(v) access_end(v)

int vpmu_reg_write(struct vpmu_vcpu *v, enum vpmu_regspace space, uint32_t addr,
		   uint64_t val, enum vpmu_fault *fault)
{
	if (!v || !fault)
		return -EINVAL;
	const struct vpmu_reg *r = vpmu_vcpu_reg(v, space, addr);
	enum vpmu_fault f = VPMU_FAULT_NO_REG;
	v->totals.writes++;
	if (r) {
		ACCESS_BEGIN(v);
		f = write_reg(v, r, val, false);
		ACCESS_END(v);
	}
	count_fault(v, f);
	*fault = f;
	return 0;
}

/* Every read but a plain one on an unshared, up-to-date vCPU. */
static __attribute__((noinline)) int reg_read_slow(struct vpmu_vcpu *v, const struct vpmu_reg *r,
						    uint64_t *val, enum vpmu_fault *fault)
{
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
	unsigned e = space == v->regspace ? vpmu_reg_slot(v->rix, addr) : 0;
	v->totals.reads++;
	if (__builtin_expect(!e, 0))
		return reg_read_slow(v, NULL, val, fault);
	const struct vpmu_reg *r = &v->mregs[e - 1];
	if (__builtin_expect(r->flags | vpmu_attn(v), 0))
		return reg_read_slow(v, r, val, fault);
	*fault = VPMU_FAULT_NONE;
	if (r->kind == VPMU_REG_CTR)
		*val = vpmu_ctr_value(v, r->index);
	else
		*val = r->kind == VPMU_REG_CTRL ? v->rf->ctrl[r->index] : v->rf->misc[r->index];
	return 0;
}

int vpmu_reg_get(struct vpmu_vcpu *v, enum vpmu_regspace space, uint32_t addr, uint64_t *val)
{
	if (!v || !val)
		return -EINVAL;
	const struct vpmu_reg *r = vpmu_vcpu_reg(v, space, addr);
	if (!r)
		return -ENOENT;
	ACCESS_BEGIN(v);
	read_reg(v, r, val, true);
	ACCESS_END(v);
	return 0;
}

/* The write path out of line, for the callers that are not hot. */
static __attribute__((noinline)) enum vpmu_fault write_reg_call(struct vpmu_vcpu *v,
								 const struct vpmu_reg *r,
								 uint64_t val, bool host)
{
	return write_reg(v, r, val, host);
}

static __attribute__((noinline)) enum vpmu_fault txn_commit_call(struct vpmu_vcpu *v,
								  const struct vpmu_txn *t)
{
	return txn_commit(v, t);
}

int vpmu_reg_set(struct vpmu_vcpu *v, enum vpmu_regspace space, uint32_t addr, uint64_t val)
{
	if (!v)
		return -EINVAL;
	const struct vpmu_reg *r = vpmu_vcpu_reg(v, space, addr);
	if (!r)
		return -ENOENT;
	ACCESS_BEGIN(v);
	enum vpmu_fault f = write_reg_call(v, r, val, true);
	ACCESS_END(v);
	/* A value the hardware cannot hold (reserved bits) is bad saved state. */
	return f == VPMU_FAULT_NONE ? 0 : -EINVAL;
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
	txn_init(&t, v, false);
	uint64_t value = 0;
	long e = v->mops->call(v->model, &v->ctx, &t, fid, args, &value);
	if (e == VPMU_SBI_SUCCESS) {
		enum vpmu_fault f = txn_commit_call(v, &t);
		if (f == VPMU_FAULT_STRICT) {
			/* Strict mode refuses what breaks a rule; the SBI's word for a
			 * refused request is DENIED. */
			v->totals.strict_refusals++;
			e = VPMU_SBI_ERR_DENIED;
		}
	}
	ACCESS_END(v);
	out->error = e;
	out->value = e == VPMU_SBI_SUCCESS ? value : 0;
	return 0;
}
