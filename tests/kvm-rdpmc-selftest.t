#!/bin/sh
# SPDX-License-Identifier: MIT
# The KVM selftest of patches/kvm-rdpmc (0002, userspace_rdpmc_exit_test),
# built static by scripts/kvm-selftest from Debian's linux-source-6.1 with the
# series applied, and run under real KVM twice: with the patched kvm.ko and
# kvm-amd.ko (scripts/kvm-env --patched-kvm: all of its checks pass) and with
# Debian's own modules (it skips with KSFT_SKIP, exit 4: that KVM refuses the
# RDPMC reason bit).  Only the nested mode of kvm-env loads modules, so
# --patched-kvm runs nested even where hardware KVM is usable; the patched case
# is skipped only when VPMU_KVM_MODE=native forces the host's KVM.  Where
# kvm-env runs natively, the second run uses the host's KVM.  About 40 s nested on 2 cores, two boots of about 15 s; the first build
# of the modules and the selftest adds about 2 minutes and a download of
# linux-source-6.1 (scripts/kvm-modules).
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh

bin=$(scripts/kvm-selftest 2>"$tmp/build.err")
[ -n "$bin" ] && [ -x "$bin" ]
ok $? "scripts/kvm-selftest builds the selftest (${bin:-nothing})" "$tmp/build.err"
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
	echo "1..$n"
	exit 1
fi
! ldd "$bin" >/dev/null 2>&1
ok $? "it is linked statically (the nested guest has only busybox)"
mode=$(scripts/kvm-env --mode)

# Output and status of one kvm-env run: NAME.out (stdout: TAP), NAME.err
# (stderr), NAME.all (both, shown when a check fails), NAME.rc.
run() { # run NAME KVM-ENV-OPTIONS...
	name=$1; shift
	scripts/kvm-env "$@" --timeout 300 -- "$bin" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	cat "$tmp/$name.out" "$tmp/$name.err" >"$tmp/$name.all"
}
rc() { cat "$tmp/$1.rc"; }
has() { grep -q -- "$2" "$tmp/$1.out"; } # has NAME REGEX: a line of its stdout

if [ "${VPMU_KVM_MODE:-auto}" = native ]; then
	why="VPMU_KVM_MODE=native forces the host's KVM, and only the nested mode loads the patched modules"
	skip "under the patched KVM the selftest passes (exit 0)" "$why"
	skip "its TAP output: plan 1..5, ok 1-5, totals pass:5 fail:0" "$why"
	skip "RDPMC exits to user space with index = ECX, data in EDX:EAX, #GP from msr.error (ok 2 and 3)" "$why"
	skip "without the RDPMC reason, RDPMC stays in KVM; MSR filter exits work alongside (ok 4 and 5)" "$why"
else
	run patched --patched-kvm
	[ "$(rc patched)" = 0 ]
	ok $? "under the patched KVM the selftest passes (exit 0; got $(rc patched); $(sed -n 's/^kvm-env: KVM with the RDPMC exit (patches\/kvm-rdpmc, \(.*\))$/\1/p' "$tmp/patched.err"))" "$tmp/patched.all"
	has patched '^TAP version 13$' && has patched '^1\.\.5$' &&
		[ "$(grep -c '^ok [1-5] ' "$tmp/patched.out")" = 5 ] && ! has patched '^not ok' &&
		has patched '^# Totals: pass:5 fail:0 xfail:0 xpass:0 skip:0 error:0$'
	ok $? "its TAP output: plan 1..5, ok 1-5, totals pass:5 fail:0" "$tmp/patched.all"
	has patched '^ok 1 RDPMC reason enabled, unknown reasons fail with EINVAL$' &&
		has patched '^ok 2 RDPMC exits, index = ECX, data in EDX:EAX (7 indices)$' &&
		has patched '^ok 3 msr.error = 1 injects #GP on RDPMC$'
	ok $? "RDPMC exits to user space with index = ECX, data in EDX:EAX, #GP from msr.error (ok 2 and 3)" "$tmp/patched.all"
	has patched '^ok 4 RDPMC does not exit without the RDPMC reason$' &&
		has patched '^ok 5 MSR filter and unknown-MSR exits alongside RDPMC exits$'
	ok $? "without the RDPMC reason, RDPMC stays in KVM ($(sed -n 's/^# in-kernel RDPMC(0): //p' "$tmp/patched.out")); MSR filter exits work alongside (ok 4 and 5)" "$tmp/patched.all"
fi

run stock
if [ "$mode" = native ]; then
	# The host's KVM: a KVM with the RDPMC exit would pass instead.
	{ [ "$(rc stock)" = 4 ] && has stock '^1\.\.0 # SKIP - KVM_MSR_EXIT_REASON_RDPMC is not supported'; } ||
		{ [ "$(rc stock)" = 0 ] && has stock '^# Totals: pass:5 fail:0'; }
	ok $? "under the host's KVM (native) the selftest skips (KSFT_SKIP, exit 4) or, with the RDPMC exit, passes (got $(rc stock))" "$tmp/stock.all"
else
	[ "$(rc stock)" = 4 ]
	ok $? "under Debian's KVM the selftest exits with KSFT_SKIP (4; got $(rc stock))" "$tmp/stock.all"
	has stock '^1\.\.0 # SKIP - KVM_MSR_EXIT_REASON_RDPMC is not supported' && ! has stock '^ok ' && ! has stock '^not ok'
	ok $? "it says why, before any test: $(sed -n 's/^1\.\.0 # SKIP - //p' "$tmp/stock.out")" "$tmp/stock.all"
fi
echo "1..$n"
