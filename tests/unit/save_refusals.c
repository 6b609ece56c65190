/* SPDX-License-Identifier: MIT */
/*
 * What a restore refuses (include/vpmu/save.h): every byte of a blob flipped,
 * every truncation, a byte too many, another model, geometry, CPU identity,
 * format version or kind, a forged blob whose checksum is right but whose
 * values the destination cannot hold.  Each refusal returns an errno and a
 * message, and the destination saves, byte for byte, what it saved before.
 *
 * The forgeries know the format from docs/integration.md ("Save, restore and
 * migration"): the version at byte 4, the payload after a 104-byte header, the
 * register entries after its 16-bit count (u32 address, u8 space, u64 value),
 * and the XXH3-64 of everything before it in the last 8 bytes.
 */
#include <errno.h>
#include <string.h>
#include <xxhash.h>

#include "guest_msr.h"
#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/save.h"
#include "vpmu/vpmu.h"

#define HEADER_LEN 104

static struct vpmu_sim *sim;
static struct vpmu_host *host;

static struct vpmu_vm *vm_with(const char *model, int cpumodel, int nr_general, unsigned flags)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	cfg.model = model;
	cfg.cpumodel = cpumodel;
	cfg.nr_general = nr_general;
	cfg.flags = flags;
	return vpmu_vm_create(host, &cfg, &vm) ? NULL : vm;
}

static struct vpmu_vcpu *vcpu0(struct vpmu_vm *vm)
{
	struct vpmu_vcpu *v = NULL;
	return vm && !vpmu_vcpu_create(vm, 0, &v) ? v : NULL;
}

static size_t save(struct vpmu_vcpu *v, uint8_t *buf)
{
	size_t len = 0;
	return vpmu_vcpu_save(v, buf, VPMU_STATE_MAX, &len) ? 0 : len;
}

/* The little-endian checksum of a (changed) blob written again. */
static void reseal(uint8_t *b, size_t len)
{
	uint64_t sum = XXH3_64bits(b, len - 8);
	for (unsigned i = 0; i < 8; i++)
		b[len - 8 + i] = (uint8_t)(sum >> (8 * i));
}

/* A source p6 vCPU that counted, and a destination p6 vCPU in another state
 * (another event, a counter written, a PMI pending). */
static struct vpmu_vm *src_vm, *dst_vm;
static struct vpmu_vcpu *src, *dst;
static uint8_t blob[VPMU_STATE_MAX], before[VPMU_STATE_MAX], after[VPMU_STATE_MAX];
static uint8_t bad[VPMU_STATE_MAX + 1];
static size_t blob_len, before_len;

static void setup(void)
{
	src_vm = vm_with("p6", -1, -1, 0);
	dst_vm = vm_with("p6", -1, -1, 0);
	src = vcpu0(src_vm);
	dst = vcpu0(dst_vm);
	wr(src, 0x186, 0x4300c0);
	vpmu_vcpu_switch_in(src, 0);
	vpmu_sim_tick(sim, 0, VPMU_EV_INSTRUCTIONS, 4321, VPMU_MODE_KERNEL);
	vpmu_vcpu_switch_out(src);
	blob_len = save(src, blob);
	/* EN|INT|OS|USR branches, the counter 10 events from overflow. */
	wr(dst, 0x186, 0x5300c4);
	wr(dst, 0xc1, 0xfffffff6);
	vpmu_vcpu_switch_in(dst, 1);
	vpmu_sim_tick(sim, 1, VPMU_EV_BRANCHES, 15, VPMU_MODE_USER);
	vpmu_vcpu_switch_out(dst);
	before_len = save(dst, before);
	ok(blob_len && before_len && vpmu_vcpu_pmi_pending(dst, NULL),
	   "a p6 source saved; the destination differs and has a PMI pending");
}

/* Restore b[0..len) into dst: refused with an errno, a message, and dst
 * unchanged.  Returns the errno (0 where it was not refused, or changed dst). */
