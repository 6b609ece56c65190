/* SPDX-License-Identifier: MIT */
/*
 * libvpmu public API: a virtual PMU for a VMM.
 *
 * Object model:
 *   vpmu_host  - the host: a backend (sim, perf_event, ...) and the per-host-CPU
 *                control cache of perfctr (perfctr low-level-x86.txt,
 *                "Implementation Notes"). One per VMM process.
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
 * VMM serialises creation and destruction of hosts, VMs and vCPUs.  With
 * hyper-threading (vpmu_vm_config.ht), the two sibling vCPUs of a core share one
 * register file, and the library serialises their accesses to it with the core's
 * lock: vpmu_reg_*, vpmu_call, switch-in and the overflow path of either sibling
 * may run concurrently on the two vCPU threads.  A write that changes what the
 * sibling counts takes effect for the sibling at its next switch-in or access.
 *
 * Teardown order: every vCPU switched out, then vpmu_vm_destroy() (which frees
 * the VM's vCPUs: their handles are dead after it), then vpmu_host_destroy()
 * once no VM is left on it (-EBUSY before).  Destroying a VM twice is refused
 * (-EINVAL), as is any handle the library did not create or has already freed.
 */
#ifndef VPMU_VPMU_H
#define VPMU_VPMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vpmu/version.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The library is built with -fvisibility=hidden: what is declared here is its ABI. */
#pragma GCC visibility push(default)

/* Guest counters of one vCPU: room for every PMU the contract carries (Intel
 * architectural perfmon: up to 8 general + 4 fixed; the RISC-V SBI PMU: 32
 * hardware counters plus the firmware counters of SBI v2.0), so that counter
 * masks are one 64-bit word. */
#define VPMU_MAX_CTRS 64
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
	VPMU_SPACE_CSR = 2,   /* RISC-V csrr (the counter CSRs a hypervisor traps) */
	/* Hardware state no guest instruction reaches (the P4 counters a cascade
	 * started), at pseudo-addresses from VPMU_STATE_BASE: host-initiated
	 * accesses only (vpmu_reg_get/set, listed by vpmu_vm_regs), so that a
	 * save/restore carries it; a guest access is never one. */
	VPMU_SPACE_STATE = 3,
};
#define VPMU_STATE_BASE 0xFFFFFF00u

/* Why a guest access is refused.  Anything but NONE means: inject the fault. */
enum vpmu_fault {
	VPMU_FAULT_NONE = 0,
	VPMU_FAULT_NO_REG,      /* the model has no such register (hardware #GP) */
	VPMU_FAULT_RESERVED,    /* hardware-reserved bits set (hardware #GP) */
	VPMU_FAULT_READ_ONLY,   /* write to a register the hardware does not let change */
	VPMU_FAULT_STRICT,      /* strict mode: the write breaks a perfctr rule */
};

/* The generic event vocabulary (docs/principles.md §5; docs/trace.md "tick"). */
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
#define VPMU_VM_STRICT 0x1u    /* refuse writes that break perfctr's rules (docs/principles.md §2) */

struct vpmu_vm_config {
	const char *model;     /* a name from vpmu_model_name(); required */
	unsigned flags;        /* VPMU_VM_* */
	int cpumodel;          /* CPUID model to present; -1: the model's default */
	int stepping;          /* CPUID stepping; -1: the model's default */
	int ht;                /* hyper-threading: only on models that had it (-EINVAL else) */
	/* The PMU's geometry, narrowed as user space may narrow KVM's CPUID leaf
	 * 0AH: the architectural perfmon version and the general-purpose and fixed
	 * counter counts (-1: the CPU's own).  A request wider than the CPU the
	 * model presents, or a narrowing the model's CPUs could not be configured
	 * with (a legacy PMU has one geometry), is refused with -EINVAL;
	 * vpmu_model_info() tells the limits. */
	int pmu_version;
	int nr_general;
	int nr_fixed;
};
#define VPMU_VM_CONFIG_INIT { NULL, 0, -1, -1, 0, -1, -1, -1 }

/* Accounting (per vCPU; per VM it is the sum over its vCPUs). */
struct vpmu_totals {
	uint64_t pmc[VPMU_MAX_CTRS];   /* events each guest counter counted (monotonic,
	                                  unaffected by guest writes to the counter) */
	uint64_t events[VPMU_EV_NR];   /* of which, per generic event */
	uint64_t pmis;                 /* PMIs raised (overflows the model made a PMI of) */
	uint64_t reads, writes;        /* guest register accesses handled */
	uint64_t calls;                /* guest PMU calls handled (vpmu_call) */
	uint64_t faults;               /* of which refused by the hardware rules */
	uint64_t strict_refusals;      /* of which refused by strict mode */
	uint64_t switch_ins, cache_hits;
	uint64_t filtered;             /* counter programmings the event filter stopped */
	uint64_t violations[VPMU_MAX_RULES]; /* guest writes that broke rule i: stored anyway
	                                        (default mode) or refused (strict mode) */
};

