/* SPDX-License-Identifier: MIT */
/* Live accounting of a KVM vCPU: a request, a snapshot published by the vCPU
 * thread under a sequence count (kvm_live.h). */
#include <sched.h>
#include <string.h>
#include <time.h>

#include "kvm_live.h"

_Static_assert(sizeof(struct vpmu_kvm_snapshot) % sizeof(uint64_t) == 0,
	       "a snapshot is published as 64-bit words");

void kvm_live_publish(struct kvm_live *l, const struct vpmu_vcpu *v,
		      const struct vpmu_kvm_stats *s, uint64_t gen)
{
	struct vpmu_kvm_snapshot snap;
	memset(&snap, 0, sizeof(snap));
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snap.generation = gen;
	snap.time_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (v)
		vpmu_vcpu_totals(v, &snap.totals);
	if (s)
		snap.stats = *s;
	uint64_t w[KVM_LIVE_WORDS];
	memcpy(w, &snap, sizeof(w));

	/* The writer side of the sequence count: odd, the words, even again.
	 * The release fence keeps the words' stores after the odd count. */
	uint32_t seq = atomic_load_explicit(&l->seq, memory_order_relaxed);
	atomic_store_explicit(&l->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	for (size_t i = 0; i < KVM_LIVE_WORDS; i++)
		atomic_store_explicit(&l->words[i], w[i], memory_order_relaxed);
	atomic_store_explicit(&l->seq, seq + 2, memory_order_release);
	l->served = gen;
}

uint64_t kvm_live_request(struct kvm_live *l)
{
	return atomic_fetch_add_explicit(&l->requested, 1, memory_order_relaxed) + 1;
}

void kvm_live_read(const struct kvm_live *l, struct vpmu_kvm_snapshot *out)
{
	uint64_t w[KVM_LIVE_WORDS];
	for (unsigned tries = 0;; tries++) {
		uint32_t s1 = atomic_load_explicit(&l->seq, memory_order_acquire);
		if (!(s1 & 1)) {
			for (size_t i = 0; i < KVM_LIVE_WORDS; i++)
				w[i] = atomic_load_explicit(&l->words[i], memory_order_relaxed);
			/* The words' loads stay before the second count's. */
			atomic_thread_fence(memory_order_acquire);
			if (atomic_load_explicit(&l->seq, memory_order_relaxed) == s1)
				break;
		}
		/* A publication takes well under a microsecond; past a few
		 * spins the writer was preempted mid-way: let it run. */
		if (tries > 64)
			sched_yield();
	}
	memcpy(out, w, sizeof(*out));
}
