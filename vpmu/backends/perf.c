/* SPDX-License-Identifier: MIT */
/*
 * The perf host backend (docs/integration.md "What the host counts"): each
 * guest counter that counts is counted by the host's perf_event subsystem on
 * its vCPU thread (host CPU slot n is the thread that called
 * vpmu_perf_bind(p, n)).
 *
 * The core programs control images and counter values exactly as perfctr
 * programs hardware; this backend decodes each image with the model's own
 * decoder into what the counter counts (generic event, privilege filter,
 * interrupt) and keeps, per counter, its 64-bit value at the last reading of
 * its source.  What the source is is decided once, at creation:
 *   - a host PMU (perf_event_open of PERF_TYPE_HARDWARE succeeds): one pinned
 *     hardware event per counting guest counter, exclude_host (guest mode
 *     only), exclude_user/exclude_kernel from the guest's privilege bits; an
 *     i-mode counter samples with its overflow distance as the period;
 *   - none (these machines, CI, most cloud VMs): the generic events that run at
 *     the core clock -- cycles, ref-cycles -- advance with the vCPU thread's
 *     task clock scaled by the guest's TSC frequency, so that a guest's cycles
 *     counter follows its TSC while its thread runs; every other event counts
 *     zero and is reported as not countable (counts are never invented).
 * A register write only records the change; the syscalls it needs happen at
 * the next entry (enter), once, and only for the counters whose configuration
 * changed: a cache hit makes none.  The task clock is read without a system
 * call while its thread has not been scheduled out since the last read (the
 * lock word of its mmap page changes at every sched-in), so an MSR exit that
 * reads a counter costs no syscall either.
 *
 * Overflow: the host event's overflow sends `signo` to the vCPU thread, which
 * ends KVM_RUN with -EINTR; the VMM calls vpmu_vcpu_poll(), and poll reports
 * every interrupt-enabled counter whose value passed its overflow point.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_slot.h"
#include "perf_translate.h"

/* The generic events that run at the core clock, which the TSC-scaled task
 * clock stands for without a host PMU.  (Bus cycles run at the bus clock, a
 * ratio of the core's the host cannot know: not countable.) */
static bool clock_class(int ev)
{
	return ev == VPMU_EV_CYCLES || ev == VPMU_EV_REF_CYCLES;
}

/* ---- sources ---- */

/* The counter's source now: the task clock scaled (events), or its event's count. */
static bool source_read(struct vpmu_perf *p, struct perf_slot *s, struct perf_ctr *c,
			uint64_t *now)
{
	if (c->src == VPMU_COUNT_TASK_CLOCK) {
		uint64_t ns;
		if (!perf_guest_ns(p, s, &ns))
			return false;
		*now = perf_scale(ns, s->tsc_khz);
		return true;
	}
	if ((c->src == VPMU_COUNT_HARDWARE || c->src == VPMU_COUNT_RAW) && c->fd >= 0) {
		/* An exclude_host event counts only while the guest runs: between an
		 * exit and the next entry one read(2) per counter is enough (a
		 * switch pair reads nothing twice). */
		uint64_t bit = 1ull << (c - s->ctr);
		if (!(s->hw_read & bit)) {
			if (!perf_event_count(p, s, c, &c->hw_count))
				return false;
			s->hw_read |= bit;
			s->pending = true;   /* the entry forgets the readings */
		}
		*now = c->hw_count;
		return true;
	}
	return false;
}

/* Land the counter's count in value, and restart it from there: every
 * successful reading is kept, so a source that fails later (a pinned event
 * the host stops scheduling) leaves the counter at its last value. */
static void ctr_fold(struct vpmu_perf *p, struct perf_slot *s, struct perf_ctr *c)
{
	uint64_t now;
	if (source_read(p, s, c, &now)) {
		c->value += now - c->at;
		c->at = now;
	}
}

/* What counter c holds now (64 bits, never wrapped). */
static uint64_t ctr_value(struct vpmu_perf *p, struct perf_slot *s, struct perf_ctr *c)
{
	ctr_fold(p, s, c);
	return c->value;
}

