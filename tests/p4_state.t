#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/p4_state"
