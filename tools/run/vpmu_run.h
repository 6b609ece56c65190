/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run's shared state (tools/run/vpmu-run.c: options, boot, vCPU threads;
 * tools/run/run_io.c: port I/O, ucalls, the end of a run; tools/run/run_file.c: the
 * input files).  Not an interface.
 */
#ifndef VPMU_TOOLS_RUN_VPMU_RUN_H
#define VPMU_TOOLS_RUN_VPMU_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "vpmu/backend.h"
#include "vpmu/kvm_x86.h"
#include "vpmu/vpmu.h"
#include "accounting/acct_formats.h"
#include "dev_rtc.h"
#include "dev_uart.h"
#include "run_file.h"

#define KICK_SIGNAL SIGUSR1
#define EXIT_TIMEOUT 124
#define EXIT_VMM_ERROR 125
#define EXIT_GUEST_HIGH 126   /* the guest's own status was 124 or more (stderr says which) */
#define MAX_VCPUS 16

struct run_filter;

struct opts {
	const char *model, *backend, *image, *append;
	const char *kernel, *initrd;   /* --kernel bzImage [--initrd FILE]: a Linux guest */
	bool mem_given;
	bool console_input;  /* stdin feeds COM1's receiver (--console-input; a terminal by default) */
	unsigned vcpus, mem_mb, timeout_s;
	int cpumodel, stepping;   /* CPUID overrides; -1: the model's default */
	int pmu_version, nr_general, nr_fixed;   /* the PMU narrowed; -1: the CPU's own */
	bool strict, tap;
	bool ht;             /* --ht: vCPU pairs are hyper-thread siblings */
	bool no_kvmclock;    /* --no-kvmclock: a Linux guest sees the model's CPUID alone */
	bool no_host_pmu;  /* --no-host-pmu: the perf backend's task clock even on a host PMU */
	bool null_pmu;     /* --null-pmu: the guest may switch its PMU MSR exits to a handler
	                      that does nothing (VPMU_UCALL_NULL_PMU, bench/kvm-exits.sh) */
	enum acct_format accounting;  /* --accounting FORMAT at exit (docs/accounting.md) */
	const char *output;  /* --output FILE: the accounting goes there; NULL: stdout */
	const char *name;  /* --name NAME: the live accounting socket (vpmu-stat) */
	bool stat_shared;  /* --stat-group G: G's members may read the socket too */
	gid_t stat_group;
	struct run_filter *filter;   /* --event-filter FILE|cross-tenant; NULL: none */
};

struct vcpu_ctx {
	struct run *rn;
	unsigned index;
	int fd;
	struct kvm_run *run;
	struct vpmu_vcpu *vcpu;
	struct vpmu_kvm_vcpu *kv;
	pthread_t thread;
	bool null_now;     /* PMU MSR exits answered by null_pmu_run (VPMU_UCALL_NULL_PMU) */
	char err[VPMU_KVM_ERRLEN];
};

struct run {
	struct opts o;
	int kvm, vm;
	uint8_t *mem;
	size_t mem_size;
	size_t run_size;
	struct vpmu_host *host;
	struct vpmu_vm *pvm;
	struct vpmu_sim *sim;
	struct vpmu_perf *perf;
	struct vcpu_ctx cpu[MAX_VCPUS];
	struct timespec t0;
	/* The end of the run: the first vCPU to finish (exit port, error) sets it. */
	pthread_mutex_t lock;
	pthread_cond_t done_cv;
	bool done;
	unsigned ready;    /* vCPU threads set up (under lock): the live socket waits for all */
	int status;
	char why[640];   /* the end of the run, in words (room for kvm_host.h's hints) */
	unsigned cases, failed_cases;
	FILE *console;   /* serial output: stdout, or stderr in --tap mode */
	FILE *acct_out;  /* the accounting: stdout, --output's file, or the original
	                    stdout when a document has it alone (run_accounting_output) */
	struct uart com1;  /* the serial port (under lock) */
	struct rtc cmos;   /* the CMOS clock (under lock) */
	bool com1_irq;     /* its interrupt line as last set with KVM_IRQ_LINE */
};

/* The command line into o (tools/run/run_args.c); a usage error exits 2. */
void run_parse_args(int argc, char **argv, struct opts *o);

/* Where the accounting goes: --output's file (opened now: exit 125 when it
 * cannot be); for a domstats, prometheus or json document without --output,
 * standard output, which from then on holds it alone: what else vpmu-run and
 * the guest print to standard output goes to standard error. */
FILE *run_accounting_output(const struct opts *o);

/* Ends the run with status (the first caller wins) and kicks every vCPU. */
void run_finish(struct run *rn, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A KVM_EXIT_IO of vCPU c: COM1, the CMOS clock, the exit and ucall ports. */
void run_handle_io(struct vcpu_ctx *c);
/* An exit vpmu-run does not handle (shutdown, internal error, ...): ends the run. */
void run_report_exit(struct vcpu_ctx *c);
/* Where each vCPU was when the run ended without the guest's word (--timeout):
 * RIP, mode, interrupt flag and run state, on stderr, for the user to look up
 * (System.map, the image's symbols). */
void run_report_where(struct run *rn);
/* console_input's callback: bytes into COM1's receiver (arg: the run). */
unsigned run_com1_input(void *arg, const uint8_t *bytes, unsigned n);

#endif
