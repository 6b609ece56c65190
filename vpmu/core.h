/* SPDX-License-Identifier: MIT */
/*
 * The core's objects (host, per-CPU cache, VM, vCPU) and the inline pieces of its
 * hot paths.  Models do not include this (they see model.h); backends see
 * backend.h (and the perf backend its own backends/perf_slot.h).
 */
#ifndef VPMU_CORE_H
#define VPMU_CORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

#define VPMU_REG_HASH_SIZE 256  /* > 2x the largest model's register count (P4) */

/* The registered models (models/models.c). */
#include "models/models.h"
const struct vpmu_model *vpmu_model_find(const char *name);

/* Per-host-CPU cache (perfctr low-level-x86.txt "Implementation Notes"; perfctr
 * x86.c's per-CPU control cache and write_control). */
struct vpmu_cpu_cache {
	uint64_t id;                         /* id of the control loaded; ~0 = none */
	const struct vpmu_model *model;      /* whose register layout the images use */
	const struct vpmu_vcpu *isuspend_owner; /* who stopped its i-mode counters here */
	struct vpmu_vcpu *running;           /* vCPU switched in here, if any */
	uint64_t ctrl[VPMU_MAX_CTRL_SLOTS];  /* control images; ~0 = unknown */
};

struct vpmu_host {
	struct vpmu_backend backend;
	unsigned nr_cpus;
	unsigned nr_vms;                     /* VMs alive on it: destroy refuses while > 0 */
	struct vpmu_cpu_cache *cpu;
};

/* The register file two hyper-thread siblings share, and its lock: every access
 * of either sibling to it holds the lock (vpmu.h "Threading"). */
struct vpmu_core_regs {
	pthread_mutex_t lock;
	struct vpmu_regfile rf;
	struct vpmu_vcpu *thread[2];
	/* The counters are the core's too (docs/models/p4.md, "Hyper-threading"):
	 * their values, which both threads' vpmu_vcpu.base point at; per thread,
	 * the counters its sibling wrote since it last looked (what it counted
	 * into them before the write is dropped), and whether its sibling read a
	 * counter it counts (it folds what it counted at its next entry). */
	uint64_t base[VPMU_MAX_CTRS];
	uint64_t written[2];
	bool fold_req[2];
};

/* A model's registers by a hash of their number: every guest access looks its
 * register up here (docs/performance.md).  idx is the register's index + 1; 0
 * marks an empty slot. */
struct vpmu_reg_index {
	uint32_t addr[VPMU_REG_HASH_SIZE];
	uint8_t idx[VPMU_REG_HASH_SIZE];
};

struct vpmu_vm {
	struct vpmu_host *host;
	const struct vpmu_model *model;
	struct vpmu_vm_opts opts;
	struct vpmu_pmu pmu;                 /* what the model's refresh made of opts */
	uint64_t uid;                        /* unique per VM; seeds the content id */
	struct vpmu_reg_index rix;
	struct vpmu_reg_index rix_plain;     /* the registers without a read hook */
	int ireset_rule;                     /* the model's VPMU_RULE_CHECK_IRESET rule, or -1 */
	uint64_t ctr_regs;                   /* counters that have a register in pmu.regs */
	struct vpmu_vcpu *vcpu[VPMU_MAX_VCPUS];
	struct vpmu_core_regs *core[VPMU_MAX_VCPUS / 2];  /* with HT: per sibling pair */
	/* vm_glue.h: set by vpmu_kvm_vm_setup() before any vCPU thread runs, read
	 * by vpmu_kvm_vcpu_setup() on the vCPU threads. */
	_Atomic bool glue_rdpmc_exits;
	void *glue_data;                     /* vm_glue.h: the glue's, freed with glue_free */
	void (*glue_free)(void *);
};

/* perfctr_cpu_state, ISA-neutral. */
struct vpmu_pmc_state {
	uint64_t start;      /* the host counter at the last sample (64-bit: backend.h) */
	uint64_t sum;        /* accumulated differences since the counter joined ctl */
};

#define VPMU_EVENT_UNRESOLVED ((int8_t)-2)

/* The generic events of a counter's last two event keys. */
struct vpmu_event_memo {
	uint64_t key[2];
	int8_t ev[2];        /* VPMU_EVENT_UNRESOLVED: empty */
	uint8_t next;        /* the entry a miss replaces */
};

