/* SPDX-License-Identifier: MIT */
/*
 * The perf backend's state (perf.c: the backend ops; perf_slot.c: creation,
 * binding, the task clock, the host events and their refusals).  One slot per
 * host CPU slot, that is per vCPU thread: only that thread touches it, except
 * for the statistics, which are read and added atomically.
 */
#ifndef VPMU_BACKENDS_PERF_SLOT_H
#define VPMU_BACKENDS_PERF_SLOT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "vpmu/backend.h"
#include "perf_sys.h"

/* One guest counter, as this host counts it. */
struct perf_ctr {
	int event;            /* generic event, VPMU_EV_NONE when it counts nothing */
	int entry;            /* its event's index in the VM's event table, -1: none */
	enum vpmu_count_source src_generic;  /* how this host counts the generic event */
	uint32_t type;        /* hardware: the host event it counts (perf_translate) */
	uint64_t config;
	const char *name;     /* its event's name, for messages */
	unsigned priv;        /* VPMU_PRIV_*; 0: disabled */
	bool irq;             /* overflow interrupt enabled */
	bool reopen;          /* hardware: (re)open its event at the next entry */
	bool rearm;           /* its overflow point moved: arm again at the next entry */
	bool refused;         /* the host refused its event: it counts nothing */
	enum vpmu_count_source src;
	int fd;               /* hardware: its perf event, -1 */
	uint32_t fd_type;     /* what the open event counts */
	uint64_t fd_config;
	unsigned fd_priv;
	bool fd_irq;
	uint64_t value;       /* its value (64 bits, never wrapped) when the source read `at` */
	uint64_t at;          /* the source's reading then (events) */
	uint64_t ovf_at;      /* i-mode: the value of its next overflow */
	uint64_t hw_count;    /* hardware: its event's count at the last read(2) */
	uint64_t mask;        /* its width as a mask (vpmu_pmu_ctr_width) */
};

struct perf_slot {
	const void *layout;              /* whose register layout the images use */
	const struct vpmu_pmu *pmu;      /* the PMU whose widths the counters have */
	bool msb;                        /* overflow at the MSB (PowerPC) */
	bool pending;                    /* enter has work */
	uint64_t irq_mask;               /* counters that interrupt and count (poll, enter) */
	uint64_t apply;                  /* hardware: counters to reopen or rearm at the entry */
	uint64_t hw_read;                /* hardware counters read since the last entry: their
	                                    count stands until the guest runs again */
	bool bound;                      /* its thread called vpmu_perf_bind */
	uint64_t ctrl[VPMU_MAX_CTRL_SLOTS];
	struct perf_ctr ctr[VPMU_MAX_CTRS];
	/* Without a host PMU: the bound thread's task clock. */
	int clock_fd;
	uint32_t tsc_khz;
	const volatile uint32_t *lock;   /* its mmap page's lock word, or NULL */
	bool synced;                     /* clock_at/mono_at/lock_seen hold a reading */
	uint32_t lock_seen;
	uint64_t clock_at, mono_at;      /* the clock read by read(2), and CLOCK_MONOTONIC then */
	uint64_t clock_last;             /* the last value perf_clock_ns gave: it never goes back */
	/* The guest's clock: the task clock less the thread's time out of the
	 * guest since the first reading of each exit (perf_guest_ns). */
	bool frozen;                     /* out of the guest: it stands at frozen_raw - excluded */
	uint64_t frozen_raw;             /* the task clock when it froze */
	uint64_t excluded;               /* task-clock ns spent out of the guest */
	uint64_t armed;                  /* the sample period armed (PERF_PERIOD_IDLE: none) */
	uint64_t deadline;               /* the task clock (ns) it fires at; 0: unknown */
	struct vpmu_perf_stats stats;    /* atomic adds */
};

