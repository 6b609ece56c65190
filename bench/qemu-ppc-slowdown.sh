#!/bin/sh
# SPDX-License-Identifier: MIT
# qemu-ppc-slowdown.sh: what counting with the vPMU costs a guest under the
# patched qemu-system-ppc (patches/qemu-ppc, docs/ppc.md), in one boot.
#
#   bench/qemu-ppc-slowdown.sh [ROUNDS]      (default 5)
#
# A bare ppc32 program (built here with powerpc-linux-gnu-gcc, loaded by
# OpenBIOS with -kernel on -M mac99 -cpu 7450,vpmu=on, printing through the
# Open Firmware client interface) times the same workload (a hash over an
# array: loads, stores, shifts, a data-dependent branch) with the timebase,
# ROUNDS times with the counters frozen (MMCR0[FC]: no trace of the vPMU in
# the translated code) and ROUNDS times counting (PMC1 instructions, PMC2
# cycles, every instruction counted), alternately.  Then the same program
# under the same QEMU without vpmu= (its PMU SPRs plain storage) gives the
# baseline's rounds.  Prints the median of each and the slowdown of counting
# against each baseline.  The timebase advances with the host's clock under
# TCG, so these are host times.  QEMU: VPMU_PPC_QEMU or scripts/qemu-build
# --target ppc; libvpmu from build/lib (make lib).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
case $rounds in '' | *[!0-9]*) echo "usage: $0 [ROUNDS]" >&2; exit 2 ;; esac
CC=${PPC_CC:-powerpc-linux-gnu-gcc}
command -v "$CC" >/dev/null || { echo "$0: $CC not found (apt-get install gcc-powerpc-linux-gnu)" >&2; exit 125; }
qemu=${VPMU_PPC_QEMU:-}
if [ -z "$qemu" ]; then
	dir=$("$top/scripts/qemu-build" --target ppc) || exit 125
	qemu=$dir/bin/qemu-system-ppc
