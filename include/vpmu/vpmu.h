/* SPDX-License-Identifier: MIT */
/*
 * libvpmu public API: a virtual PMU for a VMM.
 *
 * Object model:
 *   vpmu_host  - the host: a backend (sim, perf_event, ...) and the per-host-CPU
 *                control cache of perfctr (seed 000, "Caching"). One per VMM process.
 *   vpmu_vm    - a guest presenting one CPU model; options such as strict mode.
 *   vpmu_vcpu  - the guest-visible PMU register file of one vCPU and the perfctr
 *                control/state derived from it.
 *
 * Every function that can fail returns 0 or a negative errno and leaves all state
 * unchanged on failure.  A guest register access that the real CPU (or strict mode)
 * refuses is not a library error: it returns 0 and sets *fault to a non-zero
 * enum vpmu_fault, which the VMM injects (#GP on x86, a program exception on PPC).
 *
 * Threading: a vCPU is used from one thread at a time (the vCPU thread); a host's
 * per-CPU cache entry is used only by the vCPU switched in on that host CPU.  The
 * library takes no locks: the VMM serialises VM/vCPU creation and destruction.
 */
#ifndef VPMU_VPMU_H
#define VPMU_VPMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VPMU_MAX_CTRS 18      /* perfctr's x86 pmc[] size; PPC uses 8 */
#define VPMU_MAX_HOST_CPUS 256
#define VPMU_MAX_VCPUS 64
#define VPMU_MAX_RULES 32     /* per-model rule ids (bit numbers of a violation mask) */

struct vpmu_host;
struct vpmu_vm;
struct vpmu_vcpu;
struct vpmu_backend;

/* Register spaces a model may own; the core is ISA-neutral and only routes. */
enum vpmu_regspace {
	VPMU_SPACE_MSR = 0,   /* x86 RDMSR/WRMSR */
	VPMU_SPACE_SPR = 1,   /* PowerPC mfspr/mtspr */
};

/* Why a guest access is refused.  Anything but NONE means: inject the fault. */
enum vpmu_fault {
	VPMU_FAULT_NONE = 0,
	VPMU_FAULT_NO_REG,      /* the model has no such register (hardware #GP) */
	VPMU_FAULT_RESERVED,    /* hardware-reserved bits set (hardware #GP) */
	VPMU_FAULT_READ_ONLY,   /* write to a register the hardware does not let change */
	VPMU_FAULT_STRICT,      /* strict mode: the write breaks a perfctr rule */
};

/* The generic event vocabulary (ARCHITECTURE.md decision 5, trace-format "tick"). */
enum vpmu_event {
	VPMU_EV_CYCLES = 0,
	VPMU_EV_INSTRUCTIONS,
	VPMU_EV_REF_CYCLES,
	VPMU_EV_BUS_CYCLES,
	VPMU_EV_BRANCHES,
	VPMU_EV_BRANCH_MISSES,
	VPMU_EV_CACHE_REFERENCES,
	VPMU_EV_CACHE_MISSES,
	VPMU_EV_NR,
	VPMU_EV_NONE = -1,      /* a model encoding with no generic equivalent: counts zero */
};

/* Privilege at which a host event occurred. */
enum vpmu_mode {
	VPMU_MODE_USER = 0,     /* x86 CPL 3, PPC problem state */
	VPMU_MODE_KERNEL = 1,   /* x86 CPL 0, PPC supervisor */
};
#define VPMU_PRIV_USER   (1u << VPMU_MODE_USER)
#define VPMU_PRIV_KERNEL (1u << VPMU_MODE_KERNEL)

/* VM creation. */
#define VPMU_VM_STRICT 0x1u    /* refuse writes that break perfctr's rules (decision 2) */

struct vpmu_vm_config {
	const char *model;     /* a name from vpmu_model_name(); required */
	unsigned flags;        /* VPMU_VM_* */
	int cpumodel;          /* CPUID model to present; -1: the model's default */
	int stepping;          /* CPUID stepping; -1: the model's default */
	int ht;                /* hyper-threading (P4 only); 0 otherwise */
};
#define VPMU_VM_CONFIG_INIT { NULL, 0, -1, -1, 0 }

/* Accounting (per vCPU; per VM it is the sum over its vCPUs). */
struct vpmu_totals {
	uint64_t pmc[VPMU_MAX_CTRS];   /* events each guest counter counted (monotonic,
	                                  unaffected by guest writes to the counter) */
	uint64_t events[VPMU_EV_NR];   /* of which, per generic event */
	uint64_t pmis;                 /* PMIs raised */
	uint64_t reads, writes;        /* guest register accesses handled */
	uint64_t faults;               /* of which refused by the hardware rules */
	uint64_t strict_refusals;      /* of which refused by strict mode */
	uint64_t switch_ins, cache_hits;
	uint64_t violations[VPMU_MAX_RULES]; /* writes that broke rule i (default mode) */
};

/* ---- models ---- */
unsigned vpmu_model_count(void);
const char *vpmu_model_name(unsigned index);          /* NULL past the end */
const char *vpmu_model_description(const char *name); /* NULL if unknown */