/*
 * The scalar counts of struct vpmu_totals, one line each: the one list that
 * the sums (vpmu_totals_add) and every accounting format (tools/accounting/,
 * docs/accounting.md) iterate, so that a new count is a field above and a line
 * here.  pmc[], events[] and violations[] are arrays of their own, summed
 * element by element.  The lines are in the order in which the domstats, JSON
 * and Prometheus formats write the counts.  An empty string is "none".
 *   X(field, part, key, json_obj, json_key, text_key, text_pos,
 *     prom_name, prom_label, prom_value, prom_help)
 *   part        what the count is about: the formats write the KVM glue's PMI
 *               counts after the VPMU_TOTALS_PART_PMIS ones, and the rule
 *               violations after the VPMU_TOTALS_PART_ACCESSES ones
 *   key         domstats: vpmu.<key> and vpmu.vcpu.<i>.<key>
 *   json_obj    JSON: the object of TOTALS holding it ("" TOTALS itself), and
 *   json_key    its name there
 *   text_key    the text format: its name ("" not written), and
 *   text_pos    its place on the line (the struct's order; a count the text
 *               format does not write goes after the others)
 *   prom_name   Prometheus: its family, the family's own label and this
 *   prom_label  count's value of it ("" a family of one count), and the
 *   prom_value  family's # HELP
 *   prom_help
 */
enum vpmu_totals_part {
	VPMU_TOTALS_PART_PMIS,
	VPMU_TOTALS_PART_ACCESSES,
	VPMU_TOTALS_PART_SWITCHES,
	VPMU_TOTALS_NR_PARTS
};
#define VPMU_TOTALS_COUNTS(X) \
	X(pmis, VPMU_TOTALS_PART_PMIS, "pmis", "pmis", "raised", "pmis", 0, \
	  "vpmu_pmis_raised_total", "", "", \
	  "PMIs raised (counter overflows the model made a PMI of).") \
	X(reads, VPMU_TOTALS_PART_ACCESSES, "reads", "accesses", "reads", "reads", 1, \
	  "vpmu_register_accesses_total", "access", "read", \
	  "Guest PMU register reads and writes, and PMU calls, handled.") \
	X(writes, VPMU_TOTALS_PART_ACCESSES, "writes", "accesses", "writes", "writes", 2, \
	  "vpmu_register_accesses_total", "access", "write", \
	  "Guest PMU register reads and writes, and PMU calls, handled.") \
	X(calls, VPMU_TOTALS_PART_ACCESSES, "calls", "accesses", "calls", "", 7, \
	  "vpmu_register_accesses_total", "access", "call", \
	  "Guest PMU register reads and writes, and PMU calls, handled.") \
	X(faults, VPMU_TOTALS_PART_ACCESSES, "faults", "", "faults", "faults", 3, \
	  "vpmu_faults_total", "", "", \
	  "Guest accesses refused by the hardware rules (a fault in the guest).") \
	X(strict_refusals, VPMU_TOTALS_PART_ACCESSES, "strict_refusals", "", "strict_refusals", \
	  "strict-refusals", 4, \
	  "vpmu_strict_refusals_total", "", "", \
	  "Guest accesses refused by strict mode.") \
	X(filtered, VPMU_TOTALS_PART_ACCESSES, "filtered", "", "filtered", "", 8, \
	  "vpmu_filtered_programmings_total", "", "", \
	  "Guest counter programmings the VM's event filter stopped (the counter counts nothing).") \
	X(cache_hits, VPMU_TOTALS_PART_SWITCHES, "cache_hits", "", "cache_hits", "cache-hits", 6, \
	  "vpmu_cache_hits_total", "", "", \
	  "Switch-ins that found perfctr's per-CPU cache still holding the vCPU's control.") \
	X(switch_ins, VPMU_TOTALS_PART_SWITCHES, "switch_ins", "", "switch_ins", "switch-ins", 5, \
	  "vpmu_switch_ins_total", "", "", \
	  "Times the virtual PMU was switched in on a host CPU.")

/* VPMU_TOTALS_<field>: a count's place in the list; VPMU_TOTALS_NR of them. */
enum vpmu_totals_count {
#define VPMU_TOTALS_ENUM_(f, ...) VPMU_TOTALS_##f,
	VPMU_TOTALS_COUNTS(VPMU_TOTALS_ENUM_)
#undef VPMU_TOTALS_ENUM_
	VPMU_TOTALS_NR
};

/* Count k's name (enum vpmu_totals_count: "pmis", "reads", "strict_refusals",
 * ...; the key of VPMU_TOTALS_COUNTS), NULL past the list. */
