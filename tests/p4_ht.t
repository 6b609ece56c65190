#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/p4_ht"
