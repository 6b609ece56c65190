#!/bin/sh
# SPDX-License-Identifier: MIT
# Replays every trace of the corpus (tests/traces/**/*.trace); each must pass.
B=${VPMU_BUILD:-build}
set -- $(find tests/traces -name '*.trace' | sort)
[ $# -gt 0 ] || { echo "1..0 # SKIP no traces found"; exit 0; }
exec "$B/bin/vpmu-trace" "$@"
