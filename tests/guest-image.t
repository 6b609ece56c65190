#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/guest-image (docs/testing.md, "Linux guest images"): Debian's 686 and
# amd64 kernels and the i386 busybox + perf initramfs for Linux guests, the
# workload that perf profiles in them (guest-tests/linux/workload.c) and the
# self-counting client (guest-tests/linux/selfcount.c).  Checks,
# without booting anything: the kernels are bzImages of the right kind; the
# initramfs is a gzip'ed newc cpio with /init, a static i386 busybox, an i386
# perf and, for every ELF in it, its interpreter and every NEEDED library at
# the paths ld.so searches (no ld.so.cache); the workload is a static i386 ELF
# with the symbol perf report should name, the client a static i386 ELF.  Needs the Debian mirror the first
# time (about 30 s; later runs a few seconds from the cache).
GB=${VPMU_GUEST_BUILD:-build/guest}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
bytes() { # FILE OFFSET COUNT: hex bytes, no spaces
	od -A n -t x1 -j "$2" -N "$3" "$1" 2>/dev/null | tr -d ' \n'
}
le16() { # FILE OFFSET: little-endian 16-bit value, decimal
	# shellcheck disable=SC2046 # two numbers, split on purpose
	set -- $(od -A n -t u1 -j "$2" -N 2 "$1" 2>/dev/null)
	[ $# -eq 2 ] && echo $(($1 + 256 * $2))
}
machine() { # FILE: readelf's "Machine:" (empty if not an ELF)
	readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p'
}

scripts/guest-image --print >"$tmp/print" 2>"$tmp/print.err"
rc=$?
val() { sed -n "s/^$1=//p" "$tmp/print"; }
k686=$(val KERNEL_686) k64=$(val KERNEL_AMD64) initrd=$(val INITRD)
[ $rc -eq 0 ] && [ -f "$k686" ] && [ -f "$k64" ] && [ -f "$initrd" ]
ok $? "scripts/guest-image --print names three cached files (exit $rc; KERNEL_686=${k686:-none} KERNEL_AMD64=${k64:-none} INITRD=${initrd:-none})" "$tmp/print.err"
if [ $rc -ne 0 ] || [ ! -f "$k686" ] || [ ! -f "$k64" ] || [ ! -f "$initrd" ]; then
	echo "1..$n"
	exit 1
fi

# ---- the kernels: "HdrS" at 0x202, boot protocol >= 2.10 at 0x206 (what
# vpmu-run's loader needs), XLF_KERNEL_64 (bit 0 of xloadflags at 0x236) set
# only in the 64-bit one.
kernel_check() { # NAME FILE WANT-64 (1 or 0)
	m=$(bytes "$2" 514 4) v=$(le16 "$2" 518) x=$(le16 "$2" 566)
	[ "$m" = 48647253 ] && [ -n "$v" ] && [ "$v" -ge 522 ] && [ -n "$x" ] && [ $((x & 1)) -eq "$3" ]
	ok $? "the $1 kernel is a bzImage: magic 48647253 (\"HdrS\") at 0x202 (saw ${m:-nothing}), protocol >= 0x20a (saw $(printf 0x%x "${v:-0}")), XLF_KERNEL_64 $3 (saw $((${x:-0} & 1)))"
}
kernel_check 686 "$k686" 0
kernel_check amd64 "$k64" 1

# ---- the initramfs
magic=$(bytes "$initrd" 0 2)
[ "$magic" = 1f8b ]; ok $? "the initramfs is gzip'ed (magic 1f8b; saw ${magic:-nothing})"
sz=$(wc -c <"$initrd")
[ $((sz % 4)) -eq 0 ]
ok $? "its size is a multiple of 4 (an uncompressed archive appended to it must start 4-byte aligned for Linux; saw $sz bytes)"
gzip -dc "$initrd" >"$tmp/initrd.cpio" 2>"$tmp/gz.err"
rc=$?
cmagic=$(head -c 6 "$tmp/initrd.cpio" 2>/dev/null)
[ $rc -eq 0 ] && [ "$cmagic" = 070701 ]
ok $? "it decompresses to a newc cpio (gzip status 0, magic 070701; saw $rc, ${cmagic:-nothing})" "$tmp/gz.err"
R=$tmp/root
mkdir "$R" && (cd "$R" && busybox cpio -i -d <"$tmp/initrd.cpio") >"$tmp/cpio.err" 2>&1
ok $? "busybox cpio unpacks it" "$tmp/cpio.err"

inroot() { # PATH: the file PATH names inside $R, through symlinks (relative or absolute); fails if none
	p=$1 i=0
	while [ -L "$R$p" ]; do
		t=$(readlink "$R$p")
		case $t in /*) p=$t ;; *) p=$(realpath -ms "${p%/*}/$t") ;; esac
		i=$((i + 1)); [ $i -lt 16 ] || return 1
	done
	[ -f "$R$p" ] && echo "$p"
}

[ -f "$R/init" ] && [ -x "$R/init" ] && head -n 1 "$R/init" | grep -q '^#!/bin/sh' &&
	[ "$(inroot /bin/sh)" = /bin/busybox ]
ok $? "/init is an executable #!/bin/sh script and /bin/sh is busybox (first line: $(head -n 1 "$R/init" 2>/dev/null); /bin/sh -> $(inroot /bin/sh || echo nothing))"
grep -q '/run\.sh' "$R/init" && grep -q 'of=/dev/port bs=1 seek=244 count=1' "$R/init" &&
	grep -q 'mount -t devtmpfs' "$R/init"
ok $? "/init mounts devtmpfs, runs /run.sh and writes its status to port 0xF4 (244) through /dev/port" "$R/init"
bbm=$(machine "$R/bin/busybox")
[ "$bbm" = "Intel 80386" ] && ! readelf -l "$R/bin/busybox" 2>/dev/null | grep -q 'program interpreter' &&
	[ -z "$(readelf -d "$R/bin/busybox" 2>/dev/null | grep NEEDED)" ]
ok $? "/bin/busybox is a static i386 ELF (want Machine Intel 80386, no interpreter, no NEEDED; saw Machine ${bbm:-none}$(readelf -l "$R/bin/busybox" 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]/, interpreter \1/p'))"
pm=$(machine "$R/usr/bin/perf")
[ "$pm" = "Intel 80386" ]; ok $? "/usr/bin/perf is an i386 ELF (saw Machine ${pm:-none: no such ELF})"

# Every ELF: i386, its interpreter present, every NEEDED soname in the first
# of ld.so's directories that has it (and that copy an i386 ELF too).
LIBDIRS="/lib/i386-linux-gnu /usr/lib/i386-linux-gnu /lib /usr/lib"
(cd "$R" && find . -type f | sed 's|^\.||' | sort) >"$tmp/files"
: >"$tmp/elfs"
while read -r f; do
	[ "$(bytes "$R$f" 0 4)" = 7f454c46 ] && echo "$f" >>"$tmp/elfs"
done <"$tmp/files"
: >"$tmp/bad"
nelf=0 nneed=0
while read -r f; do
	nelf=$((nelf + 1))
	m=$(machine "$R$f")
	[ "$m" = "Intel 80386" ] || echo "$f: want Machine Intel 80386, saw ${m:-none}" >>"$tmp/bad"
	interp=$(readelf -l "$R$f" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	if [ -n "$interp" ] && ! inroot "$interp" >/dev/null; then
		echo "$f: its interpreter $interp is not in the image" >>"$tmp/bad"
	fi
	for so in $(readelf -d "$R$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		nneed=$((nneed + 1))
		hit=''
		for d in $LIBDIRS; do
			if t=$(inroot "$d/$so"); then hit=$t; break; fi
		done
		if [ -z "$hit" ]; then
			echo "$f: NEEDED $so: want it in one of $LIBDIRS, found in none" >>"$tmp/bad"
		elif [ "$(machine "$R$hit")" != "Intel 80386" ]; then
			echo "$f: NEEDED $so resolves to $hit, not an i386 ELF" >>"$tmp/bad"
		fi
	done
done <"$tmp/elfs"
[ ! -s "$tmp/bad" ] && [ "$nelf" -ge 3 ] && [ "$nneed" -ge 10 ]
ok $? "every ELF in it ($nelf; want 3 or more) is i386 with its interpreter and all its NEEDED libraries ($nneed; want 10 or more) at the multiarch paths" "$tmp/bad"
ld=$(inroot /lib/ld-linux.so.2)
[ -n "$ld" ] && [ "$(machine "$R$ld")" = "Intel 80386" ]
ok $? "the interpreter /lib/ld-linux.so.2 is there and an i386 ELF (-> ${ld:-nothing})"
grep -qx /usr/bin/perf "$tmp/elfs" && grep -q '^/lib/i386-linux-gnu/libc\.so\.6$' "$tmp/elfs"
ok $? "the closure was computed from perf: /usr/bin/perf and libc.so.6 among the ELFs" "$tmp/elfs"

# ---- the workload
W=$GB/vpmu-workload
wm=$(machine "$W")
[ "$wm" = "Intel 80386" ] && [ "$(readelf -h "$W" 2>/dev/null | sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p')" = EXEC ] &&
	! readelf -l "$W" 2>/dev/null | grep -q 'program interpreter'
ok $? "$W is a static i386 executable (want Machine Intel 80386, EXEC, no interpreter; saw ${wm:-none: make guests builds it})"
readelf -s "$W" 2>/dev/null | awk '$4 == "FUNC" && $8 == "hot_crc_loop" { f = 1 } END { exit !f }'
ok $? "$W has the function symbol hot_crc_loop (for perf report; saw functions: $(readelf -s "$W" 2>/dev/null | awk '$4 == "FUNC" { printf "%s ", $8 }' | sed 's/ $//; s/^$/none/'))"

# ---- the self-counting client (guest-tests/linux/selfcount.c)
S=$GB/vpmu-selfcount
sm=$(machine "$S")
[ "$sm" = "Intel 80386" ] && [ "$(readelf -h "$S" 2>/dev/null | sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p')" = EXEC ] &&
	! readelf -l "$S" 2>/dev/null | grep -q 'program interpreter'
ok $? "$S is a static i386 executable (want Machine Intel 80386, EXEC, no interpreter; saw ${sm:-none: make guests builds it})"
echo "1..$n"
