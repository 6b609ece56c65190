#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/design.md against the tree: the source files it names exist, and the
# P5 family it describes (the models that are data for the shared p5_cesr_ops)
# is the one vpmu/models/ builds.  No build needed.
. tests/tap.sh
doc=docs/design.md
out=${TMPDIR:-/tmp}/design-doc.$$
trap 'rm -f "$out"' EXIT

# 1. Every `path` under the library's own directories names a file or folder.
missing=
for p in $(grep -oE '`(vpmu|include/vpmu|vmm-glue|tools|tests|guest-tests|fuzz|bench)/[A-Za-z0-9_./-]+`' "$doc" |
	   tr -d '`' | sort -u); do
	[ -e "$p" ] || missing="$missing $p"
done
echo "missing:$missing" >"$out"
[ -z "$missing" ]; ok $? "every source path $doc names exists" "$out"

# 2. The P5 family: the models whose descriptor is P5_CESR_MODEL_FIELDS(...).
built=$(grep -l 'P5_CESR_MODEL_FIELDS(' vpmu/models/*.c |
	xargs sed -n 's/^[[:space:]]*\.name = "\([^"]*\)".*/\1/p' | sort)
nbuilt=$(printf '%s\n' "$built" | grep -c .)
text=$(tr '\n' ' ' <"$doc")
word=$(printf '%s\n' "$text" | sed -n 's/.*The \([a-z]*\) P5-family models.*/\1/p')
named=$(printf '%s\n' "$text" | grep -oE 'P5-family models \([^)]*\)' | grep -oE '`[a-z0-9-]+`' |
	tr -d '`' | sort)
i=0
for w in zero one two three four five six seven eight nine ten eleven twelve; do
	[ "$w" = "$word" ] && break
	i=$((i + 1))
done
{
	echo "built ($nbuilt):" $built
	echo "the document: \"$word\" ($i):" $named
} >"$out"
[ "$nbuilt" -gt 0 ] && [ "$i" -eq "$nbuilt" ]
ok $? "$doc counts the P5-family models vpmu/models/ builds ($nbuilt)" "$out"
[ "$named" = "$built" ]
ok $? "... and names exactly those" "$out"
echo "1..$n"
