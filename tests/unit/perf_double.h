/* SPDX-License-Identifier: MIT */
/*
 * A test double of the perf backend's system-call table (vpmu/backends/
 * perf_sys.h), shared by the tests of the host-PMU path (perf_hw.c) and of
 * guest events on the host (perf_translate.c): no machine here has a host PMU,
 * so the double plays one.  It records every perf_event_attr opened, hands out
 * fake fds, returns the counts the test scripts per fd, refuses an open (or
 * the overflow signal's setup) with a given errno when told, reads end of file
 * for a fd the host "could not schedule", counts every call, and answers the
 * host CPU's identity with the one the test chose.  A header of static inline
 * functions, because tap.h's counters are per translation unit.
 */
#ifndef VPMU_TEST_PERF_DOUBLE_H
#define VPMU_TEST_PERF_DOUBLE_H

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "backends/perf_sys.h"
#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

#define KICK SIGUSR1
#define TSC_KHZ 2000000u

/* ------------------------------------------------------------ the double */

#define FD_BASE 100
#define MAX_FDS 128
#define MAX_RECS 256

struct calls {
	unsigned open, read, period, close, signal, map, unmap;
};

struct open_rec {
	uint32_t type;
	uint64_t config;
	unsigned pinned, disabled, exclude_host, exclude_user, exclude_kernel, exclude_hv;
	uint64_t sample_period;
	int fd;                  /* the fd handed out, or -errno */
};

struct fake_fd {
	bool used, open, eof;
	uint64_t count;          /* events it counted (scripted by the test) */
	uint64_t period;         /* the last PERF_EVENT_IOC_PERIOD */
	int signo;               /* its overflow signal, 0: none */
};

static struct dbl {
	struct calls calls;
	int refuse_next_open;    /* errno for the next open, 0: accept */
	int refuse_next_signal;  /* errno for the next signal_thread, 0: accept */
	unsigned misuse;         /* calls on a fd that is not open */
	char misuse_what[160];
	int next;                /* next fd index */
	struct fake_fd fd[MAX_FDS];
	struct open_rec rec[MAX_RECS];
	unsigned nrec;
	uint64_t periods[MAX_RECS];   /* every set_period value, in order */
	unsigned nperiods;
	int last_signal_fd, last_signo;
	uint64_t now;
	bool now_held;
	/* The host CPU's identity (host_cpu): none unless the test chose one. */
	char vendor[13];
	unsigned family, cpumodel, stepping;
} D;

static inline struct fake_fd *fd_get(int fd)
{
	if (fd < FD_BASE || fd >= FD_BASE + MAX_FDS || !D.fd[fd - FD_BASE].used)
		return NULL;
	return &D.fd[fd - FD_BASE];
}

static inline void misuse(const char *what, int fd)
{
	if (!D.misuse)
		snprintf(D.misuse_what, sizeof(D.misuse_what), "%s on fd %d, which is not open", what, fd);
	D.misuse++;
}

static inline int d_open(void *c, struct perf_event_attr *a)
{
	struct dbl *d = c;
	d->calls.open++;
	struct open_rec *r = d->nrec < MAX_RECS ? &d->rec[d->nrec++] : NULL;
	if (r) {
		r->type = a->type;
		r->config = a->config;
		r->pinned = a->pinned;
		r->disabled = a->disabled;
		r->exclude_host = a->exclude_host;
		r->exclude_user = a->exclude_user;
		r->exclude_kernel = a->exclude_kernel;
		r->exclude_hv = a->exclude_hv;
		r->sample_period = a->sample_period;
	}
	if (d->refuse_next_open) {
		int e = d->refuse_next_open;
		d->refuse_next_open = 0;
		if (r)
			r->fd = -e;
		return -e;
	}
	if (d->next >= MAX_FDS) {
		if (r)
			r->fd = -EMFILE;
		return -EMFILE;
	}
	int fd = FD_BASE + d->next++;
	struct fake_fd *f = &d->fd[fd - FD_BASE];
	memset(f, 0, sizeof(*f));
	f->used = f->open = true;
	if (r)
		r->fd = fd;
	return fd;
}

static inline int d_read(void *c, int fd, uint64_t *value)
{
	struct dbl *d = c;
	d->calls.read++;
	struct fake_fd *f = fd_get(fd);
	if (!f || !f->open) {
		misuse("read", fd);
		return -EBADF;
	}
	if (f->eof)
		return 0;
	*value = f->count;
	return 1;
}

