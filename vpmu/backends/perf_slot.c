/* SPDX-License-Identifier: MIT */
/*
 * The perf backend's host side (perf_slot.h): detecting the host PMU, binding
 * vCPU threads, reading and arming the task clock, opening the hardware events,
 * and what happens when the host refuses one.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vpmu/backend.h"
#include "perf_slot.h"
#include "perf_translate.h"

#define STAT_ADD(s, field, n) __atomic_fetch_add(&(s)->stats.field, (n), __ATOMIC_RELAXED)

static enum vpmu_perf_refusal refusal_of(int e)
{
	switch (e) {
	case EACCES: case EPERM:
		return VPMU_PERF_REFUSED_ACCESS;
	case EMFILE: case ENFILE: case ENOSPC: case EBUSY:
		return VPMU_PERF_REFUSED_RESOURCES;
	case ENOENT: case EOPNOTSUPP: case ENODEV: case EINVAL:
		return VPMU_PERF_REFUSED_UNSUPPORTED;
	default:
		return VPMU_PERF_REFUSED_OTHER;
	}
}

const char *vpmu_perf_refusal_name(enum vpmu_perf_refusal r)
{
	static const char *const names[VPMU_PERF_REFUSAL_NR] = {
		"access", "resources", "unsupported", "held-by-host", "other",
	};
	return (unsigned)r < VPMU_PERF_REFUSAL_NR ? names[r] : "?";
}

/* A refusal: counted, kept as the last error, and logged once per cause. */
static void refuse(struct vpmu_perf *p, struct perf_slot *s, enum vpmu_perf_refusal r,
		   const char *fmt, const char *what, int e)
{
	STAT_ADD(s, refused[r], 1);
	char line[sizeof(p->error)];
	snprintf(line, sizeof(line), fmt, what, e ? strerror(e) : "");
	memcpy(p->error, line, sizeof(line));
	unsigned bit = 1u << r;
	if (__atomic_fetch_or(&p->logged, bit, __ATOMIC_RELAXED) & bit)
		return;
	if (p->log)
		p->log(p->log_arg, line);
}

void perf_log_not_countable(struct vpmu_perf *p, const char *event)
{
	if (__atomic_exchange_n(&p->untranslatable_logged, 1u, __ATOMIC_RELAXED))
		return;
	if (p->log) {
		char line[sizeof(p->host_why_none) + 128];
		snprintf(line, sizeof(line), "perf: a guest counter of %.60s counts zero: %.320s", event,
			 p->host_why_none);
		p->log(p->log_arg, line);
	}
}

void perf_slot_reset(struct vpmu_perf *p, struct perf_slot *s)
{
	for (unsigned i = 0; i < VPMU_MAX_CTRS; i++) {
		struct perf_ctr *c = &s->ctr[i];
		if (c->fd >= 0) {
			p->sys->close(p->sys->ctx, c->fd);
			STAT_ADD(s, closes, 1);
		}
		memset(c, 0, sizeof(*c));
		c->event = VPMU_EV_NONE;
		c->entry = -1;
		c->src = VPMU_COUNT_NONE;
		c->fd = -1;
	}
	memset(s->ctrl, 0, sizeof(s->ctrl));
	s->layout = NULL;   /* the next write takes the widths in again (slot_for) */
	s->pmu = NULL;
	s->irq_mask = 0;
	s->apply = 0;
	s->pending = true;   /* disarm the clock at the next entry */
}

/* ---- the task clock (no host PMU) ---- */

bool perf_clock_ns(struct vpmu_perf *p, struct perf_slot *s, uint64_t *ns)
{
	if (s->clock_fd < 0)
		return false;
	const struct vpmu_perf_sys *sys = p->sys;
	/* While the page's lock word has not changed since the last read(2), the
	 * thread has not been scheduled in again, so it has run all along: its
	 * task clock advanced as CLOCK_MONOTONIC did, for a while
	 * (PERF_CLOCK_EXTRAPOLATE_NS).  The word is read before the read(2), so
	 * a sched-in between the two is seen next time. */
	uint32_t seq = s->lock ? __atomic_load_n(s->lock, __ATOMIC_ACQUIRE) : 1;
	uint64_t v, mono;
	if (s->lock && s->synced && seq == s->lock_seen && !(seq & 1) &&
	    (mono = sys->now_ns(sys->ctx)) - s->mono_at <= PERF_CLOCK_EXTRAPOLATE_NS) {
		v = s->clock_at + (mono - s->mono_at);
		STAT_ADD(s, clock_reads_saved, 1);
	} else {
		int r = sys->read(sys->ctx, s->clock_fd, &v);
		STAT_ADD(s, reads, 1);
		if (r != 1) {
			/* Keep the last value: a failed read loses this interval
			 * instead of crediting it twice later. */
			if (!s->synced)
				return false;
			*ns = s->clock_last;
			return true;
		}
		s->clock_at = v;
		s->mono_at = sys->now_ns(sys->ctx);
		s->lock_seen = seq;
		s->synced = true;
	}
	/* A read(2) behind an extrapolation (the clocks' rates differ) stands
	 * still until the task clock catches up: a guest counter never goes
	 * back. */
	if (v < s->clock_last)
		v = s->clock_last;
	s->clock_last = v;
	*ns = v;
	return true;
}

