#!/bin/sh
# SPDX-License-Identifier: MIT
# Linux on the architectural PMUs (docs/linux-guests.md, "The architectural
# PMUs"): Debian's amd64 kernel boots under vpmu-run on KVM with the RDPMC exit
# (scripts/kvm-env --patched-kvm, docs/rdpmc.md), and Linux 6.1's own drivers
# are the clients:
#   nehalem, skylake, icelake (arch/x86/events/intel/core.c) and zen4
#     (arch/x86/events/amd/core.c, PerfMonV2), two vCPUs each: the driver takes
#     the PMU with the version and the counter counts the model presents (its
#     "Performance Events:" line and x86_pmu_show_pmu_cap()'s "..." lines),
#     perf stat counts cycles at the guest's TSC rate (on Intel through fixed
#     counter 1 and through a general counter, and ref-cycles through fixed
#     counter 2), events the host cannot count read 0 and the accounting says
#     so, perf record samples land in the workload with no MSR access fault and
#     no stuck overflow status (the PMI handlers read GLOBAL_STATUS and clear
#     it: GLOBAL_OVF_CTRL on Intel, PerfCntrGlobalStatusClr on AMD), and
#     perf stat -a counts on both vCPUs;
#   core2 and zen1, one vCPU: the driver line and the PMU it took, and
#     perf stat alone (core2's cycles on fixed and general counters too).
# The Intel identities run without the 32-bit vDSO (vdso32=0), as p4-em64t
# does in tests/linux-perf.t: on the nested tier's AMD CPU, QEMU 7.2's TCG runs
# the vDSO's SYSENTER in compat mode with the 32-bit SYSENTER_EIP that nested
# KVM keeps for an Intel guest (docs/linux-guests.md).
# The boots run in two kvm-env calls (about 2.5 minutes nested on 2 cores when
# every boot reports; docs/testing.md).  The guest side is
# guest-tests/linux/profile.sh; images from scripts/guest-image.
KB=${VPMU_KVM_BUILD:-build/static}
GB=${VPMU_GUEST_BUILD:-build/guest}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/tap.sh
. tests/tap.sh
# shellcheck source=tests/linux-boots.sh
. tests/linux-boots.sh

kamd=$(scripts/guest-image --kernel amd64 2>"$tmp/img.err") &&
	initrd=$(scripts/guest-image --initrd 2>>"$tmp/img.err")
ok $? "the guest images are cached (scripts/guest-image)" "$tmp/img.err"
for f in "$KB/bin/vpmu-run" "$GB/vpmu-workload"; do
	[ -f "$f" ] || { ok 1 "$f is built (make kvm-programs guests)"; echo "1..$n"; exit 1; }
done
[ -f "${initrd:-}" ] || { echo "1..$n"; exit 1; }
if [ "${VPMU_KVM_MODE:-auto}" = native ]; then
	skip "Linux guests on the architectural PMUs" "VPMU_KVM_MODE=native forces the host's KVM, and guest RDPMC needs the patched KVM of the nested tier (docs/rdpmc.md)"
	echo "1..$n"
	exit 0
fi

VPMU_GUEST_BUILD=$GB guest-tests/linux/initrd.sh "$tmp/initrd" 2>"$tmp/initrd.err"
ok $? "the guests' initramfs is assembled (guest-tests/linux/initrd.sh)" "$tmp/initrd.err"
cp "$kamd" "$tmp/vmlinuz-amd64"

cmd=$linux_cmdline
boot() { # NAME MODEL VCPUS CASE [KERNEL-ARGS [VPMU-RUN-OPTIONS]]: boots.sh lines for one boot
	# busybox timeout bounds a vpmu-run that its own --timeout cannot end
	# (status 137; docs/linux-guests.md "Known problems in the nested tier").
	# The six boots took about two minutes in all on a quiet machine: the
	# limits leave room for a loaded one and keep what a stalled boot costs
	# short.
	echo "echo @@RUN $1"
	echo "rm -f acct; timeout -s KILL 180 ./vpmu-run --model $2 --vcpus $3 ${6:+$6 }--timeout 150 --kernel vmlinuz-amd64 --initrd initrd --append '$cmd vpmu.case=$4 vpmu.period=4000000${5:+ $5}' >out 2>err"
	echo "echo @@STATUS \$?; cat out; sed 's/^/@@ERR /' err; [ ! -f acct ] || sed 's/^/@@ACCT /' acct"
}
# The boots, NAME:MODEL:VCPUS:CASE:KERNEL-ARGS:VPMU-RUN-OPTIONS (commas for
# blanks), in two kvm-env calls, so that a nested tier that hangs costs one
# call's time, not every boot's.  skyfilter runs Skylake's perf stat under an
# event filter (docs/vpmu-run.md, "Event filters") that denies UnHalted Core
# Cycles by its encoding (event 0x3C, umask 0), with its domstats accounting
# in a file.
BOOTS1="nehalem:nehalem:2:modern:vdso32=0 skylake:skylake:2:modern:vdso32=0 core2:core2:1:count:vdso32=0"
BOOTS2="icelake:icelake:2:modern:vdso32=0 zen4:zen4:2:modern: zen1:zen1:1:count:
	skyfilter:skylake:1:count:vdso32=0:--event-filter=gp-cycles.filter,-o,acct,--accounting=domstats"
