/* SPDX-License-Identifier: MIT */
/*
 * Where running VMs' live accounting sockets are (docs/accounting.md, "Live
 * view"): $XDG_RUNTIME_DIR/vpmu/ when XDG_RUNTIME_DIR is set (a user's VMs, as
 * the XDG Base Directory Specification puts runtime sockets), /run/vpmu/
 * otherwise; VPMU_RUNTIME_DIR overrides both (tests).  One NAME.sock per VM.
 */
#ifndef VPMU_TOOLS_STAT_DIR_H
#define VPMU_TOOLS_STAT_DIR_H

#include <stdbool.h>
#include <stddef.h>

#define STAT_NAME_MAX 63         /* a domain name's length (the snapshot's name[64]) */
#define STAT_REQUEST "snapshot\n"   /* the one request (docs/accounting.md) */
#define STAT_REQUEST_MAX 64      /* longer requests are refused */

/* NAME: letters, digits, '.', '_', '-', not starting with '.' or '-', at most
 * STAT_NAME_MAX bytes: a file name and a Prometheus label value as it is. */
bool stat_name_valid(const char *name);

/* The runtime directory into dir (dirsize bytes).  create: make it (mode 0700)
 * if missing and refuse one that others can enter.  0, or -errno with a
 * message in err. */
int stat_dir_get(char *dir, size_t dirsize, bool create, char *err, size_t errlen);

/* The live socket's code reports errors as -e with a message in err (errlen
 * bytes; err may be NULL): returns -e. */
int stat_fail(char *err, size_t errlen, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* dir/NAME.sock into path; -ENAMETOOLONG past sun_path's size. */
int stat_sock_path(char *path, size_t size, const char *dir, const char *name);

#endif
