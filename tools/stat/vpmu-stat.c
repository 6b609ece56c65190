/* SPDX-License-Identifier: MIT */
/*
 * vpmu-stat: the live accounting of running VMs (docs/accounting.md, "Live
 * view"), read from the sockets vpmu-run --name opens.
 *
 *   vpmu-stat --list                      the running VMs
 *   vpmu-stat [--format F] [NAME...]      one snapshot of the VMs named (all by default)
 *   vpmu-stat --interval MS [--count N] [--per-vcpu] [--top] [NAME...]
 *                                         per-second rates every MS ms (perf stat -I);
 *                                         --top redraws one screen instead (top)
 *   vpmu-stat --listen [ADDR][:PORT] [--web.config.file FILE] [--scrape-timeout MS]
 *                                         a Prometheus exporter: /metrics for every VM
 *   vpmu-stat --textfile DIR [--interval MS [--count N]]
 *                                         DIR/vpmu.prom for node_exporter, atomically
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "stat_client.h"
#include "stat_export.h"
#include "stat_http.h"
#include "stat_view.h"

struct opts {
	int format;                 /* enum acct_format */
	bool list, per_vcpu, top;
	unsigned interval_ms, count, scrape_ms;
	bool listen;
	const char *textfile, *web_config;
	struct export_addr addr;
	char **names;
	unsigned nnames;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: vpmu-stat [--format text|domstats|prometheus|json] [NAME...]\n"
		"       vpmu-stat --list\n"
		"       vpmu-stat --interval MS [--count N] [--per-vcpu] [--top] [NAME...]\n"
		"       vpmu-stat --listen [ADDR][:PORT] [--web.config.file FILE] [--scrape-timeout MS]\n"
		"       vpmu-stat --textfile DIR [--interval MS [--count N]]\n"
		"  The accounting of the VMs that vpmu-run --name NAME runs, from their sockets in\n"
		"  $VPMU_RUNTIME_DIR, $XDG_RUNTIME_DIR/vpmu or /run/vpmu (docs/accounting.md).\n");
	exit(2);
}

/* OPTION=VALUE, as other exporters' flags are also written: VALUE, or NULL. */
static const char *eq_value(const char *a, const char *option)
{
	size_t n = strlen(option);
	return !strncmp(a, option, n) && a[n] == '=' ? a + n + 1 : NULL;
}

static void listen_at(struct opts *o, const char *v)
{
	char err[320];
	if (export_addr_parse(v, &o->addr, err, sizeof(err)) < 0) {
		fprintf(stderr, "vpmu-stat: --listen %s (want :PORT, HOST:PORT or [IPV6]:PORT; "
			"the default port is %d)\n", err, EXPORT_DEFAULT_PORT);
		exit(2);
	}
	o->listen = true;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .format = ACCT_TEXT };
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if (!strcmp(a, "--format") && more) {
			o->format = acct_format_from_name(argv[++i]);
			if (o->format < 0) {
				fprintf(stderr, "vpmu-stat: --format must be text, domstats, prometheus "
					"or json, not '%s'\n", argv[i]);
				exit(2);
			}
		} else if (!strcmp(a, "--list")) {
			o->list = true;
		} else if (!strcmp(a, "--per-vcpu")) {
			o->per_vcpu = true;
		} else if (!strcmp(a, "--top")) {
			o->top = true;
		} else if (!strcmp(a, "--interval") && more) {
			o->interval_ms = cli_uint("vpmu-stat", argv[++i], "--interval", 10, 3600000);
		} else if (!strcmp(a, "--count") && more) {
			o->count = cli_uint("vpmu-stat", argv[++i], "--count", 1, 1000000000);
		} else if (!strcmp(a, "--listen") || (!strcmp(a, "--web.listen-address") && more)) {
			/* The address may be left out (every address, the default
			 * port): the next word is one unless it is an option. */
			listen_at(o, more && argv[i + 1][0] != '-' ? argv[++i] : NULL);
		} else if (eq_value(a, "--listen") || eq_value(a, "--web.listen-address")) {
			listen_at(o, eq_value(a, "--listen") ? eq_value(a, "--listen")
							     : eq_value(a, "--web.listen-address"));
		} else if (!strcmp(a, "--web.config.file") && more) {
			o->web_config = argv[++i];
		} else if (eq_value(a, "--web.config.file")) {
			o->web_config = eq_value(a, "--web.config.file");
		} else if (!strcmp(a, "--scrape-timeout") && more) {
			o->scrape_ms = cli_uint("vpmu-stat", argv[++i], "--scrape-timeout", 100, 600000);
		} else if (!strcmp(a, "--textfile") && more) {
			o->textfile = argv[++i];
		} else {
			usage();
		}
	}
	o->names = argv + i;
	o->nnames = (unsigned)(argc - i);
	for (unsigned k = 0; k < o->nnames; k++)
		if (!stat_name_valid(o->names[k])) {
			fprintf(stderr, "vpmu-stat: '%s' is not a VM name\n", o->names[k]);
			exit(2);
		}
	if ((o->list + o->listen + !!o->textfile) > 1 || (o->count && !o->interval_ms) ||
	    ((o->web_config || o->scrape_ms) && !o->listen) ||
	    ((o->list || o->listen || o->textfile) && o->nnames) ||
	    ((o->list || o->listen) && o->interval_ms) || (o->top && (!o->interval_ms || o->textfile)))
		usage();
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int list_vms(const char *dir)
{
	struct acct_vm *vms;
	unsigned n, failed;
	if (stat_fetch_all(dir, NULL, 0, &vms, &n, &failed, stderr) < 0)
		return 1;
	printf("%-32s %-10s %5s %8s\n", "NAME", "MODEL", "VCPUS", "COUNTERS");
	for (unsigned i = 0; i < n; i++)
		printf("%-32s %-10s %5u %8u\n", vms[i].name, vms[i].model, vms[i].nr_vcpus,
		       vms[i].nr_ctrs);
	acct_vms_release(vms, n);
	return 0;
}