printf 'action deny\nevent 0x3c 0x00\n' >"$tmp/gp-cycles.filter"
boots() { # SPECS...: boots.sh lines for each
	for b in "$@"; do
		IFS=: read -r bname bmodel bvcpus bcase bargs bopts <<EOF2
$b
EOF2
		boot "$bname" "$bmodel" "$bvcpus" "$bcase" "$bargs" "$(echo "$bopts" | tr , ' ')"
	done
}
kvm() { # BOOTS-SCRIPT OUTPUT: one kvm-env call running the boots
	linux_kvm 600 "$1" "$2" "$KB/bin/vpmu-run" "$tmp/vmlinuz-amd64" "$tmp/initrd" "$tmp/gp-cycles.filter"
}
boot_done() { # SPEC: the boot ended with 0 and reported what its case measures
	name=${1%%:*} bcase=$(echo "$1" | cut -d: -f4) bvcpus=$(echo "$1" | cut -d: -f3)
	[ "$(cat "$tmp/$name.status" 2>/dev/null)" = 0 ] && grep -q '^@@ kernel ' "$tmp/$name.out" &&
		grep -q '^@@ stat: .*cycles' "$tmp/$name.out" || return 1
	[ "$bcase" = count ] && return 0
	grep -q '^@@ samples ' "$tmp/$name.out" || return 1
	[ "$bvcpus" -lt 2 ] || grep -q '^@@ stat-cpu: ' "$tmp/$name.out"
}
# A profile whose top symbol is the local APIC access of the PMI handler
# (native_apic_mem_write, __default_send_IPI_*: the LVTPC unmask, perf's
# self-IPI) is the nested tier's: the guest's cycles follow the vCPU thread's
# task clock, which also counts those exits, and a starved tier makes them
# long enough to outweigh the workload (docs/linux-guests.md "Known problems
# in the nested tier").  Such a boot runs once more; the second run's profile
# is judged as any boot's.
boot_starved() { # SPEC
	name=${1%%:*}
	[ "$(echo "$1" | cut -d: -f4)" = modern ] || return 1
	top=$(sed -n 's/^@@ report: //p' "$tmp/$name.out" 2>/dev/null | head -n 1 | tr -d '\r')
	case $top in
	*native_apic_mem_write* | *__default_send_IPI* | *native_apic_msr*) ;;
	*) return 1 ;;
	esac
	echo "# $name: its profile's top symbol is the PMI handler's APIC access ($top), which a starved nested tier makes outweigh the workload; it runs once more"
}
# The nested tier's stalls and its two-vCPU triple faults (docs/linux-guests.md
# "Known problems in the nested tier") are what a second run is for, and a
# profile the tier's exits outweighed.
run_boots

