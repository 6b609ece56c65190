/* SPDX-License-Identifier: MIT */
/* Asking a running VM for its accounting (stat_client.h). */
#include <dirent.h>
#include <poll.h>
#include <time.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "stat_client.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int stat_list(const char *dir, char (**names)[STAT_NAME_MAX + 1], char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	*names = NULL;
	if (!d)
		return stat_fail(err, errlen, errno, "%s: %s", dir, strerror(errno));
	unsigned n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len <= 5 || strcmp(e->d_name + len - 5, ".sock"))
			continue;
		char name[STAT_NAME_MAX + 1];
		if (len - 5 > STAT_NAME_MAX)
			continue;
		memcpy(name, e->d_name, len - 5);
		name[len - 5] = '\0';
		if (!stat_name_valid(name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			void *p = realloc(*names, cap * sizeof(**names));
			if (!p) {
				free(*names);
				*names = NULL;
				closedir(d);
				return stat_fail(err, errlen, ENOMEM, "out of memory");
			}
			*names = p;
		}
		memcpy((*names)[n++], name, sizeof(name));
	}
	closedir(d);
	if (n)
		qsort(*names, n, sizeof(**names), by_name);
	return (int)n;
}

/*
 * Asking many VMs at once: a VM answers when its vCPU threads have (tens of
 * ms when one must be kicked out of the guest: tools/live/live_vm.h), so an
 * exporter that asked 1,000 VMs one after another would wait for each in turn.
 * Up to STAT_FETCH_PARALLEL sockets are open at a time, all polled.
 */
struct ask {
	const char *name;
	int fd;
	char *buf;
	size_t len, cap;
	int r;                       /* 0 done, -errno failed, 1 waiting */
	int send_err;                /* the request's send failed (err says how) */
	char err[200];
};

/* Whether the answer so far is a server's one-line refusal ("error: busy: too
 * many clients", "error: permission denied": stat_server.c). */
static bool refusal(const struct ask *q)
{
	return q->len >= 7 && !strncmp(q->buf, "error: ", 7);
}

