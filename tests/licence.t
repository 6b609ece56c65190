#!/bin/sh
# SPDX-License-Identifier: MIT
# The licences, as the REUSE Specification 3.0 states them (reuse.software):
# `reuse lint` finds copyright and licence information for every file (SPDX
# lines in the files, .reuse/dep5 for data without comment syntax) and the
# text of every licence used in LICENSES/; every source file (C, shell, Perl,
# make) says its licence itself in its first lines; the kernel patch series is
# GPL-2.0-only, everything else MIT (LICENSE).
. tests/tap.sh
# The tag, spelled so that reuse(1) does not read this file's uses of it as tags.
spdx="SPDX-License""-Identifier"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

if command -v reuse >/dev/null; then
	reuse lint >"$tmp/lint" 2>&1
	ok $? "reuse lint: the project is REUSE-compliant" "$tmp/lint"
else
	ok 1 "reuse is installed (scripts/install-deps)"
fi

# Source files: everything tracked but documentation, traces, JSON, licence
# texts, the patch series (whose files carry the kernel's own lines) and the
# event data carried unchanged from Intel and Linux (data/perfmon/intel, amd:
# .reuse/dep5 gives their licences, checked below).
git ls-files | grep -v -E '\.(md|json|trace|txt)$|^LICENSE$|^LICENSES/|^\.reuse/|^patches/|^data/perfmon/(intel|amd)/' |
	while read -r f; do
		head -n 5 "$f" | grep -q "$spdx: MIT" || echo "$f"
	done >"$tmp/missing"
[ ! -s "$tmp/missing" ]
ok $? "every source file names its licence (an SPDX line, MIT) in its first lines" "$tmp/missing"

git ls-files 'patches/kvm-rdpmc/*.patch' | xargs grep -h "$spdx" >"$tmp/gpl"
[ -s "$tmp/gpl" ] && ! grep -v "$spdx: GPL-2.0-only\$" "$tmp/gpl" &&
	grep -q '^Files: patches/\*' .reuse/dep5 && grep -q '^License: GPL-2.0-only' .reuse/dep5
ok $? "the kernel patches: the files they add are GPL-2.0-only, and .reuse/dep5 says so for patches/" "$tmp/gpl"
# QEMU's files are GPL-2.0-or-later (its LICENSE): so are those the QEMU series add.
for series in qemu qemu-ppc; do
	git ls-files "patches/$series/*.patch" | xargs grep -h "$spdx" >"$tmp/$series"
	[ -s "$tmp/$series" ] && ! grep -v "$spdx: GPL-2.0-or-later\$" "$tmp/$series" &&
		grep -q "^Files: patches/$series/\\*" .reuse/dep5 &&
		grep -q '^License: GPL-2.0-or-later' .reuse/dep5 && [ -f LICENSES/GPL-2.0-or-later.txt ]
	ok $? "the QEMU patches ($series): the files they add are GPL-2.0-or-later, and .reuse/dep5 says so for patches/$series/" "$tmp/$series"
done
grep -q '^Files: data/perfmon/intel/\*' .reuse/dep5 && grep -q '^License: BSD-3-Clause' .reuse/dep5 &&
	grep -q '^Files: data/perfmon/amd/\*' .reuse/dep5 && [ -f LICENSES/BSD-3-Clause.txt ] &&
	cmp -s LICENSES/BSD-3-Clause.txt data/perfmon/intel/LICENSE
ok $? "the carried event data: Intel's BSD-3-Clause (its LICENSE) and Linux's AMD data in .reuse/dep5"
# The MIT library carries the facts of the GPL-2.0-only AMD data (names and
# encodings), not its prose: no description of data/perfmon/amd/ is in
# libvpmu.so (docs/events.md, "Licences").
B=${VPMU_BUILD:-build}
if [ -f "$B/lib/libvpmu.so" ]; then
	python3 - "$B/lib/libvpmu.so" data/perfmon/amd >"$tmp/prose" 2>&1 <<'EOP'
import glob, json, sys
blob = open(sys.argv[1], 'rb').read()
# Prose that other data (Intel's, vpmu's own) also has is not the AMD files' alone.
other = set()
for f in glob.glob('data/perfmon/*/*/*.json') + glob.glob('data/perfmon/*/*/*/*.json') + glob.glob('data/perfmon/vpmu/*.json'):
    if '/amd/' in f:
        continue
    try:
        doc = json.load(open(f))
    except ValueError:
        continue
    for e in doc if isinstance(doc, list) else doc.get('Events', []):
        if isinstance(e, dict):
            other.update(v for k, v in e.items() if k.endswith('Description') and isinstance(v, str))
n = found = 0
for f in sorted(glob.glob(sys.argv[2] + '/*/*.json')):
    for e in json.load(open(f)):
        for k in ('BriefDescription', 'PublicDescription'):
            d = e.get(k)
            if d and len(d) > 24 and d not in other:
                n += 1
                if d.encode() in blob:
                    found += 1
                    print('%s: %s: %s' % (f, e.get('EventName'), d))
print('%d descriptions looked for, %d found' % (n, found))
sys.exit(1 if found or not n else 0)
EOP
	ok $? "libvpmu.so holds no description from Linux's GPL-2.0-only AMD files" "$tmp/prose"
else
	ok 1 "$B/lib/libvpmu.so is built"
fi
grep -q '^MIT License' LICENSE && grep -q 'GPL-2.0-only' LICENSE
ok $? "LICENSE: MIT, and where GPL-2.0-only applies" LICENSE
echo "1..$n"