st() { cat "$tmp/$1.status" 2>/dev/null || echo missing; }
line() { sed -n "s/^@@ $2 //p" "$tmp/$1.out" 2>/dev/null | tr -d '\r'; } # line BOOT KEY
csv() { # csv BOOT EVENT: perf stat's value of EVENT (first CSV line naming it)
	line "$1" stat: | awk -F, -v e="$2" '$3 == e { print $1; exit }'
}
acct() { sed -n "s/^ *$2 *//p" "$tmp/$1.out" 2>/dev/null | head -n 1; } # the accounting's line for an event
both() { cat "$tmp/$1.out" "$tmp/$1.err" >"$tmp/$1.all" 2>/dev/null; echo "$tmp/$1.all"; }
cap() { line "$1" pmu: | sed -n "s/^\.\.\. $2: *//p" | head -n 1; } # cap BOOT NAME: a "... NAME: VALUE" line
ctrs() { # ctrs BOOT BLOCK: the "counters:" line of the accounting's "  vCPU N" or "  VM total"
	awk -v v="  $2" '$0 == v { f = 1; next } f && /counters:/ { print; exit }' "$tmp/$1.out" 2>/dev/null
}
pmc() { ctrs "$1" "$2" | tr ' ' '\n' | sed -n "s/^pmc$3=//p"; } # pmc BOOT BLOCK N
khz() { sed -n 's/^vpmu-run: guest TSC: \([0-9]*\) kHz.*/\1/p' "$tmp/$1.err" 2>/dev/null | head -n 1; }
ratio() { # ratio COUNT MS KHZ: the count per millisecond of task-clock over the TSC rate
	awk -v c="$1" -v t="$2" -v k="$3" 'BEGIN { if (c > 0 && t > 0 && k > 0) printf "%.2f", c / t / k; else print "none" }'
}
in_window() { awk -v r="$1" 'BEGIN { exit !(r != "none" && r >= 0.5 && r <= 1.5) }'; }

# What Linux 6.1 prints for each model's PMU, from the model's data sheet
# (docs/models/) through the driver's code:
#   the "Performance Events:" line: intel_pmu_init() names the microarchitecture
#     by CPUID model ("Core2 events, ", "Nehalem events, ", ...), "AnyThread
#     deprecated, " on version 5 with CPUID.0AH:EDX[15], "full-width counters, "
#     with PERF_CAPABILITIES.FW_WRITE, no "PEBS fmt" (no DS in CPUID) and no LBR
#     (Linux's check_msr() finds the LBR MSRs absent); amd_core_pmu_init()
#     prints "Fam17h+ " for family 17h and later and "core perfctr, " with
#     PerfCtrExtCore; init_hw_perf_events() ends it with "Intel PMU driver." or
#     "AMD PMU driver.";
#   x86_pmu_show_pmu_cap() (arch/x86/events/core.c): the version (CPUID.0AH
#     EAX[7:0]; on AMD 2 with PerfMonV2, else 0), the bit width, the general
#     counters (CPUID.0AH EAX[15:8]; AMD six with PerfCtrExtCore, with
#     PerfMonV2 Fn8000_0022 EBX[3:0]), the max period (2^31 - 1 on Intel
#     without full-width writes, else half the value mask), the fixed counters
#     (CPUID.0AH EDX[4:0] on versions 2-4, the ECX bitmap on 5) and the event
#     mask (intel_ctrl: the general counters' bits, the fixed ones' from bit 32).
# NAME|driver line|version|bit width|generic|value mask|max period|fixed|event mask
PMUS="nehalem|Nehalem events, Intel PMU driver.|3|48|4|0000ffffffffffff|000000007fffffff|3|000000070000000f
skylake|Skylake events, full-width counters, Intel PMU driver.|4|48|4|0000ffffffffffff|00007fffffffffff|3|000000070000000f
icelake|Icelake events, AnyThread deprecated, full-width counters, Intel PMU driver.|5|48|8|0000ffffffffffff|00007fffffffffff|4|0000000f000000ff
zen4|Fam17h+ core perfctr, AMD PMU driver.|2|48|6|0000ffffffffffff|00007fffffffffff|0|000000000000003f
core2|Core2 events, Intel PMU driver.|2|40|2|000000ffffffffff|000000007fffffff|3|0000000700000003
zen1|Fam17h+ core perfctr, AMD PMU driver.|0|48|6|0000ffffffffffff|00007fffffffffff|0|000000000000003f"