/* The value at which counter c next overflows: the wrap at its width (x86),
 * or its MSB becoming 1 (PowerPC: vpmu_pmu_overflows_at_msb). */
static uint64_t next_overflow(const struct perf_slot *s, const struct perf_ctr *c, uint64_t value)
{
	uint64_t v = value & c->mask;
	if (s->msb) {
		uint64_t msb = (c->mask >> 1) + 1;
		return v < msb ? value + (msb - v) : value + (c->mask - v) + 1 + msb;
	}
	/* A 64-bit counter at 0 is a whole lap, 2^64, from its overflow: taken
	 * as 2^63 (perf_ovf_reached), which no run reaches. */
	if (!~c->mask && !v)
		return value + (1ull << 63);
	return value + (c->mask - v) + 1;
}

/* ---- register-level ops (backend.h) ---- */

/* Another layout's registers do not carry over: start from reset.  Another
 * VM's PMU of the same layout may differ in its counters' widths. */
static struct perf_slot *slot_for(struct vpmu_perf *p, unsigned cpu, const struct vpmu_pmu *pmu)
{
	if (cpu >= p->nr_cpus)
		return NULL;
	struct perf_slot *s = &p->slot[cpu];
	if (s->pmu == pmu)
		return s;
	if (s->layout != vpmu_pmu_layout(pmu)) {
		perf_slot_reset(p, s);
		s->layout = vpmu_pmu_layout(pmu);
	}
	s->pmu = pmu;
	s->msb = vpmu_pmu_overflows_at_msb(pmu);
	for (unsigned pmc = 0; pmc < VPMU_MAX_CTRS; pmc++) {
		unsigned w = vpmu_pmu_ctr_width(pmu, pmc);
		s->ctr[pmc].mask = w >= 64 ? ~0ull : (1ull << w) - 1;
	}
	return s;
}

/* How this host counts generic event ev on slot s (VPMU_COUNT_NONE: not at all). */
static enum vpmu_count_source source_of(const struct vpmu_perf *p, const struct perf_slot *s,
					int ev)
{
	if (ev < 0)
		return VPMU_COUNT_NONE;
	if (p->host_pmu)
		return VPMU_COUNT_HARDWARE;   /* perf_translate says which */
	if (clock_class(ev) && s->clock_fd >= 0 && s->tsc_khz)
		return VPMU_COUNT_TASK_CLOCK;
	return VPMU_COUNT_NONE;
}

