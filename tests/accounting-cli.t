#!/bin/sh
# SPDX-License-Identifier: MIT
# vpmu-trace --accounting=FORMAT (docs/accounting.md): every format of one
# replayed trace, tests/accounting/two-vcpus.trace, whose counts the trace
# itself sets (ticks): vCPU 0 counts 5000 cycles and 1234 instructions and
# breaks cpl-none once, vCPU 1 counts 700 cycles.  Each format is parsed back
# as it leaves the program, with nothing taken out: the Prometheus text by
# promtool (Debian's prometheus package), JSON by Perl's JSON::PP (strict
# RFC 8259; perl is a dependency already) and the text formats by their lines.
# A domstats, prometheus or json document on stdout is alone there (the TAP
# goes to stderr); several files make one document; --output FILE takes it
# and leaves stdout to the TAP.
B=${VPMU_BUILD:-build}
T="$B/bin/vpmu-trace"
tr=tests/accounting/two-vcpus.trace
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
cp "$tr" "$tmp/second.trace"
tr2=$tmp/second.trace
# json_check FILE PERL-EXPR: FILE parses as one JSON document ($d) and EXPR holds.
json_check() {
	perl -MJSON::PP -e '
		local $/; open my $f, "<", $ARGV[0] or die "$ARGV[0]: $!\n";
		my $d = JSON::PP->new->decode(<$f>);
		eval $ARGV[1] or die "does not hold: $ARGV[1]\n"' "$1" "$2" >"$tmp/json.err" 2>&1
}

for f in text domstats prometheus json; do
	"$T" --accounting="$f" "$tr" >"$tmp/$f" 2>"$tmp/$f.err"
	[ $? -eq 0 ] && [ -s "$tmp/$f" ]; ok $? "--accounting=$f prints the accounting" "$tmp/$f.err"
done
for f in domstats prometheus json; do
	! grep -q -E '^(ok|not ok) [0-9]|^1\.\.' "$tmp/$f" && grep -q "^ok 1 - $tr " "$tmp/$f.err"
	ok $? "--accounting=$f: stdout holds the document alone, the TAP is on stderr" "$tmp/$f"
done
grep -q "^1\.\.1$" "$tmp/text" && grep -q "^ok 1 - $tr " "$tmp/text"
ok $? "--accounting=text: the TAP stays on stdout, the text after it" "$tmp/text"
"$T" --accounting=xml "$tr" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "must be text, domstats, prometheus or json, not 'xml'" "$tmp/err"
ok $? "an unknown format is a usage error (exit 2) that names the formats" "$tmp/err"

grep -q '^    events: cycles=5700 instructions=1234$' "$tmp/text"
ok $? "text: the VM's events are the sum of its vCPUs'" "$tmp/text"

d=$tmp/domstats
head -n 1 "$d" | grep -q "^Domain: 'dom1'$" &&
	grep -q '^  vpmu.cpu_cycles=5700$' "$d" && grep -q '^  vpmu.instructions=1234$' "$d" &&
	grep -q '^  vpmu.vcpu.0.cpu_cycles=5000$' "$d" && grep -q '^  vpmu.vcpu.1.cpu_cycles=700$' "$d" &&
	grep -q '^  vpmu.violations.cpl-none=1$' "$d" && grep -q '^  vpmu.vcpu.count=2$' "$d" &&
	! grep -q '^  perf\.' "$d"
ok $? "domstats: the events per VM and per vCPU under vpmu., none in libvirt's perf group, the violation by rule" "$d"
! grep -v -E "^Domain: '[^']*'$|^  vpmu\.[a-z0-9_.-]+=[^ ]+$|^$" "$d" >"$tmp/badlines"
ok $? "domstats: every line is a Domain header or a KEY=VALUE line" "$tmp/badlines"

"$T" --accounting=prometheus "$tr" 2>/dev/null | promtool check metrics >"$tmp/promtool.out" 2>&1
ok $? "prometheus: vpmu-trace ... | promtool check metrics" "$tmp/promtool.out"
p=$tmp/prometheus
grep -q '^vpmu_events_total{domain="dom1",vcpu="0",event="cycles"} 5000$' "$p" &&
	grep -q '^vpmu_events_total{domain="dom1",vcpu="0",event="instructions"} 1234$' "$p" &&
	grep -q '^vpmu_events_total{domain="dom1",vcpu="1",event="cycles"} 700$' "$p" &&
	grep -q '^vpmu_rule_violations_total{domain="dom1",vcpu="0",rule="cpl-none"} 1$' "$p"
ok $? "prometheus: per-vCPU events and the violation, with domain, vcpu and event labels" "$p"

json_check "$tmp/json" '$d->{schema} == 1 && @{$d->{vms}} == 1 && $d->{vms}[0]{name} eq "dom1"'
ok $? "json: one document (JSON::PP), schema 1, the VM dom1" "$tmp/json.err"
j=$tmp/json
grep -q '"instructions":1234' "$j" && grep -q '"cycles":5700' "$j" && grep -q '"cpl-none":1' "$j"
ok $? "json: the VM's events and the violation" "$j"

# Several files: one document, each VM named FILE:NAME.
"$T" --accounting json "$tr" "$tr2" >"$tmp/two.json" 2>"$tmp/err"
json_check "$tmp/two.json" '@{$d->{vms}} == 2 && $d->{vms}[0]{name} eq "'"$tr"':dom1" &&
	$d->{vms}[1]{name} eq "'"$tr2"':dom1"'
ok $? "json, two files: one document with both VMs, named FILE:dom1" "$tmp/json.err"
"$T" --accounting prometheus "$tr" "$tr2" 2>"$tmp/err" >"$tmp/two.prom"
promtool check metrics <"$tmp/two.prom" >"$tmp/promtool.out" 2>&1 &&
	[ "$(grep -c '^# TYPE vpmu_events_total ' "$tmp/two.prom")" -eq 1 ] &&
	grep -q "^vpmu_events_total{domain=\"$tmp/second.trace:dom1\",vcpu=\"1\",event=\"cycles\"} 700$" "$tmp/two.prom"
ok $? "prometheus, two files: one exposition promtool accepts, a domain per file" "$tmp/promtool.out"
"$T" --accounting=json "$tr" "$tr" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "the accounting has a VM named '$tr:dom1' already: give each trace file once" "$tmp/err"
ok $? "the same file twice: its second VM is refused by name, exit 1" "$tmp/err"

# --output FILE: the document there, the TAP on stdout.
"$T" --accounting=json -o "$tmp/out.json" "$tr" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && [ "$(cat "$tmp/out")" = "$(printf '1..1\nok 1 - %s (6 checks)' "$tr")" ] &&
	json_check "$tmp/out.json" '$d->{vms}[0]{name} eq "dom1"'
ok $? "--output FILE: the json there, the TAP on stdout" "$tmp/out"
"$T" --accounting=json --output="$tmp/nodir/x.json" "$tr" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "^vpmu-trace: cannot write $tmp/nodir/x.json: No such file or directory$" "$tmp/err"
ok $? "--output into a missing directory: named, exit 1" "$tmp/err"
if [ -w /dev/full ]; then
	"$T" --accounting=json -o /dev/full "$tr" >"$tmp/out" 2>"$tmp/err"
	[ $? -eq 1 ] && grep -q "^vpmu-trace: writing the accounting to /dev/full failed: No space left on device$" "$tmp/err"
	ok $? "--output /dev/full: the write error named, exit 1" "$tmp/err"
else
	skip "--output /dev/full: the write error named" "no /dev/full"
fi
echo "1..$n"
