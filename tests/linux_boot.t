#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/linux_boot"