static void perf_write_ctrl(void *ctx, unsigned cpu, const struct vpmu_pmu *pmu, unsigned slot,
			    uint64_t value)
{
	struct vpmu_perf *p = ctx;
	struct perf_slot *s = slot_for(p, cpu, pmu);
	if (!s || slot >= VPMU_MAX_CTRL_SLOTS)
		return;
	if (s->ctrl[slot] == value)
		return;
	s->ctrl[slot] = value;
	/* One image may steer several counters (a P5 CESR, a P4 ESCR): decode each,
	 * and touch only those whose configuration changed.  A counter number
	 * without a register (width 0: the gap below architectural perfmon's
	 * fixed counters) counts nothing. */
	unsigned nr = vpmu_pmu_nr_ctrs(pmu);
	for (unsigned pmc = 0; pmc < nr && pmc < VPMU_MAX_CTRS; pmc++) {
		struct perf_ctr *c = &s->ctr[pmc];
		if (!c->mask)
			continue;
		unsigned priv;
		bool irq;
		int entry;
		int ev = vpmu_pmu_decode_event(pmu, s->ctrl, pmc, &priv, &irq, &entry);
		if (!priv)
			ev = VPMU_EV_NONE, entry = -1;
		/* Its event in the VM's table: two events that are no generic
		 * event differ on the host (perf_translate.h). */
		if (ev == c->event && entry == c->entry && priv == c->priv && irq == c->irq &&
		    source_of(p, s, ev) == c->src_generic)
			continue;
		struct perf_host_event he = { VPMU_COUNT_NONE, 0, 0, vpmu_event_name(ev) };
		if (priv)
			perf_translate(p, pmu, entry, ev, &he);
		if (!p->host_pmu)
			he.src = source_of(p, s, ev);
		else if (priv && he.src == VPMU_COUNT_NONE)
			perf_log_not_countable(p, he.name);
		enum vpmu_count_source src = he.src;
		/* The old configuration's count stays in the value; the new one
		 * counts on from there. */
		ctr_fold(p, s, c);
		uint64_t old_ovf = c->ovf_at;
		c->event = ev;
		c->entry = entry;
		c->src_generic = source_of(p, s, ev);
		c->priv = priv;
		c->irq = irq;
		c->src = src;
		c->type = he.type;
		c->config = he.config;
		c->name = he.name;
		if (irq && src != VPMU_COUNT_NONE)
			s->irq_mask |= 1ull << pmc;
		else
			s->irq_mask &= ~(1ull << pmc);
		c->refused = false;
		if (irq)
			c->ovf_at = next_overflow(s, c, c->value);
		if (p->host_pmu) {
			/* The event is closed and opened again at the next entry only if
			 * what it counts changed: perfctr's isuspend stops an i-mode
			 * counter by a control write that write_control undoes, and the
			 * open event has counted nothing meanwhile (the guest was not
			 * running, and it counts guest mode only), so it just goes on. */
			bool want = src == VPMU_COUNT_HARDWARE || src == VPMU_COUNT_RAW;
			bool same = want && c->fd >= 0 && he.type == c->fd_type &&
				    he.config == c->fd_config && priv == c->fd_priv && irq == c->fd_irq;
			c->reopen = !same && (want || c->fd >= 0);
			if (same && irq && c->ovf_at != old_ovf)
				c->rearm = true;
			if (c->reopen || c->rearm)
				s->apply |= 1ull << pmc;
		} else if (src == VPMU_COUNT_TASK_CLOCK) {
			uint64_t ns;
			if (perf_guest_ns(p, s, &ns))
				c->at = perf_scale(ns, s->tsc_khz);
		}
		s->pending = true;
	}
}

static void perf_write_ctr(void *ctx, unsigned cpu, const struct vpmu_pmu *pmu, unsigned pmc,
			   uint64_t value)
{
	struct vpmu_perf *p = ctx;
	struct perf_slot *s = slot_for(p, cpu, pmu);
	if (!s || pmc >= VPMU_MAX_CTRS)
		return;
	struct perf_ctr *c = &s->ctr[pmc];
	ctr_fold(p, s, c);
	/* A write loads the model-width value (backend.h), as the sim's does:
	 * the core's next difference starts from it.  perfctr's iresume writes an
	 * i-mode counter back with the value it holds: then only the laps above
	 * the width go, and its overflow point (the host's period) stays where
	 * it was relative to the value. */
	uint64_t v = value & c->mask;
	if (v == (c->value & c->mask)) {
		uint64_t laps = c->value - v;
		c->value = v;
		c->ovf_at = c->ovf_at > laps ? c->ovf_at - laps : 0;
		return;
	}
	c->value = v;
	if (c->irq) {
		c->ovf_at = next_overflow(s, c, c->value);
		c->rearm = true;
		s->apply |= 1ull << pmc;
		s->pending = true;
	}
}

static uint64_t perf_read_ctr(void *ctx, unsigned cpu, const struct vpmu_pmu *pmu, unsigned pmc)
{
	struct vpmu_perf *p = ctx;
	if (cpu >= p->nr_cpus || pmc >= VPMU_MAX_CTRS)
		return 0;
	struct perf_slot *s = &p->slot[cpu];
	/* A reading changes nothing: another layout's registers read as reset. */
	if (s->layout != vpmu_pmu_layout(pmu))
		return 0;
	return ctr_value(p, s, &s->ctr[pmc]);
}

/* ---- entry and poll ---- */

