#!/bin/sh
# SPDX-License-Identifier: MIT
# The version is written once, in include/vpmu/version.h: the Makefile's
# VERSION (make -s version), the macros, the string a program compiled against
# the header sees and the one libvpmu returns (vpmu_version()) must agree.
B=${VPMU_BUILD:-build}
CC=${CC:-cc}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh

mk=$(make -s --no-print-directory version)
echo "$mk" | grep -q -E '^[0-9]+\.[0-9]+\.[0-9]+$'; ok $? "make -s version prints MAJOR.MINOR.PATCH ($mk)"

cat >"$tmp/v.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <vpmu/vpmu.h>

int main(void)
{
	char parts[64];
	snprintf(parts, sizeof(parts), "%d.%d.%d", VPMU_VERSION_MAJOR, VPMU_VERSION_MINOR,
		 VPMU_VERSION_PATCH);
	printf("%s %s %s %d\n", parts, VPMU_VERSION_STRING, vpmu_version(),
	       VPMU_VERSION_NUMBER >= VPMU_VERSION_AT(1, 0, 0));
	return 0;
}
C
# The library of a sanitizer build wants the program linked with the same flags.
san=
nm "$B/lib/libvpmu.a" 2>/dev/null | grep -q __asan_ && san="-fsanitize=address,undefined"
$CC -std=c11 -Wall -Wextra -Werror -pedantic $san -Iinclude -o "$tmp/v" "$tmp/v.c" \
	"$B/lib/libvpmu.a" -lxxhash -lpthread >"$tmp/cc.log" 2>&1
ok $? "a program includes vpmu/vpmu.h (-std=c11 -pedantic) and links $B/lib/libvpmu.a" "$tmp/cc.log"
"$tmp/v" >"$tmp/out" 2>&1
[ "$(cat "$tmp/out")" = "$mk $mk $mk 1" ]
ok $? "MAJOR.MINOR.PATCH, VPMU_VERSION_STRING and vpmu_version() are $mk; VPMU_VERSION_AT compares" "$tmp/out"
grep -q "^VERSION *:*= *[0-9]" Makefile
[ $? -ne 0 ]; ok $? "the Makefile writes no version of its own (it reads version.h)"
echo "1..$n"