/* The guest does not run while its VMM handles an exit, and a host PMU's
 * exclude_host event does not count then: so the guest's clock stands still
 * from the first reading in an exit to the next entry.  Every reading in one
 * exit then agrees (a counter read, then its event changed, attributes nothing
 * to the new event), and those after the first make no clock reading at all. */
bool perf_guest_ns(struct vpmu_perf *p, struct perf_slot *s, uint64_t *ns)
{
	if (!s->frozen) {
		uint64_t raw;
		if (!perf_clock_ns(p, s, &raw))
			return false;
		s->frozen = true;
		s->frozen_raw = raw;
		s->pending = true;   /* the entry resumes it */
	}
	*ns = s->frozen_raw - s->excluded;
	return true;
}

void perf_guest_resume(struct vpmu_perf *p, struct perf_slot *s)
{
	uint64_t raw;
	if (!s->frozen)
		return;
	s->frozen = false;
	if (perf_clock_ns(p, s, &raw) && raw > s->frozen_raw)
		s->excluded += raw - s->frozen_raw;
}

void perf_clock_arm(struct vpmu_perf *p, struct perf_slot *s, uint64_t events)
{
	if (s->clock_fd < 0 || !s->tsc_khz)
		return;
	uint64_t period = PERF_PERIOD_IDLE, now = 0;
	if (events != UINT64_MAX) {
		/* Guest events to ns of task clock, rounded up: the signal must not
		 * come before the overflow. */
		unsigned __int128 ns = ((unsigned __int128)events * 1000000u + s->tsc_khz - 1) / s->tsc_khz;
		period = ns >= PERF_PERIOD_IDLE ? PERF_PERIOD_IDLE : ns ? (uint64_t)ns : 1;
	}
	/* Setting the period restarts the timer from now: leave an idle timer idle. */
	if (period == PERF_PERIOD_IDLE && s->armed == PERF_PERIOD_IDLE)
		return;
	if (period != PERF_PERIOD_IDLE && perf_clock_ns(p, s, &now) && s->deadline &&
	    s->deadline > now && s->deadline <= now + period) {
		/* Armed already, early: the VMM's time since (its exits, a switch
		 * pair) moved the task clock but not the guest's.  The early
		 * signal finds no overflow and arms again for what is left
		 * (perf_poll), which costs less than a system call at every
		 * exit; and setting the period would restart the timer, which
		 * then never fires while the exits come faster than it.  A
		 * deadline already passed without its poll (a signal the VMM
		 * lost, or one still on its way) is armed again: the periodic
		 * timer's next signal would be a whole old period late. */
		return;
	}
	if (p->sys->set_period(p->sys->ctx, s->clock_fd, period) == 0) {
		s->armed = period;
		s->deadline = period == PERF_PERIOD_IDLE || !now ? 0 : now + period;
	}
	STAT_ADD(s, period_sets, 1);
}

/* ---- hardware events ---- */

bool perf_event_count(struct vpmu_perf *p, struct perf_slot *s, struct perf_ctr *c,
		      uint64_t *count)
{
	int r = p->sys->read(p->sys->ctx, c->fd, count);
	STAT_ADD(s, reads, 1);
	if (r == 1)
		return true;
	/* End of file: the host could not schedule the pinned event (its counters
	 * are taken by a host user); it stays at its value. */
	if (r == 0)
		refuse(p, s, VPMU_PERF_REFUSED_HELD,
		       "perf: a guest %s counter reads zero from here: the host could not schedule its pinned event (counters held by a host user)%s",
		       c->name, 0);
	else
		refuse(p, s, refusal_of(-r), "perf: reading a guest %s counter failed: %s",
		       c->name, -r);
	p->sys->close(p->sys->ctx, c->fd);
	STAT_ADD(s, closes, 1);
	c->fd = -1;
	c->refused = true;
	return false;
}

