#!/bin/sh
# SPDX-License-Identifier: MIT
# contrib/systemd (docs/accounting.md, "Running it as a service"): each unit
# passes systemd-analyze verify with no warning (vpmu-stat's path made this
# build's; an unknown directive is only a warning there, so the test fails on
# any output, and a unit with one shows that it would), the exporter's port is
# vpmu-stat's default, and the textfile service's command line writes vpmu.prom.
# systemd-analyze comes with Debian's systemd package; without it the units
# are not verified (skipped, said so).
B=${VPMU_BUILD:-build}
STAT=$PWD/$B/bin/vpmu-stat
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
units="vpmu-exporter.service vpmu-textfile.service vpmu-textfile.timer"
for u in $units; do
	sed "s,/usr/local/bin/vpmu-stat,$STAT," "contrib/systemd/$u" >"$tmp/$u"
done
if command -v systemd-analyze >/dev/null; then
	for u in $units; do
		SYSTEMD_LOG_LEVEL=notice systemd-analyze verify "$tmp/$u" >"$tmp/verify" 2>&1
		ok $([ $? -eq 0 ] && ! [ -s "$tmp/verify" ]; echo $?) "$u: systemd-analyze verify, no warning" "$tmp/verify"
	done
	{ cat "$tmp/vpmu-textfile.service"; echo 'Frobnicate=yes'; } >"$tmp/bad.service"
	SYSTEMD_LOG_LEVEL=notice systemd-analyze verify "$tmp/bad.service" >"$tmp/verify" 2>&1
	ok $(grep -q "Unknown key 'Frobnicate'" "$tmp/verify"; echo $?) \
		"an unknown directive is seen (as a warning, which fails the check above)" "$tmp/verify"
else
	for u in $units; do skip "$u: systemd-analyze verify" "no systemd-analyze (Debian's systemd)"; done
fi
port=$(sed -n 's/^#define EXPORT_DEFAULT_PORT \([0-9]*\).*/\1/p' tools/stat/stat_listen.h)
ok $(grep -q "^ExecStart=.* --listen :$port\$" contrib/systemd/vpmu-exporter.service; echo $?) \
	"the exporter unit listens on vpmu-stat's default port ($port)"
ok $(grep -q '^SupplementaryGroups=vpmu$' contrib/systemd/vpmu-exporter.service &&
	grep -q '^DynamicUser=yes$' contrib/systemd/vpmu-exporter.service &&
	grep -q '^SupplementaryGroups=vpmu$' contrib/systemd/vpmu-textfile.service; echo $?) \
	"both run unprivileged in group vpmu (vpmu-run --stat-group vpmu)"
# The textfile service's command, into a directory here.
cmd=$(sed -n 's/^ExecStart=//p' "$tmp/vpmu-textfile.service" | sed "s,/var/lib/prometheus/node-exporter,$tmp/tf,")
mkdir "$tmp/tf" "$tmp/run" && chmod 700 "$tmp/run"
VPMU_RUNTIME_DIR=$tmp/run $cmd 2>"$tmp/err"
ok $([ $? -eq 0 ] && [ "$(ls -A "$tmp/tf")" = vpmu.prom ] && grep -q '^vpmu_build_info' "$tmp/tf/vpmu.prom"; echo $?) \
	"the textfile service's command writes vpmu.prom alone" "$tmp/err"
echo "1..$n"
