#!/bin/sh
# SPDX-License-Identifier: MIT
# vpmu-stat without a running VM (docs/accounting.md, "Live view" and
# "Prometheus"): its command line, an empty runtime directory, a socket left by
# a VMM that died, the textfile, and the exporter's HTTP answers (busybox wget).
# With VMs: tests/live_stat.t (the client and the exporter's exposition against
# a live socket) and tests/live-view.t (beside a guest, scraped by Prometheus).
B=${VPMU_BUILD:-build}
STAT=$B/bin/vpmu-stat
tmp=$(mktemp -d) || exit 1
exp=
trap '[ -n "$exp" ] && kill "$exp" 2>/dev/null; rm -rf "$tmp"' EXIT
. tests/tap.sh
export VPMU_RUNTIME_DIR="$tmp/run"
mkdir -m 700 "$VPMU_RUNTIME_DIR"

check() { # check WANT-STATUS STDERR-REGEX DESCRIPTION -- ARGS...
	want=$1 re=$2 what=$3
	shift 4
	"$STAT" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$want" ] && grep -q -E -- "$re" "$tmp/err"
	ok $? "$what (status $rc)" "$tmp/err"
}
check 2 "^vpmu-stat: unrecognized option '--frobnicate'" "unknown option: named, status 2" -- --frobnicate
check 2 "'\.\./x' is not a VM name" "a VM name that is a path: refused" -- ../x
check 2 '--count counts intervals: give --interval too' "--count without --interval: usage" -- --count 3
check 2 '--top is for the text intervals' "--top without --interval: usage" -- --top
check 2 '--top is for the text intervals' "--top with --format json: usage" -- --interval 10 --count 1 --top --format json
check 2 "^Try 'vpmu-stat --help' for more information" "a usage error ends with the Try line" -- --list --listen 127.0.0.1:1
check 2 "is not a VM name" "a VM name that is not UTF-8: refused, status 2" -- "$(printf 'web\377')"
check 2 'interval must be a number from 10' "--interval 5: refused" -- --interval 5
check 2 "--format must be text, domstats, prometheus or json" "an unknown format: refused" -- --format xml
check 2 '--qmp names the QEMUs: leave out the VM names' "--qmp with a VM name: usage" -- --qmp "$tmp/q.qmp" web1
check 2 '--qmp names the QEMUs: the exporters read' "--qmp with --listen: usage" -- --qmp "$tmp/q.qmp" --listen :1
check 1 "^vpmu-stat: $tmp/q.qmp: No such file or directory" "--qmp of a socket that is not there: status 1, said so" -- --qmp "$tmp/q.qmp"
check 1 "^vpmu-stat: $tmp/q.qmp: No such file or directory" "--qmp --list of a socket that is not there: status 1" -- --qmp "$tmp/q.qmp" --list

"$STAT" --list >"$tmp/out" 2>"$tmp/err"
ok $([ $? -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q '^NAME' "$tmp/out"; echo $?) \
	"--list with no VM: the header alone, status 0" "$tmp/err"
"$STAT" nosuch >"$tmp/out" 2>"$tmp/err"
ok $([ $? -eq 1 ] && grep -q 'nosuch.sock: No such file' "$tmp/err"; echo $?) "a VM that does not run: status 1, said so" "$tmp/err"

# A socket nobody listens on (a VMM that died): left out of "all", named when asked.
perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => $ARGV[0], Listen => 1) or die' \
	"$VPMU_RUNTIME_DIR/gone.sock"
"$STAT" --format prometheus >"$tmp/out" 2>"$tmp/err"
ok $([ $? -eq 0 ] && ! grep -q . "$tmp/err"; echo $?) "all VMs with a dead VMM's socket there: it is left out quietly" "$tmp/err"
"$STAT" gone >"$tmp/out" 2>"$tmp/err"
ok $([ $? -eq 1 ] && grep -q 'its VMM is gone' "$tmp/err"; echo $?) "asked for by name: 'its VMM is gone', status 1" "$tmp/err"

