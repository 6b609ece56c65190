#!/bin/sh
# SPDX-License-Identifier: MIT
# Profiled Linux guests under QEMU with vpmu (docs/qemu.md): Debian's 686
# kernel on -cpu pentium3,vpmu=p6 and on -cpu athlon,vpmu=k7, and its amd64
# kernel on a Zen 4 (QEMU's EPYC-Milan as family 19h model 11h) with vpmu=zen4,
# with the
# initramfs of the vpmu-run tier (tests/linux-perf.t, guest-tests/linux/
# profile.sh), under real KVM nested in QEMU TCG with the RDPMC exit
# (scripts/kvm-env --patched-kvm): Linux's driver accepts the virtual PMU,
# perf stat counts cycles at the guest's TSC rate and reads no count for what
# the host cannot count, perf record samples through PMIs and perf report puts
# the workload's hot function first, as under vpmu-run.  The patched QEMU runs
# as the L1's VMM, staged with its libraries, loader and firmware
# (tests/qemu-stage.sh).  One kvm-env call of two boots (about 3 minutes
# nested); a boot the nested tier breaks runs once more (tests/linux-boots.sh).
GB=${VPMU_GUEST_BUILD:-build/guest}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
# shellcheck source=tests/linux-boots.sh
. tests/linux-boots.sh
# shellcheck source=tests/qemu-stage.sh
. tests/qemu-stage.sh

k686=$(scripts/guest-image --kernel 686 2>"$tmp/img.err") && kamd=$(scripts/guest-image --kernel amd64 2>>"$tmp/img.err") &&
	initrd=$(scripts/guest-image --initrd 2>>"$tmp/img.err")
ok $? "the guest images are cached (scripts/guest-image)" "$tmp/img.err"
qemu_build || { echo "1..$n"; exit 1; }
for f in "$GB/vpmu-workload" "$GB/vpmu-selfcount" "${initrd:-/nonexistent}"; do
	[ -f "$f" ] || { ok 1 "$f is built (make guests; scripts/guest-image)"; echo "1..$n"; exit 1; }
done
if [ "${VPMU_KVM_MODE:-auto}" = native ]; then
	skip "Linux guests with perf under QEMU" "VPMU_KVM_MODE=native forces the host's KVM, and guest RDPMC needs the patched KVM of the nested tier (docs/rdpmc.md)"
	echo "1..$n"
	exit 0
fi
VPMU_GUEST_BUILD=$GB guest-tests/linux/initrd.sh "$tmp/initrd" 2>"$tmp/initrd.err"
ok $? "the guests' initramfs is assembled (guest-tests/linux/initrd.sh)" "$tmp/initrd.err"
cp "$k686" "$tmp/vmlinuz-686" && cp "$kamd" "$tmp/vmlinuz-amd64"
files=$(qemu_stage_here "$tmp/stage")

# NAME CPU VCPUS KERNEL: boots.sh lines for one boot.  The guest's /init writes
# run.sh's status to port 0xF4, which isa-debug-exit turns into QEMU's exit
# status (N << 1) | 1; a QEMU that ended otherwise (a panic's reboot with
# -no-reboot: 0) is reported as qemu-N.
boot() {
	echo "echo @@RUN $1"
	echo "timeout -s KILL 260 $QEMU_RUN $QEMU_EXIT -m 256 -smp $3 -serial stdio -cpu $2 -kernel vmlinuz-$4 -initrd initrd -append '$linux_cmdline vpmu.case=profile vpmu.period=4000000' >out 2>err"
	echo 'r=$?; if [ $((r % 2)) = 1 ]; then r=$((r >> 1)); else r=qemu-$r; fi'
	echo "echo @@STATUS \$r; cat out; sed 's/^/@@ERR /' err"
}
# QEMU 7.2 has no Zen 4 model: EPYC-Milan (Zen 3, family 19h model 1) as model
# 11h, with the extended leaves up to PerfMonV2's 80000022H.
BOOTS1="p6:pentium3,vendor=GenuineIntel,x2apic=off,vpmu=p6:1:686 k7:athlon,vendor=AuthenticAMD,x2apic=off,vpmu=k7:1:686
	zen4:EPYC-Milan,model=17,stepping=1,xlevel=0x80000022,x2apic=off,vpmu=zen4:1:amd64"
