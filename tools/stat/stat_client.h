/* SPDX-License-Identifier: MIT */
/* vpmu-stat's side of the live accounting sockets (tools/live/stat_server.h). */
#ifndef VPMU_TOOLS_STAT_CLIENT_H
#define VPMU_TOOLS_STAT_CLIENT_H

#include <stddef.h>

#include "accounting/acct_formats.h"
#include "live/stat_dir.h"

#define STAT_CLIENT_TIMEOUT_S 5
#define STAT_ANSWER_MAX (16u << 20)   /* a snapshot of 64 vCPUs is ~100 KB */
#define STAT_FETCH_PARALLEL 64        /* VMs asked at once (file descriptors) */

/* The names of the VMs with a socket in dir, sorted; *names is malloc'd
 * (STAT_NAME_MAX + 1 bytes each).  Returns how many, or -errno. */
int stat_list(const char *dir, char (**names)[STAT_NAME_MAX + 1], char *err, size_t errlen);

/* One snapshot of VM name: asks its socket and parses the answer.  0, or
 * -errno with a message in err (-ENOENT: no such VM; -ECONNREFUSED: its VMM
 * is gone; -EPROTO: a bad or refused answer). */
int stat_fetch(const char *dir, const char *name, struct acct_vm *out, char *err, size_t errlen);

/* Snapshots of the VMs named (all those with a socket when nnames is 0) into
 * *vms (*n of them; release with acct_vms_release).  A VM that does not
 * answer is left out with a line on log; *failed counts them (when listing
 * all, a socket nobody listens on is a VMM that died: left out quietly).  0, or -errno
 * when dir cannot be read or memory runs out. */
int stat_fetch_all(const char *dir, char *const *names, unsigned nnames, struct acct_vm **vms,
		   unsigned *n, unsigned *failed, FILE *log);

/* As stat_fetch_all with STAT_CLIENT_TIMEOUT_S, but all the VMs together get
 * timeout_ms (the exporter's per-scrape deadline: one VM that never answers
 * costs a scrape that long, no more); on_fail (may be NULL) is also told the
 * name of each VM counted in *failed. */
typedef void (*stat_failed_fn)(void *ctx, const char *name);
int stat_fetch_all_within(const char *dir, char *const *names, unsigned nnames, unsigned timeout_ms,
			  struct acct_vm **vms, unsigned *n, unsigned *failed, FILE *log,
			  stat_failed_fn on_fail, void *ctx);

#endif
