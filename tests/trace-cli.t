#!/bin/sh
# vpmu-trace's command line (docs/trace.md "Running vpmu-trace"): usage and
# exit status (0 all pass, 1 any failure, 2 usage), TAP output with and without
# -v, and failed expectations reported as FILE:LINE: expected X, got Y.
# tests/failing-traces/*.trace are valid traces with failing expectations; each
# names its failing lines in "# must-fail: LINE: got TEXT" comments (TEXT is
# the end of the message; "TEXT..." only its start, for values such as ids that
# a trace cannot know).
B=${VPMU_BUILD:-build}
T="$B/bin/vpmu-trace"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { # ok COND-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
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

echo "1..$((19 + 3 * nfailing))"

run
[ $rc -eq 2 ]; ok $? "no arguments: exit 2"
grep -q '^usage: vpmu-trace' "$tmp/err"; ok $? "no arguments: usage on stderr"
[ ! -s "$tmp/out" ]; ok $? "no arguments: nothing on stdout"

run -x "$good1"
[ $rc -eq 2 ] && grep -q "unknown option '-x'" "$tmp/err"; ok $? "unknown option: exit 2 and named"

run -h
[ $rc -eq 0 ] && grep -q '^usage: vpmu-trace' "$tmp/out"; ok $? "-h: usage on stdout, exit 0"

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