void perf_hw_apply(struct vpmu_perf *p, struct perf_slot *s, struct perf_ctr *c, unsigned pmc,
		   uint64_t value)
{
	(void)pmc;
	const struct vpmu_perf_sys *sys = p->sys;
	if (c->reopen) {
		c->reopen = false;
		c->rearm = false;
		if (c->fd >= 0) {
			sys->close(sys->ctx, c->fd);
			STAT_ADD(s, closes, 1);
			c->fd = -1;
		}
		c->value = value;
		if ((c->src != VPMU_COUNT_HARDWARE && c->src != VPMU_COUNT_RAW) || c->refused)
			return;
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = c->type;
		a.config = c->config;
		a.pinned = 1;            /* counted all the time, or refused (read EOF) */
		a.exclude_host = 1;      /* what the guest runs, not the VMM */
		a.exclude_hv = 1;
		a.exclude_user = !(c->priv & VPMU_PRIV_USER);
		a.exclude_kernel = !(c->priv & VPMU_PRIV_KERNEL);
		if (c->irq) {
			a.sample_period = perf_ovf_period(c, value);
			a.wakeup_events = 1;
		}
		int fd = sys->open(sys->ctx, &a);
		STAT_ADD(s, opens, 1);
		if (fd < 0) {
			refuse(p, s, refusal_of(-fd),
			       "perf: the host refused a guest %s counter (perf_event_open: %s); it counts zero",
			       c->name, -fd);
			c->refused = true;
			return;
		}
		if (c->irq) {
			int r = sys->signal_thread(sys->ctx, fd, p->signo);
			if (r < 0) {
				refuse(p, s, refusal_of(-r),
				       "perf: no overflow signal for a guest %s counter (fcntl: %s); it counts zero",
				       c->name, -r);
				sys->close(sys->ctx, fd);
				STAT_ADD(s, closes, 1);
				c->refused = true;
				return;
			}
		}
		c->fd = fd;
		c->fd_type = c->type;
		c->fd_config = c->config;
		c->fd_priv = c->priv;
		c->fd_irq = c->irq;
		c->at = 0;   /* a new event counts from zero */
		return;
	}
	if (c->rearm) {
		c->rearm = false;
		if (c->fd >= 0 && c->irq) {
			/* The new period counts from now: fold first. */
			uint64_t now;
			if (!perf_event_count(p, s, c, &now))
				return;
			c->value = value;
			c->at = now;
			sys->set_period(sys->ctx, c->fd, perf_ovf_period(c, value));
			STAT_ADD(s, period_sets, 1);
		}
	}
}

/* ---- creation and binding ---- */

/* Whether the host has a PMU that counts a guest: a hardware cycles event in
 * guest mode opens on this thread. */
static bool detect_host_pmu(struct vpmu_perf *p)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.disabled = 1;
	a.exclude_host = 1;
	int fd = p->sys->open(p->sys->ctx, &a);
	if (fd >= 0) {
		p->sys->close(p->sys->ctx, fd);
		return true;
	}
	int e = -fd;
	if (refusal_of(e) == VPMU_PERF_REFUSED_ACCESS)
		snprintf(p->pmu_why, sizeof(p->pmu_why),
			 "not countable on this host: its PMU is refused (%s; kernel.perf_event_paranoid)",
			 strerror(e));
	else
		snprintf(p->pmu_why, sizeof(p->pmu_why),
			 "not countable on this host: no host PMU (a hardware perf event: %s)", strerror(e));
	return false;
}

