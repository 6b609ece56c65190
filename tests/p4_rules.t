#!/bin/sh
# SPDX-License-Identifier: MIT
# perfctr's Pentium 4 rules case by case (tests/unit/p4_rules.c).
exec "${VPMU_BUILD:-build}/tests/p4_rules"
