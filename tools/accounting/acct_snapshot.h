/* SPDX-License-Identifier: MIT */
/*
 * One accounting snapshot of a VM, many formats (docs/accounting.md).  A
 * snapshot collects each vCPU's totals once (vpmu_vcpu_totals), and the VM's
 * totals are summed from those, so every format of one snapshot agrees with
 * itself.  The formats (acct_*.c) read only the snapshot: libvpmu depends on
 * none of their libraries.
 */
#ifndef VPMU_TOOLS_ACCT_SNAPSHOT_H
#define VPMU_TOOLS_ACCT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vpmu/kvm_x86.h"
#include "vpmu/vpmu.h"

/* Count k (enum vpmu_totals_count: a line of VPMU_TOTALS_COUNTS) of t; and
 * a pointer to it, for a reader that fills t. */
static inline uint64_t *acct_count_ptr(struct vpmu_totals *t, unsigned k)
{
	switch (k) {
#define ACCT_COUNT_CASE(f, ...) case VPMU_TOTALS_##f: return &t->f;
	VPMU_TOTALS_COUNTS(ACCT_COUNT_CASE)
#undef ACCT_COUNT_CASE
	}
	return NULL;
}

static inline uint64_t acct_count(const struct vpmu_totals *t, unsigned k)
{
	return vpmu_totals_count(t, k);
}

struct acct_vcpu {
	unsigned index;
	struct vpmu_totals t;
	bool have_kvm;                 /* under KVM: the glue's exits and PMI deliveries */
	struct vpmu_kvm_stats kvm;
};

/* How the host counted one event of the VM's event table that its guests
 * programmed (vpmu_vm_event_sources): the event by its table's name, the host
 * event that counted it ("" none), and how many programmings of a guest
 * counter chose it.  The tables' longest name is 81 bytes. */
#define ACCT_EVENT_NAME_MAX 96
struct acct_event_source {
	char event[ACCT_EVENT_NAME_MAX];
	char host_event[ACCT_EVENT_NAME_MAX];
	enum vpmu_count_source source;
	uint64_t programmings;
};

/* Longest rule name a snapshot holds (the models' are under 24 bytes). */
#define ACCT_RULE_NAME_MAX 48

/*
 * A snapshot holds only the vCPUs that exist (issue 10: 1,000 VMs of 8 vCPUs
 * should not cost 43 KiB each), and owns everything it names, because it also
 * comes from parsed JSON (acct_read_json).  Zeroed is a valid empty snapshot;
 * acct_vm_release() frees it.
 */
struct acct_vm {
	char name[64];                 /* the domain's name */
	char model[32];
	unsigned nr_ctrs;
	unsigned nr_rules;
	char rule[VPMU_MAX_RULES][ACCT_RULE_NAME_MAX];  /* rule names by id; "": none */
	enum vpmu_count_source source[VPMU_EV_NR]; /* how the host counts each event */
	unsigned nr_sources;           /* event_source[]: the table events programmed */
	struct acct_event_source *event_source;
	unsigned nr_vcpus, max_vcpus;  /* vcpu[] holds nr_vcpus of room for max_vcpus */
	struct acct_vcpu *vcpu;        /* allocated by acct_vm_begin */
	struct vpmu_totals total;      /* the sum of the vCPUs above */
};

/*
 * The offset of the first byte of s[0, n) that does not start a well-formed
 * UTF-8 sequence, or n when every byte does.  Well-formed is The Unicode
 * Standard's (chapter 3, table 3-7): no overlong form, no surrogate, nothing
 * above U+10FFFF.  A name goes into JSON, which must be UTF-8 between systems
 * (RFC 8259, section 8.1), and into Prometheus labels (UTF-8 too).
 */
size_t acct_utf8_check(const char *s, size_t n);

/*
 * Starts vm's snapshot: name, model, counters, rule names, where the host
 * counts each generic event (host) and each table event the guests programmed
 * (vpmu_vm_event_sources), with room for max_vcpus vCPUs (at most
 * VPMU_MAX_VCPUS).  It reads what is fixed when the VM is created and what
 * the host publishes atomically, so it may run on a thread other than the
 * vCPU threads.  0, -EINVAL (also for a
 * name that is not UTF-8), -ENAMETOOLONG (a name over 63 bytes) or -ENOMEM;
 * on failure *out is zeroed (acct_vm_release is safe on it).
 */
int acct_vm_begin(struct acct_vm *out, const char *name, const struct vpmu_vm *vm,
		  const struct vpmu_host *host, unsigned max_vcpus);
/* Appends vCPU index's totals t (each vCPU once; kvm: the glue's statistics,
 * NULL when not under KVM) and adds them into out->total.  0, -ENOSPC past
 * max_vcpus, -EINVAL for a bad argument, an index >= VPMU_MAX_VCPUS or one
 * already added. */
int acct_vm_add_vcpu(struct acct_vm *out, unsigned index, const struct vpmu_totals *t,
		     const struct vpmu_kvm_stats *kvm);
/* Frees what the snapshot holds and zeroes it; safe on a zeroed one, and twice. */
void acct_vm_release(struct acct_vm *vm);
/* n snapshots in one array (acct_read_json's), and the array. */
void acct_vms_release(struct acct_vm *vms, unsigned n);

/* Sets the snapshot's event sources to n copies of src[] (replacing any):
 * 0, -EINVAL (a name not UTF-8 or too long) or -ENOMEM, the snapshot as it
 * was on failure. */
int acct_vm_set_sources(struct acct_vm *out, const struct acct_event_source *src, unsigned n);

/* Collects vm's snapshot (host: where its events come from): acct_vm_begin,
 * then vpmu_vcpu_totals once per existing vCPU and acct_vm_add_vcpu.  kvm,
 * when not NULL, holds the glue's statistics of vCPU i at kvm[i] (NULL
 * entries: none).  0, -EINVAL or -ENOMEM; release it with acct_vm_release. */
int acct_collect(struct acct_vm *out, const char *name, struct vpmu_vm *vm,
		 const struct vpmu_host *host, const struct vpmu_kvm_stats *const *kvm);


/* Whether the host counts event ev at all ("not countable on this host"
 * otherwise: formats never print a number for it). */
static inline bool acct_countable(const struct acct_vm *vm, enum vpmu_event ev)
{
	return vm->source[ev] != VPMU_COUNT_NONE;
}

#endif
