/* SPDX-License-Identifier: MIT */
/*
 * The perf host backend (docs/principles.md §4): the sim's register model
 * (one host register per guest register, per host CPU slot, programmed exactly as
 * perfctr programs hardware), counted by a perf event of the vCPU thread bound to
 * the slot instead of by trace ticks.
 *
 * The machines this runs on have no host PMU (nested KVM, most cloud VMs:
 * docs/testing.md), so the event is the software task clock: a counter
 * whose event has a generic equivalent advances by one per nanosecond the vCPU
 * thread spends between run_begin and run_end, i.e. inside KVM_RUN, whatever its
 * privilege filter (the host cannot tell guest CPL from a software event).  An
 * encoding with no generic equivalent counts zero (docs/principles.md §5).
 *
 * Overflow while the guest runs: the task clock's sample period
 * is armed, at each run_begin, to the distance of the first interrupt-enabled
 * counter to its overflow; the event then sends `signo` to the bound thread,
 * which makes KVM_RUN return -EINTR; run_end lands the count, and the sim
 * reports the overflow to the core, which raises the PMI that the glue injects
 * before the next entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../core.h"
#include "sim.h"

/* Every generic event: the task clock stands in for all of them. */
#define PERF_ALL_EVENTS ((1u << VPMU_EV_NR) - 1)
/* "No overflow pending": a period the task clock never reaches in a run. */
#define PERF_PERIOD_IDLE (1ull << 62)

struct perf_slot {
	int fd;               /* the bound thread's task clock, -1 until bound */
	uint64_t at_begin;    /* its value at run_begin */
	uint64_t period;      /* the sample period armed now */
};

struct vpmu_perf {
	struct vpmu_sim *sim;
	unsigned nr_cpus;
	int signo;
	char error[160];
	struct perf_slot *slot;
};

static int perf_open_task_clock(uint64_t period)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period;
	a.wakeup_events = 1;
	/* pid 0, cpu -1: this thread, on whatever CPU it runs. */
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The task clock's value; false if it could not be read (the caller then keeps
 * its last value, so a failed read loses that run's count instead of crediting
 * the thread's whole life at the next one). */
static bool perf_read(const struct perf_slot *ps, uint64_t *v)
{
	return read(ps->fd, v, sizeof(*v)) == (ssize_t)sizeof(*v);
}

int vpmu_perf_bind(struct vpmu_perf *p, unsigned cpu)
{
	if (!p || cpu >= p->nr_cpus)
		return -EINVAL;
	struct perf_slot *ps = &p->slot[cpu];
	if (ps->fd >= 0)
		return -EBUSY;
	int fd = perf_open_task_clock(PERF_PERIOD_IDLE);
	if (fd < 0) {
		int e = errno;
		snprintf(p->error, sizeof(p->error),
			 "perf_event_open(task-clock) refused: %s (see /proc/sys/kernel/perf_event_paranoid)",
			 strerror(e));
		return -e;
	}
	/* The overflow is a signal to this very thread (not the process): it is the
	 * one inside KVM_RUN that must be kicked out. */
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = (pid_t)syscall(SYS_gettid) };
	if (fcntl(fd, F_SETOWN_EX, &owner) < 0 || fcntl(fd, F_SETSIG, p->signo) < 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) < 0) {
		int e = errno;
		snprintf(p->error, sizeof(p->error), "perf event overflow signal setup failed: %s",
			 strerror(e));
		close(fd);
		return -e;
	}
	ps->fd = fd;
	ps->period = PERF_PERIOD_IDLE;
	return 0;
}

