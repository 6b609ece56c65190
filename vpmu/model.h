/* SPDX-License-Identifier: MIT */
/*
 * The model contract: everything a PMU model may see (docs/design.md).
 *
 * A model is one const descriptor (struct vpmu_model) whose ops all receive the
 * descriptor itself (`m`, so variants of one PMU share code and differ in data,
 * as libpfm4's PMU descriptors do) and the context of the access (`cx`: the VM's
 * presented identity and options, the vCPU and its hardware thread).  Ops state
 * hardware facts; policy (strict versus default mode, caching, counting, PMI
 * delivery) is the core's.  A model never sees a vCPU or a host: it reads the
 * guest-visible register file and stages register updates in a transaction that
 * the core applies, checks and, in strict mode, refuses as a whole.
 */
#ifndef VPMU_MODEL_H
#define VPMU_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vpmu/backend.h"   /* VPMU_MAX_CTRL_SLOTS */
#include "vpmu/vpmu.h"

#define VPMU_MAX_MISC 16
#define VPMU_MAX_REGS 128        /* registers of one model (P4: 84) */
#define VPMU_TXN_MAX 8           /* register updates one access may stage */

/* What a model register is, for the core's routing. */
enum vpmu_reg_kind {
	VPMU_REG_CTRL = 1,  /* a control register: its value is ctrl[index] */
	VPMU_REG_CTR,       /* a counter: guest counter `index`, its value the core's */
	VPMU_REG_MISC,      /* any other register kept as a value: misc[index] */
};

/* Per-register semantics (struct vpmu_reg.flags). */
#define VPMU_REGF_READ_HOOK 0x1u  /* reads go through the model's read op */
/* The register exits only for the VMs whose model owns it (vpmu_vm_trapped_regs):
 * the other models' CPUs have it too, outside their PMU, and KVM answers it for
 * them (IA32_DEBUGCTL).  It stays out of vpmu_pmu_regs(). */
#define VPMU_REGF_OWN_ONLY  0x2u

struct vpmu_reg {
	uint32_t addr;       /* MSR or SPR number */
	uint8_t space;       /* enum vpmu_regspace */
	uint8_t kind;        /* enum vpmu_reg_kind */
	uint8_t index;
	uint8_t flags;       /* VPMU_REGF_* */
};

/* The guest-visible register file: one per vCPU, or, with hyper-threading, one
 * per core that both sibling threads access (registers a real core keeps per
 * thread are then slots the model indexes by cx->thread). */
struct vpmu_regfile {
	uint64_t ctrl[VPMU_MAX_CTRL_SLOTS];
	uint64_t misc[VPMU_MAX_MISC];
};

/* The CPU a VM presents and its options: the model's defaults or the VM's config. */
struct vpmu_vm_opts {
	unsigned family, cpumodel, stepping;
	bool ht;             /* hyper-threading: vCPUs 2k and 2k+1 are one core's threads */
	bool strict;         /* refuse writes that break perfctr's rules */
	/* The geometry the VM asked for (vpmu_vm_config; -1: the CPU's own), which
	 * the model's refresh op applies. */
	int pmu_version, nr_general, nr_fixed;
	/* The PMU refresh made (struct vpmu_pmu, below): ops read the VM's counter
	 * counts, widths and version here, never from the descriptor. */
	const struct vpmu_pmu *pmu;
};

/* The context of every model op. */
struct vpmu_ctx {
	const struct vpmu_vm_opts *vm;
	unsigned vcpu;       /* the vCPU's index in its VM */
	unsigned thread;     /* its hardware thread in its core: 0, or 1 for an HT sibling */
};

/* One counter of the perfctr control, at its virtual index (perfctr 2.7.3 indexes
 * evntsel[], ireset[] and p4.escr[] by it).  Packed without padding: the content
 * id hashes it directly. */
struct vpmu_ctl_ctr {
	uint32_t pmc;        /* guest (and sim host) counter number */
	uint32_t aux_slot;   /* P4: ESCR control slot; otherwise 0 */
	uint64_t evntsel;    /* the counter's control image (P5: its 16-bit CESR half) */
	uint64_t aux;        /* P4: ESCR image */
	uint64_t ireset;     /* i-mode start: the value when it became enabled with INT */
};