const char *vpmu_totals_count_name(unsigned k);
/* Count k (enum vpmu_totals_count) of t; 0 past the list. */
static inline uint64_t vpmu_totals_count(const struct vpmu_totals *t, unsigned k)
{
	switch (k) {
#define VPMU_TOTALS_CASE_(f, ...) case VPMU_TOTALS_##f: return t->f;
	VPMU_TOTALS_COUNTS(VPMU_TOTALS_CASE_)
#undef VPMU_TOTALS_CASE_
	}
	return 0;
}

/* sum += t, field by field. */
static inline void vpmu_totals_add(struct vpmu_totals *sum, const struct vpmu_totals *t)
{
	for (unsigned i = 0; i < VPMU_MAX_CTRS; i++)
		sum->pmc[i] += t->pmc[i];
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		sum->events[e] += t->events[e];
#define VPMU_TOTALS_ADD_(f, ...) sum->f += t->f;
	VPMU_TOTALS_COUNTS(VPMU_TOTALS_ADD_)
#undef VPMU_TOTALS_ADD_
	for (unsigned r = 0; r < VPMU_MAX_RULES; r++)
		sum->violations[r] += t->violations[r];
}

/* ---- models ---- */
unsigned vpmu_model_count(void);
const char *vpmu_model_name(unsigned index);          /* NULL past the end */
const char *vpmu_model_description(const char *name); /* NULL if unknown */

struct vpmu_model_info {
	const char *name, *description, *vendor;
	enum vpmu_regspace regspace;
	unsigned family, cpumodel, stepping;   /* CPUID identity presented by default */
	unsigned nr_ctrs, ctr_width;           /* every counter; the general ones' width */
	unsigned pmu_version;                  /* architectural perfmon version (0: none) */
	unsigned nr_general, nr_fixed;         /* the most a VM may present (vpmu_vm_config) */
	unsigned fixed_width;                  /* the fixed counters' width (0: none) */
	bool overflow_interrupts;              /* perfctr PCINT: counters that interrupt */
	bool pmi_automask;                     /* PMI delivery masks the PMI's local vector,
	                                          for the default identity (vpmu_vm_pmi_automask) */
	bool hyper_threading;                  /* vpmu_vm_config.ht is accepted */
	bool calls;                            /* reached by calls (vpmu_call), not registers */
	unsigned nr_regs, nr_events, nr_rules;
};
int vpmu_model_info(const char *name, struct vpmu_model_info *out);   /* -ENOENT */
/* Entry i of a model's register list / event table / rule list; -ENOENT past the end.
 * A register's kind is "control", "counter", "misc", or "state" (hidden state,
 * in VPMU_SPACE_STATE; the others are in the model's regspace). */
int vpmu_model_reg(const char *name, unsigned i, uint32_t *addr, const char **kind);
int vpmu_model_event(const char *name, unsigned i, uint64_t *code, uint64_t *match,
		     const char **event_name, int *generic);
int vpmu_model_rule(const char *name, unsigned i, const char **rule_name, const char **text);
/* Every register that any model owns in `space`, sorted and unique (how many; the
 * first `max` in regs): what a VMM traps so that a guest probing another CPU's
 * PMU registers faults exactly as on the CPU it sees. */
unsigned vpmu_pmu_regs(enum vpmu_regspace space, uint32_t *regs, unsigned max);
/* What a VMM traps for one VM: vpmu_pmu_regs() and the registers the VM's model
 * owns that other CPUs have outside their PMU (IA32_DEBUGCTL on architectural
 * perfmon, whose Freeze_PerfMon_On_PMI the model emulates; KVM answers it for
 * the other models), sorted and unique: how many; the first `max` in regs. */
unsigned vpmu_vm_trapped_regs(const struct vpmu_vm *vm, enum vpmu_regspace space, uint32_t *regs,
			      unsigned max);

/* ---- host ---- */
int vpmu_host_create(const struct vpmu_backend *backend, unsigned nr_cpus,
		     struct vpmu_host **out);
/* -EBUSY while a VM of the host is alive (nothing is freed); NULL is ignored. */
int vpmu_host_destroy(struct vpmu_host *host);
/* Called by a backend when host counters overflowed on host CPU `cpu`
 * (`pmc_mask`: host/guest counter numbers).  Raises at most one PMI. */
void vpmu_host_overflow(struct vpmu_host *host, unsigned cpu, uint64_t pmc_mask);

/* ---- VM and vCPU ---- */
int vpmu_vm_create(struct vpmu_host *host, const struct vpmu_vm_config *cfg,
		   struct vpmu_vm **out);
/* Destroys the VM and its vCPUs (switching out any still in); NULL is ignored,
 * a VM that is not alive is refused with -EINVAL. */
int vpmu_vm_destroy(struct vpmu_vm *vm);
const char *vpmu_vm_model(const struct vpmu_vm *vm);
/* The CPU the VM presents: the model's vendor string and the CPUID family, model
 * and stepping (the model's defaults, or what the config chose). */