struct vpmu_perf {
	const struct vpmu_perf_sys *sys;
	struct vpmu_host *host;
	unsigned nr_cpus;
	int signo;
	bool host_pmu;                   /* hardware events; else the task clock */
	bool clock_refused;              /* a slot's task clock was refused */
	char pmu_why[160];               /* why there is no host PMU */
	char clock_why[160];             /* why the clock was refused */
	char error[200];                 /* the last refusal, in words */
	unsigned logged;                 /* refusal causes logged (atomic) */
	vpmu_perf_log_fn *log;
	void *log_arg;
	struct perf_slot *slot;
	/* Guest events on the host (perf_translate.h). */
	const char *host_table;          /* the host CPU's event table, NULL: none */
	char host_why[160];              /* the host CPU and its table, in words */
	char host_why_none[320];         /* why an event with no host event is not countable */
	struct perf_xlat *xlat;          /* per guest table; new ones published atomically */
	pthread_mutex_t xlat_lock;       /* held while one is added */
	unsigned untranslatable_logged;  /* an event not countable was logged (atomic) */
};

/* The longest a task-clock reading is extrapolated with CLOCK_MONOTONIC from
 * the last read(2) (perf_clock_ns): the two clocks need not run at one rate
 * (the scheduler's clock against the NTP-disciplined clocksource; under an
 * emulating hypervisor they can differ by far more), so the drift an
 * extrapolation may carry is bounded by this. */
#define PERF_CLOCK_EXTRAPOLATE_NS 1000000u

/* "No overflow due": a period the task clock never reaches. */
#define PERF_PERIOD_IDLE (1ull << 62)

void perf_slot_reset(struct vpmu_perf *p, struct perf_slot *s);
/* A guest programmed `event`, which this host PMU cannot count: logged once
 * per host (its counters read zero; counts are never invented). */
void perf_log_not_countable(struct vpmu_perf *p, const char *event);
/* The task clock of slot s in ns: false if it has none or cannot be read. */
bool perf_clock_ns(struct vpmu_perf *p, struct perf_slot *s, uint64_t *ns);
/* The guest's clock of slot s in ns: the task clock, standing still from the
 * first reading after an exit until the next entry (perf_guest_resume).  false
 * if it has none or cannot be read. */
bool perf_guest_ns(struct vpmu_perf *p, struct perf_slot *s, uint64_t *ns);
/* At an entry: the guest's clock runs again; the time since it froze was the VMM's. */
void perf_guest_resume(struct vpmu_perf *p, struct perf_slot *s);
/* Arm the task clock to interrupt after `events` guest events (UINT64_MAX: none). */
void perf_clock_arm(struct vpmu_perf *p, struct perf_slot *s, uint64_t events);
/* A hardware counter's event count: false if it has none or it cannot be read
 * (a refusal then recorded, and the counter counts nothing from here). */
bool perf_event_count(struct vpmu_perf *p, struct perf_slot *s, struct perf_ctr *c,
		      uint64_t *count);
/* At an entry: open, close or re-arm counter pmc's hardware event as its
 * configuration says; `value` is what it holds now. */
void perf_hw_apply(struct vpmu_perf *p, struct perf_slot *s, struct perf_ctr *c, unsigned pmc,
		   uint64_t value);

/* Whether counter c at value v has reached its overflow point, and how far
 * off it is (a host period: at least 1).  The distance is taken modulo 2^64,
 * so that a 64-bit counter (the RISC-V SBI PMU's), whose values wrap and
 * whose overflow at 2^64 is ovf_at 0, compares as a narrower one, whose
 * values never wrap; no run counts 2^63 events. */
static inline bool perf_ovf_reached(const struct perf_ctr *c, uint64_t v)
{
	return (int64_t)(v - c->ovf_at) >= 0;
}
static inline uint64_t perf_ovf_period(const struct perf_ctr *c, uint64_t v)
{
	return perf_ovf_reached(c, v) ? 1 : c->ovf_at - v;
}

/* ns of task clock as guest events at tsc_khz (TSC ticks per ms). */
static inline uint64_t perf_scale(uint64_t ns, uint32_t tsc_khz)
{
	return (uint64_t)((unsigned __int128)ns * tsc_khz / 1000000u);
}

#endif