static int refused(const uint8_t *b, size_t len)
{
	char err[VPMU_STATE_ERR_LEN] = "";
	int rc = vpmu_vcpu_restore(dst, b, len, err);
	size_t n = save(dst, after);
	if (rc >= 0 || !err[0] || n != before_len || memcmp(before, after, n)) {
		printf("# rc %d, \"%s\", destination %s\n", rc, err,
		       n == before_len && !memcmp(before, after, n) ? "unchanged" : "changed");
		return 0;
	}
	return -rc;
}

static void test_damage(void)
{
	unsigned flips = 0, cuts = 0;
	for (size_t i = 0; i < blob_len; i++) {
		memcpy(bad, blob, blob_len);
		bad[i] ^= 0xff;
		flips += refused(bad, blob_len) != 0;
	}
	ok(flips == blob_len, "each of the %zu bytes flipped: refused, nothing changed (%u)",
	   blob_len, flips);
	for (size_t n = 0; n < blob_len; n++)
		cuts += refused(blob, n) == EINVAL;
	ok(cuts == blob_len, "truncated at each of the %zu lengths: -EINVAL, nothing changed (%u)",
	   blob_len, cuts);
	memcpy(bad, blob, blob_len);
	bad[blob_len] = 0;
	ok(refused(bad, blob_len + 1) == EINVAL, "a byte too many: -EINVAL");
	ok(refused(NULL, blob_len) == EINVAL, "no blob: -EINVAL");
	/* A well-sealed blob of another version: the version is what a reader
	 * checks first, with the magic. */
	static const uint16_t versions[] = { 0, 2, 0xffff };
	for (unsigned k = 0; k < 3; k++) {
		memcpy(bad, blob, blob_len);
		bad[4] = (uint8_t)versions[k];
		bad[5] = (uint8_t)(versions[k] >> 8);
		reseal(bad, blob_len);
		ok(refused(bad, blob_len) == EPROTO, "format version %u: -EPROTO", versions[k]);
	}
	memcpy(bad, blob, blob_len);
	bad[0] = 'X';
	reseal(bad, blob_len);
	ok(refused(bad, blob_len) == EINVAL, "bad magic, sealed: -EINVAL");
	/* EVNTSEL0 with bit 21, reserved on the P6 (SDM vol. 3B): the checksum
	 * is right, the destination refuses the value after others applied. */
	memcpy(bad, blob, blob_len);
	unsigned nregs = bad[HEADER_LEN] | bad[HEADER_LEN + 1] << 8, found = 0;
	for (unsigned i = 0; i < nregs; i++) {
		uint8_t *e = bad + HEADER_LEN + 2 + 13 * i;
		if ((e[0] | e[1] << 8 | e[2] << 16 | (uint32_t)e[3] << 24) == 0x186) {
			e[5 + 2] |= 0x20;   /* value bit 21 */
			found = 1;
		}
	}
	reseal(bad, blob_len);
	ok(found && refused(bad, blob_len) == EINVAL,
	   "a sealed blob with a reserved bit set: -EINVAL, the destination rolled back");
}

/* A blob of another vPMU onto dst. */
static void foreign(const char *what, struct vpmu_vm *vm)
{
	struct vpmu_vcpu *v = vcpu0(vm);
	static uint8_t other[VPMU_STATE_MAX];
	size_t n = v ? save(v, other) : 0;
	ok(n && refused(other, n) == EPROTO, "%s: -EPROTO, nothing changed", what);
	vpmu_vm_destroy(vm);
}

