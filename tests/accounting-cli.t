#!/bin/sh
# vpmu-trace --accounting=FORMAT (docs/accounting.md): every format of one
# replayed trace, tests/accounting/two-vcpus.trace, whose counts the trace
# itself sets (ticks): vCPU 0 counts 5000 cycles and 1234 instructions and
# breaks cpl-none once, vCPU 1 counts 700 cycles.  Each format is parsed back:
# the Prometheus text by promtool (Debian's prometheus package), JSON by the
# unit test tests/unit/acct_formats.c (json-c) and here by its key lines.
B=${VPMU_BUILD:-build}
T="$B/bin/vpmu-trace"
tr=tests/accounting/two-vcpus.trace
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
acct() { # FORMAT: the accounting alone (the TAP lines dropped)
	"$T" --accounting="$1" "$tr" 2>"$tmp/err" | grep -v -e '^ok ' -e '^not ok ' -e '^1\.\.' >"$tmp/$1"
}

for f in text domstats prometheus json; do
	acct "$f"
	[ -s "$tmp/$f" ]; ok $? "--accounting=$f prints the accounting" "$tmp/err"
done
"$T" --accounting=xml "$tr" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unknown accounting format 'xml'" "$tmp/err"
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

p=$tmp/prometheus
promtool check metrics <"$p" >"$tmp/promtool.out" 2>&1
ok $? "prometheus: promtool check metrics accepts it" "$tmp/promtool.out"
grep -q '^vpmu_events_total{domain="dom1",vcpu="0",event="cycles"} 5000$' "$p" &&
	grep -q '^vpmu_events_total{domain="dom1",vcpu="0",event="instructions"} 1234$' "$p" &&
	grep -q '^vpmu_events_total{domain="dom1",vcpu="1",event="cycles"} 700$' "$p" &&
	grep -q '^vpmu_rule_violations_total{domain="dom1",vcpu="0",rule="cpl-none"} 1$' "$p"
ok $? "prometheus: per-vCPU events and the violation, with domain, vcpu and event labels" "$p"

j=$tmp/json
grep -q '"schema":1' "$j" && grep -q '"name":"dom1"' "$j" && grep -q '"instructions":1234' "$j" &&
	grep -q '"cycles":5700' "$j" && grep -q '"cpl-none":1' "$j"
ok $? "json: the schema version, the domain, the VM's events and the violation" "$j"
echo "1..$n"
