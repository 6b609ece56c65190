/* SPDX-License-Identifier: MIT */
/* Per-vCPU and per-VM counter accounting, printed the same way by every tool. */
#ifndef VPMU_TOOLS_ACCOUNTING_H
#define VPMU_TOOLS_ACCOUNTING_H

#include <stdio.h>

#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

/* How the host counts each generic event (hardware, task clock, not at all). */
void accounting_print_sources(FILE *out, const struct vpmu_host *host);
/* The perf backend's system calls and the host's refusals by cause. */
void accounting_print_perf(FILE *out, const struct vpmu_perf *p);

#endif
