/* SPDX-License-Identifier: MIT */
/* The runtime directory of the live accounting sockets (stat_dir.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "stat_dir.h"

int stat_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -e;
}

bool stat_name_valid(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n > STAT_NAME_MAX || name[0] == '.' || name[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

int stat_dir_get(char *dir, size_t dirsize, bool create, char *err, size_t errlen)
{
	const char *over = getenv("VPMU_RUNTIME_DIR"), *xdg = getenv("XDG_RUNTIME_DIR");
	int n;
	if (over && *over)
		n = snprintf(dir, dirsize, "%s", over);
	else if (xdg && *xdg)
		n = snprintf(dir, dirsize, "%s/vpmu", xdg);
	else
		n = snprintf(dir, dirsize, "/run/vpmu");
	if (n < 0 || (size_t)n >= dirsize)
		return stat_fail(err, errlen, ENAMETOOLONG, "runtime directory name too long");
	if (create && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return stat_fail(err, errlen, errno, "cannot create %s: %s", dir, strerror(errno));
	struct stat st;
	if (stat(dir, &st) < 0)
		return stat_fail(err, errlen, errno, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return stat_fail(err, errlen, ENOTDIR, "%s is not a directory", dir);
	/* Sockets of one owner's VMs: a directory others can write to or enter
	 * could hold another user's socket under a VM's name. */
	if (create && (st.st_uid != geteuid() || (st.st_mode & 077)))
		return stat_fail(err, errlen, EPERM, "%s must be owned by uid %u with mode 0700 (it is "
			    "uid %u, mode %03o)", dir, (unsigned)geteuid(), (unsigned)st.st_uid,
			    (unsigned)(st.st_mode & 0777));
	return 0;
}

int stat_sock_path(char *path, size_t size, const char *dir, const char *name)
{
	struct sockaddr_un sa;
	int n = snprintf(path, size, "%s/%s.sock", dir, name);
	if (n < 0 || (size_t)n >= size || (size_t)n >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	return 0;
}
