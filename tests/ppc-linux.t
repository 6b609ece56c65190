#!/bin/sh
# SPDX-License-Identifier: MIT
# The PowerPC guest tier (issue 23; docs/testing.md, "The PowerPC guest"):
# Linux 6.1 for pmac32 (scripts/ppc-kernel) under qemu-system-ppc with
# patches/qemu and patches/qemu-ppc (scripts/qemu-build --target ppc) and this
# checkout's libvpmu.so.1, booted by scripts/ppc-guest with the static /init
# of guest-tests/ppc (make guest-ppc).
#   - ppc7450, ppc7447a, ppc7455 (-M mac99): Linux's MPC7450-family perf
#     driver (arch/powerpc/perf/mpc7450-pmu.c) registers, and the /init's
#     count, sample and six checks pass: exact instruction counts of a loop
#     of known length (user-only; kernel-only bounded by the interrupts
#     taken, and growing with system calls), cycles by the vPMU's rule under
#     TCG (one per instruction retired), one PMI per sampling period with as
#     many samples in the ring buffer, six events on the six PMCs at once;
#   - ppc750 (-M g3beige) and ppc7400 (-M mac99): no perf driver; the
#     kernel's PMU_SYSFS files program PMC1 and read it back, a problem-state
#     mfspr of UPMC1 reads the count and an mtspr of it is SIGILL;
#   - QEMU's accounting on stderr at exit (patches/qemu-ppc: "vpmu: rule NAME:
#     N violations (recorded|refused)", "vpmu: rules broken: N"): the /init
#     breaks perfctr's mmcr1-reserved rule once on purpose (a reserved MMCR1
#     bit through sysfs), and that is the only rule named, so Linux's driver
#     breaks none of perfctr's PPC32 rules (docs/models/ppc7450.md); its PMIs
#     are the guest's; with vpmu-strict=on the same write is refused (a
#     program exception: the writer dies in an oops) and the driver counts
#     and samples as without;
#   - the profile of make demo DEMO_MODEL=ppc7450: sampled instruction
#     addresses of three functions of 6:3:1 cost put them in that order.
# Each guest case becomes a case here ("MODEL: CHECK: ..."), and the guest
# must run all of them: a /init that stops early fails.  Builds the kernel
# (about 6 minutes on 2 cores) and QEMU (about 10) once when not cached.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh

# ---- the builds ----------------------------------------------------------------
kernel=$(scripts/ppc-kernel 2>"$tmp/kernel.err")
ok $? "scripts/ppc-kernel: Linux 6.1 for pmac32 (${kernel:-nothing})" "$tmp/kernel.err"
make -s --no-print-directory B=build lib guest-ppc >"$tmp/make.err" 2>&1
ok $? "make lib guest-ppc: libvpmu.so, the guest's /init and initramfs" "$tmp/make.err"
if [ -n "${VPMU_PPC_QEMU:-}" ]; then
	qemu=$VPMU_PPC_QEMU
	[ -x "$qemu" ]
	ok $? "VPMU_PPC_QEMU: $qemu (not scripts/qemu-build's)"
else
	dir=$(scripts/qemu-build --target ppc 2>"$tmp/qemu.err")
	qemu=${dir:+$dir/bin/qemu-system-ppc}
	[ -n "$qemu" ] && [ -x "$qemu" ]
	ok $? "scripts/qemu-build --target ppc: qemu-system-ppc with vpmu (${dir:-nothing})" "$tmp/qemu.err"
fi
if [ -z "$kernel" ] || [ ! -f build/guest-ppc/initrd.cpio ] || [ ! -x "${qemu:-/nonexistent}" ]; then
	echo "1..$n"
	exit 1
fi

# The guest cases each check prints (guest-tests/ppc/perf.c, spr.c): a /init
# that prints fewer did not run them all.
cases_of() { # CHECKS (comma-separated): the number of cases they print
	c=0
	for w in $(echo "$1" | tr ',' ' '); do
		case $w in
		count) c=$((c + 7)) ;;
		sample) c=$((c + 3)) ;;
		six) c=$((c + 13)) ;;
		sysfs | upmc) c=$((c + 3)) ;;
		rules | strict) c=$((c + 2)) ;;
		profile) c=$((c + 1)) ;;
		esac
	done
	echo $c
}

# boot NAME MODEL CHECKS [ppc-guest options]: the console in $tmp/NAME.out,
# QEMU's stderr and ppc-guest's in $tmp/NAME.err (and appended to NAME.out),
# ppc-guest's status in $rc (1: the guest reported a failure), the seconds
# in $secs.
boot() {
	b=$1 bm=$2 bc=$3
	shift 3
	s=$(date +%s)
	scripts/ppc-guest --model "$bm" --timeout 150 --append "vpmucheck=$bc" "$@" \
		>"$tmp/$b.out" 2>"$tmp/$b.err"
	rc=$?
	secs=$(($(date +%s) - s))
	# the serial console's lines end in CR LF
	tr -d '\r' <"$tmp/$b.out" >"$tmp/$b.lf" && mv "$tmp/$b.lf" "$tmp/$b.out"
	cat "$tmp/$b.err" >>"$tmp/$b.out"
}
# booted NAME: the guest came to its end and powered off
booted() { { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } && grep -aq '^VPMU done' "$tmp/$1.out"; }

