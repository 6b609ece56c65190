#!/bin/sh
# SPDX-License-Identifier: MIT
# The licences, as the REUSE Specification 3.0 states them (reuse.software):
# `reuse lint` finds copyright and licence information for every file (SPDX
# lines in the files, .reuse/dep5 for data without comment syntax) and the
# text of every licence used in LICENSES/; every source file (C, shell, Perl,
# make) says its licence itself in its first lines; the kernel patch series is
# GPL-2.0-only, everything else MIT (LICENSE).
. tests/tap.sh
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
		head -n 5 "$f" | grep -q 'SPDX-License-Identifier: MIT' || echo "$f"
	done >"$tmp/missing"
[ ! -s "$tmp/missing" ]
ok $? "every source file names its licence (SPDX-License-Identifier: MIT) in its first lines" "$tmp/missing"

git ls-files 'patches/*.patch' | xargs grep -h 'SPDX-License-Identifier' >"$tmp/gpl"
[ -s "$tmp/gpl" ] && ! grep -v 'SPDX-License-Identifier: GPL-2.0-only$' "$tmp/gpl" &&
	grep -q '^Files: patches/\*' .reuse/dep5 && grep -q '^License: GPL-2.0-only' .reuse/dep5
ok $? "the kernel patches: the files they add are GPL-2.0-only, and .reuse/dep5 says so for patches/" "$tmp/gpl"
grep -q '^Files: data/perfmon/intel/\*' .reuse/dep5 && grep -q '^License: BSD-3-Clause' .reuse/dep5 &&
	grep -q '^Files: data/perfmon/amd/\*' .reuse/dep5 && [ -f LICENSES/BSD-3-Clause.txt ] &&
	cmp -s LICENSES/BSD-3-Clause.txt data/perfmon/intel/LICENSE
ok $? "the carried event data: Intel's BSD-3-Clause (its LICENSE) and Linux's AMD data in .reuse/dep5"
grep -q '^MIT License' LICENSE && grep -q 'GPL-2.0-only' LICENSE
ok $? "LICENSE: MIT, and where GPL-2.0-only applies" LICENSE
echo "1..$n"
