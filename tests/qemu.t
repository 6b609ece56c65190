#!/bin/sh
# SPDX-License-Identifier: MIT
# QEMU with vpmu (patches/qemu, docs/qemu.md):
#   - the series: each patch signed off and clean under QEMU's own
#     scripts/checkpatch.pl, applied to the source of Debian's QEMU
#     (scripts/qemu-build --source);
#   - the build, cached (scripts/qemu-build: about 4 minutes on 2 cores once);
#   - what it refuses without KVM (vpmu= under TCG), and its properties;
#   - under real KVM (scripts/kvm-env --patched-kvm: nested, with the RDPMC
#     exit), libvpmu's bare-metal PMU test guest on -cpu pentium3,vpmu=p6 and on
#     a two-vCPU -cpu athlon,vpmu=k7 passes every case, as it does under
#     vpmu-run (tests/guests.t), and each thing the property needs is asked
#     for by name when missing (another vendor, pmu=on, x2APIC, the user-space
#     irqchip, a CPU that masks the LVTPC);
#   - QMP's query-stats, provider vpmu, per vCPU and per VM;
#   - a live migration over a Unix socket in the middle of the guest's run,
#     after which it passes every case on the destination, and a migration to
#     another model, which the destination refuses and the source outlives.
# The patched QEMU runs in the nested guest with its libraries, loader and
# firmware staged next to it (the guest's initramfs is busybox), and with the
# libvpmu.so.1 of this checkout (make B=build lib).  One nested boot, about 90 s.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
# shellcheck source=tests/qemu-stage.sh
. tests/qemu-stage.sh
GB=${VPMU_GUEST_BUILD:-build/guest}

# ---- the series ----------------------------------------------------------------
total=$(ls patches/qemu/0*.patch | grep -vc -- -cover-letter)
bad=
i=0
for p in $(ls patches/qemu/0*.patch | grep -v -- -cover-letter); do
	i=$((i + 1))
	grep -q "^Subject: \[PATCH $i/$total\] " "$p" && grep -q '^Signed-off-by: ' "$p" || bad="$bad $(basename "$p")"
done
grep -q "^Subject: \[PATCH 0/$total\] " patches/qemu/0000-cover-letter.patch || bad="$bad cover-letter"
[ -z "$bad" ]
ok $? "patches/qemu: a cover letter and $total patches, numbered and signed off${bad:+ (not:$bad)}"

src=$(scripts/qemu-build --source 2>"$tmp/src.err")
[ -n "$src" ] && [ -f "$src/scripts/checkpatch.pl" ]
ok $? "scripts/qemu-build --source: the series applies to Debian's QEMU source ($(dpkg-query -W -f '${source:Version}' qemu-system-x86 2>/dev/null))" "$tmp/src.err"
bad=
for p in $(ls patches/qemu/0*.patch | grep -v -- -cover-letter); do
	[ -n "$src" ] && perl "$src/scripts/checkpatch.pl" --no-color "$p" >"$tmp/cp.out" 2>&1 &&
		grep -q 'has no obvious style problems' "$tmp/cp.out" || { bad="$bad $(basename "$p")"; cat "$tmp/cp.out" >>"$tmp/cp.all"; }
done
[ -z "$bad" ]
ok $? "QEMU's scripts/checkpatch.pl finds no error or warning in any patch${bad:+ (in:$bad)}" "$tmp/cp.all"

# libvirt's form (docs/qemu.md): the domain of contrib/libvirt is valid for its schema.
virt-xml-validate contrib/libvirt/vpmu-p6.xml domain >"$tmp/xml.out" 2>&1 &&
	grep -q "pentium3-x86_64-cpu.vpmu=p6" contrib/libvirt/vpmu-p6.xml
ok $? "contrib/libvirt/vpmu-p6.xml: virt-xml-validate accepts it, with the -global of vpmu=p6" "$tmp/xml.out"

# ---- the build -----------------------------------------------------------------
qemu_build || { echo "1..$n"; exit 1; }
host_qemu() { LD_LIBRARY_PATH=$qemu_lib "$qemu" "$@"; }

host_qemu -accel tcg -cpu pentium3,vpmu=p6 -nodefaults -display none -monitor none >"$tmp/tcg.out" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q 'vpmu=p6 needs -accel kvm' "$tmp/tcg.out"
ok $? "-accel tcg -cpu pentium3,vpmu=p6 is refused: \"$(head -n 1 "$tmp/tcg.out")\" (status $rc)" "$tmp/tcg.out"
host_qemu -device pentium3-x86_64-cpu,help >"$tmp/props.out" 2>&1
grep -q '^ *vpmu=<str>' "$tmp/props.out" && grep -q '^ *vpmu-strict=<bool> .*default: false' "$tmp/props.out"
ok $? "the CPU properties vpmu=<str> and vpmu-strict=<bool> (default false)" "$tmp/props.out"