void vpmu_vm_identity(const struct vpmu_vm *vm, const char **vendor, unsigned *family,
		      unsigned *cpumodel, unsigned *stepping);
/* Whether the CPU the VM presents masks its PMI's local vector when it delivers
 * one, so that software must unmask it for the next.  On x86 that is the LVTPC
 * mask bit: the P4 and the Pentium M and later set it, the Pentium Pro/II/III
 * and AMD do not (Intel SDM vol. 3, "Performance monitoring counter
 * interrupts"); KVM does not do it for an injected interrupt, so the VMM must
 * (docs/integration.md).  How a PMI is delivered is the glue's business (the
 * LVTPC on x86, the 0xF00 exception on PowerPC, LCOFI on RISC-V). */
bool vpmu_vm_pmi_automask(const struct vpmu_vm *vm);
/* The PMU a VM presents, as its model's refresh made it from the VM's options
 * (docs/design.md "The per-VM PMU"). */
struct vpmu_pmu_info {
	unsigned version;              /* architectural perfmon version (0: none) */
	unsigned nr_ctrs;              /* guest counters 0..nr_ctrs-1 */
	unsigned nr_general;           /* general-purpose: counters 0..nr_general-1 */
	unsigned general_width;
	unsigned nr_fixed;             /* fixed: counters fixed_base.. */
	unsigned fixed_base, fixed_width;
	unsigned nr_regs, nr_events;   /* the registers this CPU has, its event table */
	uint64_t ctr_regs;             /* bit n: counter n has a register (the VIA C3
	                                  has counter 1 alone, PERFCTR1) */
};
int vpmu_vm_pmu(const struct vpmu_vm *vm, struct vpmu_pmu_info *out);
/* One CPUID leaf (x86): function (EAX) and, where flags has
 * VPMU_CPUID_INDEXED, index (ECX), and the four registers it returns. */
#define VPMU_CPUID_INDEXED 0x1u
struct vpmu_cpuid_leaf {
	uint32_t function, index, flags;
	uint32_t eax, ebx, ecx, edx;
};
/* The CPUID leaves the VM presents, as one list (the identity's and the
 * PMU's: leaf 0AH for architectural perfmon, 80000022h for AMD PerfMonV2),
 * for vCPU 0: the glue puts each vCPU's initial APIC id into leaf 1 EBX.
 * Returns how many (the first `max` in out), or -EINVAL; -ENOSPC when max is
 * too small, with nothing written.  VPMU_MAX_CPUID_LEAVES always suffice. */
#define VPMU_MAX_CPUID_LEAVES 24
int vpmu_vm_cpuid(const struct vpmu_vm *vm, struct vpmu_cpuid_leaf *out, unsigned max);
/* The CPUID a VM presents: its model's identity with the VM's family, model and
 * stepping.  Leaves 0 and 1, and 0x80000000/0x80000001 when ext1_edx or
 * ext1_ecx is non-zero (docs/integration.md "CPUID"). */
struct vpmu_cpu_identity {
	const char *vendor;
	unsigned family, cpumodel, stepping;
	uint32_t cpuid1_edx, cpuid1_ecx;       /* CPUID.1 feature words */
	uint32_t ext1_edx, ext1_ecx;           /* CPUID.80000001h feature words */
	const char *brand;                     /* CPUID 80000002h-80000004h, or NULL: none */
};
int vpmu_vm_cpu(const struct vpmu_vm *vm, struct vpmu_cpu_identity *out);
int vpmu_vm_totals(const struct vpmu_vm *vm, struct vpmu_totals *out);
/* Name and description of rule `rule` of the VM's model; NULL if none. */
const char *vpmu_vm_rule_name(const struct vpmu_vm *vm, unsigned rule);

int vpmu_vcpu_create(struct vpmu_vm *vm, unsigned index, struct vpmu_vcpu **out);
struct vpmu_vcpu *vpmu_vcpu_get(struct vpmu_vm *vm, unsigned index); /* NULL if none */
struct vpmu_vm *vpmu_vcpu_vm(const struct vpmu_vcpu *vcpu);
unsigned vpmu_vcpu_index(const struct vpmu_vcpu *vcpu);

/* Guest register access.  Return 0 (with *fault set) or -EINVAL for a bad
 * argument.  A faulting read sets *value to 0. */
int vpmu_reg_write(struct vpmu_vcpu *vcpu, enum vpmu_regspace space, uint32_t reg,
		   uint64_t value, enum vpmu_fault *fault);
int vpmu_reg_read(struct vpmu_vcpu *vcpu, enum vpmu_regspace space, uint32_t reg,
		  uint64_t *value, enum vpmu_fault *fault);
/* Guest RDPMC with ECX = index (x86): the counter's value at its width, or a
 * fault (#GP) where the presented CPU has no such counter or no RDPMC.  Counted
 * as a read.  Returns 0 (with *fault set) or -EINVAL for a bad argument. */