static void ask_start(struct ask *q, const char *dir)
{
	char path[512];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	q->fd = -1;
	q->r = 1;
	if (!stat_name_valid(q->name)) {
		q->r = stat_fail(q->err, sizeof(q->err), EINVAL, "'%s' is not a VM name", q->name);
		return;
	}
	if (stat_sock_path(path, sizeof(path), dir, q->name) < 0 || strlen(path) >= sizeof(sa.sun_path)) {
		q->r = stat_fail(q->err, sizeof(q->err), ENAMETOOLONG, "socket path too long");
		return;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	q->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (q->fd < 0) {
		q->r = stat_fail(q->err, sizeof(q->err), errno, "socket: %s", strerror(errno));
		return;
	}
	/* Blocking: a Unix socket's connect and a 9-byte request do not wait
	 * on the server (its backlog, its socket buffer). */
	size_t rl = strlen(STAT_REQUEST);
	if (connect(q->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		q->r = stat_fail(q->err, sizeof(q->err), e, "%s: %s", path,
				 e == ECONNREFUSED ? "nothing answers (its VMM is gone)" : strerror(e));
	} else if (send(q->fd, STAT_REQUEST, rl, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)rl) {
		/* A server that refuses writes its line and closes, perhaps before
		 * the request came (EPIPE): the line is still there to read, and
		 * says why; this error stands only if nothing comes. */
		q->send_err = errno ? errno : EIO;
		stat_fail(q->err, sizeof(q->err), q->send_err, "%s: cannot send the request: %s", path,
			  strerror(q->send_err));
	}
}

/* More of the answer; the whole of it once the server closes. */
static void ask_read(struct ask *q)
{
	if (q->len == q->cap) {
		if (q->cap >= STAT_ANSWER_MAX) {
			q->r = stat_fail(q->err, sizeof(q->err), EPROTO, "answer over %u bytes",
					 STAT_ANSWER_MAX);
			return;
		}
		size_t cap = q->cap ? q->cap * 2 : 64 << 10;
		char *nb = realloc(q->buf, cap + 1);
		if (!nb) {
			q->r = stat_fail(q->err, sizeof(q->err), ENOMEM, "out of memory");
			return;
		}
		q->buf = nb;
		q->cap = cap;
	}
	ssize_t r = recv(q->fd, q->buf + q->len, q->cap - q->len, MSG_DONTWAIT);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if ((r < 0 || r == 0) && refusal(q)) {
		/* A refusing server closes with our request unread, and a Unix
		 * socket then reports ECONNRESET, but only after the bytes it
		 * sent before closing have been read (POSIX's order, which
		 * Linux's unix_stream_read_generic follows): the line is whole. */
		q->buf[q->len] = '\0';
		q->r = 0;
	} else if (r < 0) {
		q->r = stat_fail(q->err, sizeof(q->err), errno, "%s", strerror(errno));
	} else if (r == 0 && q->send_err) {
		q->r = -q->send_err;     /* nothing came: the send's error, in err */
	} else if (r == 0) {
		q->buf[q->len] = '\0';
		q->r = 0;
	} else {
		q->len += (size_t)r;
	}
}

/* The answer as one snapshot into out (q->r: 0 or -EPROTO). */
static void ask_parse(struct ask *q, struct acct_vm *out)
{
	struct acct_vm *vms = NULL;
	unsigned n = 0;
	char why[160];
	if (!strncmp(q->buf, "error: ", 7)) {
		q->buf[strcspn(q->buf, "\n")] = '\0';
		q->r = stat_fail(q->err, sizeof(q->err), EPROTO, "the VM said %s", q->buf);
		return;
	}
	int r = acct_read_json(q->buf, q->len, &vms, &n, why, sizeof(why));
	if (r < 0 || n != 1) {
		if (r == 0)
			acct_vms_release(vms, n);
		q->r = stat_fail(q->err, sizeof(q->err), EPROTO, "bad answer: %s",
				 r < 0 ? why : "not exactly one VM");
		return;
	}
	*out = vms[0];
	free(vms);   /* the one snapshot moved to *out */
}

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Asks the n VMs of q (n <= STAT_FETCH_PARALLEL) at once, until the
 * CLOCK_MONOTONIC time deadline (ms); q[i].r says how each went, out[i] holds
 * the snapshots of those with 0. */
static void ask_all(const char *dir, struct ask *q, unsigned n, struct acct_vm *out, long deadline)
{
	struct pollfd pf[STAT_FETCH_PARALLEL];
	for (unsigned i = 0; i < n; i++)
		ask_start(&q[i], dir);
	for (;;) {
		unsigned waiting = 0;
		for (unsigned i = 0; i < n; i++) {
			pf[i] = (struct pollfd){ .fd = q[i].r == 1 ? q[i].fd : -1, .events = POLLIN };
			waiting += q[i].r == 1;
		}
		long left = deadline - now_ms();
		if (!waiting || left <= 0)
			break;
		if (poll(pf, n, (int)left) < 0 && errno != EINTR)
			break;
		for (unsigned i = 0; i < n; i++)
			if (q[i].r == 1 && pf[i].revents)
				ask_read(&q[i]);
	}
	for (unsigned i = 0; i < n; i++) {
		if (q[i].r == 1)
			q[i].r = stat_fail(q[i].err, sizeof(q[i].err), ETIMEDOUT, "no answer in time");
		if (q[i].r == 0)
			ask_parse(&q[i], &out[i]);
		if (q[i].fd >= 0)
			close(q[i].fd);
		free(q[i].buf);
	}
}

int stat_fetch(const char *dir, const char *name, struct acct_vm *out, char *err, size_t errlen)
{
	struct ask q = { .name = name };
	ask_all(dir, &q, 1, out, now_ms() + STAT_CLIENT_TIMEOUT_S * 1000L);
	if (q.r == -ETIMEDOUT)
		snprintf(q.err, sizeof(q.err), "no answer within %d s", STAT_CLIENT_TIMEOUT_S);
	if (q.r < 0)
		stat_fail(err, errlen, -q.r, "%s: %s", name, q.err);
	return q.r;
}

int stat_fetch_all(const char *dir, char *const *names, unsigned nnames, struct acct_vm **vms,
		   unsigned *n, unsigned *failed, FILE *log)
{
	return stat_fetch_all_within(dir, names, nnames, STAT_CLIENT_TIMEOUT_S * 1000u, vms, n, failed,
				     log, NULL, NULL);
}

int stat_fetch_all_within(const char *dir, char *const *names, unsigned nnames, unsigned timeout_ms,
			  struct acct_vm **vms, unsigned *n, unsigned *failed, FILE *log,
			  stat_failed_fn on_fail, void *ctx)
{
	long deadline = now_ms() + (long)timeout_ms;
	char (*listed)[STAT_NAME_MAX + 1] = NULL;
	char err[512];
	*vms = NULL;
	*n = *failed = 0;
	int nl = 0;
	if (!nnames) {
		nl = stat_list(dir, &listed, err, sizeof(err));
		if (nl < 0) {
			if (nl == -ENOENT)   /* no VM ever ran here */
				return 0;
			fprintf(log, "vpmu-stat: %s\n", err);
			return nl;
		}
	}
	unsigned want = nnames ? nnames : (unsigned)nl;
	struct acct_vm *out = want ? calloc(want, sizeof(*out)) : NULL;
	if (want && !out) {
		free(listed);
		return -ENOMEM;
	}
	struct ask q[STAT_FETCH_PARALLEL];
	unsigned got = 0;
	for (unsigned i0 = 0; i0 < want; i0 += STAT_FETCH_PARALLEL) {
		unsigned nb = want - i0 < STAT_FETCH_PARALLEL ? want - i0 : STAT_FETCH_PARALLEL;
		struct acct_vm snap[STAT_FETCH_PARALLEL];
		for (unsigned i = 0; i < nb; i++)
			q[i] = (struct ask){ .name = nnames ? names[i0 + i] : listed[i0 + i] };
		ask_all(dir, q, nb, snap, deadline);
		for (unsigned i = 0; i < nb; i++) {
			if (q[i].r == 0) {
				out[got++] = snap[i];
				continue;
			}
			/* A socket left by a VMM that died is not news when listing
			 * all: no VM runs there. */
			if (!nnames && q[i].r == -ECONNREFUSED)
				continue;
			if (q[i].r == -ETIMEDOUT)
				snprintf(q[i].err, sizeof(q[i].err), "no answer within %u ms", timeout_ms);
			(*failed)++;
			fprintf(log, "vpmu-stat: %s: %s\n", q[i].name, q[i].err);
			if (on_fail)
				on_fail(ctx, q[i].name);
		}
	}
	free(listed);
	*vms = out;
	*n = got;
	return 0;
}
