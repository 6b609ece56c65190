/* SPDX-License-Identifier: MIT */
/* Asking QEMU for its vPMU's accounting over QMP (stat_qmp.h).  The protocol
 * is QEMU's docs/interop/qmp-spec.rst: the server greets, the client sends
 * qmp_capabilities, then commands; every message is one JSON object ending
 * in a newline, and a reply carries the "id" of its command. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "live/stat_dir.h"
#include "stat_qmp.h"

struct qmp {
	int fd;
	long deadline;           /* CLOCK_MONOTONIC, ms */
	char *buf;
	size_t len, cap;         /* bytes read; the first message ends at a newline */
	char *err;
	size_t errlen;
};

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Waits for fd to be ready for events, until the deadline. */
static int wait_fd(struct qmp *c, short events)
{
	for (;;) {
		long left = c->deadline - now_ms();
		if (left <= 0)
			return stat_fail(c->err, c->errlen, ETIMEDOUT, "no answer in time");
		struct pollfd pf = { .fd = c->fd, .events = events };
		int r = poll(&pf, 1, (int)left);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return stat_fail(c->err, c->errlen, errno, "poll: %s", strerror(errno));
	}
}

static int send_line(struct qmp *c, const char *line)
{
	size_t len = strlen(line), off = 0;
	while (off < len) {
		int r = wait_fd(c, POLLOUT);
		if (r < 0)
			return r;
		ssize_t n = send(c->fd, line + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return stat_fail(c->err, c->errlen, EPROTO, "QEMU closed the connection");
		if (n < 0)
			return stat_fail(c->err, c->errlen, errno, "send: %s", strerror(errno));
		off += (size_t)n;
	}
	return 0;
}

/* The next message, parsed (the caller puts it). */
static int next_message(struct qmp *c, struct json_object **msg)
{
	char *nl;
	while (!(nl = c->len ? memchr(c->buf, '\n', c->len) : NULL)) {
		if (c->len == c->cap) {
			if (c->cap >= STAT_QMP_LINE_MAX)
				return stat_fail(c->err, c->errlen, EPROTO, "a message over %u bytes",
						 STAT_QMP_LINE_MAX);
			size_t cap = c->cap ? c->cap * 2 : 64 << 10;
			char *nb = realloc(c->buf, cap);
			if (!nb)
				return stat_fail(c->err, c->errlen, ENOMEM, "out of memory");
			c->buf = nb;
			c->cap = cap;
		}
		int r = wait_fd(c, POLLIN);
		if (r < 0)
			return r;
		ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0 && errno == ECONNRESET)
			return stat_fail(c->err, c->errlen, EPROTO, "QEMU closed the connection");
		if (n < 0)
			return stat_fail(c->err, c->errlen, errno, "%s", strerror(errno));
		if (n == 0)
			return stat_fail(c->err, c->errlen, EPROTO, "QEMU closed the connection");
		c->len += (size_t)n;
	}
	size_t mlen = (size_t)(nl - c->buf);
	enum json_tokener_error je;
	struct json_tokener *tok = json_tokener_new_ex(16);
	if (!tok)
		return stat_fail(c->err, c->errlen, ENOMEM, "out of memory");
	*msg = json_tokener_parse_ex(tok, c->buf, (int)mlen);
	je = json_tokener_get_error(tok);
	json_tokener_free(tok);
	memmove(c->buf, nl + 1, c->len - mlen - 1);
	c->len -= mlen + 1;
	if (!*msg || je != json_tokener_success || !json_object_is_type(*msg, json_type_object)) {
		json_object_put(*msg);
		*msg = NULL;
		return stat_fail(c->err, c->errlen, EPROTO, "not a QMP message (%s)",
				 je != json_tokener_success ? json_tokener_error_desc(je) : "not an object");
	}
	return 0;
}

/* The reply to command id, skipping events: its "return" member (*ret,
 * owned by *msg, which the caller puts). */
