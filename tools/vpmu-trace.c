/* SPDX-License-Identifier: MIT */
/* vpmu-trace FILE... : replay traces, one TAP line per file (per expectation with -v). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

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
		char *nb = cap > (64u << 20) ? NULL : realloc(buf, cap * 2);
		if (!nb) {
			free(buf);
			buf = NULL;
			errno = EFBIG;
			break;
		}
		buf = nb;
		cap *= 2;
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
	fprintf(to, "usage: vpmu-trace [-v] FILE...\n"
		    "Replays vpmu traces against libvpmu with the sim backend and prints TAP.\n"
		    "  -v             one TAP line per expectation instead of one per file\n"
		    "  --accounting   print each VM's per-vCPU and per-VM counter accounting\n");
}

int main(int argc, char **argv)
{
	int verbose = 0, first = 1;
	for (; first < argc && argv[first][0] == '-' && argv[first][1]; first++) {
		if (!strcmp(argv[first], "-v"))
			verbose = 1;
		else if (!strcmp(argv[first], "--accounting"))
			trace_set_accounting(stdout);
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
			fprintf(stderr, "%s: error: cannot read: %s\n", argv[i], strerror(read_errno));
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