# ---- under KVM -----------------------------------------------------------------
if [ "${VPMU_KVM_MODE:-auto}" = native ]; then
	why="VPMU_KVM_MODE=native forces the host's KVM, and only the nested mode loads the patched modules"
	for c in "p6 guest passes" "k7 guest passes" "refusals"; do skip "under KVM: $c" "$why"; done
	echo "1..$n"
	exit 0
fi
files=$(qemu_stage_here "$tmp/stage") && cp "$GB/pmu-tests.bin" "$tmp/stage/" &&
	files="$files --file $tmp/stage/pmu-tests.bin --file $tmp/stage/run.sh"
# Each QEMU run: its console and stderr, then "@@ NAME rc N".
{
echo "run() { $QEMU_RUN -m 64 \"\$@\"; }"
echo "exitport='$QEMU_EXIT'"
cat <<'EOF'
q() {
	name=$1; shift
	run -serial stdio $exitport "$@" >"$name.log" 2>&1
	r=$?
	sed "s/^/$name: /" "$name.log"
	echo "@@ $name rc $r"
}
opt="backend=perf counts=clock rdpmc=exit"
q p6 -cpu pentium3,vendor=GenuineIntel,x2apic=off,vpmu=p6 -kernel pmu-tests.bin \
	-append "model=p6 vcpus=1 cpumodel=7 stepping=3 $opt"
q k7 -smp 2 -cpu athlon,vendor=AuthenticAMD,x2apic=off,vpmu=k7 -kernel pmu-tests.bin \
	-append "model=k7 vcpus=2 cpumodel=2 stepping=3 ap-boot=sipi $opt"
q vendor -cpu pentium3,vendor=AuthenticAMD,x2apic=off,vpmu=p6 -kernel pmu-tests.bin
q pmu -cpu pentium3,vendor=GenuineIntel,x2apic=off,pmu=on,vpmu=p6 -kernel pmu-tests.bin
q x2apic -cpu pentium3,vendor=GenuineIntel,vpmu=p6 -kernel pmu-tests.bin
q irqchip -machine kernel-irqchip=off -cpu pentium3,vendor=GenuineIntel,x2apic=off,vpmu=p6 -kernel pmu-tests.bin
q automask -cpu pentium3,vendor=GenuineIntel,model=13,x2apic=off,vpmu=p6 -kernel pmu-tests.bin
# The accounting through QMP: pmu-tests again, without the exit port (the guest
# halts at its end), asked once it has run.
qmp() { printf '%s\n' "$1"; }
{
	qmp '{"execute":"qmp_capabilities"}'
	i=0
	while [ $i -lt 240 ] && ! grep -q 'vpmu-guest: exit' stats-console.txt 2>/dev/null; do
		sleep 1
		i=$((i + 1))
	done
	qmp '{"execute":"query-stats","arguments":{"target":"vcpu","providers":[{"provider":"vpmu"}]}}'
	qmp '{"execute":"query-stats","arguments":{"target":"vm","providers":[{"provider":"vpmu","names":["vpmu-pmis","vpmu-cycles"]}]}}'
	qmp '{"execute":"query-stats-schemas","arguments":{"provider":"vpmu"}}'
	qmp '{"execute":"quit"}'
} | run -serial file:stats-console.txt -qmp stdio \
	-cpu pentium3,vendor=GenuineIntel,x2apic=off,vpmu=p6 -kernel pmu-tests.bin \
	-append "model=p6 vcpus=1 cpumodel=7 stepping=3 $opt" >qmp.log 2>&1
r=$?
sed 's/^/qmp: /' qmp.log
echo "@@ qmp rc $r"
sed 's/^/qmp-console: /' stats-console.txt
# A live migration over a Unix socket in the middle of pmu-tests: the
# destination runs it to its end.  QMP on the source's stdin: migrate, then
# query-migrate once it has had the time.
p6="-cpu pentium3,vendor=GenuineIntel,x2apic=off,vpmu=p6 -kernel pmu-tests.bin"
# Both sides with QEMU's return path, through which the destination tells the
# source whether it loaded the state: a refusal then fails the migration on the
# source too, which runs on (without it the source ends "completed", stopped).
rp="-global migration.x-return-path=on"
migrate() { # NAME SOCKET DESTINATION-CPU...: the source runs p6
	name=$1 sock=$2; shift 2
	run $exitport $rp -serial file:$name-dst.txt "$@" -kernel pmu-tests.bin \
		-append "model=p6 vcpus=1 cpumodel=7 stepping=3 $opt" -incoming unix:$sock >$name-dst.log 2>&1 &
	d=$!
	sleep 2
	{
		qmp '{"execute":"qmp_capabilities"}'
		sleep 2
		qmp '{"execute":"migrate","arguments":{"uri":"unix:'$sock'"}}'
		sleep 10
		qmp '{"execute":"query-migrate"}'
	} | run $exitport $rp -serial file:$name-src.txt -qmp stdio $p6 \
		-append "model=p6 vcpus=1 cpumodel=7 stepping=3 $opt" >$name-src.log 2>&1 &
	s=$!
	# The source's guest ends it (its exit port) if it goes on running;
	# otherwise it stays stopped after the migration: quit it.
	i=0
	while [ $i -lt 40 ] && kill -0 $s 2>/dev/null && ! grep -q '"status": "\(completed\|failed\)"' $name-src.log; do
		sleep 1
		i=$((i + 1))
	done
	grep -q '"status": "completed"' $name-src.log && kill $s 2>/dev/null
	wait $s; rs=$?
	wait $d; rd=$?
	for f in src.log dst.log src.txt dst.txt; do sed "s/^/$name-$f: /" $name-$f; echo; done
	echo "@@ $name-src rc $rs"
	echo "@@ $name-dst rc $rd"
}
migrate mig mig.sock -cpu pentium3,vendor=GenuineIntel,x2apic=off,vpmu=p6
migrate migk7 mig2.sock -cpu athlon,vendor=AuthenticAMD,x2apic=off,vpmu=k7
EOF
} >"$tmp/stage/run.sh"
# shellcheck disable=SC2086
boot() {
	# The guest runs four to eight times as long on a loaded machine: room for that.
	scripts/kvm-env --timeout 600 --mem 1024 --patched-kvm $files -- /bin/busybox sh ./run.sh >"$tmp/kvm.out" 2>&1
	r=$?
	[ -z "${VPMU_QEMU_KEEP:-}" ] || cp "$tmp/kvm.out" "$VPMU_QEMU_KEEP"
	return $r
}
boot
rc=$?
# A boot the nested tier itself broke (its timeout, a guest that did not
# start) is run once more; a QEMU's own failure is not.
if [ "$rc" = 124 ] || [ "$rc" = 125 ] || ! grep -q '^@@ migk7-dst rc' "$tmp/kvm.out"; then
	echo "# the nested boot failed (status $rc): once more"
	boot
	rc=$?