fi
make -s -C "$top" lib >/dev/null
tmp=$(mktemp -d /tmp/qemu-ppc-slowdown.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# QEMU links libvpmu.so.1, the soname of build/lib/libvpmu.so.
mkdir "$tmp/lib" && ln -s "$top/build/lib/libvpmu.so" "$tmp/lib/libvpmu.so.1"
LD_LIBRARY_PATH=$tmp/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

cat >"$tmp/crt.S" <<'ASM'
	.globl _start
_start:
	lis 1, stack_top@ha
	addi 1, 1, stack_top@l
	bl start
1:	b 1b
	.bss
	.align 4
	.space 16384
stack_top:
ASM
cat >"$tmp/bench.c" <<CSRC
typedef unsigned int u32;
typedef unsigned long long u64;
static int (*prom)(void *);
static u32 out_ih;
struct ci { const char *svc; int nargs, nret; u32 a[10]; };
static int ci(const char *svc, int nargs, int nret, u32 a0, u32 a1, u32 a2, u32 a3)
{
	struct ci c = { svc, nargs, nret, { a0, a1, a2, a3 } };
	prom(&c);
	return nret ? (int)c.a[nargs] : 0;
}
static unsigned slen(const char *s) { unsigned n = 0; while (s[n]) n++; return n; }
static void out(const char *s) { ci("write", 3, 1, out_ih, (u32)s, slen(s), 0); }
static void outu(u64 v)
{
	char b[24]; int i = 23; b[i] = 0;
	do { b[--i] = '0' + v % 10; v /= 10; } while (v);
	out(b + i);
}
#define mtspr(n, v) __asm__ volatile("mtspr %0,%1" :: "i"(n), "r"(v))
#define mfspr(n) ({ u32 _v; __asm__ volatile("mfspr %0,%1" : "=r"(_v) : "i"(n)); _v; })
static u64 tb(void)
{
	u32 hi, lo, hi2;
	do { hi = mfspr(269); lo = mfspr(268); hi2 = mfspr(269); } while (hi != hi2);
	return (u64)hi << 32 | lo;
}
static volatile u32 buf[1024];
static u32 __attribute__((noinline)) work(u32 n)
{
	u32 h = 0x12345678;
	for (u32 i = 0; i < n; i++) {
		buf[i & 1023] += h;
		h = (h << 5) ^ (h >> 27) ^ buf[(i * 7) & 1023];
		if (h & 1) h += i; else h ^= i;
	}
	return h;
}
void start(u32 r3, u32 r4, u32 r5)
{
	prom = (void *)r5;
	u32 chosen = ci("finddevice", 1, 1, (u32)"/chosen", 0, 0, 0);
	ci("getprop", 4, 1, chosen, (u32)"stdout", (u32)&out_ih, 4);
	work(100000);
	for (int r = 0; r < 2 * $rounds; r++) {
		int counting = r & 1;
		/* PMC1 instructions (PMC1SEL 2), PMC2 cycles (PMC2SEL 1) */
		mtspr(952, 0x80000000u | (2 << 6) | 1);
		mtspr(953, 0); mtspr(954, 0);
		u64 t0 = tb();
		if (counting)
			mtspr(952, (2 << 6) | 1);
		work(WORK_N);
		if (counting)
			mtspr(952, 0x80000000u | (2 << 6) | 1);
		u64 t1 = tb();
		out(counting ? "BENCH counting tb " : "BENCH frozen tb ");
		outu(t1 - t0); out(" pmc1 "); outu(mfspr(953)); out("\r\n");
	}
	out("BENCH done\r\n");
	for (;;)
		;
}
CSRC
"$CC" -O2 -ffreestanding -nostdlib -static -mcpu=7450 -DWORK_N=${WORK_N:-30000000} \
	-Wl,-Ttext=0x01000000 -Wl,--build-id=none -Wl,-z,noexecstack \
	-o "$tmp/bench0.elf" "$tmp/crt.S" "$tmp/bench.c"
# -kernel loads an ELF at its physical address plus 0x01000000 (mac99).
"${CC%gcc}objcopy" --change-section-lma '*-0x01000000' "$tmp/bench0.elf" "$tmp/bench.elf"

# run NAME CPU: boots the program, its BENCH lines in $tmp/NAME.out
run() {
	: >"$tmp/$1.out"
	"$qemu" -M mac99 -cpu "$2" -m 128 -nographic -vga none -nic none -L /usr/share/qemu \
		-kernel "$tmp/bench.elf" -serial "file:$tmp/$1.out" -monitor none \
		>"$tmp/$1.log" 2>"$tmp/$1.err" &
	pid=$!
	t=0
	while ! grep -aq 'BENCH done' "$tmp/$1.out" 2>/dev/null; do
		sleep 1; t=$((t + 1))
		[ $t -lt 300 ] && kill -0 $pid 2>/dev/null ||
			{ kill $pid 2>/dev/null || :; echo "$0: $1: no result" >&2; cat "$tmp/$1.err" >&2; exit 1; }
	done
	kill $pid 2>/dev/null || :
	wait $pid 2>/dev/null || :
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
run vpmu 7450,vpmu=on
run off 7450
frozen=$(grep -a 'BENCH frozen' "$tmp/vpmu.out" | awk '{ print $4 }' | median)
counting=$(grep -a 'BENCH counting' "$tmp/vpmu.out" | awk '{ print $4 }' | median)
insns=$(grep -a 'BENCH counting' "$tmp/vpmu.out" | awk '{ print $6 }' | median)
off=$(grep -a 'BENCH' "$tmp/off.out" | grep -v done | awk '{ print $4 }' | median)
echo "qemu: $qemu"
echo "workload: $insns instructions a round (PMC1), $rounds rounds each; timebase ticks, medians"
echo "vpmu=on, counters frozen:   $frozen"
echo "vpmu=on, counting:          $counting"
echo "no vpmu= (same QEMU):       $off"
awk -v f="$frozen" -v c="$counting" -v o="$off" 'BEGIN {
	printf "slowdown of counting: %.1f%% against frozen counters (one boot), %.1f%% against no vpmu=\n",
		(c / f - 1) * 100, (c / o - 1) * 100
	printf "frozen counters against no vpmu=: %+.1f%%\n", (f / o - 1) * 100 }'
grep -a 'vpmu: event instructions' "$tmp/vpmu.err" || true
