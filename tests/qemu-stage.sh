# SPDX-License-Identifier: MIT
# What tests/qemu.t and tests/qemu-linux.t share, sourced after $tmp is set:
# the patched QEMU (scripts/qemu-build) and this checkout's libvpmu.so.1, and
# their staging into the nested tier (scripts/lib/qemu-stage.sh: qemu_stage,
# $QEMU_RUN, $QEMU_EXIT).
#
#   qemu_build               $qemu (the binary) and $qemu_lib (a directory with
#                            libvpmu.so.1), two ok cases; status 1 if either fails
#   qemu_stage_here DIR      qemu_stage of those into DIR

# shellcheck source=scripts/lib/qemu-stage.sh
. scripts/lib/qemu-stage.sh

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

qemu_stage_here() { qemu_stage "$qemu" "$qemu_lib" "$1"; }
