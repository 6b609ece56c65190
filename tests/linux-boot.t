#!/bin/sh
# SPDX-License-Identifier: MIT
# vpmu-run boots Linux (docs/vpmu-run.md, "Linux guests"): Debian's amd64 kernel
# (the one scripts/kvm-env caches for the nested tier) with a busybox initramfs,
# on the k8 model, under real KVM (natively, or nested in QEMU TCG).  What is
# checked comes from the guest itself: its console output through the 16550's
# interrupts, the kernel log lines of the MP table, the I/O APIC timer and the
# AMD PMU driver accepting the virtual PMU, a sleep (timer interrupts), and its
# exit status through /dev/port; a second boot ends with `reboot -f`, the triple
# fault of reboot=t, which vpmu-run reports as the guest's normal end, on two
# vCPUs (the second started by Linux with INIT/SIPI).  The first boot's /init
# ends in a shell on the console, which gets its commands from vpmu-run's
# console input.  The first boot has KVM's paravirtual clock (Linux takes the TSC
# rate from it), the second runs with --no-kvmclock, the model's CPUID alone.
# About 1-2 minutes nested on 2 cores.
KB=${VPMU_KVM_BUILD:-build/static}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh

kernel=$(scripts/kvm-env --kernel-path 2>"$tmp/kp.err")
[ -n "$kernel" ] && [ -f "$kernel" ]
ok $? "the guest kernel is cached (scripts/kvm-env --kernel-path: ${kernel:-none})" "$tmp/kp.err"
bb=$(command -v busybox)
[ -n "$bb" ] && ! ldd "$bb" >/dev/null 2>&1
ok $? "a static busybox for the initramfs (${bb:-none}; scripts/install-deps: busybox-static)"
if [ -z "$kernel" ] || [ -z "$bb" ] || [ ! -x "$KB/bin/vpmu-run" ]; then
	echo "1..$n"
	exit 1
fi

# The initramfs: busybox and an /init that reports what the kernel found, then
# exits with 3 through port 0xF4 (or reboots, with reboot=t, when asked).
mkdir -p "$tmp/root/bin" "$tmp/root/dev" "$tmp/root/proc"
cp "$bb" "$tmp/root/bin/busybox"
cat >"$tmp/root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t devtmpfs dev /dev
mount -t proc proc /proc
mkdir -p /sys && mount -t sysfs sysfs /sys
echo "vpmu-linux: init up"
echo "vpmu-linux: cpus $(grep -c ^processor /proc/cpuinfo)"
dmesg | grep -E "MP-table|Performance Events|Hypervisor detected|tsc: Detected|tsc: Marking" |
	sed 's/^\[[ 0-9.]*\] /vpmu-linux: dmesg: /'
