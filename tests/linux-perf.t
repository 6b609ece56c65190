#!/bin/sh
# SPDX-License-Identifier: MIT
# Profiled Linux guests (docs/linux-guests.md): Debian's kernels boot under
# vpmu-run on KVM with the RDPMC exit (scripts/kvm-env --patched-kvm,
# docs/rdpmc.md), and Linux's own PMU drivers and perf are the clients:
#   p6 (686 kernel), k7 (686) and k8 (amd64): the driver accepts the virtual
#     PMU, perf stat counts cycles that follow the guest's clock (events the
#     host cannot count read 0 and vpmu-run's accounting says so), perf record
#     samples through PMIs, and perf report puts the workload's hot function
#     first;
#   p4 (686) and p4-em64t (amd64): the same with Linux's NetBurst driver;
#     its perf stat counts CPU-wide after a warm-up run (vpmu.stat=cpu: the
#     driver's second counter write reuses the previous period's start), and
#     the amd64 kernel runs without the 32-bit vDSO (vdso32=0: QEMU 7.2's TCG
#     runs the vDSO's SYSENTER in compat mode with the 32-bit SYSENTER_EIP
#     that nested KVM keeps for an Intel guest on AMD; docs/linux-guests.md);
#   every profile boot first runs the simplest perf client
#     (guest-tests/linux/selfcount.c: cycles events a process opens on itself,
#     counting and sampling, against its loop's TSC ticks); on the P4s it counts
#     what Linux's driver makes a real P4 count (self_checks below);
#   p6 on two vCPUs: perf stat -a counts on both; p4 with --ht on two vCPUs
#     (the two threads of one core): the same, thread 1 on its own counter;
#   p6, k8 and p4 in strict mode: Linux keeps running, and the accounting
#     names the perfctr rules its drivers break.
# The boots run in two kvm-env calls (about 9 minutes nested on 2 cores).  The
# guest side is guest-tests/linux/profile.sh; images from scripts/guest-image.
KB=${VPMU_KVM_BUILD:-build/static}
GB=${VPMU_GUEST_BUILD:-build/guest}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
# shellcheck source=tests/linux-boots.sh
. tests/linux-boots.sh

k686=$(scripts/guest-image --kernel 686 2>"$tmp/img.err") &&
	kamd=$(scripts/guest-image --kernel amd64 2>>"$tmp/img.err") &&
	initrd=$(scripts/guest-image --initrd 2>>"$tmp/img.err")
ok $? "the guest images are cached (scripts/guest-image)" "$tmp/img.err"
for f in "$KB/bin/vpmu-run" "$GB/vpmu-workload" "$GB/vpmu-selfcount"; do
	[ -f "$f" ] || { ok 1 "$f is built (make kvm-programs guests)"; echo "1..$n"; exit 1; }
done
[ -f "${initrd:-}" ] || { echo "1..$n"; exit 1; }
if [ "${VPMU_KVM_MODE:-auto}" = native ]; then
	skip "Linux guests with perf" "VPMU_KVM_MODE=native forces the host's KVM, and guest RDPMC needs the patched KVM of the nested tier (docs/rdpmc.md)"
	echo "1..$n"
	exit 0
fi

# The initramfs: the cached one, then ours (run.sh and the workload).
VPMU_GUEST_BUILD=$GB guest-tests/linux/initrd.sh "$tmp/initrd" 2>"$tmp/initrd.err"
ok $? "the guests' initramfs is assembled (guest-tests/linux/initrd.sh)" "$tmp/initrd.err"
cp "$k686" "$tmp/vmlinuz-686" && cp "$kamd" "$tmp/vmlinuz-amd64"

cmd=$linux_cmdline
boot() { # NAME MODEL KERNEL VCPUS EXTRA-OPTION CASE [KERNEL-ARGS]: boots.sh lines for one boot
	# busybox timeout bounds a vpmu-run that its own --timeout cannot end
	# (status 137; docs/linux-guests.md "Known problems in the nested tier").
	echo "echo @@RUN $1"
	echo "timeout -s KILL 260 ./vpmu-run --model $2 --vcpus $4 $5 --timeout 200 --kernel vmlinuz-$3 --initrd initrd --append '$cmd vpmu.case=$6 vpmu.period=4000000${7:+ $7}' >out 2>err"
	echo "echo @@STATUS \$?; cat out; sed 's/^/@@ERR /' err"
}
# The boots, NAME:MODEL:KERNEL:VCPUS:OPTION:CASE:KERNEL-ARGS, in two kvm-env
# calls (the legacy models, then the P4s), so that a nested tier that hangs
# costs one call's time, not every boot's.
BOOTS1="p6:p6:686:1::profile: k7:k7:686:1::profile: k8:k8:amd64:1::profile: p6smp:p6:686:2::smp:
	p6strict:p6:686:1:--strict:stat: k8strict:k8:amd64:1:--strict:stat:"
