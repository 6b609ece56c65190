#!/bin/sh
# SPDX-License-Identifier: MIT
# The Pentium 4 register table and control slots (tests/unit/p4_regfile.c).
exec "${VPMU_BUILD:-build}/tests/p4_regfile"
