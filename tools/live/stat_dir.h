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
#include <sys/types.h>

#define STAT_NAME_MAX 63         /* a domain name's length (the snapshot's name[64]) */
#define STAT_REQUEST "snapshot\n"   /* the one request (docs/accounting.md) */
#define STAT_REQUEST_MAX 64      /* longer requests are refused */

/* NAME: letters, digits, '.', '_', '-', not starting with '.' or '-', at most
 * STAT_NAME_MAX bytes: a file name and a Prometheus label value as it is. */
bool stat_name_valid(const char *name);

/* The runtime directory into dir (dirsize bytes).  create: make it (mode 0700)
 * if missing and refuse one not ours, or that others can enter or the group
 * write to (group r-x is a --stat-group VM's doing: its sockets keep their own
 * modes).  0, or -errno with a message in err. */
int stat_dir_get(char *dir, size_t dirsize, bool create, char *err, size_t errlen);

/* vpmu-run --stat-group (docs/accounting.md, "Sharing the sockets with a
 * group"): a VM whose socket a group may read.  STAT_NO_GROUP: none. */
#define STAT_NO_GROUP ((gid_t)-1)
/* A group name (getgrnam_r) or number into *gid; 0, or -EINVAL with a message. */
int stat_group_parse(const char *s, gid_t *gid, char *err, size_t errlen);
/* As stat_dir_get(create = true), and the directory opened to group: mode
 * 0750 and that group (made so when it is ours and 0700; one of another
 * group is refused). */
int stat_dir_get_group(char *dir, size_t dirsize, gid_t group, char *err, size_t errlen);

/* The live socket's code reports errors as -e with a message in err (errlen
 * bytes; err may be NULL): returns -e. */
int stat_fail(char *err, size_t errlen, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* dir/NAME.sock into path; -ENAMETOOLONG past sun_path's size. */
int stat_sock_path(char *path, size_t size, const char *dir, const char *name);

#endif
