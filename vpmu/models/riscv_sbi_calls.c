/* SPDX-License-Identifier: MIT */
/*
 * The SBI PMU extension's functions (RISC-V SBI specification v2.0, chapter
 * "Performance Monitoring Unit Extension", FIDs 0-7; v3.0 adds FID 8), one
 * handler each, with the specification's error for each invalid argument;
 * the two whose arguments are guest memory are in riscv_sbi_shmem.c.
 * Where the specification leaves a choice, the model answers as KVM RISC-V
 * does (arch/riscv/kvm/vcpu_pmu.c), since that is the SBI implementation a
 * guest of a Linux host meets; docs/models/riscv-sbi.md lists the choices.
 * RV64: a0-a5 are 64 bits, the upper halves (fw_read_hi, a *_hi address)
 * are zero.
 */
#include "riscv_sbi.h"

/* config_matching flags (SBI v2.0 "Counter config matching") */
#define CFG_SKIP_MATCH  0x01u
#define CFG_CLEAR_VALUE 0x02u
#define CFG_AUTO_START  0x04u
#define CFG_VALID       0xFFu   /* with VUINH b3, VSINH b4, UINH b5, SINH b6, MINH b7 */
/* counter_start / counter_stop flags */
#define START_SET_INIT_VALUE 0x1u
#define START_INIT_SNAPSHOT  0x2u
#define STOP_RESET           0x1u
#define STOP_TAKE_SNAPSHOT   0x2u
static inline const struct vpmu_pmu *pmu_of(const struct vpmu_ctx *cx) { return cx->vm->pmu; }
static inline uint64_t misc(const struct vpmu_txn *t, unsigned k) { return t->regs->misc[k]; }

/* The counters (base, mask) name, as a mask of counter numbers; false if the
 * set is empty or names a counter past the last (KVM RISC-V's
 * kvm_pmu_validate_counter_mask: INVALID_PARAM). */
static bool counter_set(const struct vpmu_pmu *p, uint64_t base, uint64_t mask, uint64_t *set)
{
	if (!mask || base >= p->nr_ctrs)
		return false;
	unsigned last = 63 - (unsigned)__builtin_clzll(mask);
	if (base + last >= p->nr_ctrs)
		return false;
	*set = mask << base;
	return true;
}

static long get_info(const struct vpmu_pmu *p, uint64_t n, uint64_t *value)
{
	if (n >= p->nr_ctrs || n == SBI_CTR_TIME)
		return VPMU_SBI_ERR_INVALID_PARAM;
	if (sbi_is_fw_ctr(p, (unsigned)n))
		*value = 1ull << 63;                   /* type: firmware */
	else
		*value = (uint64_t)(p->width[n] - 1) << 12 | (SBI_CSR_CYCLE + n);
	return VPMU_SBI_SUCCESS;
}

/* The first counter of the set that is free and counts the event: the lowest
 * such index, so cycle and instret first for their events (KVM RISC-V
 * pmu_get_pmc_index). */
static int match_counter(const struct vpmu_pmu *p, uint64_t set, uint64_t mapped, uint64_t idx,
			 uint64_t data)
{
	uint64_t free = set & ~mapped & sbi_event_counters(p, idx, data);
	return free ? __builtin_ctzll(free) : -1;
}

