/* SPDX-License-Identifier: MIT */
/*
 * The contract between vpmu-run (the host) and the bare-metal guests of
 * guest-tests/ (docs/guest-abi.md).  Included by both sides: the guest builds it
 * with -m32 -ffreestanding, the host with the normal toolchain, so it uses only
 * fixed-width types and no pointers.
 *
 * Boot: a multiboot (v1) image with the a.out kludge (header flag bit 16), loaded
 * at its load_addr; every vCPU starts at entry_addr in 32-bit protected mode with
 * flat 4 GiB code/data segments (CS 0x08, data 0x10), paging and interrupts off,
 * EAX = 0x2BADB002 and EBX = the guest-physical address of a multiboot info
 * structure whose cmdline (flags bit 2) holds the run's options (below).  The
 * bootstrap vCPU is the one whose local APIC id is 0; the others start at the same
 * entry at the same moment (no INIT/SIPI), each with its own APIC id = vCPU index.
 * Guest memory is identity mapped from 0 (size: the mem_upper field, in KiB above
 * 1 MiB, flags bit 0); the LAPIC is at 0xFEE00000 (in-kernel irqchip).
 *
 * Ports (all OUT, from any vCPU):
 *   VPMU_PORT_SERIAL  8-bit: one byte of console output (COM1: a 16550A at
 *                     0x3F8-0x3FF with its interrupt on IRQ 4, tools/run/dev_uart.h;
 *                     its line-status register 0x3FD reads 0x60: always ready)
 *   VPMU_PORT_EXIT    8- or 32-bit: the guest is done; the low byte is vpmu-run's
 *                     exit status (0 = success), except that 124 and above become
 *                     126 (124 and 125 are vpmu-run's timeout and VMM error).  The
 *                     first write ends the whole VM.
 *   VPMU_PORT_UCALL   32-bit: guest-physical address of a struct vpmu_ucall
 *
 * The command line: space-separated words, e.g.
 *   "model=p6 vcpus=2 strict=0 backend=perf"
 * model= is the CPU model vpmu-run emulates (a guest detects the CPU itself, with
 * CPUID, and may compare), strict= 1 when the VM refuses perfctr-rule breaking
 * writes with #GP (docs/principles.md §2), vcpus= the number of vCPUs,
 * backend= the host backend (perf or sim).  Unknown words are to be ignored.
 */
#ifndef VPMU_GUEST_ABI_H
#define VPMU_GUEST_ABI_H

#include <stdint.h>

#define VPMU_PORT_SERIAL 0x3F8
#define VPMU_PORT_EXIT   0xF4
#define VPMU_PORT_UCALL  0xF0

#define VPMU_MULTIBOOT_MAGIC      0x1BADB002u  /* in the image's header */
#define VPMU_MULTIBOOT_BOOT_MAGIC 0x2BADB002u  /* in EAX at entry */

/* A report from the guest's test harness.  The host turns the stream into TAP:
 * one "ok N - name" / "not ok N - name" line per VPMU_UCALL_CASE (numbered by the
 * host), a "# ..." line per VPMU_UCALL_DIAG, and the plan "1..N" when the guest
 * exits.  Strings are NUL-terminated, guest-physical addresses, at most
 * VPMU_UCALL_STR_MAX bytes read.  A vCPU's record must stay unchanged until its
 * OUT instruction returns (the host reads it during the exit). */
enum vpmu_ucall_cmd {
	VPMU_UCALL_DIAG = 1,   /* str: a diagnostic line (e.g. "file.c:42: expected 1, got 2") */
	VPMU_UCALL_CASE = 2,   /* str: the case's name; arg = VPMU_CASE_* */
	VPMU_UCALL_MARK = 3,   /* str: a label; arg: a guest value.  The host records the
	                          label with the host's time and the run's PMI count
	                          (latency measurements); printed as a diagnostic. */
	VPMU_UCALL_NULL_PMU = 4, /* arg 1: from now on this vCPU's PMU MSR exits are
	                          answered by a handler that does nothing (reads 0),
	                          with the vPMU paused; arg 0: by libvpmu again.  A
	                          bench aid (bench/kvm-exits.sh), honoured only under
	                          vpmu-run --null-pmu.  str: a label (may be empty). */
	VPMU_UCALL_RDPMC_MODE = 5, /* the host writes into arg how this vCPU's RDPMC
	                          reaches the vPMU (enum vpmu_kvm_rdpmc of
	                          include/vpmu/kvm_x86.h: 1 exit, 2 sync, 3 stock;
	                          docs/rdpmc.md), 0 if it cannot say.  str: "" */
};
enum vpmu_case_result {
	VPMU_CASE_FAIL = 0,
	VPMU_CASE_PASS = 1,
	VPMU_CASE_SKIP = 2,    /* str must then say why, after " # SKIP " */
};
#define VPMU_UCALL_STR_MAX 1024

struct vpmu_ucall {
	uint32_t cmd;          /* enum vpmu_ucall_cmd */
	uint32_t str;          /* guest-physical address of a NUL-terminated string */
	uint64_t arg;
};

#endif