echo "vpmu-linux: clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
sleep 1
echo "vpmu-linux: slept 1 s"
grep -E "timer" /proc/interrupts | sed 's/^ */vpmu-linux: interrupts: /'
if grep -q vpmu.reboot /proc/cmdline; then reboot -f; fi
exec /bin/sh
EOF
# What "the user" types on the console (vpmu-run --console-input): the shell's
# answer shows that input arrived; the exit status comes through /dev/port.
cat >"$tmp/typed.txt" <<'EOF'
echo vpmu-linux: typed $((6 * 7))
sleep 1; printf '\003' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
EOF
chmod +x "$tmp/root/init"
(cd "$tmp/root" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >"$tmp/initrd.gz"
cp "$kernel" "$tmp/vmlinuz"

# The command line of docs/vpmu-run.md "Linux guests": quiet (each console byte is
# an exit), nokaslr, nmi_watchdog=0 (the watchdog would take a counter), reboot=t.
cmd="console=ttyS0 quiet nokaslr panic=-1 nmi_watchdog=0 rdinit=/init reboot=t"
cat >"$tmp/boots.sh" <<EOF
./vpmu-run --model k8 --timeout 300 --console-input --kernel vmlinuz --initrd initrd.gz --append "$cmd" <typed.txt >exit.out 2>exit.err
echo "@@STATUS exit \$?"
./vpmu-run --model k8 --vcpus 2 --no-kvmclock --timeout 300 --kernel vmlinuz --initrd initrd.gz --append "$cmd vpmu.reboot" >reboot.out 2>reboot.err
echo "@@STATUS reboot \$?"
for f in exit.out exit.err reboot.out reboot.err; do echo "@@FILE \$f"; cat \$f; done
EOF
scripts/kvm-env --timeout 800 --smp 2 --file "$KB/bin/vpmu-run" --file "$tmp/vmlinuz" --file "$tmp/initrd.gz" --file "$tmp/typed.txt" \
	--file "$tmp/boots.sh" -- /bin/busybox sh boots.sh >"$tmp/all.out" 2>"$tmp/env.err"
ok $? "one kvm-env run holds both boots ($(sed -n 's/^kvm-env: //p' "$tmp/env.err" | head -n 1))" "$tmp/env.err"
awk -v d="$tmp" '/^@@FILE /{f = d "/" $2; next} f {print > f}' "$tmp/all.out"
st() { sed -n "s/^@@STATUS $1 //p" "$tmp/all.out"; }

o=$tmp/exit.out
[ "$(st exit)" = 3 ]; ok $? "the guest's exit status through /dev/port and port 0xF4 is vpmu-run's (3; got $(st exit))" "$tmp/exit.err"
grep -q '^vpmu-linux: init up' "$o"; ok $? "init's console output arrives through the 16550's interrupts" "$o"
grep -q '^vpmu-linux: typed 42' "$o"; ok $? "console input reaches a shell on the console (--console-input: it answered 6 * 7)" "$o"
grep -q 'vpmu-linux: dmesg: .*found SMP MP-table at \[mem 0x0009fc00' "$o"; ok $? "Linux found vpmu-run's MP table" "$o"
grep -q 'vpmu-linux: dmesg: Performance Events: AMD PMU driver\.' "$o"; ok $? "Linux's AMD PMU driver accepted the virtual PMU (k8)" "$o"
grep -q '^vpmu-linux: slept 1 s' "$o"; ok $? "a sleep returns: timer interrupts arrive" "$o"
grep -q 'vpmu-linux: interrupts: 0: .*IO-APIC.*timer' "$o"; ok $? "the PIT's IRQ 0 arrives through the I/O APIC the MP table names" "$o"
grep -q 'vpmu-linux: dmesg: Hypervisor detected: KVM' "$o" && grep -q 'vpmu-linux: dmesg: tsc: Detected [0-9.]* MHz' "$o" &&
	grep -q '^vpmu-linux: clocksource kvm-clock' "$o"
ok $? "kvmclock: Linux finds KVM, takes its TSC rate from it and keeps time with kvm-clock ($(sed -n 's/^vpmu-linux: \(clocksource .*\)/\1/p' "$o"))" "$o"
! grep -q 'Hypervisor detected' "$tmp/reboot.out" && grep -q '^vpmu-linux: clocksource ' "$tmp/reboot.out"
ok $? "--no-kvmclock: the model's CPUID alone, no hypervisor ($(sed -n 's/^vpmu-linux: \(clocksource .*\)/\1/p' "$tmp/reboot.out"))" "$tmp/reboot.out"
grep -q '^vpmu-linux: cpus 2' "$tmp/reboot.out"
ok $? "with --vcpus 2 Linux starts the second vCPU (INIT/SIPI) and runs on both" "$tmp/reboot.out"
[ "$(st reboot)" = 0 ] && grep -q 'the guest rebooted (a triple fault' "$tmp/reboot.err"
ok $? "reboot -f with reboot=t ends the run with status 0 and says so (got $(st reboot))" "$tmp/reboot.err"
echo "1..$n"
