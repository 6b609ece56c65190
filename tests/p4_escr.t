#!/bin/sh
# SPDX-License-Identifier: MIT
# The P4 ESCR map against perfctr's p4_escr_addr and Linux's bindings (tests/unit/p4_escr.c).
exec "${VPMU_BUILD:-build}/tests/p4_escr"