struct vpmu_vcpu {
	struct vpmu_vm *vm;
	struct vpmu_host *host;
	/* Copies of what every access and switch needs, one load away (the hot paths
	 * of docs/performance.md): */
	const struct vpmu_model *model;
	const struct vpmu_model_ops *mops;
	const struct vpmu_backend_ops *bops;
	void *bctx;
	/* The backend's optional entry and poll hooks, NULL for sim: one load and
	 * a test on the switch path instead of a pointer chase through bops. */
	void (*enter)(void *ctx, unsigned cpu);
	void (*poll)(void *ctx, unsigned cpu);
	const struct vpmu_reg_index *rix;    /* &vm->rix */
	/* What the read fast path looks registers up in: &vm->rix_plain, or an
	 * empty index while the vCPU needs attention (vpmu_attn), so that neither
	 * read hooks nor attention cost the plain read a test. */
	const struct vpmu_reg_index *rix_read;
	const struct vpmu_reg *mregs;        /* vm->pmu.regs */
	const struct vpmu_pmu *pmu;          /* &vm->pmu */
	struct vpmu_cpu_cache *cache;        /* this host CPU's cache while switched in */
	struct vpmu_regfile *rf;             /* &own, or the core's file with HT */
	struct vpmu_core_regs *core;         /* with HT: the shared file and its lock */
	struct vpmu_ctx ctx;                 /* what every model op gets */
	uint64_t width_mask[VPMU_MAX_CTRS];  /* pmu->width_mask, by pmc */
	uint8_t regspace;                    /* model->regspace */
	bool strict;                         /* vm->opts.strict */
	bool id_valid;                       /* id is computed lazily (only caching needs it) */
	/* VPMU_ATTN_*: what an access or switch-in must see to first.  STALE is set
	 * by an overflow during switch-out or by an HT sibling's write (another
	 * thread): it is read and changed atomically. */
	uint8_t attn;
	bool pmi_pending;
	uint64_t pmi_ctrs;                   /* counters whose overflow raised the pending PMI */
	int cpu;                             /* host CPU switched in on, or -1 */
	int isuspend_cpu;                    /* k1.isuspend_cpu; -1 = none */
	uint64_t id;                         /* k1.id: content id of ctl */
	/* Guest value of each counter when it joined ctl or was last written:
	 * own_base, or the core's with HT.  Written under the core's lock, read
	 * with relaxed atomics (a sibling may fold into it). */
	uint64_t *base;
	int8_t vidx[VPMU_MAX_CTRS];          /* pmc -> virtual index in ctl, or -1 */
	int8_t event[VPMU_MAX_CTRS];         /* virtual index -> generic event (accounting) */
	struct vpmu_event_memo memo[VPMU_MAX_CTRS];  /* by pmc */
	struct vpmu_ctl ctl;
	struct vpmu_pmc_state pmc[VPMU_MAX_CTRS]; /* by virtual index */
	struct vpmu_totals totals;
	struct vpmu_regfile own;
	uint64_t own_base[VPMU_MAX_CTRS];
};

static inline uint64_t vpmu_base(const struct vpmu_vcpu *v, unsigned pmc)
{
	return __atomic_load_n(&v->base[pmc], __ATOMIC_RELAXED);
}
static inline void vpmu_base_set(struct vpmu_vcpu *v, unsigned pmc, uint64_t val)
{
	__atomic_store_n(&v->base[pmc], val, __ATOMIC_RELAXED);
}

/* ---- core.c ---- */
uint64_t vpmu_ctl_id(const struct vpmu_vm *vm, const struct vpmu_ctl *ctl);
/* Fibonacci hashing of the register number into VPMU_REG_HASH_SIZE (2^8) slots. */
static inline unsigned vpmu_reg_hash(uint32_t addr)
{
	return (addr * 0x9E3779B1u) >> 24;
}
/* Register `addr`'s index + 1 in the model's list, or 0 if it has none. */
static inline unsigned vpmu_reg_slot(const struct vpmu_reg_index *rix, uint32_t addr)
{
	for (unsigned h = vpmu_reg_hash(addr);; h = (h + 1) % VPMU_REG_HASH_SIZE) {
		unsigned e = rix->idx[h];
		if (!e || rix->addr[h] == addr)
			return e;
	}
}
static inline const struct vpmu_reg *vpmu_reg_lookup(const struct vpmu_reg_index *rix,
						     const struct vpmu_reg *regs, uint32_t addr)
{
	unsigned e = vpmu_reg_slot(rix, addr);
	return e ? &regs[e - 1] : NULL;
}
/* The VM's register `addr`, or NULL.  A model's registers all live in its ISA's
 * space (regspace). */
