# SPDX-License-Identifier: MIT
# What tests/linux-perf.t and tests/linux-modern.t share, sourced after $tmp is
# set: the kernel command line of their guests, one kvm-env call running a
# script of boots, the split of its output per boot, the report of a boot that
# runs once more, and the whole run of a test's boots (run_boots).  A boots script echoes "@@RUN NAME" before each boot,
# then "@@STATUS N", the boot's stdout, and its stderr with "@@ERR " before
# each line.

linux_cmdline="console=ttyS0 quiet nokaslr panic=-1 nmi_watchdog=0 rdinit=/init reboot=t acpi=off"

linux_kvm() { # LIMIT BOOTS-SCRIPT OUTPUT FILE...: one kvm-env call (LIMIT s) running the boots
	limit=$1 script=$2 output=$3
	shift 3
	files=
	for f in "$@" "$script"; do files="$files --file $f"; done
	# shellcheck disable=SC2086
	scripts/kvm-env --patched-kvm --timeout "$limit" --smp 2 --mem 1536 $files \
		-- /bin/busybox sh "$(basename "$script")" >"$output" 2>>"$tmp/env.err"
}

split_boots() { # OUTPUT: one NAME.out, NAME.err and NAME.status per boot, in $tmp
	awk -v d="$tmp" '
	/^@@RUN / { run = d "/" $2; printf "" > (run ".out"); printf "" > (run ".err"); next }
	/^@@ERR / { sub(/^@@ERR /, ""); print > (run ".err"); next }
	/^@@STATUS / { print $2 > (run ".status"); next }
	run != "" { print > (run ".out") }' "$1"
}

report_retry() { # NAME: say that boot NAME runs once more, with its last lines
	echo "# $1: the boot did not end with its report (status $(cat "$tmp/$1.status" 2>/dev/null || echo missing)); it runs once more. Its last lines:"
	grep -v '^ ' "$tmp/$1.out" 2>/dev/null | tail -n 5 | sed 's/^/#   /'
	grep -h 'was at RIP' "$tmp/$1.err" 2>/dev/null | sed 's/^/#   /'
}

# boot_starved SPEC: whether a boot that reported shows that the nested tier
# distorted what it measures (a test that knows the sign defines it, and says
# why); such a boot runs once more, as one that did not report.
boot_starved() { return 1; }

# The boots of $BOOTS1 and $BOOTS2 (specs "NAME:..."), in two calls of the
# test's kvm() (BOOTS-SCRIPT OUTPUT) over the scripts its boots() (SPECS...)
# writes, so that a nested tier that hangs costs one call's time, not every
# boot's.  A boot that ends without its report (the test's boot_done SPEC says)
# runs once more, and the test says so (docs/linux-guests.md, "Known problems
# in the nested tier"); what it reports the second time is what the checks
# see.  Then one case: every boot reported, at the first run or the second.
run_boots() {
	# shellcheck disable=SC2086
	boots $BOOTS1 >"$tmp/boots1.sh"
	# shellcheck disable=SC2086
	boots $BOOTS2 >"$tmp/boots2.sh"
	kvm "$tmp/boots1.sh" "$tmp/all1.out"; r1=$?
	kvm "$tmp/boots2.sh" "$tmp/all2.out"; r2=$?
	split_boots "$tmp/all1.out"
	split_boots "$tmp/all2.out"
	retry=
	for b in $BOOTS1 $BOOTS2; do
		if ! boot_done "$b"; then
			report_retry "${b%%:*}"
		elif ! boot_starved "$b"; then
			continue
		fi
		retry="$retry $b"
	done
	r3=-
	if [ -n "$retry" ]; then
		# shellcheck disable=SC2086
		boots $retry >"$tmp/retry.sh"
		kvm "$tmp/retry.sh" "$tmp/retry.out"; r3=$?
		split_boots "$tmp/retry.out"
	fi
	missing=
	for b in $BOOTS1 $BOOTS2; do
		boot_done "$b" || missing="$missing ${b%%:*}"
	done
	[ -z "$missing" ]
	ok $? "every boot reported (kvm-env calls: $r1, $r2, retry $r3${missing:+; not:$missing})" "$tmp/env.err"
}
