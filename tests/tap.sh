# SPDX-License-Identifier: MIT
# TAP helpers of the shell tests (tests/*.t), sourced: ". tests/tap.sh".
#   ok STATUS DESCRIPTION [FILE]  "ok N - ..." when STATUS is 0; otherwise
#                                 "not ok N - ..." and the last 30 lines of FILE
#                                 (what was seen) as comments
#   skip DESCRIPTION REASON       "ok N - DESCRIPTION # SKIP REASON"
# $n counts the cases; a test ends with: echo "1..$n".
n=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && [ -s "$3" ] && tail -n 30 "$3" | sed 's/^/# /'
	fi
}
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}
