/* SPDX-License-Identifier: MIT */
/*
 * libvpmu internals: the model descriptor every PMU model exports, the
 * ISA-neutral perfctr control, and the host/VM/vCPU objects.
 */
#ifndef VPMU_INTERNAL_H
#define VPMU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

#define VPMU_MAX_CTRL_SLOTS 72   /* P4: 18 CCCRs + 45 ESCRs + PEBS pair, with room */
#define VPMU_MAX_MISC 8
#define VPMU_REG_HASH_SIZE 256  /* > 2x the largest model's register count (P4) */

/* What a model register is, for the core's routing. */
enum vpmu_reg_kind {
	VPMU_REG_CTRL = 1,  /* a control register: guest image in ctrl[index] */
	VPMU_REG_CTR,       /* a counter register: guest counter index */
	VPMU_REG_MISC,      /* a model-specific register kept as a value: misc[index] */
};

struct vpmu_reg {
	uint32_t addr;       /* MSR or SPR number */
	uint8_t space;       /* enum vpmu_regspace */
	uint8_t kind;        /* enum vpmu_reg_kind */
	uint8_t index;
	uint8_t _pad;
};

/* One counter of the perfctr control, at its virtual index (2.7.3 indexing, facts 0).
 * The layout is packed without padding so the content id can hash it directly. */
struct vpmu_ctl_ctr {
	uint32_t pmc;        /* guest (and sim host) counter number */
	uint32_t aux_slot;   /* P4: ESCR control slot; otherwise 0 */
	uint64_t evntsel;    /* the counter's control image (P5: its 16-bit CESR half) */
	uint64_t aux;        /* P4: ESCR image */
	uint64_t ireset;     /* i-mode start: the value when it became enabled with INT */
};

/* The ISA-neutral perfctr control (perfctr_cpu_control without the 18-wide arrays).
 * Counters 0..nractrs-1 are a-mode, nractrs..nractrs+nrictrs-1 are i-mode. */
struct vpmu_ctl {
	uint32_t nractrs;
	uint32_t nrictrs;
	uint64_t global[4];  /* P4: pebs_enable, pebs_matrix_vert; PPC: mmcr0, mmcr1, mmcr2 */
	struct vpmu_ctl_ctr ctr[VPMU_MAX_CTRS];
};

static inline unsigned vpmu_ctl_n(const struct vpmu_ctl *c) { return c->nractrs + c->nrictrs; }

/* A host control-register write the model wants for a control, in write order. */
struct vpmu_ctrl_image {
	uint16_t slot;
	uint64_t value;
};

/* The guest-visible register file of a vCPU, as model ops see it. */
struct vpmu_regfile {
	uint64_t ctrl[VPMU_MAX_CTRL_SLOTS];
	uint64_t misc[VPMU_MAX_MISC];
};

/* Per-VM CPU identity and options the model may consult. */
struct vpmu_cpu_opts {
	unsigned family, cpumodel, stepping;
	bool ht;
	bool strict;
};

/* One event encoding of a model: (evntsel & match) == code selects it. */
struct vpmu_event_desc {
	uint32_t code;
	uint32_t match;
	int8_t generic;      /* enum vpmu_event, or VPMU_EV_NONE */
	const char *name;    /* the manual's name */
};

/* The generic event a model's event table gives an encoding (VPMU_EV_NONE if none). */
int vpmu_model_event_lookup(const struct vpmu_model *m, uint64_t evntsel);

/* A perfctr rule of a model, reported by id (bit number in a violation mask). */
struct vpmu_rule {
	const char *name;    /* short, stable: used in accounting output and traces */
	const char *text;    /* what perfctr requires, with the seed/facts reference */
};

/*
 * The model descriptor.  Every model file exports exactly one const instance.
 * Ops return hardware-level facts; policy (strict vs default, caching, counting)
 * lives in the core.
 */
struct vpmu_model {
	const char *name;           /* trace-format model name */
	const char *description;
	const char *vendor;         /* CPUID vendor string */
	enum vpmu_regspace regspace; /* the ISA's register space (MSR: x86, SPR: PPC) */
	unsigned family, cpumodel, stepping;  /* defaults presented to the guest */
	unsigned nr_ctrs;           /* counters the guest sees (pmc 0..nr_ctrs-1) */
	unsigned ctr_width;         /* bits */
	unsigned nr_ctrl_slots;
	bool has_pcint;             /* overflow interrupts through the LVTPC (perfctr PCINT) */
	/* Intel LVTPC semantics: the CPUs of this family that auto-mask (P4, and the
	 * family-6 parts from the Pentium M on: facts 1e) set the LVTPC mask bit on
	 * PMI delivery; which ones do is decided by the VM's identity
	 * (vpmu_vm_lvtpc_automask()).  AMD never masks. */
	bool intel_lvtpc_automask;
	bool ovf_on_msb;            /* overflow is the MSB becoming 1 (PPC), not a wrap (x86) */
	/* ctrl_images() is each counter's evntsel into ctr_ctrl_slot[pmc], in control
	 * order (P6, K7/K8): the switch paths then need not build the image list. */
	bool ctrl_per_counter;
	const struct vpmu_reg *regs;
	unsigned nr_regs;
	const uint64_t *misc_reset; /* by MISC index, one per MISC register (NULL: all 0) */
	const struct vpmu_rule *rules;
	unsigned nr_rules;
	const struct vpmu_event_desc *events;  /* for decode and `vpmu-events` (may be NULL) */
	unsigned nr_events;
	/* ctrl slot that holds counter pmc's enable (i-mode suspend stops it there). */
	const uint8_t *ctr_ctrl_slot;