BOOTS2="p4:p4:686:1::profile:vpmu.stat=cpu p4e:p4-em64t:amd64:1::profile:vpmu.stat=cpu,vdso32=0
	p4smp:p4:686:2:--ht:smp:vpmu.stat=cpu p4strict:p4:686:1:--strict:stat:"
boots() { # SPECS...: boots.sh lines for each (commas in KERNEL-ARGS are blanks)
	for b in "$@"; do
		IFS=: read -r bname bmodel bkernel bvcpus bopt bcase bargs <<EOF2
$b
EOF2
		boot "$bname" "$bmodel" "$bkernel" "$bvcpus" "$bopt" "$bcase" "$(echo "$bargs" | tr , ' ')"
	done
}
kvm() { # BOOTS-SCRIPT OUTPUT: one kvm-env call running the boots
	linux_kvm 800 "$1" "$2" "$KB/bin/vpmu-run" "$tmp/vmlinuz-686" "$tmp/vmlinuz-amd64" "$tmp/initrd"
}
# A nested guest that stops making progress (seen about once in ten p6 perf
# record boots: the guest stops exiting with PMIs pending, inside QEMU's
# emulation of SVM; docs/linux-guests.md) ends at vpmu-run's --timeout with
# status 124, at busybox's timeout (137), or with the nested tier itself (no
# status: kvm-env's --timeout); once in a while a guest dies before its
# workload (status 0, no report).  Such a boot runs once more, and the test
# says so; what it reports the second time is what the checks below see.
boot_done() { # SPEC: the boot ended with 0 and reported what its case measures
	name=${1%%:*}
	[ "$(cat "$tmp/$name.status" 2>/dev/null)" = 0 ] && grep -q '^@@ kernel ' "$tmp/$name.out" || return 1
	case $(echo "$1" | cut -d: -f6) in
	profile) grep -q '^@@ stat: .*cycles' "$tmp/$name.out" && grep -q '^@@ samples ' "$tmp/$name.out" ;;
	*) grep -q '^@@ stat: ' "$tmp/$name.out" ;;
	esac
}
run_boots

st() { cat "$tmp/$1.status" 2>/dev/null || echo missing; }
line() { sed -n "s/^@@ $2 //p" "$tmp/$1.out" 2>/dev/null | tr -d '\r'; } # line BOOT KEY
csv() { # csv BOOT EVENT: perf stat's value of EVENT (first CSV line naming it)
	line "$1" stat: | awk -F, -v e="$2" '$3 == e || $4 == e { print $1; exit }'
}
acct() { sed -n "s/^ *$2 *//p" "$tmp/$1.out" | head -n 1; } # the accounting's line for an event
both() { cat "$tmp/$1.out" "$tmp/$1.err" >"$tmp/$1.all" 2>/dev/null; echo "$tmp/$1.all"; }

