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
	struct vpmu_filter *filter;          /* the event filter (filter.c), NULL: none */
	struct vpmu_guest_memory guest_mem;  /* vpmu_vm_set_guest_memory; read NULL: none */
	void *glue_data;                     /* vm_glue.h: the glue's, freed with glue_free */
	void (*glue_free)(void *);
};

#define VPMU_EVENT_UNRESOLVED ((int8_t)-2)

/* The generic events of a counter's last two event keys. */
struct vpmu_event_memo {
	uint64_t key[2];
	int8_t ev[2];        /* VPMU_EVENT_UNRESOLVED: empty */
	uint8_t next;        /* the entry a miss replaces */
};

/* One guest counter, by its number (pmc), as KVM keeps one struct kvm_pmc per
 * counter: perfctr's per-counter state (perfctr_cpu_state's start and sum),
 * where it stands in the control, and what it counts.  A counter in the
 * control reads
 *     base[pmc] + sum (+ the host's count since start while switched in)
 * masked to its width (host_state.h).  Its base is not here: HT siblings
 * share their core's (struct vpmu_core_regs), and a sibling folds into it. */
struct vpmu_counter {
	uint64_t start;      /* the host counter at the last sample (64-bit: backend.h) */
	uint64_t sum;        /* differences accumulated since the last fold */
	uint64_t width_mask; /* pmu->width_mask[pmc] */
	int8_t entry;        /* its entry in the control (ctl.ctr[entry]), or -1 */
	int8_t event;        /* that entry's generic event; VPMU_EVENT_UNRESOLVED until asked */
	struct vpmu_event_memo memo;
	/* The event select the event filter last stopped it with (valid while its
	 * bit is in vpmu_vcpu.filtered_ctrs): a programming is counted once. */
	uint64_t filtered_sel;
	/* 64 bytes: the hot paths find a counter by its number with a shift (the
	 * switch pair and a control write, docs/performance.md). */
};
_Static_assert(sizeof(struct vpmu_counter) == 64, "struct vpmu_counter is 64 bytes");

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
	 * empty index while the vCPU needs attention (vpmu_attn) or has an event
	 * filter, so that neither read hooks, attention nor a filter cost the
	 * plain read and write a test. */
	const struct vpmu_reg_index *rix_read;
	const struct vpmu_reg *mregs;        /* vm->pmu.regs */
	const struct vpmu_pmu *pmu;          /* &vm->pmu */
	struct vpmu_cpu_cache *cache;        /* this host CPU's cache while switched in */
	struct vpmu_regfile *rf;             /* &own, or the core's file with HT */
	struct vpmu_core_regs *core;         /* with HT: the shared file and its lock */
	struct vpmu_ctx ctx;                 /* what every model op gets */
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
	struct vpmu_ctl ctl;
	/* vm->filter, one load away for derive_control (NULL: no filter, which
	 * costs the derive one test), and the counters it stopped at the last
	 * derive. */
	const struct vpmu_filter *filter;
	uint64_t filtered_ctrs;
	struct vpmu_counter counter[VPMU_MAX_CTRS];  /* by pmc */
	struct vpmu_totals totals;
	struct vpmu_regfile own;
	uint64_t own_base[VPMU_MAX_CTRS];
	/* Each of vm->pmu.regs' values at creation, for vpmu_vcpu_reset (reset.c). */
	struct vpmu_power_on {
		uint64_t value;
		bool present;            /* the presented CPU has the register */
	} *power_on;
};

static inline uint64_t vpmu_base(const struct vpmu_vcpu *v, unsigned pmc)
{
	return __atomic_load_n(&v->base[pmc], __ATOMIC_RELAXED);
}
static inline void vpmu_base_set(struct vpmu_vcpu *v, unsigned pmc, uint64_t val)
{
	__atomic_store_n(&v->base[pmc], val, __ATOMIC_RELAXED);
}

/* ---- host_state.c: the content id of a control (perfctr's k1.id) ---- */
uint64_t vpmu_ctl_id(const struct vpmu_vm *vm, const struct vpmu_ctl *ctl);

/* ---- reset.c: the power-on values (v->power_on, vm->pmu.nr_regs of them,
 * allocated by vpmu_vcpu_create), recorded when the vCPU is complete ---- */
void vpmu_reset_record(struct vpmu_vcpu *v);

/* ---- core.c ---- */
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
		v->rix_read = v->filter ? &vpmu_no_regs : &v->vm->rix_plain;
}
/* ---- access.c ---- */
/* vpmu_reg_get and vpmu_reg_set of the VM's register r (one of vm->pmu.regs),
 * without its lookup: a save or restore walks the list (save.c). */
int vpmu_reg_get_at(struct vpmu_vcpu *v, const struct vpmu_reg *r, uint64_t *val);
int vpmu_reg_set_at(struct vpmu_vcpu *v, const struct vpmu_reg *r, uint64_t val);

/* ---- filter.c ---- */
/* Stop the entries of a derived and checked control that the vCPU's event
 * filter refuses (their privilege bits cleared: the counter stays in the
 * control, as the guest programmed it, and counts nothing; no backend programs
 * a counter without a privilege level), counting each new programming it
 * stops (vpmu_totals.filtered).  After the rules: they judge what the guest
 * wrote, not what the filter made of it. */
void vpmu_filter_apply(struct vpmu_vcpu *v, struct vpmu_ctl *ctl);
void vpmu_filter_free(struct vpmu_filter *f);

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

/* The content id of the vCPU's control, computed on first use after a change. */
static inline uint64_t vpmu_vcpu_id(struct vpmu_vcpu *v)
{
	if (!v->id_valid) {
		v->id = vpmu_ctl_id(v->vm, &v->ctl);
		v->id_valid = true;
	}
	return v->id;
}

static inline size_t vpmu_ctl_len(unsigned n)
{
	return offsetof(struct vpmu_ctl, ctr) + n * sizeof(struct vpmu_ctl_ctr);
}

/* The control slot of counter pmc's enable. */
static inline unsigned vpmu_ctr_slot(const struct vpmu_model *m, unsigned pmc)
{
	return m->ctr_ctrl_slot ? m->ctr_ctrl_slot[pmc] : pmc;
}

/* The event key of an entry of a derived control. */
static inline uint64_t vpmu_ctl_key(const struct vpmu_model *m, const struct vpmu_ctl_ctr *e)
{
	return m->ops->ctl_key ? m->ops->ctl_key(m, e) : e->evntsel;
}

/* Counters `mask` (i-mode counters of the control) overflowed: the model's
 * status, and a PMI pending when the model says one is due (overflow.c). */
void vpmu_raise_overflows(struct vpmu_vcpu *v, uint64_t mask);
/* A guest write installed a control on a VPMU_CAP_OVF_ON_MSB model: its i-mode
 * counters that are negative interrupt (overflow.c). */
void vpmu_msb_level_check(struct vpmu_vcpu *v);

#endif
