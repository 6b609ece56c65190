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
 *   vpmu-stat --qmp PATH [--qmp PATH]... [--format F | --interval MS ...]
 *                                         the same of QEMUs with vpmu, through their QMP
 *                                         sockets (query-vpmu: docs/qemu.md)
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cli.h"
#include "stat_client.h"
#include "stat_export.h"
#include "stat_http.h"
#include "stat_qmp.h"
#include "stat_view.h"

struct opts {
	int format;                 /* enum acct_format */
	bool list, per_vcpu, top;
	unsigned interval_ms, count, scrape_ms;
	bool listen;
	struct export_addr addr;    /* --listen's */
	const char *textfile, *web_config;
	const char *output;         /* -o FILE: what goes to stdout goes there */
	FILE *out;                  /* stdout or that FILE */
	char **names;
	unsigned nnames;
	char **qmp;                 /* --qmp PATH: QEMUs asked instead of the sockets */
	unsigned nqmp;
};

#define PROG "vpmu-stat"

static void usage(void)
{
	printf("Usage: vpmu-stat [OPTION]... [NAME]...\n"
	       "  or:  vpmu-stat --list\n"
	       "  or:  vpmu-stat --interval=MS [--count=N] [--per-vcpu] [--top] [NAME]...\n"
	       "  or:  vpmu-stat --listen[=[ADDR][:PORT]] [--web.config.file=FILE]\n"
	       "                 [--scrape-timeout=MS]\n"
	       "  or:  vpmu-stat --textfile=DIR [--interval=MS [--count=N]]\n"
	       "  or:  vpmu-stat --qmp=PATH [--qmp=PATH]... [--list | --format=F |\n"
	       "                 --interval=MS ...]\n"
	       "The accounting of the VMs that vpmu-run --name NAME runs (all of them without\n"
	       "NAME), from their sockets in $VPMU_RUNTIME_DIR, $XDG_RUNTIME_DIR/vpmu or\n"
	       "/run/vpmu (docs/accounting.md, \"Live view\").\n"
	       "\n"
	       "      --format=F         text (the default), domstats, prometheus or json\n"
	       "      --list             the running VMs: name, model, vCPUs, counters\n"
	       "      --interval=MS      every MS ms (10 to 3600000): per-second rates in text,\n"
	       "                         or a whole snapshot in the --format given\n"
	       "      --count=N          stop after N intervals\n"
	       "      --per-vcpu         text intervals: a row per vCPU too\n"
	       "      --top              text intervals: redraw one screen\n"
	       "      --listen[=ADDR]    a Prometheus exporter: /metrics for every VM; ADDR is\n"
	       "                         :PORT, HOST:PORT or [IPV6]:PORT (every address and\n"
	       "                         port 9632 without; --web.listen-address is the same)\n"
	       "      --web.config.file=FILE  TLS and basic authentication, as Prometheus'\n"
	       "                         exporter-toolkit reads it (docs/accounting.md)\n"
	       "      --scrape-timeout=MS the most one scrape waits for the VMs (100 to\n"
	       "                         600000, default 2000; Prometheus' own timeout\n"
	       "                         shortens it)\n"
	       "      --textfile=DIR     DIR/vpmu.prom for node_exporter's textfile collector\n"
	       "      --qmp=PATH         the QEMU whose QMP server listens on the Unix socket\n"
	       "                         PATH (query-vpmu of QEMU's vpmu series, docs/qemu.md),\n"
	       "                         instead of vpmu-run's sockets; given again, more QEMUs\n"
	       "  -o, --output=FILE      write to FILE instead of standard output\n"
	       "  -h, --help             display this help and exit\n"
	       "      --version          output version information and exit\n"
	       "\n"
	       "Exit status: 0; 1 when a VM named cannot be read; 2 on a usage error.\n");
}

