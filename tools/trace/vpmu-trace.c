/* SPDX-License-Identifier: MIT */
/*
 * vpmu-trace [OPTION]... FILE... : replay traces, one TAP line per file (per
 * expectation with -v), and with --accounting one accounting document of
 * every VM of every file (docs/trace.md, "Running vpmu-trace").
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "trace.h"

#define PROG "vpmu-trace"

/* A trace is read whole; larger files are refused (docs/trace.md "Limits"). */
#define MAX_TRACE_BYTES ((128u << 20) - 1)

/* path's bytes; "-" is standard input (POSIX Utility Syntax Guideline 13). */
static char *slurp(const char *path, size_t *len)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		if (n > MAX_TRACE_BYTES) {
			free(buf);
			buf = NULL;
			errno = EFBIG;
			break;
		}
		size_t ncap = cap * 2 > MAX_TRACE_BYTES + 1 ? MAX_TRACE_BYTES + 1 : cap * 2;
		char *nb = realloc(buf, ncap);
		if (!nb) {
			free(buf);
			buf = NULL;
			errno = ENOMEM;
			break;
		}
		buf = nb;
		cap = ncap;
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	if (!is_stdin)
		fclose(f);
	*len = n;
	return buf;
}

static void usage(void)
{
	printf("Usage: vpmu-trace [OPTION]... FILE...\n"
	       "Replays vpmu traces (docs/trace.md) against libvpmu with the sim backend and\n"
	       "reports them in TAP; FILE - is standard input.\n"
	       "\n"
	       "  -v, --verbose            one TAP line per expectation instead of one per file\n"
	       "      --accounting[=FORMAT], --accounting FORMAT\n"
	       "                           after the last file, the accounting of every VM of\n"
	       "                           every file, as one document: text (the default),\n"
	       "                           domstats, prometheus or json (docs/accounting.md);\n"
	       "                           with several files a VM is named FILE:NAME\n"
	       "  -o, --output=FILE        the accounting to FILE instead of standard output\n"
	       "  -h, --help               display this help and exit\n"
	       "      --version            output version information and exit\n"
	       "\n"
	       "A domstats, prometheus or json accounting on standard output is alone there:\n"
	       "the TAP goes to standard error.\n"
	       "Exit status: 0 if every trace passed, 1 if one failed or could not be read,\n"
	       "2 on a usage error.\n");
}

/* Every VM of every well-formed trace, for one document at the end. */
struct gather {
	bool qualify;          /* several files: VM NAME of FILE is "FILE:NAME" */
	struct acct_vm *vms;
	unsigned n, cap;
	const char *left_out;  /* a VM of this file left out: its name too long or taken */
};

static void gather_vms(void *arg, const char *trace, struct acct_vm *vms, unsigned n)
{
	struct gather *g = arg;
	for (unsigned i = 0; i < n; i++) {
		char name[sizeof(vms[i].name)];
		if (g->qualify) {
			int l = snprintf(name, sizeof(name), "%s:%s", trace, vms[i].name);
			if (l < 0 || (size_t)l >= sizeof(name)) {
				fprintf(stderr, "%s: error: VM '%s': its accounting name '%s:%s' is longer "
					"than %zu bytes, the limit of a VM name: name the file by a shorter "
					"path\n", trace, vms[i].name, trace, vms[i].name, sizeof(name) - 1);
				g->left_out = trace;
				acct_vm_release(&vms[i]);
				continue;
			}
			memcpy(vms[i].name, name, sizeof(name));
		}
		/* One document names each VM once (Prometheus refuses a series twice). */
		bool dup = false;
		for (unsigned k = 0; k < g->n && !dup; k++)
			dup = !strcmp(g->vms[k].name, vms[i].name);
		if (dup) {
			fprintf(stderr, "%s: error: the accounting has a VM named '%s' already: give "
				"each trace file once\n", trace, vms[i].name);
			g->left_out = trace;
			acct_vm_release(&vms[i]);
			continue;
		}
		if (g->n == g->cap) {
			unsigned ncap = g->cap ? g->cap * 2 : 16;
			struct acct_vm *nv = realloc(g->vms, ncap * sizeof(*nv));
			if (!nv) {
				fprintf(stderr, "%s: out of memory for the accounting\n", PROG);
				exit(1);
			}
			g->vms = nv, g->cap = ncap;
		}
		g->vms[g->n++] = vms[i];
	}
	free(vms);
}

