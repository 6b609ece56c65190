#!/bin/sh
# SPDX-License-Identifier: MIT
# The exporter's availability under a silent VM and a slowloris client
# (docs/accounting.md, "Slow clients and silent VMs"), for one vpmu-stat:
#   bench/exporter-avail.sh [VPMU-STAT [PORT]]     (default build/bin/vpmu-stat, 27001)
# Prints: one scrape beside a VM socket that accepts and never answers (and a
# good one), four concurrent scrapes there, then a scrape from 127.0.0.2 and
# one from 127.0.0.1 beside 16 slowloris connections from 127.0.0.1 (a header
# byte every 5 s), and when the exporter cut those.  Run it on two builds (an
# older one: git archive REV | tar -x -C DIR; make -C DIR build/bin/vpmu-stat)
# to compare.  Needs curl and perl; uses tests/exporter/*.pl.
STAT=${1:-build/bin/vpmu-stat}
P=${2:-27001}
tmp=$(mktemp -d) || exit 1
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
export VPMU_RUNTIME_DIR="$tmp/run"
mkdir -m 700 "$VPMU_RUNTIME_DIR"
build/bin/vpmu-trace --accounting=json tests/accounting/two-vcpus.trace 2>/dev/null |
	sed -n '/^{/,/^}/p' >"$tmp/good.json"
perl tests/exporter/fake-vms.pl "$VPMU_RUNTIME_DIR" "$tmp/good.json" >/dev/null &
fake=$!
pids="$pids $fake"
sleep 0.5
"$STAT" --listen "127.0.0.1:$P" 2>/dev/null &
pids="$pids $!"
sleep 1
printf 'silent VM, one scrape: '
curl -s -o /dev/null -w '%{http_code} %{time_total}s\n' "http://127.0.0.1:$P/metrics"
printf 'silent VM, 4 concurrent scrapes:'
c=
for k in 1 2 3 4; do
	curl -s -o /dev/null -w ' %{http_code}/%{time_total}s' "http://127.0.0.1:$P/metrics" >"$tmp/c$k" &
	c="$c $!"
done
wait $c
cat "$tmp"/c?
echo
kill "$fake"
rm -f "$VPMU_RUNTIME_DIR"/*.sock
perl tests/exporter/slowloris.pl 127.0.0.1 "$P" 16 5 30 >"$tmp/loris" &
loris=$!
sleep 2
printf 'beside 16 slowloris connections, a scrape from 127.0.0.2:'
curl -s -o /dev/null --interface 127.0.0.2 -m 20 -w ' %{http_code}/%{time_total}s\n' "http://127.0.0.1:$P/metrics"
printf '... and from 127.0.0.1:'
curl -s -o /dev/null -m 20 -w ' %{http_code}/%{time_total}s\n' "http://127.0.0.1:$P/metrics"
wait "$loris"
printf 'slowloris: '
cat "$tmp/loris"
