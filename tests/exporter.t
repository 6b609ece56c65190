#!/bin/sh
# SPDX-License-Identifier: MIT
# vpmu-stat's Prometheus exporter (docs/accounting.md, "Prometheus"): the
# --listen forms, the landing page, vpmu_build_info, and availability under
# slow clients and silent VMs: a slowloris client holding connections while
# scrapes from another address are answered and its connections are cut at the
# request deadline, a VM socket that never answers reported as vpmu_vm_up 0
# within the scrape deadline while a good VM is served, and scrapes beside it
# that do not wait for each other.  Needs curl and perl.
B=${VPMU_BUILD:-build}
STAT=$B/bin/vpmu-stat
tmp=$(mktemp -d) || exit 1
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
. tests/tap.sh
export VPMU_RUNTIME_DIR="$tmp/run"
mkdir -m 700 "$VPMU_RUNTIME_DIR"
for tool in curl perl; do
	command -v $tool >/dev/null || { echo "1..0 # $tool is missing: scripts/install-deps installs it"; exit 1; }
done
version=$(unset MAKEFLAGS MFLAGS MAKELEVEL; make -s --no-print-directory version)

free_port() {
	p=$((20000 + ($$ + $1) % 20000))
	while busybox nc -z 127.0.0.1 "$p" 2>/dev/null; do p=$((p + 1)); done
	echo "$p"
}
# start ARGS...: vpmu-stat in the background; waits for its "serving" line.
start() {
	: >"$tmp/exp.err"   # emptied here: the last one's "serving" line must not count
	"$STAT" "$@" 2>>"$tmp/exp.err" &
	exp=$!
	pids="$pids $exp"
	i=0
	while ! grep -q serving "$tmp/exp.err" && kill -0 "$exp" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	grep -q serving "$tmp/exp.err"
}
# Stops it; a sanitizer's report in what it said (tests/tsan.t runs this
# test on a ThreadSanitizer build) fails the test.
stop() {
	kill -TERM "$exp" 2>/dev/null
	wait "$exp" 2>/dev/null
	if grep -q 'Sanitizer' "$tmp/exp.err"; then ok 1 "vpmu-stat's sanitizer found something" "$tmp/exp.err"; fi
}

usage() { # usage REGEX DESCRIPTION -- ARGS...
	re=$1 what=$2
	shift 3
	"$STAT" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -E -- "$re" "$tmp/err"
	ok $? "$what (status $rc)" "$tmp/err"
}
usage "'::1:9100': write an IPv6 address as \[ADDR\]:PORT" "an IPv6 address without brackets: usage error naming it" -- --listen ::1:9100
usage "':0': the port must be 1 to 65535" "port 0: usage error" -- --listen :0
usage "'127.0.0.1:65536': the port must be" "port 65536: usage error" -- --listen 127.0.0.1:65536
usage "'\[::1': an IPv6 address is" "an unclosed bracket: usage error" -- --listen '[::1'
usage "'nosuch.invalid:9': nosuch.invalid: " "a host name that does not resolve: usage error naming it" -- --listen nosuch.invalid:9
usage "--web.config.file is for the exporter: give --listen too" "--web.config.file without --listen: usage" -- --web.config.file /dev/null

# The forms that serve: HOST:PORT, a host name, :PORT (every address), [::1]:PORT.
port=$(free_port 1)
start --listen "127.0.0.1:$port"
curl -s -o "$tmp/landing" -w '%{http_code} %{content_type}\n' "http://127.0.0.1:$port/" >"$tmp/code" 2>&1
ok $(grep -q '^200 text/html' "$tmp/code" && grep -q '<a href="/metrics">' "$tmp/landing"; echo $?) \
	"/ is a landing page linking /metrics" "$tmp/code"
curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$port/metricsx" >"$tmp/code"
ok $(grep -q '^404' "$tmp/code"; echo $?) "/metricsx: 404" "$tmp/code"
curl -s -o /dev/null -w '%{http_code}\n' -X POST "http://127.0.0.1:$port/metrics" >"$tmp/code"
ok $(grep -q '^405' "$tmp/code"; echo $?) "POST: 405" "$tmp/code"
curl -sf "http://127.0.0.1:$port/metrics" >"$tmp/m"
ok $(grep -qx "vpmu_build_info{version=\"$version\"} 1" "$tmp/m"; echo $?) \
	"vpmu_build_info{version=\"$version\"} 1 (the Makefile's VERSION)" "$tmp/m"
promtool check metrics <"$tmp/m" >"$tmp/promtool" 2>&1
ok $? "the exposition is clean under promtool check metrics" "$tmp/promtool"
stop
start --listen "localhost:$port" && curl -sf -o /dev/null "http://127.0.0.1:$port/metrics"
ok $? "--listen localhost:PORT (a host name) serves" "$tmp/exp.err"
stop
start --web.listen-address=":$port" && curl -sS -o /dev/null -f "http://127.0.0.1:$port/metrics" 2>>"$tmp/exp.err"
ok $? "--web.listen-address=:PORT (the exporters' name and form) serves every address (127.0.0.1 here)" "$tmp/exp.err"
stop
if grep -q ' lo$' /proc/net/if_inet6 2>/dev/null; then
	start --listen="[::1]:$port" && curl -sf -o /dev/null "http://[::1]:$port/metrics"
	ok $? "--listen [::1]:PORT serves over IPv6" "$tmp/exp.err"
	stop
else
	skip "--listen [::1]:PORT" "no IPv6 loopback address on this host"
fi
if busybox nc -z 127.0.0.1 9632 2>/dev/null; then
	skip "--listen alone: the default port 9632" "something listens on 9632 here"
