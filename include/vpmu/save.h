/* SPDX-License-Identifier: MIT */
/*
 * Save and restore of the virtual PMU's state, for live migration and
 * snapshots (savevm): the library makes and checks a versioned, checksummed
 * blob that the VMM carries in its own migration stream (in QEMU, a vmstate
 * subsection of the vCPU's and of the VM's device state).
 *
 * A vCPU's blob holds every register its PMU has (vpmu_reg_get), the values
 * of all its counters, the i-mode start of its interrupting counters, its
 * pending PMI and the counters that raised it, and its accounting totals, so
 * that after a restore every counter reads what it read at the save, counts on
 * from there, and a PMI pending at the save is pending once.  The overflow
 * status a guest sees is in its registers; the P4's hyper-threading state is
 * the core's registers and counters, which each sibling's blob carries.  A
 * VM's blob holds what the VM was created with (model, CPU identity, PMU
 * geometry, hyper-threading, strict mode) and a digest of its event filter:
 * the VMM creates the destination VM from the same configuration, and the
 * VM's restore checks that it did; it changes nothing.
 *
 * The format (docs/integration.md "Save, restore and migration"): a fixed
 * little-endian header (magic, format version, lengths, model, identity,
 * geometry), the payload, and an XXH3-64 checksum of both.  A restore is
 * host-initiated (KVM's host_initiated MSR accesses): no guest semantics, no
 * rule checked or counted, no fault.  It validates the whole blob before it
 * changes anything, and on failure leaves the vCPU as it was:
 *   -EINVAL  not a blob of this library: NULL arguments, bad magic, truncated
 *            or oversized, a checksum that does not match, a malformed payload
 *            or a register value the destination refuses;
 *   -EPROTO  a well-formed blob of something else: an unknown format version,
 *            another kind (a VM's blob given to a vCPU), another model, CPU
 *            identity, PMU geometry, hyper-thread or VM configuration;
 *   -EBUSY   the vCPU (or, with hyper-threading, its sibling) is switched in:
 *            save and restore need it switched out, as a paused vCPU is
 *            (vpmu.h, vpmu_vcpu_enter), so that no host counter moves under
 *            them.
 * err (optional, VPMU_STATE_ERR_LEN bytes) gets a line saying why.  (-EIO
 * would say that the vCPU refused its own state back after a refused value:
 * a library bug, which fuzz/fuzz_state.c looks for.)
 *
 * Save: with buf NULL, *len gets the size the blob needs; with a buffer of
 * `size` bytes, the blob, its length in *len, or -ENOSPC (and the size needed
 * in *len) when it does not fit.  VPMU_STATE_MAX bytes always suffice.
 * A save changes nothing: neither the guest's view nor the accounting.  The
 * vCPU is not const: like any access, a save first derives again a control
 * that an overflow left stale.
 */
#ifndef VPMU_SAVE_H
#define VPMU_SAVE_H

#include <stddef.h>
#include <stdint.h>

#include "vpmu/vpmu.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

#define VPMU_STATE_VERSION 1     /* the format version this library writes and reads */
#define VPMU_STATE_MAX 4096      /* the largest blob (a P4 vCPU's is about 2 KiB) */
#define VPMU_STATE_ERR_LEN 128

int vpmu_vcpu_save(struct vpmu_vcpu *vcpu, void *buf, size_t size, size_t *len);
int vpmu_vcpu_restore(struct vpmu_vcpu *vcpu, const void *buf, size_t len,
		      char err[VPMU_STATE_ERR_LEN]);
int vpmu_vm_save(const struct vpmu_vm *vm, void *buf, size_t size, size_t *len);
int vpmu_vm_restore(const struct vpmu_vm *vm, const void *buf, size_t len,
		    char err[VPMU_STATE_ERR_LEN]);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
