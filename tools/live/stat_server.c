/* SPDX-License-Identifier: MIT */
/* The live accounting socket's server (stat_server.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "stat_dir.h"
#include "stat_server.h"

struct client {
	int fd;                      /* -1: a free slot */
	bool writing;                /* the request was read: answering */
	char req[STAT_REQUEST_MAX];
	size_t rlen;
	char *out;
	size_t olen, off;
	uint64_t deadline;           /* ms, monotonic */
};

struct stat_server {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd, stop[2];
	pthread_t thread;
	stat_snapshot_fn fn;
	void *ctx;
	struct client cl[STAT_MAX_CLIENTS];
	char *cache;                 /* the last answer, and when it was made */
	size_t cache_len;
	uint64_t cache_ms;
	struct stat_server_counts n; /* the server thread's until stop joins it */
	gid_t group;                 /* STAT_NO_GROUP: the owner and root alone */
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void drop(struct client *c)
{
	close(c->fd);
	free(c->out);
	*c = (struct client){ .fd = -1 };
}

/* One short line to a client we will not serve; never waits for it. */
static void refuse(int fd, const char *msg)
{
	ssize_t r = send(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)r;
	close(fd);
}

static void answer_error(struct client *c, const char *msg)
{
	c->out = strdup(msg);
	c->olen = c->out ? strlen(msg) : 0;
	c->off = 0;
	c->writing = true;
	c->deadline = now_ms() + STAT_WRITE_MS;
}

static void answer_snapshot(struct stat_server *s, struct client *c)
{
	uint64_t t = now_ms();
	if (!s->cache || t - s->cache_ms >= STAT_CACHE_MS) {
		char *buf = NULL;
		size_t len = 0;
		if (s->fn(s->ctx, &buf, &len) < 0 || !buf) {
			free(buf);
			s->n.failed++;
			answer_error(c, "error: the snapshot failed\n");
			return;
		}
		free(s->cache);
		s->cache = buf;
		s->cache_len = len;
		s->cache_ms = now_ms();
	}
	c->out = malloc(s->cache_len);
	if (!c->out) {
		answer_error(c, "error: out of memory\n");
		return;
	}
	memcpy(c->out, s->cache, s->cache_len);
	c->olen = s->cache_len;
	c->off = 0;
	c->writing = true;
	c->deadline = now_ms() + STAT_WRITE_MS;
	s->n.served++;
}

bool stat_peer_allowed(uid_t owner, gid_t group, uid_t uid, gid_t gid, const gid_t *groups,
		       size_t ngroups)
{
	if (uid == owner || uid == 0)
		return true;
	if (group == STAT_NO_GROUP)
		return false;
	if (gid == group)
		return true;
	for (size_t i = 0; i < ngroups; i++)
		if (groups[i] == group)
			return true;
	return false;
}

/* The peer's credentials as connect() took them (socket(7): SO_PEERCRED;
 * SO_PEERGROUPS, Linux 4.13, its supplementary groups).  A peer in more than
 * 256 groups is judged by its uid and gid alone. */
static bool peer_allowed(const struct stat_server *s, int fd)
{
	struct ucred cr;
	socklen_t crl = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl) < 0)
		return false;
	gid_t groups[256];
	socklen_t gl = sizeof(groups);
	size_t ng = 0;
	if (s->group != STAT_NO_GROUP && cr.uid != geteuid() && cr.uid != 0 &&
	    getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &gl) == 0)
		ng = gl / sizeof(gid_t);
	return stat_peer_allowed(geteuid(), s->group, cr.uid, cr.gid, groups, ng);
}

static void accept_client(struct stat_server *s)
{
	int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	/* The directory and the socket's mode keep others out already; the
	 * credentials say so again for a socket reached some other way. */
	if (!peer_allowed(s, fd)) {
		s->n.denied++;
		refuse(fd, "error: permission denied\n");
		return;
	}
	for (unsigned i = 0; i < STAT_MAX_CLIENTS; i++)
		if (s->cl[i].fd < 0) {
			s->cl[i] = (struct client){ .fd = fd, .deadline = now_ms() + STAT_READ_MS };
			return;
		}
	s->n.busy++;
	refuse(fd, "error: busy: too many clients\n");
}

static void client_read(struct stat_server *s, struct client *c)
{
	ssize_t r = recv(c->fd, c->req + c->rlen, sizeof(c->req) - c->rlen, MSG_DONTWAIT);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {            /* gone before a whole request */
		s->n.bad_requests++;
		drop(c);
		return;
	}
	c->rlen += (size_t)r;
	char *nl = memchr(c->req, '\n', c->rlen);
	if (!nl) {
		if (c->rlen == sizeof(c->req)) {
			s->n.bad_requests++;
			answer_error(c, "error: request too long\n");
		}
		return;
	}
	if ((size_t)(nl - c->req + 1) == strlen(STAT_REQUEST) &&
	    !memcmp(c->req, STAT_REQUEST, strlen(STAT_REQUEST))) {
		answer_snapshot(s, c);
	} else {
		s->n.bad_requests++;
		answer_error(c, "error: unknown request (send \"snapshot\\n\")\n");
	}
}

