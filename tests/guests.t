#!/bin/sh
# SPDX-License-Identifier: MIT
# The guest tier under real KVM (docs/testing.md): the bare-metal guests of
# guest-tests/ run by vpmu-run, for every x86 model (P5 to P4, K7/K8, ...) in the default and in
# strict mode, plus tiny hand-encoded guests for vpmu-run's own contract (exit
# port, serial console, a guest spinning without exits stopped at --timeout, a
# triple fault reported).  All runs share one scripts/kvm-env boot: natively on
# hardware KVM, otherwise nested in QEMU TCG (about 6 s per boot there).  In
# the nested tier a second boot loads KVM with the RDPMC exit of
# patches/kvm-rdpmc (scripts/kvm-modules) and runs every model's guest again:
# the guest's rdpmc case checks what the reported mode promises (docs/rdpmc.md).
B=${VPMU_BUILD:-build}
KB=${VPMU_KVM_BUILD:-build/static}
GB=${VPMU_GUEST_BUILD:-build/guest}
MODELS="p5 p5mmx 6x86mx mii cyrix-iii winchip-c6 winchip2 winchip3 p6 k7 k8 c3 p4 p4-em64t generic"
ARCH_MODELS="core2 nehalem skylake icelake sapphirerapids"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh

for f in "$KB/bin/vpmu-run" "$GB/pmu-tests.bin"; do
	if [ ! -f "$f" ]; then
		ok 1 "$f is built (make kvm-programs guests)"
		echo "1..$n"
		exit 1
	fi
done

# Tiny flat guests, loaded at 0x100000 in 32-bit protected mode (guest_abi.h).
. tests/guests/images.sh
printf '\260\003\346\364' >"$tmp/exit3.bin"                       # mov al,3; out 0xf4,al
printf '\260\174\346\364' >"$tmp/exit124.bin"                     # mov al,124; out 0xf4,al
elfmb 1 96 - - b003e6f4f4 >"$tmp/elf.bin"                        # ELF32 multiboot: mov al,3; out 0xf4,al; hlt
# CMOS register B (out 0x70,0x0B; in al,0x71) as the status: 2 (BCD, 24-hour) from
# the clock, all-ones (255, reported as 126) without one.
printf '\260\013\346\160\344\161\346\364' >"$tmp/cmos.bin"
# Port 0x61 (in al,0x61): all-ones (status 3) unless KVM's PIT answers it (status 2).
printf '\344\141\074\377\017\224\300\004\002\346\364' >"$tmp/pit.bin"
printf '\146\272\370\003\260h\356\260i\356\260\n\356\260\000\346\364' >"$tmp/serial.bin" # "hi\n"; exit 0
printf '\353\376' >"$tmp/spin.bin"                                # jmp $ (never exits)
printf '\017\013' >"$tmp/ud2.bin"                                 # ud2 with no IDT: triple fault
printf '\270\360\377\377\177\347\360' >"$tmp/badcall.bin"                 # mov eax,0x7ffffff0; out 0xf0,eax

{
	for m in $MODELS; do
		echo "pmu:$m:default --model $m --vcpus 2 --tap --timeout 60 pmu-tests.bin"
		echo "pmu:$m:strict --model $m --strict --vcpus 2 --tap --timeout 60 pmu-tests.bin"
	done
	# The Pentium M identity of the p6 model: LVTPC auto-mask and MISC_ENABLE (p6.md).
	echo "pmu:p6-pentium-m:default --model p6 --cpumodel 13 --vcpus 2 --tap --timeout 60 pmu-tests.bin"
	echo "pmu:p6-pentium-m:strict --model p6 --cpumodel 13 --strict --vcpus 2 --tap --timeout 60 pmu-tests.bin"
	echo "exit3 --timeout 20 exit3.bin"
	echo "exit124 --timeout 20 exit124.bin"
	echo "elf --timeout 20 elf.bin"
	echo "cmos --timeout 20 cmos.bin"
	echo "pit --timeout 20 pit.bin"
	echo "serial --timeout 20 serial.bin"
	echo "spin --timeout 3 spin.bin"
	echo "ud2 --timeout 20 ud2.bin"
	echo "badcall --timeout 20 badcall.bin"
} >"$tmp/runs.txt"

