#!/bin/sh
# SPDX-License-Identifier: MIT
# Malformed traces (tests/bad-traces/*.trace) must fail, naming FILE:LINE.
# Each file states the line of its error in a comment "# error-line: N".
B=${VPMU_BUILD:-build}
set -- tests/bad-traces/*.trace
echo "1..$#"
n=0
for f in "$@"; do
	n=$((n + 1))
	want=$(sed -n 's/^# error-line: *\([0-9]*\).*/\1/p' "$f")
	out=$("$B/bin/vpmu-trace" "$f" 2>&1); rc=$?
	if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q "^$f:$want: error:"; then
		echo "ok $n - $f fails at line $want"
	else
		echo "not ok $n - $f (rc $rc, wanted an error at line $want)"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
done
