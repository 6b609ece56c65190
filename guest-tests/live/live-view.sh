#!/bin/sh
# SPDX-License-Identifier: MIT
# The nested side of tests/live-view.t (docs/accounting.md, "Live view"): runs
# in scripts/kvm-env's guest next to vpmu-run, vpmu-stat (dynamic: run with
# the loader and the libraries staged beside it) and live-busy.bin.
#   live-view.sh PORT: vpmu-run --name live1 runs the busy guest on two vCPUs
#   for 60 s; meanwhile vpmu-stat lists it, prints its accounting in every
#   format, shows an interval view, stands 40 clients at once, writes the
#   textfile, and serves /metrics on PORT (scripts/kvm-env --forward) from the
#   start until the VM ends, so that Prometheus scrapes all along.  Sections
#   start with "== NAME" lines for the test to read.
port=$1
export VPMU_RUNTIME_DIR=/tmp/vpmu
here=$(pwd)
S() { "$here/ld-linux-x86-64.so.2" --library-path "$here" "$here/vpmu-stat" "$@"; }
./vpmu-run --name live1 --model p6 --vcpus 2 --timeout 60 live-busy.bin >/tmp/vm.out 2>/tmp/vm.err &
vm=$!
i=0
while [ ! -S $VPMU_RUNTIME_DIR/live1.sock ] && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
# The exporter first, so that Prometheus scrapes while the rest runs.  Not
# through S (a subshell): the TERM below must reach vpmu-stat itself.
"$here/ld-linux-x86-64.so.2" --library-path "$here" "$here/vpmu-stat" --listen 0.0.0.0:"$port" 2>/tmp/exp.err &
exp=$!
echo "== list"; S --list
for f in json prometheus domstats text; do
	echo "== once-$f"; S --format $f live1; echo "== once-$f-rc $?"
done
echo "== interval"; S --interval 1000 --count 3 live1; echo "== interval-rc $?"
echo "== crowd"
pids=
for k in $(seq 40); do S live1 >/tmp/c$k.out 2>/tmp/c$k.err & pids="$pids $!"; done
good=0 bad=0
for p in $pids; do if wait "$p"; then good=$((good + 1)); else bad=$((bad + 1)); fi; done
echo "answered $good refused $bad"
cat /tmp/c*.err | sort | uniq -c | head -n 5
echo "== list-after"; S --list
mkdir -p /tmp/tf
S --textfile /tmp/tf; echo "== textfile-rc $?"
echo "== textfile"; ls -a1 /tmp/tf; cat /tmp/tf/vpmu.prom
wait $vm
echo "== vm-exit $?"
kill $exp
wait $exp
echo "== exporter-exit $?"; cat /tmp/exp.err
echo "== vm-stderr"; cat /tmp/vm.err
echo "== vm-out"; grep -v "^ " /tmp/vm.out | head -n 20; tail -n 2 /tmp/vm.out
