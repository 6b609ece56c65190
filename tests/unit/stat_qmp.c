/* SPDX-License-Identifier: MIT */
/*
 * vpmu-stat's QMP client (tools/stat/stat_qmp.h) against a scripted QMP
 * server in a child process: QEMU's protocol as docs/interop/qmp-spec.rst
 * has it (greeting, qmp_capabilities, replies with the command's id, events
 * between them), the document a QEMU with the vpmu series answers query-vpmu
 * with, and servers that are not QEMU, say no, lie, stall or hang up.  The
 * child checks what the client sent (its exit status).  The end-to-end run
 * against the patched QEMU itself is tests/qemu.t's.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "accounting/acct_formats.h"
#include "accounting/acct_snapshot.h"
#include "stat/stat_qmp.h"
#include "tap.h"

/* A server's script: send a line, receive one (which must hold want), wait. */
enum step_kind { SEND, RECV, WAIT_MS, END };
struct step {
	enum step_kind kind;
	const char *text;
};

#define GREETING "{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 0, \"minor\": 2, \"major\": 7}}, " \
		 "\"capabilities\": [\"oob\"]}}\n"
#define CAPS_REPLY "{\"return\": {}, \"id\": \"vpmu-stat-1\"}\n"
#define EVENT "{\"timestamp\": {\"seconds\": 1, \"microseconds\": 2}, \"event\": \"RESUME\"}\n"

static char path[108];
static int listen_fd;

static int recv_line(int fd, char *buf, size_t size)
{
	size_t n = 0;
	while (n + 1 < size) {
		ssize_t r = read(fd, buf + n, 1);
		if (r <= 0)
			return -1;
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
	return 0;
}

/* The child: one connection, the script; status 0 if the client sent what
 * the script wants. */
static int serve(const struct step *s)
{
	int fd = accept(listen_fd, NULL, NULL);
	char line[4096];
	if (fd < 0)
		return 2;
	for (; s->kind != END; s++) {
		if (s->kind == SEND && write(fd, s->text, strlen(s->text)) != (ssize_t)strlen(s->text))
			return 3;
		if (s->kind == RECV && (recv_line(fd, line, sizeof(line)) || !strstr(line, s->text)))
			return 4;
		if (s->kind == WAIT_MS)
			usleep((useconds_t)atoi(s->text) * 1000u);
	}
	close(fd);
	return 0;
}

/* Runs the client against script s: its result, the child's status in *st. */
static int run(const struct step *s, unsigned timeout_ms, struct acct_vm *out, char *err,
	       size_t errlen, int *st)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(serve(s));
	int r = stat_qmp_fetch(path, timeout_ms, out, err, errlen);
	kill(pid, SIGKILL);   /* a server still stalling */
	waitpid(pid, st, 0);
	return r;
}

/* The document of a VM of known counts, as the schema's writer makes it, on
 * one line in a QMP reply. */
static char *reply_with(const char *name, int schema)
{
	struct acct_vm vm = { 0 };
	struct acct_vcpu vc = { .index = 0, .have_kvm = true };
	snprintf(vm.name, sizeof(vm.name), "%s", name);
	snprintf(vm.model, sizeof(vm.model), "p6");
	vm.nr_ctrs = 2;
	vm.source[VPMU_EV_CYCLES] = VPMU_COUNT_TASK_CLOCK;
	vc.t.pmc[0] = 1234;
	vc.t.events[VPMU_EV_CYCLES] = 99;
	vc.t.pmis = 7;
	vc.t.writes = 11;
	vc.kvm.msr_exits = 13;
	vm.vcpu = &vc;
	vm.nr_vcpus = vm.max_vcpus = 1;
	vm.total = vc.t;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m || acct_write_json(m, &vm, 1) < 0 || fclose(m))
		return NULL;
	struct json_object *doc = json_tokener_parse(text), *s;
	free(text);
	if (!doc)
		return NULL;
	if (schema != 1 && json_object_object_get_ex(doc, "schema", &s))
		json_object_set_int(s, schema);
	char *line = NULL;
	if (asprintf(&line, "{\"return\": %s, \"id\": \"vpmu-stat-2\"}\n",
		     json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN)) < 0)
		line = NULL;
	json_object_put(doc);
	return line;
}

