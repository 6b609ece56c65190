#!/bin/sh
# SPDX-License-Identifier: MIT
# The whole cost of a trapped PMU register access under real KVM, side by side
# with its baseline (docs/performance.md "KVM path").  guest-tests/bench-exits
# times each PMU access in blocks that alternate between libvpmu (with its perf
# backend: library, backend and their system calls) answering the exits and
# vpmu-run's null handler answering the same exits (vpmu-run --null-pmu,
# VPMU_UCALL_NULL_PMU), in one run; the nested test tier's slow drift falls on
# both alike.  RUNS runs in one scripts/kvm-env boot (native KVM, or nested in
# QEMU TCG); per access it prints the median over the runs of the TSC ticks per
# access of each, and libvpmu's share of the round trip, (libvpmu - null) /
# libvpmu.  Exits KVM handles in the kernel are printed for scale.
# RDPMC exits only where KVM has them: --patched-kvm (nested, docs/rdpmc.md).
#   make kvm-programs guests && bench/kvm-exits.sh [--patched-kvm] [MODEL [RUNS]]
set -eu
KB=${VPMU_KVM_BUILD:-build/static}
GB=${VPMU_GUEST_BUILD:-build/guest}
patched=
if [ "${1:-}" = --patched-kvm ]; then patched=--patched-kvm; shift; fi
model=${1:-p6}
runs=${2:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/exits-suite.sh" <<EOF
i=0
while [ \$i -lt $runs ]; do
	./vpmu-run --model $model --null-pmu --tap --timeout 240 bench-exits.bin 2>/dev/null
	i=\$((i + 1))
done
EOF
scripts/kvm-env $patched --timeout 600 --file "$KB/bin/vpmu-run" --file "$GB/bench-exits.bin" \
	--file "$tmp/exits-suite.sh" -- /bin/busybox sh exits-suite.sh >"$tmp/out" 2>"$tmp/err" || {
	cat "$tmp/err" >&2
	exit 1
}
if grep -q '^not ok' "$tmp/out"; then
	grep -B2 -A4 '^not ok' "$tmp/out" >&2
	echo "bench/kvm-exits.sh: the null handler did not answer: no baseline" >&2
	exit 1
fi
sed -n 's/^kvm-env: /# kvm-env: /p' "$tmp/err" | head -n 1
awk -v model="$model" -v runs="$runs" -f "$(dirname "$0")/exits-table.awk" "$tmp/out"
