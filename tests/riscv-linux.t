#!/bin/sh
# SPDX-License-Identifier: MIT
# The RISC-V Linux guest (docs/riscv.md, "The guest"): Debian 13's riscv64
# kernel boots under the static riscv64 vpmu-run with the riscv-sbi model,
# inside the nested tier (scripts/kvm-env --arch riscv64 --patched-kvm: QEMU
# 10 TCG L0, Debian 13 L1 whose kvm.ko forwards the SBI PMU extension to
# user space), with scripts/riscv-guest-image's initramfs (Debian's perf)
# and guest-tests/riscv/init:
#   - the driver (drivers/perf/riscv_pmu_sbi.c) probes the SBI PMU, finds
#     the counters the model presents (22 firmware, 18 hardware: below) and
#     sets up the snapshot shared memory;
#   - perf stat -e cycles,instructions of a loop of known length counts
#     both, instructions at least the loop's;
#   - perf record -e cycles -c PERIOD takes its samples through the counter
#     overflow interrupt (LCOFI, IRQ 13) and perf report puts the 6:3:1
#     workload's functions in that order;
#   - on two harts (vpmu-run --vcpus 2), both come up, perf stat -a -A
#     counts each one's pinned loop on its own counters and perf record -a
#     takes the overflow interrupt on both;
#   - vpmu-run's accounting at exit: the PMIs it raised (the VM's total) are
#     at least the LCOFIs the guest took on all its harts; in strict mode
#     every refusal is named by the rule it enforces, and the driver still
#     counts and samples.
# One L1 boot runs the L2 boots (a script of vpmu-run calls); a boot the
# tier broke (a timeout, kvm-env's own failure, no output from the guest)
# is run again once in a second L1 boot, never one that ran and saw a
# wrong count.  Each guest case becomes a case here ("NAME: CHECK: ...").
# Environment: VPMU_RV_L2_MEM (vpmu-run --mem, MiB; default 512: the kernel,
# the 19 MiB initramfs and its 44 MiB of files, perf).
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/tap.sh
. tests/tap.sh

# The counters the riscv-sbi model presents, as the driver counts them
# (pmu_sbi_devinit(): get_info of each index, time's refused):
#   firmware: the SBI v2.0 firmware events 0 to 21 (SBI spec v2.0, "Event:
#             Firmware events", SBI_PMU_FW_MISALIGNED_LOAD ..
#             SBI_PMU_FW_HFENCE_VVMA_ASID_RCVD), one counter each, as KVM's
#             own SBI PMU does (arch/riscv/kvm/vcpu_pmu.c, RISCV_KVM_MAX_FW_CTRS);
#   hardware: cycle and instret and hpmcounter3-18, the 16 programmable
#             counters of QEMU's virt CPUs (target/riscv/cpu.c, pmu-mask
#             default MAKE_64BIT_MASK(3, 16)), which the L1 host has.
WANT_COUNTERS=22,18
# The guest's cases per check (guest-tests/riscv/init): a /init that prints
# fewer did not run them all.
cases_of() {
	c=0
	for w in $(echo "$1" | tr ',' ' '); do
		case $w in
		probe) c=$((c + 4)) ;;
		stat) c=$((c + 5)) ;;
		record) c=$((c + 4)) ;;
		smp) c=$((c + 4)) ;;
		esac
	done
	echo $c
}
PERIOD=1000000
# The profile: 60 rounds of 10 chunks (6 work_hot, 3 work_warm, 1 work_cold),
# each of 500,000 iterations, far longer than the period.  Linux 6.12's driver
# restarts no counter after its overflow (the base-0x1000 counter_start of
# pmu_sbi_start_ovf_ctrs_snapshot, refused by KVM and libvpmu alike), so a
# chunk gives one sample at most, until the sleep that ends it reschedules
# the event.  The nested tier samples about a third of the chunks (docs/riscv.md):
# 60 work_cold chunks make its share a count, not a coin toss (10 rounds
# gave warm:cold 4:4 in one boot of six).
ROUNDS=60
CHUNK=500000

# ---- the builds ----------------------------------------------------------------
make -s --no-print-directory riscv64 >"$tmp/make.err" 2>&1
ok $? "make riscv64: the static riscv64 vpmu-run" "$tmp/make.err"
vr=build/riscv64/bin/vpmu-run
# guest-riscv through the top-level Makefile, or its fragment alone
if make -n guest-riscv >/dev/null 2>&1; then
	make -s --no-print-directory guest-riscv >"$tmp/guest.err" 2>&1
else
	make -s --no-print-directory -f guest-tests/riscv/riscv.mk B=build guest-riscv >"$tmp/guest.err" 2>&1
