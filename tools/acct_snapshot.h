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
#include <stdint.h>
#include <stdio.h>

#include "vpmu/kvm_x86.h"
#include "vpmu/vpmu.h"

struct acct_vcpu {
	unsigned index;
	struct vpmu_totals t;
	bool have_kvm;                 /* under KVM: the glue's exits and PMI deliveries */
	struct vpmu_kvm_stats kvm;
};

struct acct_vm {
	char name[64];                 /* the domain's name */
	char model[32];
	unsigned nr_ctrs;
	unsigned nr_rules;
	const char *rule[VPMU_MAX_RULES];          /* rule names, by id */
	enum vpmu_count_source source[VPMU_EV_NR]; /* how the host counts each event */
	unsigned nr_vcpus;
	struct acct_vcpu vcpu[VPMU_MAX_VCPUS];
	struct vpmu_totals total;      /* the sum of the vCPUs above */
};

/* Collects vm's snapshot (host: where its events come from).  kvm, when not
 * NULL, holds the glue's statistics of vCPU i at kvm[i] (NULL entries: none).
 * 0, or -EINVAL. */
int acct_collect(struct acct_vm *out, const char *name, struct vpmu_vm *vm,
		 const struct vpmu_host *host, const struct vpmu_kvm_stats *const *kvm);

/* Whether the host counts event ev at all ("not countable on this host"
 * otherwise: formats never print a number for it). */
static inline bool acct_countable(const struct acct_vm *vm, enum vpmu_event ev)
{
	return vm->source[ev] != VPMU_COUNT_NONE;
}

/* The formats: every one writes all the VMs given, and returns 0 or -errno. */
enum acct_format {
	ACCT_TEXT,        /* the human-readable blocks (vpmu-run's and vpmu-trace's) */
	ACCT_DOMSTATS,    /* "perf.cpu_cycles=N" lines as virsh domstats --perf prints them */
	ACCT_PROMETHEUS,  /* the Prometheus text exposition format */
	ACCT_JSON,        /* docs/accounting.md's schema */
};
int acct_format_from_name(const char *name);   /* enum acct_format, or -1 */
int acct_write(FILE *out, enum acct_format f, const struct acct_vm *vms, unsigned n);

#endif
