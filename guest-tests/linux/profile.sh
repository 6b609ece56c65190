#!/bin/sh
# SPDX-License-Identifier: MIT
# /run.sh of the profiled Linux guests (tests/linux-perf.t, make demo): runs
# inside Debian's kernel with scripts/guest-image's busybox + perf initramfs and
# guest-tests/linux/workload.c as /bin/vpmu-workload.  What it runs comes from
# the kernel command line:
#   vpmu.case=profile  guest-tests/linux/selfcount.c first (cycles events the
#                      process opens on itself), then perf stat (cycles,
#                      instructions, branches, task-clock) and perf record -e
#                      cycles -c PERIOD with perf report's top lines
#   vpmu.case=smp      perf stat -a -A -e cycles with a workload on every CPU
#   vpmu.case=stat     perf stat alone (the strict-mode boots)
#   vpmu.case=modern   the architectural PMUs (tests/linux-modern.t): perf stat
#                      of the vendor's events (below: on Intel cycles also
#                      through a general counter, and ref-cycles), perf
#                      record, and with two or more CPUs perf stat -a -A
#   vpmu.case=count    the modern case's perf stat alone
#   vpmu.case=demo     perf record and perf report, for people (make demo)
#   vpmu.case=slowdown the workload's own time (µs) unsampled and under perf
#                      record, alternating, vpmu.runs=N times each
#                      (bench/linux-sampling.sh)
#   vpmu.iters=N       the workload's length in millions of iterations (20)
#   vpmu.period=N      the sampling period in cycles (2000000: a nested guest
#                      runs far slower than its clock, docs/linux-guests.md)
#   vpmu.stat=cpu      perf stat counts CPU-wide (-a; the profile case's hardware
#                      events as one group), after a silent warm-up run of the
#                      same events: Linux's P4 driver writes each counter a
#                      second time with the start value of that counter's
#                      previous period, so only a counter whose previous period
#                      was as long, scheduled in once, counts right
#                      (docs/linux-guests.md, "Pentium 4")
# Lines the host parses start with "@@ "; the exit status is the VM's (the
# initramfs's /init hands it to vpmu-run through port 0xF4).
arg() { sed -n "s/.*vpmu\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
case=$(arg case)
iters=$(arg iters)
period=$(arg period)
statmode=$(arg stat)
: "${case:=profile}" "${iters:=20}" "${period:=2000000}"
W=/bin/vpmu-workload
# perf rotates events that do not fit the counters (three on the P6's two) every
# perf_event_mux_interval_ms (4 ms).  Each rotation is a dozen PMU register
# exits; in the nested tier, where an exit costs up to a millisecond of wall
# time, rotations every 4 ms left the guest no time for anything else (soft
# lockups, docs/linux-guests.md); every 100 ms they cost a few per cent.
for f in /sys/bus/event_source/devices/cpu/perf_event_mux_interval_ms; do
	[ -w "$f" ] && echo 100 >"$f"
done
# Every sample, not what Linux lets sampling cost: with a precise clock
# (kvmclock) Linux times its PMI handler, finds it slow in the nested tier
# ("perf: interrupt took too long") and lowers perf_event_max_sample_rate until
# about one sample in five is left (docs/linux-guests.md); 0 turns that off.
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent

# The demo's reader gets the same facts without the parser's prefix.
P='@@ '
[ "$case" = demo ] && P='== guest '
echo "${P}kernel $(uname -r) $(uname -m), $(grep -c '^processor' /proc/cpuinfo) CPU(s), case $case"
echo "${P}cpu $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
dmesg | sed -n 's/^\[[ 0-9.]*\] //p' | grep -E 'Performance Events|unchecked MSR access|PMU|tsc: ' |
	sed "s/^/${P}dmesg: /"
# The PMU Linux took, as arch/x86/events/core.c x86_pmu_show_pmu_cap() prints
# it ("... version:", "... generic registers:", ...; KERN_INFO, so not on a
# quiet console).
[ "$case" = demo ] || dmesg | sed -n 's/^\[[ 0-9.]*\] //p' | grep '^\.\.\. ' | sed 's/^/@@ pmu: /'
# At the end, whatever the PMU driver or the kernel complained about while
# perf ran: an MSR access that faulted, an overflow interrupt that never
# cleared its status ("irq loop stuck", "New overflows"), a kernel warning.
# shellcheck disable=SC2317 # called by the EXIT trap
late() {
	dmesg | sed -n 's/^\[[ 0-9.]*\] //p' |
		grep -E 'unchecked MSR access|irq loop stuck|New overflows|NMI received for unknown reason|WARNING: CPU' |
		head -n 20 | sed 's/^/@@ late-dmesg: /'
}
[ "$case" = demo ] || trap late EXIT

SK=stat:
stat() { # EVENTS ARGS...: CSV lines (perf stat -x,) as "@@ $SK ..."
	ev=$1; shift
	perf stat -x, -o /tmp/stat.csv -e "$ev" "$@" >/tmp/stat.out 2>&1
	rc=$?
	grep -v -e '^#' -e '^$' /tmp/stat.csv | sed "s/^/@@ $SK /"
	[ $rc -eq 0 ] || { echo "@@ error: perf stat exited with $rc"; cat /tmp/stat.out; }
	return $rc
}
warmup() { # EVENTS ARGS...: a perf stat whose counts nobody reads (vpmu.stat=cpu)
	[ "$statmode" = cpu ] || return 0
	ev=$1; shift
	perf stat -x, -o /dev/null -e "$ev" "$@" >/dev/null 2>&1
}
record() { # perf record of the workload, then perf report's top symbols
	perf record -q -e cycles -c "$period" -o /tmp/perf.data -- $W "$iters" >/tmp/rec.out 2>&1 ||
		{ echo "@@ error: perf record failed"; cat /tmp/rec.out; return 1; }
	perf report -i /tmp/perf.data --stdio --sort sym >/tmp/report.txt 2>/tmp/report.err ||
		{ echo "@@ error: perf report failed"; cat /tmp/report.err; return 1; }
	echo "@@ samples $(sed -n 's/^# Samples: \(.*\) of event.*/\1/p' /tmp/report.txt | head -n 1)"
	grep -v -e '^#' -e '^$' /tmp/report.txt | head -n "${1:-8}" | sed 's/^ */@@ report: /'
}

self() { # the simplest perf client, as "@@ self: ..." lines (selfcount.c)
	# It runs SCHED_FIFO: without the real-time throttle (0.95 s of every
	# second) its windows, which take longer than that in the nested tier with
	# their PMIs, are not preempted either.
	echo -1 >/proc/sys/kernel/sched_rt_runtime_us
	/bin/vpmu-selfcount >/tmp/self.out 2>&1
	rc=$?
	sed -n "s/^vpmu-selfcount: /${P}self: /p" /tmp/self.out
	[ $rc -eq 0 ] || { echo "${P}error: vpmu-selfcount exited with $rc"; cat /tmp/self.out; }
}

# The modern case's events.  On an Intel CPU with architectural performance
# monitoring, Linux puts cycles on fixed counter 1 (arch/x86/events/core.c
# __perf_sched_find_counter prefers fixed counters), so a second event
# selecting UnHalted Core Cycles by its encoding (event 0x3C, umask 0; Intel SDM
# vol. 3B, "Pre-defined Architectural Performance Events") counts on a general
# counter; ref-cycles takes fixed counter 2.  AMD has general counters alone.
modern_events() {
	if grep -q '^vendor_id.*GenuineIntel' /proc/cpuinfo; then
		echo 'cycles,cpu/event=0x3c,umask=0x0,name=gp-cycles/,ref-cycles,instructions,branches,task-clock'
	else
		echo 'cycles,instructions,branches,task-clock'
	fi
}

us() { # the workload's own time for its loops, in µs, from its output line
	"$@" 2>/dev/null | sed -n 's/^vpmu-workload: .*, in \([0-9]*\) us$/\1/p'
}

case $case in
slowdown)
	runs=$(arg runs)
	i=0
	while [ "$i" -lt "${runs:-3}" ]; do
		echo "@@ time plain $(us $W "$iters")"
		echo "@@ time sampled $(us perf record -q -e cycles -c "$period" -o /tmp/perf.data -- $W "$iters")"
		i=$((i + 1))
	done
	echo "@@ samples $(perf report -i /tmp/perf.data --stdio 2>/dev/null | sed -n 's/^# Samples: \(.*\) of event.*/\1/p' | head -n 1)"
	echo "@@ throttled $(dmesg | grep -c 'interrupt took too long')" ;;
