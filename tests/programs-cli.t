#!/bin/sh
# SPDX-License-Identifier: MIT
# The conventions every program keeps (GNU Coding Standards, 4.8 "Standards
# for Command Line Interfaces"; docs/testing.md): --help prints the usage on
# stdout and exits 0; --version prints "PROG (vpmu) VERSION" and the licence
# and exits 0; a --help that cannot be written fails; a usage error names the
# offending option, ends with "Try 'PROG --help' for more information." on
# stderr, leaves stdout empty and exits 2; an option's value may follow it as
# the next argument or after '='.
B=${VPMU_BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
version=$(make -s --no-print-directory version)

for p in vpmu-run vpmu-trace vpmu-stat vpmu-events; do
	P=$B/bin/$p
	"$P" --help >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 0 ] && head -n 1 "$tmp/out" | grep -q "^Usage: $p " && [ ! -s "$tmp/err" ] &&
		grep -q -- '--version' "$tmp/out"
	ok $? "$p --help: the usage on stdout, status 0, nothing on stderr" "$tmp/out"
	! awk 'length > 79' "$tmp/out" | grep -q .
	ok $? "$p --help: every line fits 79 columns" "$tmp/out"
	"$P" -h >"$tmp/out2" 2>&1
	cmp -s "$tmp/out" "$tmp/out2"; ok $? "$p -h is --help"
	if [ -w /dev/full ]; then
		"$P" --help >/dev/full 2>"$tmp/err"; rc=$?
		[ $rc -eq 1 ] && grep -q "^$p: write error" "$tmp/err"
		ok $? "$p --help >/dev/full: status 1, 'write error' (status $rc)" "$tmp/err"
	else
		skip "$p --help >/dev/full fails" "no /dev/full"
	fi

	"$P" --version >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 0 ] && [ "$(head -n 1 "$tmp/out")" = "$p (vpmu) $version" ] &&
		grep -q '^License MIT' "$tmp/out" && [ ! -s "$tmp/err" ]
	ok $? "$p --version: '$p (vpmu) $version' and the MIT licence, status 0" "$tmp/out"

	"$P" --frobnicate >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] &&
		[ "$(sed -n 1p "$tmp/err")" = "$p: unrecognized option '--frobnicate'" ] &&
		[ "$(tail -n 1 "$tmp/err")" = "Try '$p --help' for more information." ]
	ok $? "$p --frobnicate: named, then the Try line; status 2 (status $rc)" "$tmp/err"
	"$P" -Z >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "^$p: invalid option -- 'Z'$" "$tmp/err" &&
		grep -q "^Try '$p --help'" "$tmp/err"
	ok $? "$p -Z: named, then the Try line; status 2 (status $rc)" "$tmp/err"
done

# An option that wants a value and has none.
for p in vpmu-run vpmu-trace vpmu-stat; do
	"$B/bin/$p" --output >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "^$p: option '--output' requires an argument$" "$tmp/err" &&
		grep -q "^Try '$p --help'" "$tmp/err"
	ok $? "$p --output without FILE: named, status 2 (status $rc)" "$tmp/err"
done

# vpmu-events: '--' and --version are not model names; model names in any case;
# an unknown one lists the models.
E=$B/bin/vpmu-events
"$E" >"$tmp/list" 2>&1
"$E" -- >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && cmp -s "$tmp/list" "$tmp/out"; ok $? "vpmu-events --: the model list (status $rc)" "$tmp/err"
"$E" P6 >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q '^model p6: ' "$tmp/out"; ok $? "vpmu-events P6 is p6 (status $rc)" "$tmp/err"
"$E" p6 pentium9 >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "unknown model 'pentium9'; the models are: .* p6 .* zen4" "$tmp/err" &&
	grep -q "^Try 'vpmu-events --help'" "$tmp/err"
ok $? "vpmu-events pentium9: a usage error listing the models, nothing printed (status $rc)" "$tmp/err"

