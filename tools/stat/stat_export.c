/* SPDX-License-Identifier: MIT */
/* vpmu-stat's Prometheus exporter and textfile writer (stat_export.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vpmu/version.h"
#include "stat_client.h"
#include "stat_export.h"

struct failed_names {
	char (*name)[STAT_NAME_MAX + 1];
	unsigned n, cap;
};

static void note_failed(void *ctx, const char *name)
{
	struct failed_names *f = ctx;
	if (f->n == f->cap) {
		unsigned cap = f->cap ? f->cap * 2 : 8;
		void *p = realloc(f->name, cap * sizeof(*f->name));
		if (!p)
			return;   /* still counted in vpmu_exporter_vm_errors */
		f->name = p;
		f->cap = cap;
	}
	snprintf(f->name[f->n++], sizeof(*f->name), "%s", name);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The exporter's own health, as exporters conventionally add it (the
 * Prometheus "Writing exporters" guide: an up-like metric per target, the
 * scrape's duration, and a *_build_info gauge of value 1). */
static void exporter_metrics(FILE *m, const struct acct_vm *vms, unsigned n, const struct failed_names *f,
			     unsigned failed, double took)
{
	fprintf(m, "# HELP vpmu_vm_up Whether the VM's live socket answered this scrape in time.\n"
		   "# TYPE vpmu_vm_up gauge\n");
	/* Names are stat_name_valid: no label escaping needed. */
	for (unsigned i = 0; i < n; i++)
		fprintf(m, "vpmu_vm_up{domain=\"%s\"} 1\n", vms[i].name);
	for (unsigned i = 0; i < f->n; i++)
		fprintf(m, "vpmu_vm_up{domain=\"%s\"} 0\n", f->name[i]);
	fprintf(m, "# HELP vpmu_exporter_vms Running VMs whose accounting this scrape read.\n"
		   "# TYPE vpmu_exporter_vms gauge\nvpmu_exporter_vms %u\n"
		   "# HELP vpmu_exporter_vm_errors VM sockets that did not answer this scrape.\n"
		   "# TYPE vpmu_exporter_vm_errors gauge\nvpmu_exporter_vm_errors %u\n"
		   "# HELP vpmu_exporter_scrape_duration_seconds How long reading the VMs took.\n"
		   "# TYPE vpmu_exporter_scrape_duration_seconds gauge\n"
		   "vpmu_exporter_scrape_duration_seconds %.6f\n"
		   "# HELP vpmu_build_info The vpmu release vpmu-stat was built from.\n"
		   "# TYPE vpmu_build_info gauge\nvpmu_build_info{version=\"%s\"} 1\n",
		n, failed, took, VPMU_VERSION_STRING);
}

int export_metrics_within(const char *dir, unsigned timeout_ms, char **buf, size_t *len)
{
	struct acct_vm *vms = NULL;
	struct failed_names f = { 0 };
	unsigned n = 0, failed = 0;
	double t0 = now_s();
	int r = stat_fetch_all_within(dir, NULL, 0, timeout_ms, &vms, &n, &failed, stderr, note_failed, &f);
	if (r < 0)
		return r;
	FILE *m = open_memstream(buf, len);
	if (!m) {
		acct_vms_release(vms, n);
		free(f.name);
		return -ENOMEM;
	}
	r = acct_write(m, ACCT_PROMETHEUS, vms, n);
	exporter_metrics(m, vms, n, &f, failed, now_s() - t0);
	if (fclose(m) != 0 && r == 0)
		r = -EIO;
	acct_vms_release(vms, n);
	free(f.name);
	if (r < 0) {
		free(*buf);
		*buf = NULL;
	}
	return r;
}

int export_metrics(const char *dir, char **buf, size_t *len)
{
	return export_metrics_within(dir, STAT_CLIENT_TIMEOUT_S * 1000u, buf, len);
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
