#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/core_api"
