# SPDX-License-Identifier: MIT
# What tests/linux-perf.t and tests/linux-modern.t share, sourced after $tmp is
# set: the kernel command line of their guests, one kvm-env call running a
# script of boots, the split of its output per boot, and the report of a boot
# that runs once more.  A boots script echoes "@@RUN NAME" before each boot,
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
