#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/pmu_geometry"