# What vpmu-events lists is what a VM of the model's default identity has.
"$E" c3 >"$tmp/out" 2>"$tmp/err"
grep -q '^  counters: 1 x 32 bits (counter 1), overflow interrupts: no$' "$tmp/out"
ok $? "vpmu-events c3: one counter, counter 1 (PERFCTR1), as its description says" "$tmp/out"
"$E" p4-em64t >"$tmp/out" 2>"$tmp/err" && "$E" p4 >"$tmp/p4" 2>>"$tmp/err"
[ $? -eq 0 ] && ! grep -E -q '^    0x3b[ab] ' "$tmp/out" && [ "$(grep -E -c '^    0x3b[ab] ' "$tmp/p4")" -eq 2 ]
ok $? "vpmu-events p4-em64t lists no IQ_ESCR0/1 (0x3ba, 0x3bb), which its CPU lacks; p4 lists both" "$tmp/out"
# vpmu-events MODEL lists exactly the events of its table's data files, with
# their names and encodings; --json gives the same to tools.  Checked against
# data/perfmon itself (tables.csv and the JSON files), not copied output.
check_events() {
	"$E" --json "$1" >"$tmp/json" 2>"$tmp/err" && "$E" "$1" >"$tmp/text" 2>>"$tmp/err" &&
	${PYTHON:-python3} - "$1" "$tmp/json" "$tmp/text" >"$tmp/py" 2>&1 <<'PY'
import csv, json, sys
model, jpath, tpath = sys.argv[1:]
got = json.load(open(jpath))[0]
rows = [r for r in csv.DictReader(l for l in open('data/perfmon/tables.csv') if not l.startswith('#'))
        if r['table'] == got['table']]
assert len(rows) == 1, 'table %s in tables.csv' % got['table']
want = []
for f in rows[0]['files'].split():
    if f.endswith(':generic'):
        continue
    d = json.load(open('data/perfmon/' + f))
    for e in (d['Events'] if isinstance(d, dict) else d):
        if 'EventCode' in e and 'MetricName' not in e:
            want.append(e)
assert len(want) == len(got['events']), '%d events in the data, %d listed' % (len(want), len(got['events']))
for w, g in zip(want, got['events']):
    assert w['EventName'] == g['name'], (w['EventName'], g['name'])
    assert int(w['EventCode'].split(',')[0], 16) == g['event'], w['EventName']
    assert int(w.get('UMask', '0'), 16) == g['umask'], w['EventName']
    assert int(w.get('CounterMask', '0')) == g['cmask'], w['EventName']
    assert int(w.get('MSRValue', '0'), 16) == g['msr_value'], w['EventName']
    assert (w.get('Invert', '0') == '1') == g['inv'], w['EventName']
    assert (w.get('EdgeDetect', '0') == '1') == g['edge'], w['EventName']
# The text listing: the same names, in the same order, after "events (".
lines = open(tpath).read().split('\n')
i = next(k for k, l in enumerate(lines) if l.startswith('  events ('))
import re
names = [re.match(r'    (.*?) +(event=|fixed counter)', l).group(1) for l in lines[i + 1:] if l.startswith('    ')]
assert names == [w['EventName'] for w in want], 'the text listing differs'
print('%s: %d events' % (model, len(want)))
PY
}
for m in skylake sapphirerapids nehalem icelake zen4 zen1 p6 k8 6x86mx c3 p4; do
	check_events $m
	ok $? "vpmu-events $m and --json $m: exactly the events of its data, names and encodings" "$tmp/py"
done
"$E" skylake INST_RETIRED.ANY_P >"$tmp/out" 2>"$tmp/err" &&
	grep -q '^skylake INST_RETIRED.ANY_P$' "$tmp/out" &&
	grep -q '^  encoding: event=0xc0,umask=0x00 ' "$tmp/out" && grep -q '^  counters: 0-3$' "$tmp/out" &&
	grep -q '^  description: Number of instructions retired' "$tmp/out"
ok $? "vpmu-events skylake INST_RETIRED.ANY_P: encoding, counters, description" "$tmp/out"
"$E" skylake --decode 0x5300c0 >"$tmp/out" 2>"$tmp/err" &&
	grep -q '^skylake: 0x5300c0 is INST_RETIRED.ANY_P$' "$tmp/out"
ok $? "vpmu-events skylake --decode 0x5300c0: INST_RETIRED.ANY_P" "$tmp/out"
"$E" --json icelake --decode 0x4300c0 >"$tmp/out" 2>"$tmp/err" &&
	${PYTHON:-python3} -c 'import json,sys; e=json.load(open(sys.argv[1]))[0]["events"]; assert [x["name"] for x in e] == ["INST_RETIRED.ANY_P"]' "$tmp/out"
ok $? "vpmu-events --json icelake --decode 0x4300c0: one event, INST_RETIRED.ANY_P" "$tmp/out"
"$E" skylake --decode 0x15300c0 >"$tmp/out" 2>"$tmp/err" &&
	grep -q '^skylake: 0x15300c0 is INST_RETIRED.ANY_P$' "$tmp/out" &&
	grep -q '^  note: 0x15300c0 also sets modifiers .*bits 0x1000000)$' "$tmp/out"
ok $? "vpmu-events skylake --decode 0x15300c0: INST_RETIRED.ANY_P, and the counter mask it adds" "$tmp/out"
"$E" skylake --decode 0x53ffee >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q 'no event of table skylake' "$tmp/err"
ok $? "vpmu-events skylake --decode 0x53ffee: no such event, status 1 (status $rc)" "$tmp/err"
"$E" skylake NO_SUCH_EVENT >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ]
ok $? "vpmu-events skylake NO_SUCH_EVENT: a usage error, nothing printed (status $rc)" "$tmp/err"
"$E" --decode 0xc0 >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- '--decode needs a MODEL' "$tmp/err"
ok $? "vpmu-events --decode without a MODEL: a usage error (status $rc)" "$tmp/err"
echo "1..$n"
