/* SPDX-License-Identifier: MIT */
/* The runtime directory of the live accounting sockets (stat_dir.h). */
#include <errno.h>
#include <grp.h>
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

static int dir_get(char *dir, size_t dirsize, bool create, gid_t group, char *err, size_t errlen)
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
	if (create && (st.st_uid != geteuid() || (st.st_mode & 027)))
		return stat_fail(err, errlen, EPERM, "%s must be owned by uid %u with mode 0700 or 0750 "
			    "(it is uid %u, mode %03o)", dir, (unsigned)geteuid(), (unsigned)st.st_uid,
			    (unsigned)(st.st_mode & 0777));
	if (group == STAT_NO_GROUP)
		return 0;
	if ((st.st_mode & 070) && st.st_gid != group)
		return stat_fail(err, errlen, EPERM, "%s is open to group %u, not %u: one group per "
			    "directory", dir, (unsigned)st.st_gid, (unsigned)group);
	/* The group enters and lists it (r-x), never writes to it. */
	if (chown(dir, (uid_t)-1, group) < 0 || chmod(dir, 0750) < 0)
		return stat_fail(err, errlen, errno, "cannot give %s to group %u: %s", dir,
			    (unsigned)group, strerror(errno));
	return 0;
}

int stat_dir_get(char *dir, size_t dirsize, bool create, char *err, size_t errlen)
{
	return dir_get(dir, dirsize, create, STAT_NO_GROUP, err, errlen);
}

int stat_dir_get_group(char *dir, size_t dirsize, gid_t group, char *err, size_t errlen)
{
	return dir_get(dir, dirsize, true, group, err, errlen);
}

int stat_group_parse(const char *s, gid_t *gid, char *err, size_t errlen)
{
	char *end, buf[4096];
	struct group gr, *res = NULL;
	if (!s || !*s)
		return stat_fail(err, errlen, EINVAL, "an empty group");
	unsigned long n = strtoul(s, &end, 10);
	if (!*end && s[0] >= '0' && s[0] <= '9') {
		if (n >= (unsigned long)STAT_NO_GROUP)
			return stat_fail(err, errlen, EINVAL, "group %s is out of range", s);
		*gid = (gid_t)n;
		return 0;
	}
	/* Through NSS: the static vpmu-run of the nested tier links with glibc's
	 * warning that NSS needs its shared libraries at run time; a number
	 * needs none. */
	int r = getgrnam_r(s, &gr, buf, sizeof(buf), &res);
	if (r || !res)
		return stat_fail(err, errlen, EINVAL, "no group '%s'%s%s", s, r ? ": " : "",
				 r ? strerror(r) : "");
	*gid = res->gr_gid;
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
