/* SPDX-License-Identifier: MIT */
/*
 * Entry of every guest image (every vCPU at once, guest_abi.h): our own GDT,
 * every segment register reloaded, a stack per vCPU chosen by its local APIC
 * id, then the bootstrap processor (APIC id 0) runs bsp_entry() and the others
 * ap_entry().  The multiboot header is in multiboot.c, written in C so that it
 * takes its constants from guest_abi.h, which is not assembler-safe.
 */
#include "layout.h"

	.text
	.code32
	.globl _start
_start:
	cli
	cld
	/* vpmu-run sets the segment registers' hidden parts directly
	 * (KVM_SET_SREGS) with no GDT in guest memory behind them, and an Intel
	 * host raised KVM_EXIT_INTERNAL_ERROR at the first IRET of a guest that
	 * had not reloaded FS/GS (docs/guest-tests.md, "Entry"), so load our
	 * own GDT and every segment register before anything else.  CS is flat
	 * on every way in (vpmu-run, QEMU's multiboot loader, sipi.S), DS not
	 * necessarily (sipi.S arrives with its real-mode DS), hence %cs:. */
	lgdt	%cs:gdt_desc
	ljmp	$SEL_CODE, $1f
1:	movw	$SEL_DATA, %cx
	movw	%cx, %ds
	movw	%cx, %es
	movw	%cx, %fs
	movw	%cx, %gs
	movw	%cx, %ss

	/* All vCPUs enter here at once (guest_abi.h: no INIT/SIPI), so nothing
	 * shared may be touched before the stack is per-vCPU.  The APIC id is in
	 * bits 24-31 of the LAPIC ID register. */
	movl	LAPIC_BASE + LAPIC_ID_OFF, %ecx
	shrl	$24, %ecx
	cmpl	$MAX_CPUS, %ecx
	jae	bad_cpu
	movl	%ecx, %edx
	incl	%edx
	shll	$STACK_SHIFT, %edx
	leal	cpu_stacks(%edx), %esp
	xorl	%ebp, %ebp

	testl	%ecx, %ecx
	jnz	1f
	/* The BSP keeps the multiboot magic and info pointer for the cmdline. */
	pushl	%ebx
	pushl	%eax
	call	bsp_entry
	jmp	halt_forever
1:	pushl	%ecx
	call	ap_entry
	jmp	halt_forever

bad_cpu:
	/* More vCPUs than stacks: end the VM with a distinct status rather than
	 * let two vCPUs share a stack (the port number comes from guest_abi.h
	 * through multiboot.c). */
	movl	boot_exit_port, %edx
	movl	$EXIT_BAD_APIC_ID, %eax
	outl	%eax, %dx
	.globl halt_forever
halt_forever:
	cli
	hlt
	jmp	halt_forever

	.section .rodata
	.balign 8
	.globl gdt, gdt_desc
gdt:
	.quad 0                          /* null */
	.quad 0x00CF9A000000FFFF         /* 0x08: code, base 0, limit 4 GiB, 32-bit, DPL 0 */
	.quad 0x00CF92000000FFFF         /* 0x10: data, base 0, limit 4 GiB, read/write */
gdt_end:
	.balign 4
	.word 0
gdt_desc:
	.word gdt_end - gdt - 1
	.long gdt

	.bss
	.balign 16
	.globl cpu_stacks
cpu_stacks:
	.skip MAX_CPUS * STACK_SIZE

	.section .note.GNU-stack, "", @progbits
