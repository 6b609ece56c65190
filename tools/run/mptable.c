/* SPDX-License-Identifier: MIT */
/*
 * The MP table of mptable.h.  Layouts: MultiProcessor Specification 1.4,
 * section 4.1 (floating pointer), 4.2 (configuration table header), 4.3
 * (entries: processor 20 bytes, bus, I/O APIC, I/O and local interrupt
 * assignment 8 bytes each).
 */
#include <stdio.h>
#include <string.h>

#include "mptable.h"

enum { MP_PROCESSOR = 0, MP_BUS = 1, MP_IOAPIC = 2, MP_INTSRC = 3, MP_LINTSRC = 4 };
enum { MP_INT = 0, MP_NMI = 1, MP_EXTINT = 3 };

#define MP_SPEC_REV     4      /* 1.4 */
#define LAPIC_ADDR      0xFEE00000u
#define LAPIC_VERSION   0x14u  /* KVM's local APIC */
#define IOAPIC_VERSION  0x11u
#define CPU_ENABLED     0x01u
#define CPU_BOOT        0x02u
#define ISA_IRQS        16u

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

static uint8_t checksum(const uint8_t *p, size_t n)
{
	uint8_t sum = 0;
	while (n--)
		sum = (uint8_t)(sum + *p++);
	return (uint8_t)(0u - sum);
}

static size_t table_size(unsigned ncpus)
{
	return 44 + 20u * ncpus + 8 + 8 + 8u * ISA_IRQS + 8u * 2;
}

static uint8_t *entry8(uint8_t *e, uint8_t type, uint8_t a, uint8_t b, uint8_t c, uint8_t d,
		       uint8_t f, uint8_t g, uint8_t h)
{
	const uint8_t v[8] = { type, a, b, c, d, f, g, h };
	memcpy(e, v, 8);
	return e + 8;
}

int mptable_write(uint8_t *mem, size_t mem_size, uint32_t addr, unsigned ncpus,
		  uint32_t signature, uint32_t features, char *err, size_t errlen)
{
	if (ncpus == 0 || ncpus > MPTABLE_MAX_CPUS || (addr & 15) ||
	    addr + 16 + table_size(ncpus) > mem_size) {
		snprintf(err, errlen, "no MP table for %u vCPUs at 0x%x (1 to %u vCPUs, 16-byte "
			 "aligned, inside guest memory)", ncpus, addr, MPTABLE_MAX_CPUS);
		return -1;
	}
	uint8_t *fp = mem + addr, *t = fp + 16;
	size_t len = table_size(ncpus);
	memset(fp, 0, 16 + len);

	/* The configuration table header. */
	memcpy(t, "PCMP", 4);
	put16(t + 4, (uint16_t)len);
	t[6] = MP_SPEC_REV;
	memcpy(t + 8, "VPMU    ", 8);          /* OEM id */
	memcpy(t + 16, "vpmu-run    ", 12);    /* product id */
	put16(t + 34, (uint16_t)(ncpus + 1 + 1 + ISA_IRQS + 2));
	put32(t + 36, LAPIC_ADDR);

	uint8_t *e = t + 44;
	for (unsigned i = 0; i < ncpus; i++, e += 20) {
		e[0] = MP_PROCESSOR;
		e[1] = (uint8_t)i;                  /* local APIC id: the vCPU index */
		e[2] = LAPIC_VERSION;
		e[3] = CPU_ENABLED | (i == 0 ? CPU_BOOT : 0);
		put32(e + 4, signature);
		put32(e + 8, features);
	}
	e = entry8(e, MP_BUS, 0, 'I', 'S', 'A', ' ', ' ', ' ');
	uint8_t ioapic = (uint8_t)ncpus;
	e = entry8(e, MP_IOAPIC, ioapic, IOAPIC_VERSION, CPU_ENABLED, 0, 0, 0, 0);
	put32(e - 4, MPTABLE_IOAPIC_ADDR);
	/* ISA IRQ n on I/O APIC pin n, polarity and trigger of the bus (flags 0). */
	for (uint8_t irq = 0; irq < ISA_IRQS; irq++)
		e = entry8(e, MP_INTSRC, MP_INT, 0, 0, 0, irq, ioapic, irq);
	/* LINT0 ExtINT (the 8259s in virtual wire mode) and LINT1 NMI, on every
	 * local APIC (destination 0xFF). */
	e = entry8(e, MP_LINTSRC, MP_EXTINT, 0, 0, 0, 0, 0xFF, 0);
	e = entry8(e, MP_LINTSRC, MP_NMI, 0, 0, 0, 0, 0xFF, 1);
	t[7] = checksum(t, len);

	/* The floating pointer: "_MP_", the table's address, 1 paragraph,
	 * revision 1.4, checksum; feature bytes 0: the table is present, no IMCR. */
	memcpy(fp, "_MP_", 4);
	put32(fp + 4, addr + 16);
	fp[8] = 1;
	fp[9] = MP_SPEC_REV;
	fp[10] = checksum(fp, 16);
	return (int)(16 + len);
}
