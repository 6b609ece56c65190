#!/bin/sh
# SPDX-License-Identifier: MIT
# What perf record's sampling costs a Linux guest (docs/performance.md, "Linux
# guests"): in one boot of Debian's kernel under vpmu-run on KVM with the RDPMC
# exit (scripts/kvm-env --patched-kvm), the workload of guest-tests/linux runs
# unsampled and under perf record -e cycles -c PERIOD, alternating, RUNS times
# each (guest-tests/linux/profile.sh, case slowdown); prints the workload's own
# times for its loops (CLOCK_MONOTONIC in the guest: perf's start and end are
# not in them) and the median slowdown.
#   make kvm-programs guests && bench/linux-sampling.sh [MODEL [PERIOD [RUNS]]]
# VPMU_RUN_OPTS adds vpmu-run options (--no-kvmclock: the guest without KVM's
# paravirtual clock, as before vpmu-run presented it).
set -eu
KB=${VPMU_KVM_BUILD:-build/static}
GB=${VPMU_GUEST_BUILD:-build/guest}
model=${1:-p6}
period=${2:-2000000}
runs=${3:-5}
case $model in k8) arch=amd64 ;; *) arch=686 ;; esac
kernel=$(scripts/guest-image --kernel "$arch")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
VPMU_GUEST_BUILD=$GB guest-tests/linux/initrd.sh "$tmp/initrd"
cp "$kernel" "$tmp/vmlinuz"
scripts/kvm-env --patched-kvm --timeout 900 --file "$tmp/vmlinuz" --file "$tmp/initrd" -- \
	"$KB/bin/vpmu-run" --model "$model" ${VPMU_RUN_OPTS:-} --timeout 800 --kernel vmlinuz --initrd initrd \
	--append "console=ttyS0 quiet nokaslr panic=-1 nmi_watchdog=0 rdinit=/init reboot=t acpi=off vpmu.case=slowdown vpmu.iters=20 vpmu.period=$period vpmu.runs=$runs" \
	>"$tmp/out" 2>"$tmp/err" || { tail -n 20 "$tmp/err" >&2; exit 1; }
sed -n 's/^kvm-env: /# kvm-env: /p' "$tmp/err" | head -n 1
awk -v model="$model" -v period="$period" '
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^@@ time plain / { p[++np] = $4 }
/^@@ time sampled / { s[++ns] = $4 }
/^@@ samples / { samples = $3 }
/^@@ throttled / { throttled = $3 }
/ pmis=/ && !pmis { pmis = $0; sub(/.* pmis=/, "", pmis); sub(/ .*/, "", pmis) }
END {
	if (!np || !ns) { print "bench/linux-sampling.sh: no times in the output" > "/dev/stderr"; exit 1 }
	printf "# model %s, perf record -e cycles -c %d, %d runs each, alternating, one boot\n", model, period, np
	printf "unsampled: median %.3f s (µs:", median(p, np) / 1e6; for (i = 1; i <= np; i++) printf " %s%s", p[i], i < np ? "" : ")\n"
	printf "sampled:   median %.3f s (µs:", median(s, ns) / 1e6; for (i = 1; i <= ns; i++) printf " %s%s", s[i], i < ns ? "" : ")\n"
	printf "slowdown:  %.2fx (last run: %s samples; PMIs raised in the boot: %s; Linux lowered its sample rate %s times)\n", median(s, ns) / median(p, np), samples, pmis, throttled + 0
}' "$tmp/out"