static __attribute__((noinline)) long config_matching(const struct vpmu_pmu *p, struct vpmu_txn *t,
						       const uint64_t *a, uint64_t *value)
{
	uint64_t base = a[0], mask = a[1], flags = a[2], idx = a[3], data = a[4], set;
	if (!counter_set(p, base, mask, &set) || (flags & ~(uint64_t)CFG_VALID))
		return VPMU_SBI_ERR_INVALID_PARAM;
	uint64_t mapped = misc(t, SBI_MISC_MAPPED), started = misc(t, SBI_MISC_STARTED);
	int n;
	if (flags & CFG_SKIP_MATCH) {
		/* The supervisor knows its counter: the set's first must be one it
		 * configured (OpenSBI sbi_pmu_ctr_cfg_match; KVM says FAILURE). */
		n = __builtin_ctzll(set);
		if (!((mapped >> n) & 1))
			return VPMU_SBI_ERR_INVALID_PARAM;
		if (!((sbi_event_counters(p, idx, data) >> n) & 1))
			return VPMU_SBI_ERR_NOT_SUPPORTED;
		if ((started >> n) & 1)
			vpmu_txn_violate(t, SBI_RULE_CONFIG_RUNNING);
	} else {
		n = match_counter(p, set, mapped, idx, data);
		if (n < 0)
			return VPMU_SBI_ERR_NOT_SUPPORTED;
	}
	unsigned type = (unsigned)(idx >> 16) & 0xF;
	if ((type == SBI_TYPE_RAW && data >> 48) || (type == SBI_TYPE_RAW_V2 && data >> 56))
		vpmu_txn_violate(t, SBI_RULE_RAW_DATA_RESERVED);
	uint64_t bit = 1ull << n;
	vpmu_txn_set_ctrl(t, (unsigned)n, sbi_config_image(idx, data, flags));
	vpmu_txn_set_misc(t, SBI_MISC_MAPPED, mapped | bit);
	if (flags & CFG_CLEAR_VALUE)
		vpmu_txn_set_ctr(t, (unsigned)n, 0);
	if (flags & CFG_AUTO_START) {
		vpmu_txn_set_misc(t, SBI_MISC_STARTED, started | bit);
		vpmu_txn_set_misc(t, SBI_MISC_OVERFLOWED, misc(t, SBI_MISC_OVERFLOWED) & ~bit);
	} else if (!(started & bit)) {
		/* A stopped counter is in no control: configuring it changes none
		 * (riscv_sbi.c sbi_derive), as KVM RISC-V creates the perf event
		 * disabled. */
		vpmu_txn_keep_control(t);
	}
	*value = (uint64_t)n;
	return VPMU_SBI_SUCCESS;
}

static bool snapshot_set(const struct vpmu_txn *t)
{
	return misc(t, SBI_MISC_SHMEM) != SBI_SHMEM_NONE;
}

/* How the control changes when counter n alone starts (joins) or stops
 * (leaves), the others' OF unchanged: a hardware counter that counts in some
 * mode is its entry (set_masks); any other is in no control. */
static inline void one_counter_moves(const struct vpmu_pmu *p, struct vpmu_txn *t, unsigned n,
				     bool joins)
{
	uint64_t img = t->regs->ctrl[n];
	if (n >= sbi_nr_hw(p) || !sbi_image_counts(img))
		vpmu_txn_keep_control(t);
	else if (joins)
		vpmu_txn_add_counter(t, n, img);
	else
		vpmu_txn_drop_counter(t, n);
}

/* Stage the masks a start or stop leaves, and say how the control changes
 * (riscv_sbi.c sbi_derive: the started, configured hardware counters that
 * count in some mode, i-mode until they overflow): not at all when the same
 * ones count with the same OF (firmware counters, a released stopped
 * counter), or by one counter joining as i-mode or leaving, as KVM RISC-V
 * creates or releases that counter's perf event. */
static void set_masks(const struct vpmu_pmu *p, struct vpmu_txn *t, uint64_t started,
		      uint64_t mapped, uint64_t ovf)
{
	const struct vpmu_regfile *r = t->regs;
	uint64_t hw = vpmu_width_mask(sbi_nr_hw(p));
	uint64_t was = r->misc[SBI_MISC_STARTED] & r->misc[SBI_MISC_MAPPED] & hw;
	uint64_t now = started & mapped & hw, moved = was ^ now;
	bool of_same = !((r->misc[SBI_MISC_OVERFLOWED] ^ ovf) & was & now);
	vpmu_txn_set_misc(t, SBI_MISC_STARTED, started);
	vpmu_txn_set_misc(t, SBI_MISC_MAPPED, mapped);
	vpmu_txn_set_misc(t, SBI_MISC_OVERFLOWED, ovf);
	if (!of_same || (moved & (moved - 1)))
		return;   /* the full derive */
	if (!moved) {
		vpmu_txn_keep_control(t);
		return;
	}
	/* One counter moved; one that joins was started, so its OF is clear. */
	unsigned n = (unsigned)__builtin_ctzll(moved);
	one_counter_moves(p, t, n, (now >> n) & 1);
}