scripts/kvm-env --timeout 540 --file "$KB/bin/vpmu-run" --file "$GB/pmu-tests.bin" \
	--file "$tmp/exit3.bin" --file "$tmp/exit124.bin" --file "$tmp/elf.bin" --file "$tmp/cmos.bin" --file "$tmp/pit.bin" --file "$tmp/serial.bin" --file "$tmp/spin.bin" --file "$tmp/ud2.bin" \
	--file "$tmp/badcall.bin" \
	--file "$tmp/runs.txt" --file tests/guests/suite.sh \
	-- /bin/busybox sh suite.sh >"$tmp/all.out" 2>"$tmp/env.err"
rc=$?
ok $rc "one kvm-env run holds every guest run ($(sed -n 's/^kvm-env: //p' "$tmp/env.err" | head -n 1))" "$tmp/env.err"

# Split the stream into one directory per run: out, err, status, seconds.
split_runs() { # STREAM PREFIX
	awk -v d="$2" '
	/^@@RUN / { run = d "." $2; system("mkdir -p \"" run "\""); next }
	/^@@ERR / { sub(/^@@ERR /, ""); print > (run "/err"); next }
	/^@@STATUS / { print $2 > (run "/status"); print $3 > (run "/seconds"); next }
	run != "" { print > (run "/out") }' "$1"
}
split_runs "$tmp/all.out" "$tmp/run"

status_of() { cat "$tmp/run.$1/status" 2>/dev/null || echo missing; }

# One pmu-tests run: its cases as ours, its plan and its status.
check_pmu_run() { # DIR LABEL
	r=$1
	touch "$r/out" "$r/err" 2>/dev/null
	cases=0
	while IFS= read -r line; do
		case $line in
		"ok "*" - "*) cases=$((cases + 1)); n=$((n + 1)); echo "ok $n - $2: ${line#* - }" ;;
		"not ok "*" - "*) cases=$((cases + 1)); n=$((n + 1)); echo "not ok $n - $2: ${line#* - }" ;;
		"# "*) echo "$line" ;;
		esac
	done <"$r/out"
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$r/out")
	[ "$cases" -gt 0 ] && [ "$plan" = "$cases" ]
	ok $? "$2: the guest reported $cases cases and vpmu-run planned ${plan:-none}" "$r/err"
	st=$(cat "$r/status" 2>/dev/null || echo missing)
	[ "$st" = 0 ]; ok $? "$2: vpmu-run exits 0 (got $st)" "$r/err"
}

for m in $MODELS p6-pentium-m; do
	for mode in default strict; do
		check_pmu_run "$tmp/run.pmu:$m:$mode" "$m $mode"
	done
done
# Stock KVM never exits on RDPMC; vpmu-run says which fallback it found.
r=$tmp/run.pmu:p6:default
grep -q -E 'guest RDPMC: (sync|stock):' "$r/err" 2>/dev/null
ok $? "stock KVM: vpmu-run reports the RDPMC fallback it found ($(sed -n 's/^vpmu-run: guest RDPMC: //p' "$r/err" 2>/dev/null))" "$r/err"

