/* SPDX-License-Identifier: MIT */
/*
 * Live accounting of a KVM vCPU (include/vpmu/kvm_x86.h, vpmu_kvm_vcpu_snapshot;
 * docs/accounting.md, "Live view").  Another thread asks; the vCPU thread takes
 * the snapshot itself before its next entry, where the glue already does the
 * work a guest access left (vpmu_vcpu_enter), and publishes it under a
 * sequence count: the reader never stops the vCPU thread, and the vCPU thread
 * never waits for a reader.  Between requests the exit path pays one relaxed
 * load.
 *
 * The published words are C11 atomics (relaxed, ordered by the sequence
 * count's release/acquire), so a reader copying them while the vCPU thread
 * writes is no data race: the "seqlock" of Linux's include/linux/seqlock.h,
 * written as Boehm describes it for C11 ("Can seqlocks get along with
 * programming language memory models?", MSPC 2012).
 */
#ifndef VPMU_GLUE_KVM_LIVE_H
#define VPMU_GLUE_KVM_LIVE_H

#include <stdatomic.h>
#include <stdint.h>

#include "vpmu/kvm_x86.h"

#define KVM_LIVE_WORDS (sizeof(struct vpmu_kvm_snapshot) / sizeof(uint64_t))

struct kvm_live {
	_Atomic uint64_t requested;  /* the newest request (readers: fetch-add) */
	uint64_t served;             /* the newest request published (vCPU thread only) */
	_Atomic uint32_t seq;        /* odd while the vCPU thread writes words */
	_Atomic uint64_t words[KVM_LIVE_WORDS];   /* a struct vpmu_kvm_snapshot */
};

/* vCPU thread: publishes v's totals and stats s as the answer to request gen. */
void kvm_live_publish(struct kvm_live *l, const struct vpmu_vcpu *v,
		      const struct vpmu_kvm_stats *s, uint64_t gen);

/* vCPU thread, before every entry: publishes if a request is outstanding. */
static inline void kvm_live_serve(struct kvm_live *l, const struct vpmu_vcpu *v,
				  const struct vpmu_kvm_stats *s)
{
	uint64_t req = atomic_load_explicit(&l->requested, memory_order_relaxed);
	if (req != l->served)
		kvm_live_publish(l, v, s, req);
}

/* Any thread: a new request; the snapshot answering it has this generation. */
uint64_t kvm_live_request(struct kvm_live *l);
/* Any thread: the newest published snapshot, copied consistently. */
void kvm_live_read(const struct kvm_live *l, struct vpmu_kvm_snapshot *out);

#endif
