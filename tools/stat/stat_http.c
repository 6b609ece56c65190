/* SPDX-License-Identifier: MIT */
/* vpmu-stat's exporter server (stat_http.h), on libmicrohttpd (its manual:
 * "Thread modes and event loops", MHD_OPTION_NOTIFY_CONNECTION). */
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "stat_export.h"
#include "stat_http.h"

/* Prometheus' text format, version 0.0.4 (its exposition formats document). */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* A connection, from libmicrohttpd's NOTIFY_STARTED to its NOTIFY_CLOSED,
 * which comes before it closes the socket: while the slot holds fd under the
 * lock, fd is this connection's and no other's. */
struct tracked {
	int fd;                      /* -1: a free slot */
	bool cut;
	uint64_t deadline;           /* ms, CLOCK_MONOTONIC */
};

struct server {
	const struct export_http *h;
	pthread_mutex_t lock;
	struct tracked t[2 * EXPORT_MAX_CONNECTIONS];   /* closed ones linger a moment */
	int stop[2];
	atomic_uint cut;
	pthread_mutex_t log_lock;    /* libmicrohttpd's messages, EXPORT_LOG_PER_S a second */
	uint64_t log_sec;
	unsigned log_n, log_dropped;
};

/* libmicrohttpd says something of every connection it closes on an error:
 * under a flood of bad clients, a line each would flood the journal too. */
#define EXPORT_LOG_PER_S 5

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			      enum MHD_ConnectionNotificationCode toe)
{
	struct server *s = cls;
	pthread_mutex_lock(&s->lock);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		for (unsigned i = 0; ci && i < sizeof(s->t) / sizeof(s->t[0]); i++)
			if (s->t[i].fd < 0) {
				s->t[i] = (struct tracked){ .fd = ci->connect_fd,
							    .deadline = now_ms() + EXPORT_REQUEST_S * 1000u };
				*socket_context = &s->t[i];
				break;
			}
	} else if (*socket_context) {
		((struct tracked *)*socket_context)->fd = -1;
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&s->lock);
}

static void log_limited(void *cls, const char *fmt, va_list ap)
{
	struct server *s = cls;
	uint64_t sec = now_ms() / 1000;
	pthread_mutex_lock(&s->log_lock);
	if (sec != s->log_sec) {
		if (s->log_dropped)
			fprintf(stderr, "vpmu-stat: %u more libmicrohttpd message(s) left out\n", s->log_dropped);
		s->log_sec = sec;
		s->log_n = s->log_dropped = 0;
	}
	if (s->log_n++ < EXPORT_LOG_PER_S) {
		fputs("vpmu-stat: libmicrohttpd: ", stderr);
		vfprintf(stderr, fmt, ap);
	} else {
		s->log_dropped++;
	}
	pthread_mutex_unlock(&s->log_lock);
}

/* A scrape waits up to ms on its VMs: its connection's deadline makes room. */
static void make_room(struct server *s, struct MHD_Connection *c, unsigned ms)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	pthread_mutex_lock(&s->lock);
	if (ci && ci->socket_context)
		((struct tracked *)ci->socket_context)->deadline += ms;
	pthread_mutex_unlock(&s->lock);
}

/* A request answered: the next one has EXPORT_REQUEST_S from now. */
static void request_completed(void *cls, struct MHD_Connection *c, void **state,
			      enum MHD_RequestTerminationCode toe)
{
	(void)state;
	(void)toe;
	struct server *s = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	pthread_mutex_lock(&s->lock);
	if (ci && ci->socket_context)
		((struct tracked *)ci->socket_context)->deadline = now_ms() + EXPORT_REQUEST_S * 1000u;
	pthread_mutex_unlock(&s->lock);
}

/*
 * libmicrohttpd's connection timeout counts silence only, so a client that
 * sends a byte now and then keeps its connection (and, with one thread
 * polling, everyone else's turn) for ever.  This thread cuts a connection
 * past its deadline: shutdown() ends its reads and writes, and libmicrohttpd
 * closes it as one the client closed.
 */