# The simplest perf client (guest-tests/linux/selfcount.c, the profile case's
# first program): cycles events a process opens on itself, four windows in a
# row on CPU 0, each "count|sample RUN cycles=N ticks=T switches=S" (sampling:
# period=P signals=K too).  Expected, from the hardware: GLOBAL_POWER_EVENTS
# RUNNING (P4), CPU_CLK_UNHALTED (P6) and CPU clocks not halted (K7/K8) count
# every cycle of a busy loop, and the TSC of these CPUs ticks at the (nominal)
# core clock, so a window counts its loop's ticks (the window is a few system
# calls longer); in the nested tier the guest's cycles stand still during exits
# (docs/linux-guests.md), hence 0.5-1.5 as for perf stat above.  A sampling
# window then signals once a period of its loop: loop ticks / P, at least a
# quarter of that in the nested tier (a PMI reaches the guest 1-1.5 million
# cycles late, docs/performance.md; 0.6-1.0 measured at this period).
# Linux's P4 driver (arch/x86/events/intel/p4.c, p4_pmu_set_period) writes a
# counter a second time with the start of that counter's previous period on
# this CPU, and the counter keeps what was written last, so on a P4 (and here):
#   count 1   the counter's first use since boot starts it at 0: perf counts
#             2^39 - 1 more than the loop (its max_period, 2^39 - 1);
#   count 2   the previous period was count 1's, as long: right;
#   sample 1  the counter starts 2^39 - 1 from its overflow: no signal, and
#             perf counts 2^39 + P + 1 more than the loop;
#   sample 2  the previous period was P: a signal a period again.
# A context switch in a window (or in the one before, on a P4) schedules the
# event out and in again, and the P4's count then depends on where each piece
# ended: that window is skipped (the client runs SCHED_FIFO, so it is rare).
self_checks() { # NAME MODEL FILE
	line "$1" self: >"$tmp/$1.self"
	grep -q '^policy ' "$tmp/$1.self" && [ "$(grep -c -e '^count ' -e '^sample ' "$tmp/$1.self")" = 4 ]
	ok $? "$2: the self-counting client ran its four windows ($(sed -n 's/^policy //p' "$tmp/$1.self"))" "$3"
	case $2 in p4*) p4=1 ;; *) p4=0 ;; esac
	awk -v p4="$p4" -v m="$2" '
	function val(w, k) { return (w SUBSEP k) in v ? v[w, k] : -1 }
	function inside(x, t) { return t > 0 && x >= 0.5 * t && x <= 1.5 * t }
	function ratio(x, t) { return t > 0 ? sprintf("%.2f", x / t) : "none" }
	function out(st, d) { printf "%s\t%s: self-counting client, %s\n", st, m, d }
	function skip(w, d) { printf "skip\t%s: self-counting client, %s\t%s\n", m, d, w " or the window before had a context switch" }
	$1 == "count" || $1 == "sample" {
		w = $1 " " $2
		for (i = 3; i <= NF; i++) { split($i, a, "="); v[w, a[1]] = a[2] }
	}
	END {
		L = 549755813887   # 2^39 - 1
		split("count 1,count 2,sample 1,sample 2", ws, ",")
		for (k = 1; k <= 4; k++) {
			w = ws[k]; c = val(w, "cycles"); t = val(w, "ticks"); s = val(w, "switches")
			prev = k > 1 ? val(ws[k - 1], "switches") : 0
			if (c < 0) { out(1, w ": no report"); continue }
			if (s != 0 || (p4 && prev != 0)) { skip(w, w); continue }
			if (w ~ /^sample/) {
				P = val(w, "period"); g = val(w, "signals"); E = t / P
				if (p4 && w == "sample 1") {
					x = c - (L + 1 + P)
					out(!(g == 0 && inside(x, t)), sprintf("%s (period %d): no signal (%d) and %s cycles, %s past 2^39 + P + 1, in %s loop ticks (ratio %s, expected 0.5-1.5): the P4 driver started the counter 2^39 - 1 from its overflow", w, P, g, c, x, t, ratio(x, t)))
					continue
				}
				out(!(g >= 1 && g >= E / 4 && g <= 1.5 * E + 1), sprintf("%s (period %d): %d signals for %s loop ticks (%.1f periods; expected %.1f-%.1f)", w, P, g, t, E, E / 4, 1.5 * E + 1))
				if (p4)   # the nested tier can add 2^40 here: docs/linux-guests.md
					continue
			}
			x = c; what = ""
			if (p4 && w == "count 1") { x = c - L; what = sprintf(", %s past 2^39 - 1 (the first period on the counter)", x) }
			out(!inside(x, t), sprintf("%s: %s cycles%s in %s loop ticks (ratio %s, expected 0.5-1.5)", w, c, what, t, ratio(x, t)))
		}
	}' "$tmp/$1.self" >"$tmp/$1.checks"
	while IFS='	' read -r st desc why; do
		case $st in
		skip) skip "$desc" "$why" ;;
		*) ok "$st" "$desc" "$3" ;;
		esac
	done <"$tmp/$1.checks"
}