static void client_write(struct client *c)
{
	ssize_t w = send(c->fd, c->out + c->off, c->olen - c->off, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (w < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (w <= 0 || (c->off += (size_t)w) == c->olen)
		drop(c);
}

static void *serve(void *arg)
{
	struct stat_server *s = arg;
	struct pollfd pf[2 + STAT_MAX_CLIENTS];
	for (;;) {
		uint64_t t = now_ms(), next = UINT64_MAX;
		pf[0] = (struct pollfd){ .fd = s->stop[0], .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
		for (unsigned i = 0; i < STAT_MAX_CLIENTS; i++) {
			struct client *c = &s->cl[i];
			if (c->fd >= 0 && t >= c->deadline) {   /* slow or silent: dropped */
				s->n.timeouts++;
				drop(c);
			}
			pf[2 + i] = (struct pollfd){ .fd = c->fd, .events = c->writing ? POLLOUT : POLLIN };
			if (c->fd >= 0 && c->deadline < next)
				next = c->deadline;
		}
		int timeout = next == UINT64_MAX ? -1 : (int)(next - t + 1);
		if (poll(pf, 2 + STAT_MAX_CLIENTS, timeout) < 0 && errno != EINTR)
			break;
		if (pf[0].revents)
			break;
		for (unsigned i = 0; i < STAT_MAX_CLIENTS; i++) {
			struct client *c = &s->cl[i];
			if (c->fd < 0 || !pf[2 + i].revents)
				continue;
			if (c->writing)
				client_write(c);
			else
				client_read(s, c);
		}
		if (pf[1].revents & POLLIN)
			accept_client(s);
	}
	for (unsigned i = 0; i < STAT_MAX_CLIENTS; i++)
		if (s->cl[i].fd >= 0)
			drop(&s->cl[i]);
	return NULL;
}

/* Whether a server answers at path (a socket left by a VMM that died does not). */
static bool sock_alive(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	bool alive = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return alive;
}

int stat_server_start(const char *path, stat_snapshot_fn fn, void *ctx, struct stat_server **out,
		      char *err, size_t errlen)
{
	return stat_server_start_group(path, STAT_NO_GROUP, fn, ctx, out, err, errlen);
}

int stat_server_start_group(const char *path, gid_t group, stat_snapshot_fn fn, void *ctx,
			    struct stat_server **out, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (!path || !fn || !out || strlen(path) >= sizeof(sa.sun_path))
		return stat_fail(err, errlen, EINVAL, "bad socket path");
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return stat_fail(err, errlen, EEXIST, "%s exists and is not a socket", path);
		if (sock_alive(path))
			return stat_fail(err, errlen, EADDRINUSE, "a VM with this name is running (%s answers)",
				    path);
		unlink(path);
	}
	struct stat_server *s = calloc(1, sizeof(*s));
	if (!s)
		return stat_fail(err, errlen, ENOMEM, "out of memory");
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	s->fn = fn;
	s->ctx = ctx;
	s->group = group;
	for (unsigned i = 0; i < STAT_MAX_CLIENTS; i++)
		s->cl[i].fd = -1;
	s->stop[0] = s->stop[1] = -1;
	int e = 0;
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = errno;
		stat_fail(err, errlen, e, "cannot bind %s: %s", path, strerror(e));
	} else if ((group != STAT_NO_GROUP && chown(path, (uid_t)-1, group) < 0) ||
		   chmod(path, group != STAT_NO_GROUP ? 0660 : 0600) < 0 ||
		   listen(s->lfd, STAT_MAX_CLIENTS) < 0 || pipe2(s->stop, O_CLOEXEC) < 0) {
		e = errno;
		stat_fail(err, errlen, e, "cannot listen on %s: %s", path, strerror(e));
		unlink(path);
	} else if ((e = pthread_create(&s->thread, NULL, serve, s))) {
		stat_fail(err, errlen, e, "cannot start the server thread: %s", strerror(e));
		unlink(path);
	}
	if (e) {
		if (s->lfd >= 0)
			close(s->lfd);
		if (s->stop[0] >= 0)
			close(s->stop[0]), close(s->stop[1]);
		free(s);
		return -e;
	}
	*out = s;
	return 0;
}

void stat_server_stop(struct stat_server *s, struct stat_server_counts *counts)
{
	if (!s)
		return;
	ssize_t w = write(s->stop[1], "x", 1);
	(void)w;
	pthread_join(s->thread, NULL);
	unlink(s->path);
	close(s->lfd);
	close(s->stop[0]);
	close(s->stop[1]);
	if (counts)
		*counts = s->n;
	free(s->cache);
	free(s);
}
