/* SPDX-License-Identifier: MIT */
/*
 * The sim host backend (docs/trace.md "Semantics"): host hardware of the guest's
 * own CPU model, one host register per guest control or counter register, per
 * host CPU.  It counts what it is told (vpmu_sim_tick), interprets the control
 * images with the model's own decoder, and counts every host register write.
 * Counter registers are full-width writable (a real P6 would sign-extend bit 31;
 * the sim does not, so that i-mode counters restore exactly), and they count at
 * 64 bits, as every backend's counters do (backend.h): a write loads the
 * model-width value, the overflow is the wrap (or MSB) at the model's width, and
 * the bits above it keep what the width would drop, so that no count is lost
 * however many events one tick brings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core.h"

struct sim_cpu {
	/* Host register writes on this CPU: per CPU, because vCPUs switched in on
	 * different host CPUs run on different threads (vpmu.h "Threading"); not
	 * reset with the registers. */
	uint64_t ctrl_writes, ctr_writes;
	const struct vpmu_model *model;
	uint64_t ctrl[VPMU_MAX_CTRL_SLOTS];
	uint64_t ctr[VPMU_MAX_CTRS];
};

static void sim_advance(struct vpmu_sim *s, unsigned cpu, unsigned ev_mask, uint64_t count,
			unsigned priv_mask);

struct vpmu_sim {
	unsigned nr_cpus;
	struct vpmu_host *host;
	struct sim_cpu *cpu;
};

/* Registers of another model's layout do not carry over: start from reset. */
static struct sim_cpu *sim_cpu(struct vpmu_sim *s, unsigned cpu, const struct vpmu_model *m)
{
	struct sim_cpu *c = &s->cpu[cpu];
	if (c->model != m) {
		memset(c->ctrl, 0, sizeof(c->ctrl));
		memset(c->ctr, 0, sizeof(c->ctr));
		c->model = m;
	}
	return c;
}

static void sim_write_ctrl(void *ctx, unsigned cpu, const struct vpmu_model *m, unsigned slot,
			   uint64_t value)
{
	struct vpmu_sim *s = ctx;
	/* slot < the model's nr_ctrl_slots <= VPMU_MAX_CTRL_SLOTS (the core's). */
	if (cpu >= s->nr_cpus)
		return;
	struct sim_cpu *c = sim_cpu(s, cpu, m);
	c->ctrl[slot] = value;
	c->ctrl_writes++;
}

static void sim_write_ctr(void *ctx, unsigned cpu, const struct vpmu_model *m, unsigned pmc,
			  uint64_t value)
{
	struct vpmu_sim *s = ctx;
	if (cpu >= s->nr_cpus || pmc >= VPMU_MAX_CTRS)
		return;
	sim_cpu(s, cpu, m)->ctr[pmc] = value & vpmu_width_mask(m->ctr_width);
	s->cpu[cpu].ctr_writes++;
}

static uint64_t sim_read_ctr(void *ctx, unsigned cpu, const struct vpmu_model *m, unsigned pmc)
{
	const struct vpmu_sim *s = ctx;
	/* pmc < the model's nr_ctrs <= VPMU_MAX_CTRS (the core's), but the sim may
	 * have fewer CPUs than the host it serves. */
	if (cpu >= s->nr_cpus)
		return 0;
	/* A reading changes nothing: another model's registers read as reset. */
	const struct sim_cpu *c = &s->cpu[cpu];
	return c->model == m ? c->ctr[pmc] : 0;
}

static const struct vpmu_backend_ops sim_ops = {
	.name = "sim",
	.write_ctrl = sim_write_ctrl,
	.write_ctr = sim_write_ctr,
	.read_ctr = sim_read_ctr,
};

int vpmu_sim_create(unsigned nr_cpus, struct vpmu_sim **out)
{
	if (!out || nr_cpus == 0 || nr_cpus > VPMU_MAX_HOST_CPUS)
		return -EINVAL;
	struct vpmu_sim *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cpu = calloc(nr_cpus, sizeof(*s->cpu));
	if (!s->cpu) {
		free(s);
		return -ENOMEM;
	}
	s->nr_cpus = nr_cpus;
	*out = s;
	return 0;
}

void vpmu_sim_destroy(struct vpmu_sim *s)
{
	if (!s)
		return;
	free(s->cpu);
	free(s);
}

void vpmu_sim_backend(struct vpmu_sim *s, struct vpmu_backend *out)
{
	out->ops = &sim_ops;
	out->ctx = s;
}

void vpmu_sim_attach(struct vpmu_sim *s, struct vpmu_host *host) { s->host = host; }

int vpmu_sim_tick(struct vpmu_sim *s, unsigned cpu, enum vpmu_event ev, uint64_t count,
		  enum vpmu_mode mode)
{
	if (!s || cpu >= s->nr_cpus || (unsigned)ev >= VPMU_EV_NR ||
	    (mode != VPMU_MODE_USER && mode != VPMU_MODE_KERNEL))
		return -EINVAL;
	sim_advance(s, cpu, 1u << ev, count, 1u << mode);
	return 0;
}

/* `count` events of every generic event in ev_mask (bit = enum vpmu_event) at
 * the privileges in priv_mask (VPMU_PRIV_*), reporting overflows to the host. */
static void sim_advance(struct vpmu_sim *s, unsigned cpu, unsigned ev_mask, uint64_t count,
			unsigned priv_mask)
{
	struct sim_cpu *c = &s->cpu[cpu];
	const struct vpmu_model *m = c->model;
	if (!m)
		return; /* nothing programmed on this CPU yet */
	uint64_t mask = vpmu_width_mask(m->ctr_width), ovf = 0;
	for (unsigned pmc = 0; pmc < m->nr_ctrs; pmc++) {
		unsigned priv;
		bool irq;
		int ev = vpmu_model_decode_ctr(m, c->ctrl, pmc, &priv, &irq);
		if (ev < 0 || !(ev_mask & (1u << ev)) || !(priv & priv_mask))
			continue;
		/* The overflow is decided on the model-width register... */
		uint64_t old = c->ctr[pmc] & mask, now = (old + count) & mask;
		bool crossed;
		if (m->caps & VPMU_CAP_OVF_ON_MSB) /* PPC: the counter goes negative (bit width-1 set) */
			crossed = !(old >> (m->ctr_width - 1)) && (now >> (m->ctr_width - 1) || count > mask);
		else               /* x86: the full-width counter wraps from all-ones to zero */
			crossed = count > mask || count > mask - old;
		if (irq && crossed)
			ovf |= 1ull << pmc;
		/* ...the count at 64 bits. */
		c->ctr[pmc] += count;
	}
	if (ovf && s->host)
		vpmu_host_overflow(s->host, cpu, ovf);
}

/* Totals over the host CPUs: read them while no vCPU thread is switched in. */
uint64_t vpmu_sim_ctrl_writes(const struct vpmu_sim *s)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < s->nr_cpus; i++)
		n += s->cpu[i].ctrl_writes;
	return n;
}

uint64_t vpmu_sim_ctr_writes(const struct vpmu_sim *s)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < s->nr_cpus; i++)
		n += s->cpu[i].ctr_writes;
	return n;
}