struct vpmu_model_info {
	const char *name, *description, *vendor;
	enum vpmu_regspace regspace;
	unsigned family, cpumodel, stepping;   /* CPUID identity presented by default */
	unsigned nr_ctrs, ctr_width;
	bool overflow_interrupts;              /* perfctr PCINT: PMIs through the LVTPC */
	bool lvtpc_automask;                   /* PMI delivery sets the LVTPC mask, for the
	                                          default identity (vpmu_vm_lvtpc_automask) */
	unsigned nr_regs, nr_events, nr_rules;
};
int vpmu_model_info(const char *name, struct vpmu_model_info *out);   /* -ENOENT */
/* Entry i of a model's register list / event table / rule list; -ENOENT past the end. */
int vpmu_model_reg(const char *name, unsigned i, uint32_t *addr, const char **kind);
int vpmu_model_event(const char *name, unsigned i, uint32_t *code, uint32_t *match,
		     const char **event_name, int *generic);
int vpmu_model_rule(const char *name, unsigned i, const char **rule_name, const char **text);

/* ---- host ---- */
int vpmu_host_create(const struct vpmu_backend *backend, unsigned nr_cpus,
		     struct vpmu_host **out);
void vpmu_host_destroy(struct vpmu_host *host);
/* Called by a backend when host counters overflowed on host CPU `cpu`
 * (`pmc_mask`: host/guest counter numbers).  Raises at most one PMI. */
void vpmu_host_overflow(struct vpmu_host *host, unsigned cpu, uint64_t pmc_mask);

/* ---- VM and vCPU ---- */
int vpmu_vm_create(struct vpmu_host *host, const struct vpmu_vm_config *cfg,
		   struct vpmu_vm **out);
void vpmu_vm_destroy(struct vpmu_vm *vm);          /* destroys its vCPUs too */
const char *vpmu_vm_model(const struct vpmu_vm *vm);
/* The CPU the VM presents: the model's vendor string and the CPUID family, model
 * and stepping (the model's defaults, or what the config chose). */
void vpmu_vm_identity(const struct vpmu_vm *vm, const char **vendor, unsigned *family,
		      unsigned *cpumodel, unsigned *stepping);
/* Whether the CPU the VM presents sets the LVTPC mask bit when it delivers a PMI:
 * the P4 and the Pentium M and later do, the Pentium Pro/II/III and AMD do not
 * (facts 1e); the VMM must emulate it (kvm-facts.md). */
bool vpmu_vm_lvtpc_automask(const struct vpmu_vm *vm);
int vpmu_vm_totals(const struct vpmu_vm *vm, struct vpmu_totals *out);
/* Name and description of rule `rule` of the VM's model; NULL if none. */
const char *vpmu_vm_rule_name(const struct vpmu_vm *vm, unsigned rule);

int vpmu_vcpu_create(struct vpmu_vm *vm, unsigned index, struct vpmu_vcpu **out);
struct vpmu_vcpu *vpmu_vcpu_get(struct vpmu_vm *vm, unsigned index); /* NULL if none */
struct vpmu_vm *vpmu_vcpu_vm(const struct vpmu_vcpu *vcpu);
unsigned vpmu_vcpu_index(const struct vpmu_vcpu *vcpu);

/* Guest register access.  Return 0 (with *fault set) or -EINVAL for a bad argument. */
int vpmu_reg_write(struct vpmu_vcpu *vcpu, enum vpmu_regspace space, uint32_t reg,
		   uint64_t value, enum vpmu_fault *fault);
int vpmu_reg_read(struct vpmu_vcpu *vcpu, enum vpmu_regspace space, uint32_t reg,
		  uint64_t *value, enum vpmu_fault *fault);
/* Whether the VM's model owns `reg` (for an MSR filter); the list for building one. */
bool vpmu_vm_owns_reg(const struct vpmu_vm *vm, enum vpmu_regspace space, uint32_t reg);
unsigned vpmu_vm_regs(const struct vpmu_vm *vm, enum vpmu_regspace space,
		      uint32_t *regs, unsigned max);

/* Scheduling: switch in on a host CPU before the guest runs, out after.
 * -EBUSY: already in (switch_in) / -EINVAL: not in (switch_out). */
int vpmu_vcpu_switch_in(struct vpmu_vcpu *vcpu, unsigned host_cpu);
int vpmu_vcpu_switch_out(struct vpmu_vcpu *vcpu);
bool vpmu_vcpu_running(const struct vpmu_vcpu *vcpu, unsigned *host_cpu);

/* PMIs: pending state with the overflow mask (bit n = guest counter n). */
bool vpmu_vcpu_pmi_pending(const struct vpmu_vcpu *vcpu, uint64_t *ovf_mask);
uint64_t vpmu_vcpu_pmi_ack(struct vpmu_vcpu *vcpu);   /* returns and clears the mask */

int vpmu_vcpu_totals(const struct vpmu_vcpu *vcpu, struct vpmu_totals *out);
/* The content id of the vCPU's current control (perfctr k1.id, 64-bit here). */
uint64_t vpmu_vcpu_control_id(const struct vpmu_vcpu *vcpu);

const char *vpmu_event_name(enum vpmu_event ev);
int vpmu_event_from_name(const char *name); /* -1 if unknown */
const char *vpmu_fault_name(enum vpmu_fault f);

#ifdef __cplusplus
}
#endif
#endif
