/* SPDX-License-Identifier: MIT */
/*
 * Who may read a VM's live socket (docs/accounting.md, "Sharing the sockets
 * with a group"): the peer-credential decision case by case, the group
 * argument, the runtime directory and socket opened to a group, and, as root,
 * real peers: forked children that take a throwaway uid (65534) with or
 * without the group, as a prometheus user would be, connect and ask.  No user
 * or group is created: the kernel checks numeric ids only.
 */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/stat_dir.h"
#include "live/stat_server.h"
#include "tap.h"

#define GROUP 4242u
#define OTHER 4243u
#define NOBODY 65534u

static int provide(void *ctx, char **buf, size_t *len)
{
	(void)ctx;
	*buf = strdup("{\"schema\":1}\n");
	*len = *buf ? strlen(*buf) : 0;
	return *buf ? 0 : -ENOMEM;
}

static void decisions(void)
{
	gid_t sup[] = { 10, GROUP, 20 }, none[] = { 10, 20 };
	ok(stat_peer_allowed(1000, STAT_NO_GROUP, 1000, 1000, NULL, 0), "no group: the owner is answered");
	ok(stat_peer_allowed(1000, STAT_NO_GROUP, 0, 0, NULL, 0), "no group: root is answered");
	ok(!stat_peer_allowed(1000, STAT_NO_GROUP, 1001, GROUP, sup, 3),
	   "no group: anyone else is not, whatever its groups");
	ok(stat_peer_allowed(0, GROUP, NOBODY, GROUP, NULL, 0), "a group: a peer whose gid it is");
	ok(stat_peer_allowed(0, GROUP, NOBODY, NOBODY, sup, 3), "a group: a peer with it as a supplementary group");
	ok(!stat_peer_allowed(0, GROUP, NOBODY, NOBODY, none, 2), "a group: a peer without it is not");
	ok(!stat_peer_allowed(0, GROUP, NOBODY, OTHER, NULL, 0), "a group: another gid is not");
}

static void group_names(void)
{
	gid_t g = 1;
	char err[160];
	ok(stat_group_parse("0", &g, err, sizeof(err)) == 0 && g == 0, "--stat-group 0: a number");
	ok(stat_group_parse("root", &g, err, sizeof(err)) == 0 && g == 0, "--stat-group root: a name");
	g = 7;
	ok(stat_group_parse("no-such-group-vpmu", &g, err, sizeof(err)) == -EINVAL && g == 7 &&
	   strstr(err, "no group 'no-such-group-vpmu'"), "an unknown group: refused, named (%s)", err);
	ok(stat_group_parse("4294967295", &g, err, sizeof(err)) == -EINVAL && g == 7,
	   "(gid_t)-1 is no group (%s)", err);
	ok(stat_group_parse("", &g, err, sizeof(err)) == -EINVAL, "an empty group: refused");
}

/* A child as uid NOBODY with primary gid and supplementary groups: connects
 * to path and asks.  Exit 0 answered, 1 told "permission denied", 2 EACCES at
 * connect, 3 anything else. */