/* The ISA-neutral perfctr control (perfctr_cpu_control without the 18-wide
 * arrays).  Counters 0..nractrs-1 are a-mode (counting), nractrs..n-1 i-mode
 * (interrupting on overflow). */
struct vpmu_ctl {
	uint32_t nractrs;
	uint32_t nrictrs;
	uint64_t global[4];  /* P4: pebs_enable, pebs_matrix_vert; PPC: mmcr0, mmcr1, mmcr2;
	                        entries past the model's nr_globals are 0 */
	struct vpmu_ctl_ctr ctr[VPMU_MAX_CTRS];
};

static inline unsigned vpmu_ctl_n(const struct vpmu_ctl *c) { return c->nractrs + c->nrictrs; }

/* Set a derived control's entry: every field but ireset (the core's). */
static inline void vpmu_ctl_set(struct vpmu_ctl_ctr *e, unsigned pmc, uint64_t evntsel)
{
	*e = (struct vpmu_ctl_ctr){ pmc, 0, evntsel, 0, 0 };
}

/* A host control-register write the model wants for a control, in write order. */
struct vpmu_ctrl_image {
	uint16_t slot;
	uint64_t value;
};

/*
 * A register-access transaction.  Write, overflow and call ops read the register
 * file (`regs`: as it is, with what the transaction has set so far) and set what
 * changes through the helpers below; the core then re-derives and checks the
 * control and refuses the whole transaction (strict mode, or a fault the op
 * returns after setting registers) by putting every register back.  The fields
 * are the core's.
 */
struct vpmu_txn {
	const struct vpmu_regfile *regs;  /* the file, as models see it */
	struct vpmu_regfile *rf;          /* core-private: the same file */
	struct vpmu_vcpu *vcpu;           /* core-private */
	bool host;           /* host-initiated (save/restore): no guest semantics */
	uint8_t n;           /* registers changed (undo entries) */
	uint8_t retarget;    /* vpmu_txn_retarget()'s counter, or VPMU_TXN_NO_RETARGET */
	bool retarget_aux;   /* the retarget patches aux, not evntsel */
	bool keep_control;   /* vpmu_txn_keep_control(): the control is unchanged */
	uint8_t regate;      /* vpmu_txn_regate(): global index + 1, or 0 */
	uint8_t membership;  /* vpmu_txn_add_counter() or _drop_counter(), or 0 */
	bool overflowed;     /* a change past VPMU_TXN_MAX or past the file: refused */
	uint8_t member_pmc;  /* the counter that joins (image retarget_sel) or leaves */
	uint64_t regate_val;
	uint64_t retarget_sel;
	uint32_t violations; /* perfctr rules broken by the values written (step 1) */
	uint64_t ctr_mask;   /* counters loaded: ctr_val[pmc] */
	/* Call ops only (vpmu_call sets them; other transactions leave them
	 * unset): the guest-memory write the call stages (vpmu_txn_guest_write),
	 * and whether an SBI error the op returns still commits what it staged
	 * (vpmu_txn_commit_on_error). */
	struct vpmu_txn_mem *mem;
	bool commit_on_error;
	struct { uint8_t kind, index; uint64_t old; } undo[VPMU_TXN_MAX];
	uint64_t ctr_val[VPMU_MAX_CTRS];
};

/* Set register (kind, index) to value.  A transaction changes at most
 * VPMU_TXN_MAX registers; a further change, or an index past the file, is a
 * model bug: the transaction says so (t->overflowed), and the core refuses it
 * whole (VPMU_CONTRACT_CHECKS builds abort, naming the model). */
