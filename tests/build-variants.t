#!/bin/sh
# SPDX-License-Identifier: MIT
# The build as packagers and users run it, in a scratch build directory:
#   make lib      the library alone: libvpmu.a and libvpmu.so, no program or tool
#                 object, and a shared library that needs only libxxhash and libc
#                 (json-c, libmicrohttpd and libvirt are the programs');
#   make CC=clang everything `make` builds, with clang and -Werror: no warning.
. tests/tap.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# The child make must not inherit a parent make's command-line variables.
unset MAKEFLAGS MFLAGS MAKELEVEL

make -j2 --no-print-directory B="$tmp/lib" lib >"$tmp/lib.log" 2>&1
st=$?
ok $st "make lib builds" "$tmp/lib.log"
{
	ls -R "$tmp/lib"
	echo "NEEDED:"
	readelf -d "$tmp/lib/lib/libvpmu.so" 2>&1 | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
} >"$tmp/lib.out"
[ $st -eq 0 ] && [ -f "$tmp/lib/lib/libvpmu.a" ] && [ -f "$tmp/lib/lib/libvpmu.so" ] &&
	[ ! -d "$tmp/lib/bin" ] && [ ! -d "$tmp/lib/obj/tools" ] &&
	! grep -E -q -- '-l(json-c|microhttpd|virt)' "$tmp/lib.log" &&
	[ "$(sed -n '/^NEEDED:/,$p' "$tmp/lib.out" | sed 1d | grep -v -x -e 'libxxhash\.so\.[0-9]*' -e 'libc\.so\.6')" = "" ]
ok $? "make lib: libvpmu.a and libvpmu.so only, NEEDED only libxxhash and libc" "$tmp/lib.out"

if command -v clang >/dev/null; then
	make -j2 --no-print-directory B="$tmp/clang" CC=clang all >"$tmp/clang.log" 2>&1
	st=$?
	grep -i 'warning:' "$tmp/clang.log" >"$tmp/clang.warn"
	[ $st -eq 0 ] && [ ! -s "$tmp/clang.warn" ]
	ok $? "make CC=clang builds everything make builds, without a warning" "$tmp/clang.log"
else
	ok 1 "clang is installed (scripts/install-deps)"
fi
echo "1..$n"
