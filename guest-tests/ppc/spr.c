// SPDX-License-Identifier: MIT
/*
 * The checks of the PowerPC guest's /init for CPUs without a Linux perf
 * driver (the 750 and 7400/7410): the kernel's CONFIG_PMU_SYSFS files and
 * the problem-state copies of the counters.
 *
 * arch/powerpc/kernel/sysfs.c gives each CPU the files mmcr0, mmcr1[, mmcr2]
 * and pmc1..pmc4[..6] (by cur_cpu_spec->pmc_type: PPC_PMC_IBM on the 750,
 * PPC_PMC_G4 on the 7400 and 745x); a write is an mtspr and a read an mfspr,
 * on that CPU, in hexadecimal.  MMCR0's PMC1SEL field is bits 0x1FC0
 * ("MPC7450 RISC Microprocessor Family Reference Manual" and the MPC750
 * user's manual, chapter "Performance Monitor": MMCR0[19-25]); event 2 on
 * PMC1 is instructions completed.  UPMC1 (SPR 937) is PMC1's user-level
 * read-only copy: mfspr in problem state reads PMC1, mtspr is a program
 * exception (Linux: SIGILL).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vpmu-init.h"

#define CPU0 "/sys/devices/system/cpu/cpu0/"
#define MMCR0_FC 0x80000000u
#define MMCR0_PMC1SEL_INSNS (2u << 6) /* PMC1SEL = 2: instructions completed */
#define LOOP_N 1000000ul

static int sysfs_write(const char *file, uint32_t v)
{
	char buf[16];
	int fd = open(file, O_WRONLY), len, rc;

	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%x\n", v);
	rc = write(fd, buf, len) == len ? 0 : -1;
	close(fd);
	return rc;
}

