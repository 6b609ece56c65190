/* SPDX-License-Identifier: MIT */
/* vpmu-run's host side (tools/run/run_backend.c), for the VMM of either architecture. */
#ifndef VPMU_TOOLS_RUN_RUN_BACKEND_H
#define VPMU_TOOLS_RUN_RUN_BACKEND_H

#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

/* The backend --backend names ("perf": the host's perf_event, kicking vCPU
 * threads with signo, perf_flags VPMU_PERF_*; anything else: the sim) and the
 * libvpmu host over it, for vcpus host CPU slots; the perf backend's refusals
 * go to stderr, one line per cause.  0, with *perf or *sim and *host set; or a
 * negative errno, with what was made destroyed and the three left NULL. */
int run_backend_create(const char *backend, unsigned vcpus, int signo, unsigned perf_flags,
		       struct vpmu_perf **perf, struct vpmu_sim **sim, struct vpmu_host **host);

#endif
