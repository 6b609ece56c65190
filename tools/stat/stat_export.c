/* SPDX-License-Identifier: MIT */
/* vpmu-stat's Prometheus exporter and textfile writer (stat_export.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stat_client.h"
#include "stat_export.h"

/* Prometheus' text format, version 0.0.4 (its exposition formats document). */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

int export_metrics(const char *dir, char **buf, size_t *len)
{
	struct acct_vm *vms = NULL;
	unsigned n = 0, failed = 0;
	int r = stat_fetch_all(dir, NULL, 0, &vms, &n, &failed, stderr);
	if (r < 0)
		return r;
	FILE *m = open_memstream(buf, len);
	if (!m) {
		acct_vms_release(vms, n);
		return -ENOMEM;
	}
	r = acct_write(m, ACCT_PROMETHEUS, vms, n);
	/* The exporter's own health, as exporters conventionally add it. */
	fprintf(m, "# HELP vpmu_exporter_vms Running VMs whose accounting this scrape read.\n"
		   "# TYPE vpmu_exporter_vms gauge\nvpmu_exporter_vms %u\n"
		   "# HELP vpmu_exporter_vm_errors VM sockets that did not answer this scrape.\n"
		   "# TYPE vpmu_exporter_vm_errors gauge\nvpmu_exporter_vm_errors %u\n", n, failed);
	if (fclose(m) != 0 && r == 0)
		r = -EIO;
	acct_vms_release(vms, n);
	if (r < 0) {
		free(*buf);
		*buf = NULL;
	}
	return r;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
			     char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, mode);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	enum MHD_Result r = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	(void)version;
	(void)upload;
	(void)state;
	const char *dir = cls;
	static char not_found[] = "Not found: the metrics are at /metrics\n";
	static char bad_method[] = "Only GET and HEAD\n";
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", bad_method,
			     strlen(bad_method), MHD_RESPMEM_PERSISTENT);
	if (*upload_size)   /* a GET with a body: nothing to read */
		return MHD_NO;
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found, strlen(not_found),
			     MHD_RESPMEM_PERSISTENT);
	char *buf = NULL;
	size_t len = 0;
	if (export_metrics(dir, &buf, &len) < 0) {
		static char failed[] = "vpmu-stat: cannot read the VMs' accounting\n";
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", failed,
			     strlen(failed), MHD_RESPMEM_PERSISTENT);
	}
	return reply(c, MHD_HTTP_OK, PROM_CONTENT_TYPE, buf, len, MHD_RESPMEM_MUST_FREE);
}

/* ADDR:PORT with an IPv4 address, or [ADDR]:PORT with an IPv6 one. */
static int parse_addr(const char *s, struct sockaddr_storage *ss)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host))
		return -EINVAL;
	char *end;
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (*end || !colon[1] || port == 0 || port > 65535)
		return -EINVAL;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	memset(ss, 0, sizeof(*ss));
	size_t hl = strlen(host);
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
		host[hl - 1] = '\0';
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		return inet_pton(AF_INET6, host + 1, &a6->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	a4->sin_family = AF_INET;
	a4->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &a4->sin_addr) == 1 ? 0 : -EINVAL;
}

int export_listen(const char *dir, const char *addr_port)
{
	struct sockaddr_storage ss;
	if (parse_addr(addr_port, &ss) < 0) {
		fprintf(stderr, "vpmu-stat: --listen wants ADDR:PORT (127.0.0.1:9177, [::1]:9177), "
			"not '%s'\n", addr_port);
		return -EINVAL;
	}
	/* Blocked before the server's thread starts, so that it inherits the
	 * mask and sigwait() below receives them. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	uint16_t port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						       : ((struct sockaddr_in *)&ss)->sin_port);
	/* A scrape holds one connection: a bounded number of them, each with a
	 * deadline, so that slow or idle clients cannot pile up. */
	struct MHD_Daemon *d = MHD_start_daemon(
		flags, port, NULL, NULL, handle, (void *)dir, MHD_OPTION_SOCK_ADDR, &ss,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)EXPORT_MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)EXPORT_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 << 10), MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "vpmu-stat: cannot listen on %s (in use, or not an address here)\n",
			addr_port);
		return -EADDRINUSE;
	}
	fprintf(stderr, "vpmu-stat: serving http://%s/metrics for the VMs in %s\n", addr_port, dir);
	int sig;
	sigwait(&set, &sig);
	MHD_stop_daemon(d);
	return 0;
}

int export_textfile(const char *dir, const char *textdir)
{
	char tmp[4096], final[4096];
	if (snprintf(final, sizeof(final), "%s/vpmu.prom", textdir) >= (int)sizeof(final) ||
	    snprintf(tmp, sizeof(tmp), "%s/.vpmu.prom.XXXXXX", textdir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	char *buf = NULL;
	size_t len = 0;
	int r = export_metrics(dir, &buf, &len);
	if (r < 0)
		return r;
	/* Not named *.prom until complete: the collector reads only those. */
	int fd = mkstemp(tmp);
	if (fd < 0) {
		r = -errno;
		fprintf(stderr, "vpmu-stat: cannot create a file in %s: %s\n", textdir, strerror(-r));
		free(buf);
		return r;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r = w < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)w;
	}
	free(buf);
	if (r == 0 && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, final) < 0)
		r = -errno;
	if (r < 0) {
		fprintf(stderr, "vpmu-stat: writing %s: %s\n", final, strerror(-r));
		unlink(tmp);
	}
	return r;
}
