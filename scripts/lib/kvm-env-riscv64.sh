#!/bin/sh
# SPDX-License-Identifier: MIT
# kvm-env --arch riscv64: run a static riscv64 program (or a script) under a
# working RISC-V /dev/kvm.  scripts/kvm-env runs this file for --arch riscv64
# (docs/riscv.md, "The nested RISC-V tier"):
#
#   scripts/kvm-env --arch riscv64 [--timeout S] [--smp N] [--mem MB] [--file PATH]...
#                   [--keep] [--debug] [--patched-kvm] -- PROGRAM [ARGS...]
#   scripts/kvm-env --arch riscv64 --prefetch     fetch QEMU, OpenSBI, kernel, busybox
#   scripts/kvm-env --arch riscv64 --kernel-path  print the riscv64 Image's path (the
#                                                 L2 guest kernel for vpmu-run --kernel)
#   scripts/kvm-env --arch riscv64 --mode         print "qemu" (the only mode)
#
# This machine has no RISC-V KVM, so there is one mode, nested:
#   L0  qemu-system-riscv64 10 (TCG) from bookworm-backports with OpenSBI 1.5,
#       -M virt,aia=aplic-imsic -cpu rv64,h=true,sscofpmf=true,smaia=true,ssaia=true:
#       the H extension for KVM, Sscofpmf for the counter-overflow interrupt
#       (LCOFI, IRQ 13), and AIA, whose hvien lets a hypervisor hand LCOFI to
#       VS mode (QEMU added it in 8.2; bookworm's 7.2 cannot deliver LCOFI to
#       a guest at all).  QEMU and all its libraries are extracted into the
#       cache and run with their own loader: nothing of it is installed.
#   L1  Debian 13's riscv64 kernel (its vmlinux is a bootable Image) with a
#       busybox-static initramfs that loads kvm.ko (Debian's, or with
#       --patched-kvm the one scripts/kvm-riscv-modules builds with
#       patches/kvm-riscv-pmu) and runs PROGRAM; PROGRAM is the L2's VMM.
# PROGRAM runs with its directory as working directory; the --file PATHs are
# copied next to it.  Its stdout and stderr reach ours through two
# virtio-serial ports (the virt machine has one UART, the kernel's console),
# and we exit with its exit status.  Every run has a wall-clock limit
# (--timeout, default 120 s): exceeding it prints "kvm-env: TIMEOUT ..." to
# stderr and exits 124.  Other exits of our own: 125 harness/guest failure
# (console tail on stderr), 2 usage.
#
# Environment: VPMU_RISCV_CACHE (default ~/.cache/vpmu-riscv), VPMU_KVM_KEEP=1
# (same as --keep).  --debug: --keep, and the L1 kernel logs at loglevel 7.
set -u

me=kvm-env
top=$(cd "$(dirname "$0")/../.." && pwd)
RA_TOP=$top RA_ME=$me
die() { echo "$me: $*" >&2; exit 125; }
usage() {
	echo "usage: $me --arch riscv64 [--timeout S] [--smp N] [--mem MB] [--file PATH]... [--keep] [--debug] [--patched-kvm] -- PROGRAM [ARGS...]" >&2
	echo "       $me --arch riscv64 --prefetch | --mode | --kernel-path" >&2
	exit 2
}
isnum() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ "$1" -gt 0 ]; }
. "$top/scripts/lib/riscv-apt.sh"
CACHE=$RA_CACHE
export LC_ALL=C