int vpmu_rdpmc(struct vpmu_vcpu *vcpu, uint32_t index, uint64_t *value, enum vpmu_fault *fault);
/* What RDPMC with ECX = index would return now, without counting an access
 * (a VMM that keeps another copy of the counters in step: vmm-glue's stock-KVM
 * fallback).  0, -ENOENT where that RDPMC would fault, -EINVAL. */
int vpmu_rdpmc_get(struct vpmu_vcpu *vcpu, uint32_t index, uint64_t *value);
/* Host-initiated access, for save/restore (KVM's host_initiated MSR accesses):
 * get returns what the register holds (a counter: its full-width value) without
 * the guest's read semantics; set stores a value with no guest semantics (no sign
 * extension of counter writes, no write-1-to-clear) and no perfctr rule checked
 * or recorded.  -ENOENT: the model has no such register, or the CPU the VM
 * presents lacks it (P6's IA32_MISC_ENABLE before the Pentium M): a save loop
 * over vpmu_vm_regs() skips those on both sides; -EINVAL: a value the register
 * cannot hold (reserved bits), and nothing changed. */
int vpmu_reg_get(struct vpmu_vcpu *vcpu, enum vpmu_regspace space, uint32_t reg,
		 uint64_t *value);
int vpmu_reg_set(struct vpmu_vcpu *vcpu, enum vpmu_regspace space, uint32_t reg,
		 uint64_t value);

/* PMUs reached by calls rather than registers: the RISC-V SBI PMU extension
 * (EID 0x504D55, "PMUN"; RISC-V SBI specification, chapter "Performance
 * Monitoring Unit Extension").  The VMM passes the function id (a7's FID) and
 * a0-a5; out gets the SBI error (a0) and value (a1).  Returns 0, or -EINVAL for a
 * bad argument.  A model without calls answers VPMU_SBI_ERR_NOT_SUPPORTED; strict
 * mode refuses a call that breaks a rule with VPMU_SBI_ERR_DENIED.  A call that
 * fails changes nothing, except that ALREADY_STARTED and ALREADY_STOPPED report
 * part of a counter_start or counter_stop: the rest of its set is done, as KVM
 * RISC-V does (docs/models/riscv-sbi.md). */
#define VPMU_CALL_ARGS 6
#define VPMU_SBI_SUCCESS                 0
#define VPMU_SBI_ERR_FAILED             -1
#define VPMU_SBI_ERR_NOT_SUPPORTED      -2
#define VPMU_SBI_ERR_INVALID_PARAM      -3
#define VPMU_SBI_ERR_DENIED             -4
#define VPMU_SBI_ERR_INVALID_ADDRESS    -5
#define VPMU_SBI_ERR_ALREADY_AVAILABLE  -6
#define VPMU_SBI_ERR_ALREADY_STARTED    -7
#define VPMU_SBI_ERR_ALREADY_STOPPED    -8
#define VPMU_SBI_ERR_NO_SHMEM           -9
struct vpmu_call_result {
	long error;
	uint64_t value;
};
int vpmu_call(struct vpmu_vcpu *vcpu, unsigned long fid, const uint64_t args[VPMU_CALL_ARGS],
	      struct vpmu_call_result *out);
/*
 * Guest memory, for a PMU that shares memory with its guest: the SBI PMU's
 * snapshot page (SBI v2.0 "counter snapshot", set by snapshot_set_shmem), which
 * the library writes at counter_stop with TAKE_SNAPSHOT and reads at
 * counter_start with INIT_SNAPSHOT.  A guest under KVM never traps its reads of
 * scountovf, so this page is how it learns which counters overflowed.  The
 * accessors copy len bytes at guest physical address gpa and return 0, or a
 * negative errno (-EFAULT: not guest RAM), changing nothing then; they are
 * called on the vCPU's thread, inside vpmu_call.  Without them
 * snapshot_set_shmem answers VPMU_SBI_ERR_NOT_SUPPORTED (the call is optional).
 * NULL mem removes them.  -EINVAL: a read or write accessor missing.
 */
struct vpmu_guest_memory {
	int (*read)(void *opaque, uint64_t gpa, void *buf, size_t len);
	int (*write)(void *opaque, uint64_t gpa, const void *buf, size_t len);
	void *opaque;
};
int vpmu_vm_set_guest_memory(struct vpmu_vm *vm, const struct vpmu_guest_memory *mem);
/*
 * Firmware events (the SBI PMU's event type 15): what the SBI implementation
 * does for the supervisor, which no hardware counter sees.  Under KVM the VMM
 * is that implementation for the calls it answers and the traps it emulates,
 * and reports each here: n more events of firmware event `code` on this vCPU
 * (the SBI codes below; "sent" on the vCPU that asked, "received" on each
 * target).  Started firmware counters configured for the code count them.
 * -EINVAL: a code the model has no counter for; -ENOTSUP: the model has no
 * firmware counters.
 */
