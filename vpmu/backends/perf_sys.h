/* SPDX-License-Identifier: MIT */
/*
 * The system calls of the perf backend, as a table (perf_sys.c has the real
 * ones).  No machine this project runs on has a host PMU, so the hardware path
 * of perf.c is tested through a test double of this table
 * (tests/unit/perf_hw.c) that checks the attributes built and replays counts,
 * refusals and overflows; the software path runs for real.
 */
#ifndef VPMU_BACKENDS_PERF_SYS_H
#define VPMU_BACKENDS_PERF_SYS_H

#include <stdint.h>

#include "vpmu/backend.h"

struct perf_event_attr;

struct vpmu_perf_sys {
	/* perf_event_open(attr, pid 0 (this thread), cpu -1, no group, CLOEXEC):
	 * the fd, or -errno. */
	int (*open)(void *c, struct perf_event_attr *attr);
	/* The event's count: 1 with *value; 0 at end of file (a pinned event the
	 * host could not schedule: its counters are held by a host user); -errno. */
	int (*read)(void *c, int fd, uint64_t *value);
	/* PERF_EVENT_IOC_PERIOD: 0 or -errno. */
	int (*set_period)(void *c, int fd, uint64_t period);
	/* The event's overflow becomes signal signo to the calling thread
	 * (F_SETOWN_EX with F_OWNER_TID, F_SETSIG, O_ASYNC): 0 or -errno. */
	int (*signal_thread)(void *c, int fd, int signo);
	/* The lock word of the event's mmap'ed perf_event_mmap_page, or NULL: the
	 * kernel changes it whenever it updates the page, and a task-clock event's
	 * page is updated at every sched-in of its thread (kernel/events/core.c,
	 * task_clock_event_add). */
	const volatile uint32_t *(*map_lock)(void *c, int fd);
	void (*unmap)(void *c, const volatile uint32_t *lock);
	void (*close)(void *c, int fd);
	/* CLOCK_MONOTONIC in ns (the vDSO: no system call). */
	uint64_t (*now_ns)(void *c);
	/* The host CPU's identity: its CPUID vendor string and signature (family,
	 * model and stepping with their extended fields folded in), which name its
	 * event table (vpmu_events_host_table).  0, or -ENODEV where there is no
	 * CPUID (not x86). */
	int (*host_cpu)(void *c, char vendor[13], unsigned *family, unsigned *cpumodel,
			unsigned *stepping);
	void *ctx;
};

extern const struct vpmu_perf_sys vpmu_perf_sys_linux;

/* vpmu_perf_create with another system-call table (tests). */
int vpmu_perf_create_sys(unsigned nr_cpus, int signo, unsigned flags,
			 const struct vpmu_perf_sys *sys, struct vpmu_perf **out);

#endif
