#!/bin/sh
# SPDX-License-Identifier: MIT
exec "${VPMU_BUILD:-build}/tests/riscv_exit"
