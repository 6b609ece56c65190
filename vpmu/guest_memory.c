/* SPDX-License-Identifier: MIT */
/*
 * Guest memory for PMUs that share memory with their guest: the SBI PMU's
 * counter snapshot (RISC-V SBI specification v2.0, "Performance Monitoring
 * Unit Extension", snapshot_set_shmem) and event_get_info's table (v3.0).
 * The VMM owns guest memory; the library reaches it only through the
 * accessors the VMM gives (include/vpmu/vpmu.h vpmu_vm_set_guest_memory), as
 * KVM RISC-V's vcpu_pmu.c goes through kvm_vcpu_read_guest/write_guest.
 */
#include <errno.h>
#include <string.h>

#include "core.h"

int vpmu_vm_set_guest_memory(struct vpmu_vm *vm, const struct vpmu_guest_memory *mem)
{
	if (!vm || (mem && (!mem->read || !mem->write)))
		return -EINVAL;
	if (mem)
		vm->guest_mem = *mem;
	else
		memset(&vm->guest_mem, 0, sizeof(vm->guest_mem));
	return 0;
}

bool vpmu_txn_has_guest_memory(const struct vpmu_txn *t)
{
	return t->vcpu->vm->guest_mem.read != NULL;
}

int vpmu_txn_guest_read(const struct vpmu_txn *t, uint64_t gpa, void *buf, size_t len)
{
	const struct vpmu_guest_memory *g = &t->vcpu->vm->guest_mem;
	if (!g->read)
		return -ENODEV;
	if (gpa + len < gpa)
		return -EFAULT;
	int r = g->read(g->opaque, gpa, buf, len);
	return r > 0 ? -EIO : r;
}

int vpmu_txn_guest_write(struct vpmu_txn *t, uint64_t gpa, const void *buf, size_t len)
{
	if (!t->vcpu->vm->guest_mem.write)
		return -ENODEV;
	if (!t->mem || t->mem->len || len > VPMU_TXN_MEM_MAX || !len)
		return -E2BIG;
	if (gpa + len < gpa)
		return -EFAULT;
	t->mem->gpa = gpa;
	t->mem->len = (uint32_t)len;
	memcpy(t->mem->buf, buf, len);
	return 0;
}

int vpmu_txn_guest_write_now(const struct vpmu_txn *t, uint64_t gpa, const void *buf,
			     size_t len)
{
	const struct vpmu_guest_memory *g = &t->vcpu->vm->guest_mem;
	if (!g->write)
		return -ENODEV;
	if (gpa + len < gpa)
		return -EFAULT;
	int r = g->write(g->opaque, gpa, buf, len);
	return r > 0 ? -EIO : r;
}
