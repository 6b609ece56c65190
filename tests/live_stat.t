#!/bin/sh
# SPDX-License-Identifier: MIT
# The live accounting path: vCPU threads publishing on request, the socket
# server under many and hostile clients, vpmu-stat's client (tests/unit/live_stat.c).
exec "${VPMU_BUILD:-build}/tests/live_stat"