static inline const struct vpmu_reg *vpmu_vm_reg(const struct vpmu_vm *vm,
						 enum vpmu_regspace space, uint32_t addr)
{
	if (space != vm->model->regspace && space != VPMU_SPACE_STATE)
		return NULL;
	const struct vpmu_reg *r = vpmu_reg_lookup(&vm->rix, vm->pmu.regs, addr);
	return r && r->space == space ? r : NULL;
}
/* The same from a vCPU: the lookup of the access path. */
static inline const struct vpmu_reg *vpmu_vcpu_reg(const struct vpmu_vcpu *v,
						   enum vpmu_regspace space, uint32_t addr)
{
	if (space != v->regspace && space != VPMU_SPACE_STATE)
		return NULL;
	const struct vpmu_reg *r = vpmu_reg_lookup(v->rix, v->mregs, addr);
	return r && r->space == space ? r : NULL;
}
/* The same for a guest access: never hidden state (VPMU_SPACE_STATE). */
static inline const struct vpmu_reg *vpmu_vcpu_guest_reg(const struct vpmu_vcpu *v,
							 enum vpmu_regspace space, uint32_t addr)
{
	return space == VPMU_SPACE_STATE ? NULL : vpmu_vcpu_reg(v, space, addr);
}

#define VPMU_ATTN_HT    0x1u  /* an HT sibling: accesses hold its core's lock */
#define VPMU_ATTN_STALE 0x2u  /* the control must be derived again */
static inline unsigned vpmu_attn(const struct vpmu_vcpu *v)
{
	return __atomic_load_n(&v->attn, __ATOMIC_RELAXED);
}
extern const struct vpmu_reg_index vpmu_no_regs;
/* An HT sibling's rix_read is always vpmu_no_regs; a vCPU without one changes
 * its own attention only on its own thread. */
static inline void vpmu_mark_stale(struct vpmu_vcpu *v)
{
	__atomic_fetch_or(&v->attn, VPMU_ATTN_STALE, __ATOMIC_RELAXED);
	if (!v->core)
		v->rix_read = &vpmu_no_regs;
}
static inline void vpmu_clear_stale(struct vpmu_vcpu *v)
{
	__atomic_fetch_and(&v->attn, (uint8_t)~VPMU_ATTN_STALE, __ATOMIC_RELAXED);
	if (!v->core)
		v->rix_read = &v->vm->rix_plain;
}
/* ---- model_api.c ---- */
/* Sort the n addresses of `all` and drop repeats in place: how many remain; the
 * first `max` of them also into regs (NULL: none). */
unsigned vpmu_regs_sorted_unique(uint32_t *all, unsigned n, uint32_t *regs, unsigned max);

/* ---- pmu.c ---- */
/* Make the VM's PMU from its model and options (the model's refresh op);
 * -EINVAL for a geometry the model refuses. */
int vpmu_pmu_init(struct vpmu_pmu *p, const struct vpmu_model *m, const struct vpmu_vm_opts *o);

/* A VM created on a model the registry does not list (tests of the contract). */
int vpmu_vm_create_model(struct vpmu_host *host, const struct vpmu_model *m,
			 const struct vpmu_vm_config *cfg, struct vpmu_vm **out);

/* ---- control.c (control.h: installing a control) ---- */
/* The bookkeeping of a new control (no host access: the caller suspends and
 * resumes around it). */
void vpmu_vcpu_set_control(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl);
/* Derive the control again after the register file changed behind the access
 * path (an overflow's status, an HT sibling's write). */
void vpmu_vcpu_refresh(struct vpmu_vcpu *v);
/* The content id of the vCPU's control, computed on first use after a change. */
static inline uint64_t vpmu_vcpu_id(struct vpmu_vcpu *v)
{
	if (!v->id_valid) {
		v->id = vpmu_ctl_id(v->vm, &v->ctl);
		v->id_valid = true;
	}
	return v->id;
}

/* ---- the host side of a switched-in vCPU (v->cpu >= 0) ---- */
static inline __attribute__((always_inline)) uint64_t vpmu_host_read(const struct vpmu_vcpu *v, unsigned pmc)
{
	return v->bops->read_ctr(v->bctx, (unsigned)v->cpu, v->pmu, pmc);
}

static inline __attribute__((always_inline)) void vpmu_host_write_ctrl(struct vpmu_vcpu *v, unsigned slot, uint64_t val)
{
	v->bops->write_ctrl(v->bctx, (unsigned)v->cpu, v->pmu, slot, val);
	v->cache->ctrl[slot] = val;
}

static inline __attribute__((always_inline)) void vpmu_host_write_ctr(struct vpmu_vcpu *v, unsigned pmc, uint64_t val)
{
	v->bops->write_ctr(v->bctx, (unsigned)v->cpu, v->pmu, pmc, val);
}

/* The control slot of counter pmc's enable. */
static inline unsigned vpmu_ctr_slot(const struct vpmu_model *m, unsigned pmc)
{
	return m->ctr_ctrl_slot ? m->ctr_ctrl_slot[pmc] : pmc;
}

/* The event key of counter i of the derived control. */
static inline uint64_t vpmu_ctl_key(const struct vpmu_model *m, const struct vpmu_ctl_ctr *e)
{
	return m->ops->ctl_key ? m->ops->ctl_key(m, e) : e->evntsel;
}