check() { # NAME DRIVER VERSION WIDTH GENERIC VALUE-MASK MAX-PERIOD FIXED EVENT-MASK
	name=$1 driver=$2 ver=$3 width=$4 gp=$5 vmask=$6 maxp=$7 fixed=$8 emask=$9
	f=$(both "$name")
	[ "$(st "$name")" = 0 ]
	ok $? "$name: the guest's run ends with status 0 (got $(st "$name"); $(line "$name" kernel); $(line "$name" cpu))" "$f"
	got=$(line "$name" dmesg: | sed -n 's/^Performance Events: //p' | head -n 1)
	[ "$got" = "$driver" ]
	ok $? "$name: Linux's driver takes the PMU: \"Performance Events: $driver\" (got \"${got:-nothing}\")" "$f"
	want="version $ver, bit width $width, generic registers $gp, value mask $vmask, max period $maxp, fixed-purpose events $fixed, event mask $emask"
	have="version $(cap "$name" version), bit width $(cap "$name" 'bit width'), generic registers $(cap "$name" 'generic registers'), value mask $(cap "$name" 'value mask'), max period $(cap "$name" 'max period'), fixed-purpose events $(cap "$name" 'fixed-purpose events'), event mask $(cap "$name" 'event mask')"
	[ "$have" = "$want" ]
	ok $? "$name: the PMU Linux took is the model's: $want$([ "$have" = "$want" ] || echo " (got: $have)")" "$f"
	grep -q 'guest RDPMC: exit:' "$tmp/$name.err" 2>/dev/null
	ok $? "$name: guest RDPMC exits to the model (vpmu-run: $(sed -n 's/^vpmu-run: guest RDPMC: //p' "$tmp/$name.err" 2>/dev/null | cut -c1-30))" "$f"

	# Cycles per millisecond of the guest's task-clock against its TSC rate:
	# without a host PMU the guest's cycles count at its TSC rate while it
	# runs (docs/linux-guests.md, "What perf shows"); the window is wide, what
	# it rules out is a count unrelated to time.
	tc=$(csv "$name" task-clock); k=$(khz "$name")
	case $name in zen*) evs=cycles ;; *) evs="cycles gp-cycles ref-cycles" ;; esac
	for ev in $evs; do
		c=$(csv "$name" "$ev"); r=$(ratio "$c" "$tc" "$k")
		case $name:$ev in
		zen*) how="a general counter" ;;
		*:cycles) how="fixed counter 1" ;;
		*:gp-cycles) how="UnHalted Core Cycles, event 0x3C, on a general counter" ;;
		*:ref-cycles) how="fixed counter 2" ;;
		esac
		in_window "$r"
		ok $? "$name: perf stat counts $ev at the guest's TSC rate ($how): ${c:-none} in $tc ms of task-clock at a $k kHz TSC (ratio $r, expected 0.5-1.5)" "$f"
	done
	for ev in instructions branches; do
		v=$(csv "$name" "$ev"); a=$(acct "$name" "$ev")
		case $a in
		not-countable*) [ "$v" = 0 ]
			ok $? "$name: $ev is not countable on this host: the guest reads no count (${v:-none}) and the accounting says why ($(echo "$a" | cut -c1-40))" "$f" ;;
		*) [ "${v:-0}" -gt 0 ] 2>/dev/null; ok $? "$name: perf stat counts $ev (${v:-none}; host: ${a:-?})" "$f" ;;
		esac
	done
	# Fixed counter j is the model's counter 8 + j (docs/models/intel-arch.md):
	# the VM counted on fixed counter 1 and on its general counters (the
	# workload may have run on either vCPU).
	case $name in zen*) ;; *)
		fx=$(pmc "$name" "VM total" 9) g=0 i=0
		while [ "$i" -lt "$gp" ]; do
			v=$(pmc "$name" "VM total" "$i"); g=$((g + ${v:-0})); i=$((i + 1))
		done
		[ "${fx:-0}" -gt 0 ] && [ "$g" -gt 0 ] 2>/dev/null
		ok $? "$name: the accounting has counts on fixed counter 1 (pmc9=${fx:-none}) and on the general counters (pmc0-$((gp - 1)): $g)" "$f" ;;
	esac

	# The boot's end: whatever Linux complained about while perf ran.
	bad=$(line "$name" late-dmesg: | grep -E 'unchecked MSR access|irq loop stuck|New overflows|WARNING: CPU')
	[ -s "$tmp/$name.out" ] && [ -z "$bad" ] && ! line "$name" dmesg: | grep -q 'unchecked MSR access'
	ok $? "$name: Linux's driver touched no register the model lacks and no interrupt left its status set (${bad:-no unchecked MSR access, no stuck status, no warning})" "$f"
	line "$name" late-dmesg: | grep 'NMI received for unknown reason' | head -n 1 | sed 's/^/# (seen) /'

	# core2 and zen1 ran perf stat alone (vpmu.case=count).
	case $name in core2 | zen1) return ;; esac
	s=$(line "$name" samples)
	top=$(line "$name" report: | head -n 1)
	[ -n "$s" ] && [ "$s" != 0 ] && echo "$top" | grep -q 'hot_crc_loop'
	ok $? "$name: perf record -c 4000000 samples through PMIs (${s:-no} samples) and perf report puts hot_crc_loop first ($top)" "$f"
	# The VM's PMIs, and the glue's per-vCPU counts summed (the workload may
	# have run on either vCPU).
	pmis=$(awk '$0 == "  VM total" { f = 1 } f && / pmis=/ { sub(/.* pmis=/, ""); print $1 + 0; exit }' "$tmp/$name.out" 2>/dev/null)
	glue() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$tmp/$name.out" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
	rx=$(glue rdpmc-exits); lost=$(glue pmis-lost-masked)
	[ "${pmis:-0}" -gt 0 ] && [ "${rx:-0}" -gt 0 ] 2>/dev/null
	ok $? "$name: the accounting shows the PMIs raised ($pmis; lost to a masked LVTPC: $lost) and the RDPMC exits answered ($rx)" "$f"

	c0=$(line "$name" stat-cpu: | awk -F, '$1 == "CPU0" && $4 == "cycles" { print $2 }')
	c1=$(line "$name" stat-cpu: | awk -F, '$1 == "CPU1" && $4 == "cycles" { print $2 }')
	# Each CPU ran one workload of about a billion cycles: a count beyond
	# 10^11 is not a count of this run.
	[ "${c0:-0}" -gt 0 ] && [ "${c1:-0}" -gt 0 ] && [ "$c0" -lt 100000000000 ] && [ "$c1" -lt 100000000000 ] 2>/dev/null
	ok $? "$name, 2 vCPUs: perf stat -a counts cycles on both CPUs (CPU0 ${c0:-none}, CPU1 ${c1:-none})" "$f"
	case $name in zen*) ;; *)
		fx=$(pmc "$name" "vCPU 1" 9)
		[ "${fx:-0}" -gt 0 ] 2>/dev/null
		ok $? "$name, 2 vCPUs: vCPU 1 counts cycles on its own fixed counter 1 (pmc9=${fx:-none})" "$f" ;;
	esac
}
echo "$PMUS" >"$tmp/pmus"
while IFS='|' read -r name driver ver width gp vmask maxp fixed emask; do
	check "$name" "$driver" "$ver" "$width" "$gp" "$vmask" "$maxp" "$fixed" "$emask" </dev/null