static int sysfs_read(const char *file, uint32_t *v)
{
	char buf[32];
	int fd = open(file, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*v = (uint32_t)strtoul(buf, NULL, 16);
	return 0;
}

void check_sysfs(void)
{
	uint32_t m0, p1a, p1b, p1c, p1d;

	if (sysfs_read(CPU0 "mmcr0", &m0)) {
		fail("sysfs", "mmcr0 readable", strerror(errno), CPU0 "mmcr0 exists (CONFIG_PMU_SYSFS)");
		return;
	}
	info("sysfs", "mmcr0 at start: %x", m0);
	/* Frozen, PMC1 cleared, then PMC1 counting instructions in both states. */
	if (sysfs_write(CPU0 "mmcr0", MMCR0_FC) || sysfs_write(CPU0 "pmc1", 0) ||
	    sysfs_write(CPU0 "mmcr0", MMCR0_PMC1SEL_INSNS)) {
		fail("sysfs", "writes accepted", strerror(errno), "programming mmcr0 and pmc1 through sysfs");
		return;
	}
	if (sysfs_read(CPU0 "mmcr0", &m0) || sysfs_read(CPU0 "pmc1", &p1a)) {
		fail("sysfs", "reads", strerror(errno), "reading mmcr0 and pmc1 back");
		return;
	}
	expect(m0 == MMCR0_PMC1SEL_INSNS, "sysfs", MMCR0_PMC1SEL_INSNS, m0, "mmcr0 reads back what was written");
	loop(LOOP_N);
	sysfs_read(CPU0 "pmc1", &p1b);
	info("sysfs", "pmc1 %u before the loop, %u after", p1a, p1b);
	/* The kernel's own instructions count too (no FCS): the sysfs read and
	 * write paths, interrupts; so at least the loop's 2N, not exactly. */
	expect(p1b - p1a >= 2 * LOOP_N, "sysfs", 2 * LOOP_N, p1b - p1a,
	       "pmc1 counting instructions grew by at least the loop's 2*%lu", LOOP_N);
	/* Frozen again (FC), the counter stands still across the same loop. */
	sysfs_write(CPU0 "mmcr0", MMCR0_FC | MMCR0_PMC1SEL_INSNS);
	sysfs_read(CPU0 "pmc1", &p1c);
	loop(LOOP_N);
	sysfs_read(CPU0 "pmc1", &p1d);
	expect(p1c == p1d && p1c >= p1b, "sysfs", p1c, p1d, "with MMCR0[FC] set pmc1 stands still across the loop");
	/* Leave PMC1 counting for check_upmc. */
	sysfs_write(CPU0 "mmcr0", MMCR0_PMC1SEL_INSNS);
}

static sigjmp_buf jb;
static volatile sig_atomic_t sig_code;

static void on_sigill(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	sig_code = si->si_code;
	siglongjmp(jb, 1);
}

static inline uint32_t upmc1(void)
{
	uint32_t v;

	__asm__ volatile("mfspr %0, 937" : "=r"(v));
	return v;
}

void check_upmc(void)
{
	struct sigaction sa, old;
	uint32_t a, b, p1;

	/* PMC1 counting instructions (as check_sysfs leaves it). */
	if (sysfs_write(CPU0 "mmcr0", MMCR0_PMC1SEL_INSNS) || sysfs_read(CPU0 "pmc1", &p1)) {
		fail("upmc", "sysfs mmcr0/pmc1", strerror(errno), "PMC1 set counting through sysfs");
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigill;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sa, &old);
	sig_code = 0;
	if (sigsetjmp(jb, 1) == 0) {
		a = upmc1();
		loop(LOOP_N);
		b = upmc1();
		info("upmc", "pmc1 %u through sysfs, then UPMC1 %u before the loop and %u after", p1, a, b);
		expect(a >= p1, "upmc", p1, a, "a problem-state mfspr of UPMC1 reads PMC1 (not behind sysfs' pmc1)");
		expect(b - a >= 2 * LOOP_N, "upmc", 2 * LOOP_N, b - a,
		       "UPMC1 grew by at least the loop's 2*%lu instructions between two reads", LOOP_N);
	} else {
		fail("upmc", "a value", "SIGILL", "a problem-state mfspr of UPMC1 (SPR 937) reads (si_code %d)",
		     (int)sig_code);
	}
	if (sigsetjmp(jb, 1) == 0) {
		__asm__ volatile("li 3, 0\n\tmtspr 937, 3" ::: "r3", "memory");
		fail("upmc", "SIGILL", "no signal", "a problem-state mtspr of UPMC1 raises a program exception");
	} else {
		/* ILL_PRVOPC (a privileged SPR) or ILL_ILLOPC: both are
		 * the program exception Linux's program_check_exception()
		 * turns into SIGILL. */
		pass("upmc", "a problem-state mtspr of UPMC1 raises a program exception: SIGILL, si_code %d%s",
		     (int)sig_code, sig_code == ILL_PRVOPC ? " (ILL_PRVOPC)" : sig_code == ILL_ILLOPC ? " (ILL_ILLOPC)" : "");
	}
	sigaction(SIGILL, &old, NULL);
	sysfs_write(CPU0 "mmcr0", MMCR0_FC);
}

/*
 * perfctr's rules on the virtual PMU (docs/models/ppc7450.md): a write of
 * MMCR1 with a reserved bit (bits 0-10 on the 745x, below PMC6SEL:
 * mpc7450-pmu.c pmcsel_shift[]) breaks "mmcr1-reserved".  Linux's own driver
 * breaks none, so QEMU's accounting at exit names this rule alone.  The write
 * is made from a child: in strict mode libvpmu refuses it with a program
 * exception, which in the kernel's sysfs store is an oops that kills the
 * writer (arch/powerpc/kernel/traps.c, die()).
 */
#define MMCR1_RESERVED_BIT 0x1u

static int reserved_write(uint32_t *before, uint32_t *after)
{
	int st = -1;
	pid_t pid;

	if (sysfs_read(CPU0 "mmcr1", before))
		return -1;
	pid = fork();
	if (pid == 0)
		_exit(sysfs_write(CPU0 "mmcr1", MMCR1_RESERVED_BIT) ? 2 : 0);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || sysfs_read(CPU0 "mmcr1", after))
		return -1;
	return st;
}

void check_rules(void)
{
	uint32_t before, after;
	int st = reserved_write(&before, &after);

	if (st < 0) {
		fail("rules", "a write of mmcr1", strerror(errno), "the writer of a reserved MMCR1 bit ran");
		return;
	}
	expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "rules", 0, (uint64_t)st,
	       "default mode: a write of a reserved MMCR1 bit is accepted (wait status %#x)", st);
	expect(after == (MMCR1_RESERVED_BIT & ~0x7FFu), "rules", MMCR1_RESERVED_BIT & ~0x7FFu, after,
	       "the reserved bit reads back as 0");
}

void check_strict(void)
{
	uint32_t before, after;
	int st = reserved_write(&before, &after);

	if (st < 0) {
		fail("strict", "a write of mmcr1", strerror(errno), "the writer of a reserved MMCR1 bit ran");
		return;
	}
	expect(WIFSIGNALED(st), "strict", 1, (uint64_t)st,
	       "strict mode: a write of a reserved MMCR1 bit is a program exception, the writer dies "
	       "(wait status %#x)", st);
	expect(after == before, "strict", before, after, "MMCR1 is left as it was");
}
