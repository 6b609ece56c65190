/* SPDX-License-Identifier: MIT */
/*
 * vpmu-stat as a Prometheus exporter (docs/accounting.md, "Prometheus"):
 * --listen ADDR:PORT serves /metrics for every VM of the runtime directory
 * with libmicrohttpd; --textfile DIR writes DIR/vpmu.prom for node_exporter's
 * textfile collector, atomically (a temporary file renamed over it, as the
 * collector's documentation asks).
 */
#ifndef VPMU_TOOLS_STAT_EXPORT_H
#define VPMU_TOOLS_STAT_EXPORT_H

#include <stdio.h>

#define EXPORT_MAX_CONNECTIONS 16
#define EXPORT_TIMEOUT_S 10

/* The exposition of every VM in dir (what /metrics answers), malloc'd. */
int export_metrics(const char *dir, char **buf, size_t *len);
/* Serves until SIGINT or SIGTERM; 0, or -errno with a message on stderr. */
int export_listen(const char *dir, const char *addr_port);
/* One atomic write of DIR/vpmu.prom; 0, or -errno with a message on stderr. */
int export_textfile(const char *dir, const char *textdir);

#endif
