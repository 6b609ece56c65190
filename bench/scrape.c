/* SPDX-License-Identifier: MIT */
/*
 * What one scrape of vpmu-stat's exporter costs at issue 10's scale: 1,000
 * running VMs of 8 vCPUs, each behind its live socket (tools/live/stat_server.c),
 * read by vpmu-stat's client (tools/stat/stat_client.c: STAT_FETCH_PARALLEL
 * sockets at a time) and written as the /metrics body (export_metrics,
 * tools/stat/stat_export.c).  The servers answer with a snapshot rendered
 * once (a VM's JSON: what vpmu-run's socket sends), so this measures the
 * exporter's side: sockets, JSON parsing, the Prometheus text.  What a VMM
 * adds per request (its vCPUs answering: tools/live/live_vm.h) is not in it.
 *
 *   scrape [--vms N] [--vcpus K] [--runs R]
 *        ms per scrape, median (min-max) of R runs
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "vpmu/backend.h"
#include "vpmu/vpmu.h"
#include "accounting/acct_formats.h"
#include "stat/stat_export.h"
#include "live/stat_dir.h"
#include "live/stat_server.h"

static char *doc_template;
static size_t doc_len;

/* Every VM answers the same document but under its own name: the name is
 * the first string of schema 1 ("name"), patched per VM. */
struct vm_answer {
	char *doc;
	size_t len;
};

static int answer(void *ctx, char **buf, size_t *len)
{
	const struct vm_answer *a = ctx;
	*buf = malloc(a->len);
	if (!*buf)
		return -ENOMEM;
	memcpy(*buf, a->doc, a->len);
	*len = a->len;
	return 0;
}

/* One VM's JSON as vpmu-run would send it: p6, k vCPUs that counted. */
static int render(unsigned k)
{
	struct vpmu_sim *sim;
	struct vpmu_backend b;
	struct vpmu_host *host;
	struct vpmu_vm *vm;
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	cfg.model = "p6";
	if (vpmu_sim_create(k, &sim))
		return -1;
	vpmu_sim_backend(sim, &b);
	if (vpmu_host_create(&b, k, &host) || vpmu_vm_create(host, &cfg, &vm))
		return -1;
	for (unsigned i = 0; i < k; i++) {
		struct vpmu_vcpu *v;
		enum vpmu_fault f;
		if (vpmu_vcpu_create(vm, i, &v) || vpmu_vcpu_switch_in(v, i))
			return -1;
		vpmu_reg_write(v, VPMU_SPACE_MSR, 0x186, 0x430079, &f);   /* cycles */
		vpmu_reg_write(v, VPMU_SPACE_MSR, 0x187, 0x0300C0, &f);   /* instructions */
		vpmu_sim_tick(sim, i, VPMU_EV_CYCLES, 123456789u + i, VPMU_MODE_USER);
		vpmu_sim_tick(sim, i, VPMU_EV_INSTRUCTIONS, 98765432u + i, VPMU_MODE_KERNEL);
	}
	struct acct_vm snap;
	if (acct_collect(&snap, "VMNAME-0000", vm, host, NULL))
		return -1;
	FILE *m = open_memstream(&doc_template, &doc_len);
	int r = m ? acct_write(m, ACCT_JSON, &snap, 1) : -1;
	if (m)
		fclose(m);
	acct_vm_release(&snap);
	vpmu_vm_destroy(vm);
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return r;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned nvms = 1000, k = 8, runs = 11;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--vms"))
			nvms = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--vcpus"))
			k = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--runs"))
			runs = (unsigned)atoi(argv[i + 1]);
	}
	if (!nvms || !k || k > VPMU_MAX_VCPUS || !runs || runs > 101 || render(k) < 0) {
		fprintf(stderr, "usage: scrape [--vms N] [--vcpus 1-64] [--runs 1-101]\n");
		return 2;
	}
	/* Each server: a listening socket and a pipe. */
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < 4 * nvms + 64) {
		fprintf(stderr, "scrape: %u VMs need %u file descriptors (limit %lu)\n", nvms,
			4 * nvms + 64, (unsigned long)rl.rlim_cur);
		return 1;
	}
	char dir[] = "/tmp/vpmu-scrape-XXXXXX", err[256];
	if (!mkdtemp(dir))
		return 1;
	struct stat_server **srv = calloc(nvms, sizeof(*srv));
	struct vm_answer *ans = calloc(nvms, sizeof(*ans));
	char *at = strstr(doc_template, "VMNAME-0000");
	if (!srv || !ans || !at)
		return 1;
	for (unsigned i = 0; i < nvms; i++) {
		char path[512], name[16];
		snprintf(name, sizeof(name), "vm-%04u", i % 10000);
		ans[i].len = doc_len;
		ans[i].doc = malloc(doc_len);
		memcpy(ans[i].doc, doc_template, doc_len);
		memcpy(ans[i].doc + (at - doc_template), "VMNAME", 6);
		memcpy(ans[i].doc + (at - doc_template), name, strlen(name));
		memmove(ans[i].doc + (at - doc_template) + strlen(name),
			ans[i].doc + (at - doc_template) + 11, doc_len - (size_t)(at - doc_template) - 11);
		ans[i].len = doc_len - (11 - strlen(name));
		stat_sock_path(path, sizeof(path), dir, name);
		if (stat_server_start(path, answer, &ans[i], &srv[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "scrape: server %u: %s\n", i, err);
			return 1;
		}
	}
	double t[101];
	size_t bytes = 0;
	for (unsigned r = 0; r < runs; r++) {
		char *buf = NULL;
		size_t len = 0;
		/* Past the servers' STAT_CACHE_MS: every scrape asks anew. */
		usleep((STAT_CACHE_MS + 20) * 1000);
		double t0 = now_ms();
		if (export_metrics(dir, &buf, &len) < 0)
			return 1;
		t[r] = now_ms() - t0;
		bytes = len;
		if (!strstr(buf, "\nvpmu_exporter_vm_errors 0\n"))
			fprintf(stderr, "scrape: some VMs did not answer\n");
		free(buf);
	}
	qsort(t, runs, sizeof(t[0]), cmp);
	printf("# one scrape = vpmu-stat's /metrics body for %u VMs x %u vCPUs over their sockets\n",
	       nvms, k);
	printf("scrape  %8.2f ms  (%.2f-%.2f), %zu bytes, %u runs\n", t[runs / 2], t[0],
	       t[runs - 1], bytes, runs);
	for (unsigned i = 0; i < nvms; i++) {
		stat_server_stop(srv[i], NULL);
		free(ans[i].doc);
	}
	free(srv);
	free(ans);
	free(doc_template);
	rmdir(dir);
	return 0;
}
