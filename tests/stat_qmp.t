#!/bin/sh
# SPDX-License-Identifier: MIT
# vpmu-stat's QMP client against scripted QMP servers (tests/unit/stat_qmp.c).
exec "${VPMU_BUILD:-build}/tests/stat_qmp"
