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
#   - QMP's query-stats, provider vpmu, per vCPU and per VM, and query-vpmu,
#     the same accounting in the JSON schema, read by vpmu-stat --qmp;
#   - a live migration over a Unix socket in the middle of the guest's run,
#     after which it passes every case on the destination; one of a guest that
#     counts and samples throughout (guest-tests/migrate/check.c: its counters
#     never go back, no PMI lost or doubled); and migrations to another model,
#     to a QEMU without vpmu= and through a pipe that corrupts the stream,
#     which the destination refuses at the stream's start, before the source
#     stops.
# The patched QEMU runs in the nested guest with its libraries, loader and
# firmware staged next to it (the guest's initramfs is busybox), and with the
# libvpmu.so.1 of this checkout (make B=build lib).  One nested boot, about 3 minutes.
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
# vpmu-stat, to read QEMU's query-vpmu through a QMP socket, with its
# libraries (the loader is QEMU's).
make -s --no-print-directory B=build build/bin/vpmu-stat >"$tmp/stat.err" 2>&1 ||
	{ ok 1 "make B=build build/bin/vpmu-stat" "$tmp/stat.err"; echo "1..$n"; exit 1; }
# libvirt's command line for contrib/libvirt/vpmu-p6.xml: virsh with libvirt's
# QEMU driver embedded in it (qemu:///embed: no daemon; libvirt's
# src/libvirt.c), with their libraries.  The domain boots pmu-tests instead
# of its disk (-kernel, its command line), with its console in a file, the
# exit port and the nested tier's vapic=off; the rest (the CPU, its features,
# the -global of vpmu=p6) is the documented XML's.
virsh=$(command -v virsh)
lvmod=$(dpkg -L libvirt-daemon-driver-qemu 2>/dev/null | grep '/libvirt_driver_qemu\.so$')
perl -0pe 's|<emulator>.*?</emulator>|<emulator>\@DIR\@/qemu-libvirt</emulator>|;
	s|<memory unit=.MiB.>512</memory>|<memory unit="MiB">64</memory>|;
	s|<boot dev=.hd./>|<kernel>\@DIR\@/pmu-tests.bin</kernel><cmdline>model=p6 vcpus=1 cpumodel=7 stepping=3 backend=perf counts=clock rdpmc=exit</cmdline>|;
	s|<disk .*?</disk>\s*||s;
	s|<serial type=.pty./>|<serial type="file"><source path="\@DIR\@/lv-console.txt"/></serial>|;
	s|<console type=.pty./>\s*||;
	s|(<qemu:arg value=.pentium3-x86_64-cpu.vpmu=p6./>)|$1<qemu:arg value="-device"/><qemu:arg value="isa-debug-exit,iobase=0xf4,iosize=4"/><qemu:arg value="-global"/><qemu:arg value="apic-common.vapic=off"/>|' \
	contrib/libvirt/vpmu-p6.xml >"$tmp/lv-domain.xml"
grep -q '@DIR@/pmu-tests.bin' "$tmp/lv-domain.xml" && ! grep -q '<disk' "$tmp/lv-domain.xml" &&
	grep -q 'apic-common.vapic=off' "$tmp/lv-domain.xml" && [ -n "$virsh" ] && [ -n "$lvmod" ]
ok $? "libvirt's case: the domain of contrib/libvirt/vpmu-p6.xml booting pmu-tests, virsh ($virsh) and libvirt's QEMU driver (${lvmod:-libvirt-daemon-driver-qemu: not installed})" "$tmp/lv-domain.xml"
# libvirt's CPU models (libvirt0's cpu_map), which its driver reads.
tar -C / -czf "$tmp/lv-cpu-map.tgz" usr/share/libvirt/cpu_map 2>"$tmp/tar.err" ||
	{ ok 1 "libvirt's cpu_map" "$tmp/tar.err"; echo "1..$n"; exit 1; }
