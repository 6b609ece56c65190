/* SPDX-License-Identifier: MIT */
/*
 * vpmu-selfcount: the simplest perf client, inside a Linux guest (i386).  It
 * opens hardware events on itself with perf_event_open (pid 0, cpu -1,
 * disabled), resets and enables them with ioctl, spins, disables and reads
 * them, and prints what it counted next to the TSC ticks of its loop:
 *
 *     vpmu-selfcount [MILLIONS [PERIOD]]   (40 million iterations, period 2^23)
 *
 * The period is long for the nested tier's sake: there a PMI reaches the guest
 * 1-1.5 million cycles after its overflow (docs/performance.md), which costs a
 * 2^21-cycle period most of its PMIs.
 *
 * Four windows, each with a new event on the cycles counter:
 *   count 1, count 2   a counting cycles event (no sample period);
 *   sample 1, sample 2 a sampling cycles event with PERIOD, whose overflows
 *                      signal the process (fcntl F_SETOWN, F_SETSIG with a
 *                      queued real-time signal, O_ASYNC: a signal for each
 *                      overflow interrupt Linux handles for the event).
 * Each prints one line:
 *     vpmu-selfcount: count 1 cycles=N ticks=T switches=S
 *     vpmu-selfcount: sample 1 period=P signals=K cycles=N ticks=T switches=S
 * where N is what read(2) returned, T the TSC ticks of the loop alone and S
 * the process's context switches during the window (a software event on
 * itself, PERF_COUNT_SW_CONTEXT_SWITCHES): each switch schedules the hardware
 * event out and in again, which Linux's P4 driver does not survive
 * (docs/linux-guests.md, "Pentium 4").  The windows run one after the other on
 * one CPU (the process pins itself to CPU 0), so what the P4 driver left in a
 * counter from the window before is known: tests/linux-perf.t checks each
 * window against it.  The process runs SCHED_FIFO where it may (a first line
 * says "policy fifo" or "policy other"), so that no ordinary task preempts a
 * window.  Exits 0, or 1 with a "vpmu-selfcount: error" line.
 *
 * Freestanding, like workload.c: its own _start, raw `int $0x80` system calls,
 * a static i386 ELF for Debian's 686 kernel and, through IA32 emulation, its
 * amd64 kernel (without the 32-bit vDSO: the signal restorer is its own).
 * Built by `make guests` into build/guest/vpmu-selfcount.
 */
#include "i386_linux.h"

#define SYS_read 3
#define SYS_close 6
#define SYS_getpid 20
#define SYS_ioctl 54
#define SYS_rt_sigreturn 173
#define SYS_rt_sigaction 174
#define SYS_fcntl64 221
#define SYS_sched_setscheduler 156
#define SYS_sched_setaffinity 241
#define SYS_perf_event_open 336

/* include/uapi/linux/perf_event.h */
#define PERF_TYPE_HARDWARE 0
#define PERF_TYPE_SOFTWARE 1
#define PERF_COUNT_HW_CPU_CYCLES 0
#define PERF_COUNT_SW_CONTEXT_SWITCHES 3
#define PERF_SAMPLE_IP 1
#define ATTR_DISABLED 1ull      /* perf_event_attr's first flag bit */
#define PERF_EVENT_IOC_ENABLE 0x2400
#define PERF_EVENT_IOC_DISABLE 0x2401
#define PERF_EVENT_IOC_RESET 0x2403
/* include/uapi/asm-generic/fcntl.h, signal.h (i386) */
#define F_SETFL 4
#define F_SETOWN 8
#define F_SETSIG 10
#define O_ASYNC 020000
#define SA_SIGINFO 0x4u         /* an rt frame, which rt_sigreturn undoes */
#define SA_RESTORER 0x04000000u
#define SIG_OVF 40              /* a real-time signal: queued, never merged */
#define SCHED_FIFO 1

/* PERF_ATTR_SIZE_VER0: every field this program sets. */
struct perf_attr {
	u32 type, size;
	u64 config, sample_period, sample_type, read_format, flags;
	u32 wakeup_events, bp_type;
	u64 config1;
};

struct ksigaction {
	void (*handler)(int);
	u32 flags;
	void (*restorer)(void);
	u32 mask[2];
};

/* Decimal without libgcc's 64-bit division: shift and subtract. */
static void put_u64(u64 v)
{
	char b[24], *p = b + sizeof b;
	*--p = 0;
	do {
		u64 q = 0, r = 0;
		for (int i = 63; i >= 0; i--) {
			r = (r << 1) | ((v >> i) & 1);
			if (r >= 10) {
				r -= 10;
				q |= 1ull << i;
			}
		}
		*--p = (char)('0' + r);
		v = q;
	} while (v);
	put(p);
}

static void field(const char *name, u64 v)
{
	put(" ");
	put(name);
	put("=");
	put_u64(v);
}

__attribute__((noreturn)) static void fail(const char *what, long err)
{
	put("vpmu-selfcount: error: ");
	put(what);
	put(" returned -");
	put_u64((u64)-err);
	put("\n");
	sys_exit(1);
}

static inline u64 rdtsc(void)
{
	u64 v;
	__asm__ volatile("rdtsc" : "=A"(v));
	return v;
}

/* The loop: a linear congruential generator, one multiply-add a step. */
__attribute__((noinline)) u32 spin(u32 n)
{
	u32 x = 1;
	for (u32 i = 0; i < n; i++)
		x = x * 1664525u + 1013904223u;
	return x;
}

