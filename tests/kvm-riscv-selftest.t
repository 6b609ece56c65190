#!/bin/sh
# SPDX-License-Identifier: MIT
# The KVM selftest of patches/kvm-riscv-pmu (0005, sbi_pmu_user_test), built
# static for riscv64 by scripts/kvm-riscv-selftest from Debian 13's
# linux-source-6.12 with the series applied, and run under RISC-V KVM nested in
# QEMU TCG (scripts/kvm-env --arch riscv64, docs/riscv.md) twice: with the
# patched kvm.ko (--patched-kvm: all five of its checks pass) and with Debian's
# (it skips with KSFT_SKIP, exit 4: that KVM refuses KVM_CAP_RISCV_USER_PMU
# with EINVAL).  There is no native mode: every run is nested.  About 15 s for
# the two boots on 2 cores once cached; from an empty cache the downloads
# (QEMU, the kernel, its headers and source: about 330 MB) and the builds add
# about 3 minutes.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh

bin=$(scripts/kvm-riscv-selftest 2>"$tmp/build.err")
[ -n "$bin" ] && [ -x "$bin" ]
ok $? "scripts/kvm-riscv-selftest builds the selftest (${bin:-nothing})" "$tmp/build.err"
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
	echo "1..$n"
	exit 1
fi
file -b "$bin" | grep -q 'RISC-V.*statically linked'
ok $? "it is a static riscv64 executable ($(file -b "$bin" | cut -d, -f1-2); the L1 has only busybox)"
kmod=$(scripts/kvm-riscv-modules --check)/kvm.ko
kver=$(basename "$(dirname "$(dirname "$kmod")")")
riscv64-linux-gnu-objcopy -O binary --only-section=.modinfo "$kmod" /dev/stdout 2>/dev/null |
	tr '\0' '\n' | grep -q "^vermagic=$kver SMP mod_unload modversions riscv"
ok $? "the patched kvm.ko's vermagic is the tier's kernel's ($kver)"

# Output and status of one kvm-env run: NAME.out (stdout: TAP), NAME.err
# (stderr), NAME.all (both, shown when a check fails), NAME.rc.
run() { # run NAME KVM-ENV-OPTIONS...
	name=$1; shift
	scripts/kvm-env --arch riscv64 "$@" --timeout 300 -- "$bin" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	cat "$tmp/$name.out" "$tmp/$name.err" >"$tmp/$name.all"
}
rc() { cat "$tmp/$1.rc"; }
has() { grep -q -- "$2" "$tmp/$1.out"; } # has NAME REGEX: a line of its stdout

run patched --patched-kvm
[ "$(rc patched)" = 0 ]
ok $? "under the patched KVM the selftest passes (exit 0; got $(rc patched); $(sed -n 's/^kvm-env: KVM with the user-space SBI PMU (patches\/kvm-riscv-pmu, \(.*\))$/\1/p' "$tmp/patched.err"))" "$tmp/patched.all"
has patched '^TAP version 13$' && has patched '^1\.\.5$' &&
	[ "$(grep -c '^ok [1-5] ' "$tmp/patched.out")" = 5 ] && ! has patched '^not ok' &&
	has patched '^# Totals: pass:5 fail:0 xfail:0 xpass:0 skip:0 error:0$'
ok $? "its TAP output: plan 1..5, ok 1-5, totals pass:5 fail:0" "$tmp/patched.all"
has patched '^ok 1 cap reported, refused with args\[0\] = 1, enabled with 0$' &&
	has patched '^ok 5 refused with a vCPU; PMU_OVF_SET is EINVAL without it$'
ok $? "KVM_CHECK_EXTENSION reports the cap; KVM_ENABLE_CAP refuses args[0] = 1 and a VM with a vCPU; KVM_INTERRUPT_PMU_OVF_SET needs it (ok 1 and 5)" "$tmp/patched.all"
has patched '^ok 2 PMU probed; 7 calls exit as KVM_EXIT_RISCV_SBI$' &&
	has patched '^ok 3 4 counter reads exit as KVM_EXIT_RISCV_CSR, not time$'
ok $? "SBI PMU calls exit as KVM_EXIT_RISCV_SBI, counter CSR reads as KVM_EXIT_RISCV_CSR, answered from user space (ok 2 and 3)" "$tmp/patched.all"
has patched '^ok 4 KVM_INTERRUPT_PMU_OVF_SET raises LCOFI, _UNSET lowers it$'
ok $? "KVM_INTERRUPT raises LCOFI (IRQ 13) into the guest, which clears it; SET then UNSET raises nothing (ok 4)" "$tmp/patched.all"

run stock
[ "$(rc stock)" = 4 ]
ok $? "under Debian's KVM the selftest exits with KSFT_SKIP (4; got $(rc stock))" "$tmp/stock.all"
has stock '^1\.\.0 # SKIP KVM_CAP_RISCV_USER_PMU is not supported (KVM_ENABLE_CAP: Invalid argument)$' &&
	! has stock '^ok ' && ! has stock '^not ok'
ok $? "the stock kvm.ko refuses the cap, before any test: $(sed -n 's/^1\.\.0 # SKIP //p' "$tmp/stock.out")" "$tmp/stock.all"
echo "1..$n"
