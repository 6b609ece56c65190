/* SPDX-License-Identifier: MIT */
/*
 * One stub per vector, each ISR_STUB_SIZE bytes long so idt.c can compute its
 * address.  A stub pushes a dummy error code where the CPU pushes none, then
 * the vector, and joins isr_common, which hands a struct irq_frame (idt.h) to
 * isr_dispatch().  The handler may change the saved registers and EIP: that is
 * how the safe MSR accessors recover from #GP (msr.c).
 */
#include "layout.h"

/* Vectors for which the CPU pushes an error code (SDM vol. 3, 6.13). */
#define HAS_ERRCODE(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

	.text
	.code32
	.balign ISR_STUB_SIZE
	.globl isr_stubs
isr_stubs:
	vector = 0
	.rept 256
	.balign ISR_STUB_SIZE
	.if HAS_ERRCODE(vector)
	.else
	pushl	$0
	.endif
	pushl	$vector
	jmp	isr_common
	vector = vector + 1
	.endr

isr_common:
	pushal
	cld
	pushl	%esp            /* struct irq_frame * */
	call	isr_dispatch
	addl	$4, %esp
	popal
	addl	$8, %esp        /* vector and error code */
	iretl

	.section .note.GNU-stack, "", @progbits