files=$(qemu_stage_here "$tmp/stage") && cp "$GB/pmu-tests.bin" "$GB/migrate-check.bin" build/bin/vpmu-stat "$tmp/lv-domain.xml" "$tmp/lv-cpu-map.tgz" "$tmp/stage/" &&
	files="$files --file $tmp/stage/pmu-tests.bin --file $tmp/stage/migrate-check.bin --file $tmp/stage/vpmu-stat --file $tmp/stage/lv-domain.xml --file $tmp/stage/lv-cpu-map.tgz --file $tmp/stage/run.sh" &&
	files="$files $(for l in $( { ldd build/bin/vpmu-stat; ldd "$virsh"; ldd "$lvmod"; } | awk '$3 ~ /^\// { print $3 }' | sort -u); do
		case " $files " in *" --file $l "*) ;; *) printf ' --file %s' "$l" ;; esac; done) --file $virsh --file $lvmod"
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
	qmp '{"execute":"query-vpmu"}'
	# vpmu-stat through the second QMP socket, as for vpmu-run's VMs.
	stat="./ld-linux-x86-64.so.2 --library-path . ./vpmu-stat --qmp vm.qmp"
	$stat --format json >stat.json 2>stat.err; echo "$?" >stat.rc
	$stat >stat.txt 2>>stat.err
	$stat --list >stat.list 2>>stat.err
	qmp '{"execute":"quit"}'
} | run -serial file:stats-console.txt -qmp stdio -qmp unix:vm.qmp,server=on,wait=off \
	-name guest=web1 -cpu pentium3,vendor=GenuineIntel,x2apic=off,vpmu=p6 -kernel pmu-tests.bin \
	-append "model=p6 vcpus=1 cpumodel=7 stepping=3 $opt" >qmp.log 2>&1
r=$?
sed 's/^/qmp: /' qmp.log
echo "@@ qmp rc $r"
sed 's/^/qmp-console: /' stats-console.txt
for f in stat.json stat.txt stat.list stat.err stat.rc; do sed "s/^/$f: /" $f; done
# The answer to query-vpmu without a vPMU.
printf '%s\n' '{"execute":"qmp_capabilities"}' '{"execute":"query-vpmu"}' '{"execute":"quit"}' |
	run -qmp stdio -S -cpu pentium3,vendor=GenuineIntel,x2apic=off >novpmu.log 2>&1