/* A start of the counters of set (counter_idx_base base), loaded with init
 * (SET_INIT_VALUE), with their values in the snapshot snap (INIT_SNAPSHOT),
 * or as they are. */
static __attribute__((noinline)) long start_counters(const struct vpmu_pmu *p, struct vpmu_txn *t,
						      uint64_t base, uint64_t set, uint64_t flags,
						      uint64_t init, const uint8_t *snap)
{
	uint64_t mapped = misc(t, SBI_MISC_MAPPED), started = misc(t, SBI_MISC_STARTED);
	uint64_t ovf = misc(t, SBI_MISC_OVERFLOWED);
	long e = VPMU_SBI_SUCCESS;
	for (uint64_t b = set; b; b &= b - 1) {
		unsigned n = (unsigned)__builtin_ctzll(b);
		uint64_t bit = 1ull << n;
		if (!(mapped & bit)) {
			vpmu_txn_violate(t, SBI_RULE_START_UNCONFIGURED);
			continue;
		}
		if (started & bit) {
			e = VPMU_SBI_ERR_ALREADY_STARTED;
			continue;
		}
		started |= bit;
		ovf &= ~bit;   /* started again: a new overflow may interrupt */
		if (flags & START_SET_INIT_VALUE)
			vpmu_txn_set_ctr(t, n, init);
		else if (flags & START_INIT_SNAPSHOT)
			vpmu_txn_set_ctr(t, n, sbi_le64(snap + 8 + 8 * (n - base)));
	}
	set_masks(p, t, started, mapped, ovf);
	if (e != VPMU_SBI_SUCCESS)
		vpmu_txn_commit_on_error(t);
	return e;
}

/* The snapshot's part a call with counter_idx_base base over set uses: the
 * overflow bitmap and the values up to the set's last counter. */
static inline uint32_t snapshot_used(uint64_t base, uint64_t set)
{
	return 8u + 8u * (64u - (unsigned)__builtin_clzll(set) - (unsigned)base);
}

/* Out of line: the snapshot's buffer stays off the path of a start without it. */
static __attribute__((noinline)) long start_from_snapshot(const struct vpmu_pmu *p,
							   struct vpmu_txn *t, uint64_t base,
							   uint64_t set)
{
	uint8_t snap[SBI_SNAPSHOT_SIZE];
	if (!snapshot_set(t))
		return VPMU_SBI_ERR_NO_SHMEM;
	if (vpmu_txn_guest_read(t, misc(t, SBI_MISC_SHMEM), snap, snapshot_used(base, set)))
		return VPMU_SBI_ERR_FAILED;
	return start_counters(p, t, base, set, START_INIT_SNAPSHOT, 0, snap);
}