fi
ok $? "make guest-riscv: the guest's static workload" "$tmp/guest.err"
s=$(date +%s)
cpio=$(scripts/riscv-guest-image 2>"$tmp/image.err")
ok $? "scripts/riscv-guest-image: the initramfs with Debian 13's perf (${cpio:-nothing}, $(($(date +%s) - s)) s)" "$tmp/image.err"
kernel=$(scripts/kvm-env --arch riscv64 --kernel-path 2>"$tmp/kernel.err")
ok $? "scripts/kvm-env --arch riscv64 --kernel-path: Debian 13's riscv64 Image (${kernel:-nothing})" "$tmp/kernel.err"
if [ ! -x "$vr" ] || [ ! -f "${cpio:-/nonexistent}" ] || [ ! -f "${kernel:-/nonexistent}" ]; then
	echo "1..$n"
	exit 1
fi

# ---- the boots ------------------------------------------------------------------
# NAME:OPTIONS:CHECKS (OPTIONS: vpmu-run's, commas for blanks)
BOOTS="default::probe,stat,record strict:--strict:probe,stat,record smp:--vcpus,2:probe,smp"
cmdline="earlycon=sbi keep_bootcon printk.devkmsg=on panic=-1 rdinit=/init"
ib=$(basename "$cpio") kb=$(basename "$kernel")
l1script() { # SPECS...: the L1's script, one vpmu-run call each
	echo '#!/bin/sh'
	for b in "$@"; do
		name=${b%%:*} rest=${b#*:}
		opts=$(echo "${rest%%:*}" | tr , ' ') checks=${rest#*:}
		echo "echo @@RUN $name"
		# busybox timeout ends a vpmu-run that its own --timeout cannot
		echo "timeout -s KILL 150 ./vpmu-run --model riscv-sbi $opts --mem ${VPMU_RV_L2_MEM:-512} --timeout 120 --kernel $kb --initrd $ib --append '$cmdline vpmu.checks=$checks vpmu.counters=$WANT_COUNTERS vpmu.period=$PERIOD vpmu.rounds=$ROUNDS vpmu.chunk=$CHUNK' >$name.out 2>$name.err"
		echo "echo @@STATUS \$?; cat $name.out; sed 's/^/@@ERR /' $name.err"
	done
}
l1() { # OUT SPECS...: one kvm-env call; its status in $l1rc, seconds in $l1s
	o=$1; shift
	l1script "$@" >"$tmp/boots.sh"
	chmod 755 "$tmp/boots.sh"
	s=$(date +%s)
	timeout -k 10 $((60 + 170 * $#)) \
		scripts/kvm-env --arch riscv64 --patched-kvm --timeout $((40 + 160 * $#)) \
		--file "$vr" --file "$kernel" --file "$cpio" -- "$tmp/boots.sh" >"$o" 2>"$o.err"
	l1rc=$?
	l1s=$(($(date +%s) - s))
}
split() { # OUT: each boot's lines into $tmp/NAME.out (console and accounting), .st
	awk -v d="$tmp" '
		/^@@RUN / { f = d "/" $2 ".out"; s = d "/" $2 ".st"; printf "" >f; next }
		/^@@STATUS / { if (f) print $2 >s; next }
		f { sub(/^@@ERR /, ""); sub(/\r$/, ""); print >>f }' "$1"
}
broken() { # NAME: the tier broke the boot (rerun), not the guest nor libvpmu:
	# the L1 ended before vpmu-run did (kvm-env's timeout or its own failure:
	# no status), or vpmu-run's --timeout or busybox timeout ended it (124,
	# 137: a nested guest that stopped making progress)
	[ -f "$tmp/$1.st" ] || return 0
	case $(cat "$tmp/$1.st") in 124 | 137) return 0 ;; esac
	return 1
}

# shellcheck disable=SC2086 # the specs, one word each
l1 "$tmp/l1.out" $BOOTS
split "$tmp/l1.out"
echo "# L1 boot with $(echo $BOOTS | wc -w) L2 boots: $l1s s, kvm-env status $l1rc"
again=''
for b in $BOOTS; do broken "${b%%:*}" && again="$again $b"; done
if [ -n "$again" ]; then
	echo "# rerunning the boots the nested tier broke:$(for b in $again; do printf ' %s' "${b%%:*}"; done) (kvm-env status $l1rc; $(tail -n 1 "$tmp/l1.out.err"))"
	# shellcheck disable=SC2086
	l1 "$tmp/l1b.out" $again
	split "$tmp/l1b.out"
	echo "# second L1 boot: $l1s s, kvm-env status $l1rc"
fi

guest() { # NAME CHECKS: the guest's own cases, then that it ran them all
	sed -n 's/.*\(VPMU \(not \)\{0,1\}ok [a-z]*: .*\)/\1/p' "$tmp/$1.out" >"$tmp/$1.cases"
	while IFS= read -r l; do
		case $l in
		'VPMU ok '*) ok 0 "$1: ${l#VPMU ok }" ;;
		*) ok 1 "$1: ${l#VPMU not ok }" "$tmp/$1.out" ;;
		esac
	done <"$tmp/$1.cases"
	want=$(cases_of "$2")
	grep -aq "VPMU done passed $want failed 0\$" "$tmp/$1.out"
	ok $? "$1: the /init ran $2 to the end, $want cases, none failed ($(grep -a 'VPMU done' "$tmp/$1.out" | sed 's/.*VPMU done/VPMU done/' || echo 'no "VPMU done" line'))" "$tmp/$1.out"
}
num() { # NAME KEY: the accounting's KEY=N, the VM's total (every vCPU's)
	sed -n "/^ *VM total\$/,\$ s/.*[ ,]$2=\\([0-9]*\\).*/\\1/p" "$tmp/$1.out" | head -n 1
}

for b in $BOOTS; do
	name=${b%%:*} rest=${b#*:}
	opts=$(echo "${rest%%:*}" | tr , ' ') checks=${rest#*:}
	f=$tmp/$name.out
	[ -f "$f" ] || : >"$f"
	st=$(cat "$tmp/$name.st" 2>/dev/null)
	[ "$st" = 0 ] && grep -aq 'VPMU done' "$f"
	ok $? "$name: vpmu-run --model riscv-sbi${opts:+ $opts} boots the guest, which powers off (SBI SRST; status ${st:-none})" "$f"
	if broken "$name"; then
		cat "$tmp/l1.out.err" "$tmp/l1b.out.err" 2>/dev/null | tail -n 20 >"$tmp/$name.why"
		ok 1 "$name: the nested tier ran the boot (twice it did not: timeouts or kvm-env's own failure)" "$tmp/$name.why"
		continue
	fi
	# a vpmu-run that never started the guest's /init: one case saying why
	# (its own "vpmu-run: ..." line), not one per check it did not run
	if ! grep -aq 'VPMU start' "$f"; then
		ok 1 "$name: the guest's /init starts (vpmu-run status ${st:-none}: $(grep -a '^vpmu-run: ' "$f" | head -n 1 | cut -c1-160))" "$f"
		continue
	fi
	guest "$name" "$checks"
	# the probe's numbers here too: the guest's own comparison needs its
	# vpmu.counters= to have arrived
	seen=$(sed -n 's/.*riscv-pmu-sbi: \([0-9]*\) firmware and \([0-9]*\) hardware counters.*/\1,\2/p' "$f" | head -n 1)
	[ "$seen" = "$WANT_COUNTERS" ]
	ok $? "$name: the driver counts the model's counters: firmware,hardware expected $WANT_COUNTERS, saw ${seen:-no probe line}" "$f"
	# the accounting (vpmu-run at exit, stderr)
	pmis=$(num "$name" pmis)
	# IRQ 13's line of /proc/interrupts after the last sampling check: the
	# LCOFIs the guest took, summed over its harts
	irq=$(sed -n 's/.*VPMU info [a-z]*: *[0-9]*: *\([0-9 ]*\) .*riscv-pmu.*/\1/p' "$f" | tail -n 1 |
		awk 'NF { s = 0; for (i = 1; i <= NF; i++) s += $i; print s }')
	[ -n "$irq" ] && [ -n "$pmis" ] && [ "$irq" -gt 0 ] && [ "$pmis" -ge "$irq" ]
	ok $? "$name: the accounting's PMIs are at least the LCOFIs the guest took (pmis=${pmis:-none}, IRQ 13: ${irq:-none})" "$f"
	refused=$(num "$name" strict-refusals)
	# "perfctr-rule violations: none" or " RULE=N ..." (tools/accounting/acct_text.c)
	rules=$(sed -n 's/^ *[a-z-]*rule violations: *//p' "$f" | head -n 1)
	[ "$rules" = none ] && rules=''
	case $opts in
	*--strict*)
		[ -n "$refused" ] &&
			{ { [ "$refused" -eq 0 ] && [ -z "$rules" ]; } || { [ "$refused" -gt 0 ] && [ -n "$rules" ]; }; }
		ok $? "$name: every refusal of strict mode is named by its rule (strict-refusals=${refused:-none}; rules: ${rules:-none})" "$f" ;;
	*)
		[ "${refused:-none}" = 0 ]
		ok $? "$name: not strict, nothing refused (strict-refusals=${refused:-none}; rules broken, recorded: ${rules:-none})" "$f" ;;
	esac
done

echo "1..$n"
