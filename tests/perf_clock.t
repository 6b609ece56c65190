#!/bin/sh
# SPDX-License-Identifier: MIT
# The perf backend's task clock through the system-call double (tests/unit/perf_clock.c).
exec "${VPMU_BUILD:-build}/tests/perf_clock"
