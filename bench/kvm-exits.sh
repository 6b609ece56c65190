#!/bin/sh
# The cost of one trapped PMU register access under real KVM (docs/performance.md):
# guest-tests/bench-exits under vpmu-run, through scripts/kvm-env (native KVM, or
# nested in QEMU TCG).  Prints, per kind of access, the guest's TSC ticks and the
# host's microseconds per access (from the host-stamped marks around each loop),
# then libvpmu's own nanoseconds per MSR exit from vpmu-run's accounting.
#   make kvm-programs guests && bench/kvm-exits.sh [MODEL]
set -eu
KB=${VPMU_KVM_BUILD:-build/static}
GB=${VPMU_GUEST_BUILD:-build/guest}
model=${1:-p6}
out=$(scripts/kvm-env --timeout 300 --file "$GB/bench-exits.bin" -- \
	"$KB/bin/vpmu-run" --model "$model" --tap --timeout 240 bench-exits.bin 2>/dev/null)
echo "$out" | awk -v model="$model" '
/^# mark vCPU 0 .*: start: guest value/ { n = $0; sub(/.*guest value /, "", n); sub(/,.*/, "", n)
	t0 = $0; sub(/.*host /, "", t0); sub(/ s,.*/, "", t0); next }
/^# mark vCPU 0 .*TSC ticks per access: guest value/ {
	what = $0; sub(/^# mark vCPU 0 /, "", what); sub(/: TSC ticks per access.*/, "", what)
	ticks = $0; sub(/.*guest value /, "", ticks); sub(/,.*/, "", ticks)
	t1 = $0; sub(/.*host /, "", t1); sub(/ s,.*/, "", t1)
	printf "%-45s %10d TSC ticks %9.2f us/access\n", what, ticks, (t1 - t0) * 1e6 / n; next }
/KVM: msr-exits=/ { ns = $0; sub(/.*libvpmu-ns\/exit=/, "", ns); sub(/ .*/, "", ns)
	ex = $0; sub(/.*msr-exits=/, "", ex); sub(/ .*/, "", ex)
	printf "%-45s %10s ns per exit (%s MSR exits, model %s)\n", "libvpmu answering a PMU MSR exit", ns, ex, model }'
