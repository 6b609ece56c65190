#!/bin/sh
# SPDX-License-Identifier: MIT
# The P4 event table against the ESCR map and Linux's numbers (tests/unit/p4_events.c).
exec "${VPMU_BUILD:-build}/tests/p4_events"