fi
qrc() { sed -n "s/^@@ $1 rc //p" "$tmp/kvm.out"; }
cases() { grep -c "^$1: vpmu-guest: $2 - " "$tmp/kvm.out"; }
said() { grep -q "^$1: .*$2" "$tmp/kvm.out"; }

# pmu-tests: 30 cases on each model, as under vpmu-run; QEMU's exit code is
# (status << 1) | 1 (isa-debug-exit), so 1 is the guest's status 0.
for m in p6 k7; do
	[ "$(qrc $m)" = 1 ] && [ "$(cases $m ok)" -ge 30 ] && [ "$(cases $m 'not ok')" = 0 ] &&
		said $m "vpmu-guest: exit 0" && said $m "info: vpmu: guest RDPMC: exit"
	ok $? "under KVM, $m: pmu-tests passes $(cases $m ok) cases, none fails (QEMU status $(qrc $m)); RDPMC exits to the model" "$tmp/kvm.out"
done
said vendor 'vpmu=p6 is the PMU of a GenuineIntel family 6 CPU; this -cpu is AuthenticAMD family 6' &&
	said vendor 'Add vendor=GenuineIntel' && [ "$(qrc vendor)" = 1 ]
ok $? "another vendor is refused, naming vendor=GenuineIntel" "$tmp/kvm.out"
said pmu "vpmu=p6 replaces KVM's PMU: it needs pmu=off" && [ "$(qrc pmu)" = 1 ]
ok $? "pmu=on is refused" "$tmp/kvm.out"
said x2apic "add x2apic=off" && [ "$(qrc x2apic)" = 1 ]
ok $? "the x2APIC QEMU turns on under KVM is refused, naming x2apic=off" "$tmp/kvm.out"
said irqchip "kernel-irqchip=on or split" && [ "$(qrc irqchip)" = 1 ]
ok $? "the user-space local APIC is refused" "$tmp/kvm.out"
said automask "masks the LVTPC at each PMI" && [ "$(qrc automask)" = 1 ]
ok $? "a Pentium M (model 13), whose LVTPC masks at each PMI, is refused for now" "$tmp/kvm.out"