static void perf_run_begin(void *ctx, unsigned cpu)
{
	struct vpmu_perf *p = ctx;
	if (cpu >= p->nr_cpus || p->slot[cpu].fd < 0)
		return;
	struct perf_slot *ps = &p->slot[cpu];
	uint64_t d = vpmu_sim_irq_distance(p->sim, cpu, PERF_ALL_EVENTS);
	if (d == UINT64_MAX)
		d = PERF_PERIOD_IDLE;
	/* Setting the period restarts the clock's timer from now, so re-arm each
	 * run while an overflow is due; leave an idle timer alone. */
	if (d != PERF_PERIOD_IDLE || ps->period != PERF_PERIOD_IDLE) {
		uint64_t period = d ? d : 1;
		if (ioctl(ps->fd, PERF_EVENT_IOC_PERIOD, &period) == 0)
			ps->period = d;
	}
	uint64_t now;
	if (perf_read(ps, &now))
		ps->at_begin = now;
}

static void perf_run_end(void *ctx, unsigned cpu)
{
	struct vpmu_perf *p = ctx;
	if (cpu >= p->nr_cpus || p->slot[cpu].fd < 0)
		return;
	struct perf_slot *ps = &p->slot[cpu];
	uint64_t now;
	if (!perf_read(ps, &now))
		return;
	if (now > ps->at_begin)
		vpmu_sim_advance(p->sim, cpu, PERF_ALL_EVENTS, now - ps->at_begin,
				 VPMU_PRIV_USER | VPMU_PRIV_KERNEL);
	ps->at_begin = now;
}

static void perf_write_ctrl(void *ctx, unsigned cpu, const struct vpmu_model *m, unsigned slot,
			    uint64_t value)
{
	vpmu_sim_ops.write_ctrl(((struct vpmu_perf *)ctx)->sim, cpu, m, slot, value);
}

static void perf_write_ctr(void *ctx, unsigned cpu, const struct vpmu_model *m, unsigned pmc,
			   uint64_t value)
{
	vpmu_sim_ops.write_ctr(((struct vpmu_perf *)ctx)->sim, cpu, m, pmc, value);
}

static uint64_t perf_read_ctr(void *ctx, unsigned cpu, const struct vpmu_model *m, unsigned pmc)
{
	return vpmu_sim_ops.read_ctr(((struct vpmu_perf *)ctx)->sim, cpu, m, pmc);
}

static const struct vpmu_backend_ops perf_ops = {
	.name = "perf",
	.write_ctrl = perf_write_ctrl,
	.write_ctr = perf_write_ctr,
	.read_ctr = perf_read_ctr,
	.run_begin = perf_run_begin,
	.run_end = perf_run_end,
};

int vpmu_perf_create(unsigned nr_cpus, int signo, struct vpmu_perf **out)
{
	if (!out || nr_cpus == 0 || nr_cpus > VPMU_MAX_HOST_CPUS || signo <= 0)
		return -EINVAL;
	struct vpmu_perf *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->slot = calloc(nr_cpus, sizeof(*p->slot));
	int r = p->slot ? vpmu_sim_create(nr_cpus, &p->sim) : -ENOMEM;
	if (r < 0) {
		free(p->slot);
		free(p);
		return r;
	}
	for (unsigned i = 0; i < nr_cpus; i++)
		p->slot[i].fd = -1;
	p->nr_cpus = nr_cpus;
	p->signo = signo;
	*out = p;
	return 0;
}

void vpmu_perf_destroy(struct vpmu_perf *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->nr_cpus; i++)
		if (p->slot[i].fd >= 0)
			close(p->slot[i].fd);
	vpmu_sim_destroy(p->sim);
	free(p->slot);
	free(p);
}

void vpmu_perf_backend(struct vpmu_perf *p, struct vpmu_backend *out)
{
	out->ops = &perf_ops;
	out->ctx = p;
}

void vpmu_perf_attach(struct vpmu_perf *p, struct vpmu_host *host) { vpmu_sim_attach(p->sim, host); }

const char *vpmu_perf_error(const struct vpmu_perf *p) { return p->error; }

const char *vpmu_perf_source(const struct vpmu_perf *p)
{
	(void)p;
	return "task-clock";
}
