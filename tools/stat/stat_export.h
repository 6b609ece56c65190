/* SPDX-License-Identifier: MIT */
/*
 * vpmu-stat's Prometheus exposition (docs/accounting.md, "Prometheus"): the
 * metrics of every VM of the runtime directory and the exporter's own, for
 * /metrics (stat_http.h) and for --textfile DIR, which writes DIR/vpmu.prom
 * for node_exporter's textfile collector atomically (a temporary file renamed
 * over it, as the collector's documentation asks).
 */
#ifndef VPMU_TOOLS_STAT_EXPORT_H
#define VPMU_TOOLS_STAT_EXPORT_H

#include <stdio.h>

/* The exposition of every VM in dir (what /metrics answers), malloc'd; the
 * VMs together get timeout_ms (a VM that does not answer by then is
 * vpmu_vm_up 0).  export_metrics: STAT_CLIENT_TIMEOUT_S. */
int export_metrics_within(const char *dir, unsigned timeout_ms, char **buf, size_t *len);
int export_metrics(const char *dir, char **buf, size_t *len);
/* One atomic write of DIR/vpmu.prom; 0, or -errno with a message on stderr. */
int export_textfile(const char *dir, const char *textdir);

#endif
