/* SPDX-License-Identifier: MIT */
/*
 * The RISC-V SBI PMU (RISC-V Supervisor Binary Interface Specification v2.0,
 * chapter "Performance Monitoring Unit Extension", EID 0x504D55; the
 * Sscofpmf extension of the RISC-V Privileged Architecture for overflow), as
 * the model riscv-sbi presents it: riscv_sbi.c has the counters, registers
 * and control, riscv_sbi_calls.c the extension's functions.  The page is
 * docs/models/riscv-sbi.md.
 *
 * Counters are numbered as the SBI numbers them (counter_idx), the way KVM
 * RISC-V numbers its virtual counters (arch/riscv/kvm/vcpu_pmu.c): hardware
 * counters 0..nhw-1 read through CSR 0xC00 + index (0 cycle, 2 instret, 3..
 * hpmcounter3..; 1 is time, which is no PMU counter and is invalid), then the
 * firmware counters nhw..nhw+21, one per SBI v2.0 firmware event.
 */
#ifndef VPMU_MODELS_RISCV_SBI_H
#define VPMU_MODELS_RISCV_SBI_H
#include <string.h>

#include "../model.h"

#define SBI_CSR_CYCLE     0xC00u        /* hardware counter i reads CSR 0xC00 + i */
#define SBI_CTR_TIME      1u            /* index 1: the time CSR, not a counter */
#define SBI_HW_MAX        32u           /* cycle, time, instret, hpmcounter3-31 */
#define SBI_HW_DEFAULT    19u           /* QEMU's virt CPUs: hpmcounter3-18 (pmu-mask) */
#define SBI_NR_FW         22u           /* SBI v2.0 firmware events 0..21 */
#define SBI_CTR_WIDTH     64u

/*
 * Control slot n: counter n's configuration, an image laid out like the
 * Sscofpmf mhpmevent register it stands for: the inhibit bits at their
 * mhpmevent places (bits 62-58), and the event: an SBI event index (type
 * 19:16, code 15:0) in bits 19:0, or for the raw types the event data in
 * bits 55:0 with the raw type (2 or 3) in bits 57:56.  Bit 63 (OF) is set in
 * the host image of a counter that overflowed and is not restarted: it
 * raises no second interrupt (Sscofpmf: "an overflow sets OF and raises
 * LCOFI only when OF was clear").
 */
#define SBI_IMG_OF        (1ull << 63)
#define SBI_IMG_MINH      (1ull << 62)
#define SBI_IMG_SINH      (1ull << 61)
#define SBI_IMG_UINH      (1ull << 60)
#define SBI_IMG_VSINH     (1ull << 59)
#define SBI_IMG_VUINH     (1ull << 58)
#define SBI_IMG_INH_SHIFT 58
#define SBI_IMG_RAW_SHIFT 56
#define SBI_IMG_DATA      ((1ull << 56) - 1)
#define SBI_IMG_IDX       0xFFFFFull

/* Event index types (SBI v2.0 "Event: ..." tables). */
enum { SBI_TYPE_HW = 0, SBI_TYPE_CACHE = 1, SBI_TYPE_RAW = 2, SBI_TYPE_RAW_V2 = 3,
       SBI_TYPE_FW = 15 };
#define SBI_HW_CYCLES       1
#define SBI_HW_INSTRUCTIONS 2
#define SBI_HW_GENERAL_MAX  10          /* ... 10 SBI_PMU_HW_REF_CPU_CYCLES */

/* MISC registers: per-counter state as masks (bit n = counter n), so that a
 * call over a set of counters changes a few registers, and the snapshot's
 * guest address. */
enum { SBI_MISC_MAPPED, SBI_MISC_STARTED, SBI_MISC_OVERFLOWED, SBI_MISC_SHMEM, SBI_NR_MISC };
#define SBI_SHMEM_NONE    (~0ull)

/* State registers (VPMU_SPACE_STATE) that save/restore carries: each
 * counter's configuration (by counter number), each firmware counter's value
 * (by its firmware number j, counter nhw + j: a hardware counter's value is
 * its CSR), the masks. */
#define SBI_STATE_CONFIG(n)   (VPMU_STATE_BASE + (n))
#define SBI_STATE_FW_VALUE(j) (VPMU_STATE_BASE + 0x40u + (j))   /* firmware counter j */
#define SBI_STATE_MISC(k)     (VPMU_STATE_BASE + 0xF0u + (k))

/* The rules a conforming supervisor keeps (docs/models/riscv-sbi.md). */
enum {
	SBI_RULE_START_UNCONFIGURED,
	SBI_RULE_STOP_UNCONFIGURED,
	SBI_RULE_CONFIG_RUNNING,
	SBI_RULE_RAW_DATA_RESERVED,
	SBI_NR_RULES
};

