#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/dev_rtc"
