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
keep="-o $B/lib/libvpmu.a -o $B/lib/libvpmu.so -o $B/man/.stamp -o $B/lib/libvpmu-acct-libvirt.a"
for p in $progs; do keep="$keep -o $B/bin/$p"; done

{
	for p in $progs; do echo "/usr/bin/$p"; done
	for h in include/vpmu/*.h; do echo "/usr/$h"; done
	echo /usr/lib/libvpmu.a; echo /usr/lib/libvpmu.so; echo /usr/lib/libvpmu.so.1
	echo "/usr/lib/libvpmu.so.$version"; echo /usr/lib/pkgconfig/libvpmu.pc
	echo /usr/lib/libvpmu-acct-libvirt.a; echo /usr/lib/pkgconfig/libvpmu-acct-libvirt.pc
	echo /usr/include/vpmu-acct/accounting/acct_snapshot.h
	echo /usr/include/vpmu-acct/accounting/libvirt/acct_typed_params.h
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
# The libvirt helper library, as a libvirt driver or VMM would use it: a VM's
# accounting collected and turned into typed parameters, built with
# pkg-config --cflags --libs libvpmu-acct-libvirt against what was installed.
cat >"$tmp/acct.c" <<'EOC'
#include <stdio.h>
#include <vpmu/backend.h>
#include <vpmu/vpmu.h>
#include <accounting/libvirt/acct_typed_params.h>

int main(void)
{
	struct vpmu_sim *sim;
	struct vpmu_backend be;
	struct vpmu_host *host;
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v;
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct acct_vm snap;
	virTypedParameterPtr p = NULL;
	int n = 0;
	const char *model = NULL;
	cfg.model = "k7";
	if (vpmu_sim_create(1, &sim) || (vpmu_sim_backend(sim, &be), vpmu_host_create(&be, 1, &host)) ||
	    vpmu_vm_create(host, &cfg, &vm) || vpmu_vcpu_create(vm, 0, &v) ||
	    acct_collect(&snap, "dom1", vm, host, NULL) || acct_typed_params(&snap, &p, &n))
		return 1;
	virTypedParamsGetString(p, n, "vpmu.model", &model);
	printf("%d parameters, vpmu.model=%s\n", n, model ? model : "none");
	virTypedParamsFree(p, n);
	acct_vm_release(&snap);
	vpmu_vm_destroy(vm);
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return 0;
}
EOC
san=
nm "$B/lib/libvpmu.a" 2>/dev/null | grep -q __asan_ && san="-fsanitize=address,undefined"
# shellcheck disable=SC2046 # pkg-config's words
PKG_CONFIG_SYSROOT_DIR= PKG_CONFIG_PATH=$root/usr/lib/pkgconfig \
	${CC:-cc} -std=c11 -Wall -Wextra -Werror $san -o "$tmp/acct" "$tmp/acct.c" \
	$(PKG_CONFIG_PATH=$root/usr/lib/pkgconfig pkg-config --define-prefix --cflags --libs --static \
		libvpmu-acct-libvirt) >"$tmp/acct.log" 2>&1 &&
	LD_LIBRARY_PATH=$root/usr/lib "$tmp/acct" >>"$tmp/acct.log" 2>&1 && grep -q '^[1-9][0-9]* parameters, vpmu.model=k7$' "$tmp/acct.log"
ok $? "libvpmu-acct-libvirt: a program built with its pkg-config file makes a VM's typed parameters" "$tmp/acct.log"
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
