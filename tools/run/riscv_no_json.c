/* SPDX-License-Identifier: MIT */
/*
 * The JSON accounting in the static riscv64 build, which links no json-c
 * (Debian has no riscv64 json-c for the bookworm cross toolchain's glibc;
 * docs/riscv.md): acct_write() refuses the format, and vpmu-run's command
 * line refuses it before (tools/run/riscv_args.c).  The x86 build links
 * tools/accounting/acct_json.c instead.
 */
#include <errno.h>

#include "accounting/acct_formats.h"

int acct_write_json(FILE *out, const struct acct_vm *vms, unsigned n)
{
	(void)out, (void)vms, (void)n;
	return -ENOTSUP;
}