	/* A guest write of `val` to control slot `slot`: hardware #GP (RESERVED /
	 * READ_ONLY) or NONE, and the value the register then holds (*stored). */
	enum vpmu_fault (*ctrl_write)(const struct vpmu_cpu_opts *o, unsigned slot,
				      uint64_t val, uint64_t old, uint64_t *stored);
	/* A guest write to counter pmc: fault, and the full-width value it holds. */
	enum vpmu_fault (*ctr_write)(const struct vpmu_cpu_opts *o, unsigned pmc,
				     uint64_t val, uint64_t *stored);
	/* Step-1 strict rules: perfctr's per-register masks for a write to `slot`. */
	uint32_t (*check_write)(const struct vpmu_cpu_opts *o, unsigned slot, uint64_t val);
	/* Derive the perfctr control from the guest registers: which counters the
	 * hardware is counting, a- or i-mode, and their images (ireset is the core's). */
	void (*derive)(const struct vpmu_cpu_opts *o, const struct vpmu_regfile *r,
		       struct vpmu_ctl *ctl);
	/* Step-2 strict rules over a derived control with at least one counter. */
	uint32_t (*check_control)(const struct vpmu_cpu_opts *o, const struct vpmu_regfile *r,
				  const struct vpmu_ctl *ctl);
	/* Host control images for a control, in perfctr's write_control order. */
	unsigned (*ctrl_images)(const struct vpmu_ctl *ctl, struct vpmu_ctrl_image *out);
	/* What counter pmc counts under control images ctrl (see backend.h). */
	int (*decode_ctr)(const uint64_t *ctrl, unsigned pmc, unsigned *priv, bool *interrupt);
	/* Optional: the generic event a counter of a derived control counts, from its
	 * control entry alone (the accounting's fast path; without it the core decodes
	 * the registers before they change). */
	int (*ctl_event)(const struct vpmu_ctl_ctr *e);
};

/* The registered models (models.c). */
extern const struct vpmu_model *const vpmu_models[];
extern const unsigned vpmu_nr_models;
const struct vpmu_model *vpmu_model_find(const char *name);

/* Per-host-CPU cache (seed 000 "Caching"; facts 1d). */
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
	struct vpmu_cpu_cache *cpu;
};

struct vpmu_vm {
	struct vpmu_host *host;
	const struct vpmu_model *model;
	struct vpmu_cpu_opts opts;
	uint64_t uid;                        /* unique per VM; seeds the content id */
	/* The model's registers by a hash of their number (index + 1; 0 = empty):
	 * every guest access looks its register up here (docs/performance.md). */
	uint8_t reg_hash[VPMU_REG_HASH_SIZE];
	struct vpmu_vcpu *vcpu[VPMU_MAX_VCPUS];
};

/* perfctr_cpu_state, ISA-neutral. */
struct vpmu_pmc_state {
	uint32_t start;      /* low 32 bits of the host counter at the last sample */
	uint64_t sum;        /* accumulated differences since the counter joined ctl */
};

struct vpmu_vcpu {
	struct vpmu_vm *vm;
	struct vpmu_host *host;
	/* Copies of what every access and switch needs, one load away (the hot paths
	 * of docs/performance.md): */
	const struct vpmu_model *model;
	const struct vpmu_backend_ops *bops;
	void *bctx;
	/* The backend's optional run hooks, NULL for sim: one load and a test on
	 * the switch path instead of a pointer chase through bops. */
	void (*run_begin)(void *ctx, unsigned cpu);
	void (*run_end)(void *ctx, unsigned cpu);
	struct vpmu_cpu_cache *cache;        /* this host CPU's cache while switched in */
	uint64_t width_mask;
	bool id_valid;                       /* id is computed lazily (only caching needs it) */
	unsigned index;
	struct vpmu_regfile regs;
	uint64_t base[VPMU_MAX_CTRS];        /* guest value when it joined ctl / last write */
	int8_t vidx[VPMU_MAX_CTRS];          /* pmc -> virtual index in ctl, or -1 */
	int8_t event[VPMU_MAX_CTRS];         /* virtual index -> generic event (accounting) */
	struct vpmu_ctl ctl;
	uint64_t id;                         /* k1.id: content id of ctl */
	int isuspend_cpu;                    /* k1.isuspend_cpu; -1 = none */
	struct vpmu_pmc_state pmc[VPMU_MAX_CTRS]; /* by virtual index */
	int cpu;                             /* host CPU switched in on, or -1 */
	uint64_t ovf_mask;                   /* pending PMI overflow status */
	bool pmi_pending;
	struct vpmu_totals totals;
};

