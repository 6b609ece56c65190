#!/bin/sh
# SPDX-License-Identifier: MIT
# The accounting JSON against hostile input, and the JSON fuzzer's seeds
# (tests/unit/acct_json_hostile.c).
exec "${VPMU_BUILD:-build}/tests/acct_json_hostile" fuzz/seeds/acct_json/*.json