static inline void vpmu_txn_stage(struct vpmu_txn *t, unsigned kind, unsigned index,
				  uint64_t value)
{
	uint64_t *p;
	if (kind == VPMU_REG_CTRL && index < VPMU_MAX_CTRL_SLOTS)
		p = &t->rf->ctrl[index];
	else if (kind == VPMU_REG_MISC && index < VPMU_MAX_MISC)
		p = &t->rf->misc[index];
	else {
		t->overflowed = true;
		return;
	}
	if (*p == value)
		return;
	if (t->n == VPMU_TXN_MAX) {
		t->overflowed = true;
		return;
	}
	t->undo[t->n].kind = (uint8_t)kind;
	t->undo[t->n].index = (uint8_t)index;
	t->undo[t->n++].old = *p;
	*p = value;
}
static inline void vpmu_txn_set_ctrl(struct vpmu_txn *t, unsigned slot, uint64_t v)
{
	vpmu_txn_stage(t, VPMU_REG_CTRL, slot, v);
}
static inline void vpmu_txn_set_misc(struct vpmu_txn *t, unsigned idx, uint64_t v)
{
	vpmu_txn_stage(t, VPMU_REG_MISC, idx, v);
}
/* Load counter pmc with v (already at the counter's width). */
static inline void vpmu_txn_set_ctr(struct vpmu_txn *t, unsigned pmc, uint64_t v)
{
	if (pmc < VPMU_MAX_CTRS) {
		t->ctr_mask |= 1ull << pmc;
		t->ctr_val[pmc] = v;
	}
}
/*
 * Optional, after setting the one register a write changes: the write changes
 * nothing in the control but counter pmc's image, which becomes `evntsel` (if
 * the counter is in the control at all; otherwise the control is unchanged).
 * The core then patches that entry instead of deriving the whole control again,
 * the way KVM reprograms one counter on an event-select write.  Builds with
 * VPMU_CONTRACT_CHECKS (the test and fuzz builds) derive anyway and abort if
 * the patch differs.
 */
#define VPMU_TXN_NO_RETARGET 0xFF
static inline void vpmu_txn_retarget(struct vpmu_txn *t, unsigned pmc, uint64_t evntsel)
{
	t->retarget = (uint8_t)pmc;
	t->retarget_sel = evntsel;
	t->retarget_aux = false;
}
/* The same for a write that changes only counter pmc's aux (the P4's ESCR
 * image when one counter of the control selects that ESCR): no other entry
 * of the control has its aux_slot, so the core rewrites that one image. */
static inline void vpmu_txn_retarget_aux(struct vpmu_txn *t, unsigned pmc, uint64_t aux)
{
	t->retarget = (uint8_t)pmc;
	t->retarget_sel = aux;
	t->retarget_aux = true;
}

/* Optional: the registers this write changes are none the control is derived
 * from (a status register's write-1-to-clear): the core skips the derive, as
 * for a write that changes nothing.  The test and fuzz builds
 * (VPMU_CONTRACT_CHECKS) derive anyway and abort if the control differs. */
static inline void vpmu_txn_keep_control(struct vpmu_txn *t)
{
	t->keep_control = true;
}

/* Optional, on a VPMU_CAP_GLOBAL_GATE model, after setting the one register a
 * write changes: the write changes nothing in the control but global k, which
 * becomes `value` (a GLOBAL_CTRL write).  The core writes that gate's image in
 * place (descriptor global_slot) instead of deriving the control again.  With
 * no register staged (the value the gate holds written again), the write is
 * no change at all: no counter loaded, no rule checked or recorded.
 * VPMU_CONTRACT_CHECKS builds derive anyway and abort if the control differs. */
static inline void vpmu_txn_regate(struct vpmu_txn *t, unsigned k, uint64_t value)
{
	t->regate = (uint8_t)(k + 1);
	t->regate_val = value;
}

/*
 * Optional, after staging what a call or write changes: the control changes by
 * one counter only.  vpmu_txn_add_counter: counter pmc, in no entry before,
 * joins the control as an interrupting (i-mode) counter with image `evntsel`;
 * vpmu_txn_drop_counter: counter pmc leaves it.  Every other entry and the
 * globals stay as they are.  The core then adds or removes that one entry in
 * place, with the host writes perfctr's suspend and resume would make for it
 * (host_state.h vpmu_state_add_imode, vpmu_state_drop), as KVM RISC-V creates
 * or releases one perf event at an SBI counter_start or counter_stop, instead
 * of deriving and installing the whole control.  For models whose derive lists
 * each mode's counters in ascending counter order (the added entry goes where
 * the derive puts it).  VPMU_CONTRACT_CHECKS builds derive anyway and abort if
 * the control differs.
 */
#define VPMU_TXN_ADD_COUNTER  1
#define VPMU_TXN_DROP_COUNTER 2
static inline void vpmu_txn_add_counter(struct vpmu_txn *t, unsigned pmc, uint64_t evntsel)
{
	t->membership = VPMU_TXN_ADD_COUNTER;
	t->member_pmc = (uint8_t)pmc;
	t->retarget_sel = evntsel;
}
static inline void vpmu_txn_drop_counter(struct vpmu_txn *t, unsigned pmc)
{
	t->membership = VPMU_TXN_DROP_COUNTER;
	t->member_pmc = (uint8_t)pmc;
}

