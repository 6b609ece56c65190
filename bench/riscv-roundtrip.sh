#!/bin/sh
# SPDX-License-Identifier: MIT
# An SBI PMU call's round trip under RISC-V KVM (bench/riscv_sbi_roundtrip.c;
# docs/performance.md "RISC-V: an SBI PMU call's round trip"): KVM's in-kernel
# SBI PMU, the call forwarded to user space by KVM_CAP_RISCV_USER_PMU
# (patches/kvm-riscv-pmu/) and answered with a constant, the same answered by
# libvpmu's vpmu_call, and BASE get_spec_version as the floor, in one L1 boot
# of the nested tier (scripts/kvm-env --arch riscv64 --patched-kvm).
#   make riscv64 && bench/riscv-roundtrip.sh [N [RUNS]]
set -eu
RVB=${VPMU_RISCV_BUILD:-build/riscv64}
CC=${RV_CC:-riscv64-linux-gnu-gcc}
n=${1:-2000}
runs=${2:-3}
[ -f "$RVB/lib/libvpmu.a" ] || {
	echo "riscv-roundtrip: $RVB/lib/libvpmu.a is missing: run 'make riscv64' first" >&2
	exit 2
}
mkdir -p "$RVB/bench"
bin=$RVB/bench/riscv_sbi_roundtrip
# As the Makefile's riscv64 target builds libvpmu (xxhash header-only there).
$CC -std=c11 -static -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude -I. \
	-o "$bin" bench/riscv_sbi_roundtrip.c "$RVB/lib/libvpmu.a" -lpthread -latomic
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
# kvm-env stages PROGRAM in the L1 itself (it takes a host path).
scripts/kvm-env --arch riscv64 --patched-kvm --timeout 300 -- "$bin" "$n" "$runs" >"$tmp/out" 2>"$tmp/err" || rc=$?
if ! grep -q '^RESULT ' "$tmp/out"; then
	echo "riscv-roundtrip: no result (kvm-env exit $rc)" >&2
	cat "$tmp/out" "$tmp/err" >&2
	exit 1
fi
grep '^# ' "$tmp/out"
sed -n 's/^kvm-env: /# kvm-env: /p' "$tmp/err" | head -n 3
awk '/^RESULT / {
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	w = $0; sub(/.*what="/, "", w); sub(/"$/, "", w)
	row[++nr] = sprintf("| %s | %s | %s | %s | %s/%s | %s |", v["case"], v["us_per_call"], v["runs"],
		v["kvm_runs"], v["a0"], v["a1"], w)
	us[v["case"]] = v["us_per_call"]
}
END {
	print "| case | us/call (best) | runs | KVM_RUNs per run | a0/a1 | what |"
	print "| --- | ---: | --- | ---: | --- | --- |"
	for (i = 1; i <= nr; i++) print row[i]
	if (us["floor"] != "" && us["kernel-pmu"] != "" && us["user-pmu"] != "" && us["libvpmu"] != "")
		printf "# exit to user space: +%.3f us per call over the in-kernel PMU; libvpmu: +%.3f us over the constant answer\n",
			us["user-pmu"] - us["kernel-pmu"], us["libvpmu"] - us["user-pmu"]
}' "$tmp/out"
exit "$rc"
