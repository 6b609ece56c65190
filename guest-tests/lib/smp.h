/* SPDX-License-Identifier: MIT */
/*
 * vCPUs: which one is running, and handing work from the BSP to the APs through
 * shared memory.  Every vCPU enters at the image's entry at once (guest_abi.h);
 * the APs then wait for work, halted between LAPIC timer ticks so an idle AP
 * does not steal time from the BSP on a host with few CPUs.
 */
#ifndef GUEST_SMP_H
#define GUEST_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"

/* The running vCPU's index (= APIC id), from its stack pointer: each vCPU
 * runs on its own STACK_SIZE slice of cpu_stacks (boot.S), and handlers run
 * on the interrupted stack (no privilege change), so this holds everywhere. */
static inline unsigned this_cpu(void)
{
	extern char cpu_stacks[];
	uint32_t sp;
	__asm__ volatile("movl %%esp, %0" : "=r"(sp));
	return (sp - (uint32_t)(uintptr_t)cpu_stacks) >> STACK_SHIFT;
}

typedef void (*ap_work_fn)(void *arg);

/* Waits (bounded) until the APs 1..n-1 have checked in; false if some did not. */
bool smp_wait_online(unsigned ncpus, uint32_t ms);
bool ap_is_online(unsigned cpu);
/* Posts fn(arg) to AP cpu and wakes it; false if that AP is not online or busy. */
bool ap_run(unsigned cpu, ap_work_fn fn, void *arg);
/* Waits (bounded) for the work posted by ap_run() to return. */
bool ap_wait_done(unsigned cpu, uint32_t ms);

/* QEMU test aid: QEMU's multiboot loader starts only the BSP, so with
 * "ap-boot=sipi" on the command line the BSP starts the others with
 * INIT/SIPI/SIPI through a real-mode trampoline (sipi.S).  vpmu-run never
 * needs it. */
void smp_start_aps_sipi(unsigned ncpus);

/* Called from boot.S. */
void ap_entry(unsigned cpu);

#endif
