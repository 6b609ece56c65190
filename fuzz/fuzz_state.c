/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the restore of a vCPU's state blob (include/vpmu/save.h,
 * vpmu/save_format.c).  Each input names a model and configuration (as the
 * other targets do: fuzz_world.h), lets a source vCPU run a few fuzzed guest
 * writes and ticks, saves it, and then restores into a destination vCPU one
 * blob:
 *   - raw: the rest of the input, as it is;
 *   - patched: the source's blob with fuzzed (offset, xor) patches, cut or
 *     extended to a fuzzed length, and, when the input asks, its checksum
 *     written again so that the payload's parser and the apply (and its
 *     rollback) see the damage.
 * Invariants (abort() on failure):
 *   - a restore returns 0, -EINVAL or -EPROTO (with a message), never
 *     anything else;
 *   - a refused restore leaves the destination as it was: its save is the
 *     same, byte for byte;
 *   - the unpatched blob restores, after which the destination saves exactly
 *     the source's blob; so does any blob a restore accepted: its save
 *     restores onto a third vCPU, which then saves the same.
 * Seeds: fuzz/state-seeds.sh, one input per mode.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <xxhash.h>

#include "vpmu/backend.h"
#include "vpmu/save.h"
#include "vpmu/vpmu.h"

#define FUZZ_NAME "fuzz_state"
#include "fuzz_input.h"
#include "fuzz_world.h"

#define MAX_GUEST_OPS 8
#define MAX_PATCHES 16

static size_t save(struct vpmu_vcpu *v, uint8_t *buf)
{
	size_t len = 0;
	int rc = vpmu_vcpu_save(v, buf, VPMU_STATE_MAX, &len);
	CHECK(rc == 0 && len <= VPMU_STATE_MAX, "save: %d, %zu bytes", rc, len);
	return len;
}

/* A few guest writes to the VM's registers and ticks on host CPU 0. */
static void run_source(struct vpmu_sim *sim, struct vpmu_vcpu *v, struct input *in)
{
	uint32_t regs[128];
	unsigned n = vpmu_vm_regs(vpmu_vcpu_vm(v), VPMU_SPACE_MSR, regs, 128);
	unsigned ops = take8(in) % (MAX_GUEST_OPS + 1);
	vpmu_vcpu_switch_in(v, 0);
	for (unsigned k = 0; k < ops && in->n; k++) {
		enum vpmu_fault f;
		if (n && (take8(in) & 1))
			vpmu_reg_write(v, VPMU_SPACE_MSR, regs[take8(in) % n], take_bytes(in, 8), &f);
		else
			vpmu_sim_tick(sim, 0, (enum vpmu_event)(take8(in) % VPMU_EV_NR),
				      take_bytes(in, 2), VPMU_MODE_USER);
	}
	vpmu_vcpu_switch_out(v);
}

/* Restore b into dst, and check what the restore did. */
NO_COVERAGE static void restore_checked(struct vpmu_vcpu *dst, struct vpmu_vcpu *third,
					const uint8_t *b, size_t len, bool must_accept)
{
	static uint8_t before[VPMU_STATE_MAX], after[VPMU_STATE_MAX], again[VPMU_STATE_MAX];
	char err[VPMU_STATE_ERR_LEN] = "";
	size_t nb = save(dst, before);
	int rc = vpmu_vcpu_restore(dst, b, len, err);
	CHECK(rc == 0 || rc == -EINVAL || rc == -EPROTO, "restore: %d (%s)", rc, err);
	CHECK(rc == 0 || err[0], "a refusal (%d) without a message", rc);
	CHECK(rc == 0 || !must_accept, "the source's own blob refused: %d (%s)", rc, err);
	size_t na = save(dst, after);
	if (rc) {
		CHECK(na == nb && !memcmp(before, after, na), "a refused restore (%s) changed the "
		      "destination", err);
		return;
	}
	if (must_accept)
		CHECK(na == len && !memcmp(after, b, len), "restored: the destination saves "
		      "another blob");
	rc = vpmu_vcpu_restore(third, after, na, err);
	CHECK(rc == 0, "the save of an accepted restore does not restore: %d (%s)", rc, err);
	size_t ng = save(third, again);
	CHECK(ng == na && !memcmp(again, after, na), "restored twice: another blob");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct vpmu_sim *sim;
	struct vpmu_host *host;
	struct vpmu_vm *vm[3] = { NULL, NULL, NULL };
	struct vpmu_vcpu *v[3];
	struct vpmu_vm_config cfg;
	static uint8_t blob[VPMU_STATE_MAX], bad[VPMU_STATE_MAX + 64];

	fuzz_sim_host(2, &sim, &host);
	fuzz_vm_create(host, &in, &vm[0], &cfg);
	for (unsigned i = 1; i < 3; i++)
		CHECK(vpmu_vm_create(host, &cfg, &vm[i]) == 0, "%s: a second VM", cfg.model);
	for (unsigned i = 0; i < 3; i++)
		CHECK(vpmu_vcpu_create(vm[i], 0, &v[i]) == 0, "vcpu create");
	uint8_t mode = take8(&in);
	run_source(sim, v[0], &in);
	size_t len = save(v[0], blob);
	if (mode & 1) {
		/* Raw: the rest of the input is the blob. */
		size_t n = in.n < sizeof(bad) ? in.n : sizeof(bad);
		memcpy(bad, in.p, n);
		restore_checked(v[1], v[2], bad, n, false);
	} else {
		memcpy(bad, blob, len);
		memset(bad + len, 0, sizeof(bad) - len);
		unsigned patches = take8(&in) % (MAX_PATCHES + 1);
		for (unsigned k = 0; k < patches && in.n; k++) {
			size_t at = take_bytes(&in, 2) % len;
			bad[at] ^= take8(&in);
		}
		size_t n = len;
		if (mode & 2)   /* cut or extend by up to 64 bytes */
			n = (size_t)((int64_t)len + (int8_t)take8(&in) % 65);
		if (n > sizeof(bad))
			n = sizeof(bad);
		if ((mode & 4) && n >= 8) {
			uint64_t sum = XXH3_64bits(bad, n - 8);
			for (unsigned i = 0; i < 8; i++)
				bad[n - 8 + i] = (uint8_t)(sum >> (8 * i));
		}
		restore_checked(v[1], v[2], bad, n, n == len && !memcmp(bad, blob, len));
	}
	for (unsigned i = 0; i < 3; i++)
		vpmu_vm_destroy(vm[i]);
	CHECK(vpmu_host_destroy(host) == 0, "host destroy");
	vpmu_sim_destroy(sim);
	return 0;
}