/* The generic event counter i of the control counts (accounting). */
static inline int vpmu_counter_event_of(const struct vpmu_vcpu *v, unsigned i)
{
	if (v->event[i] != VPMU_EVENT_UNRESOLVED)
		return v->event[i];
	return vpmu_pmu_event_of(v->pmu, v->ctl.ctr[i].pmc, vpmu_ctl_key(v->model, &v->ctl.ctr[i]));
}
/* The same, resolved once per control entry.  The table walk is remembered for
 * the last two event keys of each counter: a profiler toggling a counter's
 * event select between two values (enabled/disabled, two events) looks up
 * nothing (docs/performance.md). */
static inline int vpmu_counter_event(struct vpmu_vcpu *v, unsigned i)
{
	if (v->event[i] != VPMU_EVENT_UNRESOLVED)
		return v->event[i];
	unsigned pmc = v->ctl.ctr[i].pmc;
	uint64_t key = v->mops->ctl_key ? v->mops->ctl_key(v->model, &v->ctl.ctr[i])
					: v->ctl.ctr[i].evntsel;
	struct vpmu_event_memo *mm = &v->memo[pmc];
	int ev;
	if (mm->key[0] == key && mm->ev[0] != VPMU_EVENT_UNRESOLVED) {
		ev = mm->ev[0];
	} else if (mm->key[1] == key && mm->ev[1] != VPMU_EVENT_UNRESOLVED) {
		ev = mm->ev[1];
	} else {
		ev = vpmu_pmu_event_of(v->pmu, pmc, key);
		unsigned k = mm->next;
		mm->key[k] = key, mm->ev[k] = (int8_t)ev;
		mm->next = (uint8_t)(k ^ 1);
	}
	v->event[i] = (int8_t)ev;
	return ev;
}

/* Counter i of a running vCPU's control: what the host counted since its
 * start joins its sum (perfctr's "read now, add the difference"); returns the
 * host's reading, from which the counter may start again. */
static inline __attribute__((always_inline)) uint64_t vpmu_counter_sample(struct vpmu_vcpu *v,
									   unsigned i)
{
	uint64_t now = vpmu_host_read(v, v->ctl.ctr[i].pmc);
	v->pmc[i].sum += now - v->pmc[i].start;
	return now;
}

/* What the guest reads from counter pmc now. */
static inline uint64_t vpmu_ctr_value(const struct vpmu_vcpu *v, unsigned pmc)
{
	int i = v->vidx[pmc];
	if (i < 0)
		return vpmu_base(v, pmc);
	/* Everything but the host reading first, so that only the sum and the
	 * mask live across the backend call (docs/performance.md). */
	uint64_t mask = v->width_mask[pmc];
	uint64_t val = vpmu_base(v, pmc) + v->pmc[i].sum;
	if (v->cpu >= 0) {
		val -= v->pmc[i].start;
		val += vpmu_host_read(v, pmc);
	}
	return val & mask;
}

static inline size_t vpmu_ctl_len(unsigned n)
{
	return offsetof(struct vpmu_ctl, ctr) + n * sizeof(struct vpmu_ctl_ctr);
}

/* ---- switch.c: perfctr suspend/resume against the per-CPU cache ---- */
void vpmu_state_suspend(struct vpmu_vcpu *v);
void vpmu_state_resume(struct vpmu_vcpu *v);
void vpmu_counter_fold(struct vpmu_vcpu *v, unsigned i);
void vpmu_write_control_images(struct vpmu_vcpu *v);

/* Move counter i's sum into the accounting and, unless an HT sibling wrote
 * the counter since (drop), into its base. */
static inline __attribute__((always_inline)) void vpmu_fold_sum(struct vpmu_vcpu *v, unsigned i,
								 bool drop)
{
	unsigned pmc = v->ctl.ctr[i].pmc;
	uint64_t sum = v->pmc[i].sum;
	int ev = vpmu_counter_event(v, i);
	v->totals.pmc[pmc] += sum;
	if (ev >= 0)
		v->totals.events[ev] += sum;
	if (!drop)
		vpmu_base_set(v, pmc, (vpmu_base(v, pmc) + sum) & v->width_mask[pmc]);
	v->pmc[i].sum = 0;
}
static inline __attribute__((always_inline)) void vpmu_fold(struct vpmu_vcpu *v, unsigned i)
{
	vpmu_fold_sum(v, i, false);
}

void vpmu_ctr_set(struct vpmu_vcpu *v, unsigned pmc, uint64_t value);

/* An HT sibling, under its core's lock: take in what the other thread's
 * counter writes and reads asked of it (docs/models/p4.md); with fold_all,
 * fold every counter's count into the shared values. */
void vpmu_ht_sync(struct vpmu_vcpu *v, bool fold_all);

#endif
