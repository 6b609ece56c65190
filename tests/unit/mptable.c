/* SPDX-License-Identifier: MIT */
/*
 * The MP table (tools/run/mptable.c) read back the way Linux's mpparse.c reads it
 * (MultiProcessor Specification 1.4, chapter 4): the floating pointer and the
 * table both sum to zero, the table holds the vCPUs (the first the boot
 * processor), one ISA bus, the I/O APIC at 0xFEC00000 and ISA IRQ n on its pin
 * n, and LINT0/LINT1 as ExtINT/NMI; bad arguments are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "run/mptable.h"
#include "tap.h"

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

static unsigned sum(const uint8_t *p, size_t n)
{
	unsigned s = 0;
	while (n--)
		s += *p++;
	return s & 0xFF;
}

int main(void)
{
	static uint8_t mem[1 << 20];
	char err[200];
	const uint32_t at = 0x9FC00, sig = 0x0F52, feat = 0x078BFBFF;
	int n = mptable_write(mem, sizeof(mem), at, 2, sig, feat, err, sizeof(err));
	ok(n > 0 && n <= 1024, "an MP table for 2 vCPUs fits the last KiB of base memory (%d bytes)", n);
	const uint8_t *fp = mem + at;
	ok(memcmp(fp, "_MP_", 4) == 0 && fp[8] == 1 && fp[9] == 4 && sum(fp, 16) == 0,
	   "floating pointer: _MP_, 1 paragraph, revision 1.4, sums to 0");
	uint32_t tab = rd32(fp + 4);
	is_u64(tab, at + 16, "it points at the table right after it");
	const uint8_t *t = mem + tab;
	uint16_t len = rd16(t + 4);
	ok(memcmp(t, "PCMP", 4) == 0 && t[6] == 4 && sum(t, len) == 0 && (int)len + 16 == n,
	   "table header: PCMP, revision 1.4, the whole table sums to 0");
	is_u64(rd32(t + 36), 0xFEE00000u, "local APICs at 0xFEE00000");
	is_u64(rd16(t + 34), 2 + 1 + 1 + 16 + 2, "entries: 2 processors, a bus, an I/O APIC, 16 IRQs, 2 LINTs");

	const uint8_t *e = t + 44;
	ok(e[0] == 0 && e[1] == 0 && e[3] == 3 && rd32(e + 4) == sig && rd32(e + 8) == feat,
	   "processor 0: APIC id 0, enabled and the boot processor, the CPUID signature and features");
	ok(e[20] == 0 && e[21] == 1 && e[23] == 1, "processor 1: APIC id 1, enabled, not the boot processor");
	e += 40;
	ok(e[0] == 1 && e[1] == 0 && memcmp(e + 2, "ISA   ", 6) == 0, "bus 0 is ISA");
	e += 8;
	ok(e[0] == 2 && e[1] == 2 && e[3] == 1 && rd32(e + 4) == MPTABLE_IOAPIC_ADDR,
	   "the I/O APIC: id 2 (after the local APICs), enabled, at 0xFEC00000");
	e += 8;
	int irqs_ok = 1;
	for (unsigned i = 0; i < 16; i++, e += 8)
		irqs_ok &= e[0] == 3 && e[1] == 0 && e[4] == 0 && e[5] == i && e[6] == 2 && e[7] == i;
	ok(irqs_ok, "ISA IRQ n arrives on I/O APIC pin n for n = 0..15 (KVM's default routing)");
	ok(e[0] == 4 && e[1] == 3 && e[6] == 0xFF && e[7] == 0, "LINT0 is ExtINT on every local APIC");
	ok(e[8] == 4 && e[9] == 1 && e[14] == 0xFF && e[15] == 1, "LINT1 is NMI on every local APIC");

	ok(mptable_write(mem, sizeof(mem), at, 0, sig, feat, err, sizeof(err)) == -1 && strstr(err, "0 vCPUs"),
	   "no vCPU: refused (%s)", err);
	ok(mptable_write(mem, sizeof(mem), at, 17, sig, feat, err, sizeof(err)) == -1,
	   "17 vCPUs: refused");
	ok(mptable_write(mem, sizeof(mem), at + 4, 1, sig, feat, err, sizeof(err)) == -1,
	   "an address not 16-byte aligned: refused");
	ok(mptable_write(mem, sizeof(mem), sizeof(mem) - 64, 1, sig, feat, err, sizeof(err)) == -1,
	   "a table that would leave guest memory: refused");
	return tap_done();
}
