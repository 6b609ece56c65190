/* SPDX-License-Identifier: MIT */
/*
 * The LVTPC write gate (kvm_gate.h).  A vCPU thread marks itself in KVM_RUN
 * and then looks at the gate; the writer closes the gate and then looks at
 * the marks.  Both are sequentially consistent, so at least one of the two
 * sees the other: either the vCPU backs off before KVM_RUN, or the writer
 * sees it inside and kicks it out (the kick signal is blocked outside KVM_RUN,
 * KVM_SET_SIGNAL_MASK, so a kick sent just before the vCPU reaches KVM_RUN
 * ends that KVM_RUN at once).  The entry path pays two stores and two loads.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "kvm_gate.h"

/* How long the writer waits before it kicks again a vCPU still in KVM_RUN
 * (one kick suffices; this is the safety net). */
#define REKICK_NS 10000000L

struct kvm_gate *kvm_gate_create(void)
{
	struct kvm_gate *g = calloc(1, sizeof(*g));
	pthread_condattr_t ca;
	if (!g)
		return NULL;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_mutex_init(&g->lock, NULL)) {
		pthread_condattr_destroy(&ca);
		free(g);
		return NULL;
	}
	if (pthread_cond_init(&g->cond, &ca)) {
		pthread_condattr_destroy(&ca);
		pthread_mutex_destroy(&g->lock);
		free(g);
		return NULL;
	}
	pthread_condattr_destroy(&ca);
	return g;
}

void kvm_gate_free(void *gate)
{
	struct kvm_gate *g = gate;
	if (!g)
		return;
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

void kvm_gate_register(struct kvm_gate *g, unsigned index, int signo)
{
	struct kvm_gate_slot *s = &g->slot[index];
	pthread_mutex_lock(&g->lock);
	s->live = true;
	s->thread = pthread_self();
	s->signo = signo;
	atomic_store(&s->in_run, false);
	pthread_mutex_unlock(&g->lock);
}

void kvm_gate_unregister(struct kvm_gate *g, unsigned index)
{
	struct kvm_gate_slot *s = &g->slot[index];
	pthread_mutex_lock(&g->lock);
	s->live = false;
	atomic_store(&s->in_run, false);
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

void kvm_gate_enter(struct kvm_gate *g, unsigned index)
{
	struct kvm_gate_slot *s = &g->slot[index];
	/* A VMM may move a vCPU to another thread (switching it out first): the
	 * writer kicks the one that runs it now.  Only this thread writes it. */
	if (!pthread_equal(s->thread, pthread_self())) {
		pthread_mutex_lock(&g->lock);
		s->thread = pthread_self();
		pthread_mutex_unlock(&g->lock);
	}
	for (;;) {
		atomic_store(&s->in_run, true);
		if (!atomic_load(&g->closed))
			return;
		/* a writer holds the gate: out of its way until it opens */
		atomic_store(&s->in_run, false);
		pthread_mutex_lock(&g->lock);
		pthread_cond_broadcast(&g->cond);
		while (atomic_load(&g->closed))
			pthread_cond_wait(&g->cond, &g->lock);
		pthread_mutex_unlock(&g->lock);
	}
}

void kvm_gate_leave(struct kvm_gate *g, unsigned index)
{
	atomic_store(&g->slot[index].in_run, false);
	if (atomic_load(&g->closed)) {
		pthread_mutex_lock(&g->lock);
		pthread_cond_broadcast(&g->cond);
		pthread_mutex_unlock(&g->lock);
	}
}

void kvm_gate_close(struct kvm_gate *g, unsigned self)
{
	bool kicked[VPMU_MAX_VCPUS] = { false };
	pthread_mutex_lock(&g->lock);
	while (atomic_load(&g->closed))
		pthread_cond_wait(&g->cond, &g->lock);
	atomic_store(&g->closed, true);
	for (;;) {
		bool busy = g->irq > 0;
		for (unsigned i = 0; i < VPMU_MAX_VCPUS; i++) {
			struct kvm_gate_slot *s = &g->slot[i];
			if (i == self || !s->live || !atomic_load(&s->in_run))
				continue;
			busy = true;
			if (!kicked[i])
				pthread_kill(s->thread, s->signo);
			kicked[i] = true;
		}
		if (!busy)
			break;
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		t.tv_nsec += REKICK_NS;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&g->cond, &g->lock, &t) == ETIMEDOUT)
			for (unsigned i = 0; i < VPMU_MAX_VCPUS; i++)
				kicked[i] = false;
	}
	pthread_mutex_unlock(&g->lock);
}

void kvm_gate_open(struct kvm_gate *g)
{
	pthread_mutex_lock(&g->lock);
	atomic_store(&g->closed, false);
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

void kvm_gate_irq_begin(struct kvm_gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (atomic_load(&g->closed))
		pthread_cond_wait(&g->cond, &g->lock);
	g->irq++;
	pthread_mutex_unlock(&g->lock);
}

void kvm_gate_irq_end(struct kvm_gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->irq--;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}