sed 's/^/novpmu: /' novpmu.log
# A live migration over a Unix socket in the middle of pmu-tests: the
# destination runs it to its end.  QMP on the source's stdin: migrate, then
# query-migrate once it has had the time.
p6="-cpu pentium3,vendor=GenuineIntel,x2apic=off,vpmu=p6"
# Both sides with QEMU's return path, through which the destination tells the
# source whether it loaded the state: a refusal then fails the migration on the
# source too, which runs on (without it the source ends "completed", stopped).
rp="-global migration.x-return-path=on"
migrate() { # NAME INCOMING-URI URI GUEST DESTINATION-CPU...: the source runs p6
	# and is migrated once its console shows $progress (a case passed unless
	# set), over a socket with the return path (an exec: pipe has none).  Each
	# step waits for what it needs, never for a fixed time: on a loaded host
	# the nested QEMUs start and run several times slower (a destination not yet
	# listening when the source migrates would wait for its stream forever).
	name=$1 in=$2 to=$3 guest=$4; shift 4
	rpo=$rp
	case $to in exec:*) rpo= ;; esac
	run $exitport $rpo -serial file:$name-dst.txt "$@" -kernel $guest \
		-append "model=p6 vcpus=1 cpumodel=7 stepping=3 $opt" -incoming "$in" >$name-dst.log 2>&1 &
	d=$!
	case $in in unix:*)
		i=0
		while [ $i -lt 600 ] && [ ! -S "${in#unix:}" ] && kill -0 $d 2>/dev/null; do
			sleep 0.2
			i=$((i + 1))
		done
		[ -S "${in#unix:}" ] || echo "@@ $name-dst not listening after $((i / 5)) s"
	esac
	{
		qmp '{"execute":"qmp_capabilities"}'
		# MIGRATION events: the status as it changes, even once the
		# source's guest has ended it.
		qmp '{"execute":"migrate-set-capabilities","arguments":{"capabilities":[{"capability":"events","state":true}]}}'
		i=0
		until [ $i -ge 600 ] || [ "$(grep -c "${progress:-vpmu-guest: ok - }" $name-src.txt 2>/dev/null)" -ge "${needed:-1}" ]; do
			sleep 0.2
			i=$((i + 1))
		done
		qmp '{"execute":"migrate","arguments":{"uri":"'"$to"'"}}'
		# query-migrate once it has ended, or in 3 minutes.
		i=0
		while [ $i -lt 180 ] && ! grep -q '"status": "\(completed\|failed\)"' $name-src.log; do
			sleep 1
			i=$((i + 1))
		done
		qmp '{"execute":"query-migrate"}'
	} | run $exitport $rpo -serial file:$name-src.txt -qmp stdio $p6 -kernel $guest \
		-append "model=p6 vcpus=1 cpumodel=7 stepping=3 $opt" >$name-src.log 2>&1 &
	s=$!
	# The source's guest ends it (its exit port) if it goes on running;
	# otherwise it stays stopped after the migration: quit it.
	i=0
	while [ $i -lt 300 ] && kill -0 $s 2>/dev/null && ! grep -q '"status": "\(completed\|failed\)"' $name-src.log; do
		sleep 1
		i=$((i + 1))
	done
	grep -q '"status": "completed"' $name-src.log && kill $s 2>/dev/null
	wait $s; rs=$?
	# A destination whose migration failed before its stream began still
	# waits for one: once the source has ended, it is stopped (and says so).
	# One that loaded the state runs the guest to its end.
	if ! grep -q '"status": "completed"' $name-src.log; then
		sleep 5
		kill -0 $d 2>/dev/null && { echo "@@ $name-dst never got a stream: stopped"; kill $d; }
	fi
	i=0
	while [ $i -lt 300 ] && kill -0 $d 2>/dev/null; do
		sleep 1
		i=$((i + 1))
	done
	kill -0 $d 2>/dev/null && { echo "@@ $name-dst still running after 5 minutes: stopped"; kill $d; }
	wait $d; rd=$?
	for f in src.log dst.log src.txt dst.txt; do sed "s/^/$name-$f: /" $name-$f; echo; done
	echo "@@ $name-src rc $rs"
	echo "@@ $name-dst rc $rd"
}
migrate mig unix:mig.sock unix:mig.sock pmu-tests.bin $p6
# migrate-check moves once it has counted and sampled a while: two progress lines.
progress='vpmu-guest: # migrate-check: [0-9]* PMIs' needed=2
migrate migck unix:mig3.sock unix:mig3.sock migrate-check.bin $p6
progress= needed=
migrate migk7 unix:mig2.sock unix:mig2.sock pmu-tests.bin -cpu athlon,vendor=AuthenticAMD,x2apic=off,vpmu=k7
migrate mignone unix:mig4.sock unix:mig4.sock pmu-tests.bin -cpu pentium3,vendor=GenuineIntel,x2apic=off
# A corrupt stream: the source's through a pipe that changes the magic of
# each vPMU blob in it (sed is binary-safe), the VM's first.
mkfifo bad.fifo
migrate migbad "exec:sed s/VPMU/VPMX/g bad.fifo" "exec:cat >bad.fifo" pmu-tests.bin $p6
# libvirt's command line: virsh domxml-to-native with the QEMU driver embedded,
# privileged (as root here: its build's QEMU user must exist, and qemu.conf
# makes it root), then that command line run.  libvirt starts QEMU stopped
# (-S) and continues it over QMP: without -S it runs at once.
d=$PWD
mkdir -p /etc
printf 'passwd: files\ngroup: files\n' >/etc/nsswitch.conf
echo "root:x:0:0:root:/root:/bin/sh" >>/etc/passwd
echo "libvirt-qemu:x:64055:64055::/nonexistent:/bin/false" >>/etc/passwd
printf 'root:x:0:\nkvm:x:106:\nlibvirt-qemu:x:64055:\n' >>/etc/group
tar -C / -xzf lv-cpu-map.tgz
mkdir -p lvroot/etc/qemu
printf 'user = "root"\ngroup = "root"\n' >lvroot/etc/qemu/qemu.conf
printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s %s/qemu-system-x86_64 -L %s "$@"\n' \
	"$d" "$d" "$d" "$d" >qemu-libvirt
chmod 755 qemu-libvirt
sed "s|@DIR@|$d|g" lv-domain.xml >lv.xml
LIBVIRT_DRIVER_DIR=$d ./ld-linux-x86-64.so.2 --library-path . ./virsh -q -c "qemu:///embed?root=$d/lvroot" \
	domxml-to-native qemu-argv lv.xml >lv-argv.txt 2>lv-virsh.err
