/* SPDX-License-Identifier: MIT */
/*
 * vpmu-stat --listen: the Prometheus exporter's HTTP(S) server, with
 * libmicrohttpd (docs/accounting.md, "Prometheus").  / is a landing page that
 * links /metrics; other paths are 404, other methods than GET and HEAD 405.
 *
 * Availability (docs/accounting.md, "Slow clients and silent VMs"): each
 * connection has its own thread, so that a slow client or a slow scrape holds
 * no other; at most EXPORT_MAX_CONNECTIONS connections, EXPORT_MAX_PER_IP of
 * them from one address; a connection silent for EXPORT_IDLE_S is closed
 * (libmicrohttpd's timeout), and so is one whose request has not been read and
 * answered within EXPORT_REQUEST_S of its start or of its previous request's
 * end, however steadily it trickles (a slowloris client).  A scrape reads
 * every VM at once and waits for them at most scrape_timeout_ms, less when
 * Prometheus' X-Prometheus-Scrape-Timeout-Seconds header asks for less.
 */
#ifndef VPMU_TOOLS_STAT_HTTP_H
#define VPMU_TOOLS_STAT_HTTP_H

#include "stat_listen.h"
#include "stat_webconfig.h"

#define EXPORT_MAX_CONNECTIONS 32
#define EXPORT_MAX_PER_IP 4
#define EXPORT_IDLE_S 10
#define EXPORT_REQUEST_S 10
#define EXPORT_SCRAPE_MS 2000        /* the default per-scrape deadline */

struct export_http {
	const char *dir;             /* the runtime directory */
	struct export_addr addr;
	const struct web_config *web; /* TLS and users; NULL: plain HTTP, anyone */
	unsigned scrape_timeout_ms;
};

/* Serves until SIGINT or SIGTERM; 0, or -errno with a message on stderr. */
int export_listen(const struct export_http *h);

#endif