int vpmu_perf_create_sys(unsigned nr_cpus, int signo, unsigned flags,
			 const struct vpmu_perf_sys *sys, struct vpmu_perf **out)
{
	if (!out || !sys || nr_cpus == 0 || nr_cpus > VPMU_MAX_HOST_CPUS || signo <= 0)
		return -EINVAL;
	struct vpmu_perf *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->slot = calloc(nr_cpus, sizeof(*p->slot));
	if (!p->slot) {
		free(p);
		return -ENOMEM;
	}
	p->sys = sys;
	p->nr_cpus = nr_cpus;
	p->signo = signo;
	for (unsigned i = 0; i < nr_cpus; i++) {
		struct perf_slot *s = &p->slot[i];
		s->clock_fd = -1;
		s->armed = PERF_PERIOD_IDLE;
		for (unsigned k = 0; k < VPMU_MAX_CTRS; k++) {
			s->ctr[k].fd = -1;
			s->ctr[k].event = VPMU_EV_NONE;
			s->ctr[k].entry = -1;
		}
	}
	if (flags & VPMU_PERF_NO_HOST_PMU)
		snprintf(p->pmu_why, sizeof(p->pmu_why),
			 "not countable: the host PMU is not used (VPMU_PERF_NO_HOST_PMU)");
	else
		p->host_pmu = detect_host_pmu(p);
	perf_translate_init(p);
	snprintf(p->clock_why, sizeof(p->clock_why), "not countable: no TSC frequency given");
	*out = p;
	return 0;
}

int vpmu_perf_create(unsigned nr_cpus, int signo, unsigned flags, struct vpmu_perf **out)
{
	return vpmu_perf_create_sys(nr_cpus, signo, flags, &vpmu_perf_sys_linux, out);
}

void vpmu_perf_destroy(struct vpmu_perf *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->nr_cpus; i++) {
		struct perf_slot *s = &p->slot[i];
		perf_slot_reset(p, s);
		if (s->lock)
			p->sys->unmap(p->sys->ctx, s->lock);
		if (s->clock_fd >= 0)
			p->sys->close(p->sys->ctx, s->clock_fd);
	}
	perf_translate_destroy(p);
	free(p->slot);
	free(p);
}

void vpmu_perf_attach(struct vpmu_perf *p, struct vpmu_host *host) { p->host = host; }

int vpmu_perf_bind(struct vpmu_perf *p, unsigned cpu, uint32_t tsc_khz)
{
	if (!p || cpu >= p->nr_cpus)
		return -EINVAL;
	struct perf_slot *s = &p->slot[cpu];
	if (s->bound)
		return -EBUSY;
	s->bound = true;
	s->tsc_khz = tsc_khz;
	/* Hardware events are opened by the thread itself at its entries. */
	if (p->host_pmu || !tsc_khz)
		return 0;   /* without a TSC frequency: clock_why */
	const struct vpmu_perf_sys *sys = p->sys;
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = PERF_PERIOD_IDLE;
	a.wakeup_events = 1;
	int fd = sys->open(sys->ctx, &a);
	STAT_ADD(s, opens, 1);
	int r = fd < 0 ? fd : sys->signal_thread(sys->ctx, fd, p->signo);
	if (r < 0) {
		if (fd >= 0)
			sys->close(sys->ctx, fd);
		snprintf(p->clock_why, sizeof(p->clock_why),
			 "not countable: the host refused the vCPU thread's task clock (%s%s)",
			 strerror(-r), refusal_of(-r) == VPMU_PERF_REFUSED_ACCESS
			 ? "; kernel.perf_event_paranoid" : "");
		__atomic_store_n(&p->clock_refused, true, __ATOMIC_RELAXED);
		refuse(p, s, refusal_of(-r), "perf: %s%s", p->clock_why + strlen("not countable: "), 0);
		return r;
	}
	s->clock_fd = fd;
	s->lock = sys->map_lock(sys->ctx, fd);
	return 0;
}

const char *vpmu_perf_error(const struct vpmu_perf *p) { return p->error; }
bool vpmu_perf_host_pmu(const struct vpmu_perf *p) { return p->host_pmu; }

const char *vpmu_perf_source(const struct vpmu_perf *p)
{
	return p->host_pmu ? "host PMU: guest-mode hardware events"
			   : "no host PMU: cycles and ref-cycles from the vCPU thread's task clock at the guest's TSC rate, other events not countable";
}

void vpmu_perf_stats(const struct vpmu_perf *p, struct vpmu_perf_stats *out)
{
	memset(out, 0, sizeof(*out));
	uint64_t *dst = (uint64_t *)out;
	for (unsigned i = 0; i < p->nr_cpus; i++) {
		const uint64_t *src = (const uint64_t *)&p->slot[i].stats;
		for (size_t k = 0; k < sizeof(*out) / sizeof(uint64_t); k++)
			dst[k] += __atomic_load_n(&src[k], __ATOMIC_RELAXED);
	}
}

void vpmu_perf_set_log(struct vpmu_perf *p, vpmu_perf_log_fn *fn, void *arg)
{
	p->log = fn;
	p->log_arg = arg;
}
