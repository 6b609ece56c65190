/* SPDX-License-Identifier: MIT */
/* Single-instruction helpers: port I/O, CPUID, TSC, interrupt flag, MMIO. */
#ifndef GUEST_X86_H
#define GUEST_X86_H

#include <stdbool.h>
#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "0"(leaf), "2"(sub));
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void cli(void) { __asm__ volatile("cli" : : : "memory"); }
static inline void sti(void) { __asm__ volatile("sti" : : : "memory"); }
static inline void cpu_relax(void) { __asm__ volatile("pause" : : : "memory"); }
static inline void barrier(void) { __asm__ volatile("" : : : "memory"); }
/* A full fence without SSE2's mfence (the P5 models predate it). */
static inline void mb(void) { __asm__ volatile("lock; addl $0, (%%esp)" : : : "memory", "cc"); }

/* sti takes effect after the next instruction, so "sti; hlt" cannot lose a
 * wake-up between the two. */
static inline void sti_hlt(void) { __asm__ volatile("sti; hlt" : : : "memory"); }

static inline bool irqs_enabled(void)
{
	uint32_t f;
	__asm__ volatile("pushfl; popl %0" : "=r"(f));
	return f & 0x200;
}

static inline uint32_t mmio_read32(uintptr_t addr) { return *(volatile uint32_t *)addr; }
static inline void mmio_write32(uintptr_t addr, uint32_t v) { *(volatile uint32_t *)addr = v; }

static inline uint32_t xchg32(volatile uint32_t *p, uint32_t v)
{
	__asm__ volatile("xchgl %0, %1" : "+r"(v), "+m"(*p) : : "memory");
	return v;
}

static inline uint32_t atomic_inc32(volatile uint32_t *p)
{
	uint32_t v = 1;
	__asm__ volatile("lock; xaddl %0, %1" : "+r"(v), "+m"(*p) : : "memory");
	return v + 1;
}

#endif