enum { OPT_VERSION = 256, OPT_ACCOUNTING };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "accounting", optional_argument, NULL, OPT_ACCOUNTING },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int verbose = 0, format = -1, c;
	const char *output = NULL;
	cli_init(argv, PROG);
	while ((c = getopt_long(argc, argv, "vo:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			verbose = 1;
			break;
		case OPT_ACCOUNTING:
			/* getopt_long gives an optional argument only as --accounting=F;
			 * "--accounting F" is taken when F names a format (a trace file
			 * called so is written ./F). */
			if (optarg)
				format = cli_acct_format(PROG, "--accounting", optarg);
			else if (optind < argc && acct_format_from_name(argv[optind]) >= 0)
				format = acct_format_from_name(argv[optind++]);
			else
				format = ACCT_TEXT;
			break;
		case 'o':
			output = optarg;
			break;
		default:
			cli_common_option(PROG, c, OPT_VERSION, usage);
		}
	}
	if (optind >= argc)
		cli_usage_error(PROG, "no trace FILE given");
	if (output && format < 0)
		cli_usage_error(PROG, "--output is where the accounting goes: give --accounting too");
	int nfiles = argc - optind;
	FILE *acct_out = format >= 0 ? cli_output(PROG, output, 1) : NULL;
	/* A document other than text that goes to stdout is alone there. */
	FILE *tap = acct_out == stdout && format != ACCT_TEXT ? stderr : stdout;
	struct gather g = { .qualify = nfiles > 1 };
	if (format >= 0)
		trace_set_accounting_sink(gather_vms, &g);

	unsigned tapno = 0, failed_files = 0;
	if (!verbose)
		fprintf(tap, "1..%d\n", nfiles);
	for (int i = optind; i < argc; i++) {
		size_t len = 0;
		errno = 0;
		char *text = slurp(argv[i], &len);
		int read_errno = errno;
		struct trace_result res = { 0, 0, 0 };
		const char *why = NULL;
		fflush(tap);
		if (!text) {
			if (read_errno == EFBIG)
				fprintf(stderr, "%s: error: cannot read: larger than %u bytes, the limit "
					"of a trace file\n", argv[i], MAX_TRACE_BYTES);
			else
				fprintf(stderr, "%s: error: cannot read: %s\n", argv[i],
					strerror(read_errno ? read_errno : EIO));
			res.error = 1, why = "cannot read";
		} else if (len == 0) {
			/* Nothing replayed is nothing checked: not a pass. */
			fprintf(stderr, "%s: error: empty trace\n", argv[i]);
			res.error = 1, why = "empty trace";
		} else {
			g.left_out = NULL;
			trace_run(argv[i], text, len, stderr, tap, verbose, &tapno, &res);
			if (res.error)
				why = "malformed";
			else if (g.left_out)
				res.error = 1, why = "VM left out of the accounting";
		}
		free(text);
		int ok = !res.error && !res.failed;
		failed_files += !ok;
		if (verbose) {
			if (res.error)
				fprintf(tap, "not ok %u - %s: %s\n", ++tapno, argv[i],
					!strcmp(why, "malformed") ? "malformed trace" : why);
		} else {
			fprintf(tap, "%s %u - %s (%u checks%s%s)\n", ok ? "ok" : "not ok", ++tapno,
				argv[i], res.checks, why ? ", " : "", why ? why : "");
		}
	}
	int bad_output = 0;
	if (acct_out) {
		/* The text follows the TAP on stdout: the plan of -v comes after it. */
		fflush(tap);
		int r = acct_write(acct_out, (enum acct_format)format, g.vms, g.n);
		acct_vms_release(g.vms, g.n);
		if (r < 0) {
			fprintf(stderr, "%s: writing the accounting to %s failed: %s\n", PROG,
				acct_out == stdout ? "standard output" : output, strerror(-r));
			if (acct_out != stdout)
				fclose(acct_out);
			bad_output = 1;
		} else if (acct_out != stdout && cli_output_close(PROG, acct_out, output) < 0) {
			bad_output = 1;
		}
	}
	if (verbose)
		fprintf(tap, "1..%u\n", tapno);
	if (cli_output_close(PROG, stdout, NULL) < 0)
		bad_output = 1;
	return failed_files || bad_output ? 1 : 0;
}