static inline int d_set_period(void *c, int fd, uint64_t period)
{
	struct dbl *d = c;
	d->calls.period++;
	if (d->nperiods < MAX_RECS)
		d->periods[d->nperiods++] = period;
	struct fake_fd *f = fd_get(fd);
	if (!f || !f->open) {
		misuse("set_period", fd);
		return -EBADF;
	}
	f->period = period;
	return 0;
}

static inline int d_signal_thread(void *c, int fd, int signo)
{
	struct dbl *d = c;
	d->calls.signal++;
	d->last_signal_fd = fd;
	d->last_signo = signo;
	struct fake_fd *f = fd_get(fd);
	if (!f || !f->open) {
		misuse("signal_thread", fd);
		return -EBADF;
	}
	if (d->refuse_next_signal) {
		int e = d->refuse_next_signal;
		d->refuse_next_signal = 0;
		return -e;
	}
	f->signo = signo;
	return 0;
}

/* The task clock's mmap page lock word (perf_clock_ns): mapped only when a
 * test sets dbl_lock_mapped before world_up (dbl_reset leaves both alone);
 * otherwise the clock always reads (and hardware mode does not use it). */
static bool dbl_lock_mapped;
static volatile uint32_t dbl_lock_word;

static inline const volatile uint32_t *d_map_lock(void *c, int fd)
{
	struct dbl *d = c;
	(void)fd;
	d->calls.map++;
	return dbl_lock_mapped ? &dbl_lock_word : NULL;
}

static inline void d_unmap(void *c, const volatile uint32_t *lock)
{
	struct dbl *d = c;
	(void)lock;
	d->calls.unmap++;
}

static inline void d_close(void *c, int fd)
{
	struct dbl *d = c;
	d->calls.close++;
	struct fake_fd *f = fd_get(fd);
	if (!f || !f->open) {
		misuse("close", fd);
		return;
	}
	f->open = false;
}

/* CLOCK_MONOTONIC: 1 us later at every call, unless the test holds it
 * (now_held) and moves it itself. */
static inline uint64_t d_now_ns(void *c)
{
	struct dbl *d = c;
	return d->now_held ? d->now : (d->now += 1000);
}

static inline int d_host_cpu(void *c, char vendor[13], unsigned *family, unsigned *cpumodel,
			     unsigned *stepping)
{
	struct dbl *d = c;
	if (!d->vendor[0])
		return -ENODEV;
	memcpy(vendor, d->vendor, 13);
	*family = d->family;
	*cpumodel = d->cpumodel;
	*stepping = d->stepping;
	return 0;
}

static const struct vpmu_perf_sys dbl_sys = {
	.open = d_open,
	.read = d_read,
	.set_period = d_set_period,
	.signal_thread = d_signal_thread,
	.map_lock = d_map_lock,
	.unmap = d_unmap,
	.close = d_close,
	.now_ns = d_now_ns,
	.host_cpu = d_host_cpu,
	.ctx = &D,
};

static inline void dbl_reset(void)
{
	memset(&D, 0, sizeof(D));
	D.last_signal_fd = -1;
}

static inline unsigned fds_open(void)
{
	unsigned n = 0;
	for (int i = 0; i < D.next; i++)
		n += D.fd[i].open;
	return n;
}

/* The fd of the newest open event of this type and config, -1 if none. */
static inline int event_fd(uint32_t type, uint64_t config)
{
	for (unsigned i = D.nrec; i-- > 0;) {
		const struct open_rec *r = &D.rec[i];
		if (r->type == type && r->config == config && r->fd >= 0) {
			struct fake_fd *f = fd_get(r->fd);
			return f && f->open ? r->fd : -1;
		}
	}
	return -1;
}

/* The fd of the newest open hardware event with this config, -1 if none. */
static inline int hw_fd(uint64_t config)
{
	return event_fd(PERF_TYPE_HARDWARE, config);
}

/* The vCPU the test runs (world_up). */
static struct vpmu_vcpu *guest_vcpu;

/* The guest ran: the VMM entered it (vpmu_vcpu_enter: an event's count moves
 * only while the guest runs, and the backend reads each count once per exit),
 * and the event on fd counted n more before the next exit. */