BOOTS2=
boots() { # SPECS...
	for b in "$@"; do
		IFS=: read -r bname bcpu bvcpus bkernel <<EOF2
$b
EOF2
		boot "$bname" "$bcpu" "$bvcpus" "$bkernel"
	done
}
kvm() { # BOOTS-SCRIPT OUTPUT
	[ -s "$1" ] || { : >"$2"; return 0; }   # BOOTS2 is empty
	# shellcheck disable=SC2086
	linux_kvm 700 "$1" "$2" "$tmp/vmlinuz-686" "$tmp/vmlinuz-amd64" "$tmp/initrd" $(echo "$files" | sed 's/--file //g')
}
boot_done() { # SPEC: the boot ended with 0 and reported its profile
	name=${1%%:*}
	[ "$(cat "$tmp/$name.status" 2>/dev/null)" = 0 ] && grep -q '^@@ kernel ' "$tmp/$name.out" &&
		grep -q '^@@ stat: .*cycles' "$tmp/$name.out" && grep -q '^@@ samples ' "$tmp/$name.out"
}
run_boots

st() { cat "$tmp/$1.status" 2>/dev/null || echo missing; }
line() { sed -n "s/^@@ $2 //p" "$tmp/$1.out" 2>/dev/null | tr -d '\r'; } # line BOOT KEY
csv() { # csv BOOT EVENT: perf stat's value of EVENT (first CSV line naming it)
	line "$1" stat: | awk -F, -v e="$2" '$3 == e || $4 == e { print $1; exit }'
}
both() { cat "$tmp/$1.out" "$tmp/$1.err" >"$tmp/$1.all" 2>/dev/null; echo "$tmp/$1.all"; }

for b in p6:"p6 PMU driver" k7:"AMD PMU driver" zen4:"Fam17h+ core perfctr, AMD PMU driver"; do
	name=${b%%:*}; driver=${b#*:}
	f=$(both "$name")
	[ "$(st "$name")" = 0 ]
	ok $? "$name under QEMU: the guest's run ends with status 0 (got $(st "$name"); $(line "$name" kernel))" "$f"
	line "$name" dmesg: | grep -q "Performance Events: .*$driver\."
	ok $? "$name under QEMU: Linux's driver accepts the virtual PMU ($(line "$name" dmesg: | grep 'Performance Events' | head -n 1))" "$f"
	grep -q 'info: vpmu: guest RDPMC: exit' "$tmp/$name.err"
	ok $? "$name under QEMU: guest RDPMC exits to the model ($(sed -n 's/.*info: vpmu: guest RDPMC: //p' "$tmp/$name.err" | cut -c1-30))" "$f"
	cyc=$(csv "$name" cycles); tc=$(csv "$name" task-clock)
	# The guest's TSC rate, as its kernel found it (QEMU gives it the L1's).
	mhz=$(line "$name" dmesg: | sed -n 's/.*tsc: Detected \([0-9.]*\) MHz.*/\1/p' | head -n 1)
	r=$(awk -v c="$cyc" -v t="$tc" -v m="$mhz" 'BEGIN { if (t > 0 && m > 0) printf "%.2f", c / t / (m * 1000); else print "none" }')
	[ "${cyc:-0}" -gt 0 ] 2>/dev/null && awk -v r="$r" 'BEGIN { exit !(r != "none" && r >= 0.5 && r <= 1.5) }'
	ok $? "$name under QEMU: perf stat counts cycles at the guest's clock: $cyc cycles in $tc ms at a $mhz MHz TSC (ratio $r, expected 0.5-1.5)" "$f"
	v=$(csv "$name" instructions)
	[ "$v" = 0 ] || [ "$v" = "<not counted>" ]
	ok $? "$name under QEMU: instructions, which this host cannot count, read no count (${v:-none})" "$f"
	# Zen 4's PerfMonV2 (leaf 80000022H: version 2, six counters), which the
	# series adds to QEMU's CPUID table (QEMU leaves an all-zero leaf out).
	if [ "$name" = zen4 ]; then
		line zen4 pmu: | grep -q 'version: *2$' && line zen4 pmu: | grep -q 'generic registers: *6$'
		ok $? "zen4 under QEMU: Linux finds PerfMonV2 ($(line zen4 pmu: | grep 'version:' | tr -s ' '), $(line zen4 pmu: | grep 'generic registers' | tr -s ' '))" "$f"
	fi
	s=$(line "$name" samples)
	top=$(line "$name" report: | head -n 1)
	[ -n "$s" ] && [ "$s" != 0 ] && echo "$top" | grep -q 'hot_crc_loop'
	ok $? "$name under QEMU: perf record -c 4000000 sampled through PMIs (${s:-no} samples) and perf report puts hot_crc_loop first ($top)" "$f"
done
echo "1..$n"
