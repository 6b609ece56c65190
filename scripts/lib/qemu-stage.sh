# SPDX-License-Identifier: MIT
# The patched QEMU in the nested tier (sourced by scripts/demo-qemu and
# tests/qemu-stage.sh).  The nested guest has only busybox: QEMU runs there
# with the shared libraries it needs (ldd, libvpmu's own included), the loader,
# and the firmware it loads (SeaBIOS, the option ROMs for -kernel), staged next
# to the program kvm-env runs.
#
#   qemu_stage QEMU LIBDIR DIR   copies QEMU, LIBDIR's libvpmu.so.1 and the
#                                firmware into DIR, and prints the kvm-env
#                                --file options that stage them with the
#                                libraries and the loader
#   $QEMU_RUN                    the command line that runs the staged QEMU
#                                inside, under KVM, without devices or display,
#                                and without the kvmvapic option ROM: its TPR
#                                patching of a 32-bit guest on an Intel CPU makes
#                                the L0's TCG abort ("invalid tss type") when the
#                                L2 Linux starts its first process (a fault of
#                                the nested tier's, docs/qemu.md; TPR patching is
#                                for Windows XP guests)
#   $QEMU_EXIT                   the exit port a guest ends QEMU with, writing N
#                                to port 0xF4 (isa-debug-exit: status (N << 1) | 1)

qemu_stage() { # QEMU LIBDIR DIR
	mkdir -p "$3" &&
		cp "$1" "$2/libvpmu.so.1" /usr/share/seabios/bios-256k.bin \
			/usr/share/qemu/multiboot_dma.bin /usr/share/qemu/linuxboot_dma.bin \
			/usr/share/qemu/kvmvapic.bin "$3/" || return 1
	for l in $(LD_LIBRARY_PATH=$2 ldd "$1" | awk '$3 ~ /^\// && $1 !~ /^libvpmu/ { print $3 }') \
		/lib64/ld-linux-x86-64.so.2 "$3"/*; do
		printf ' --file %s' "$l"
	done
}

QEMU_RUN="./ld-linux-x86-64.so.2 --library-path . ./qemu-system-x86_64 -L . -accel kvm -nodefaults -display none -no-reboot -monitor none -global apic-common.vapic=off"
QEMU_EXIT="-device isa-debug-exit,iobase=0xf4,iosize=4"