static void test_foreign(void)
{
	foreign("a k7's state", vm_with("k7", -1, -1, 0));
	foreign("a p6 of another CPUID model (Pentium II, model 5)", vm_with("p6", 5, -1, 0));
	foreign("a p6 in strict mode", vm_with("p6", -1, -1, VPMU_VM_STRICT));
	/* Skylake narrowed to 2 general counters, onto one with 4. */
	struct vpmu_vm *wide = vm_with("skylake", -1, -1, 0);
	struct vpmu_vcpu *save_dst = dst;
	uint8_t keep[VPMU_STATE_MAX];
	size_t keep_len = before_len;
	memcpy(keep, before, before_len);
	dst = vcpu0(wide);
	before_len = save(dst, before);
	foreign("skylake with 2 general counters onto 4", vm_with("skylake", -1, 2, 0));
	vpmu_vm_destroy(wide);
	dst = save_dst;
	before_len = keep_len;
	memcpy(before, keep, keep_len);
	size_t n = 0;
	ok(!vpmu_vm_save(src_vm, bad, sizeof(bad), &n) && refused(bad, n) == EPROTO,
	   "a VM's state onto a vCPU: -EPROTO");
}

/* The VM's blob: its configuration, checked. */
static void test_vm(void)
{
	static uint8_t vb[VPMU_STATE_MAX];
	char err[VPMU_STATE_ERR_LEN] = "";
	size_t n = 0, need = 0;
	ok(!vpmu_vm_save(src_vm, NULL, 0, &need) && !vpmu_vm_save(src_vm, vb, sizeof(vb), &n) &&
	   n == need, "a VM saved in %zu bytes", n);
	ok(!vpmu_vm_restore(dst_vm, vb, n, err), "onto a VM of the same configuration: 0");
	ok(vpmu_vcpu_restore(dst, vb, n, err) == -EPROTO, "a VM's blob onto a vCPU: -EPROTO (%s)",
	   err);
	ok(vpmu_vm_restore(dst_vm, blob, blob_len, err) == -EPROTO,
	   "a vCPU's blob onto a VM: -EPROTO (%s)", err);
	unsigned flips = 0;
	for (size_t i = 0; i < n; i++) {
		memcpy(bad, vb, n);
		bad[i] ^= 0x01;
		flips += vpmu_vm_restore(dst_vm, bad, n, NULL) < 0;
	}
	ok(flips == n, "each of its %zu bytes changed: refused", n);
	struct vpmu_event_filter f = { VPMU_FILTER_DENY, 0, 0, 0, NULL, 0, NULL };
	uint64_t ev = 0xc0;
	f.nevents = 1;
	f.events = &ev;
	ok(!vpmu_vm_set_event_filter(dst_vm, &f, NULL) &&
	   vpmu_vm_restore(dst_vm, vb, n, err) == -EPROTO && err[0],
	   "the destination has an event filter the source has not: -EPROTO (%s)", err);
	ok(!vpmu_vm_set_event_filter(src_vm, &f, NULL) && !vpmu_vm_save(src_vm, vb, sizeof(vb), &n) &&
	   !vpmu_vm_restore(dst_vm, vb, n, err), "both with the same filter: 0");
	ev = 0xc4;
	ok(!vpmu_vm_set_event_filter(src_vm, &f, NULL) && !vpmu_vm_save(src_vm, vb, sizeof(vb), &n) &&
	   vpmu_vm_restore(dst_vm, vb, n, err) == -EPROTO, "another filter: -EPROTO (%s)", err);
}

int main(void)
{
	struct vpmu_backend be;
	if (vpmu_sim_create(2, &sim))
		return 1;
	vpmu_sim_backend(sim, &be);
	if (vpmu_host_create(&be, 2, &host))
		return 1;
	vpmu_sim_attach(sim, host);
	setup();
	test_damage();
	test_foreign();
	test_vm();
	/* After all that, the source's blob still restores. */
	ok(!vpmu_vcpu_restore(dst, blob, blob_len, NULL) && save(dst, after) == blob_len &&
	   !memcmp(after, blob, blob_len), "the intact blob restores, byte for byte");
	is_u64(rd(dst, 0xc1), 4321, "the counter reads the 4321 events the source counted");
	vpmu_vm_destroy(src_vm);
	vpmu_vm_destroy(dst_vm);
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return tap_done();
}
