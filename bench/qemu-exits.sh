#!/bin/sh
# SPDX-License-Identifier: MIT
# The cost of a trapped PMU register access under QEMU with the vpmu series
# (patches/qemu, docs/qemu.md), side by side with its baseline
# (docs/performance.md "KVM path: under QEMU").  guest-tests/bench-exits with
# null=qemu times RDMSR of a vPMU counter (QEMU's exit dispatch, then
# libvpmu and its perf backend) in blocks that alternate with RDMSR of
# MSR_CORE_THREAD_COUNT, which the same dispatch hands to QEMU's own handler
# (a null handler: it returns the CPU's core and thread counts), in one run;
# writes have no QEMU baseline and are timed alone.  RUNS runs of -cpu
# pentium3,vpmu=p6 (or athlon,vpmu=k7) in one scripts/kvm-env boot (native KVM
# where /dev/kvm works, else nested in QEMU TCG; --patched-kvm: nested with the
# RDPMC exit, which is not timed here); the table is bench/exits-table.awk's,
# as bench/kvm-exits.sh prints it for vpmu-run.
#   make B=build lib guests && bench/qemu-exits.sh [--patched-kvm] [p6|k7 [RUNS]]
set -eu
GB=${VPMU_GUEST_BUILD:-build/guest}
patched=
if [ "${1:-}" = --patched-kvm ]; then patched=--patched-kvm; shift; fi
model=${1:-p6}
runs=${2:-5}
case $model in
p6) cpu=pentium3,vendor=GenuineIntel ;;
k7) cpu=athlon,vendor=AuthenticAMD ;;
*) echo "usage: bench/qemu-exits.sh [--patched-kvm] [p6|k7 [RUNS]]" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. scripts/lib/qemu-stage.sh
dir=$(scripts/qemu-build) || exit 1
make -s --no-print-directory B=build lib >/dev/null
mkdir -p "$tmp/lib" && cp build/lib/libvpmu.so "$tmp/lib/libvpmu.so.1"
files=$(qemu_stage "$dir/bin/qemu-system-x86_64" "$tmp/lib" "$tmp/stage") || exit 1
cp "$GB/bench-exits.bin" "$tmp/stage/"
cat >"$tmp/stage/exits-suite.sh" <<EOF
i=0
while [ \$i -lt $runs ]; do
	$QEMU_RUN -m 64 -serial stdio $QEMU_EXIT -cpu $cpu,x2apic=off,vpmu=$model \\
		-kernel bench-exits.bin -append "null=qemu" 2>/dev/null
	i=\$((i + 1))
done
EOF
# shellcheck disable=SC2086
scripts/kvm-env $patched --timeout 600 --mem 1024 $files --file "$tmp/stage/bench-exits.bin" \
	--file "$tmp/stage/exits-suite.sh" -- /bin/busybox sh exits-suite.sh >"$tmp/out" 2>"$tmp/err" || {
	cat "$tmp/err" >&2
	exit 1
}
if ! grep -q '^vpmu-guest: ok - bench: QEMU answers RDMSR of MSR_CORE_THREAD_COUNT' "$tmp/out"; then
	tail -n 20 "$tmp/out" >&2
	echo "bench/qemu-exits.sh: QEMU did not answer MSR_CORE_THREAD_COUNT: no baseline" >&2
	exit 1
fi
sed -n 's/^kvm-env: /# kvm-env: /p' "$tmp/err" | head -n 1
# The console's marks in the form vpmu-run's TAP gives them.
sed -n 's/^vpmu-guest: # mark \(.*\) = \([0-9]*\)$/# mark vCPU 0 \1: guest value \2/p' "$tmp/out" |
	awk -v model="$model under QEMU" -v runs="$runs" \
		-v baseline="QEMU's MSR_CORE_THREAD_COUNT handler" -f "$(dirname "$0")/exits-table.awk"
