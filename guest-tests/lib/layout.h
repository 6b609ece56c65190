/* SPDX-License-Identifier: MIT */
/*
 * Constants shared by the assembly (boot.S, isr.S) and the C runtime.  Only
 * #defines: this header is included from .S files.
 */
#ifndef GUEST_LAYOUT_H
#define GUEST_LAYOUT_H

#define GUEST_LOAD_ADDR   0x100000   /* guest_abi.h: the image's load_addr */
#define SEL_CODE          0x08       /* guest_abi.h: flat code, as vpmu-run sets it up */
#define SEL_DATA          0x10

/* vCPUs are told apart by their local APIC id (guest_abi.h: id = vCPU index). */
#define MAX_CPUS          8
#define STACK_SHIFT       14
#define STACK_SIZE        (1 << STACK_SHIFT)   /* 16 KiB per vCPU */

#define LAPIC_BASE        0xFEE00000
#define LAPIC_ID_OFF      0x20

/* Exit status written to VPMU_PORT_EXIT when boot itself fails, before C runs. */
#define EXIT_BAD_APIC_ID  3

/* Every ISR stub is padded to this many bytes so C can compute its address. */
#define ISR_STUB_SIZE     16

#endif
