#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/perf_hw"