# ---- the cache -------------------------------------------------------------
# $CACHE/l0/           QEMU 10, OpenSBI and their Depends closure (amd64)
# $CACHE/busybox/      busybox-static (riscv64)
# $CACHE/KVER/         Image, config, modules/kvm.ko (Debian's), ok
# $CACHE/KVER/kvm-riscv-pmu-SUM/   the patched kvm.ko (scripts/kvm-riscv-modules)
L0=$CACHE/l0
ensure_l0() { # sets QEMU (a command: the loader, its libraries, the binary) and BIOS
	ra_fetch_closure bpo "$L0" qemu-system-riscv opensbi
	ld=$L0/lib64/ld-linux-x86-64.so.2
	[ -e "$ld" ] || ld=$L0/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
	bin=$L0/usr/bin/qemu-system-riscv64
	BIOS=$L0/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin
	[ -x "$bin" ] && [ -e "$ld" ] && [ -f "$BIOS" ] || die "$L0 lacks qemu-system-riscv64, its loader or OpenSBI's fw_dynamic.bin (rm -rf $L0 and retry)"
	libs=$L0/lib/x86_64-linux-gnu:$L0/usr/lib/x86_64-linux-gnu
	QEMU="$ld --library-path $libs $bin"
}
ensure_busybox() { # sets BB
	ra_fetch_closure trixie "$CACHE/busybox" busybox-static
	BB=$CACHE/busybox/bin/busybox
	[ -x "$BB" ] || BB=$CACHE/busybox/usr/bin/busybox
	[ -x "$BB" ] || die "no busybox in $CACHE/busybox"
}
ensure_kernel() { # sets KVER, KDIR (Image, config, modules/kvm.ko)
	KVER=''
	if [ -n "$(ls "$CACHE"/*-riscv64/ok 2>/dev/null)" ] && [ -f "$(ra_dir trixie)/updated" ] &&
		[ -z "$(find "$(ra_dir trixie)/updated" -mmin +1440 2>/dev/null)" ]; then
		# lists fresh: the metapackage's answer, without apt-get update
		KVER=$(ra_apt trixie apt-cache depends linux-image-riscv64 2>/dev/null |
			sed -n 's/^ *Depends: linux-image-\([0-9][^ ]*-riscv64\)$/\1/p' | head -n 1)
		[ -n "$KVER" ] && KPKGVER=$(ra_candidate trixie "linux-image-$KVER")
	fi
	if [ -z "$KVER" ] || [ ! -f "$CACHE/$KVER/ok" ]; then
		if (ra_update trixie) 2>/dev/null; then
			ra_kernel; KVER=$RA_KVER KPKGVER=$RA_KPKGVER
		else # offline: the newest cached kernel
			KVER=$(ls -1 "$CACHE" 2>/dev/null | grep -- '-riscv64$' | sort -V | tail -n 1)
			[ -n "$KVER" ] && [ -f "$CACHE/$KVER/ok" ] || die "cannot resolve the riscv64 kernel (no mirror) and none is cached in $CACHE"
			KPKGVER=$(cut -d ' ' -f 2 "$CACHE/$KVER/ok")
		fi
	fi
	KDIR=$CACHE/$KVER
	[ -f "$KDIR/ok" ] && return 0
	(
		flock 9 || exit 1
		[ -f "$KDIR/ok" ] && exit 0
		dl=$(mktemp -d "$CACHE/dl.XXXXXX") || exit 1
		trap 'rm -rf "$dl"' EXIT
		chmod 755 "$dl"
		[ "$(id -u)" -ne 0 ] || chown _apt "$dl" 2>/dev/null || true
		echo "$me: fetching linux-image-$KVER ($KPKGVER, 112 MB) into $CACHE (once)" >&2
		(cd "$dl" && ra_apt trixie apt-get download -q=2 "linux-image-$KVER=$KPKGVER") >"$dl/apt.log" 2>&1 || {
			cat "$dl/apt.log" >&2; echo "$me: apt-get download linux-image-$KVER failed" >&2; exit 1; }
		mkdir "$dl/x" "$dl/k" "$dl/k/modules"
		kvm=./usr/lib/modules/$KVER/kernel/arch/riscv/kvm/kvm.ko.xz
		dpkg-deb --fsys-tarfile "$dl"/linux-image-*.deb |
			tar -x -C "$dl/x" "./boot/vmlinux-$KVER" "./boot/config-$KVER" "$kvm" || {
			echo "$me: extracting linux-image-$KVER failed" >&2; exit 1; }
		# Debian's riscv64 "vmlinux" is the Image (a PE/EFI stub with the
		# RISC-V boot header): QEMU's -kernel loads it as is.
		cp "$dl/x/boot/vmlinux-$KVER" "$dl/k/Image" && cp "$dl/x/boot/config-$KVER" "$dl/k/config" &&
			xz -dc "$dl/x/$kvm" >"$dl/k/modules/kvm.ko" || exit 1
		echo "$KVER $KPKGVER" >"$dl/k/ok"
		rm -rf "$KDIR" && mv "$dl/k" "$KDIR"
	) 9>"$CACHE/.kernel.lock" || die "could not prepare the riscv64 kernel in $KDIR"
	[ -f "$KDIR/ok" ] || die "riscv64 kernel missing in $KDIR"
}

