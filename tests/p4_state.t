#!/bin/sh
# SPDX-License-Identifier: MIT
exec "${VPMU_BUILD:-build}/tests/p4_state"
