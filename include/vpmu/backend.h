/* SPDX-License-Identifier: MIT */
/*
 * Host backends (docs/principles.md §3, §4).  The core programs "host hardware"
 * exactly the way the perfctr driver programs real hardware: control-register
 * images by slot (EVNTSELn, CESR, CCCR/ESCR, MMCRn) and counter registers by
 * counter number.  A backend turns that into something real (perf events) or
 * simulates it (sim).  Overflow of an interrupt-enabled host counter is reported
 * back with vpmu_host_overflow().
 */
#ifndef VPMU_BACKEND_H
#define VPMU_BACKEND_H

#include <stdint.h>
#include "vpmu/vpmu.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The library is built with -fvisibility=hidden: what is declared here is its ABI. */
#pragma GCC visibility push(default)

struct vpmu_model;   /* opaque to backends: vpmu_model_decode_ctr() and friends */

struct vpmu_backend_ops {
	const char *name;
	/* `model` is the CPU model whose register layout the images use. */
	void (*write_ctrl)(void *ctx, unsigned cpu, const struct vpmu_model *model,
			   unsigned slot, uint64_t value);
	void (*write_ctr)(void *ctx, unsigned cpu, const struct vpmu_model *model,
			  unsigned pmc, uint64_t value);
	/* A backend's counters are 64 bits wide, whatever the model's width: the
	 * core takes the difference of two reads at 64 bits, so no count is lost
	 * however long a vCPU stays switched in (a backend over narrower hardware
	 * extends it, as perf_event does).  A write loads a model-width value. */
	uint64_t (*read_ctr)(void *ctx, unsigned cpu, const struct vpmu_model *model,
			     unsigned pmc);
	/* Optional, for backends whose counters count while the guest runs (perf):
	 * run_begin is called at the end of a switch-in, once the registers are
	 * loaded and the guest is about to run; run_end at the start of a
	 * switch-out, before perfctr's suspend reads the counters, so that what the
	 * guest counted lands (and overflows are reported) there. */
	void (*run_begin)(void *ctx, unsigned cpu);
	void (*run_end)(void *ctx, unsigned cpu);
};

struct vpmu_backend {
	const struct vpmu_backend_ops *ops;
	void *ctx;
};

/* What a counter programmed with control images `ctrl` counts on model `model`:
 * returns the generic event (or VPMU_EV_NONE when it counts nothing), the privilege
 * mask (VPMU_PRIV_*) and whether its overflow interrupts. */
int vpmu_model_decode_ctr(const struct vpmu_model *model, const uint64_t *ctrl,
			  unsigned pmc, unsigned *priv, bool *interrupt);
unsigned vpmu_model_ctr_width(const struct vpmu_model *model);
unsigned vpmu_model_nr_ctrs(const struct vpmu_model *model);

/* ---- sim: the deterministic reference backend (docs/trace.md "Semantics") ---- */
struct vpmu_sim;
int vpmu_sim_create(unsigned nr_cpus, struct vpmu_sim **out);
void vpmu_sim_destroy(struct vpmu_sim *sim);
void vpmu_sim_backend(struct vpmu_sim *sim, struct vpmu_backend *out);
/* The host the sim reports overflows to (set once the host exists). */
void vpmu_sim_attach(struct vpmu_sim *sim, struct vpmu_host *host);
/* `count` occurrences of `ev` at privilege `mode` on host CPU `cpu`. */
int vpmu_sim_tick(struct vpmu_sim *sim, unsigned cpu, enum vpmu_event ev,
		  uint64_t count, enum vpmu_mode mode);
uint64_t vpmu_sim_ctrl_writes(const struct vpmu_sim *sim);
uint64_t vpmu_sim_ctr_writes(const struct vpmu_sim *sim);

/* ---- perf: the sim's register model, counted by each vCPU thread's perf event ----
 * (docs/principles.md §4; docs/integration.md).  Host CPU slot n is the vCPU
 * thread that called vpmu_perf_bind(p, n): its task clock (no host PMU) advances
 * every enabled guest counter whose event has a generic equivalent, one event per
 * nanosecond of the thread's time inside KVM_RUN (run_begin to run_end).  An
 * interrupt-enabled counter arms the event's sample period to its overflow
 * distance; the overflow sends signal `signo` to the bound thread, which makes
 * KVM_RUN return -EINTR (the VMM unblocks `signo` only inside KVM_RUN, with
 * KVM_SET_SIGNAL_MASK), and the switch-out that follows raises the PMI. */
struct vpmu_perf;
int vpmu_perf_create(unsigned nr_cpus, int signo, struct vpmu_perf **out);
void vpmu_perf_destroy(struct vpmu_perf *p);
void vpmu_perf_backend(struct vpmu_perf *p, struct vpmu_backend *out);
void vpmu_perf_attach(struct vpmu_perf *p, struct vpmu_host *host);
/* On the vCPU thread that will switch in on slot `cpu`: open its counting event.
 * -errno (with a message in vpmu_perf_error()) when the host refuses it. */
int vpmu_perf_bind(struct vpmu_perf *p, unsigned cpu);
const char *vpmu_perf_error(const struct vpmu_perf *p);
/* What the counters count: "task-clock" (ns of the vCPU thread in the guest). */
const char *vpmu_perf_source(const struct vpmu_perf *p);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
