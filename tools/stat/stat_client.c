/* SPDX-License-Identifier: MIT */
/* Asking a running VM for its accounting (stat_client.h). */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "stat_client.h"

static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -e;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int stat_list(const char *dir, char (**names)[STAT_NAME_MAX + 1], char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	*names = NULL;
	if (!d)
		return fail(err, errlen, errno, "%s: %s", dir, strerror(errno));
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
				return fail(err, errlen, ENOMEM, "out of memory");
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

/* The whole answer, up to STAT_ANSWER_MAX bytes. */
static int ask(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(err, errlen, errno, "socket: %s", strerror(errno));
	struct timeval tv = { STAT_CLIENT_TIMEOUT_S, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path)) {
		close(fd);
		return fail(err, errlen, ENAMETOOLONG, "%s: path too long for a socket", path);
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		close(fd);
		return fail(err, errlen, e, "%s: %s", path,
			    e == ECONNREFUSED ? "nothing answers (its VMM is gone)" : strerror(e));
	}
	size_t rl = strlen(STAT_REQUEST);
	if (send(fd, STAT_REQUEST, rl, MSG_NOSIGNAL) != (ssize_t)rl) {
		int e = errno ? errno : EIO;
		close(fd);
		return fail(err, errlen, e, "%s: cannot send the request: %s", path, strerror(e));
	}
	size_t cap = 64 << 10, n = 0;
	char *b = malloc(cap + 1);
	for (;;) {
		if (!b) {
			close(fd);
			return fail(err, errlen, ENOMEM, "out of memory");
		}
		ssize_t r = recv(fd, b + n, cap - n, 0);
		if (r == 0)
			break;
		if (r < 0) {
			int e = errno == EAGAIN ? ETIMEDOUT : errno;
			free(b);
			close(fd);
			return fail(err, errlen, e, "%s: %s", path,
				    e == ETIMEDOUT ? "no answer in time" : strerror(e));
		}
		n += (size_t)r;
		if (n == cap) {
			if (cap >= STAT_ANSWER_MAX) {
				free(b);
				close(fd);
				return fail(err, errlen, EPROTO, "%s: answer over %u bytes", path,
					    STAT_ANSWER_MAX);
			}
			cap *= 2;
			char *nb = realloc(b, cap + 1);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int stat_fetch(const char *dir, const char *name, struct acct_vm *out, char *err, size_t errlen)
{
	char path[512];
	if (!stat_name_valid(name))
		return fail(err, errlen, EINVAL, "'%s' is not a VM name", name);
	if (stat_sock_path(path, sizeof(path), dir, name) < 0)
		return fail(err, errlen, ENAMETOOLONG, "socket path too long");
	char *buf = NULL;
	size_t len = 0;
	int r = ask(path, &buf, &len, err, errlen);
	if (r < 0)
		return r;
	if (!strncmp(buf, "error: ", 7)) {
		buf[strcspn(buf, "\n")] = '\0';
		fail(err, errlen, EPROTO, "%s: the VM said %s", name, buf);
		free(buf);
		return -EPROTO;
	}
	struct acct_vm *vms = NULL;
	unsigned n = 0;
	char why[200];
	r = acct_read_json(buf, len, &vms, &n, why, sizeof(why));
	free(buf);
	if (r < 0 || n != 1) {
		if (r == 0)
			acct_vms_release(vms, n);
		return fail(err, errlen, EPROTO, "%s: bad answer: %s", name,
			    r < 0 ? why : "not exactly one VM");
	}
	*out = vms[0];
	free(vms);   /* the one snapshot moved to *out */
	return 0;
}

int stat_fetch_all(const char *dir, char *const *names, unsigned nnames, struct acct_vm **vms,
		   unsigned *n, unsigned *failed, FILE *log)
{
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
	unsigned got = 0;
	for (unsigned i = 0; i < want; i++) {
		const char *name = nnames ? names[i] : listed[i];
		int r = stat_fetch(dir, name, &out[got], err, sizeof(err));
		if (r == 0) {
			got++;
			continue;
		}
		/* A socket left by a VMM that died is not news when listing all:
		 * no VM runs there. */
		if (!nnames && r == -ECONNREFUSED)
			continue;
		(*failed)++;
		fprintf(log, "vpmu-stat: %s: %s\n", name, err);
	}
	free(listed);
	*vms = out;
	*n = got;
	return 0;
}