static inline void advance(int fd, uint64_t n)
{
	if (guest_vcpu && vpmu_vcpu_running(guest_vcpu, NULL))
		vpmu_vcpu_enter(guest_vcpu);
	struct fake_fd *f = fd_get(fd);
	if (f && f->open)
		f->count += n;
}

static struct calls mark;
static inline struct calls since(void)
{
	struct calls d = {
		D.calls.open - mark.open, D.calls.read - mark.read, D.calls.period - mark.period,
		D.calls.close - mark.close, D.calls.signal - mark.signal, D.calls.map - mark.map,
		D.calls.unmap - mark.unmap,
	};
	mark = D.calls;
	return d;
}

static inline unsigned all_calls(struct calls c)
{
	return c.open + c.read + c.period + c.close + c.signal + c.map + c.unmap;
}

/* ------------------------------------------------------------ checks */

#define check_eq(got, want, ...) do { \
	uint64_t g__ = (uint64_t)(got), w__ = (uint64_t)(want); \
	char m__[300]; \
	snprintf(m__, sizeof(m__), __VA_ARGS__); \
	ok(g__ == w__, "%s: expected %" PRIu64 " (0x%" PRIx64 "), seen %" PRIu64 " (0x%" PRIx64 ")", \
	   m__, w__, w__, g__, g__); \
} while (0)

#define check_calls(c, o, cl, per, ...) do { \
	struct calls c__ = (c); \
	char m__[300]; \
	snprintf(m__, sizeof(m__), __VA_ARGS__); \
	ok(c__.open == (o) && c__.close == (cl) && c__.period == (per), \
	   "%s: expected %u open, %u close, %u set_period; seen %u open, %u close, %u set_period" \
	   " (%u read, %u signal_thread)", m__, (unsigned)(o), (unsigned)(cl), (unsigned)(per), \
	   c__.open, c__.close, c__.period, c__.read, c__.signal); \
} while (0)

#define check_contains(str, sub, ...) do { \
	const char *s__ = (str), *u__ = (sub); \
	char m__[300]; \
	snprintf(m__, sizeof(m__), __VA_ARGS__); \
	ok(s__ && strstr(s__, u__), "%s: expected a line containing \"%s\", seen \"%s\"", m__, u__, \
	   s__ ? s__ : "(null)"); \
} while (0)

/* ------------------------------------------------------------ the world */

struct logrec {
	unsigned n;
	char line[8][256];
};

static inline void log_line(void *arg, const char *line)
{
	struct logrec *l = arg;
	if (l->n < 8)
		snprintf(l->line[l->n], sizeof(l->line[0]), "%s", line);
	l->n++;
}

struct world {
	struct vpmu_perf *p;
	struct vpmu_backend be;
	struct vpmu_host *host;
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v;
	struct logrec log;
};

/* The host CPU world_up_on plays: CPUID's vendor and signature, or vendor ""
 * for a host whose identity is unknown. */
struct host_cpu {
	const char *vendor;
	unsigned family, cpumodel, stepping;
};

/* A perf backend over the double (its host-PMU probe refused with probe_errno
 * unless 0) on host CPU `cpu`, a host of one CPU, a VM of `model` with vCPU 0
 * switched in on it. */
static inline bool world_up_on(struct world *w, int probe_errno, const char *name,
			       const char *model, struct host_cpu cpu)
{
	memset(w, 0, sizeof(*w));
	dbl_reset();
	snprintf(D.vendor, sizeof(D.vendor), "%s", cpu.vendor);
	D.family = cpu.family;
	D.cpumodel = cpu.cpumodel;
	D.stepping = cpu.stepping;
	D.refuse_next_open = probe_errno;
	printf("# --- %s\n", name);
	int r = vpmu_perf_create_sys(1, KICK, 0, &dbl_sys, &w->p);
	ok(r == 0 && w->p, "%s: vpmu_perf_create_sys: expected 0, seen %d", name, r);
	if (r || !w->p)
		return false;
	vpmu_perf_set_log(w->p, log_line, &w->log);
	vpmu_perf_backend(w->p, &w->be);
	r = vpmu_host_create(&w->be, 1, &w->host);
	ok(r == 0, "%s: vpmu_host_create: expected 0, seen %d", name, r);
	if (r)
		return false;
	vpmu_perf_attach(w->p, w->host);
	r = vpmu_perf_bind(w->p, 0, TSC_KHZ);
	ok(r == 0, "%s: vpmu_perf_bind(slot 0, %u kHz): expected 0, seen %d (%s)", name, TSC_KHZ, r,
	   vpmu_perf_error(w->p));
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	cfg.model = model;
	r = vpmu_vm_create(w->host, &cfg, &w->vm);
	int r2 = r ? r : vpmu_vcpu_create(w->vm, 0, &w->v);
	int r3 = r2 ? r2 : vpmu_vcpu_switch_in(w->v, 0);
	ok(r3 == 0, "%s: %s VM, vCPU 0 switched in on host CPU 0: expected 0, seen %d", name, model,
	   r3);
	guest_vcpu = r3 == 0 ? w->v : NULL;
	mark = D.calls;
	return r3 == 0;
}

