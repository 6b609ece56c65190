/* SPDX-License-Identifier: MIT */
/*
 * Interrupt and exception dispatch.  Every vector has a stub (isr.S); a vector
 * with a registered handler calls it, #GP and #UD first try the safe-instruction
 * fixup (msr.c), the spurious vector is counted, and anything else is an
 * unexpected exception: reported as a failure (vector, EIP) and the run ends.
 */
#ifndef GUEST_IDT_H
#define GUEST_IDT_H

#include <stdint.h>

/* The stack as isr_common leaves it: pushal's registers, then the stub's and
 * the CPU's words.  No privilege change ever happens, so no ESP/SS follow. */
struct irq_frame {
	uint32_t edi, esi, ebp, esp_unused, ebx, edx, ecx, eax;
	uint32_t vector, error;
	uint32_t eip, cs, eflags;
};

typedef void (*irq_handler_t)(struct irq_frame *f);

#define VEC_UD        6
#define VEC_NMI       2
#define VEC_GP        13
#define VEC_PMI       0xEE   /* perfctr's LOCAL_PERFCTR_VECTOR (low-level-x86.txt) */
#define VEC_IPI       0xED   /* BSP -> AP wake-up */
#define VEC_TIMER     0xEF   /* the APs' LAPIC timer tick while idle */
#define VEC_SPURIOUS  0xFF

/* Builds this vCPU's IDT and loads it (each vCPU has its own copy, so the APs
 * need not wait for the BSP). */
void idt_init_this_cpu(void);
/* Handlers are shared by all vCPUs; register before the event can happen. */
void set_irq_handler(uint8_t vector, irq_handler_t h);
uint32_t spurious_count(void);

/* Implemented by msr.c: recovers a fault at a safe accessor's instruction. */
int safe_insn_fixup(struct irq_frame *f);

#endif