static __attribute__((noinline)) long counter_start(const struct vpmu_pmu *p, struct vpmu_txn *t,
						     const uint64_t *a)
{
	uint64_t base = a[0], mask = a[1], flags = a[2], set;
	if (!counter_set(p, base, mask, &set) || (flags & ~3ull) ||
	    flags == (START_SET_INIT_VALUE | START_INIT_SNAPSHOT))
		return VPMU_SBI_ERR_INVALID_PARAM;
	if (flags & START_INIT_SNAPSHOT)
		return start_from_snapshot(p, t, base, set);
	/* Linux starts one configured, stopped counter at a time (riscv_pmu_sbi
	 * pmu_sbi_ctr_start): start_counters' case in a few instructions. */
	const uint64_t *m = t->regs->misc;
	if (!(set & (set - 1)) && (m[SBI_MISC_MAPPED] & ~m[SBI_MISC_STARTED] & set)) {
		unsigned n = (unsigned)__builtin_ctzll(set);
		vpmu_txn_set_misc(t, SBI_MISC_STARTED, m[SBI_MISC_STARTED] | set);
		if (m[SBI_MISC_OVERFLOWED] & set)
			vpmu_txn_set_misc(t, SBI_MISC_OVERFLOWED, m[SBI_MISC_OVERFLOWED] & ~set);
		if (flags & START_SET_INIT_VALUE)
			vpmu_txn_set_ctr(t, n, a[3]);
		one_counter_moves(p, t, n, true);
		return VPMU_SBI_SUCCESS;
	}
	return start_counters(p, t, base, set, flags, a[3], NULL);
}

/* A stop of the counters of set; with snap (TAKE_SNAPSHOT), their values and
 * overflows written into it, relative to base. */
static __attribute__((noinline)) long stop_counters(const struct vpmu_pmu *p, struct vpmu_txn *t,
						     uint64_t base, uint64_t set, uint64_t flags,
						     uint8_t *snap)
{
	uint64_t mapped = misc(t, SBI_MISC_MAPPED), started = misc(t, SBI_MISC_STARTED);
	uint64_t ovf = misc(t, SBI_MISC_OVERFLOWED), ovf_snap = snap ? sbi_le64(snap) : 0;
	long e = VPMU_SBI_SUCCESS;
	for (uint64_t b = set; b; b &= b - 1) {
		unsigned n = (unsigned)__builtin_ctzll(b), i = (unsigned)(n - base);
		uint64_t bit = 1ull << n;
		if (!(mapped & bit)) {
			vpmu_txn_violate(t, SBI_RULE_STOP_UNCONFIGURED);
			continue;
		}
		if (!(started & bit))
			e = VPMU_SBI_ERR_ALREADY_STOPPED;
		started &= ~bit;
		if (snap) {
			sbi_put_le64(snap + 8 + 8 * i, vpmu_txn_ctr(t, n));
			if (ovf & bit)
				ovf_snap |= 1ull << i;
		}
		if (flags & STOP_RESET) {
			/* Released: unconfigured, its overflow forgotten (the
			 * snapshot's bit too, as KVM RISC-V clears it). */
			mapped &= ~bit;
			ovf &= ~bit;
			ovf_snap &= ~(1ull << i);
		}
	}
	set_masks(p, t, started, mapped, ovf);
	if (snap) {
		sbi_put_le64(snap, ovf_snap);
		if (vpmu_txn_guest_write(t, misc(t, SBI_MISC_SHMEM), snap, snapshot_used(base, set)))
			return VPMU_SBI_ERR_FAILED;
	}
	if (e != VPMU_SBI_SUCCESS)
		vpmu_txn_commit_on_error(t);
	return e;
}

/* Out of line, as start_from_snapshot.  Only the part of the area the set
 * uses is read and written back: the rest stays as the guest left it, which a
 * whole-area copy would write unchanged. */
static __attribute__((noinline)) long stop_to_snapshot(const struct vpmu_pmu *p,
							struct vpmu_txn *t, uint64_t base,
							uint64_t set, uint64_t flags)
{
	uint8_t snap[SBI_SNAPSHOT_SIZE];
	if (!snapshot_set(t))
		return VPMU_SBI_ERR_NO_SHMEM;
	if (vpmu_txn_guest_read(t, misc(t, SBI_MISC_SHMEM), snap, snapshot_used(base, set)))
		return VPMU_SBI_ERR_FAILED;
	return stop_counters(p, t, base, set, flags, snap);
}

