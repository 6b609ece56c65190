#!/bin/sh
# SPDX-License-Identifier: MIT
# The tools' folders call one way (the Makefile's "The tools", docs/design.md
# "The programs"), checked on the build ($VPMU_BUILD, default build): which
# folder defines each symbol an object of another folder uses.
#   1. no cycle between the folders (tsort);
#   2. each folder uses only those before it in
#      accounting, common, live, trace, run, stat, events;
#   3. no object uses a symbol that a program's main defines.
. tests/tap.sh
B=${VPMU_BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
order="accounting common live trace run stat events"

objs=$(ls "$B"/obj/tools/*/*.o 2>/dev/null)
if [ -z "$objs" ]; then
	echo "Bail out! no objects in $B/obj/tools: build first (make B=$B)"
	exit 1
fi
folder() { basename "$(dirname "$1")"; }
for o in $objs; do
	nm --defined-only -g "$o" | awk -v f="$(folder "$o")" -v m="$(basename "$o" .o)" \
		'NF == 3 { print $3, f, m }'
done | sort >"$tmp/defs"
: >"$tmp/edges"
: >"$tmp/mains"
for o in $objs; do
	f=$(folder "$o")
	nm -u "$o" | awk '{ print $NF }' | sort -u | join - "$tmp/defs" >"$tmp/uses"
	awk -v f="$f" '$2 != f { print f, $2 }' "$tmp/uses" >>"$tmp/edges"
	awk -v o="$o" '$3 ~ /^vpmu-/ { print o " uses " $1 " of " $3 }' "$tmp/uses" >>"$tmp/mains"
done
sort -u "$tmp/edges" -o "$tmp/edges"

{ echo "folder -> folder it uses:"; cat "$tmp/edges"; } >"$tmp/out"
tsort "$tmp/edges" >/dev/null 2>"$tmp/loop"
st=$?
[ -s "$tmp/loop" ] && st=1
cat "$tmp/loop" >>"$tmp/out"
ok $st "the tools' folders call one way (no cycle)" "$tmp/out"

rank() { i=0; for x in $order; do [ "$x" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo 99; }
: >"$tmp/back"
while read -r from to; do
	[ "$(rank "$to")" -lt "$(rank "$from")" ] || echo "$from uses $to" >>"$tmp/back"
done <"$tmp/edges"
[ ! -s "$tmp/back" ]
ok $? "each folder uses only those before it: $order" "$tmp/back"

[ ! -s "$tmp/mains" ]
ok $? "no object calls into a program's main" "$tmp/mains"
echo "1..$n"
