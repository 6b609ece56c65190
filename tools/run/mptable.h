/* SPDX-License-Identifier: MIT */
/*
 * An Intel MultiProcessor Specification 1.4 table for a Linux guest without
 * ACPI (MP spec chapter 4, "MP Configuration Table"): the vCPUs (their local
 * APICs, the first the boot processor), one ISA bus, the I/O APIC of KVM's
 * in-kernel irqchip, ISA IRQs 0-15 on I/O APIC pins 0-15 (KVM's default GSI
 * routing, as kvmtool and Firecracker describe it), and LINT0 = ExtINT,
 * LINT1 = NMI on every local APIC.  Linux finds the floating pointer in the
 * last KiB of base memory (arch/x86/kernel/mpparse.c, smp_scan_config()).
 */
#ifndef VPMU_TOOLS_MPTABLE_H
#define VPMU_TOOLS_MPTABLE_H

#include <stddef.h>
#include <stdint.h>

#define MPTABLE_IOAPIC_ADDR 0xFEC00000u
#define MPTABLE_MAX_CPUS 16u

/* Write the floating pointer at addr (16-byte aligned) and the configuration
 * table right after it, for ncpus vCPUs presenting CPUID signature and feature
 * flags (leaf 1 EAX and EDX).  Bytes written, or -1 with a message in err. */
int mptable_write(uint8_t *mem, size_t mem_size, uint32_t addr, unsigned ncpus,
		  uint32_t signature, uint32_t features, char *err, size_t errlen);

#endif
