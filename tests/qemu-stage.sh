# SPDX-License-Identifier: MIT
# What tests/qemu.t and tests/qemu-linux.t share, sourced after $tmp is set:
# the patched QEMU (scripts/qemu-build) and this checkout's libvpmu.so.1, and
# their staging into the nested tier, whose guest has only busybox: QEMU with
# the shared libraries it needs (ldd), the loader, and the firmware it loads
# (SeaBIOS, the option ROMs for -kernel), next to the program kvm-env runs.
#
#   qemu_build               $qemu (the binary) and $qemu_lib (a directory with
#                            libvpmu.so.1), or a failed ok case and status 1
#   qemu_stage DIR           copies QEMU, libvpmu.so.1 and the firmware into DIR,
#                            and prints the kvm-env --file options that stage
#                            them with the libraries and the loader
#   $QEMU_RUN                the command line that runs the staged QEMU inside,
#                            under KVM, without devices or display, and without
#                            the kvmvapic option ROM: its TPR patching of a
#                            32-bit guest on an Intel CPU makes the L0's TCG
#                            abort ("invalid tss type") when the L2 Linux starts
#                            its first process (a fault of the nested tier's,
#                            docs/qemu.md; TPR patching is for Windows XP guests)
#   $QEMU_EXIT               the exit port a guest ends QEMU with, writing N to
#                            port 0xF4 (isa-debug-exit: status (N << 1) | 1)

qemu_build() {
	dir=$(scripts/qemu-build 2>"$tmp/build.err")
	qemu=${dir:+$dir/bin/qemu-system-x86_64}
	[ -n "$qemu" ] && [ -x "$qemu" ]
	ok $? "scripts/qemu-build: qemu-system-x86_64 with vpmu (${dir:-nothing})" "$tmp/build.err"
	make -s --no-print-directory B=build lib >"$tmp/lib.err" 2>&1
	lib=build/lib/libvpmu.so
	qemu_lib=$tmp/qemu-lib
	mkdir -p "$qemu_lib" && [ -f "$lib" ] && cp "$lib" "$qemu_lib/libvpmu.so.1" &&
		objdump -p "$lib" | grep -q 'SONAME *libvpmu.so.1$' &&
		LD_LIBRARY_PATH=$qemu_lib ldd "$qemu" 2>/dev/null | grep -q "libvpmu.so.1 => $qemu_lib/libvpmu.so.1 "
	ok $? "it links libvpmu.so.1, this checkout's (make B=build lib)" "$tmp/lib.err"
	[ -n "$qemu" ] && [ -x "$qemu" ] && [ -f "$qemu_lib/libvpmu.so.1" ]
}

qemu_stage() { # DIR
	mkdir -p "$1" &&
		cp "$qemu" "$qemu_lib/libvpmu.so.1" /usr/share/seabios/bios-256k.bin \
			/usr/share/qemu/multiboot_dma.bin /usr/share/qemu/linuxboot_dma.bin \
			/usr/share/qemu/kvmvapic.bin "$1/" || return 1
	# libvpmu's own libraries (libxxhash) come with it: ldd with it found.
	for l in $(LD_LIBRARY_PATH=$qemu_lib ldd "$qemu" | awk '$3 ~ /^\// && $1 !~ /^libvpmu/ { print $3 }') \
		/lib64/ld-linux-x86-64.so.2 "$1"/*; do
		printf ' --file %s' "$l"
	done
}

QEMU_RUN="./ld-linux-x86-64.so.2 --library-path . ./qemu-system-x86_64 -L . -accel kvm -nodefaults -display none -no-reboot -monitor none -global apic-common.vapic=off"
QEMU_EXIT="-device isa-debug-exit,iobase=0xf4,iosize=4"