static inline void vpmu_txn_violate(struct vpmu_txn *t, unsigned rule)
{
	t->violations |= 1u << rule;
}
/* The same for a mask of rule ids (a model's rule checker's result). */
static inline void vpmu_txn_violate_mask(struct vpmu_txn *t, uint32_t rules)
{
	t->violations |= rules;
}
/* What counter pmc reads now (a counter loaded in this transaction: its new value). */
uint64_t vpmu_txn_ctr(const struct vpmu_txn *t, unsigned pmc);

/*
 * Guest memory in call ops (a PMU that shares memory with its guest: the SBI
 * PMU's snapshot page; vpmu_vm_set_guest_memory).  A read happens now; a write
 * is staged and happens once the call commits (strict mode may still refuse
 * it), one write of at most VPMU_TXN_MEM_MAX bytes per call.  Both return 0, or
 * a negative errno: -ENODEV (the VMM gave no accessors), -E2BIG (past
 * VPMU_TXN_MEM_MAX, or a second write), the accessor's (-EFAULT: not RAM).
 */
#define VPMU_TXN_MEM_MAX 520     /* the SBI PMU snapshot: overflow mask + 64 values */
struct vpmu_txn_mem {
	uint64_t gpa;
	uint32_t len;        /* 0: nothing staged */
	uint8_t buf[VPMU_TXN_MEM_MAX];
};
bool vpmu_txn_has_guest_memory(const struct vpmu_txn *t);
int vpmu_txn_guest_read(const struct vpmu_txn *t, uint64_t gpa, void *buf, size_t len);
int vpmu_txn_guest_write(struct vpmu_txn *t, uint64_t gpa, const void *buf, size_t len);
/* Write now, not staged: for a call that changes no register and breaks no
 * rule, whose commit therefore cannot refuse it (SBI event_get_info). */
int vpmu_txn_guest_write_now(const struct vpmu_txn *t, uint64_t gpa, const void *buf,
			     size_t len);
/* The op's SBI error reports part of the request only (KVM RISC-V's start
 * and stop: the other counters of the set are started or stopped, and the
 * error says some already were): what it staged commits. */
static inline void vpmu_txn_commit_on_error(struct vpmu_txn *t) { t->commit_on_error = true; }

/*
 * One event encoding of a model: (key & match) == code selects it, where key is
 * what the model's event_key op makes of a counter's control image (the image
 * itself by default), and only on the counters in ctr_mask (0: every counter).
 */
struct vpmu_event_table;

struct vpmu_event_desc {
	uint64_t code;       /* 64 bits: AMD's event select 11:8 sits in bits 35:32 */
	uint64_t match;
	int8_t generic;      /* enum vpmu_event, or VPMU_EV_NONE */
	uint64_t ctr_mask;   /* counters that have this encoding; 0: all */
	const char *name;    /* the manual's name */
};

/* A perfctr rule of a model, reported by id (bit number in a violation mask). */
struct vpmu_rule {
	const char *name;    /* short, stable: used in accounting output and traces */
	const char *text;    /* what perfctr requires, and where it says so */
	uint8_t core_check;  /* 0: the model checks it; else VPMU_RULE_CHECK_* */
};
/* perfctr's check_ireset, which the core checks for the model: a counter that
 * becomes i-mode must start negative (x86), or non-negative (PowerPC:
 * VPMU_CAP_OVF_ON_MSB).  Only when it becomes i-mode: its start is no register,
 * so a restore cannot carry it, and re-checking it at later writes would count
 * one start again and again. */
#define VPMU_RULE_CHECK_IRESET 1

/* The CPU a model presents (docs/design.md "Identity"): CPUID leaves 0, 1,
 * 0x80000000 and 0x80000001 are built from it. */
struct vpmu_identity {
	const char *vendor;          /* CPUID vendor string */
	unsigned family, cpumodel, stepping;   /* defaults */
	uint32_t cpuid1_edx;         /* CPUID.1:EDX feature bits */
	uint32_t cpuid1_ecx;         /* CPUID.1:ECX */
	uint32_t ext1_edx;           /* CPUID.80000001h:EDX; with ext1_ecx 0: no extended leaves */
	uint32_t ext1_ecx;
};

