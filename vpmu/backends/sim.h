/* SPDX-License-Identifier: MIT */
/*
 * The sim's register model, for the backends built on it (perf.c): host hardware
 * of the guest's own CPU model, one host register per guest register, per host
 * CPU.  Public entry points are in include/vpmu/backend.h.
 */
#ifndef VPMU_BACKENDS_SIM_H
#define VPMU_BACKENDS_SIM_H

#include "vpmu/backend.h"

/* `count` events of every generic event in ev_mask (bit = enum vpmu_event) at the
 * privileges in priv_mask (VPMU_PRIV_*), reporting overflows to the host. */
void vpmu_sim_advance(struct vpmu_sim *s, unsigned cpu, unsigned ev_mask, uint64_t count,
		      unsigned priv_mask);
/* Events of ev_mask until the first interrupt-enabled counter overflows
 * (UINT64_MAX: none will). */
uint64_t vpmu_sim_irq_distance(const struct vpmu_sim *s, unsigned cpu, unsigned ev_mask);
extern const struct vpmu_backend_ops vpmu_sim_ops;

#endif
