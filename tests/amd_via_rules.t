#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/amd_via_rules"
