/* SPDX-License-Identifier: MIT */
#include "idt.h"

#include "apic.h"
#include "layout.h"
#include "report.h"
#include "smp.h"

extern char isr_stubs[];

static uint64_t idt[MAX_CPUS][256] __attribute__((aligned(8)));
static volatile irq_handler_t handlers[256];
static volatile uint32_t spurious;

static uint64_t gate(uint32_t addr)
{
	/* 32-bit interrupt gate, present, DPL 0: IF is cleared on entry, so a
	 * handler never nests with a maskable interrupt. */
	uint64_t lo = (addr & 0xFFFFu) | ((uint32_t)SEL_CODE << 16);
	uint64_t hi = (addr & 0xFFFF0000u) | 0x8E00u;
	return lo | (hi << 32);
}

void idt_init_this_cpu(void)
{
	uint64_t *t = idt[this_cpu()];
	for (unsigned v = 0; v < 256; v++)
		t[v] = gate((uint32_t)(uintptr_t)isr_stubs + v * ISR_STUB_SIZE);
	struct __attribute__((packed)) {
		uint16_t limit;
		uint32_t base;
	} d = { sizeof(idt[0]) - 1, (uint32_t)(uintptr_t)t };
	__asm__ volatile("lidt %0" : : "m"(d));
}

void set_irq_handler(uint8_t vector, irq_handler_t h)
{
	handlers[vector] = h;
}

uint32_t spurious_count(void)
{
	return spurious;
}

void isr_dispatch(struct irq_frame *f);
void isr_dispatch(struct irq_frame *f)
{
	uint32_t v = f->vector & 0xFF;
	if ((v == VEC_GP || v == VEC_UD) && safe_insn_fixup(f))
		return;
	irq_handler_t h = handlers[v];
	if (h) {
		h(f);
		return;
	}
	if (v == VEC_SPURIOUS) {
		/* The LAPIC's spurious vector takes no EOI (SDM vol. 3, 11.9). */
		spurious++;
		return;
	}
	guest_abort("unexpected exception: vector %u (0x%x), error 0x%x, EIP 0x%08x, cpu %u",
		    v, v, f->error, f->eip, this_cpu());
}
