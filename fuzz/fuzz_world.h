/* SPDX-License-Identifier: MIT */
/*
 * What the libFuzzer targets that drive VMs share: a sim-backed host, and a VM
 * whose model and options the input picks.  Include after fuzz_input.h.
 */
#ifndef VPMU_FUZZ_WORLD_H
#define VPMU_FUZZ_WORLD_H

#include <stdio.h>

#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

/* The sim backend over nr_cpus host CPUs, and a host on it. */
/* The first count of was that is greater in now (the name of the field, with
 * its index for the arrays' elements in a static buffer), or NULL: totals only
 * grow.  Field by field, from the one list of counts (VPMU_TOTALS_COUNTS). */
static inline const char *totals_decreased(const struct vpmu_totals *was,
					   const struct vpmu_totals *now)
{
	static char name[32];
	for (unsigned i = 0; i < VPMU_MAX_CTRS; i++)
		if (now->pmc[i] < was->pmc[i])
			return snprintf(name, sizeof(name), "pmc[%u]", i), name;
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		if (now->events[e] < was->events[e])
			return snprintf(name, sizeof(name), "events[%u]", e), name;
#define FUZZ_DECREASED(f, ...) if (now->f < was->f) return #f;
	VPMU_TOTALS_COUNTS(FUZZ_DECREASED)
#undef FUZZ_DECREASED
	for (unsigned r = 0; r < VPMU_MAX_RULES; r++)
		if (now->violations[r] < was->violations[r])
			return snprintf(name, sizeof(name), "violations[%u]", r), name;
	return NULL;
}

static inline void fuzz_sim_host(unsigned nr_cpus, struct vpmu_sim **sim, struct vpmu_host **host)
{
	struct vpmu_backend be;
	CHECK(vpmu_sim_create(nr_cpus, sim) == 0, "sim create");
	vpmu_sim_backend(*sim, &be);
	CHECK(vpmu_host_create(&be, nr_cpus, host) == 0, "host create");
	vpmu_sim_attach(*sim, *host);
}

/* A VM of the model the input names, strict or not, with the CPUID model,
 * stepping and hyper-threading it asks for.  Options a model refuses (ht off
 * the P4, a CPUID model it never had, ...) fall back to the model's defaults,
 * which must work.  *cfg says what the VM was made with; returns the model's
 * index in the registry. */
static inline unsigned fuzz_vm_create(struct vpmu_host *host, struct input *in,
				      struct vpmu_vm **vm, struct vpmu_vm_config *cfg)
{
	unsigned nmodels = vpmu_model_count();
	CHECK(nmodels > 0, "no models registered");
	unsigned model = take8(in) % nmodels;
	uint8_t opt = take8(in);
	*cfg = (struct vpmu_vm_config)VPMU_VM_CONFIG_INIT;
	cfg->model = vpmu_model_name(model);
	cfg->flags = (opt & 1) ? VPMU_VM_STRICT : 0;
	if (opt & 2)
		cfg->cpumodel = take8(in);
	if (opt & 4)
		cfg->stepping = take8(in) & 15;
	cfg->ht = (opt >> 3) & 1;
	if (vpmu_vm_create(host, cfg, vm) != 0) {
		*cfg = (struct vpmu_vm_config)VPMU_VM_CONFIG_INIT;
		cfg->model = vpmu_model_name(model);
		cfg->flags = (opt & 1) ? VPMU_VM_STRICT : 0;
		int rc = vpmu_vm_create(host, cfg, vm);
		CHECK(rc == 0, "model %s: cannot create a VM with defaults: %d", cfg->model, rc);
	}
	return model;
}

#endif
