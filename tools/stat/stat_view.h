/* SPDX-License-Identifier: MIT */
/* vpmu-stat's interval view: per-second rates between two snapshots, as perf
 * stat -I prints them (docs/accounting.md, "Live view"). */
#ifndef VPMU_TOOLS_STAT_VIEW_H
#define VPMU_TOOLS_STAT_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "accounting/acct_snapshot.h"

/* Prints the rows of one interval: what each VM of now[] did since the
 * snapshot of the same name in before[] (a VM new in now[] prints nothing
 * yet; a VM of before[] missing from now[] gets a "gone" comment line), over
 * dt seconds, stamped t seconds since the view began.  per_vcpu: one row per
 * vCPU too. */
void stat_view_print(FILE *out, double t, double dt, const struct acct_vm *before, unsigned nb,
		     const struct acct_vm *now, unsigned nn, bool per_vcpu);
void stat_view_header(FILE *out);

#endif
