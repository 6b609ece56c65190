#!/bin/sh
# SPDX-License-Identifier: MIT
# make install DESTDIR=... puts exactly the headers, libraries, libvpmu.pc,
# the four programs, their manual pages and one vpmu-events-TABLE(7) page per
# event table (data/perfmon/tables.csv) under PREFIX, and make
# uninstall with the same variables removes every one of them again.
# (tests/abi.t builds programs against what is installed.)
B=${VPMU_BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
# The child make must not inherit a parent make's variables.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
version=$(make -s --no-print-directory version)
root=$tmp/root
progs="vpmu-run vpmu-trace vpmu-stat vpmu-events"
# Nothing is rebuilt: what $B holds is installed (-o: taken as up to date).
keep="-o $B/lib/libvpmu.a -o $B/lib/libvpmu.so -o $B/man/.stamp"
for p in $progs; do keep="$keep -o $B/bin/$p"; done

{
	for p in $progs; do echo "/usr/bin/$p"; done
	for h in include/vpmu/*.h; do echo "/usr/$h"; done
	echo /usr/lib/libvpmu.a; echo /usr/lib/libvpmu.so; echo /usr/lib/libvpmu.so.1
	echo "/usr/lib/libvpmu.so.$version"; echo /usr/lib/pkgconfig/libvpmu.pc
	for m in man/*.1; do echo "/usr/share/man/man1/${m#man/}"; done
	for m in man/*.3; do echo "/usr/share/man/man3/${m#man/}"; done
	sed -n '/^[a-z0-9]/{s/,.*//;/^table$/d;p}' data/perfmon/tables.csv |
		while read -r t; do echo "/usr/share/man/man7/vpmu-events-$t.7"; done
} | sort >"$tmp/want"

# shellcheck disable=SC2086 # $keep is a list of make options
make --no-print-directory -s install DESTDIR="$root" PREFIX=/usr B="$B" $keep >"$tmp/log" 2>&1
ok $? "make install DESTDIR=\$tmp PREFIX=/usr" "$tmp/log"
(cd "$root" && find . \( -type f -o -type l \) | sed 's/^\.//' | sort) >"$tmp/got"
diff "$tmp/want" "$tmp/got" >"$tmp/diff"
ok $? "exactly the headers, libraries, libvpmu.pc, programs and manual pages" "$tmp/diff"
for p in $progs; do
	[ -x "$root/usr/bin/$p" ] && cmp -s "$B/bin/$p" "$root/usr/bin/$p"
	ok $? "/usr/bin/$p is $B/bin/$p, executable"
done
# libvpmu.pc names its directories under ${prefix}: pkg-config --define-prefix
# finds the tree wherever it was moved (pkg-config(1)).
pc=$root/usr/lib/pkgconfig/libvpmu.pc
PKG_CONFIG_PATH=$root/usr/lib/pkgconfig pkg-config --define-prefix --cflags --libs libvpmu \
	>"$tmp/pc" 2>&1
grep -q '^libdir=${prefix}/lib$' "$pc" && grep -q '^includedir=${prefix}/include$' "$pc" &&
	grep -q -- "-I$root/usr/include" "$tmp/pc" && grep -q -- "-L$root/usr/lib -lvpmu" "$tmp/pc"
ok $? "libvpmu.pc is relocatable: pkg-config --define-prefix gives the moved tree's directories" "$tmp/pc"
if command -v man >/dev/null 2>&1; then
	MANPAGER=cat MANWIDTH=80 man -M "$root/usr/share/man" vpmu-trace >"$tmp/man" 2>&1 &&
		grep -q 'replay PMU register traces' "$tmp/man"
	ok $? "man -M DESTDIR/usr/share/man vpmu-trace finds the installed page" "$tmp/man"
else
	skip "man -M DESTDIR/usr/share/man vpmu-trace finds the installed page" "no man (scripts/install-deps installs man-db)"
fi

# shellcheck disable=SC2086
make --no-print-directory -s uninstall DESTDIR="$root" PREFIX=/usr B="$B" $keep >"$tmp/log" 2>&1
ok $? "make uninstall DESTDIR=\$tmp PREFIX=/usr" "$tmp/log"
(cd "$root" && find . \( -type f -o -type l \)) >"$tmp/left"
[ ! -s "$tmp/left" ]; ok $? "make uninstall left no file behind" "$tmp/left"
[ ! -e "$root/usr/include/vpmu" ]; ok $? "nor /usr/include/vpmu"
echo "1..$n"