int main(void)
{
	struct acct_vm vm;
	char err[600];
	int st, r;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/stat-qmp-XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/web7.qmp", dir);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(listen_fd, 4))
		return 1;

	char *good = reply_with("", 1), *named = reply_with("db1", 1), *schema2 = reply_with("", 2);
	ok(good && named && schema2, "the schema documents of the replies are made");

	/* QEMU's order, an event between the replies. */
	const struct step qemu[] = {
		{ SEND, GREETING }, { RECV, "\"execute\": \"qmp_capabilities\"" }, { SEND, CAPS_REPLY },
		{ RECV, "\"execute\": \"query-vpmu\"" }, { SEND, EVENT }, { SEND, good }, { END, NULL },
	};
	r = run(qemu, 5000, &vm, err, sizeof(err), &st);
	ok(r == 0, "a QEMU's answer is read (%s)", r ? err : "ok");
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "the client greeted back with qmp_capabilities, then asked query-vpmu (server status %d)",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (r == 0) {
		ok(!strcmp(vm.name, "web7") && !strcmp(vm.model, "p6") && vm.nr_ctrs == 2,
		   "no -name: the VM takes the socket's name, web7 (%s), model p6 (%s), 2 counters (%u)",
		   vm.name, vm.model, vm.nr_ctrs);
		ok(vm.nr_vcpus == 1 && vm.vcpu[0].t.pmis == 7 && vm.vcpu[0].t.writes == 11 &&
		   vm.vcpu[0].t.pmc[0] == 1234 && vm.vcpu[0].t.events[VPMU_EV_CYCLES] == 99,
		   "its vCPU's PMIs (7), writes (11), counter 0 (1234), cycles (99)");
		ok(vm.vcpu[0].have_kvm && vm.vcpu[0].kvm.msr_exits == 13 && vm.total.pmis == 7 &&
		   vm.source[VPMU_EV_CYCLES] == VPMU_COUNT_TASK_CLOCK,
		   "the KVM glue's MSR exits (13), the VM's total, the cycles' source");
		acct_vm_release(&vm);
	} else {
		for (int k = 0; k < 3; k++)
			ok(0, "the snapshot (none)");
	}

	const struct step with_name[] = {
		{ SEND, GREETING }, { RECV, "qmp_capabilities" }, { SEND, CAPS_REPLY },
		{ RECV, "query-vpmu" }, { SEND, named }, { END, NULL },
	};
	r = run(with_name, 5000, &vm, err, sizeof(err), &st);
	ok(r == 0 && !strcmp(vm.name, "db1"), "-name db1: the VM is db1 (%s)", r ? err : vm.name);
	if (r == 0)
		acct_vm_release(&vm);

	/* What goes wrong, and what the client says. */
	static const struct {
		const char *what, *says;
		int err;
		struct step s[8];
	} bad[] = {
		{ "a QEMU without a vPMU", "QEMU said: this VM has no virtual PMU", EPROTO,
		  { { SEND, GREETING }, { RECV, "" }, { SEND, CAPS_REPLY }, { RECV, "" },
		    { SEND, "{\"id\": \"vpmu-stat-2\", \"error\": {\"class\": \"GenericError\", "
			    "\"desc\": \"this VM has no virtual PMU\"}}\n" }, { END, NULL } } },
		{ "a QEMU without query-vpmu", "QEMU said: The command query-vpmu has not been found",
		  EPROTO,
		  { { SEND, GREETING }, { RECV, "" }, { SEND, CAPS_REPLY }, { RECV, "" },
		    { SEND, "{\"id\": \"vpmu-stat-2\", \"error\": {\"class\": \"CommandNotFound\", "
			    "\"desc\": \"The command query-vpmu has not been found\"}}\n" },
		    { END, NULL } } },
		{ "a socket that is not QMP", "not a QMP message", EPROTO,
		  { { SEND, "SSH-2.0-OpenSSH_9.2\n" }, { END, NULL } } },
		{ "a greeting of another protocol", "no QMP greeting", EPROTO,
		  { { SEND, "{\"hello\": 1}\n" }, { END, NULL } } },
		{ "a server that hangs up after the greeting", "QEMU closed the connection", EPROTO,
		  { { SEND, GREETING }, { END, NULL } } },
		{ "a reply to another command", "a reply to another command", EPROTO,
		  { { SEND, GREETING }, { RECV, "" }, { SEND, "{\"return\": {}, \"id\": \"x\"}\n" },
		    { END, NULL } } },
		{ "a reply without return", "a reply without \"return\"", EPROTO,
		  { { SEND, GREETING }, { RECV, "" }, { SEND, "{\"id\": \"vpmu-stat-1\"}\n" },
		    { END, NULL } } },
		{ "a silent server", "no answer within 300 ms", ETIMEDOUT,
		  { { WAIT_MS, "3000" }, { END, NULL } } },
		{ "a server that stalls before its answer", "no answer within 300 ms", ETIMEDOUT,
		  { { SEND, GREETING }, { RECV, "" }, { SEND, CAPS_REPLY }, { RECV, "" },
		    { WAIT_MS, "3000" }, { END, NULL } } },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = run(bad[i].s, 300, &vm, err, sizeof(err), &st);
		ok(r == -bad[i].err && strstr(err, bad[i].says) && strstr(err, path),
		   "%s: -%s, \"%s\"", bad[i].what, bad[i].err == EPROTO ? "EPROTO" : "ETIMEDOUT",
		   r ? err : "(it succeeded)");
	}
	/* A document the schema's reader refuses. */
	const struct step other_schema[] = {
		{ SEND, GREETING }, { RECV, "" }, { SEND, CAPS_REPLY }, { RECV, "" },
		{ SEND, schema2 }, { END, NULL },
	};
	r = run(other_schema, 5000, &vm, err, sizeof(err), &st);
	ok(r == -EPROTO && strstr(err, "bad answer to query-vpmu") && strstr(err, "schema"),
	   "schema 2: refused by the schema's reader (%s)", r ? err : "it succeeded");
	/* A message without its end, past the limit, is not buffered without end:
	 * here a short one the server never ends, within the timeout. */
	const struct step unended[] = { { SEND, "{\"QMP\": " }, { WAIT_MS, "3000" }, { END, NULL } };
	r = run(unended, 300, &vm, err, sizeof(err), &st);
	ok(r == -ETIMEDOUT, "a message that never ends: -ETIMEDOUT (%s)", err);

	close(listen_fd);
	unlink(path);
	r = stat_qmp_fetch(path, 300, &vm, err, sizeof(err));
	ok(r == -ENOENT && strstr(err, "No such file"), "no socket: -ENOENT (%s)", err);
	listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (listen_fd >= 0 && !bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)))
		close(listen_fd);   /* bound, nobody listens: a QEMU that is gone */
	r = stat_qmp_fetch(path, 300, &vm, err, sizeof(err));
	ok(r == -ECONNREFUSED && strstr(err, "its QEMU is gone"), "a socket nobody listens on: "
	   "-ECONNREFUSED (%s)", err);
	unlink(path);
	rmdir(dir);
	free(good);
	free(named);
	free(schema2);
	return tap_done();
}