# query-stats, provider vpmu: a JSON answer per line (QMP on stdio).
ret() { grep "^qmp: {\"return\": \[{\"provider\": \"vpmu\"" "$tmp/kvm.out" | sed -n "${1}p"; }
stat() { # stat LINE NAME: the value of NAME in answer LINE
	ret "$1" | perl -ne 'print $1 if /\{"name": "'"$2"'", "value": (\d+)\}/'
}
pmis=$(stat 1 vpmu-pmis); wr=$(stat 1 vpmu-writes); ex=$(stat 1 vpmu-msr-exits); cyc=$(stat 1 vpmu-cycles)
[ "${pmis:-0}" -gt 0 ] && [ "${wr:-0}" -gt 0 ] && [ "${ex:-0}" -ge "${wr:-0}" ] && [ "${cyc:-0}" -gt 0 ] &&
	grep -q '^qmp-console: vpmu-guest: exit 0' "$tmp/kvm.out"
ok $? "query-stats, target vcpu, provider vpmu, once the guest has run (its console: $(grep -c '^qmp-console: vpmu-guest: ok' "$tmp/kvm.out") cases, $(grep '^qmp-console: vpmu-guest: exit' "$tmp/kvm.out" | cut -c14-50)): its PMIs ($pmis), writes ($wr), MSR exits ($ex), cycles counted ($cyc)" "$tmp/kvm.out"
vm=$(ret 2 | grep -o '"name": "[a-z-]*"' | tr '\n' ' ')
[ "$vm" = '"name": "vpmu-cycles" "name": "vpmu-pmis" ' ] || [ "$vm" = '"name": "vpmu-pmis" "name": "vpmu-cycles" ' ]
ok $? "target vm with names: those two and no other (${vm:-none})" "$tmp/kvm.out"
# No host PMU in the nested tier: instructions are not countable, so they have no statistic.
sch=$(ret 3)
echo "$sch" | grep -q '"name": "vpmu-cycles", "exponent": 0, "type": "cumulative"' &&
	! echo "$sch" | grep -q '"vpmu-instructions"' && echo "$sch" | grep -q '"name": "vpmu-strict-refusals"'
ok $? "query-stats-schemas: cumulative vpmu-cycles, no vpmu-instructions (not countable on this host), the accounting's counts" "$tmp/kvm.out"

# The live migration: the source ran some cases and stopped before its end,
# the destination ran the rest to the end with every case passed (the guest's
# count is of both halves: its memory moved with it), cpu/vpmu carried the
# counters, the pending PMI and the accounting (the PMI cases count their
# interrupts exactly).
srcok=$(grep -c '^mig-src.txt: vpmu-guest: ok - ' "$tmp/kvm.out")
dstok=$(grep -c '^mig-dst.txt: vpmu-guest: ok - ' "$tmp/kvm.out")
grep -q '^mig-src.log: .*"status": "completed"' "$tmp/kvm.out" && [ "$srcok" -gt 0 ] &&
	! grep -q '^mig-src.log: .*"event": "RESUME"' "$tmp/kvm.out" &&
	! grep -q '^mig-src.txt: vpmu-guest: exit' "$tmp/kvm.out" &&
	grep -q '^mig-dst.txt: vpmu-guest: exit 0 (30 cases)' "$tmp/kvm.out" && [ "$(qrc mig-dst)" = 1 ] &&
	! grep -q '^mig-...\.txt: vpmu-guest: not ok' "$tmp/kvm.out"
ok $? "live migration in the middle of pmu-tests: $srcok cases on the source, $dstok on the destination, which ends with all 30 passed (status $(qrc mig-dst))" "$tmp/kvm.out"
# To a destination of another model: its load refuses the blob, and the
# source goes on and runs the guest to its end.
grep -q '^migk7-dst.log: .*vpmu: vCPU 0: ' "$tmp/kvm.out" && [ "$(qrc migk7-dst)" != 0 ] &&
	grep -q '^migk7-src.log: .*"event": "RESUME"' "$tmp/kvm.out" &&
	grep -q '^migk7-src.txt: vpmu-guest: exit 0 (30 cases)' "$tmp/kvm.out" && [ "$(qrc migk7-src)" = 1 ]
ok $? "a migration to a k7 destination is refused ($(sed -n 's/^migk7-dst.log: .*\(vpmu: vCPU 0: .*\)/\1/p' "$tmp/kvm.out" | head -n 1 | cut -c1-90)); the source learns it through the return path, resumes and runs on to the end (status $(qrc migk7-src))" "$tmp/kvm.out"
echo "1..$n"