static int once(const struct opts *o, const char *dir)
{
	struct acct_vm *vms;
	unsigned n, failed;
	if (stat_fetch_all(dir, o->names, o->nnames, &vms, &n, &failed, stderr) < 0)
		return 1;
	int r = acct_write(stdout, (enum acct_format)o->format, vms, n);
	acct_vms_release(vms, n);
	if (r < 0)
		fprintf(stderr, "vpmu-stat: writing the accounting failed\n");
	return r < 0 || failed ? 1 : 0;
}

static int interval(const struct opts *o, const char *dir)
{
	struct acct_vm *before = NULL, *now = NULL;
	unsigned nb = 0, nn = 0, failed;
	double t0 = now_s(), tb = t0;
	if (stat_fetch_all(dir, o->names, o->nnames, &before, &nb, &failed, stderr) < 0)
		return 1;
	if (!o->top)
		stat_view_header(stdout);
	for (unsigned k = 0; !o->count || k < o->count; k++) {
		sleep_ms(o->interval_ms);
		double tn = now_s();
		if (stat_fetch_all(dir, o->names, o->nnames, &now, &nn, &failed, stderr) < 0)
			break;
		if (o->top) {
			/* Home and clear (ECMA-48 CUP and ED), then this interval alone. */
			fputs("\033[H\033[2J", stdout);
			printf("vpmu-stat: %u VM(s), every %u ms\n", nn, o->interval_ms);
			stat_view_header(stdout);
		}
		stat_view_print(stdout, tn - t0, tn - tb, before, nb, now, nn, o->per_vcpu);
		acct_vms_release(before, nb);
		before = now, nb = nn, tb = tn;
	}
	acct_vms_release(before, nb);
	return 0;
}

static int textfile(const struct opts *o, const char *dir)
{
	for (unsigned k = 0;; k++) {
		if (export_textfile(dir, o->textfile) < 0)
			return 1;
		if (!o->interval_ms || (o->count && k + 1 >= o->count))
			return 0;
		sleep_ms(o->interval_ms);
	}
}

static int serve(const struct opts *o, const char *dir)
{
	struct web_config wc = { 0 };
	char err[512];
	if (o->web_config && web_config_load(o->web_config, &wc, err, sizeof(err)) < 0) {
		fprintf(stderr, "vpmu-stat: --web.config.file %s\n", err);
		return 1;
	}
	struct export_http h = { .dir = dir, .addr = o->addr, .web = o->web_config ? &wc : NULL,
				 .scrape_timeout_ms = o->scrape_ms ? o->scrape_ms : EXPORT_SCRAPE_MS };
	int r = export_listen(&h);
	web_config_release(&wc);
	return r < 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	parse_args(argc, argv, &o);
	char dir[256], err[320];
	if (stat_dir_get(dir, sizeof(dir), false, err, sizeof(err)) < 0 && !o.listen && !o.textfile) {
		/* No directory: no VM has run with --name here yet. */
		if (o.list)
			return list_vms(dir);
		fprintf(stderr, "vpmu-stat: no running VMs (%s)\n", err);
		return 1;
	}
	if (o.list)
		return list_vms(dir);
	if (o.listen)
		return serve(&o, dir);
	if (o.textfile)
		return textfile(&o, dir);
	if (o.interval_ms)
		return interval(&o, dir);
	return once(&o, dir);
}