/* core.c */
uint64_t vpmu_ctl_id(const struct vpmu_vm *vm, const struct vpmu_ctl *ctl);
const struct vpmu_reg *vpmu_model_reg_find(const struct vpmu_model *m, enum vpmu_regspace space,
					  uint32_t addr);
/* Fibonacci hashing of the register number into VPMU_REG_HASH_SIZE (2^8) slots. */
static inline unsigned vpmu_reg_hash(uint32_t addr)
{
	return (addr * 0x9E3779B1u) >> 24;
}
/* The VM's register `addr`, or NULL: the hashed lookup of the access path.  A
 * model's registers all live in its ISA's space (regspace). */
static inline const struct vpmu_reg *vpmu_vm_reg(const struct vpmu_vm *vm,
						 enum vpmu_regspace space, uint32_t addr)
{
	if (space != vm->model->regspace)
		return NULL;
	for (unsigned h = vpmu_reg_hash(addr);; h = (h + 1) % VPMU_REG_HASH_SIZE) {
		unsigned e = vm->reg_hash[h];
		if (!e)
			return NULL;
		if (vm->model->regs[e - 1].addr == addr)
			return &vm->model->regs[e - 1];
	}
}
/* access.c */
void vpmu_vcpu_set_control(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl);
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
static inline uint32_t vpmu_host_read32(const struct vpmu_vcpu *v, unsigned pmc)
{
	return (uint32_t)v->bops->read_ctr(v->bctx, (unsigned)v->cpu, v->model, pmc);
}

static inline void vpmu_host_write_ctrl(struct vpmu_vcpu *v, unsigned slot, uint64_t val)
{
	v->bops->write_ctrl(v->bctx, (unsigned)v->cpu, v->model, slot, val);
	v->cache->ctrl[slot] = val;
}

static inline void vpmu_host_write_ctr(struct vpmu_vcpu *v, unsigned pmc, uint64_t val)
{
	v->bops->write_ctr(v->bctx, (unsigned)v->cpu, v->model, pmc, val);
}

#define VPMU_EVENT_UNRESOLVED ((int8_t)-2)

/* The generic event counter i of the control counts (accounting).  Models with
 * ctl_event decode it from the control entry; for the others access.c resolves
 * it from the registers before any of them changes. */
static inline int vpmu_counter_event(const struct vpmu_vcpu *v, unsigned i)
{
	if (v->event[i] != VPMU_EVENT_UNRESOLVED)
		return v->event[i];
	if (v->model->ctl_event)
		return v->model->ctl_event(&v->ctl.ctr[i]);
	unsigned priv;
	bool irq;
	return v->model->decode_ctr(v->regs.ctrl, v->ctl.ctr[i].pmc, &priv, &irq);
}

/* What the guest reads from counter pmc now. */
static inline uint64_t vpmu_ctr_value(const struct vpmu_vcpu *v, unsigned pmc)
{
	int i = v->vidx[pmc];
	if (i < 0)
		return v->base[pmc];
	uint64_t delta = v->pmc[i].sum;
	if (v->cpu >= 0)
		delta += (uint32_t)(vpmu_host_read32(v, pmc) - v->pmc[i].start);
	return (v->base[pmc] + delta) & v->width_mask;
}

static inline size_t vpmu_ctl_len(unsigned n)
{
	return offsetof(struct vpmu_ctl, ctr) + n * sizeof(struct vpmu_ctl_ctr);
}
/* switch.c: perfctr suspend/resume against the per-CPU cache. */
void vpmu_state_suspend(struct vpmu_vcpu *v);
void vpmu_state_resume(struct vpmu_vcpu *v);
void vpmu_state_reprogram(struct vpmu_vcpu *v, const struct vpmu_ctl *ctl);
void vpmu_counter_fold(struct vpmu_vcpu *v, unsigned i);
void vpmu_ctr_set(struct vpmu_vcpu *v, unsigned pmc, uint64_t value);

/* sim.c, for the backends built on its register model (perf.c).  advance:
 * `count` events of every generic event in ev_mask (bit = enum vpmu_event) at
 * the privileges in priv_mask (VPMU_PRIV_*), reporting overflows to the host.
 * irq_distance: events of ev_mask until the first interrupt-enabled counter
 * overflows (UINT64_MAX: none will). */
void vpmu_sim_advance(struct vpmu_sim *s, unsigned cpu, unsigned ev_mask, uint64_t count,
		      unsigned priv_mask);
uint64_t vpmu_sim_irq_distance(const struct vpmu_sim *s, unsigned cpu, unsigned ev_mask);
extern const struct vpmu_backend_ops vpmu_sim_ops;

static inline uint64_t vpmu_width_mask(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

#endif