enum {
	OPT_FORMAT = 256, OPT_LIST, OPT_PER_VCPU, OPT_TOP, OPT_INTERVAL, OPT_COUNT, OPT_LISTEN,
	OPT_TEXTFILE, OPT_WEB_CONFIG, OPT_SCRAPE_TIMEOUT, OPT_QMP, OPT_VERSION,
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "per-vcpu", no_argument, NULL, OPT_PER_VCPU },
		{ "top", no_argument, NULL, OPT_TOP },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "listen", optional_argument, NULL, OPT_LISTEN },
		{ "web.listen-address", required_argument, NULL, OPT_LISTEN },
		{ "web.config.file", required_argument, NULL, OPT_WEB_CONFIG },
		{ "scrape-timeout", required_argument, NULL, OPT_SCRAPE_TIMEOUT },
		{ "textfile", required_argument, NULL, OPT_TEXTFILE },
		{ "qmp", required_argument, NULL, OPT_QMP },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	*o = (struct opts){ .format = ACCT_TEXT };
	static char *qmp[STAT_FETCH_PARALLEL];
	bool format_given = false;
	int c;
	cli_init(argv, PROG);
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			o->format = cli_acct_format(PROG, "--format", optarg);
			format_given = true;
			break;
		case OPT_LIST: o->list = true; break;
		case OPT_PER_VCPU: o->per_vcpu = true; break;
		case OPT_TOP: o->top = true; break;
		case OPT_INTERVAL:
			o->interval_ms = cli_uint(PROG, optarg, "--interval", 10, 3600000);
			break;
		case OPT_COUNT: o->count = cli_uint(PROG, optarg, "--count", 1, 1000000000); break;
		case OPT_LISTEN: {
			/* The address may be left out (every address, the default port),
			 * and given as the next word, as other exporters take it. */
			const char *v = optarg;
			if (!v && optind < argc && argv[optind][0] != '-')
				v = argv[optind++];
			char err[320];
			if (export_addr_parse(v, &o->addr, err, sizeof(err)) < 0)
				cli_usage_error(PROG, "--listen %s (want :PORT, HOST:PORT or [IPV6]:PORT; "
						"the default port is %d)", err, EXPORT_DEFAULT_PORT);
			o->listen = true;
			break;
		}
		case OPT_WEB_CONFIG: o->web_config = optarg; break;
		case OPT_SCRAPE_TIMEOUT:
			o->scrape_ms = cli_uint(PROG, optarg, "--scrape-timeout", 100, 600000);
			break;
		case OPT_TEXTFILE: o->textfile = optarg; break;
		case OPT_QMP:
			if (o->nqmp == STAT_FETCH_PARALLEL)
				cli_usage_error(PROG, "--qmp: at most %d QEMUs", STAT_FETCH_PARALLEL);
			qmp[o->nqmp++] = optarg;
			o->qmp = qmp;
			break;
		case 'o': o->output = optarg; break;
		default:
			cli_common_option(PROG, c, OPT_VERSION, usage);
		}
	}
	o->names = argv + optind;
	o->nnames = (unsigned)(argc - optind);
	for (unsigned k = 0; k < o->nnames; k++)
		if (!stat_name_valid(o->names[k]))
			cli_usage_error(PROG, "'%s' is not a VM name", o->names[k]);
	if ((o->web_config || o->scrape_ms) && !o->listen)
		cli_usage_error(PROG, "--%s is for the exporter: give --listen too",
				o->web_config ? "web.config.file" : "scrape-timeout");
	if (o->list + o->listen + !!o->textfile > 1)
		cli_usage_error(PROG, "--list, --listen and --textfile are three ways to run: "
				"give one");
	if (o->nqmp && (o->nnames || o->listen || o->textfile))
		cli_usage_error(PROG, "--qmp names the QEMUs: %s", o->nnames ?
				"leave out the VM names" : "the exporters read vpmu-run's sockets");
	if (o->count && !o->interval_ms)
		cli_usage_error(PROG, "--count counts intervals: give --interval too");
	if ((o->list || o->listen || o->textfile) && o->nnames)
		cli_usage_error(PROG, "--%s covers every VM: leave out the names",
				o->list ? "list" : o->listen ? "listen" : "textfile");
	if ((o->list || o->listen) && o->interval_ms)
		cli_usage_error(PROG, "--interval is not for --%s", o->list ? "list" : "listen");
	if ((o->top || o->per_vcpu) && (!o->interval_ms || o->textfile || o->format != ACCT_TEXT))
		cli_usage_error(PROG, "--%s is for the text intervals: give --interval, without "
				"--textfile or a --format other than text", o->top ? "top" : "per-vcpu");
	if ((format_given && (o->list || o->listen || o->textfile)) ||
	    (o->output && (o->listen || o->textfile)))
		cli_usage_error(PROG, "--%s is not for --%s", format_given ? "format" : "output",
				o->list ? "list" : o->listen ? "listen" : "textfile");
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

