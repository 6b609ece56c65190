/* SPDX-License-Identifier: MIT */
/* vpmu-trace FILE... : replay traces, one TAP line per file (per expectation with -v). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* A trace is read whole; larger files are refused (docs/trace.md "Limits"). */
#define MAX_TRACE_BYTES ((128u << 20) - 1)

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
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
	fclose(f);
	*len = n;
	return buf;
}

static void usage(FILE *to)
{
	fprintf(to, "usage: vpmu-trace [-v] [--accounting[=FORMAT]] FILE...\n"
		    "Replays vpmu traces against libvpmu with the sim backend and prints TAP.\n"
		    "  -v             one TAP line per expectation instead of one per file\n"
		    "  --accounting[=FORMAT]  after each file, its VMs' per-vCPU and per-VM counter\n"
		    "                 accounting: text (the default), domstats (virsh domstats --perf\n"
		    "                 keys), prometheus (text exposition format) or json\n"
		    "                 (docs/accounting.md)\n");
}

int main(int argc, char **argv)
{
	int verbose = 0, first = 1;
	for (; first < argc && argv[first][0] == '-' && argv[first][1]; first++) {
		if (!strcmp(argv[first], "-v"))
			verbose = 1;
		else if (!strcmp(argv[first], "--accounting"))
			trace_set_accounting(stdout, ACCT_TEXT);
		else if (!strncmp(argv[first], "--accounting=", 13)) {
			int f = acct_format_from_name(argv[first] + 13);
			if (f < 0) {
				fprintf(stderr, "vpmu-trace: unknown accounting format '%s' (text, domstats, "
					"prometheus, json)\n", argv[first] + 13);
				return 2;
			}
			trace_set_accounting(stdout, (enum acct_format)f);
		}
		else if (!strcmp(argv[first], "-h") || !strcmp(argv[first], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[first], "--")) {
			first++;
			break;
		} else {
			fprintf(stderr, "vpmu-trace: unknown option '%s'\n", argv[first]);
			usage(stderr);
			return 2;
		}
	}
	if (first >= argc) {
		usage(stderr);
		return 2;
	}
	unsigned tapno = 0, failed_files = 0;
	if (!verbose)
		printf("1..%d\n", argc - first);
	for (int i = first; i < argc; i++) {
		size_t len;
		char *text = slurp(argv[i], &len);
		int readable = text != NULL, read_errno = errno;
		struct trace_result res = { 0, 0, 0 };
		if (!text) {
			fflush(stdout);
			if (read_errno == EFBIG)
				fprintf(stderr, "%s: error: cannot read: larger than %u bytes, the limit "
					"of a trace file\n", argv[i], MAX_TRACE_BYTES);
			else
				fprintf(stderr, "%s: error: cannot read: %s\n", argv[i],
					strerror(read_errno));
			res.error = 1;
		} else {
			fflush(stdout);
			trace_run(argv[i], text, len, stderr, stdout, verbose, &tapno, &res);
			free(text);
		}
		int ok = !res.error && !res.failed;
		failed_files += !ok;
		if (verbose) {
			if (res.error)
				printf("not ok %u - %s: %s\n", ++tapno, argv[i],
				       readable ? "malformed trace" : "cannot read");
		} else {
			printf("%s %u - %s (%u checks%s)\n", ok ? "ok" : "not ok", ++tapno, argv[i],
			       res.checks, !res.error ? "" : readable ? ", malformed" : ", cannot read");
		}
	}
	if (verbose)
		printf("1..%u\n", tapno);
	return failed_files ? 1 : 0;
}