/* world_up_on with a P6 VM on a host whose identity is unknown. */
static inline bool world_up(struct world *w, int probe_errno, const char *name)
{
	return world_up_on(w, probe_errno, name, "p6", (struct host_cpu){ "", 0, 0, 0 });
}

static inline void world_down(struct world *w, const char *name)
{
	guest_vcpu = NULL;
	if (w->v)
		vpmu_vcpu_switch_out(w->v);
	if (w->vm)
		vpmu_vm_destroy(w->vm);
	if (w->host)
		vpmu_host_destroy(w->host);
	if (w->p)
		vpmu_perf_destroy(w->p);
	check_eq(fds_open(), 0, "%s: after vpmu_perf_destroy every event the backend opened is closed",
		 name);
	ok(D.misuse == 0, "%s: no call on a fd that is not open: expected 0 such calls, seen %u%s%s",
	   name, D.misuse, D.misuse ? ": first " : "", D.misuse ? D.misuse_what : "");
}

static inline uint64_t rd(struct vpmu_vcpu *v, uint32_t msr)
{
	uint64_t val = ~0ull;
	enum vpmu_fault f = VPMU_FAULT_NONE;
	int r = vpmu_reg_read(v, VPMU_SPACE_MSR, msr, &val, &f);
	if (r || f != VPMU_FAULT_NONE) {
		printf("# read of MSR 0x%x: rc %d fault %s\n", msr, r, vpmu_fault_name(f));
		return ~0ull;
	}
	return val;
}

/* A guest WRMSR: the fault it gets (-1 if the call itself failed). */
static inline int wr(struct vpmu_vcpu *v, uint32_t msr, uint64_t val)
{
	enum vpmu_fault f = VPMU_FAULT_NONE;
	if (vpmu_reg_write(v, VPMU_SPACE_MSR, msr, val, &f))
		return -1;
	return (int)f;
}

static inline struct vpmu_totals totals(struct vpmu_vcpu *v)
{
	struct vpmu_totals t;
	memset(&t, 0, sizeof(t));
	vpmu_vcpu_totals(v, &t);
	return t;
}

static inline struct vpmu_perf_stats stats(const struct world *w)
{
	struct vpmu_perf_stats s;
	vpmu_perf_stats(w->p, &s);
	return s;
}

static inline const struct open_rec *last_rec(void)
{
	static const struct open_rec none = { .fd = -1 };
	return D.nrec ? &D.rec[D.nrec - 1] : &none;
}

/* The attributes of an open record, with the expected ones. */
static inline void check_attr(const struct open_rec *r, uint64_t config, unsigned ex_user,
		       unsigned ex_kernel, uint64_t period, const char *what)
{
	check_eq(r->type, PERF_TYPE_HARDWARE, "%s: attr.type is PERF_TYPE_HARDWARE", what);
	check_eq(r->config, config, "%s: attr.config", what);
	check_eq(r->pinned, 1, "%s: attr.pinned", what);
	check_eq(r->disabled, 0, "%s: attr.disabled (an event opened disabled never counts)", what);
	check_eq(r->exclude_host, 1, "%s: attr.exclude_host (the guest only)", what);
	check_eq(r->exclude_hv, 1, "%s: attr.exclude_hv", what);
	check_eq(r->exclude_user, ex_user, "%s: attr.exclude_user", what);
	check_eq(r->exclude_kernel, ex_kernel, "%s: attr.exclude_kernel", what);
	check_eq(r->sample_period, period, "%s: attr.sample_period", what);
}

#endif
