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
awk -v model="$model" -v runs="$runs" '
function median(key,    n, i, j, t, a) {
	n = cnt[key]
	for (i = 1; i <= n; i++) a[i] = val[key, i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function add(key, v) { cnt[key]++; val[key, cnt[key]] = v }
/^# mark vCPU 0 .*: TSC ticks per access: guest value/ {
	line = $0; sub(/^# mark vCPU 0 /, "", line); sub(/: TSC ticks per access.*/, "", line)
	who = line; sub(/.*: /, "", who); what = line; sub(/: [^:]*$/, "", what)
	v = $0; sub(/.*guest value /, "", v); sub(/,.*/, "", v)
	if (!(what in seen)) { seen[what] = 1; order[++nw] = what }
	add(what SUBSEP who, v)
	if (who == "null handler") add(what SUBSEP "share", (prev - v) * 100 / prev)
	prev = v; next }
/KVM: msr-exits=/ { ns = $0; sub(/.*libvpmu-ns\/exit=/, "", ns); sub(/ .*/, "", ns); add("ns", ns) }
END {
	printf "# model %s, %d runs; medians of TSC ticks per access (blocks of libvpmu and of the null handler alternating in each run)\n", model, runs
	printf "%-58s %9s %9s %8s\n", "access", "libvpmu", "null", "share"
	for (i = 1; i <= nw; i++) {
		w = order[i]
		if (cnt[w SUBSEP "KVM"]) { printf "%-58s %9d %9s %8s\n", w, median(w SUBSEP "KVM"), "-", "-"; continue }
		printf "%-58s %9d %9d %7.1f%%\n", w, median(w SUBSEP "libvpmu"), median(w SUBSEP "null handler"), median(w SUBSEP "share")
	}
	if (cnt["ns"]) printf "%-58s %9d ns per PMU MSR exit (the glue'"'"'s timing)\n", "libvpmu answering", median("ns")
}' "$tmp/out"