/* Snapshots of the QEMUs of --qmp, one after the other, each within
 * STAT_CLIENT_TIMEOUT_S; as stat_fetch_all otherwise. */
static int fetch(const struct opts *o, const char *dir, struct acct_vm **vms, unsigned *n,
		 unsigned *failed)
{
	if (!o->nqmp)
		return stat_fetch_all(dir, o->names, o->nnames, vms, n, failed, stderr);
	*n = *failed = 0;
	*vms = calloc(o->nqmp, sizeof(**vms));
	if (!*vms)
		return -ENOMEM;
	for (unsigned i = 0; i < o->nqmp; i++) {
		char err[600];
		if (stat_qmp_fetch(o->qmp[i], STAT_CLIENT_TIMEOUT_S * 1000u, &(*vms)[*n], err,
				   sizeof(err)) == 0)
			(*n)++;
		else {
			fprintf(stderr, "%s: %s\n", PROG, err);
			(*failed)++;
		}
	}
	return 0;
}

static int list_vms(const struct opts *o, const char *dir, FILE *out)
{
	struct acct_vm *vms;
	unsigned n, failed;
	if (fetch(o, dir, &vms, &n, &failed) < 0)
		return 1;
	fprintf(out, "%-32s %-10s %5s %8s\n", "NAME", "MODEL", "VCPUS", "COUNTERS");
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%-32s %-10s %5u %8u\n", vms[i].name, vms[i].model, vms[i].nr_vcpus,
		       vms[i].nr_ctrs);
	acct_vms_release(vms, n);
	return failed && o->nqmp ? 1 : 0;
}

static int once(const struct opts *o, const char *dir)
{
	struct acct_vm *vms;
	unsigned n, failed;
	if (fetch(o, dir, &vms, &n, &failed) < 0)
		return 1;
	int r = acct_write(o->out, (enum acct_format)o->format, vms, n);
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
	if (fetch(o, dir, &before, &nb, &failed) < 0)
		return 1;
	bool text = o->format == ACCT_TEXT;
	if (text && !o->top)
		stat_view_header(o->out);
	for (unsigned k = 0; !o->count || k < o->count; k++) {
		sleep_ms(o->interval_ms);
		double tn = now_s();
		if (fetch(o, dir, &now, &nn, &failed) < 0)
			break;
		if (!text) {
			/* Another format: the whole snapshot each interval, one document
			 * after the other (its counts are totals: rates are the reader's). */
			if (acct_write(o->out, (enum acct_format)o->format, now, nn) < 0 ||
			    fflush(o->out) != 0) {
				fprintf(stderr, "%s: writing the accounting failed\n", PROG);
				acct_vms_release(now, nn);
				break;
			}
		} else if (o->top) {
			/* Home and clear (ECMA-48 CUP and ED), then this interval alone. */
			fputs("\033[H\033[2J", o->out);
			fprintf(o->out, "vpmu-stat: %u VM(s), every %u ms\n", nn, o->interval_ms);
			stat_view_header(o->out);
		}
		if (text)
			stat_view_print(o->out, tn - t0, tn - tb, before, nb, now, nn, o->per_vcpu);
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

static int run(const struct opts *o)
{
	char dir[256], err[320];
	if (o->nqmp)   /* no socket directory: the QEMUs named */
		return o->list ? list_vms(o, "", o->out) : o->interval_ms ? interval(o, "") :
			once(o, "");
	if (stat_dir_get(dir, sizeof(dir), false, err, sizeof(err)) < 0 && !o->listen && !o->textfile) {
		/* No directory: no VM has run with --name here yet. */
		if (o->list)
			return list_vms(o, dir, o->out);
		fprintf(stderr, "vpmu-stat: no running VMs (%s)\n", err);
		return 1;
	}
	if (o->list)
		return list_vms(o, dir, o->out);
	if (o->listen)
		return serve(o, dir);
	if (o->textfile)
		return textfile(o, dir);
	if (o->interval_ms)
		return interval(o, dir);
	return once(o, dir);
}

int main(int argc, char **argv)
{
	struct opts o;
	parse_args(argc, argv, &o);
	o.out = cli_output(PROG, o.output, 1);
	int r = run(&o);
	return cli_output_close(PROG, o.out, o.output) < 0 ? 1 : r;
}