profile)
	# First, while no perf event has used a counter since boot (Linux's P4
	# driver then starts the first one from 0: docs/linux-guests.md).
	self
	if [ "$statmode" = cpu ]; then
		# perf record first: after the CPU-wide stat, the amd64 kernel's
		# perf record on p4-em64t stopped making progress in about half
		# the nested runs (docs/linux-guests.md, "Pentium 4").
		record || exit 1
		warmup '{cycles,instructions,branches}' -a -- true
		stat '{cycles,instructions,branches},task-clock' -a -- $W "$iters" || exit 1
	else
		stat cycles,instructions,branches,task-clock -- $W "$iters" || exit 1
		record || exit 1
	fi ;;
smp)
	warmup cycles -a -- true
	stat cycles -a -A -- sh -c "$W $iters & $W $iters; wait" || exit 1 ;;
stat)
	stat cycles,instructions -- $W "$iters" || exit 1 ;;
modern | count)
	stat "$(modern_events)" -- $W "$iters" || exit 1
	[ "$case" = count ] && exit 0
	record 8 || exit 1
	if [ "$(grep -c '^processor' /proc/cpuinfo)" -gt 1 ]; then
		SK=stat-cpu:
		stat cycles -a -A -- sh -c "$W $iters & $W $iters; wait" || exit 1
	fi ;;
demo)
	echo "== kernel.perf_cpu_time_max_percent=0: otherwise Linux finds its PMI handler slow in the"
	echo "== nested tier and keeps about one sample in five (docs/linux-guests.md)"
	echo "== perf record -e cycles -c $period $W $iters, inside the guest"
	perf record -e cycles -c "$period" -o /tmp/perf.data -- $W "$iters" 2>&1 | grep -v '^\[ perf record: Woken'
	echo "== perf report --stdio --sort comm,dso,sym | head"
	perf report -i /tmp/perf.data --stdio --sort comm,dso,sym 2>/dev/null | grep -v '^$' | head -n 24 ;;
*)
	echo "@@ error: unknown vpmu.case=$case"
	exit 2 ;;
esac
exit 0