# ---- arguments -------------------------------------------------------------
timeout_s=120 smp=1 mem=1024 keep=${VPMU_KVM_KEEP:-} debug='' files='' patched=''
while [ $# -gt 0 ]; do
	case $1 in
	--arch) [ $# -ge 2 ] && [ "$2" = riscv64 ] || usage; shift 2 ;;
	--timeout) [ $# -ge 2 ] && isnum "$2" || usage; timeout_s=$2; shift 2 ;;
	--smp) [ $# -ge 2 ] && isnum "$2" || usage; smp=$2; shift 2 ;;
	--mem) [ $# -ge 2 ] && isnum "$2" || usage; mem=$2; shift 2 ;;
	--file)
		[ $# -ge 2 ] || usage
		[ -f "$2" ] || { echo "$me: --file $2: no such file" >&2; exit 2; }
		files="$files
$2"; shift 2 ;;
	--keep) keep=1; shift ;;
	--debug) keep=1; debug=1; shift ;;
	--qemu) shift ;;
	--native) echo "$me: --arch riscv64 runs nested only (RISC-V KVM cannot run on this host)" >&2; exit 2 ;;
	--patched-kvm) patched=1; shift ;;
	--forward) echo "$me: --forward is not supported with --arch riscv64" >&2; exit 2 ;;
	--mode) echo qemu; exit 0 ;;
	--prefetch)
		ensure_l0; ensure_busybox; ensure_kernel
		exit 0 ;;
	--kernel-path)
		ensure_kernel
		echo "$KDIR/Image"
		exit 0 ;;
	--) shift; break ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