static void *reaper(void *arg)
{
	struct server *s = arg;
	struct pollfd pf = { .fd = s->stop[0], .events = POLLIN };
	while (poll(&pf, 1, 200) >= 0 && !pf.revents) {
		uint64_t t = now_ms();
		pthread_mutex_lock(&s->lock);
		for (unsigned i = 0; i < sizeof(s->t) / sizeof(s->t[0]); i++)
			if (s->t[i].fd >= 0 && !s->t[i].cut && t >= s->t[i].deadline) {
				shutdown(s->t[i].fd, SHUT_RDWR);
				s->t[i].cut = true;
				atomic_fetch_add(&s->cut, 1);
			}
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
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

static bool authorized(struct MHD_Connection *c, const struct web_config *web)
{
	if (!web || !web->nusers)
		return true;
	char *pass = NULL;
	char *user = MHD_basic_auth_get_username_password(c, &pass);
	bool ok = user && pass && web_config_check(web, user, pass);
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return ok;
}

/* The per-scrape deadline: ours, or less when Prometheus says it gives up
 * sooner (it sends its scrape_timeout in this header; its
 * scrape/scrape.go), keeping a quarter second to write the answer. */
static unsigned scrape_deadline(struct MHD_Connection *c, unsigned ours)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Prometheus-Scrape-Timeout-Seconds");
	char *end;
	double s = h ? strtod(h, &end) : 0;
	if (!h || end == h || *end || !(s > 0) || s * 1000 - 250 >= ours)
		return ours;
	return s * 1000 - 250 < 100 ? 100 : (unsigned)(s * 1000 - 250);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	(void)version;
	(void)upload;
	(void)state;
	struct server *s = cls;
	static char not_found[] = "Not found: the metrics are at /metrics\n";
	static char bad_method[] = "Only GET and HEAD\n";
	static char denied[] = "Unauthorized\n";
	static char landing[] =
		"<!DOCTYPE html>\n<html><head><title>vpmu exporter</title></head><body>\n"
		"<h1>vpmu exporter</h1>\n<p>The virtual PMU accounting of this host's VMs.</p>\n"
		"<p><a href=\"/metrics\">Metrics</a></p>\n</body></html>\n";
	if (!authorized(c, s->h->web)) {
		struct MHD_Response *resp = MHD_create_response_from_buffer(
			strlen(denied), denied, MHD_RESPMEM_PERSISTENT);
		if (!resp)
			return MHD_NO;
		enum MHD_Result r = MHD_queue_basic_auth_fail_response(c, "vpmu-stat", resp);
		MHD_destroy_response(resp);
		return r;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", bad_method,
			     strlen(bad_method), MHD_RESPMEM_PERSISTENT);
	if (*upload_size)   /* a GET with a body: nothing to read */
		return MHD_NO;
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", landing, strlen(landing),
			     MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found, strlen(not_found),
			     MHD_RESPMEM_PERSISTENT);
	char *buf = NULL;
	size_t len = 0;
	unsigned deadline = scrape_deadline(c, s->h->scrape_timeout_ms);
	make_room(s, c, deadline);
	if (export_metrics_within(s->h->dir, deadline, &buf, &len) < 0) {
		static char failed[] = "vpmu-stat: cannot read the VMs' accounting\n";
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", failed,
			     strlen(failed), MHD_RESPMEM_PERSISTENT);
	}
	return reply(c, MHD_HTTP_OK, PROM_CONTENT_TYPE, buf, len, MHD_RESPMEM_MUST_FREE);
}

