#!/bin/sh
# vpmu-run's command line and image checks (docs/vpmu-run.md): everything that is
# decided before KVM is opened, so it runs on any machine.  Bad input gets exit
# status 2 (usage) or 125 (a refused image) and one clear message; guest runs
# themselves are in tests/guests.t.
B=${VPMU_BUILD:-build}
RUN=$B/bin/vpmu-run
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
check() { # check WANT-STATUS STDERR-REGEX DESCRIPTION -- ARGS...
	want=$1 re=$2 what=$3
	shift 4
	"$RUN" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	n=$((n + 1))
	if [ $rc -eq "$want" ] && grep -q -E -- "$re" "$tmp/err"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what (status $rc, want $want)"
		sed 's/^/# /' "$tmp/err" | head -5
	fi
}
. tests/guests/images.sh
printf '\364' >"$tmp/flat.bin"   # hlt: a valid flat image

check 2 '^usage: vpmu-run' "no image: usage, status 2" --
check 2 '^usage: vpmu-run' "two images: usage" -- "$tmp/flat.bin" "$tmp/flat.bin"
check 2 '^usage: vpmu-run' "unknown option: usage" -- --frobnicate "$tmp/flat.bin"
check 2 "unknown model 'pentium9'" "unknown model named, status 2" -- --model pentium9 "$tmp/flat.bin"
check 2 '--vcpus must be a number from 1 to 16' "vCPU count out of range" -- --vcpus 0 "$tmp/flat.bin"
check 2 '--vcpus must be a number' "vCPU count not a number" -- --vcpus 2x "$tmp/flat.bin"
check 2 '--timeout must be a number' "timeout not a number" -- --timeout -5 "$tmp/flat.bin"
check 2 "--backend must be perf or sim, not 'papi'" "unknown backend" -- --backend papi "$tmp/flat.bin"
check 2 "--stat-group: no group 'no-such-group-vpmu'" "--stat-group of an unknown group: named, status 2" -- \
	--name web1 --stat-group no-such-group-vpmu "$tmp/flat.bin"
check 2 '^usage: vpmu-run' "--stat-group without --name: usage" -- --stat-group 0 "$tmp/flat.bin"
check 125 "cannot read guest image $tmp/missing.bin" "missing image file, status 125" -- "$tmp/missing.bin"
: >"$tmp/empty.bin"
check 125 "cannot read guest image .*empty" "empty image refused" -- "$tmp/empty.bin"

mbheader 0x3 0 0 0 0 0 >"$tmp/noelf-mb.bin"
check 125 'not ELF: nothing says where to load it' "multiboot header without the a.out kludge in a non-ELF image refused" -- "$tmp/noelf-mb.bin"
mbheader 0x10000 0x100000 >"$tmp/trunc.bin"
check 125 'multiboot header at offset 0 is truncated: its address fields \(flag bit 16\) need 32 bytes, and the image ends 16 bytes after it' "truncated multiboot header reported as truncated" -- "$tmp/trunc.bin"
{ head -c 8176 /dev/zero; mbheader 0x10000 0x100000 0x100000 0 0 0x100000; } >"$tmp/late.bin"
check 125 'multiboot header at offset 8176 is truncated: .* the first 8192 bytes ends 16 bytes after it' "a header reaching past the first 8192 bytes is refused (Multiboot 3.1)" -- "$tmp/late.bin"
elfmb 2 96 - - b003e6f4f4 >"$tmp/elf64.bin"
check 125 'a 64-bit ELF multiboot image: multiboot loads 32-bit ELF only' "64-bit ELF multiboot image refused" -- "$tmp/elf64.bin"
elfmb 1 96 4000 - b003e6f4f4 >"$tmp/elf-phoff.bin"
check 125 'ELF program headers \(1 of 32 bytes at offset 4000\) lie outside the 101-byte image' "ELF program headers outside the file refused" -- "$tmp/elf-phoff.bin"
elfmb 1 96 - 5000 b003e6f4f4 >"$tmp/elf-filesz.bin"
check 125 'ELF segment 0 \(offset 0, 5000 bytes in the file, 9096 in memory\) does not fit the 101-byte image' "ELF segment beyond the file refused" -- "$tmp/elf-filesz.bin"
elfmb 1 65536 - - b003e6f4f4 >"$tmp/elf-entry.bin"
check 125 'entry point 0x110000 is outside the image \[0x100000, 0x101065\)' "ELF entry outside its segments refused" -- "$tmp/elf-entry.bin"
mbheader 0x10000 0x100000 0x100000 0x200000 0 0x100000 >"$tmp/short.bin"
check 125 'asks for 1048576 bytes but the image holds 32' "load_end beyond the file refused" -- "$tmp/short.bin"
mbheader 0x10000 0x100000 0x100000 0 0 0x300000 >"$tmp/entry.bin"
check 125 'entry point 0x300000 is outside the image' "entry outside the image refused" -- "$tmp/entry.bin"
mbheader 0x10000 0x8000000 0x8000000 0 0 0x8000000 >"$tmp/high.bin"
check 125 'does not fit guest memory' "image above guest memory refused (64 MiB default)" -- "$tmp/high.bin"
mbheader 0x10000 0x1000 0x1000 0 0 0x1000 >"$tmp/low.bin"
check 125 'does not fit guest memory above 0xa000' "image over the multiboot info refused" -- "$tmp/low.bin"
check 2 '^usage: vpmu-run' "--kernel with an IMAGE too: usage" -- --kernel "$tmp/flat.bin" "$tmp/flat.bin"
check 2 '^usage: vpmu-run' "--initrd without --kernel: usage" -- --initrd "$tmp/flat.bin" "$tmp/flat.bin"
check 125 "cannot read kernel $tmp/missing" "missing kernel file, status 125" -- --kernel "$tmp/missing"
check 125 'not a Linux bzImage' "--kernel on a file that is not a bzImage refused" -- --kernel "$tmp/flat.bin"
long=$(head -c 3000 /dev/zero | tr '\0' x)
check 125 'command line too long' "over-long --append refused" -- --append "$long" "$tmp/flat.bin"
if [ ! -c /dev/kvm ]; then
	check 125 '/dev/kvm: .*scripts/kvm-env' "without /dev/kvm: a clear message naming kvm-env" -- "$tmp/flat.bin"
fi
echo "1..$n"