for b in p6:p6:"p6 PMU driver" k7:k7:"AMD PMU driver" k8:k8:"AMD PMU driver" \
	p4:p4:"Netburst P4/Xeon PMU driver" p4e:p4-em64t:"Netburst P4/Xeon PMU driver"; do
	name=${b%%:*}; rest=${b#*:}; model=${rest%%:*}; driver=${rest#*:}
	f=$(both "$name")
	[ "$(st "$name")" = 0 ]
	ok $? "$model: the guest's run ends with status 0 (got $(st "$name"); $(line "$name" kernel))" "$f"
	line "$name" dmesg: | grep -q "Performance Events: .*$driver\."
	ok $? "$model: Linux's driver accepts the virtual PMU ($(line "$name" dmesg: | grep 'Performance Events' | head -n 1))" "$f"
	grep -q 'guest RDPMC: exit:' "$tmp/$name.err" 2>/dev/null
	ok $? "$model: guest RDPMC exits to the model (vpmu-run: $(sed -n 's/^vpmu-run: guest RDPMC: //p' "$tmp/$name.err" | cut -c1-30))" "$f"

	cyc=$(csv "$name" cycles); tc=$(csv "$name" task-clock)
	khz=$(sed -n 's/^vpmu-run: guest TSC: \([0-9]*\) kHz.*/\1/p' "$tmp/$name.err" | head -n 1)
	[ "${cyc:-0}" -gt 0 ] 2>/dev/null
	ok $? "$model: perf stat counts cycles (${cyc:-none})" "$f"
	# Cycles per millisecond of the guest's task-clock against its TSC rate:
	# without a host PMU the guest's cycles count at its TSC rate while it runs
	# (docs/linux-guests.md).  The guest's task-clock comes from its own clock
	# (which a nested guest often cannot calibrate: its "cpu MHz" reads 0), so
	# the window is wide; what it rules out is a cycles count unrelated to time.
	r=$(awk -v c="$cyc" -v t="$tc" -v k="$khz" 'BEGIN { if (t > 0 && k > 0) printf "%.2f", c / t / k; else print "none" }')
	awk -v r="$r" 'BEGIN { exit !(r != "none" && r >= 0.5 && r <= 1.5) }'
	ok $? "$model: the cycles follow the guest's clock: $cyc cycles in $tc ms of task-clock at a $khz kHz TSC (ratio $r, expected 0.5-1.5)" "$f"
	for ev in instructions branches; do
		v=$(csv "$name" "$ev"); a=$(acct "$name" "$ev")
		case $a in
		# 0, or perf's own "<not counted>" where it multiplexed the event
		# out for the whole run (three events on the P6's two counters).
		not-countable*) [ "$v" = 0 ] || [ "$v" = "<not counted>" ]
			ok $? "$model: $ev is not countable on this host: the guest reads no count (${v:-none}) and the accounting says why ($(echo "$a" | cut -c1-40))" "$f" ;;
		*) [ "${v:-0}" -gt 0 ] 2>/dev/null; ok $? "$model: perf stat counts $ev (${v:-none}; host: ${a:-?})" "$f" ;;
		esac
	done
	s=$(line "$name" samples)
	top=$(line "$name" report: | head -n 1)
	[ -n "$s" ] && [ "$s" != 0 ] && echo "$top" | grep -q 'hot_crc_loop'
	ok $? "$model: perf record -c 4000000 sampled through PMIs (${s:-no} samples) and perf report puts hot_crc_loop first ($top)" "$f"
	pmis=$(sed -n 's/.* pmis=\([0-9]*\).*/\1/p' "$tmp/$name.out" | head -n 1)
	rx=$(sed -n 's/.* rdpmc-exits=\([0-9]*\).*/\1/p' "$tmp/$name.out" | head -n 1)
	[ "${pmis:-0}" -gt 0 ] && [ "${rx:-0}" -gt 0 ] 2>/dev/null
	ok $? "$model: the accounting shows the PMIs raised ($pmis) and the RDPMC exits answered ($rx)" "$f"
	# The P4 masks its LVTPC on delivery, and its PMI is a level: one raised
	# while Linux's handler still has the LVTPC masked is held and delivered at
	# the unmask, none is lost (docs/linux-guests.md, "Pentium 4").
	case $model in p4*)
		held=$(sed -n 's/.* pmis-held=\([0-9]*\).*/\1/p' "$tmp/$name.out" | head -n 1)
		lost=$(sed -n 's/.* pmis-lost-masked=\([0-9]*\).*/\1/p' "$tmp/$name.out" | head -n 1)
		[ "${lost:-x}" = 0 ]
		ok $? "$model: no PMI lost to the masked LVTPC ($held held until Linux unmasked it, ${lost:-?} lost)" "$f" ;;
	esac
	self_checks "$name" "$model" "$f"