/* The VM's geometry (riscv_sbi.c refresh): nhw hardware counter indices. */
static inline unsigned sbi_nr_hw(const struct vpmu_pmu *p) { return p->nr_general; }
static inline bool sbi_is_fw_ctr(const struct vpmu_pmu *p, unsigned n)
{
	return n >= p->nr_general && n < p->nr_ctrs;
}
/* Whether a configuration image counts in some privilege mode: SINH and UINH
 * together inhibit every mode the guest runs (riscv_sbi.c sbi_priv). */
static inline bool sbi_image_counts(uint64_t img)
{
	return (img & (SBI_IMG_SINH | SBI_IMG_UINH)) != (SBI_IMG_SINH | SBI_IMG_UINH);
}
/* The SBI specification version the model implements (the VM's pmu_version):
 * 1 (v1.0: fids 0-5), 2 (v2.0: fw_read_hi, snapshots), 3 (v3.0: event_get_info,
 * raw events v2). */
static inline unsigned sbi_version(const struct vpmu_pmu *p) { return p->version; }

static inline unsigned sbi_idx_type(uint64_t idx) { return (unsigned)(idx >> 16) & 0xF; }
static inline unsigned sbi_idx_code(uint64_t idx) { return (unsigned)idx & 0xFFFF; }

/* Cache events: code = cache << 3 | op << 1 | result, cache L1D..NODE (0-6),
 * op read/write/prefetch (0-2), result access/miss (0-1). */
static inline bool sbi_cache_code_valid(unsigned code)
{
	return code >> 3 <= 6 && ((code >> 1) & 3) <= 2;
}

/* The counters that can count the event (type, code, data) at all, as a
 * mask; none for an event index the specification does not define.  A mask,
 * not a question per counter, inline: counter_config_matching looks for the
 * first free one among them on every perf event a guest adds. */
static inline uint64_t sbi_event_counters(const struct vpmu_pmu *p, uint64_t idx, uint64_t data)
{
	(void)data;
	if (idx >> 20)
		return 0;
	unsigned type = sbi_idx_type(idx), code = sbi_idx_code(idx);
	/* cycle and instret count their one event; hpmcounters any. */
	uint64_t hw = vpmu_width_mask(sbi_nr_hw(p)), hpm = hw & ~7ull;
	switch (type) {
	case SBI_TYPE_HW:
		if (code < 1 || code > SBI_HW_GENERAL_MAX)
			return 0;
		return hpm | (code == SBI_HW_CYCLES ? 1ull << 0 : 0) |
		       (code == SBI_HW_INSTRUCTIONS ? 1ull << 2 : 0);
	case SBI_TYPE_CACHE:
		return sbi_cache_code_valid(code) ? hpm : 0;
	case SBI_TYPE_RAW:
		return code == 0 ? hpm : 0;
	case SBI_TYPE_RAW_V2:
		return code == 0 && sbi_version(p) >= 3 ? hpm : 0;
	case SBI_TYPE_FW:
		return code < SBI_NR_FW ? vpmu_width_mask(p->nr_ctrs) & ~hw : 0;
	default:
		return 0;
	}
}

/* The configuration image of an event for counter flags (config_matching's
 * flags 7:3 are the inhibit bits). */
static inline uint64_t sbi_config_image(uint64_t idx, uint64_t data, uint64_t flags)
{
	uint64_t inh = ((flags >> 3) & 0x1F) << SBI_IMG_INH_SHIFT;
	unsigned type = sbi_idx_type(idx);
	if (type == SBI_TYPE_RAW || type == SBI_TYPE_RAW_V2)
		return inh | (uint64_t)type << SBI_IMG_RAW_SHIFT |
		       (data & (type == SBI_TYPE_RAW ? (1ull << 48) - 1 : SBI_IMG_DATA));
	return inh | (idx & SBI_IMG_IDX);
}

/* The snapshot area (v2.0 "Snapshot shared memory"): a u64 overflow bitmap,
 * then u64 counter values, indexed relative to the call's counter_idx_base. */
#define SBI_SNAPSHOT_SIZE (8u + 64u * 8u)

/* The snapshot area is little-endian (SBI v2.0 "Snapshot shared memory"): one
 * load or store on a little-endian host. */
static inline uint64_t sbi_le64(const uint8_t *b)
{
	uint64_t v;
	memcpy(&v, b, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}
static inline void sbi_put_le64(uint8_t *b, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(b, &v, sizeof(v));
}

/* The functions of guest memory (riscv_sbi_shmem.c): FID 7 and FID 8. */
long sbi_snapshot_set_shmem(struct vpmu_txn *t, const uint64_t *a);
long sbi_event_get_info(const struct vpmu_pmu *p, struct vpmu_txn *t, const uint64_t *a);

long sbi_call(const struct vpmu_model *m, const struct vpmu_ctx *cx, struct vpmu_txn *t,
	      unsigned long fid, const uint64_t *args, uint64_t *value);
#endif
