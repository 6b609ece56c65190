/* SPDX-License-Identifier: MIT */
/*
 * What this host's KVM is, for error messages that say the cause and the fix:
 * why /dev/kvm does not open, and whether it is kvm_pvm (a paravirtualized KVM
 * without VT-x or AMD-V, which cannot run every guest hardware KVM runs).
 */
#ifndef VPMU_TOOLS_KVM_HOST_H
#define VPMU_TOOLS_KVM_HOST_H

#include <stdbool.h>
#include <stddef.h>

/* "/dev/kvm: CAUSE: FIX" into buf for an open(2) that failed with err. */
void kvm_host_open_error(int err, char *buf, size_t len);

/* Whether /dev/kvm is kvm_pvm's: modules (normally "/sys/module") holds
 * kvm_pvm and neither kvm_intel nor kvm_amd (scripts/kvm-env's kvm_is_pvm). */
bool kvm_host_is_pvm(const char *modules);

/* For a KVM_EXIT_INTERNAL_ERROR with suberror: an explanation to append to the
 * report ("" when there is none to give).  pvm: kvm_host_is_pvm(). */
const char *kvm_host_internal_error_hint(unsigned suberror, bool pvm);

#endif
