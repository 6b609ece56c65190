#!/bin/sh
# The hyper-threading cases of the model-contract test (two vCPU threads sharing
# one core's register file, docs/design.md) under ThreadSanitizer: a data race
# fails the run (TSan's exit status 66) even when every assertion holds.
# make check builds the binary in $VPMU_TSAN_BUILD (build/tsan).
B=${VPMU_TSAN_BUILD:-build/tsan}
if [ ! -x "$B/tests/model_contract" ]; then
	echo "1..1"
	echo "not ok 1 - $B/tests/model_contract is missing: make check builds it with -fsanitize=thread"
	exit 1
fi
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" exec "$B/tests/model_contract" ht