static int peer(const char *path, gid_t gid, const gid_t *groups, size_t n)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (setgroups(n, groups) < 0 || setresgid(gid, gid, gid) < 0 ||
		    setresuid(NOBODY, NOBODY, NOBODY) < 0)
			_exit(3);
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			_exit(errno == EACCES ? 2 : 3);
		char buf[256] = "";
		/* A refused peer may find the socket closed already. */
		ssize_t w = send(fd, STAT_REQUEST, strlen(STAT_REQUEST), MSG_NOSIGNAL);
		(void)w;
		ssize_t r = read(fd, buf, sizeof(buf) - 1);
		_exit(r > 0 && !strncmp(buf, "{\"schema\"", 9) ? 0 :
		      r > 0 && strstr(buf, "permission denied") ? 1 : 3);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void as_root(const char *base)
{
	char dir[256], got[256], path[300], err[320];
	snprintf(dir, sizeof(dir), "%s/shared", base);
	setenv("VPMU_RUNTIME_DIR", dir, 1);
	struct stat st;
	ok(stat_dir_get(got, sizeof(got), true, err, sizeof(err)) == 0 && stat(dir, &st) == 0 &&
	   (st.st_mode & 0777) == 0700, "without a group the directory is made 0700");
	ok(stat_dir_get_group(got, sizeof(got), GROUP, err, sizeof(err)) == 0 && stat(dir, &st) == 0 &&
	   (st.st_mode & 0777) == 0750 && st.st_gid == GROUP,
	   "with --stat-group it becomes 0750 and the group's (%03o, gid %u)", (unsigned)(st.st_mode & 0777),
	   (unsigned)st.st_gid);
	ok(stat_dir_get(got, sizeof(got), true, err, sizeof(err)) == 0,
	   "a VM without a group still uses it (its socket stays 0600)");
	ok(stat_dir_get_group(got, sizeof(got), OTHER, err, sizeof(err)) == -EPERM && strstr(err, "one group"),
	   "a VM of another group is refused (%s)", err);
	chmod(dir, 0770);
	ok(stat_dir_get_group(got, sizeof(got), GROUP, err, sizeof(err)) == -EPERM,
	   "a group-writable directory is refused (%s)", err);
	chmod(dir, 0750);

	struct stat_server *s = NULL, *p = NULL;
	snprintf(path, sizeof(path), "%s/web1.sock", dir);
	ok(stat_server_start_group(path, GROUP, provide, NULL, &s, err, sizeof(err)) == 0 &&
	   stat(path, &st) == 0 && (st.st_mode & 0777) == 0660 && st.st_gid == GROUP,
	   "a group's socket is 0660 and the group's (%03o, gid %u)", (unsigned)(st.st_mode & 0777),
	   (unsigned)st.st_gid);
	gid_t with[] = { 100, GROUP }, without[] = { 100 };
	int r = peer(path, NOBODY, with, 2);
	ok(r == 0, "uid 65534 with the group as a supplementary group is answered (%d)", r);
	r = peer(path, GROUP, without, 1);
	ok(r == 0, "uid 65534 with the group as its gid is answered (%d)", r);
	r = peer(path, NOBODY, without, 1);
	ok(r == 2, "uid 65534 without the group cannot connect: EACCES (%d)", r);
	char ppath[300];
	snprintf(ppath, sizeof(ppath), "%s/private.sock", dir);
	ok(stat_server_start(ppath, provide, NULL, &p, err, sizeof(err)) == 0 && stat(ppath, &st) == 0 &&
	   (st.st_mode & 0777) == 0600, "a VM without a group: its socket is 0600 in the same directory");
	r = peer(ppath, NOBODY, with, 2);
	ok(r == 2, "the group cannot connect to it (%d)", r);
	struct stat_server_counts n;
	stat_server_stop(s, &n);
	ok(n.served == 2 && n.denied == 0, "the group's server served 2 (%llu)", (unsigned long long)n.served);
	stat_server_stop(p, NULL);

	/* Sockets reached some other way (here: in an open directory, their
	 * modes opened by hand): the credentials still keep others out. */
	snprintf(path, sizeof(path), "%s/open-group.sock", base);
	snprintf(ppath, sizeof(ppath), "%s/open-private.sock", base);
	ok(stat_server_start_group(path, GROUP, provide, NULL, &s, err, sizeof(err)) == 0 &&
	   stat_server_start(ppath, provide, NULL, &p, err, sizeof(err)) == 0 &&
	   chmod(path, 0666) == 0 && chmod(ppath, 0666) == 0, "two sockets of mode 0666 in an open directory");
	r = peer(path, NOBODY, without, 1);
	ok(r == 1, "a group's socket: a peer without the group is refused (SO_PEERCRED: \"permission denied\") (%d)", r);
	r = peer(path, NOBODY, with, 2);
	ok(r == 0, "a group's socket: a member is answered (%d)", r);
	r = peer(ppath, NOBODY, with, 2);
	ok(r == 1, "a socket without a group: the group's member is refused (%d)", r);
	stat_server_stop(s, &n);
	ok(n.served == 1 && n.denied == 1, "1 served, 1 denied (%llu, %llu)", (unsigned long long)n.served,
	   (unsigned long long)n.denied);
	stat_server_stop(p, &n);
	ok(n.served == 0 && n.denied == 1, "0 served, 1 denied (%llu, %llu)", (unsigned long long)n.served,
	   (unsigned long long)n.denied);
}

int main(void)
{
	char tmpl[] = "/tmp/vpmu-access-XXXXXX";
	decisions();
	group_names();
	if (geteuid() != 0) {
		printf("ok %u - real peers as uid 65534 # SKIP not root (setresuid)\n", ++tap_n);
		return tap_done();
	}
	if (!mkdtemp(tmpl))
		return 1;
	chmod(tmpl, 0755);   /* uid 65534 must reach the runtime directory inside */
	as_root(tmpl);
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	if (system(cmd) != 0)
		ok(0, "removed %s", tmpl);
	return tap_done();
}