/*
 * The per-VM PMU (contract v3; docs/design.md "The per-VM PMU"): what one VM's
 * CPU has, made at VM creation as KVM's kvm_pmu_ops.refresh makes a vCPU's PMU
 * from its CPUID and libpfm4's pmu_init per use.  The core first fills it
 * from the descriptor (every counter general-purpose at ctr_width, every
 * register, the event table, the CPUID leaves of the identity); the model's
 * refresh op then applies the VM's options.  The core and the backends read
 * every size from here, never from the descriptor.
 */
struct vpmu_pmu {
	const struct vpmu_model *model;
	unsigned version;            /* architectural perfmon version (0: none) */
	unsigned nr_ctrs;            /* guest counters 0..nr_ctrs-1 */
	unsigned nr_general;         /* general-purpose counters: 0..nr_general-1 */
	unsigned nr_fixed;           /* fixed counters: fixed_base..fixed_base+nr_fixed-1 */
	unsigned fixed_base;
	uint8_t width[VPMU_MAX_CTRS];        /* each counter's width in bits */
	uint64_t width_mask[VPMU_MAX_CTRS];  /* the same as a mask (vpmu_pmu_set_width) */
	/* The registers this CPU has, sorted by address (a subset of the
	 * descriptor's: a VM with 4 of 8 general counters lacks the others). */
	unsigned nr_regs;
	struct vpmu_reg regs[VPMU_MAX_REGS];
	/* Reset values of the MISC registers (the descriptor's misc_reset). */
	uint64_t misc_reset[VPMU_MAX_MISC];
	/* The generic-event rows (the model's table's), and the event table of
	 * this identity (vpmu_event_table_of; the model's when none matches). */
	const struct vpmu_event_desc *events;
	unsigned nr_events;
	const struct vpmu_event_table *table;
	uint64_t event_exclude;
	/* The model's own per-VM values, which refresh computes and the ops read
	 * (reserved-bit masks of this geometry, ...), as KVM keeps its
	 * global_ctrl_rsvd in struct kvm_pmu. */
	uint64_t model_data[8];
	/* The CPUID leaves the VM presents (x86), function order. */
	unsigned nr_cpuid;
	struct vpmu_cpuid_leaf cpuid[VPMU_MAX_CPUID_LEAVES];
};

static inline uint64_t vpmu_width_mask(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}
/* Counters first..first+n-1 are `width` bits wide. */
static inline void vpmu_pmu_set_width(struct vpmu_pmu *p, unsigned first, unsigned n,
				      unsigned width)
{
	for (unsigned i = first; i < first + n && i < VPMU_MAX_CTRS; i++) {
		p->width[i] = (uint8_t)width;
		p->width_mask[i] = vpmu_width_mask(width);
	}
}
/* Keep only the registers for which keep(reg) is true. */
static inline void vpmu_pmu_filter_regs(struct vpmu_pmu *p,
					bool (*keep)(const struct vpmu_pmu *p,
						     const struct vpmu_reg *r))
{
	unsigned n = 0;
	for (unsigned i = 0; i < p->nr_regs; i++)
		if (keep(p, &p->regs[i]))
			p->regs[n++] = p->regs[i];
	p->nr_regs = n;
}
/* The CPUID leaf (function, index), added at its place if it is not there
 * yet (NULL when the list is full: a model bug the contract tests show). */
struct vpmu_cpuid_leaf *vpmu_pmu_cpuid(struct vpmu_pmu *p, uint32_t function, uint32_t index);

/* Capabilities (struct vpmu_model.caps). */
#define VPMU_CAP_PCINT      0x1u  /* overflow interrupts (perfctr PCINT): i-mode counters */
#define VPMU_CAP_HT         0x2u  /* hyper-threading: a VM may pair vCPUs as siblings */
#define VPMU_CAP_OVF_ON_MSB 0x4u  /* overflow is the MSB becoming 1 (PPC), not a wrap */
#define VPMU_CAP_NO_RDPMC   0x8u  /* x86 without RDPMC (plain P5): every RDPMC faults */
/* The control's global[] gates counting in the host images (architectural
 * perfmon's GLOBAL_CTRL): a change of the globals alone is written in place,
 * without perfctr's suspend and resume, as KVM reprograms only the counters
 * whose GLOBAL_CTRL bit changed. */
