/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vpmu/vpmu.h"
#include "accounting/acct_formats.h"
#include "cli.h"

void cli_init(char **argv, const char *prog)
{
	argv[0] = (char *)prog;
}

_Noreturn void cli_usage_error(const char *prog, const char *fmt, ...)
{
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		fprintf(stderr, "%s: ", prog);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	/* The line GNU programs end a usage error with (coreutils' emit_try_help). */
	fprintf(stderr, "Try '%s --help' for more information.\n", prog);
	exit(CLI_EXIT_USAGE);
}

/* stdout flushed and closed, or status 1 with the reason (GNU's close_stdout:
 * "vpmu-run --help >/dev/full" must not report success). */
static _Noreturn void finish_stdout(const char *prog)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		fprintf(stderr, "%s: write error%s%s\n", prog, errno ? ": " : "",
			errno ? strerror(errno) : "");
		exit(1);
	}
	exit(0);
}

_Noreturn void cli_version(const char *prog)
{
	/* GNU Coding Standards 4.8.1 "--version": the program, its package and
	 * version on the first line, then the licence. */
	printf("%s (vpmu) %s\n", prog, VPMU_VERSION_STRING);
	if (strcmp(vpmu_version(), VPMU_VERSION_STRING))
		printf("libvpmu %s\n", vpmu_version());
	printf("License MIT: <https://opensource.org/license/mit>.\n"
	       "This is free software: you are free to change and redistribute it.\n"
	       "There is NO WARRANTY, to the extent permitted by law.\n");
	finish_stdout(prog);
}

_Noreturn void cli_help_done(const char *prog)
{
	finish_stdout(prog);
}

_Noreturn void cli_common_option(const char *prog, int c, int version_opt, void (*usage)(void))
{
	if (c == 'h') {
		usage();
		cli_help_done(prog);
	}
	if (c == version_opt)
		cli_version(prog);
	cli_usage_error(prog, NULL);
}

unsigned cli_uint(const char *prog, const char *s, const char *what, unsigned lo, unsigned hi)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	/* strtoul takes "-5" as a huge number and " 5" as 5: digits alone here. */
	if (errno || *end || !*s || *s < '0' || *s > '9' || v < lo || v > hi)
		cli_usage_error(prog, "%s must be a number from %u to %u, not '%s'", what, lo, hi, s);
	return (unsigned)v;
}

const char *cli_model(const char *prog, const char *opt, const char *name)
{
	for (unsigned i = 0; i < vpmu_model_count(); i++)
		if (!strcasecmp(vpmu_model_name(i), name))
			return vpmu_model_name(i);
	fprintf(stderr, "%s: %s%sunknown model '%s'; the models are:", prog, opt ? opt : "",
		opt ? ": " : "", name);
	for (unsigned i = 0; i < vpmu_model_count(); i++)
		fprintf(stderr, " %s", vpmu_model_name(i));
	fprintf(stderr, "%s\n", strcmp(prog, "vpmu-events") ? " (vpmu-events describes each)" : "");
	cli_usage_error(prog, NULL);
}

int cli_acct_format(const char *prog, const char *opt, const char *name)
{
	int f = acct_format_from_name(name);
	if (f < 0)
		cli_usage_error(prog, "%s must be text, domstats, prometheus or json, not '%s'", opt,
				name);
	return f;
}

FILE *cli_output(const char *prog, const char *path, int fail)
{
	if (!path || !strcmp(path, "-"))
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
		exit(fail);
	}
	return f;
}

int cli_output_close(const char *prog, FILE *f, const char *path)
{
	errno = 0;
	int bad = fflush(f) != 0 || ferror(f);
	int e = errno;
	if (f != stdout && fclose(f) != 0 && !bad)
		bad = 1, e = errno;
	/* A write that failed before the flush left its error flag, not errno. */
	if (bad)
		fprintf(stderr, "%s: writing %s failed%s%s\n", prog,
			f == stdout || !path ? "standard output" : path, e ? ": " : "",
			e ? strerror(e) : "");
	return bad ? -1 : 0;
}
