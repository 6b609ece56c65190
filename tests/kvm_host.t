#!/bin/sh
exec "${VPMU_BUILD:-build}/tests/kvm_host"