done
[ $# -ge 1 ] || usage
prog=$1; shift
[ -f "$prog" ] && [ -x "$prog" ] || { echo "$me: $prog: not an executable file" >&2; exit 2; }
pname=$(basename "$prog")

ensure_l0
ensure_busybox
ensure_kernel
if [ -n "$patched" ]; then
	pdir=$("$top/scripts/kvm-riscv-modules") || die "--patched-kvm: building the patched kvm.ko failed (scripts/kvm-riscv-modules)"
fi
run=$(mktemp -d "${TMPDIR:-/tmp}/kvm-env.XXXXXX") || die "mktemp failed"
cleanup() {
	if [ -n "$keep" ]; then echo "$me: run directory kept: $run" >&2; else rm -rf "$run"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "$me: nested RISC-V KVM in QEMU TCG (kernel ${KVER%-riscv64})" >&2

# initramfs
R=$run/root
mkdir -p "$R/bin" "$R/proc" "$R/sys" "$R/dev" "$R/tmp" "$R/work" "$R/lib/modules" || die "mkdir failed"
cp "$BB" "$R/bin/busybox" || die "cannot copy busybox"
if [ -n "$patched" ]; then
	cp "$pdir/kvm.ko" "$R/lib/modules/" || die "patched kvm.ko missing in $pdir"
	echo "$me: KVM with the user-space SBI PMU (patches/kvm-riscv-pmu, $(basename "$pdir"))" >&2
else
	cp "$KDIR/modules/kvm.ko" "$R/lib/modules/" || die "kvm.ko missing in $KDIR"
fi
cp "$prog" "$R/work/$pname" || die "cannot copy $prog"
old_ifs=$IFS; IFS='
'
for f in $files; do cp "$f" "$R/work/" || die "cannot copy $f"; done
IFS=$old_ifs

q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
qargs=
for a in "$@"; do qargs="$qargs $(q "$a")"; done
cat >"$R/init" <<EOF || die "cannot write init"
#!/bin/busybox sh
/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
end() { sync; poweroff -f; sleep 5; }
insmod /lib/modules/kvm.ko || echo "VPMU-ERROR insmod kvm failed"
if [ ! -c /dev/kvm ]; then
	echo "VPMU-ERROR /dev/kvm absent in the guest after loading kvm"
	dmesg | grep -i kvm | tail -n 20
	end
fi
# the virtio-serial ports, by the names QEMU gives them
out= err=
for p in /sys/class/virtio-ports/*; do
	case \$(cat \$p/name 2>/dev/null) in
	vpmu.stdout) out=/dev/\${p##*/} ;;
	vpmu.stderr) err=/dev/\${p##*/} ;;
	esac
done
[ -n "\$out" ] && [ -n "\$err" ] || { echo "VPMU-ERROR no virtio-serial ports for stdout/stderr"; end; }
# The host's deadline (epoch seconds, qemu's start + --timeout - 2), read from
# the guest's clock (goldfish RTC, set from the host's).
deadline=\$(sed -n 's/.*vpmu_deadline=\\([0-9]*\\).*/\\1/p' /proc/cmdline)
lim=\$((deadline - \$(date +%s)))
[ \$lim -ge 1 ] || lim=1
echo "VPMU-START limit \$lim s"
cd /work
./$(q "$pname")$qargs </dev/null >\$out 2>\$err &
pid=\$!
( sleep \$lim; echo >/tmp/timedout; kill -KILL \$pid ) 2>/dev/null &
wait \$pid
rc=\$?
[ -e /tmp/timedout ] && echo "VPMU-TIMEOUT \$lim"
echo "VPMU-EXIT \$rc"
end
EOF
chmod 755 "$R/init"
# the host's cpio (or its busybox): the riscv64 busybox does not run here
if command -v cpio >/dev/null; then CPIO=cpio
else CPIO="$(command -v busybox) cpio" || die "cpio not found (scripts/install-deps: cpio)"
fi
(cd "$R" && find . | $CPIO -o -H newc 2>/dev/null) >"$run/initrd" || die "building the initramfs failed"

t0=$(date +%s)
deadline=$((t0 + timeout_s - 2))
: >"$run/stdout"; : >"$run/stderr"
# shellcheck disable=SC2086
timeout -k 5 "$timeout_s" $QEMU -M virt,aia=aplic-imsic -cpu rv64,h=true,sscofpmf=true,smaia=true,ssaia=true,pmu-mask=0xfffffff8 \
	-smp "$smp" -m "$mem" -bios "$BIOS" \
	-nodefaults -no-user-config -display none -no-reboot \
	-kernel "$KDIR/Image" -initrd "$run/initrd" \
	-append "console=ttyS0 $([ -n "$debug" ] && echo loglevel=7 || echo quiet) panic=-1 rdinit=/init vpmu_deadline=$deadline" \
	-serial "file:$run/console.log" \
	-device virtio-serial-pci,id=vs \
	-chardev "file,id=o,path=$run/stdout" -device virtserialport,bus=vs.0,chardev=o,name=vpmu.stdout \
	-chardev "file,id=e,path=$run/stderr" -device virtserialport,bus=vs.0,chardev=e,name=vpmu.stderr \
	</dev/null >"$run/qemu.log" 2>&1
qrc=$?
el=$(($(date +%s) - t0))
[ -n "$debug" ] && echo "$me: L0 ran for $el s" >&2
# the program's output, whatever happened
cat "$run/stdout"
cat "$run/stderr" >&2
con=$run/console.log
console_tail() {
	echo "$me: --- last lines of the guest console ---" >&2
	tail -n "${1:-40}" "$con" 2>/dev/null | tr -d '\r' >&2
	[ -s "$run/qemu.log" ] && { echo "$me: --- qemu ---" >&2; tail -n 10 "$run/qemu.log" >&2; }
	if [ -n "$keep" ]; then echo "$me: --- end (whole log: $con) ---" >&2
	else echo "$me: --- end (--keep keeps the log, --debug also the full boot log) ---" >&2; fi
}
if grep -q '^VPMU-TIMEOUT' "$con" 2>/dev/null; then
	echo "$me: TIMEOUT: $pname did not finish within ${timeout_s} s (killed in the guest after $(sed -n 's/^VPMU-TIMEOUT \([0-9]*\).*/\1/p' "$con") s of run time)" >&2
	exit 124
fi
rc=$(tr -d '\r' <"$con" 2>/dev/null | sed -n 's/^VPMU-EXIT \([0-9][0-9]*\)$/\1/p' | tail -n 1)
if [ -n "$rc" ]; then
	[ "$rc" -eq 0 ] || [ -z "$keep" ] || console_tail 20
	exit "$rc"
fi
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	echo "$me: TIMEOUT: the guest did not finish within ${timeout_s} s (qemu killed after ${el} s)" >&2
	console_tail
	exit 124
fi
if grep -q '^VPMU-ERROR' "$con" 2>/dev/null; then
	grep '^VPMU-ERROR' "$con" | tr -d '\r' | sed "s/^VPMU-ERROR /$me: guest: /" >&2
else
	echo "$me: the guest stopped without reporting an exit status (qemu status $qrc)" >&2
fi
console_tail
exit 125
