#!/bin/sh
# SPDX-License-Identifier: MIT
# Who may read a VM's live socket: the peer-credential decision, --stat-group's
# directory and socket modes, and (as root) real peers of another uid with and
# without the group (tests/unit/stat_access.c).
exec "${VPMU_BUILD:-build}/tests/stat_access"
