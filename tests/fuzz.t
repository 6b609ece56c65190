#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every libFuzzer target (fuzz/) for a short, bounded time: each must finish
# without a crash, a sanitizer report, a leak or a timeout.  `make fuzz` runs them
# longer.  FUZZ_T_SECONDS overrides the time per target (default 10);
# VPMU_FUZZ_BUILD the build directory (default build/fuzz, fuzz/fuzz.mk's FB).
SECS=${FUZZ_T_SECONDS:-10}
FB=${VPMU_FUZZ_BUILD:-build/fuzz}
TARGETS="fuzz_reg_access fuzz_trace fuzz_call fuzz_host_access fuzz_image fuzz_acct_json fuzz_state"
echo "1..8"

# not_built: a "not ok" line for each target, after a failed build.
not_built() {
	n=1
	for t in $TARGETS; do
		n=$((n + 1))
		echo "not ok $n - $t # not built"
	done
}

if ! command -v "${CLANG:-clang}" >/dev/null 2>&1; then
	echo "not ok 1 - build fuzzers # clang not found: run scripts/install-deps (clang, libclang-rt-14-dev)"
	not_built
	exit 1
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

if make --no-print-directory -s -f fuzz/fuzz.mk FB="$FB" build >"$tmp/build.log" 2>&1; then
	echo "ok 1 - build fuzzers (clang -fsanitize=fuzzer,address,undefined)"
else
	echo "not ok 1 - build fuzzers (is libclang-rt-14-dev installed? scripts/install-deps)"
	tail -n 20 "$tmp/build.log" | sed 's/^/# /'
	not_built
	exit 1
fi

# Seeds for the trace fuzzer: the trace corpus and the malformed traces.
mkdir -p "$tmp/seed" "$tmp/c1" "$tmp/c2" "$tmp/c3" "$tmp/c4" "$tmp/c5" "$tmp/c6" "$tmp/c7"
for f in $(find tests/traces tests/bad-traces -name '*.trace'); do
	cp "$f" "$tmp/seed/$(echo "$f" | tr / _)"
done

# run N NAME ARGS...: one libFuzzer run; a failure prints the tail of its log and
# where libFuzzer left the input (build/fuzz/crash-*, leak-*, timeout-*).
run() {
	n=$1 name=$2
	shift 2
	if "$FB/$name" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$FB/" \
		-max_total_time="$SECS" "$@" >"$tmp/$name.log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$name.log")
		echo "ok $n - $name: ${execs:-?} inputs in ${SECS}s, no crash or leak"
	else
		echo "not ok $n - $name found a crash (input saved under $FB/)"
		grep -v -e '^#[0-9]' -e '^INFO' "$tmp/$name.log" | tail -n 40 | sed 's/^/# /'
	fi
}
run 2 fuzz_reg_access -max_len=4096 "$tmp/c1"
run 3 fuzz_trace -dict=fuzz/trace.dict "$tmp/c2" "$tmp/seed"
run 4 fuzz_call -max_len=512 "$tmp/c3"
run 5 fuzz_host_access -max_len=512 "$tmp/c4"
# Seeds for the image loader: one image of each kind it loads, bzImages included.
sh fuzz/image-seeds.sh "$tmp/iseed"
run 6 fuzz_image -max_len=16384 "$tmp/c5" "$tmp/iseed"
# Seeds for the accounting reader: pure JSON documents of each shape
# (fuzz/seeds/acct_json/, which tests/acct_json_hostile.t reads back).
run 7 fuzz_acct_json -max_len=65536 "$tmp/c6" fuzz/seeds/acct_json
# Seeds for the state restore: one input per mode (fuzz/state-seeds.sh).
sh fuzz/state-seeds.sh "$tmp/sseed"
run 8 fuzz_state -max_len=1024 "$tmp/c7" "$tmp/sseed"