# --interval honours --format: a whole document per interval, no rate table.
"$STAT" --interval 10 --count 2 --format=json >"$tmp/out" 2>"$tmp/err"
ok $([ $? -eq 0 ] && [ "$(grep -c '"schema":' "$tmp/out")" -eq 2 ] && ! grep -q 'rate\|/s' "$tmp/out" &&
	perl -MJSON::PP -e 'local $/; my $t = <STDIN>; my $p = JSON::PP->new; my $k = 0;
		while ($t =~ /\S/) { my ($d, $len) = $p->decode_prefix($t); $d->{schema} == 1 or die; $t = substr($t, $len); $k++ }
		$k == 2 or die "$k documents\n"' <"$tmp/out"; echo $?) \
	"--interval 10 --count 2 --format=json: two JSON documents, no rate table" "$tmp/out"
"$STAT" --interval 10 --count 1 --format prometheus -o "$tmp/int.prom" >"$tmp/out" 2>"$tmp/err"
ok $([ $? -eq 0 ] && [ ! -s "$tmp/out" ] && promtool check metrics <"$tmp/int.prom" >"$tmp/promtool" 2>&1; echo $?) \
	"--interval --format prometheus -o FILE: an exposition promtool accepts in FILE, stdout empty" "$tmp/promtool"
"$STAT" --list --output "$tmp/list" >"$tmp/out" 2>"$tmp/err"
ok $([ $? -eq 0 ] && [ ! -s "$tmp/out" ] && grep -q '^NAME' "$tmp/list"; echo $?) "--list --output FILE: the list in FILE" "$tmp/err"

# A server that refuses (stat_server.c: too many clients, another user) writes
# one line and closes with the request unread: the client reads the line before
# the reset that close causes, and shows it.
refusing() { # NAME LINE: one connection, answered by LINE once the request is in
	rm -f "$tmp/ready"
	perl -MIO::Socket::UNIX -MIO::Select -e '
		my $l = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => $ARGV[0], Listen => 1) or die;
		open(my $r, ">", $ARGV[2]) or die; close $r;
		my $c = $l->accept or die;
		IO::Select->new($c)->can_read(5);
		syswrite($c, $ARGV[1]);
		close $c; unlink $ARGV[0]' "$VPMU_RUNTIME_DIR/$1.sock" "$2" "$tmp/ready" &
	srv=$!
	i=0
	while [ ! -e "$tmp/ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
refusing busy "error: busy: too many clients
"
"$STAT" busy >"$tmp/out" 2>"$tmp/err"
ok $([ $? -eq 1 ] && grep -q 'busy: the VM said error: busy: too many clients' "$tmp/err" &&
	! grep -q -i 'reset\|broken pipe' "$tmp/err"; echo $?) "a busy server: its 'busy' line, not 'Connection reset by peer'" "$tmp/err"
wait "$srv"
refusing other "error: permission denied
"
"$STAT" other >"$tmp/out" 2>"$tmp/err"
ok $([ $? -eq 1 ] && grep -q 'other: the VM said error: permission denied' "$tmp/err"; echo $?) \
	"a server of another user: its 'permission denied' line" "$tmp/err"
wait "$srv"

mkdir "$tmp/tf"
"$STAT" --textfile "$tmp/tf" 2>"$tmp/err"
ok $([ $? -eq 0 ] && [ "$(ls -A "$tmp/tf")" = vpmu.prom ] && grep -q '^vpmu_exporter_vms 0$' "$tmp/tf/vpmu.prom" &&
	grep -q '^vpmu_exporter_vm_errors 0$' "$tmp/tf/vpmu.prom"; echo $?) \
	"--textfile: vpmu.prom alone (no temporary left), no VM (a dead socket is none)" "$tmp/err"
promtool check metrics <"$tmp/tf/vpmu.prom" >"$tmp/promtool" 2>&1
ok $? "the textfile is clean under promtool check metrics" "$tmp/promtool"
"$STAT" --textfile "$tmp/nosuchdir" 2>"$tmp/err"
ok $([ $? -eq 1 ] && grep -q 'cannot create a file in' "$tmp/err"; echo $?) "--textfile into a missing directory: status 1, said so" "$tmp/err"

port=$((30000 + $$ % 10000))
while busybox nc -z 127.0.0.1 "$port" 2>/dev/null; do port=$((port + 1)); done
check 2 "--listen .127.0.0.1:bad.: the port must be" "--listen with a bad port: a usage error naming it" -- --listen 127.0.0.1:bad
"$STAT" --listen "127.0.0.1:$port" 2>"$tmp/exp.err" &
exp=$!
i=0
while ! busybox nc -z 127.0.0.1 "$port" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
busybox wget -q -S -O "$tmp/metrics" "http://127.0.0.1:$port/metrics" 2>"$tmp/hdr"
ok $([ $? -eq 0 ] && grep -qi 'Content-Type: text/plain; version=0.0.4' "$tmp/hdr" &&
	grep -q '^vpmu_exporter_vms 0$' "$tmp/metrics"; echo $?) "--listen: /metrics answers 200 in Prometheus' text format 0.0.4" "$tmp/hdr"
busybox wget -q -O /dev/null "http://127.0.0.1:$port/other" 2>"$tmp/w404"
ok $(grep -q '404' "$tmp/w404"; echo $?) "another path: 404" "$tmp/w404"
# A client that connects and says nothing does not stop the next scrape.
perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new("127.0.0.1:$ARGV[0]") or die; sleep 3' "$port" &
idle=$!
sleep 0.3
busybox wget -q -O /dev/null "http://127.0.0.1:$port/metrics" 2>"$tmp/w2"
ok $? "a scrape beside a silent connection is answered" "$tmp/w2"
kill "$idle" 2>/dev/null
kill -TERM "$exp"
wait "$exp"
ok $? "SIGTERM stops the exporter, status 0" "$tmp/exp.err"
exp=
echo "1..$n"
