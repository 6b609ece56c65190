#!/bin/sh
# SPDX-License-Identifier: MIT
# The KVM selftest of patches/kvm-riscv-pmu (0005, sbi_pmu_user_test), built
# static for riscv64 by scripts/kvm-riscv-selftest from Debian 13's
# linux-source-6.12 with the series applied, and run under RISC-V KVM nested in
# QEMU TCG (scripts/kvm-env --arch riscv64, docs/riscv.md) twice: with the
# patched kvm.ko (--patched-kvm: all five of its checks pass) and with Debian's
# (it skips with KSFT_SKIP, exit 4: that KVM refuses KVM_CAP_RISCV_USER_PMU
# with EINVAL).  There is no native mode: every run is nested.  Then the
# harness itself: a program's arguments, files, output and status, and the
# time limit.  About 25 s for the four boots on 2 cores once cached; from an empty cache the downloads
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
riscv64-linux-gnu-readelf -h -l "$bin" >"$tmp/elf" 2>&1 &&
	grep -q 'Machine: *RISC-V' "$tmp/elf" && grep -q 'Type: *EXEC' "$tmp/elf" && ! grep -q INTERP "$tmp/elf"
ok $? "it is a static riscv64 executable (RISC-V, EXEC, no program interpreter: the L1 has only busybox)" "$tmp/elf"
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

# The harness itself: what kvm-env --arch riscv64 passes through.
cat >"$tmp/prog" <<'PROG'
#!/bin/sh
echo "arch $(uname -m) kvm $([ -c /dev/kvm ] && echo yes || echo no) file $(cat data.txt)"
for a in "$@"; do echo "arg [$a]"; done
echo "to stderr" >&2
exit 7
PROG
printf 'sleep 100\n' >"$tmp/sleeper"
chmod +x "$tmp/prog" "$tmp/sleeper"
echo 'beside it' >"$tmp/data.txt"
scripts/kvm-env --arch riscv64 --timeout 120 --file "$tmp/data.txt" -- "$tmp/prog" 'a b' "it's" >"$tmp/h.out" 2>"$tmp/h.err"
echo $? >"$tmp/h.rc"
cat "$tmp/h.out" "$tmp/h.err" >"$tmp/h.all"
printf '%s\n' 'arch riscv64 kvm yes file beside it' 'arg [a b]' "arg [it's]" | cmp -s - "$tmp/h.out" &&
	grep -qx 'to stderr' "$tmp/h.err" && [ "$(cat "$tmp/h.rc")" = 7 ]
ok $? "kvm-env --arch riscv64: PROGRAM runs on riscv64 with /dev/kvm and its --file beside it; its arguments, stdout, stderr and exit status (7) come through" "$tmp/h.all"
scripts/kvm-env --arch riscv64 --timeout 12 -- "$tmp/sleeper" >"$tmp/t.out" 2>"$tmp/t.err"
echo $? >"$tmp/t.rc"
[ "$(cat "$tmp/t.rc")" = 124 ] && grep -q '^kvm-env: TIMEOUT: sleeper did not finish within 12 s' "$tmp/t.err"
ok $? "a PROGRAM past --timeout is killed: exit 124 and TIMEOUT on stderr (got $(cat "$tmp/t.rc"))" "$tmp/t.err"
img=$(scripts/kvm-env --arch riscv64 --kernel-path 2>"$tmp/k.err")
[ -f "$img" ] && [ "$(dd if="$img" bs=1 skip=56 count=4 2>/dev/null | od -An -c | tr -d ' ')" = 'RSC005' ]
ok $? "--kernel-path prints the riscv64 Image (${img:-nothing}: the RISC-V boot header's magic RSC\\x05 at 0x38)" "$tmp/k.err"
echo "1..$n"
