/* SPDX-License-Identifier: MIT */
/*
 * Host backends (ARCHITECTURE.md decision 3/4).  The core programs "host hardware"
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

struct vpmu_model;   /* opaque to backends except through vpmu_model_decode_ctr() */

struct vpmu_backend_ops {
	const char *name;
	/* `model` is the CPU model whose register layout the images use. */
	void (*write_ctrl)(void *ctx, unsigned cpu, const struct vpmu_model *model,
			   unsigned slot, uint64_t value);
	void (*write_ctr)(void *ctx, unsigned cpu, const struct vpmu_model *model,
			  unsigned pmc, uint64_t value);
	uint64_t (*read_ctr)(void *ctx, unsigned cpu, const struct vpmu_model *model,
			     unsigned pmc);
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

/* ---- sim: the deterministic reference backend (trace-format.md) ---- */
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

#ifdef __cplusplus
}
#endif
#endif
