#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/model_contract"