done <"$tmp/pmus"

# The event filter under Linux's own perf: the denied encoding's counter reads
# 0 while the fixed counters count at the TSC rate, and the accounting counts
# the filtered programmings (vpmu.filtered, docs/accounting.md).
name=skyfilter
f=$(both "$name")
[ "$(st "$name")" = 0 ]
ok $? "$name: Skylake under an event filter runs to the end (status $(st "$name"))" "$f"
tc=$(csv "$name" task-clock); k=$(khz "$name")
g=$(csv "$name" gp-cycles); c=$(csv "$name" cycles); r=$(csv "$name" ref-cycles)
[ "$g" = 0 ] && in_window "$(ratio "$c" "$tc" "$k")" && in_window "$(ratio "$r" "$tc" "$k")"
ok $? "$name: perf stat reads 0 for the denied gp-cycles (event 0x3C: ${g:-none}) while cycles (${c:-none}) and ref-cycles (${r:-none}) count at the TSC rate on the fixed counters" "$f"
fl=$(sed -n 's/^@@ACCT *vpmu\.filtered=//p' "$tmp/$name.out" | head -n 1)
[ "${fl:-0}" -gt 0 ] 2>/dev/null
ok $? "$name: the accounting counts the filtered programmings (vpmu.filtered=${fl:-none})" "$f"
# The events of Skylake's table the guest programmed, and how this host (no host
# PMU: docs/integration.md "Guest events on the host") counted them: perf's
# cycles on fixed counter 1 is CPU_CLK_UNHALTED.THREAD, from the task clock.
es() { sed -n "s/^@@ACCT *vpmu\.event_source\.$1=//p" "$tmp/$name.out" | tr -d '\r' | head -n 1; }
i=$(sed -n 's/^@@ACCT *vpmu\.event_source\.\([0-9]*\)\.name=CPU_CLK_UNHALTED\.THREAD\r*$/\1/p' "$tmp/$name.out" | head -n 1)
src=$([ -n "$i" ] && es "$i.source"); he=$([ -n "$i" ] && es "$i.host_event")
[ "$src" = task-clock ] && [ "$he" = cycles ]
ok $? "$name: the accounting's event sources: CPU_CLK_UNHALTED.THREAD counted from the task clock as cycles (${src:-none}, ${he:-none})" "$f"
echo "1..$n"
