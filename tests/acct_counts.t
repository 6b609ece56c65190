#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/acct_counts"
