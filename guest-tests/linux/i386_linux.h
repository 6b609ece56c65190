/* SPDX-License-Identifier: MIT */
/*
 * What the freestanding i386 Linux programs of guest-tests/linux/ share: no
 * libc, raw `int $0x80` system calls (arch/x86/entry/syscalls/syscall_32.tbl
 * numbers), output to stdout, and their own _start.  Static i386 ELFs of this
 * kind run under Debian's 686 kernel and, through IA32 emulation, its amd64
 * kernel.
 */
#ifndef VPMU_GUEST_I386_LINUX_H
#define VPMU_GUEST_I386_LINUX_H

typedef unsigned int u32;
typedef unsigned long long u64;

#define SYS_exit  1
#define SYS_write 4

static inline long sys5(long nr, long a, long b, long c, long d, long e)
{
	long ret;
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory");
	return ret;
}
#define sys3(nr, a, b, c) sys5(nr, a, b, c, 0, 0)

__attribute__((noreturn)) static inline void sys_exit(int status)
{
	for (;;)
		sys3(SYS_exit, status, 0, 0);
}

static inline void put(const char *s)
{
	long n = 0;
	while (s[n])
		n++;
	sys3(SYS_write, 1, (long)s, n);
}

/* v in base 2..16, written backwards from end (a NUL first). */
static inline char *utoa(char *end, u32 v, u32 base)
{
	*--end = 0;
	do {
		*--end = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	return end;
}

/* The process entry: ESP points at argc, then argv[].  _start aligns the stack
 * for the C code and passes it the initial stack pointer; main_fn's status is
 * the exit status. */
#define I386_LINUX_START(main_fn)                                             \
	__attribute__((used, noreturn)) static void start_c(long *sp)         \
	{                                                                     \
		sys_exit(main_fn((int)sp[0], (char **)(sp + 1)));             \
	}                                                                     \
	__asm__(".text\n"                                                     \
		".globl _start\n"                                             \
		".type _start, @function\n"                                   \
		"_start:\n"                                                   \
		"	xorl %ebp, %ebp\n"                                    \
		"	movl %esp, %eax\n"                                    \
		"	andl $-16, %esp\n"                                    \
		"	subl $12, %esp\n"                                     \
		"	pushl %eax\n"                                         \
		"	call start_c\n"                                       \
		"	hlt\n"                                                \
		".size _start, . - _start\n")

#endif
