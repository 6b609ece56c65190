/* SPDX-License-Identifier: MIT */
/*
 * acct_buf_units (acct_buf.h): the text formats of issue 10's 8,000 vCPUs on
 * two threads.  The output is cut into units (a Prometheus family over a range
 * of VMs, a range of VMs' domstats or text), each about ACCT_UNIT_BYTES, that
 * depend on nothing but the snapshots.  Both threads take the next unit not
 * taken; this one also writes the units to b in order, each as soon as it and
 * those before it are done, so that the kernel's cost of the file (~4 ms for
 * 10 MB here) overlaps the other thread's formatting (docs/performance.md
 * "Accounting export at scale").  A unit this thread takes while every unit
 * before it is written goes straight into b, without a copy.  Everything the
 * threads share is under one mutex, and the worker's buffers are read after
 * it has marked them done under that mutex: no other ordering is relied on.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

#include "acct_buf.h"
#include "acct_snapshot.h"

size_t acct_par_min_vcpus = 256;

enum { U_FREE, U_BUSY, U_DONE };

struct unit {
	struct acct_buf b;
	int state;
};

/* How far the worker may run ahead of the writing: the units in memory, and
 * so the pool's blocks (acct_mem_get), stay a few MiB. */
#define AHEAD 4u

struct par {
	pthread_mutex_t mu;
	pthread_cond_t done;    /* a unit became U_DONE */
	pthread_cond_t room;    /* a unit was written */
	unsigned n, next;       /* units; the first not taken */
	unsigned written;       /* the first not written */
	struct unit *u;
	acct_unit_fn fn;
	void *ctx;
};

/* Takes the next unit (mu held); n when none is left. */
static unsigned take(struct par *p)
{
	return p->next < p->n ? p->next++ : p->n;
}

/* Formats unit k into its own memory (mu not held), and marks it done. */
static void format_mem(struct par *p, unsigned k)
{
	struct unit *u = &p->u[k];
	if (acct_buf_mem(&u->b) == 0)
		p->fn(p->ctx, k, &u->b);
	else
		u->b.err = -ENOMEM;
	pthread_mutex_lock(&p->mu);
	u->state = U_DONE;
	pthread_cond_signal(&p->done);
	pthread_mutex_unlock(&p->mu);
}

static void *worker(void *arg)
{
	struct par *p = arg;
	for (;;) {
		unsigned k;
		pthread_mutex_lock(&p->mu);
		while (p->next < p->n && p->next - p->written >= AHEAD)
			pthread_cond_wait(&p->room, &p->mu);
		k = take(p);
		if (k < p->n)
			p->u[k].state = U_BUSY;
		pthread_mutex_unlock(&p->mu);
		if (k >= p->n)
			return NULL;
		format_mem(p, k);
	}
}

/* A done unit's bytes into b; a big one as one write(2) of its own, not
 * copied (write sizes: acct_buf.h). */
static void put_unit(struct acct_buf *b, struct unit *u)
{
	if (u->b.err && !b->err)
		b->err = u->b.err;
	if (u->b.len >= ACCT_UNIT_BYTES / 2)
		acct_buf_put_through(b, u->b.buf, u->b.len);
	else
		acct_put(b, u->b.buf, u->b.len);
	acct_buf_mem_free(&u->b);
}

static int run_par(struct acct_buf *b, struct par *p)
{
	pthread_t t;
	unsigned w = 0;         /* the first unit not written (p->written, ours) */
	if (pthread_create(&t, NULL, worker, p))
		return 1;
	pthread_mutex_lock(&p->mu);
	while (w < p->n) {
		unsigned k;
		if (p->u[w].state == U_DONE) {
			pthread_mutex_unlock(&p->mu);
			put_unit(b, &p->u[w++]);
			pthread_mutex_lock(&p->mu);
			p->written = w;
			pthread_cond_signal(&p->room);
			continue;
		}
		k = take(p);
		if (k == p->n) {
			pthread_cond_wait(&p->done, &p->mu);
			continue;
		}
		p->u[k].state = U_BUSY;
		pthread_mutex_unlock(&p->mu);
		if (k == w) {
			/* all before it written: straight into b */
			p->fn(p->ctx, k, b);
			w++;
			pthread_mutex_lock(&p->mu);
			p->u[k].state = U_DONE;
			p->written = w;
			pthread_cond_signal(&p->room);
		} else {
			format_mem(p, k);
			pthread_mutex_lock(&p->mu);
		}
	}
	pthread_mutex_unlock(&p->mu);
	pthread_join(t, NULL);
	return 0;
}

