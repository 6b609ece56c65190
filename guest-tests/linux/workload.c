/* SPDX-License-Identifier: MIT */
/*
 * vpmu-workload: a tiny workload for `perf` inside a Linux guest (i386).
 *
 *     vpmu-workload [M]      M million iterations (default 10)
 *
 * Freestanding: no libc, its own _start, raw `int $0x80` system calls (write,
 * exit), so it is a static i386 ELF that runs under Debian's 686 kernel and,
 * through IA32 emulation, under its amd64 kernel.  Built unstripped (-g) so
 * `perf report` names its functions: hot_crc_loop() takes about 95% of the
 * time, cold_mix_loop() about 5% (both noinline, so each is one symbol).
 * It prints one line with both results (so neither loop can be optimised
 * away) and the time the two loops took on the guest's CLOCK_MONOTONIC (what
 * bench/linux-sampling.sh compares, without perf's own start and end), and
 * exits 0; a malformed M exits 2.
 *
 * Built by `make guests` (guest-tests/guest.mk) into build/guest/vpmu-workload;
 * scripts/guest-image's initramfs runs it from a test's /run.sh.
 */
#include "i386_linux.h"

#define SYS_clock_gettime 265   /* i386, 32-bit struct timespec */
#define CLOCK_MONOTONIC 1

struct timespec32 {
	long tv_sec, tv_nsec;
};

static u32 elapsed_us(const struct timespec32 *a, const struct timespec32 *b)
{
	return (u32)(b->tv_sec - a->tv_sec) * 1000000u + (u32)(b->tv_nsec - a->tv_nsec + 1000000000) / 1000u -
	       1000000u;
}

/* The hot function: a bitwise CRC-32 over a byte stream generated on the fly,
 * eight shift/xor steps per byte, `bytes` bytes. */
__attribute__((noinline)) u32 hot_crc_loop(u32 bytes)
{
	u32 crc = 0xFFFFFFFFu;
	for (u32 i = 0; i < bytes; i++) {
		crc ^= (i * 2654435761u) >> 24;
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
	}
	return ~crc;
}

/* The cold function: an xorshift mix, run for 1/7 of the hot loop's bytes: about
 * 5% of the time (95% : 5% measured with perf on an x86-64 host). */
__attribute__((noinline)) u32 cold_mix_loop(u32 n)
{
	u32 x = 2463534242u, sum = 0;
	for (u32 i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		sum += x ^ (sum >> 3);
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		sum += x ^ (sum >> 7);
	}
	return sum;
}

static int workload_main(int argc, char **argv)
{
	u32 millions = 10;
	if (argc > 1) {
		const char *p = argv[1];
		millions = 0;
		if (!*p)
			goto bad;
		for (; *p; p++) {
			if (*p < '0' || *p > '9' || millions > 400)
				goto bad;
			millions = millions * 10 + (u32)(*p - '0');
		}
		if (millions > 4000) /* 4e9 bytes still fit in 32 bits */
			goto bad;
	}
	u32 bytes = millions * 1000000u;
	struct timespec32 t0, t1;
	sys3(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&t0, 0);
	u32 crc = hot_crc_loop(bytes);
	u32 mix = cold_mix_loop(bytes / 7);
	sys3(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&t1, 0);

	char b1[16], b2[16], b3[16], b4[16];
	put("vpmu-workload: ");
	put(utoa(b1 + sizeof b1, millions, 10));
	put(" M iterations, crc 0x");
	put(utoa(b2 + sizeof b2, crc, 16));
	put(", mix 0x");
	put(utoa(b3 + sizeof b3, mix, 16));
	put(", in ");
	put(utoa(b4 + sizeof b4, elapsed_us(&t0, &t1), 10));
	put(" us\n");
	return 0;
bad:
	put("usage: vpmu-workload [MILLIONS] (0 to 4000)\n");
	return 2;
}

I386_LINUX_START(workload_main);