# The same guests on KVM with the RDPMC exit (always nested: modules cannot
# be loaded into the host's own kernel) unless the native mode is forced.
if [ "${VPMU_KVM_MODE:-auto}" != native ]; then
	{
		for m in $MODELS; do
			echo "pmu:$m --model $m --vcpus 2 --tap --timeout 60 pmu-tests.bin"
		done
		# Architectural perfmon's global control (guest-tests/arch): every
		# version's CPU, and Skylake presented as version 2 with 2+2 counters.
		for m in $ARCH_MODELS; do
			echo "arch:$m --model $m --tap --timeout 60 arch-tests.bin"
		done
		echo "arch:skylake-v2 --model skylake --pmu-version 2 --nr-general 2 --nr-fixed 2 --tap --timeout 60 arch-tests.bin"
	} >"$tmp/patched.txt"
	cp "$tmp/patched.txt" "$tmp/runs.txt"
	scripts/kvm-env --patched-kvm --timeout 500 --file "$KB/bin/vpmu-run" --file "$GB/pmu-tests.bin" \
		--file "$GB/arch-tests.bin" --file "$tmp/runs.txt" --file tests/guests/suite.sh \
		-- /bin/busybox sh suite.sh >"$tmp/patched.out" 2>"$tmp/patched.err"
	ok $? "one kvm-env --patched-kvm run holds the patched-KVM runs" "$tmp/patched.err"
	split_runs "$tmp/patched.out" "$tmp/pk"
	for m in $MODELS; do
		r=$tmp/pk.pmu:$m
		check_pmu_run "$r" "$m on KVM with the RDPMC exit"
		grep -q 'guest RDPMC: exit:' "$r/err" 2>/dev/null &&
			[ "$(sed -n 's/.*vCPU 0 KVM:.* rdpmc-exits=\([0-9]*\).*/\1/p' "$r/out")" -gt 0 ] 2>/dev/null
		ok $? "$m: RDPMC exits reached the model (vpmu-run: $(sed -n 's/^vpmu-run: guest RDPMC: //p' "$r/err" 2>/dev/null | cut -c1-40))" "$r/err"
	done
	for m in $ARCH_MODELS skylake-v2; do
		check_pmu_run "$tmp/pk.arch:$m" "$m: architectural global control"
	done
else
	n=$((n + 1))
	echo "ok $n # SKIP KVM with the RDPMC exit: VPMU_KVM_MODE=native forces the host's own KVM, and patched modules load only in the nested tier"
fi

st=$(status_of exit3); [ "$st" = 3 ]; ok $? "a write of 3 to port 0xF4 is vpmu-run's exit status (got $st)"
r=$tmp/run.exit124
[ "$(status_of exit124)" = 126 ] && grep -q 'the guest exited with status 124, reported as 126' "$r/err" 2>/dev/null
ok $? "a guest's status 124 is reported as 126, never as vpmu-run's timeout (got $(status_of exit124))" "$r/err"
st=$(status_of elf); [ "$st" = 3 ]; ok $? "an ELF32 multiboot image (no a.out kludge) boots at its e_entry (got $st)" "$tmp/run.elf/err"
st=$(status_of cmos); [ "$st" = 2 ]; ok $? "the CMOS clock answers on 0x70/0x71: register B reads 0x02, BCD and 24-hour (got $st)" "$tmp/run.cmos/err"
st=$(status_of pit); [ "$st" = 2 ]; ok $? "KVM's in-kernel PIT answers port 0x61 (got $st; 3: all-ones, no PIT)" "$tmp/run.pit/err"
r=$tmp/run.serial
[ "$(status_of serial)" = 0 ] && [ "$(cat "$r/out" 2>/dev/null | head -n 1)" = hi ]
ok $? "serial output on 0x3F8 reaches stdout" "$r/out"
r=$tmp/run.spin
[ "$(status_of spin)" = 124 ] && grep -q 'TIMEOUT: the guest did not finish within 3 s' "$r/err" 2>/dev/null
ok $? "a guest spinning without exits is stopped at --timeout with status 124 and a message" "$r/err"
grep -q 'vCPU 0 was at RIP 0x100000, CS 0x[0-9a-f]*, in 32-bit protected mode, interrupts off, runnable' "$r/err" 2>/dev/null
ok $? "... and says where the vCPU was: the image's jmp \$ at 0x100000 ($(sed -n 's/^vpmu-run: vCPU 0 was at //p' "$r/err" 2>/dev/null))" "$r/err"
secs=$(cat "$r/seconds" 2>/dev/null || echo 99)
[ "$secs" -le 6 ]; ok $? "... within the limit (3 s; took $secs s)"
r=$tmp/run.ud2
[ "$(status_of ud2)" = 125 ] && grep -q 'triple fault' "$r/err" 2>/dev/null
ok $? "a triple fault is reported with status 125" "$r/err"
r=$tmp/run.badcall
[ "$(status_of badcall)" = 125 ] && grep -q 'ucall record at 0x7ffffff0 is outside guest memory' "$r/err" 2>/dev/null
ok $? "a test report outside guest memory ends the run with status 125 and says so" "$r/err"
echo "1..$n"
