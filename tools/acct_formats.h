/* SPDX-License-Identifier: MIT */
/*
 * The accounting formats (docs/accounting.md): each writes the snapshots of the
 * n VMs given (tools/acct_snapshot.h) to out, and returns 0 or -errno.
 */
#ifndef VPMU_TOOLS_ACCT_FORMATS_H
#define VPMU_TOOLS_ACCT_FORMATS_H

#include <errno.h>
#include <stdio.h>

#include "acct_snapshot.h"

int acct_write_text(FILE *out, const struct acct_vm *vms, unsigned n);
int acct_write_domstats(FILE *out, const struct acct_vm *vms, unsigned n);
int acct_write_prometheus(FILE *out, const struct acct_vm *vms, unsigned n);
int acct_write_json(FILE *out, const struct acct_vm *vms, unsigned n);


#endif