static int reply(struct qmp *c, const char *id, struct json_object **msg, struct json_object **ret)
{
	for (;;) {
		struct json_object *v, *e;
		int r = next_message(c, msg);
		if (r < 0)
			return r;
		if (json_object_object_get_ex(*msg, "event", NULL)) {
			json_object_put(*msg);
			continue;
		}
		if (!json_object_object_get_ex(*msg, "id", &v) ||
		    strcmp(json_object_get_string(v), id)) {
			json_object_put(*msg);
			return stat_fail(c->err, c->errlen, EPROTO, "a reply to another command");
		}
		if (json_object_object_get_ex(*msg, "error", &e)) {
			struct json_object *d;
			json_object_object_get_ex(e, "desc", &d);
			stat_fail(c->err, c->errlen, EPROTO, "QEMU said: %s",
				  d ? json_object_get_string(d) : json_object_to_json_string(e));
			json_object_put(*msg);
			return -EPROTO;
		}
		if (!json_object_object_get_ex(*msg, "return", ret)) {
			json_object_put(*msg);
			return stat_fail(c->err, c->errlen, EPROTO, "a reply without \"return\"");
		}
		return 0;
	}
}

static int connect_qmp(struct qmp *c, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path))
		return stat_fail(c->err, c->errlen, ENAMETOOLONG, "socket path too long");
	memcpy(sa.sun_path, path, strlen(path) + 1);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return stat_fail(c->err, c->errlen, errno, "socket: %s", strerror(errno));
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		return stat_fail(c->err, c->errlen, e, "%s", e == ECONNREFUSED ?
				 "nothing answers (its QEMU is gone)" : strerror(e));
	}
	return 0;
}

/* The socket's file name without its extension: the VM's name when QEMU has none. */
static void name_from_path(char *name, size_t size, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strcspn(base, ".");
	n = n < size - 1 ? n : size - 1;
	memcpy(name, base, n);
	name[n] = '\0';
	if (!stat_name_valid(name))
		snprintf(name, size, "qemu");
}

static int ask(struct qmp *c, const char *path, struct acct_vm *out)
{
	struct json_object *msg = NULL, *ret;
	int r = connect_qmp(c, path);
	if (r < 0)
		return r;
	if ((r = next_message(c, &msg)) < 0)
		return r;
	bool greeted = json_object_object_get_ex(msg, "QMP", NULL);
	json_object_put(msg);
	if (!greeted)
		return stat_fail(c->err, c->errlen, EPROTO, "no QMP greeting (is it a QMP socket?)");
	if ((r = send_line(c, "{\"execute\": \"qmp_capabilities\", \"id\": \"vpmu-stat-1\"}\n")) < 0 ||
	    (r = reply(c, "vpmu-stat-1", &msg, &ret)) < 0)
		return r;
	json_object_put(msg);
	if ((r = send_line(c, "{\"execute\": \"query-vpmu\", \"id\": \"vpmu-stat-2\"}\n")) < 0 ||
	    (r = reply(c, "vpmu-stat-2", &msg, &ret)) < 0)
		return r;
	/* The answer is a schema document: the reader takes it as the live
	 * sockets' (its checks, its limits). */
	size_t len;
	const char *text = json_object_to_json_string_length(ret, JSON_C_TO_STRING_PLAIN, &len);
	struct acct_vm *vms = NULL;
	unsigned n = 0;
	char why[160];
	r = text ? acct_read_json(text, len, &vms, &n, why, sizeof(why)) : -ENOMEM;
	json_object_put(msg);
	if (r < 0 || n != 1) {
		if (r == 0)
			acct_vms_release(vms, n);
		return stat_fail(c->err, c->errlen, EPROTO, "bad answer to query-vpmu: %s",
				 r < 0 ? why : "not exactly one VM");
	}
	*out = vms[0];
	free(vms);
	if (!out->name[0])
		name_from_path(out->name, sizeof(out->name), path);
	return 0;
}

int stat_qmp_fetch(const char *path, unsigned timeout_ms, struct acct_vm *out, char *err,
		   size_t errlen)
{
	char why[400];
	struct qmp c = { .fd = -1, .deadline = now_ms() + (long)timeout_ms, .err = why,
			 .errlen = sizeof(why) };
	memset(out, 0, sizeof(*out));
	int r = ask(&c, path, out);
	if (c.fd >= 0)
		close(c.fd);
	free(c.buf);
	if (r == -ETIMEDOUT)
		snprintf(why, sizeof(why), "no answer within %u ms", timeout_ms);
	if (r < 0)
		stat_fail(err, errlen, -r, "%s: %s", path, why);
	return r;
}