done

f=$(both p6smp)
[ "$(st p6smp)" = 0 ]; ok $? "p6, 2 vCPUs: status 0 (got $(st p6smp); $(line p6smp kernel))" "$f"
c0=$(line p6smp stat: | awk -F, '$1 == "CPU0" && $4 == "cycles" { print $2 }')
c1=$(line p6smp stat: | awk -F, '$1 == "CPU1" && $4 == "cycles" { print $2 }')
[ "${c0:-0}" -gt 0 ] && [ "${c1:-0}" -gt 0 ] 2>/dev/null
ok $? "p6, 2 vCPUs: perf stat -a counts cycles on both CPUs (CPU0 ${c0:-none}, CPU1 ${c1:-none})" "$f"

# P4 with hyper-threading: vCPUs 0 and 1 are the two threads of one core.
# Linux gives thread 1 its own counters (cycles: counter 2 through FSB_ESCR1,
# T1_OS/T1_USR, OVF_PMI_T1), so the package's counter 2 counts thread 1.
f=$(both p4smp)
[ "$(st p4smp)" = 0 ]; ok $? "p4 --ht, 2 vCPUs: status 0 (got $(st p4smp); $(line p4smp kernel))" "$f"
line p4smp dmesg: | grep -q "Performance Events: .*Netburst P4/Xeon PMU driver\."
ok $? "p4 --ht: Linux's driver accepts the virtual PMU ($(line p4smp dmesg: | grep 'Performance Events' | head -n 1))" "$f"
c0=$(line p4smp stat: | awk -F, '$1 == "CPU0" && $4 == "cycles" { print $2 }')
c1=$(line p4smp stat: | awk -F, '$1 == "CPU1" && $4 == "cycles" { print $2 }')
# Each thread ran one workload of about a billion cycles (the profile boots'
# count): a count beyond 10^11 is not a count of this run.
[ "${c0:-0}" -gt 0 ] && [ "${c1:-0}" -gt 0 ] && [ "$c0" -lt 100000000000 ] && [ "$c1" -lt 100000000000 ] 2>/dev/null
ok $? "p4 --ht: perf stat -a counts cycles on both threads (CPU0 ${c0:-none}, CPU1 ${c1:-none})" "$f"
t1=$(awk '/^  vCPU 1$/ { v = 1; next } v && /counters:/ { print; exit }' "$tmp/p4smp.out" | sed -n 's/.* pmc2=\([0-9]*\).*/\1/p')
[ "${t1:-0}" -gt 0 ] 2>/dev/null
ok $? "p4 --ht: thread 1 counts on its own counter (vCPU 1 pmc2=${t1:-none}; $(awk '/^  vCPU 1$/ { v = 1; next } v && /perfctr-rule/ { sub(/^ */, ""); print; exit }' "$tmp/p4smp.out"))" "$f"

for b in p6strict:p6 k8strict:k8 p4strict:p4; do
	name=${b%%:*}; model=${b#*:}
	f=$(both "$name")
	# What a refused write leaves counting is the driver's business: a counter
	# whose enable was refused counts nothing.
	[ "$(st "$name")" = 0 ] && [ -n "$(csv "$name" cycles)" ]
	ok $? "$model strict: Linux runs perf stat to the end (status $(st "$name"), cycles $(csv "$name" cycles))" "$f"
	refused=$(sed -n 's/.* strict-refusals=\([0-9]*\).*/\1/p' "$tmp/$name.out" | head -n 1)
	rules=$(sed -n 's/^ *perfctr-rule violations: //p' "$tmp/$name.out" | head -n 1)
	[ "${refused:-0}" -gt 0 ] && [ -n "$rules" ] 2>/dev/null
	ok $? "$model strict: the accounting names the perfctr rules Linux's driver breaks ($rules; $refused writes refused)" "$f"
	echo "# $model strict, the guest saw: $(line "$name" dmesg: | grep 'unchecked MSR' | head -n 1 | cut -c1-120)"
done
echo "1..$n"
