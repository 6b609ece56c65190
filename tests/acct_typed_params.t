#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/acct_typed_params"
