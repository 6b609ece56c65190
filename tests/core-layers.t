#!/bin/sh
# SPDX-License-Identifier: MIT
# The library's layering as docs/design.md states it, checked on the build
# ($VPMU_BUILD, default build) and the sources:
#   1. the core's files call one way: the calls between vpmu/*.o (which object
#      uses a symbol another defines) have no cycle (tsort finds none);
#   2. the order docs/design.md walks a guest write in is that order: access.c
#      above control.h/control.c above host_state.c, and switch.c above both;
#   3. models include only model.h of the core, backends only backend.h (and
#      the perf backend its own headers): neither sees core.h, control.h or
#      host_state.h.
. tests/tap.sh
B=${VPMU_BUILD:-build}
out=${TMPDIR:-/tmp}/core-layers.$$
edges=${TMPDIR:-/tmp}/core-layers-edges.$$
trap 'rm -f "$out" "$edges"' EXIT

objs=$(ls "$B"/obj/vpmu/*.o 2>/dev/null)
if [ -z "$objs" ]; then
	echo "Bail out! no objects in $B/obj/vpmu: build first (make B=$B)"
	exit 1
fi

# Which object defines each global symbol, then "user definer" per use.
for o in $objs; do
	nm --defined-only -g "$o" | awk -v f="$(basename "$o" .o)" 'NF == 3 { print $3, f }'
done | sort >"$out.defs"
: >"$edges"
for o in $objs; do
	u=$(basename "$o" .o)
	nm -u "$o" | awk '{ print $NF }' | sort -u | join - "$out.defs" |
		awk -v u="$u" '$2 != u { print u, $2 }' >>"$edges"
done
sort -u "$edges" -o "$edges"
rm -f "$out.defs"

# 1. No cycle: tsort reports a loop on stderr.
{ echo "calls between the core's objects (user -> definer):"; cat "$edges"; } >"$out"
tsort "$edges" >/dev/null 2>"$out.loop"
st=$?
[ -s "$out.loop" ] && st=1
cat "$out.loop" >>"$out"
rm -f "$out.loop"
ok $st "the core's files call one way (no cycle among $(echo $objs | wc -w) objects)" "$out"

# 2. The direction of the layers named in docs/design.md.
calls() { grep -qx "$1 $2" "$edges"; }
: >"$out"
st=0
for e in "access control" "access host_state" "control host_state" "switch host_state" "switch control"; do
	calls $e || { echo "expected: $e" >>"$out"; st=1; }
done
for e in "host_state control" "host_state switch" "host_state access" "control access" "control switch"; do
	calls $e && { echo "unexpected: $e" >>"$out"; st=1; }
done
ok $st "access.c -> control -> host_state, switch.c -> control, host_state; never back" "$out"

# 3. What models and backends include of the core.
grep -n '#include "\(\.\./\)*\(core\|control\|host_state\|vm_glue\)\.h"' \
	vpmu/models/*.[ch] vpmu/backends/*.[ch] >"$out"
[ ! -s "$out" ]
ok $? "models and backends include none of core.h, control.h, host_state.h, vm_glue.h" "$out"
echo "1..$n"
