/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run on RISC-V: its shared state (tools/run/riscv_main.c: set-up, vCPU
 * threads, the end; riscv_args.c: the command line; riscv_exit.c: the exits;
 * docs/riscv.md "vpmu-run on RISC-V").  Not an interface.
 */
#ifndef VPMU_TOOLS_RUN_RISCV_RUN_H
#define VPMU_TOOLS_RUN_RISCV_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vpmu/backend.h"
#include "vpmu/vpmu.h"
#include "accounting/acct_formats.h"
#include "../../vmm-glue/kvm_riscv.h"

#define RV_KICK_SIGNAL SIGUSR1
#define RV_EXIT_TIMEOUT 124
#define RV_EXIT_VMM_ERROR 125
#define RV_MAX_VCPUS 8

struct rv_opts {
	const char *model, *backend, *kernel, *initrd, *append;
	unsigned vcpus, mem_mb, timeout_s;
	bool strict;
	bool no_pmu;     /* --no-pmu: KVM's own PMU (or none), no libvpmu */
	enum acct_format accounting;
	const char *output;
};

/* What the VMM's own exits did, per vCPU (the accounting's last lines). */
struct rv_exit_stats {
	uint64_t sbi_exits;        /* KVM_EXIT_RISCV_SBI that were not the PMU's */
	uint64_t console_bytes;    /* written by the guest through DBCN or SBI v0.1 */
	uint64_t csr_other;        /* KVM_EXIT_RISCV_CSR of other CSRs: illegal instruction */
	uint64_t mmio;             /* KVM_EXIT_MMIO: nothing is mapped there */
};

struct rv_vcpu {
	struct rv_run *rn;
	unsigned index;
	int fd;
	struct kvm_run *run;
	struct vpmu_vcpu *vcpu;    /* NULL with --no-pmu */
	struct kvm_riscv_pmu pmu;
	struct rv_exit_stats stats;
	pthread_t thread;
	bool started;
	char err[256];
};

struct rv_run {
	struct rv_opts o;
	int kvm, vm;
	uint8_t *mem;
	size_t mem_size;
	struct kvm_riscv_ram ram;
	size_t run_size;
	uint32_t timebase_hz;
	struct vpmu_host *host;
	struct vpmu_vm *pvm;
	struct vpmu_sim *sim;
	struct vpmu_perf *perf;
	struct rv_vcpu cpu[RV_MAX_VCPUS];
	pthread_mutex_t lock;      /* the end of the run, and the console */
	pthread_cond_t done_cv;
	bool done;
	int status;
	char why[320];
	FILE *console;             /* the guest's console: stdout, or stderr when a
	                              document of the accounting has stdout */
	FILE *acct_out;
};

/* The command line into o (riscv_args.c); a usage error exits 2. */
void rv_parse_args(int argc, char **argv, struct rv_opts *o);

/* Ends the run with status (the first caller wins) and kicks every vCPU. */
void rv_finish(struct rv_run *rn, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The exit in c->run (riscv_exit.c), after KVM_RUN returned 0: the vPMU's,
 * the debug console, a system reset, the rest.  0: run again; 1: the run
 * ended (rv_finish was called). */
int rv_handle_exit(struct rv_vcpu *c);

#endif
