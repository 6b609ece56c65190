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
# A multiboot header: magic, flags, checksum, then the a.out kludge fields.
mbheader() { # FLAGS HEADER LOAD LOAD_END BSS_END ENTRY
	perl -e 'my ($f,@a)=map { oct } @ARGV; print pack("V*", 0x1BADB002, $f, (-(0x1BADB002+$f)) & 0xffffffff, @a)' "$@"
}
printf '\364' >"$tmp/flat.bin"   # hlt: a valid flat image

check 2 '^usage: vpmu-run' "no image: usage, status 2" --
check 2 '^usage: vpmu-run' "two images: usage" -- "$tmp/flat.bin" "$tmp/flat.bin"
check 2 '^usage: vpmu-run' "unknown option: usage" -- --frobnicate "$tmp/flat.bin"
check 2 "unknown model 'pentium9'" "unknown model named, status 2" -- --model pentium9 "$tmp/flat.bin"
check 2 '--vcpus must be a number from 1 to 16' "vCPU count out of range" -- --vcpus 0 "$tmp/flat.bin"
check 2 '--vcpus must be a number' "vCPU count not a number" -- --vcpus 2x "$tmp/flat.bin"
check 2 '--timeout must be a number' "timeout not a number" -- --timeout -5 "$tmp/flat.bin"
check 2 "--backend must be perf or sim, not 'papi'" "unknown backend" -- --backend papi "$tmp/flat.bin"
check 125 "cannot read guest image $tmp/missing.bin" "missing image file, status 125" -- "$tmp/missing.bin"
: >"$tmp/empty.bin"
check 125 "cannot read guest image .*empty" "empty image refused" -- "$tmp/empty.bin"

mbheader 0x3 0 0 0 0 0 >"$tmp/elf-mb.bin"
check 125 'lacks the address fields \(flag bit 16\)' "multiboot header without the a.out kludge refused" -- "$tmp/elf-mb.bin"
mbheader 0x10000 0x100000 0x100000 0x200000 0 0x100000 >"$tmp/short.bin"
check 125 'asks for 1048576 bytes but the image holds 32' "load_end beyond the file refused" -- "$tmp/short.bin"
mbheader 0x10000 0x100000 0x100000 0 0 0x300000 >"$tmp/entry.bin"
check 125 'entry point 0x300000 is outside the image' "entry outside the image refused" -- "$tmp/entry.bin"
mbheader 0x10000 0x8000000 0x8000000 0 0 0x8000000 >"$tmp/high.bin"
check 125 'does not fit guest memory' "image above guest memory refused (64 MiB default)" -- "$tmp/high.bin"
mbheader 0x10000 0x1000 0x1000 0 0 0x1000 >"$tmp/low.bin"
check 125 'does not fit guest memory above 0xa000' "image over the multiboot info refused" -- "$tmp/low.bin"
long=$(head -c 3000 /dev/zero | tr '\0' x)
check 125 'command line too long' "over-long --append refused" -- --append "$long" "$tmp/flat.bin"
if [ ! -c /dev/kvm ]; then
	check 125 '/dev/kvm: .*scripts/kvm-env' "without /dev/kvm: a clear message naming kvm-env" -- "$tmp/flat.bin"
fi
echo "1..$n"