static void perf_enter(void *ctx, unsigned cpu)
{
	struct vpmu_perf *p = ctx;
	if (cpu >= p->nr_cpus)
		return;
	struct perf_slot *s = &p->slot[cpu];
	if (!s->pending)
		return;
	s->pending = false;
	if (p->host_pmu) {
		/* Only the counters a write or an overflow marked. */
		for (uint64_t m = s->apply; m; m &= m - 1) {
			unsigned pmc = (unsigned)__builtin_ctzll(m);
			struct perf_ctr *c = &s->ctr[pmc];
			if (c->reopen || c->rearm)
				perf_hw_apply(p, s, c, pmc, ctr_value(p, s, c));
		}
		s->apply = 0;
		s->hw_read = 0;   /* the guest runs: its counts move again */
		return;
	}
	/* The task clock interrupts at the first overflow among its counters
	 * (their values: what the guest's clock stood at during the exit). */
	s->apply = 0;
	uint64_t best = UINT64_MAX;
	for (uint64_t m = s->irq_mask; m; m &= m - 1) {
		struct perf_ctr *c = &s->ctr[__builtin_ctzll(m)];
		c->rearm = false;
		if (c->src == VPMU_COUNT_TASK_CLOCK) {
			uint64_t v = ctr_value(p, s, c);
			uint64_t d = perf_ovf_period(c, v);
			if (d < best)
				best = d;
		}
	}
	perf_guest_resume(p, s);
	perf_clock_arm(p, s, best);
}

static void perf_poll(void *ctx, unsigned cpu)
{
	struct vpmu_perf *p = ctx;
	if (cpu >= p->nr_cpus)
		return;
	struct perf_slot *s = &p->slot[cpu];
	uint64_t ovf = 0, ns;
	/* The task clock's timer fired (its deadline passed): it is periodic, so
	 * arm it again for what is due now. */
	if (s->deadline && perf_guest_ns(p, s, &ns) && s->frozen_raw >= s->deadline) {
		s->deadline = 0;
		s->pending = true;
	}
	for (uint64_t m = s->irq_mask; m; m &= m - 1) {
		unsigned pmc = (unsigned)__builtin_ctzll(m);
		struct perf_ctr *c = &s->ctr[pmc];
		uint64_t v = ctr_value(p, s, c);
		if (!perf_ovf_reached(c, v))
			continue;
		ovf |= 1ull << pmc;
		/* The next overflow is a full lap later; a 64-bit counter's
		 * value wraps, and its next overflow is its next wrap. */
		if (!~c->mask)
			c->ovf_at = next_overflow(s, c, v);
		else
			while (perf_ovf_reached(c, v))
				c->ovf_at += c->mask + 1;
		c->rearm = true;
		s->apply |= 1ull << pmc;
		s->pending = true;
	}
	if (ovf && p->host)
		vpmu_host_overflow(p->host, cpu, ovf);
}

static enum vpmu_count_source perf_event_source(void *ctx, enum vpmu_event ev, const char **why)
{
	struct vpmu_perf *p = ctx;
	if (p->host_pmu) {
		*why = "a host PMU event in guest mode (perf_event, exclude_host)";
		return VPMU_COUNT_HARDWARE;
	}
	if (clock_class(ev) && !p->clock_refused) {
		*why = "the vCPU thread's task clock scaled by the guest's TSC frequency (no host PMU)";
		return VPMU_COUNT_TASK_CLOCK;
	}
	*why = clock_class(ev) ? p->clock_why : p->pmu_why;
	return VPMU_COUNT_NONE;
}

static const struct vpmu_backend_ops perf_ops = {
	.name = "perf",
	.write_ctrl = perf_write_ctrl,
	.write_ctr = perf_write_ctr,
	.read_ctr = perf_read_ctr,
	.enter = perf_enter,
	.poll = perf_poll,
	.event_source = perf_event_source,
	.event_sources = perf_event_sources,
};

void vpmu_perf_backend(struct vpmu_perf *p, struct vpmu_backend *out)
{
	out->ops = &perf_ops;
	out->ctx = p;
}