echo "@@ lv-virsh rc $?"
sed 's/^/lv-argv: /' lv-argv.txt; echo   # (no newline at its end)
sed 's/^/lv-virsh: /' lv-virsh.err
# The files the command line names that libvirt would have made: the domain's
# directory (its monitor socket) and its master key.
key=$(sed -n 's/.*"file":"\([^"]*master-key.aes\)".*/\1/p' lv-argv.txt)
[ -z "$key" ] || { mkdir -p "${key%/*}"; head -c 32 /dev/urandom >"$key"; }
sed 's/ -S / /' lv-argv.txt >lv-run.sh
sh lv-run.sh >lv-qemu.log 2>&1
echo "@@ lv rc $?"
sed 's/^/lv-qemu: /' lv-qemu.log; sed 's/^/lv-console: /' lv-console.txt
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
if [ "$rc" = 124 ] || [ "$rc" = 125 ] || ! grep -q '^@@ lv rc' "$tmp/kvm.out"; then
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

# query-vpmu: the same accounting as one document of the JSON schema
# (docs/accounting.md), which vpmu-stat --qmp reads as it reads vpmu-run's
# sockets.  The guest has halted: its counts no longer move, and each answer
# must agree with query-stats'.
qv=$(grep '^qmp: {"return": {"schema": 1, "vms": \[' "$tmp/kvm.out" | head -n 1 | cut -c6-)
json() { # json FILE-OR-TEXT PERL-EXPRESSION-ON-$d: its value
	printf '%s' "$1" | perl -MJSON::PP -0777 -ne '$d = decode_json($_); $d = $d->{return} // $d; print '"$2"
}
[ -n "$qv" ] && [ "$(json "$qv" '$d->{vms}[0]{model}')" = p6 ] &&
	[ "$(json "$qv" '$d->{vms}[0]{name}')" = web1 ] &&
	[ "$(json "$qv" '$d->{vms}[0]{total}{pmis}{raised}')" = "$pmis" ] &&
	[ "$(json "$qv" '$d->{vms}[0]{vcpus}[0]{kvm}{msr_exits}')" = "$ex" ] &&
	[ "$(json "$qv" '$d->{vms}[0]{vcpus}[0]{accesses}{writes}')" = "$wr" ] &&
	[ "$(json "$qv" '$d->{vms}[0]{events}{cycles}{source}')" = task-clock ] &&
	[ "$(json "$qv" 'scalar @{$d->{vms}[0]{total}{counters}}')" = 2 ]
ok $? "query-vpmu: schema 1, VM web1 (-name), model p6, two counters, cycles from the task clock; its PMIs ($pmis), writes ($wr) and MSR exits ($ex) are query-stats'" "$tmp/kvm.out"
sj=$(sed -n 's/^stat.json: //p' "$tmp/kvm.out")
[ "$(sed -n 's/^stat.rc: //p' "$tmp/kvm.out")" = 0 ] && [ -n "$sj" ] &&
	[ "$(json "$sj" '$d->{vms}[0]{name}')" = web1 ] &&
	[ "$(json "$sj" '$d->{vms}[0]{total}{pmis}{raised}')" = "$pmis" ] &&
	[ "$(json "$sj" '$d->{vms}[0]{vcpus}[0]{kvm}{msr_exits}')" = "$ex" ] &&
	grep -Eq '^stat.list: web1 +p6 +1 +2$' "$tmp/kvm.out" && grep -q '^stat.txt: .*web1' "$tmp/kvm.out" &&
	! grep -q '^stat.err: ' "$tmp/kvm.out"
ok $? "vpmu-stat --qmp vm.qmp reads it through a QMP socket: --format json (read back and written again: the same counts), text, --list (web1 p6 1 2)" "$tmp/kvm.out"
grep -q '^novpmu: {"error": {"class": "GenericError", "desc": "this VM has no virtual PMU (-cpu MODEL,vpmu=NAME gives it one)"}}' "$tmp/kvm.out"
ok $? "query-vpmu of a VM without vpmu= is an error that says what gives it one" "$tmp/kvm.out"

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
# migrate-check counts and samples while it moves: its counters never go
# back, no PMI is lost or doubled, and the two counters agree at the end.
srcp=$(grep -c '^migck-src.txt: vpmu-guest: # migrate-check: [0-9]* PMIs' "$tmp/kvm.out")
dstp=$(grep -c '^migck-dst.txt: vpmu-guest: # migrate-check: [0-9]* PMIs' "$tmp/kvm.out")
grep -q '^migck-src.log: .*"status": "completed"' "$tmp/kvm.out" && [ "$srcp" -gt 0 ] && [ "$dstp" -gt 0 ] &&
	! grep -q '^migck-src.txt: vpmu-guest: exit' "$tmp/kvm.out" &&
	[ "$(cases migck-dst.txt ok)" = 5 ] && grep -q '^migck-dst.txt: vpmu-guest: exit 0 (5 cases)' "$tmp/kvm.out" &&
	[ "$(qrc migck-dst)" = 1 ]