else
	start --listen && curl -sf -o /dev/null "http://127.0.0.1:9632/metrics" &&
		grep -q 'serving http://:9632/metrics' "$tmp/exp.err"
	ok $? "--listen alone: every address, port 9632" "$tmp/exp.err"
	stop
fi

# A good VM and a silent one (a stopped vpmu-run: its socket accepts, nothing answers).
"$B/bin/vpmu-trace" --accounting=json tests/accounting/two-vcpus.trace 2>/dev/null |
	sed -n '/^{/,/^}/p' >"$tmp/good.json"
perl tests/exporter/fake-vms.pl "$VPMU_RUNTIME_DIR" "$tmp/good.json" >"$tmp/fake.out" 2>&1 &
pids="$pids $!"
i=0
while ! grep -q ready "$tmp/fake.out" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
start --listen "127.0.0.1:$port" --scrape-timeout 1000
curl -s -o "$tmp/m" -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$port/metrics" >"$tmp/code"
t=$(cut -d' ' -f2 "$tmp/code")
ok $(grep -q '^200' "$tmp/code" && awk "BEGIN{exit !($t >= 0.9 && $t < 1.8)}" &&
	grep -qx 'vpmu_vm_up{domain="silent"} 0' "$tmp/m" && grep -qx 'vpmu_vm_up{domain="dom1"} 1' "$tmp/m" &&
	grep -q '^vpmu_events_total{domain="dom1"' "$tmp/m" && grep -qx 'vpmu_exporter_vm_errors 1' "$tmp/m"; echo $?) \
	"a silent VM: the scrape ends at --scrape-timeout 1000 ($t s), it is vpmu_vm_up 0, the good VM is served" "$tmp/m"
curl -s -o "$tmp/m" -w '%{http_code} %{time_total}\n' -H 'X-Prometheus-Scrape-Timeout-Seconds: 0.6' \
	"http://127.0.0.1:$port/metrics" >"$tmp/code"
t=$(cut -d' ' -f2 "$tmp/code")
ok $(grep -q '^200' "$tmp/code" && awk "BEGIN{exit !($t < 0.8)}" && grep -qx 'vpmu_vm_up{domain="dom1"} 1' "$tmp/m"; echo $?) \
	"Prometheus' scrape timeout header of 0.6 s shortens the deadline ($t s)" "$tmp/code"
# Four scrapes at once each take the deadline, not four deadlines.
for k in 1 2 3 4; do
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$port/metrics" >"$tmp/par$k" &
done
wait_for=0
while [ "$(cat "$tmp"/par? 2>/dev/null | wc -l)" -lt 4 ] && [ $wait_for -lt 100 ]; do sleep 0.1; wait_for=$((wait_for + 1)); done
cat "$tmp"/par? >"$tmp/par"
ok $(awk '$1 != 200 || $2 >= 1.8 { bad = 1 } END { exit bad || NR != 4 }' "$tmp/par"; echo $?) \
	"four concurrent scrapes beside the silent VM: each within 1.8 s" "$tmp/par"
stop

# Meanwhile, a scrape whose deadline is longer than the request deadline is
# not cut at 10 s: its connection's deadline makes room for it.
port2=$(free_port 2)
[ "$port2" = "$port" ] && port2=$((port + 1))
"$STAT" --listen "127.0.0.1:$port2" --scrape-timeout 11000 2>"$tmp/exp2.err" &
exp2=$!
pids="$pids $exp2"
sleep 0.5
curl -s -o "$tmp/long" -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$port2/metrics" >"$tmp/long.code" 2>&1 &
long=$!

# A slowloris client: 16 connections trickling header bytes from 127.0.0.1.
start --listen "127.0.0.1:$port"
perl tests/exporter/slowloris.pl 127.0.0.1 "$port" 16 2 16 >"$tmp/loris" 2>&1 &
loris=$!
pids="$pids $loris"
sleep 3
good=0
for k in 1 2 3; do
	curl -s -o /dev/null --interface 127.0.0.2 -m 5 -w '%{http_code} %{time_total}\n' \
		"http://127.0.0.1:$port/metrics" >>"$tmp/scrapes"
	sleep 1
done
ok $(awk '$1 != 200 || $2 >= 3 { bad = 1 } END { exit bad || NR != 3 }' "$tmp/scrapes"; echo $?) \
	"scrapes from another address beside 16 slowloris connections: each answered within 3 s" "$tmp/scrapes"
wait "$loris"
ok $(grep -q '^cut 16 of 16 after .*, 12 within 1 s$' "$tmp/loris" &&
	awk '{ exit !($6 >= 9.5 && $6 <= 14) }' "$tmp/loris"; echo $?) \
	"every slowloris connection is cut: the 12 past 4 per address at once, the rest at the 10 s request deadline" "$tmp/loris"
stop
wait "$long"
t=$(cut -d' ' -f2 "$tmp/long.code")
ok $(grep -q '^200' "$tmp/long.code" && awk "BEGIN{exit !($t >= 10.9)}" && grep -qx 'vpmu_vm_up{domain="dom1"} 1' "$tmp/long"; echo $?) \
	"a scrape of --scrape-timeout 11000 beside the silent VM is answered after $t s, not cut at 10 s" "$tmp/long.code"
kill -TERM "$exp2"
wait "$exp2"
if grep -q 'Sanitizer' "$tmp/exp2.err"; then ok 1 "vpmu-stat's sanitizer found something" "$tmp/exp2.err"; fi
ok $(grep -q 'stopped; 4 connection(s) cut at their 10 s deadline' "$tmp/exp.err"; echo $?) \
	"at exit the exporter says it cut the 4 it had let in" "$tmp/exp.err"
echo "1..$n"
