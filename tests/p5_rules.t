#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/p5_rules"