ok $? "live migration of a guest that counts and samples ($srcp progress lines on the source, $dstp on the destination): $(sed -n 's/^migck-dst.txt: vpmu-guest: # migrate-check: \([0-9]* PMIs, .*\)/\1/p' "$tmp/kvm.out")" "$tmp/kvm.out"
for c in "counter 1 never went back" "every PMI found counter 0 wrapped" "no PMI lost" "the counters agree"; do
	grep -q "^migck-dst.txt: vpmu-guest: ok - migrate-check: $c" "$tmp/kvm.out"
	ok $? "after the migration: $c" "$tmp/kvm.out"
done
# Refused: to a destination of another model (its libvpmu refuses the VM's
# blob) and to one without vpmu= (it has no section "vpmu"), both at the
# stream's start: the source never stops (no STOP event) and runs the guest
# to its end.
refused() { # NAME WHAT MESSAGE
	grep -q "^$1-dst.log: .*$3" "$tmp/kvm.out" && [ "$(qrc $1-dst)" != 0 ] &&
		grep -q "^$1-src.log: .*\"event\": \"MIGRATION\", \"data\": {\"status\": \"failed\"}" "$tmp/kvm.out" &&
		! grep -q "^$1-src.log: .*\"event\": \"STOP\"" "$tmp/kvm.out" &&
		grep -q "^$1-src.txt: vpmu-guest: exit 0 (30 cases)" "$tmp/kvm.out" && [ "$(qrc $1-src)" = 1 ]
	ok $? "a migration to $2 is refused before the source stops ($(sed -n "s/^$1-dst.log: .*\($3.*\)/\1/p" "$tmp/kvm.out" | head -n 1 | cut -c1-100)); the source runs on to the end (status $(qrc $1-src))" "$tmp/kvm.out"
}
refused migk7 "a k7 destination" "vpmu: this CPU's virtual PMU (vpmu=k7) refuses the source's: model p6"
refused mignone "a destination without vpmu=" "Unknown savevm section or instance 'vpmu'"
refused migbad "a destination through a pipe that corrupts the blobs' magic" "vpmu: this CPU's virtual PMU (vpmu=p6) refuses the source's: bad magic"

# libvirt's command line for the documented domain (contrib/libvirt/vpmu-p6.xml,
# booting pmu-tests): it has the CPU, pmu=off, x2apic=off and the -global of
# vpmu=p6, and QEMU run with it passes every case.
[ "$(qrc lv-virsh)" = 0 ] && grep -q '^lv-argv: .*-cpu pentium3,vendor=GenuineIntel,x2apic=off,pmu=off' "$tmp/kvm.out" &&
	grep -q '^lv-argv: .*-accel kvm' "$tmp/kvm.out" && grep -q '^lv-argv: .*-global pentium3-x86_64-cpu.vpmu=p6' "$tmp/kvm.out"
ok $? "virsh domxml-to-native qemu-argv (libvirt's QEMU driver, embedded) makes the command line: $(grep -o -- '-cpu [^ ]*' "$tmp/kvm.out" | grep vendor | head -n 1), $(grep -o -- '-global pentium3-x86_64-cpu.vpmu=p6' "$tmp/kvm.out" | head -n 1)" "$tmp/kvm.out"
[ "$(qrc lv)" = 1 ] && [ "$(cases lv-console ok)" -ge 30 ] && [ "$(cases lv-console 'not ok')" = 0 ] &&
	said lv-console "vpmu-guest: exit 0"
ok $? "that command line boots: pmu-tests passes $(cases lv-console ok) cases, none fails (QEMU status $(qrc lv))" "$tmp/kvm.out"
echo "1..$n"
