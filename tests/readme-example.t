#!/bin/sh
# SPDX-License-Identifier: MIT
# README.md's API example is a whole program that builds against the library
# ($VPMU_BUILD/lib/libvpmu.a and include/) with the project's warnings, runs,
# counts what the simulated host counted, and leaks nothing (ASan, where the
# build has it); and README.md's first step works as written, without root.
. tests/tap.sh
B=${VPMU_BUILD:-build}
CC=${CC:-cc}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The one C block of "## Using the library".
awk '/^## Using the library/ { s = 1 } s && /^```c$/ { c = 1; next } c && /^```$/ { exit } c' \
	README.md >"$tmp/example.c"
[ -s "$tmp/example.c" ]
ok $? "README.md has the example under 'Using the library'" "$tmp/example.c"

# A sanitizer build's archive needs the program linked with the same flags.
san=
nm "$B/lib/libvpmu.a" 2>/dev/null | grep -q __asan_ && san="-fsanitize=address,undefined"
$CC -std=c11 -Wall -Wextra -Werror $san -Iinclude -o "$tmp/example" "$tmp/example.c" \
	"$B/lib/libvpmu.a" -lxxhash -lpthread >"$tmp/cc.log" 2>&1
ok $? "it compiles with -Wall -Wextra -Werror and links against libvpmu.a" "$tmp/cc.log"
ASAN_OPTIONS=detect_leaks=1 "$tmp/example" >"$tmp/out" 2>&1
st=$?
[ $st -eq 0 ] && grep -q '^PERFCTR0 = 1000$' "$tmp/out"
ok $? "it runs: the guest's counter reads the 1000 cycles the host counted, no error, no leak (status $st)" "$tmp/out"

# The first step (## A first step, without root or KVM), on the build given.
"$B/bin/vpmu-trace" -v tests/traces/p6/linux-cycles-sampling.trace >"$tmp/first" 2>&1 &&
	grep -q '^ok 1 ' "$tmp/first" && "$B/bin/vpmu-events" p6 >>"$tmp/first" 2>&1
ok $? "the first step: vpmu-trace replays the P6 sampling trace, vpmu-events p6 lists the model" "$tmp/first"
grep -q 'build/bin/vpmu-trace -v tests/traces/p6/linux-cycles-sampling.trace' README.md
ok $? "... as README.md gives it" README.md
echo "1..$n"
