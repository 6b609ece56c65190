#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/mptable"