#define VPMU_CAP_GLOBAL_GATE 0x10u

struct vpmu_model;

struct vpmu_model_ops {
	/*
	 * Required.  A guest (or, t->host, a host-initiated) write of `val` to `reg`:
	 * hardware #GP (VPMU_FAULT_RESERVED, _READ_ONLY, _NO_REG) or NONE, with the
	 * resulting register values staged in t (any register: write-1-to-clear
	 * status, hardware-set bits kept) and the perfctr per-register rules the
	 * value breaks (vpmu_txn_violate: strict step 1).
	 */
	enum vpmu_fault (*write)(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				 struct vpmu_txn *t, const struct vpmu_reg *reg, uint64_t val);
	/* For registers flagged VPMU_REGF_READ_HOOK: what a read returns. `raw` is
	 * the stored value (the counter's value for a counter). */
	enum vpmu_fault (*read)(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				const struct vpmu_regfile *r, const struct vpmu_reg *reg,
				uint64_t raw, uint64_t *val);
	/* Required.  The perfctr control the hardware runs from this register file:
	 * which counters count (nractrs, nrictrs), a-mode first, and each entry
	 * whole (vpmu_ctl_set(); ireset is the core's).  The core zeroes the counts
	 * and global[] first. */
	void (*derive)(const struct vpmu_model *m, const struct vpmu_ctx *cx,
		       const struct vpmu_regfile *r, struct vpmu_ctl *ctl);
	/* perfctr's rules over a derived control with at least one counter (strict
	 * step 2): a mask of broken rule ids. */
	uint32_t (*check_control)(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				  const struct vpmu_regfile *r, const struct vpmu_ctl *ctl);
	/* Host control images for a control, in perfctr's write_control order.
	 * NULL: each counter's evntsel into control slot pmc (P6, K7). */
	unsigned (*ctrl_images)(const struct vpmu_model *m, const struct vpmu_ctl *ctl,
				struct vpmu_ctrl_image *out);
	/* Required.  What counter pmc counts under control images ctrl: its event
	 * key (vpmu_model_event_of), privilege mask (VPMU_PRIV_*) and interrupt
	 * enable; false if it counts nothing. */
	bool (*decode_ctr)(const struct vpmu_model *m, const uint64_t *ctrl, unsigned pmc,
			   uint64_t *key, unsigned *priv, bool *interrupt);
	/* The event key of a derived control's counter from its entry alone (NULL:
	 * the evntsel itself).  */
	uint64_t (*ctl_key)(const struct vpmu_model *m, const struct vpmu_ctl_ctr *e);
	/* A counter of the control overflowed: set the architectural status (an
	 * OVF bit, a global status register, an interrupt enable the hardware
	 * clears) and say whether a PMI is due.  NULL: no status, a PMI is due.
	 * Registers only: counter loads (vpmu_txn_set_ctr) are ignored here. */
	bool (*overflow)(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			 struct vpmu_txn *t, unsigned pmc);
	/* PMUs reached by calls (the RISC-V SBI PMU extension): function `fid` with
	 * its arguments; returns the SBI error code (0 or negative) and *value. */
	long (*call)(const struct vpmu_model *m, const struct vpmu_ctx *cx, struct vpmu_txn *t,
		     unsigned long fid, const uint64_t *args, uint64_t *value);
	/* Firmware events (vpmu_vcpu_fw_event): the counters that count n more
	 * events of firmware event `code` now (bit n = counter n); -1ull: the
	 * model has no such firmware event.  NULL: the model has no firmware
	 * counters. */
	uint64_t (*firmware_counters)(const struct vpmu_model *m, const struct vpmu_ctx *cx,
				      const struct vpmu_regfile *r, unsigned code);
	/* A PMI that is a level (the P4): whether the line is asserted for the
	 * thread now, from the status registers.  NULL: PMIs are edges, and one the
	 * LVTPC mask blocks is lost. */
	bool (*pmi_asserted)(const struct vpmu_model *m, const struct vpmu_ctx *cx,
			     const struct vpmu_regfile *r);
	/* Whether PMI delivery masks the PMI's local vector on this identity (x86:
	 * the LVTPC mask bit; NULL: never). */
	bool (*pmi_automask)(const struct vpmu_model *m, const struct vpmu_vm_opts *o);
	/*
	 * The per-VM PMU (struct vpmu_pmu): called once at VM creation with the
	 * PMU the core filled from the descriptor, to apply the VM's options
	 * (o->pmu_version, nr_general, nr_fixed: -1 for the CPU's own): counter
	 * classes and widths, the registers that exist, the event table of this
	 * identity, CPUID leaves.  -EINVAL refuses the VM (a geometry wider than
	 * the CPU).  NULL: the descriptor's geometry, and any narrowing refused.
	 */
	int (*refresh)(const struct vpmu_model *m, const struct vpmu_vm_opts *o,
		       struct vpmu_pmu *pmu);
	/*
	 * RDPMC (x86): which counter ECX = ecx reads and at how many bits, or the
	 * fault (#GP) the CPU raises.  NULL: ECX is the counter's number, any
	 * counter the VM has (none with VPMU_CAP_NO_RDPMC), at its width; the
	 * descriptor's rdpmc_fast bit asks for the low 32 bits (the P4).
	 */
	enum vpmu_fault (*rdpmc)(const struct vpmu_model *m, const struct vpmu_pmu *pmu,
				 uint32_t ecx, unsigned *pmc, unsigned *width);
};