/* The CPUs this thread may run on, not those online: an exporter pinned to
 * one CPU gains nothing from a second thread. */
static int cpus(void)
{
	cpu_set_t set;
	return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
}

static int use_thread(size_t vcpus)
{
	return !acct_par_min_vcpus || (vcpus >= acct_par_min_vcpus && cpus() >= 2);
}

struct half {
	void (*fn)(void *ctx, unsigned half);
	void *ctx;
};

static void *half_one(void *arg)
{
	const struct half *h = arg;
	h->fn(h->ctx, 1);
	return NULL;
}

void acct_par2(void (*fn)(void *ctx, unsigned half), void *ctx, size_t vcpus)
{
	struct half h = { fn, ctx };
	pthread_t t;
	if (use_thread(vcpus) && pthread_create(&t, NULL, half_one, &h) == 0) {
		fn(ctx, 0);
		pthread_join(t, NULL);
		return;
	}
	fn(ctx, 0);
	fn(ctx, 1);
}

int acct_buf_units(struct acct_buf *b, unsigned n, acct_unit_fn fn, void *ctx, size_t vcpus)
{
	struct par p = { .n = n, .fn = fn, .ctx = ctx };
	int single = n < 2 || !use_thread(vcpus);
	if (!single) {
		p.u = calloc(n, sizeof(*p.u));
		single = !p.u || pthread_mutex_init(&p.mu, NULL);
		if (!single) {
			if (pthread_cond_init(&p.done, NULL) == 0) {
				if (pthread_cond_init(&p.room, NULL) == 0) {
					single = run_par(b, &p);
					pthread_cond_destroy(&p.room);
				} else {
					single = 1;
				}
				pthread_cond_destroy(&p.done);
			} else {
				single = 1;
			}
			pthread_mutex_destroy(&p.mu);
		}
		free(p.u);
	}
	/* no thread (small, one CPU, or none could start): in order, into b */
	for (unsigned k = 0; single && k < n && !b->err; k++)
		fn(ctx, k, b);
	return b->err;
}

/* Cuts n VMs into units: *first (malloc'd) gets the first VM of each unit and
 * n after the last.  Returns how many units (0 for no VM), or -ENOMEM; *vcpus:
 * all the VMs' vCPUs (acct_buf_units' size). */
static int units_by_vm(const struct acct_vm *vms, unsigned n, size_t bytes_per_vcpu,
		       unsigned **first, size_t *vcpus)
{
	unsigned nu = 0;
	size_t bytes = 0;
	*first = malloc(((size_t)n + 1) * sizeof(**first));
	if (!*first)
		return -ENOMEM;
	*vcpus = 0;
	for (unsigned k = 0; k < n; k++) {
		if (bytes == 0)
			(*first)[nu] = k;
		bytes += (vms[k].nr_vcpus + 1u) * bytes_per_vcpu;
		*vcpus += vms[k].nr_vcpus;
		if (bytes >= ACCT_UNIT_BYTES || k + 1 == n) {
			nu++;
			bytes = 0;
		}
	}
	(*first)[nu] = n;
	return (int)nu;
}

int acct_write_by_vm(FILE *out, const struct acct_vm *vms, unsigned n, size_t bytes_per_vcpu,
		     acct_unit_fn fn)
{
	struct acct_buf b;
	struct acct_vm_units x = { .vms = vms };
	size_t vcpus;
	if (!out || (n && !vms))
		return -EINVAL;
	if (acct_buf_open(&b, out))
		return -ENOMEM;
	int nu = units_by_vm(vms, n, bytes_per_vcpu, &x.first, &vcpus);
	int err = nu < 0 ? nu : acct_buf_units(&b, (unsigned)nu, fn, &x, vcpus);
	free(x.first);
	int cerr = acct_buf_close(&b);
	return err ? err : cerr;
}