enum vpmu_sbi_fw_event {
	VPMU_SBI_FW_MISALIGNED_LOAD = 0,
	VPMU_SBI_FW_MISALIGNED_STORE = 1,
	VPMU_SBI_FW_ACCESS_LOAD = 2,
	VPMU_SBI_FW_ACCESS_STORE = 3,
	VPMU_SBI_FW_ILLEGAL_INSN = 4,
	VPMU_SBI_FW_SET_TIMER = 5,
	VPMU_SBI_FW_IPI_SENT = 6,
	VPMU_SBI_FW_IPI_RECEIVED = 7,
	VPMU_SBI_FW_FENCE_I_SENT = 8,
	VPMU_SBI_FW_FENCE_I_RECEIVED = 9,
	VPMU_SBI_FW_SFENCE_VMA_SENT = 10,
	VPMU_SBI_FW_SFENCE_VMA_RECEIVED = 11,
	VPMU_SBI_FW_SFENCE_VMA_ASID_SENT = 12,
	VPMU_SBI_FW_SFENCE_VMA_ASID_RECEIVED = 13,
	VPMU_SBI_FW_HFENCE_GVMA_SENT = 14,
	VPMU_SBI_FW_HFENCE_GVMA_RECEIVED = 15,
	VPMU_SBI_FW_HFENCE_GVMA_VMID_SENT = 16,
	VPMU_SBI_FW_HFENCE_GVMA_VMID_RECEIVED = 17,
	VPMU_SBI_FW_HFENCE_VVMA_SENT = 18,
	VPMU_SBI_FW_HFENCE_VVMA_RECEIVED = 19,
	VPMU_SBI_FW_HFENCE_VVMA_ASID_SENT = 20,
	VPMU_SBI_FW_HFENCE_VVMA_ASID_RECEIVED = 21,
	VPMU_SBI_FW_NR = 22,
};
int vpmu_vcpu_fw_event(struct vpmu_vcpu *vcpu, unsigned code, uint64_t n);
/* The SBI PMU extension's id and function ids (a7 and a6 of the ecall). */
#define VPMU_SBI_EXT_PMU 0x504D55
enum vpmu_sbi_pmu_fid {
	VPMU_SBI_PMU_NUM_COUNTERS = 0,
	VPMU_SBI_PMU_COUNTER_GET_INFO = 1,
	VPMU_SBI_PMU_COUNTER_CONFIG_MATCHING = 2,
	VPMU_SBI_PMU_COUNTER_START = 3,
	VPMU_SBI_PMU_COUNTER_STOP = 4,
	VPMU_SBI_PMU_COUNTER_FW_READ = 5,
	VPMU_SBI_PMU_COUNTER_FW_READ_HI = 6,
	VPMU_SBI_PMU_SNAPSHOT_SET_SHMEM = 7,
	VPMU_SBI_PMU_EVENT_GET_INFO = 8,
};
/* Whether the VM's model owns `reg` (for an MSR filter); the list for building one. */
bool vpmu_vm_owns_reg(const struct vpmu_vm *vm, enum vpmu_regspace space, uint32_t reg);
unsigned vpmu_vm_regs(const struct vpmu_vm *vm, enum vpmu_regspace space,
		      uint32_t *regs, unsigned max);

/* Scheduling: switch in on a host CPU before the guest runs, out after.
 * -EBUSY: already in (switch_in) / -EINVAL: not in (switch_out). */
int vpmu_vcpu_switch_in(struct vpmu_vcpu *vcpu, unsigned host_cpu);
int vpmu_vcpu_switch_out(struct vpmu_vcpu *vcpu);
bool vpmu_vcpu_running(const struct vpmu_vcpu *vcpu, unsigned *host_cpu);
/* An exit to the VMM is not a switch: a vCPU stays switched in while its thread
 * runs it, and switches out only when the thread stops running it (pause,
 * migration to another host CPU, exit).  Between two runs of the guest:
 *   vpmu_vcpu_enter  before each entry: derives the control again where an
 *                    overflow's status or an HT sibling changed it, and lets the
 *                    backend apply what this exit's accesses changed (perf's
 *                    syscalls happen here, and only for counters whose
 *                    configuration changed); cheap when nothing did;
 *   vpmu_vcpu_poll   after a run the backend's overflow signal ended (KVM_RUN
 *                    returned -EINTR): lands the overflows, so that their PMI is
 *                    pending for the next entry.
 * Both return -EINVAL for a vCPU that is not switched in. */
