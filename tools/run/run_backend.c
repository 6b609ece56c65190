/* SPDX-License-Identifier: MIT */
/* vpmu-run's host side, the same whichever ISA the VMM runs (run_backend.h). */
#include <stdio.h>
#include <string.h>

#include "run_backend.h"

/* A host refusal (once per cause): the VM runs on, the counter reads zero. */
static void perf_log(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "vpmu-run: %s\n", line);
}

int run_backend_create(const char *backend, unsigned vcpus, int signo, unsigned perf_flags,
		       struct vpmu_perf **perf, struct vpmu_sim **sim, struct vpmu_host **host)
{
	struct vpmu_backend be;
	int r;
	*perf = NULL;
	*sim = NULL;
	*host = NULL;
	if (!strcmp(backend, "perf")) {
		r = vpmu_perf_create(vcpus, signo, perf_flags, perf);
		if (r == 0) {
			vpmu_perf_backend(*perf, &be);
			vpmu_perf_set_log(*perf, perf_log, NULL);
		}
	} else {
		r = vpmu_sim_create(vcpus, sim);
		if (r == 0)
			vpmu_sim_backend(*sim, &be);
	}
	if (r == 0)
		r = vpmu_host_create(&be, vcpus, host);
	if (r < 0) {
		vpmu_perf_destroy(*perf);
		vpmu_sim_destroy(*sim);
		*perf = NULL;
		*sim = NULL;
		return r;
	}
	if (*perf)
		vpmu_perf_attach(*perf, *host);
	if (*sim)
		vpmu_sim_attach(*sim, *host);
	return 0;
}
