/* SPDX-License-Identifier: MIT */
/*
 * A running VM's live accounting socket (vpmu-run --name; docs/accounting.md,
 * "Live view").  One thread serves a Unix stream socket: a client sends the
 * request line "snapshot\n" and reads the VM's accounting as one JSON document
 * (schema 1) until the server closes; anything else gets one "error: ...\n"
 * line.  The server never blocks on a client: sockets are non-blocking, a
 * request must arrive within STAT_READ_MS and the answer be read within
 * STAT_WRITE_MS, at most STAT_MAX_CLIENTS are served at once (more are told
 * "busy"), and only the owner's uid (or root) is answered (SO_PEERCRED), or
 * with a group (vpmu-run --stat-group) that group's members too.
 */
#ifndef VPMU_TOOLS_STAT_SERVER_H
#define VPMU_TOOLS_STAT_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STAT_MAX_CLIENTS 32
#define STAT_READ_MS 2000
#define STAT_WRITE_MS 5000
/* Snapshots asked for within this long share one (a bound on what clients can
 * make the vCPUs do). */
#define STAT_CACHE_MS 100

/* Builds the JSON answer: *buf (malloc'd) of *len bytes; 0 or -errno.  Runs on
 * the server's thread. */
typedef int (*stat_snapshot_fn)(void *ctx, char **buf, size_t *len);

struct stat_server_counts {
	uint64_t served, busy, denied, bad_requests, timeouts, failed;
};

struct stat_server;
/* Listens on path (a live socket there: -EADDRINUSE; a stale one is
 * replaced) with mode 0600.  0, or -errno with a message in err. */
int stat_server_start(const char *path, stat_snapshot_fn fn, void *ctx, struct stat_server **out,
		      char *err, size_t errlen);
/* The same with group (stat_dir.h's STAT_NO_GROUP: none): the socket is mode
 * 0660 and that group's, and the group's members are answered too. */
int stat_server_start_group(const char *path, gid_t group, stat_snapshot_fn fn, void *ctx,
			    struct stat_server **out, char *err, size_t errlen);
/* Whom a server run by owner (its euid) with group answers: owner, root, and
 * with a group, a peer whose gid or one of whose supplementary groups
 * (SO_PEERCRED, SO_PEERGROUPS) it is. */
bool stat_peer_allowed(uid_t owner, gid_t group, uid_t uid, gid_t gid, const gid_t *groups,
		       size_t ngroups);
/* Stops serving, removes the socket; counts (may be NULL) gets what it did. */
void stat_server_stop(struct stat_server *s, struct stat_server_counts *counts);

#endif