static struct MHD_Daemon *start(struct server *s, const struct sockaddr *sa, unsigned flags)
{
	const struct export_http *h = s->h;
	uint16_t port = ntohs(sa->sa_family == AF_INET6 ? ((const struct sockaddr_in6 *)sa)->sin6_port
							: ((const struct sockaddr_in *)sa)->sin_port);
	/* A connection per thread (MHD_USE_THREAD_PER_CONNECTION), so that a
	 * scrape waiting on its VMs or a slow client holds only its own. */
	flags |= MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
		 MHD_USE_ERROR_LOG;
	if (sa->sa_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* The logger first: libmicrohttpd logs the options after it through it
	 * (and says so of a logger given later). */
	const struct web_config *w = h->web;
	if (w && w->cert_pem)
		return MHD_start_daemon(flags | MHD_USE_TLS, port, NULL, NULL, handle, s,
			MHD_OPTION_EXTERNAL_LOGGER, log_limited, s, MHD_OPTION_SOCK_ADDR, sa,
			MHD_OPTION_HTTPS_MEM_CERT, w->cert_pem, MHD_OPTION_HTTPS_MEM_KEY, w->key_pem,
			MHD_OPTION_CONNECTION_LIMIT, (unsigned)EXPORT_MAX_CONNECTIONS,
			MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)EXPORT_MAX_PER_IP,
			MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)EXPORT_IDLE_S,
			MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 << 10),
			MHD_OPTION_NOTIFY_CONNECTION, notify_connection, s,
			MHD_OPTION_NOTIFY_COMPLETED, request_completed, s, MHD_OPTION_END);
	return MHD_start_daemon(flags, port, NULL, NULL, handle, s,
		MHD_OPTION_EXTERNAL_LOGGER, log_limited, s, MHD_OPTION_SOCK_ADDR, sa,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)EXPORT_MAX_CONNECTIONS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)EXPORT_MAX_PER_IP,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)EXPORT_IDLE_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 << 10),
		MHD_OPTION_NOTIFY_CONNECTION, notify_connection, s,
		MHD_OPTION_NOTIFY_COMPLETED, request_completed, s, MHD_OPTION_END);
}

int export_listen(const struct export_http *h)
{
	if (h->web && h->web->cert_pem && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		fprintf(stderr, "vpmu-stat: this libmicrohttpd has no TLS: tls_server_config cannot be served\n");
		return -ENOTSUP;
	}
	static struct server s;
	s = (struct server){ .h = h, .stop = { -1, -1 } };
	for (unsigned i = 0; i < sizeof(s.t) / sizeof(s.t[0]); i++)
		s.t[i].fd = -1;
	pthread_mutex_init(&s.lock, NULL);
	pthread_mutex_init(&s.log_lock, NULL);
	/* Blocked before any thread starts, so that all inherit the mask and
	 * sigwait() below receives them; a client gone mid-answer is an
	 * error return, not SIGPIPE. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_t rt;
	if (pipe(s.stop) < 0 || pthread_create(&rt, NULL, reaper, &s)) {
		fprintf(stderr, "vpmu-stat: cannot start: %s\n", strerror(errno));
		return -EAGAIN;
	}
	struct MHD_Daemon *d;
	if (h->addr.any) {
		/* Every address: IPv6's with IPv4 mapped in (MHD_USE_DUAL_STACK),
		 * or IPv4's alone on a host without IPv6. */
		d = start(&s, (const struct sockaddr *)&h->addr.ss, MHD_USE_DUAL_STACK);
		if (!d) {
			struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY),
						  .sin_port = ((const struct sockaddr_in6 *)&h->addr.ss)->sin6_port };
			d = start(&s, (const struct sockaddr *)&a4, 0);
		}
	} else {
		d = start(&s, (const struct sockaddr *)&h->addr.ss, 0);
	}
	int r = 0;
	if (!d) {
		fprintf(stderr, "vpmu-stat: cannot listen on %s (in use, not an address of this host%s)\n",
			h->addr.text, h->web && h->web->cert_pem ? ", or a certificate and key GnuTLS refuses" : "");
		r = -EADDRINUSE;
	} else {
		fprintf(stderr, "vpmu-stat: serving %s://%s/metrics for the VMs in %s\n",
			h->web && h->web->cert_pem ? "https" : "http", h->addr.text, h->dir);
		int sig;
		sigwait(&set, &sig);
		MHD_stop_daemon(d);
	}
	ssize_t w = write(s.stop[1], "x", 1);
	(void)w;
	pthread_join(rt, NULL);
	close(s.stop[0]);
	close(s.stop[1]);
	pthread_mutex_destroy(&s.lock);
	pthread_mutex_destroy(&s.log_lock);
	if (d)
		fprintf(stderr, "vpmu-stat: stopped; %u connection(s) cut at their %d s deadline\n",
			atomic_load(&s.cut), EXPORT_REQUEST_S);
	return r;
}
