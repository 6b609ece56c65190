#!/bin/sh
# SPDX-License-Identifier: MIT
# vpmu-trace's command line (docs/trace.md "Running vpmu-trace"): usage and
# exit status (0 all pass, 1 any failure, 2 usage), TAP output with and without
# -v, and failed expectations reported as FILE:LINE: expected X, got Y; the
# limits on file size and line length (docs/trace.md "Limits"), for LF and CRLF
# files alike, and CRLF files replayed exactly as LF ones.
# tests/failing-traces/*.trace are valid traces with failing expectations; each
# names its failing lines in "# must-fail: LINE: got TEXT" comments (TEXT is
# the end of the message; "TEXT..." only its start, for values such as ids that
# a trace cannot know).
B=${VPMU_BUILD:-build}
T="$B/bin/vpmu-trace"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
run() { # run ARGS...: stdout in $tmp/out, stderr in $tmp/err, status in $rc
	"$T" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
}
# The expectations in a trace, counted from the contract: wrmsr/mtspr, rdmsr/
# mfspr (not '*'), expect-* (not '*'), sbi.
expectations() {
	sed 's/#.*//' "$@" | awk '
		$1 ~ /^(wrmsr|mtspr|sbi|expect-pmi|expect-no-pmi|expect-id-equal|expect-id-differ)$/ { n++ }
		$1 ~ /^(rdmsr|mfspr)$/ && $3 != "*" { n++ }
		$1 ~ /^expect-host-ctrl?-writes$/ && $2 != "*" { n++ }
		END { print n + 0 }'
}
good1=tests/traces/core/reset-values.trace
good2=tests/traces/core/pmi.trace
bad=tests/bad-traces/unknown-directive.trace
failing=$(ls tests/failing-traces/*.trace)
nfailing=$(echo "$failing" | wc -l)

echo "1..$((35 + 3 * nfailing))"

run
[ $rc -eq 2 ]; ok $? "no arguments: exit 2"
grep -q '^vpmu-trace: no trace FILE given$' "$tmp/err" && grep -q "^Try 'vpmu-trace --help'" "$tmp/err"
ok $? "no arguments: the cause and the Try line on stderr"
[ ! -s "$tmp/out" ]; ok $? "no arguments: nothing on stdout"

run -x "$good1"
[ $rc -eq 2 ] && grep -q "invalid option -- 'x'" "$tmp/err"; ok $? "unknown option: exit 2 and named"

run -h
[ $rc -eq 0 ] && grep -q '^Usage: vpmu-trace' "$tmp/out"; ok $? "-h: usage on stdout, exit 0"

# FILE - is standard input; an empty trace checks nothing and is no pass.
"$T" - <"$good1" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q '^ok 1 - - ([1-9][0-9]* checks)$' "$tmp/out"; ok $? "- reads the trace from standard input" "$tmp/out"
: >"$tmp/empty.trace"
run "$tmp/empty.trace"
[ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "$tmp/empty.trace: error: empty trace" ] &&
	grep -q "^not ok 1 - $tmp/empty.trace (0 checks, empty trace)$" "$tmp/out"
ok $? "an empty file: FILE: error: empty trace, not ok, exit 1" "$tmp/out"
run -v "$tmp/empty.trace"
[ $rc -eq 1 ] && grep -q "^not ok 1 - $tmp/empty.trace: empty trace$" "$tmp/out"; ok $? "-v: an empty file is a not ok line" "$tmp/out"

# --accounting takes its format after '=' or as the next argument, and is
# --accounting=text alone; --output wants --accounting.
run --accounting=text "$good1"; cp "$tmp/out" "$tmp/eq.out"
run --accounting text "$good1"
[ $rc -eq 0 ] && cmp -s "$tmp/eq.out" "$tmp/out" && grep -q '^VM ' "$tmp/out"
ok $? "--accounting text is --accounting=text" "$tmp/out"
run --accounting "$good1"
[ $rc -eq 0 ] && cmp -s "$tmp/eq.out" "$tmp/out"; ok $? "--accounting alone is text" "$tmp/out"
run --accounting xml "$good1"
[ $rc -eq 1 ] && grep -q "^xml: error: cannot read" "$tmp/err"; ok $? "--accounting xml: xml is no format, so a FILE" "$tmp/err"
run -o "$tmp/acct.txt" "$good1"
[ $rc -eq 2 ] && grep -q -- '--output is where the accounting goes: give --accounting too' "$tmp/err"
ok $? "--output without --accounting: usage error" "$tmp/err"

run "$tmp/missing.trace"
[ $rc -eq 1 ]; ok $? "missing file: exit 1"
grep -q "^$tmp/missing.trace: error: cannot read: " "$tmp/err"; ok $? "missing file: FILE: error: cannot read"
grep -q "^not ok 1 - $tmp/missing.trace" "$tmp/out" && grep -q '^1\.\.1$' "$tmp/out"; ok $? "missing file: a not ok TAP line"

run "$good1" "$good2"
[ $rc -eq 0 ]; ok $? "passing traces: exit 0"
[ "$(sed -n 1p "$tmp/out")" = "1..2" ] && grep -q "^ok 1 - $good1 " "$tmp/out" &&
	grep -q "^ok 2 - $good2 " "$tmp/out" && [ "$(wc -l <"$tmp/out")" -eq 3 ]
ok $? "one TAP line per file, plan first"
[ ! -s "$tmp/err" ]; ok $? "passing traces: nothing on stderr"

# -v: one line per expectation, numbered on across files, plan last.
e1=$(expectations "$good1"); e2=$(expectations "$good2")
run -v "$good1" "$good2"
[ $rc -eq 0 ]; ok $? "-v passing traces: exit 0"
[ "$(grep -c "^ok [0-9]* - $good1:[0-9]*: " "$tmp/out")" -eq "$e1" ] &&
	[ "$(grep -c "^ok [0-9]* - $good2:[0-9]*: " "$tmp/out")" -eq "$e2" ]
ok $? "-v: one ok line per expectation ($e1 + $e2)"
seq 1 $((e1 + e2)) >"$tmp/want"
grep '^ok' "$tmp/out" | cut -d' ' -f2 >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got"; ok $? "-v: numbers run 1..$((e1 + e2)) across both files"
[ "$(tail -n 1 "$tmp/out")" = "1..$((e1 + e2))" ]; ok $? "-v: plan 1..$((e1 + e2)) last"

run "$good1" "$bad" "$good2"
[ $rc -eq 1 ] && grep -q "^not ok 2 - $bad" "$tmp/out" && grep -q "^ok 3 - $good2" "$tmp/out"
ok $? "a malformed trace fails its file and the run goes on (exit 1)"
run -v "$bad"
[ $rc -eq 1 ] && grep -q "^not ok 1 - $bad: malformed trace" "$tmp/out" && grep -q "^$bad:3: error: " "$tmp/err"
ok $? "-v: a malformed trace is a not ok line"

run -- "$good1"
[ $rc -eq 0 ]; ok $? "-- ends the options"

# The file-size limit: 128 MiB less one byte is read, 128 MiB is not.  The
# files are sparse (all NUL bytes, so the one that is read is one over-long line).
dd if=/dev/null of="$tmp/max.trace" bs=1 seek=134217727 2>/dev/null
dd if=/dev/null of="$tmp/big.trace" bs=1048576 seek=128 2>/dev/null
run "$tmp/max.trace"
[ $rc -eq 1 ] && grep -q "^$tmp/max.trace:1: error: line too long" "$tmp/err" &&
	! grep -q 'cannot read' "$tmp/err"
ok $? "a file of 134217727 bytes is read and replayed"
rm -f "$tmp/max.trace"
run "$tmp/big.trace"
[ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "$tmp/big.trace: error: cannot read: larger than 134217727 bytes, the limit of a trace file" ]
ok $? "a file of 134217728 bytes: exit 1, FILE: error: cannot read: larger than 134217727 bytes"
grep -q "^not ok 1 - $tmp/big.trace (0 checks, cannot read)$" "$tmp/out"; ok $? "too large a file: a not ok TAP line"
rm -f "$tmp/big.trace"

# The line-length limit: 4095 characters, not counting "\n" or "\r\n".
longline() { # longline LENGTH EOL: a trace whose line 3 is LENGTH characters
	awk -v n="$1" -v eol="$2" 'BEGIN {
		s = "run-on 0 #"; while (length(s) < n) s = s "x"
		printf "vm a model=p6%svcpu 0%s%s%srdmsr 0xc1 0%s", eol, eol, s, eol, eol }'
}
for eol in lf crlf; do
	if [ $eol = lf ]; then e='\n'; else e='\r\n'; fi
	longline 4095 "$e" >"$tmp/max-$eol.trace"
	longline 4096 "$e" >"$tmp/long-$eol.trace"
	run "$tmp/max-$eol.trace"
	[ $rc -eq 0 ] && grep -q "^ok 1 - $tmp/max-$eol.trace (1 checks)$" "$tmp/out" && [ ! -s "$tmp/err" ]
	ok $? "$eol: a line of 4095 characters is accepted"
	run "$tmp/long-$eol.trace"
	[ $rc -eq 1 ] && grep -q "^not ok 1 - $tmp/long-$eol.trace (0 checks, malformed)$" "$tmp/out" &&
		[ "$(cat "$tmp/err")" = "$tmp/long-$eol.trace:3: error: line too long (more than 4095 characters)" ]
	ok $? "$eol: a line of 4096 characters: exit 1, FILE:3: error: line too long"
done

# A CRLF file replays exactly as its LF original (same TAP, diagnostics, accounting).
awk '{ printf "%s\r\n", $0 }' "$good2" >"$tmp/crlf.trace"
grep -q "$(printf '\r')\$" "$tmp/crlf.trace"; ok $? "the CRLF copy of $good2 has CRLF line endings"
run -v --accounting "$good2"
sed "s|$good2|FILE|g" "$tmp/out" >"$tmp/lf.out"; sed "s|$good2|FILE|g" "$tmp/err" >"$tmp/lf.err"; lfrc=$rc
run -v --accounting "$tmp/crlf.trace"
sed "s|$tmp/crlf.trace|FILE|g" "$tmp/out" >"$tmp/crlf.out"; sed "s|$tmp/crlf.trace|FILE|g" "$tmp/err" >"$tmp/crlf.err"
[ $rc -eq 0 ] && [ $lfrc -eq 0 ] && cmp -s "$tmp/lf.out" "$tmp/crlf.out" && cmp -s "$tmp/lf.err" "$tmp/crlf.err" &&
	[ "$(grep -c '^ok ' "$tmp/crlf.out")" -eq "$(expectations "$good2")" ]
ok $? "the CRLF copy of $good2 replays exactly as the original"

run "$good1" $failing
[ $rc -eq 1 ]; ok $? "passing and failing traces together: exit 1"

for f in $failing; do
	run -v "$f"
	[ $rc -eq 1 ]; ok $? "$f: exit 1"
	want=$(sed -n 's/^# must-fail: *\([0-9]*\):.*/\1/p' "$f" | tr '\n' ' ')
	got=$(sed -n "s|^not ok [0-9]* - $f:\([0-9]*\): .*|\1|p" "$tmp/out" | tr '\n' ' ')
	[ -n "$want" ] && [ "$want" = "$got" ]
	ok $? "$f: -v marks exactly lines ${want}not ok (got ${got})"
	fine=0
	for line in $want; do
		# "got TEXT": the message ends so; "got TEXT...": it goes on after TEXT.
		got=$(sed -n "s/^# must-fail: *$line: *got \(.*\)/\1/p" "$f")
		case $got in
		*...) pat=", got ${got%...}" ;;
		*) pat=", got $got\$" ;;
		esac
		grep "^$f:$line: expected " "$tmp/err" | grep -q -- "$pat" || fine=1
	done
	[ "$(grep -c "^$f:[0-9]*: expected .*, got " "$tmp/err")" -eq "$(echo $want | wc -w)" ] || fine=1
	ok $fine "$f: each failure reads FILE:LINE: expected X, got Y"
done
