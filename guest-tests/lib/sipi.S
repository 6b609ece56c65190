/* SPDX-License-Identifier: MIT */
/*
 * Real-mode start-up trampoline for the QEMU test aid (smp.h): an AP woken by
 * a STARTUP IPI at page 7 runs this, copied to 0x7000, with CS = 0x0700, IP = 0.
 * It loads the image's GDT, enters protected mode and jumps to _start, which
 * then behaves exactly as when vpmu-run starts the AP there directly.
 */
#include "layout.h"

	.section .rodata
	.code16
	.globl sipi_tramp_start, sipi_tramp_end
sipi_tramp_start:
	cli
	movw	%cs, %ax
	movw	%ax, %ds
	lgdtl	sipi_gdt_desc - sipi_tramp_start
	movl	%cr0, %eax
	orl	$1, %eax
	movl	%eax, %cr0
	ljmpl	$SEL_CODE, $_start
	.balign 4
	.word 0
sipi_gdt_desc:
	.word	3 * 8 - 1
	.long	gdt
sipi_tramp_end:
	.code32

	.section .note.GNU-stack, "", @progbits
