#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs inside the KVM tier (scripts/kvm-env, by tests/guests.t): one vpmu-run per
# line of runs.txt ("NAME ARGS..."), its stdout as is between markers, its
# stderr prefixed, and its exit status and wall time, for the host to check.
while read -r name args; do
	[ -n "$name" ] || continue
	echo "@@RUN $name"
	t0=$(date +%s)
	# shellcheck disable=SC2086 # ARGS are words by design
	./vpmu-run $args 2>stderr.txt
	rc=$?
	sed 's/^/@@ERR /' stderr.txt
	echo "@@STATUS $rc $(($(date +%s) - t0))"
done <runs.txt
