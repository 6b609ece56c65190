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

#include "vpmu/backend.h"

struct sim_cpu {
	/* Host register writes on this CPU: per CPU, because vCPUs switched in on
	 * different host CPUs run on different threads (vpmu.h "Threading"); not
	 * reset with the registers. */
	uint64_t ctrl_writes, ctr_writes;
	const void *layout;                  /* vpmu_pmu_layout() of the registers */
	const struct vpmu_pmu *pmu;          /* the last PMU that programmed them */
	uint64_t ctr_mask[VPMU_MAX_CTRS];    /* its counters' width masks (sim_adopt) */
	uint64_t ctrl[VPMU_MAX_CTRL_SLOTS];
	uint64_t ctr[VPMU_MAX_CTRS];
};

static void sim_advance(struct vpmu_sim *s, unsigned cpu, unsigned ev_mask, uint64_t count,
			unsigned priv_mask);

struct vpmu_sim {
	unsigned nr_cpus;
	struct vpmu_host *host;
	struct sim_cpu *cpu;
	/* What the VMM said it ticks (vpmu_sim_set_event_source); unset: SIM. */
	bool source_set[VPMU_EV_NR];
	enum vpmu_count_source source[VPMU_EV_NR];
	const char *source_why[VPMU_EV_NR];
};

