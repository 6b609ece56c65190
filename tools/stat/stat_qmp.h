/* SPDX-License-Identifier: MIT */
/*
 * vpmu-stat's side of QEMU's QMP: a QEMU with the vpmu series (patches/qemu,
 * docs/qemu.md) answers query-vpmu with a document of the JSON accounting
 * schema (docs/accounting.md), the one vpmu-run's live sockets answer with.
 */
#ifndef VPMU_TOOLS_STAT_QMP_H
#define VPMU_TOOLS_STAT_QMP_H

#include <stddef.h>

#include "accounting/acct_formats.h"

#define STAT_QMP_LINE_MAX (16u << 20)   /* one QMP message: ACCT_JSON_MAX and its frame */

/*
 * One snapshot of the QEMU whose QMP server listens on the Unix socket path
 * (-qmp unix:PATH,server=on,wait=off): it reads the greeting, negotiates
 * (qmp_capabilities), asks query-vpmu and parses the answer, all within
 * timeout_ms; events QEMU sends meanwhile are skipped.  A VM QEMU knows no
 * name of (no -name) takes the socket's file name without its extension.
 * 0, or -errno with a message in err: -ENOENT/-ECONNREFUSED (no QEMU
 * there), -ETIMEDOUT, -EPROTO (not QMP, an error answer such as "this VM has
 * no virtual PMU", or a document the reader refuses).
 */
int stat_qmp_fetch(const char *path, unsigned timeout_ms, struct acct_vm *out, char *err,
		   size_t errlen);

#endif