# guest NAME CHECKS: the guest's own cases, then that it ran them all.
guest() {
	grep -a '^VPMU \(not \)\{0,1\}ok [0-9]* - ' "$tmp/$1.out" >"$tmp/$1.cases"
	while IFS= read -r l; do
		case $l in
		'VPMU ok '*) ok 0 "$1: ${l#VPMU ok * - }" ;;
		*) ok 1 "$1: ${l#VPMU not ok * - }" "$tmp/$1.out" ;;
		esac
	done <"$tmp/$1.cases"
	want=$(cases_of "$2")
	grep -aqx "VPMU done passed $want failed 0" "$tmp/$1.out"
	ok $? "$1: the /init ran $2 to the end, $want cases, none failed ($(grep -a '^VPMU done' "$tmp/$1.out" || echo 'no "VPMU done" line'))" "$tmp/$1.out"
}

probe='MPC7450 family performance monitor hardware support registered'

# ---- the 7450 family: Linux's perf driver ----------------------------------------
# QEMU's CPU names and Linux's cpu_name for their PVRs
# (arch/powerpc/kernel/cpu_specs_book3s_32.h).
for m in ppc7450:7450 ppc7447a:7447A ppc7455:7455; do
	model=${m%%:*} name=${m#*:}
	boot "$model" "$model" count,sample,six
	booted "$model"
	ok $? "$model: boots on -M mac99 -cpu ${model#ppc},vpmu=on, powers off (status $rc, $secs s)" "$tmp/$model.out"
	grep -aq "^$probe" "$tmp/$model.out"
	ok $? "$model: the kernel prints \"$probe\"" "$tmp/$model.out"
	grep -aq "^VPMU info probe: cpuinfo cpu[[:space:]]*: $name," "$tmp/$model.out"
	ok $? "$model: /proc/cpuinfo names the $name" "$tmp/$model.out"
	guest "$model" count,sample,six
done

# ---- perfctr's rules: the accounting, and strict mode ------------------------------
acct() { # NAME REGEX: a line of QEMU's accounting in NAME's stderr
	grep -aq "^vpmu: $2\$" "$tmp/$1.err"
}
# With the profile (make demo's): three functions of 6:3:1 cost come out in
# that order from their sampled instruction addresses.
boot ppc7450-rules ppc7450 rules,profile
guest ppc7450-rules rules,profile
acct ppc7450-rules 'accounting: model ppc7450, strict off, 1 vCPU' && acct ppc7450-rules 'rule mmcr1-reserved: 1 violation (recorded)' &&
	acct ppc7450-rules 'rules broken: 1'
ok $? "ppc7450: QEMU's accounting names mmcr1-reserved, recorded, and no other rule" "$tmp/ppc7450-rules.out"
# The PMIs libvpmu raised are those the guest counted (sample: one per period).
pmis=$(sed -n 's/^VPMU info sample: count [0-9]*, [0-9]* samples, \([0-9]*\) PMIs.*/\1/p' "$tmp/ppc7450.out")
grep -aq "^vpmu: totals pmis=${pmis:-none} " "$tmp/ppc7450.err"
ok $? "ppc7450: QEMU's accounting counts the PMIs the guest's /proc/interrupts shows (${pmis:-none})" "$tmp/ppc7450.out"

boot ppc7450-strict ppc7450 count,sample,six,strict --strict
booted ppc7450-strict
ok $? "ppc7450 strict: boots on -cpu 7450,vpmu=on,vpmu-strict=on, powers off (status $rc, $secs s)" "$tmp/ppc7450-strict.out"
guest ppc7450-strict count,sample,six,strict
acct ppc7450-strict 'accounting: model ppc7450, strict on, 1 vCPU' && acct ppc7450-strict 'rule mmcr1-reserved: 1 violation (refused)' &&
	acct ppc7450-strict 'rules broken: 1' && grep -aq '^vpmu: totals .* strict_refusals=1 ' "$tmp/ppc7450-strict.err"
ok $? "ppc7450 strict: QEMU's accounting names mmcr1-reserved, refused once, and no other rule: Linux's driver breaks none" "$tmp/ppc7450-strict.out"

# ---- the 750 and the 7400: the kernel's PMU_SYSFS files and UPMC1 ----------------
for m in ppc750:740/750:g3beige ppc7400:7400:mac99; do
	model=${m%%:*} rest=${m#*:}
	name=${rest%%:*} machine=${rest#*:}
	boot "$model" "$model" sysfs,upmc
	booted "$model"
	ok $? "$model: boots on -M $machine -cpu ${model#ppc},vpmu=on, powers off (status $rc, $secs s)" "$tmp/$model.out"
	grep -aq "^VPMU info probe: cpuinfo cpu[[:space:]]*: $name" "$tmp/$model.out" &&
		! grep -aq "$probe" "$tmp/$model.out" &&
		grep -aq '^VPMU info probe: perf event source cpu: absent' "$tmp/$model.out"
	ok $? "$model: /proc/cpuinfo names the $name, and no perf driver takes it (mpc7450-pmu.c: the 745x PVRs only)" "$tmp/$model.out"
	acct "$model" "accounting: model $model, strict off, 1 vCPU"
	ok $? "$model: QEMU's vPMU is libvpmu's $model (from the PVR)" "$tmp/$model.out"
	guest "$model" sysfs,upmc
done

echo "1..$n"