static volatile u32 signals;
static volatile u32 sink;

static void on_overflow(int sig)
{
	(void)sig;
	signals++;
}

/* rt_sigreturn, for a kernel without the 32-bit vDSO (vdso32=0). */
void restorer(void);
__asm__(".text\n"
	".globl restorer\n"
	".type restorer, @function\n"
	"restorer:\n"
	"	movl $173, %eax\n"
	"	int $0x80\n"
	".size restorer, . - restorer\n");

static int event_open(u32 type, u64 config, u64 period, u64 flags)
{
	struct perf_attr a = { 0 };
	a.type = type;
	a.size = sizeof a;
	a.config = config;
	a.sample_period = period;
	a.sample_type = period ? PERF_SAMPLE_IP : 0;
	a.flags = flags;
	a.wakeup_events = period ? 1 : 0;
	long fd = sys5(SYS_perf_event_open, (long)&a, 0, -1, -1, 0);
	if (fd < 0)
		fail("perf_event_open", fd);
	return (int)fd;
}

static u64 event_read(int fd)
{
	u64 v = 0;
	long r = sys3(SYS_read, fd, (long)&v, sizeof v);
	if (r != (long)sizeof v)
		fail("read", r < 0 ? r : -5);
	return v;
}

static void ioctl0(int fd, long req)
{
	long r = sys3(SYS_ioctl, fd, req, 0);
	if (r < 0)
		fail("ioctl", r);
}

/* One window: a new cycles event (period 0: counting), reset, enabled, the
 * loop, disabled, read, closed. */
static void window(const char *kind, u32 run, u32 iters, u64 period, int switches_fd)
{
	int fd = event_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, period, ATTR_DISABLED);
	if (period) {
		long pid = sys3(SYS_getpid, 0, 0, 0), r;
		if ((r = sys3(SYS_fcntl64, fd, F_SETOWN, pid)) < 0 ||
		    (r = sys3(SYS_fcntl64, fd, F_SETSIG, SIG_OVF)) < 0 ||
		    (r = sys3(SYS_fcntl64, fd, F_SETFL, O_ASYNC)) < 0)
			fail("fcntl", r);
	}
	signals = 0;
	u64 sw0 = event_read(switches_fd);
	ioctl0(fd, PERF_EVENT_IOC_RESET);
	ioctl0(fd, PERF_EVENT_IOC_ENABLE);
	u64 t0 = rdtsc();
	sink = spin(iters);
	u64 t1 = rdtsc();
	ioctl0(fd, PERF_EVENT_IOC_DISABLE);
	u64 count = event_read(fd);
	u64 sw1 = event_read(switches_fd);
	sys3(SYS_close, fd, 0, 0);

	put("vpmu-selfcount: ");
	put(kind);
	put(" ");
	put_u64(run);
	if (period) {
		field("period", period);
		field("signals", signals);
	}
	field("cycles", count);
	field("ticks", t1 - t0);
	field("switches", sw1 - sw0);
	put("\n");
}

/* Touch the stack the signal frames will use.  In the nested tier a process
 * whose first PMU-overflow signal made the kernel fault in a new stack page
 * for the frame died at the signal's return (rt_sigreturn read a zeroed frame:
 * "trap iret exception ip:0 sp:0"); with the pages present it never did
 * (docs/linux-guests.md, "Known problems in the nested tier"). */
__attribute__((noinline)) static void stack_prefault(void)
{
	volatile char pages[32768];
	for (u32 i = 0; i < sizeof pages; i += 1024)
		pages[i] = 0;
}

static int parse(const char *p, u32 *out)
{
	u32 v = 0;
	if (!*p)
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > 400000000u)
			return -1;
		v = v * 10 + (u32)(*p - '0');
	}
	*out = v;
	return 0;
}

static int selfcount_main(int argc, char **argv)
{
	u32 millions = 40, period = 1u << 23;
	if ((argc > 1 && (parse(argv[1], &millions) || !millions || millions > 4000)) ||
	    (argc > 2 && (parse(argv[2], &period) || !period)) || argc > 3) {
		put("usage: vpmu-selfcount [MILLIONS [PERIOD]]\n");
		return 2;
	}
	stack_prefault();
	u32 cpu0 = 1;
	long r = sys3(SYS_sched_setaffinity, 0, sizeof cpu0, (long)&cpu0);
	if (r < 0)
		fail("sched_setaffinity", r);
	/* SCHED_FIFO, where allowed: no ordinary task preempts a window, so the
	 * hardware event is scheduled in once per window (the line's switches
	 * say whether it was). */
	int prio = 1;
	int fifo = sys3(SYS_sched_setscheduler, 0, SCHED_FIFO, (long)&prio) == 0;
	put(fifo ? "vpmu-selfcount: policy fifo\n" : "vpmu-selfcount: policy other\n");
	struct ksigaction sa = { on_overflow, SA_SIGINFO | SA_RESTORER, restorer, { 0, 0 } };
	if ((r = sys5(SYS_rt_sigaction, SIG_OVF, (long)&sa, 0, sizeof sa.mask, 0)) < 0)
		fail("rt_sigaction", r);
	int sw = event_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0);
	u32 iters = millions * 1000000u;
	window("count", 1, iters, 0, sw);
	window("count", 2, iters, 0, sw);
	window("sample", 1, iters, period, sw);
	window("sample", 2, iters, period, sw);
	return 0;
}

I386_LINUX_START(selfcount_main);