static __attribute__((noinline)) long counter_stop(const struct vpmu_pmu *p, struct vpmu_txn *t,
						    const uint64_t *a)
{
	uint64_t base = a[0], mask = a[1], flags = a[2], set;
	if (!counter_set(p, base, mask, &set) || (flags & ~3ull))
		return VPMU_SBI_ERR_INVALID_PARAM;
	if (flags & STOP_TAKE_SNAPSHOT)
		return stop_to_snapshot(p, t, base, set, flags);
	/* One started counter (riscv_pmu_sbi pmu_sbi_ctr_stop), as start's. */
	const uint64_t *m = t->regs->misc;
	if (!(set & (set - 1)) && (m[SBI_MISC_MAPPED] & m[SBI_MISC_STARTED] & set)) {
		unsigned n = (unsigned)__builtin_ctzll(set);
		if (flags & STOP_RESET) {
			/* Released: unconfigured, its overflow forgotten. */
			vpmu_txn_set_misc(t, SBI_MISC_MAPPED, m[SBI_MISC_MAPPED] & ~set);
			if (m[SBI_MISC_OVERFLOWED] & set)
				vpmu_txn_set_misc(t, SBI_MISC_OVERFLOWED,
						  m[SBI_MISC_OVERFLOWED] & ~set);
		}
		vpmu_txn_set_misc(t, SBI_MISC_STARTED, m[SBI_MISC_STARTED] & ~set);
		one_counter_moves(p, t, n, false);
		return VPMU_SBI_SUCCESS;
	}
	return stop_counters(p, t, base, set, flags, NULL);
}

static long fw_read(const struct vpmu_pmu *p, struct vpmu_txn *t, uint64_t n, bool hi,
		    uint64_t *value)
{
	if (n >= p->nr_ctrs || !sbi_is_fw_ctr(p, (unsigned)n))
		return VPMU_SBI_ERR_INVALID_PARAM;
	/* RV64: the value is XLEN wide; its upper half is zero. */
	*value = hi ? 0 : vpmu_txn_ctr(t, (unsigned)n);
	return VPMU_SBI_SUCCESS;
}

/* The dispatch: each function's handler out of line, so that the dispatch is
 * a jump to it (a call's cost is its handler's: docs/performance.md). */
long sbi_call(const struct vpmu_model *m, const struct vpmu_ctx *cx, struct vpmu_txn *t,
	      unsigned long fid, const uint64_t *a, uint64_t *value)
{
	(void)m;
	const struct vpmu_pmu *p = pmu_of(cx);
	unsigned v = sbi_version(p);
	switch (fid) {
	case VPMU_SBI_PMU_NUM_COUNTERS:
		*value = p->nr_ctrs;
		return VPMU_SBI_SUCCESS;
	case VPMU_SBI_PMU_COUNTER_GET_INFO:
		return get_info(p, a[0], value);
	case VPMU_SBI_PMU_COUNTER_CONFIG_MATCHING:
		return config_matching(p, t, a, value);
	case VPMU_SBI_PMU_COUNTER_START:
		return counter_start(p, t, a);
	case VPMU_SBI_PMU_COUNTER_STOP:
		return counter_stop(p, t, a);
	case VPMU_SBI_PMU_COUNTER_FW_READ:
		return fw_read(p, t, a[0], false, value);
	case VPMU_SBI_PMU_COUNTER_FW_READ_HI:
		return v >= 2 ? fw_read(p, t, a[0], true, value) : VPMU_SBI_ERR_NOT_SUPPORTED;
	case VPMU_SBI_PMU_SNAPSHOT_SET_SHMEM:
		return v >= 2 ? sbi_snapshot_set_shmem(t, a) : VPMU_SBI_ERR_NOT_SUPPORTED;
	case VPMU_SBI_PMU_EVENT_GET_INFO:
		return v >= 3 ? sbi_event_get_info(p, t, a) : VPMU_SBI_ERR_NOT_SUPPORTED;
	default:
		return VPMU_SBI_ERR_NOT_SUPPORTED;
	}
}
