#!/bin/sh
# SPDX-License-Identifier: MIT
# Where threads share state, under ThreadSanitizer: a data race fails the run
# (TSan's exit status 66) even when every assertion holds.
#   - the hyper-threading cases of the model-contract test (two vCPU threads
#     sharing one core's register file, docs/design.md);
#   - a hyper-threaded P4: two vCPU threads programming the shared CCCRs,
#     ESCRs and counters at once (tests/unit/p4_ht.c);
#   - the live accounting path (vCPU threads publishing snapshots while the
#     socket server and its clients read them: tests/unit/live_stat.c);
#   - the KVM glue's LVTPC write gate on a fake KVM (two vCPU threads and a
#     device thread: tests/unit/kvm_glue.c);
#   - vpmu-stat's exporter (a thread per connection, the deadline thread)
#     through tests/exporter.t, which fails on any sanitizer report.
# make check builds the binaries in $VPMU_TSAN_BUILD (build/tsan).  The TAP
# of each is numbered as one: each runs as a subtest line.
B=${VPMU_TSAN_BUILD:-build/tsan}
echo "1..5"
n=0
for t in "model_contract ht" "p4_ht" "live_stat" "kvm_glue"; do
	n=$((n + 1))
	bin=${t%% *}
	if [ ! -x "$B/tests/$bin" ]; then
		echo "not ok $n - $B/tests/$bin is missing: make check builds it with -fsanitize=thread"
		continue
	fi
	# shellcheck disable=SC2086
	out=$(TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" "$B/tests/"$t 2>&1)
	rc=$?
	fails=$(printf '%s\n' "$out" | grep -c '^not ok')
	if [ "$rc" -eq 0 ] && [ "$fails" -eq 0 ]; then
		echo "ok $n - $t under ThreadSanitizer: no race, every assertion holds"
	else
		echo "not ok $n - $t under ThreadSanitizer: exit $rc (66: a race), $fails failed assertion(s)"
		printf '%s\n' "$out" | sed 's/^/# /' | tail -n 60
	fi
done
n=$((n + 1))
if [ ! -x "$B/bin/vpmu-stat" ] || [ ! -x "$B/bin/vpmu-trace" ]; then
	echo "not ok $n - $B/bin/vpmu-stat or vpmu-trace is missing: make check builds them with -fsanitize=thread"
else
	out=$(TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" VPMU_BUILD=$B sh tests/exporter.t 2>&1)
	fails=$(printf '%s\n' "$out" | grep -c '^not ok')
	if [ "$fails" -eq 0 ] && printf '%s\n' "$out" | grep -q '^1\.\.'; then
		echo "ok $n - tests/exporter.t under ThreadSanitizer: no race, every assertion holds"
	else
		echo "not ok $n - tests/exporter.t under ThreadSanitizer: $fails failed assertion(s)"
		printf '%s\n' "$out" | sed 's/^/# /' | tail -n 60
	fi
fi