/*
 * The model descriptor.  Every model file exports exactly one const instance,
 * listed in models/models.c.
 */
struct vpmu_model {
	const char *name;           /* the model's name in traces (docs/trace.md) */
	const char *description;
	struct vpmu_identity id;
	const char *brand;          /* the brand string (CPUID 80000002h-80000004h), or NULL */
	enum vpmu_regspace regspace; /* the ISA's register space (MSR: x86, SPR: PPC) */
	unsigned caps;              /* VPMU_CAP_* */
	/* The default geometry (struct vpmu_pmu): nr_ctrs general-purpose
	 * counters of ctr_width bits; a refresh op may change it per VM. */
	unsigned nr_ctrs;           /* counters the guest sees (pmc 0..nr_ctrs-1) */
	unsigned ctr_width;         /* bits */
	unsigned nr_ctrl_slots;
	unsigned nr_globals;        /* entries of vpmu_ctl.global[] derive fills (P4: 2, PPC: 3) */
	/* VPMU_CAP_GLOBAL_GATE: the host image slot of each global. */
	const uint8_t *global_slot;
	/* The RDPMC ECX bit that reads a counter's low 32 bits (the P4's fast
	 * read, 0x80000000); 0: none, the index is the counter alone. */
	uint32_t rdpmc_fast;
	const struct vpmu_reg *regs; /* sorted by address */
	unsigned nr_regs;
	const uint64_t *misc_reset; /* VPMU_MAX_MISC reset values by MISC index (NULL: all 0) */
	const struct vpmu_rule *rules;
	unsigned nr_rules;
	/* The model's event table (vpmu/events.h, generated from data/perfmon): its
	 * generic-event rows are every VM's; its catalogue is the VM's unless the
	 * VM's identity selects another table of the same pmu. */
	const struct vpmu_event_table *table;
	/* Image bits whose presence makes any event count something with no generic
	 * equivalent (threshold, invert, edge detect). */
	uint64_t event_exclude;
	/* Control slot that holds counter pmc's enable (i-mode suspend stops it
	 * there); NULL: slot pmc. */
	const uint8_t *ctr_ctrl_slot;
	/* With ctrl_images: where each counter's event selector (its evntsel)
	 * sits in the image of its ctr_ctrl_slot, as a mask and a shift.  A
	 * running vCPU's write that retargets one counter then rewrites that
	 * image alone, from the one the host holds (PowerPC's MMCR0 or MMCR1).
	 * NULL: every image is built again. */
	const uint32_t *ctr_sel_mask;
	const uint8_t *ctr_sel_shift;
	const void *priv;           /* the model's own data (a P5-family variant, ...) */
	const struct vpmu_model_ops *ops;
};

/* The generic event of an event key on counter pmc (VPMU_EV_NONE if none): the
 * one table-driven matcher of every model, over the VM's event table. */
int vpmu_pmu_event_of(const struct vpmu_pmu *pmu, unsigned pmc, uint64_t key);

#endif