static uint64_t width_mask(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

/* The PMU that programs the registers now, with its counters' widths, which
 * every counter write of that PMU then applies without asking (0 past its
 * counters). */
static void sim_adopt(struct sim_cpu *c, const struct vpmu_pmu *pmu)
{
	c->pmu = pmu;
	for (unsigned pmc = 0; pmc < VPMU_MAX_CTRS; pmc++)
		c->ctr_mask[pmc] = width_mask(vpmu_pmu_ctr_width(pmu, pmc));
}

/* Registers of another layout do not carry over: start from reset. */
static struct sim_cpu *sim_take_over(struct vpmu_sim *s, unsigned cpu, const struct vpmu_pmu *pmu)
{
	struct sim_cpu *c = &s->cpu[cpu];
	if (c->layout != vpmu_pmu_layout(pmu)) {
		memset(c->ctrl, 0, sizeof(c->ctrl));
		memset(c->ctr, 0, sizeof(c->ctr));
		c->layout = vpmu_pmu_layout(pmu);
	}
	if (c->pmu != pmu)
		sim_adopt(c, pmu);
	return c;
}

static void sim_set_ctrl(struct sim_cpu *c, unsigned slot, uint64_t value)
{
	c->ctrl[slot] = value;
	c->ctrl_writes++;
}

/* Out of line, so that the write of the PMU that programmed the registers
 * last (every write but a switch between VMs) saves nothing across a call. */
static __attribute__((noinline)) void sim_write_ctrl_other(struct vpmu_sim *s, unsigned cpu,
							   const struct vpmu_pmu *pmu,
							   unsigned slot, uint64_t value)
{
	sim_set_ctrl(sim_take_over(s, cpu, pmu), slot, value);
}

static void sim_write_ctrl(void *ctx, unsigned cpu, const struct vpmu_pmu *pmu, unsigned slot,
			   uint64_t value)
{
	struct vpmu_sim *s = ctx;
	/* slot < VPMU_MAX_CTRL_SLOTS (backend.h), but the sim may have fewer
	 * CPUs than the host it serves. */
	if (cpu >= s->nr_cpus)
		return;
	struct sim_cpu *c = &s->cpu[cpu];
	if (__builtin_expect(c->pmu != pmu, 0))
		return sim_write_ctrl_other(s, cpu, pmu, slot, value);
	sim_set_ctrl(c, slot, value);
}

static void sim_write_ctr(void *ctx, unsigned cpu, const struct vpmu_pmu *pmu, unsigned pmc,
			  uint64_t value)
{
	struct vpmu_sim *s = ctx;
	if (cpu >= s->nr_cpus || pmc >= VPMU_MAX_CTRS)
		return;
	struct sim_cpu *c = &s->cpu[cpu];
	if (__builtin_expect(c->pmu != pmu, 0))
		c = sim_take_over(s, cpu, pmu);
	c->ctr[pmc] = value & c->ctr_mask[pmc];
	c->ctr_writes++;
}

/* A reading changes nothing: another layout's registers read as reset.  A CPU
 * whose PMU was forgotten (sim_forget_pmu) is the reader's from now on when
 * the layout is the same: the core's control cache may have found the images
 * it wants already there and written none.  Out of line with the fast path's
 * arguments: a tail call that moves nothing. */
static __attribute__((noinline)) uint64_t sim_read_other(void *ctx, unsigned cpu,
							 const struct vpmu_pmu *pmu, unsigned pmc)
{
	struct sim_cpu *c = &((struct vpmu_sim *)ctx)->cpu[cpu];
	if (c->layout != vpmu_pmu_layout(pmu))
		return 0;
	if (!c->pmu)
		sim_adopt(c, pmu);
	return c->ctr[pmc % VPMU_MAX_CTRS];
}

static uint64_t sim_read_ctr(void *ctx, unsigned cpu, const struct vpmu_pmu *pmu, unsigned pmc)
{
	const struct vpmu_sim *s = ctx;
	/* pmc < the PMU's counters <= VPMU_MAX_CTRS (the core's), but the sim may
	 * have fewer CPUs than the host it serves. */
	if (cpu >= s->nr_cpus)
		return 0;
	const struct sim_cpu *c = &s->cpu[cpu];
	if (__builtin_expect(c->pmu == pmu, 1))
		return c->ctr[pmc];   /* the PMU that programmed them */
	return sim_read_other(ctx, cpu, pmu, pmc);
}

/* A destroyed VM's PMU no longer decodes what its controls left in a host
 * CPU's registers: events ticked there count nothing until another VM's vCPU
 * programs it (sim_take_over). */
static void sim_forget_pmu(void *ctx, const struct vpmu_pmu *pmu)
{
	struct vpmu_sim *s = ctx;
	for (unsigned i = 0; i < s->nr_cpus; i++)
		if (s->cpu[i].pmu == pmu)
			s->cpu[i].pmu = NULL;
}

static enum vpmu_count_source sim_event_source(void *ctx, enum vpmu_event ev, const char **why)
{
	struct vpmu_sim *s = ctx;
	if ((unsigned)ev < VPMU_EV_NR && s->source_set[ev]) {
		if (why)
			*why = s->source_why[ev];
		return s->source[ev];
	}
	if (why)
		*why = "counted as the trace's ticks say";
	return VPMU_COUNT_SIM;
}

static const struct vpmu_backend_ops sim_ops = {
	.name = "sim",
	.write_ctrl = sim_write_ctrl,
	.write_ctr = sim_write_ctr,
	.read_ctr = sim_read_ctr,
	.event_source = sim_event_source,
	.forget_pmu = sim_forget_pmu,
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

int vpmu_sim_set_event_source(struct vpmu_sim *s, enum vpmu_event ev, enum vpmu_count_source src,
			      const char *why)
{
	if (!s || (unsigned)ev >= VPMU_EV_NR || (unsigned)src > VPMU_COUNT_RAW)
		return -EINVAL;
	s->source_set[ev] = true;
	s->source[ev] = src;
	s->source_why[ev] = why;
	return 0;
}

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
	const struct vpmu_pmu *pmu = c->pmu;
	if (!pmu)
		return; /* nothing programmed on this CPU yet */
	uint64_t ovf = 0;
	bool msb = vpmu_pmu_overflows_at_msb(pmu);
	for (unsigned pmc = 0; pmc < vpmu_pmu_nr_ctrs(pmu); pmc++) {
		unsigned priv, width = vpmu_pmu_ctr_width(pmu, pmc);
		bool irq;
		int ev = vpmu_pmu_decode_ctr(pmu, c->ctrl, pmc, &priv, &irq);
		if (ev < 0 || !(ev_mask & (1u << ev)) || !(priv & priv_mask))
			continue;
		/* The overflow is decided on the counter-width register... */
		uint64_t mask = width_mask(width);
		uint64_t old = c->ctr[pmc] & mask, now = (old + count) & mask;
		bool crossed;
		if (msb) /* PPC: the counter goes negative (bit width-1 set) */
			crossed = !(old >> (width - 1)) && (now >> (width - 1) || count > mask);
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
