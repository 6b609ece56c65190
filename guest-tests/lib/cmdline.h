/* SPDX-License-Identifier: MIT */
/*
 * The run's options from the multiboot command line (flags bit 2, the cmdline
 * field at offset 16; guest_abi.h): "model=p6 vcpus=2 strict=0 backend=perf".
 * Unknown words are ignored (QEMU also puts the kernel's file name first).
 * cpumodel=/stepping= are honoured if a host passes them (the model pages'
 * CPUID overrides); ap-boot=sipi is the QEMU test aid of smp.h; counts= says
 * which events the host counts (vpmu-run: all with a host PMU, clock for cycles
 * only from the scaled task clock, none); rdpmc= how guest RDPMC reaches the
 * vPMU (exit, sync, stock: enum vpmu_kvm_rdpmc), for a VMM that does not answer
 * the VPMU_UCALL_RDPMC_MODE ucall (QEMU, which prints its mode at start-up);
 * null=qemu has bench-exits take QEMU's own MSR handler as its baseline.
 */
#ifndef GUEST_CMDLINE_H
#define GUEST_CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

struct guest_opts {
	char model[32];          /* "" when absent */
	char backend[16];        /* "" when absent */
	char counts[8];          /* what the host counts: "all", "clock", "none"; "" when absent */
	unsigned rdpmc;          /* rdpmc=exit|sync|stock: 1, 2, 3; 0 when absent */
	bool strict;
	unsigned vcpus;          /* 1 when absent */
	int cpumodel, stepping;  /* -1 when absent */
	bool ap_boot_sipi;
	bool null_qemu;          /* null=qemu: the baseline is QEMU's MSR_CORE_THREAD_COUNT */
	bool have_cmdline;
	char raw[256];
};

extern struct guest_opts opts;

void parse_multiboot(uint32_t magic, uint32_t mbi);

#endif