int vpmu_vcpu_enter(struct vpmu_vcpu *vcpu);
int vpmu_vcpu_poll(struct vpmu_vcpu *vcpu);
/* A guest reset (a reboot; KVM's vCPU RESET, not INIT, which leaves the PMU
 * alone: Intel SDM vol. 3, "Initialization Overview", the table of register
 * states after RESET and INIT): every register of the vCPU back to the value
 * it had when the vCPU was created, by host-initiated writes (vpmu_reg_set: no
 * guest semantics, no perfctr rule), and a pending PMI dropped.  The totals
 * (accounting) are kept.  With hyper-threading, the core's shared registers
 * go back with either thread's reset.  Like a save/restore: on the vCPU's
 * thread, or on another while it is stopped; switched in or out.  0; -EINVAL
 * for NULL; -EIO where a register does not read its power-on value after. */
int vpmu_vcpu_reset(struct vpmu_vcpu *vcpu);

/* ---- event filter ----
 * A per-VM event filter with the semantics of KVM's KVM_SET_PMU_EVENT_FILTER
 * (Linux Documentation/virt/kvm/api.rst; arch/x86/kvm/pmu.c
 * is_gp_event_allowed, is_fixed_event_allowed, filter_contains_match): a
 * general-purpose counter programmed with an event the filter refuses, or a
 * fixed counter it refuses, counts nothing.  The guest's write is accepted and
 * the register holds what was written, but the counter is not programmed on
 * the host: it keeps the value it had (reads it, and what the guest writes to
 * it).  Each such programming is counted (vpmu_totals.filtered).
 *
 * The events are the event select register's event and unit mask, as KVM's:
 * bits 7:0 the event select, 15:8 the unit mask, 35:32 AMD's event select bits
 * 11:8 (Intel SDM vol. 3B IA32_PERFEVTSELx; AMD64 APM vol. 2 PerfEvtSel); the
 * modifiers (USR, OS, EDGE, INV, CMASK, ...) do not take part.  Without
 * VPMU_FILTER_MASKED_EVENTS an entry names one event and unit mask exactly (an
 * entry with other bits set can match no event and is ignored, as KVM's
 * remove_impossible_events does); with it, every entry is a masked entry
 * (VPMU_FILTER_MASKED_ENTRY: api.rst "masked events"): it matches the events
 * of its event select whose unit mask & mask == match, and an exclude entry
 * takes the events it matches out of the include entries' matches.  An event
 * the include entries match and no exclude entry does is "in" the filter:
 * allowed with VPMU_FILTER_ALLOW, refused with VPMU_FILTER_DENY; any other
 * event the opposite.  Fixed counter i is allowed when action is ALLOW and bit
 * i of fixed_counter_bitmap is set, or DENY and it is clear (api.rst: KVM
 * always consumes fixed_counter_bitmap).
 *
 * names[] are include entries by event name, resolved through the VM's event
 * table (docs/events.md; the table vpmu-events lists for its identity): each
 * is its event select and unit mask exactly.
 *
 * Filters apply to the x86 event-select PMUs (the p6, k7, k8, zen and
 * architectural-perfmon models); other VMs refuse one with -EOPNOTSUPP.  -EINVAL: an action or
 * flag KVM does not have, a masked entry with bits outside the format, a NULL
 * array with a count; -E2BIG: more than VPMU_FILTER_MAX_EVENTS entries;
 * -ENOENT: a name the VM's table does not have.  On failure *bad (optional)
 * is the index of the offending entry in events[] then names[] (nevents + j
 * for names[j]), or -1 when no entry is at fault, and the VM's filter is as it
 * was.  NULL removes the filter.  The VM's vCPUs must not be in a register
 * access or switch while it changes (the VMM pauses them, as KVM's ioctl
 * waits for its vCPUs to see the new filter); it takes effect at once.
 */
enum vpmu_filter_action {
	VPMU_FILTER_ALLOW = 0,     /* KVM_PMU_EVENT_ALLOW */
	VPMU_FILTER_DENY = 1,      /* KVM_PMU_EVENT_DENY */
};
#define VPMU_FILTER_MASKED_EVENTS 0x1u  /* KVM_PMU_EVENT_FLAG_MASKED_EVENTS */
#define VPMU_FILTER_MAX_EVENTS 300      /* KVM_PMU_EVENT_FILTER_MAX_EVENTS */
/* A masked entry (api.rst KVM_PMU_ENCODE_MASKED_ENTRY): event select bits 7:0
 * and 35:32, match in 15:8, exclude bit 55, mask in 63:56. */
#define VPMU_FILTER_MASKED_ENTRY(event_select, mask, match, exclude) \
	(((uint64_t)(event_select) & 0xFFull) | (((uint64_t)(event_select) & 0xF00ull) << 24) | \
	 (((uint64_t)(mask) & 0xFFull) << 56) | (((uint64_t)(match) & 0xFFull) << 8) | \
	 ((uint64_t)!!(exclude) << 55))
