/* SPDX-License-Identifier: MIT */
/* Per-vCPU and per-VM counter accounting, printed the same way by every tool. */
#ifndef VPMU_TOOLS_ACCOUNTING_H
#define VPMU_TOOLS_ACCOUNTING_H

#include <stdio.h>

#include <stdbool.h>

#include "accounting/acct_formats.h"
#include "vpmu/backend.h"
#include "vpmu/kvm_x86.h"
#include "vpmu/vpmu.h"


/* A KVM run's accounting at its end (vpmu-run): one snapshot of vm in format;
 * the text format adds the backend, the host's event sources, the perf
 * backend's system calls and the glue's statistics per vCPU, all as TAP
 * comments with tap.  It calls no glue function: the caller gathers the
 * glue's statistics. */
struct accounting_run {
	enum acct_format format;
	FILE *out;                           /* where it goes; NULL: stdout */
	bool tap;
	const char *backend;
	const struct vpmu_perf *perf;        /* NULL: the sim backend */
	const struct vpmu_host *host;
	struct vpmu_vm *vm;
	/* The x86 glue's statistics of each vCPU (vpmu_kvm_vcpu_stats), NULL
	 * entries: not set up; NULL: none (another architecture's glue). */
	const struct vpmu_kvm_stats *const *kvm;
	unsigned nr_vcpus;
	/* More lines of the text format, after the totals (another
	 * architecture's glue statistics); NULL: none. */
	void (*glue_lines)(FILE *out, void *arg);
	void *glue_arg;
};
void accounting_print_run(const struct accounting_run *ar);

#endif
