/* SPDX-License-Identifier: MIT */
/*
 * Fault recovery: every safe accessor's faulting instruction is listed in the
 * .ex_table section (the address of its first byte).  On #GP/#UD the handler
 * accepts a fault only at a listed address whose bytes are WRMSR (0F 30),
 * RDMSR (0F 32) or RDPMC (0F 33); it then sets the per-vCPU fault flag and
 * resumes 2 bytes later.  The flag is EDI of the interrupted context: the
 * accessor zeroes EDI before the instruction and tests it after, so the flag
 * is private to the vCPU by construction and survives no further than the
 * accessor.  Any other #GP is unexpected (idt.c).
 */
#include "msr.h"

#include "idt.h"
#include "layout.h"
#include "smp.h"

extern const uint32_t __ex_table_start[], __ex_table_end[];

static volatile uint32_t last_vector[MAX_CPUS];

#define SAFE_INSN(insn) \
	"1: " insn "\n" \
	".pushsection .ex_table, \"a\"\n" \
	".long 1b\n" \
	".popsection\n"

static int result(uint32_t vector)
{
	last_vector[this_cpu()] = vector;
	return vector == 0 ? 0 : vector == VEC_GP ? -1 : -2;
}

int rdmsr_safe(uint32_t msr, uint64_t *v)
{
	uint32_t lo, hi, fault;
	__asm__ volatile(SAFE_INSN("rdmsr")
			 : "=a"(lo), "=d"(hi), "=D"(fault)
			 : "c"(msr), "0"(0), "1"(0), "2"(0)
			 : "memory");
	*v = fault ? 0 : ((uint64_t)hi << 32) | lo;
	return result(fault);
}

int wrmsr_safe(uint32_t msr, uint64_t v)
{
	uint32_t fault;
	__asm__ volatile(SAFE_INSN("wrmsr")
			 : "=D"(fault)
			 : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)), "0"(0)
			 : "memory");
	return result(fault);
}

int rdpmc_safe(uint32_t idx, uint64_t *v)
{
	uint32_t lo, hi, fault;
	__asm__ volatile(SAFE_INSN("rdpmc")
			 : "=a"(lo), "=d"(hi), "=D"(fault)
			 : "c"(idx), "0"(0), "1"(0), "2"(0)
			 : "memory");
	*v = fault ? 0 : ((uint64_t)hi << 32) | lo;
	return result(fault);
}

uint32_t last_fault_vector(void)
{
	return last_vector[this_cpu()];
}

int safe_insn_fixup(struct irq_frame *f)
{
	const uint8_t *ip = (const uint8_t *)(uintptr_t)f->eip;
	const uint32_t *e;
	for (e = __ex_table_start; e < __ex_table_end; e++)
		if (*e == f->eip)
			break;
	if (e == __ex_table_end)
		return 0;
	if (ip[0] != 0x0F || (ip[1] != 0x30 && ip[1] != 0x32 && ip[1] != 0x33))
		return 0;
	f->edi = f->vector & 0xFF;
	f->eip += 2;
	return 1;
}