struct vpmu_event_filter {
	unsigned action;               /* enum vpmu_filter_action */
	unsigned flags;                /* VPMU_FILTER_MASKED_EVENTS */
	uint32_t fixed_counter_bitmap;
	unsigned nevents;
	const uint64_t *events;
	unsigned nnames;
	const char *const *names;
};
int vpmu_vm_set_event_filter(struct vpmu_vm *vm, const struct vpmu_event_filter *filter,
			     int *bad);

/* How the host backend counts a generic event (docs/integration.md "What the
 * host counts"): counts are never invented, so an event the host cannot count
 * is reported as such and its counters read zero. */
enum vpmu_count_source {
	VPMU_COUNT_NONE = 0,        /* not countable on this host: counts zero */
	VPMU_COUNT_SIM,             /* as the trace's ticks say (sim) */
	VPMU_COUNT_HARDWARE,        /* a host PMU event, guest mode only (perf): the generic
	                               event's (PERF_TYPE_HARDWARE) */
	VPMU_COUNT_TASK_CLOCK,      /* the vCPU thread's task clock scaled to the guest's TSC (perf) */
	VPMU_COUNT_RAW,             /* the same event on the host PMU, by its encoding
	                               (PERF_TYPE_RAW): the host's event table has an event of
	                               the guest's event's name and encoding (perf) */
};
/* *why (optional) gets a line saying how, or why not. */
enum vpmu_count_source vpmu_host_event_source(const struct vpmu_host *host, enum vpmu_event ev,
					      const char **why);
const char *vpmu_count_source_name(enum vpmu_count_source src);
/* How the host counted the events of its event table (docs/events.md) that
 * the VM's guests programmed, event by event (docs/integration.md "Guest
 * events on the host"): the same event by its encoding (VPMU_COUNT_RAW), the
 * generic event the table maps it to (VPMU_COUNT_HARDWARE, VPMU_COUNT_TASK_CLOCK),
 * or not at all (VPMU_COUNT_NONE: its counters count zero).  Only a backend that
 * translates (perf) has these; the others report none.  The host keeps them
 * per event table: VMs with one table on one host share them. */
struct vpmu_event_source {
	const char *event;              /* its name in the VM's table */
	enum vpmu_count_source source;
	const char *host_event;         /* RAW: the host table's event; HARDWARE,
	                                   TASK_CLOCK: the generic event; NONE: NULL */
	const char *why;                /* how, or why not, in words */
	uint64_t programmings;          /* guest counters programmed with it */
};
/* Fills out[0..max) in the table's order and returns how many there are in
 * all (more than max: the rest were left out), or -EINVAL. */
int vpmu_vm_event_sources(const struct vpmu_vm *vm, struct vpmu_event_source *out, unsigned max);

/* PMIs.  A PMI is pending from the overflow that raised it until the VMM has
 * delivered it (ack); *ovf_mask says which counters' overflows raised it (bit n
 * = guest counter n, as perfctr's si_pmc_ovf_mask).  The overflow status the
 * guest sees (P4 CCCR.OVF, a global status register, ...) is architectural: it
 * lives in the model's registers, and acknowledging the PMI leaves it alone. */
bool vpmu_vcpu_pmi_pending(const struct vpmu_vcpu *vcpu, uint64_t *ovf_mask);
uint64_t vpmu_vcpu_pmi_ack(struct vpmu_vcpu *vcpu);   /* returns the mask, ends pending */
/* Whether the vCPU's PMI line is asserted now, on CPUs whose PMI is a level
 * the status holds (the P4: while a CCCR has OVF with the thread's OVF_PMI
 * bit, Linux arch/x86/events/intel/p4.c p4_pmu_handle_irq).  A PMI such a CPU
 * raises while its LVTPC is masked is not lost: it is delivered when the
 * LVTPC is unmasked, if the line is still asserted then (docs/integration.md).
 * Always false on the other models, where a masked PMI is lost. */
bool vpmu_vcpu_pmi_asserted(struct vpmu_vcpu *vcpu);
/* The guest counters the vCPU's control counts now (bit n = counter n): 0 while
 * every counter is frozen or unprogrammed.  A VMM that feeds the sim backend
 * itself (an emulator counting retired instructions) ticks it only while this
 * is non-zero.  An overflow's status that stops counting (PowerPC's FCECE
 * setting MMCR0[FC]) is applied at the next vpmu_vcpu_enter or access. */
uint64_t vpmu_vcpu_counting(const struct vpmu_vcpu *vcpu);

int vpmu_vcpu_totals(const struct vpmu_vcpu *vcpu, struct vpmu_totals *out);
/* The content id of the vCPU's current control (perfctr k1.id, 64-bit here). */
uint64_t vpmu_vcpu_control_id(const struct vpmu_vcpu *vcpu);

const char *vpmu_event_name(enum vpmu_event ev);
int vpmu_event_from_name(const char *name); /* -1 if unknown */
const char *vpmu_fault_name(enum vpmu_fault f);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
