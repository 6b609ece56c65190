/* SPDX-License-Identifier: MIT */
/*
 * The SBI PMU functions whose arguments are guest memory (RISC-V SBI
 * specification v2.0, "Performance Monitoring Unit Extension"):
 * snapshot_set_shmem (FID 7, v2.0), which sets the snapshot area counter_start
 * and counter_stop read and write (riscv_sbi_calls.c), and event_get_info
 * (FID 8, v3.0), which answers a table in guest memory.  Both reach the memory
 * through the VMM's accessors (vpmu_vm_set_guest_memory), and answer as KVM
 * RISC-V does (arch/riscv/kvm/vcpu_pmu.c) where the specification leaves a
 * choice.
 */
#include <string.h>

#include "riscv_sbi.h"

/* event_get_info (v3.0): {u32 event_idx, u32 output, u64 event_data} entries */
#define EVENT_INFO_SIZE 16u
/* The most entries one event_get_info call handles: past it the call fails
 * rather than holding the vCPU in the library for a guest-chosen time. */
#define EVENT_INFO_MAX  4096u

long sbi_snapshot_set_shmem(struct vpmu_txn *t, const uint64_t *a)
{
	uint64_t lo = a[0], hi = a[1], flags = a[2];
	if (!vpmu_txn_has_guest_memory(t))
		return VPMU_SBI_ERR_NOT_SUPPORTED;
	if (flags)
		return VPMU_SBI_ERR_INVALID_PARAM;
	if (lo == ~0ull && hi == ~0ull) {
		vpmu_txn_set_misc(t, SBI_MISC_SHMEM, SBI_SHMEM_NONE);
		return VPMU_SBI_SUCCESS;
	}
	if (lo & 0xFFF)
		return VPMU_SBI_ERR_INVALID_PARAM;
	if (hi)
		return VPMU_SBI_ERR_INVALID_ADDRESS;
	/* The area starts zeroed (KVM RISC-V writes its zeroed copy); the read
	 * proves the VMM's memory is there before the call commits. */
	uint8_t zero[SBI_SNAPSHOT_SIZE];
	if (vpmu_txn_guest_read(t, lo, zero, sizeof(zero)))
		return VPMU_SBI_ERR_INVALID_ADDRESS;
	memset(zero, 0, sizeof(zero));
	if (vpmu_txn_guest_write(t, lo, zero, sizeof(zero)))
		return VPMU_SBI_ERR_FAILED;
	vpmu_txn_set_misc(t, SBI_MISC_SHMEM, lo);
	return VPMU_SBI_SUCCESS;
}

long sbi_event_get_info(const struct vpmu_pmu *p, struct vpmu_txn *t, const uint64_t *a)
{
	uint64_t lo = a[0], hi = a[1], num = a[2], flags = a[3];
	if (!vpmu_txn_has_guest_memory(t))
		return VPMU_SBI_ERR_NOT_SUPPORTED;
	if (flags || (lo & (EVENT_INFO_SIZE - 1)) || !num)
		return VPMU_SBI_ERR_INVALID_PARAM;
	if (hi)
		return VPMU_SBI_ERR_INVALID_ADDRESS;
	if (num > EVENT_INFO_MAX)
		return VPMU_SBI_ERR_FAILED;
	/* Read every entry first, so that a table that runs off guest memory is
	 * refused before any entry changes. */
	uint8_t probe[EVENT_INFO_SIZE];
	for (uint64_t i = 0; i < num; i++)
		if (vpmu_txn_guest_read(t, lo + i * EVENT_INFO_SIZE, probe, sizeof(probe)))
			return VPMU_SBI_ERR_INVALID_ADDRESS;
	for (uint64_t i = 0; i < num; i++) {
		uint8_t e[EVENT_INFO_SIZE];
		uint64_t at = lo + i * EVENT_INFO_SIZE;
		if (vpmu_txn_guest_read(t, at, e, sizeof(e)))
			return VPMU_SBI_ERR_INVALID_ADDRESS;
		uint32_t idx = (uint32_t)sbi_le64(e);
		bool ok = sbi_event_counters(p, idx, sbi_le64(e + 8)) != 0;
		e[4] = ok, e[5] = e[6] = e[7] = 0;      /* output: bit 0, supported */
		if (vpmu_txn_guest_write_now(t, at, e, sizeof(e)))
			return VPMU_SBI_ERR_INVALID_ADDRESS;
	}
	return VPMU_SBI_SUCCESS;
}
