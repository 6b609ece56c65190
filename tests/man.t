#!/bin/sh
# SPDX-License-Identifier: MIT
# The manual pages (man/, mdoc(7)): each is clean under mandoc -T lint -W
# warning, docs/man/PAGE.md is its current rendering (mandoc -T markdown, what
# make man writes), man -l renders it, and each program's page names every
# long option its --help lists.
B=${VPMU_BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
pages="man/vpmu-run.1 man/vpmu-trace.1 man/vpmu-stat.1 man/vpmu-events.1 man/libvpmu.3 man/vpmu_vcpu_save.3"
have() { command -v "$1" >/dev/null 2>&1; }

for p in $pages; do
	[ -f "$p" ]; ok $? "$p exists"
	if ! have mandoc; then
		skip "$p: mandoc -T lint -W warning" "no mandoc (scripts/install-deps installs it)"
		skip "docs/man/${p#man/}.md is up to date" "no mandoc"
		continue
	fi
	mandoc -T lint -W warning "$p" >"$tmp/lint" 2>&1
	ok $? "$p: mandoc -T lint -W warning is silent" "$tmp/lint"
	mandoc -T markdown "$p" >"$tmp/md" 2>&1
	cmp -s "$tmp/md" "docs/man/${p#man/}.md"
	ok $? "docs/man/${p#man/}.md is mandoc -T markdown $p (make man)"
done
if have man; then
	MANPAGER=cat MANWIDTH=80 man -l man/vpmu-run.1 >"$tmp/man" 2>&1 &&
		grep -q 'vpmu-run .* boot a guest under KVM' "$tmp/man"
	ok $? "man -l man/vpmu-run.1 renders" "$tmp/man"
else
	skip "man -l man/vpmu-run.1 renders" "no man (scripts/install-deps installs man-db)"
fi

# Every long option of a program's --help is in its page (mdoc writes -- as \-\-).
for prog in vpmu-run vpmu-trace vpmu-stat vpmu-events; do
	"$B/bin/$prog" --help | grep -o -E -- '--[a-z][a-z.-]*' | sort -u >"$tmp/opts"
	missing=
	for o in $(cat "$tmp/opts"); do
		grep -q -F -- "Fl \\-${o#--}" "man/$prog.1" || missing="$missing $o"
	done
	[ -s "$tmp/opts" ] && [ -z "$missing" ]
	ok $? "man/$prog.1 documents every long option of $prog --help${missing:+ (missing:$missing)}"
done
# The event tables' pages, generated into the build tree (make: $B/man/, from
# data/perfmon by scripts/gen-events.py): one per table, lint-clean, and man -l
# renders them with the table's events.
tables=$(sed -n '/^[a-z0-9]/{s/,.*//;/^table$/d;p}' data/perfmon/tables.csv)
missing=
for t in $tables; do [ -f "$B/man/vpmu-events-$t.7" ] || missing="$missing $t"; done
[ -n "$tables" ] && [ -z "$missing" ]
ok $? "$B/man/ has vpmu-events-TABLE.7 for every table${missing:+ (missing:$missing)}"
if have mandoc; then
	: >"$tmp/lint"
	for t in $tables; do mandoc -T lint -W warning "$B/man/vpmu-events-$t.7" >>"$tmp/lint" 2>&1; done
	[ ! -s "$tmp/lint" ]
	ok $? "the vpmu-events-TABLE.7 pages: mandoc -T lint -W warning is silent" "$tmp/lint"
else
	skip "the vpmu-events-TABLE.7 pages: mandoc -T lint" "no mandoc (scripts/install-deps installs it)"
fi
if have man; then
	MANPAGER=cat MANWIDTH=80 man -l "$B/man/vpmu-events-skylake.7" >"$tmp/man" 2>&1 &&
		grep -q 'INST_RETIRED.ANY_P' "$tmp/man" && grep -q 'event 0xC0, umask 0x00' "$tmp/man"
	ok $? "man -l vpmu-events-skylake.7 renders, INST_RETIRED.ANY_P with its encoding" "$tmp/man"
else
	skip "man -l vpmu-events-skylake.7 renders" "no man (scripts/install-deps installs man-db)"
fi
echo "1..$n"
