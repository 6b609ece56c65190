/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run's command line (docs/vpmu-run.md, "Options"): getopt_long(3), so
 * that every option with a value takes it as "--opt VALUE" or "--opt=VALUE",
 * and the GNU conventions of tools/common/cli.h for --help, --version and usage
 * errors.  Everything that can be decided without KVM is decided here, with
 * exit status 2.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "live/stat_dir.h"
#include "run_filter.h"
#include "vpmu_run.h"

#define PROG "vpmu-run"

static void usage(void)
{
	printf(
"Usage: vpmu-run [OPTION]... IMAGE\n"
"  or:  vpmu-run [OPTION]... --kernel bzImage [--initrd FILE] [--append CMDLINE]\n"
"Boots IMAGE (flat, loaded at 0x100000, or multiboot: the a.out kludge or\n"
"ELF32), or a Linux bzImage, under KVM with the virtual PMU of a CPU model, and\n"
"prints the PMU's accounting when the guest exits (docs/vpmu-run.md).\n"
"\n"
"The CPU and its PMU:\n"
"      --model=M          the CPU model: p6 by default, any case (vpmu-events)\n"
"      --cpumodel=N       the CPUID model number it presents (0-255)\n"
"      --stepping=N       the CPUID stepping it presents (0-15)\n"
"      --pmu-version=N    an earlier architectural perfmon version (CPUID 0AH)\n"
"      --nr-general=N     fewer general counters (architectural perfmon, zen4)\n"
"      --nr-fixed=N       fewer fixed counters (architectural perfmon)\n"
"      --ht               vCPUs 2k and 2k+1 are a core's threads (p4, p4-em64t)\n"
"      --strict           writes that break perfctr's rules raise #GP\n"
"      --event-filter=F   the VM's event filter, as KVM_SET_PMU_EVENT_FILTER's:\n"
"                         a filter file, or cross-tenant (docs/vpmu-run.md)\n"
"      --backend=B        perf (default: what the host counts) or sim (nothing)\n"
"      --no-host-pmu      perf: the task clock even where the host has a PMU\n"
"      --null-pmu         the guest may switch its PMU MSR exits to a handler\n"
"                         that does nothing (bench/kvm-exits.sh)\n"
"The machine:\n"
"      --vcpus=N          1 to 16 vCPUs (default 1)\n"
"      --mem=MB           guest memory, 2 to 3072 MiB (64; 256 with --kernel)\n"
"      --timeout=S        stop the guest after S seconds, status 124 (60)\n"
"      --append=WORDS     more words for the guest's command line; with\n"
"                         --kernel, the kernel's whole command line\n"
"      --kernel=bzImage   boot Linux (32-bit boot protocol), not an IMAGE\n"
"      --initrd=FILE      with --kernel: its initramfs\n"
"      --no-kvmclock      with --kernel: no KVM paravirtual clock in CPUID\n"
"      --console-input    standard input feeds the serial console even when\n"
"                         it is not a terminal\n"
"Output:\n"
"      --tap              the guest's reports are TAP on standard output, the\n"
"                         console goes to standard error, the accounting is\n"
"                         TAP comments\n"
"      --accounting=F     the accounting's format: text (default), domstats,\n"
"                         prometheus or json (docs/accounting.md)\n"
"  -o, --output=FILE      the accounting to FILE instead of standard output\n"
"      --name=NAME        serve the live accounting as NAME (vpmu-stat NAME)\n"
"      --stat-group=GROUP with --name: GROUP's members may read it too (the\n"
"                         socket 0660, the runtime directory 0750, GROUP's)\n"
"  -h, --help             display this help and exit\n"
"      --version          output version information and exit\n"
"\n"
"A domstats, prometheus or json accounting on standard output is alone there:\n"
"the serial console and the guest's reports go to standard error.\n"
"Exit status: the guest's (port 0xF4) below 124; 126 for a guest status of 124\n"
"or more; 124 on --timeout; 125 on a VMM or KVM error; 2 on a usage error.\n");
}

enum {
	OPT_MODEL = 256, OPT_CPUMODEL, OPT_STEPPING, OPT_PMU_VERSION, OPT_NR_GENERAL, OPT_NR_FIXED,
	OPT_HT, OPT_STRICT, OPT_BACKEND, OPT_NO_HOST_PMU, OPT_NULL_PMU, OPT_VCPUS, OPT_MEM,
	OPT_TIMEOUT, OPT_APPEND, OPT_KERNEL, OPT_INITRD, OPT_NO_KVMCLOCK, OPT_CONSOLE_INPUT,
	OPT_TAP, OPT_ACCOUNTING, OPT_NAME, OPT_STAT_GROUP, OPT_VERSION, OPT_EVENT_FILTER,
};

static const struct option longopts[] = {
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "cpumodel", required_argument, NULL, OPT_CPUMODEL },
	{ "stepping", required_argument, NULL, OPT_STEPPING },
	{ "pmu-version", required_argument, NULL, OPT_PMU_VERSION },
	{ "nr-general", required_argument, NULL, OPT_NR_GENERAL },
	{ "nr-fixed", required_argument, NULL, OPT_NR_FIXED },
	{ "ht", no_argument, NULL, OPT_HT },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "event-filter", required_argument, NULL, OPT_EVENT_FILTER },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "no-host-pmu", no_argument, NULL, OPT_NO_HOST_PMU },
	{ "null-pmu", no_argument, NULL, OPT_NULL_PMU },
	{ "vcpus", required_argument, NULL, OPT_VCPUS },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "append", required_argument, NULL, OPT_APPEND },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "initrd", required_argument, NULL, OPT_INITRD },
	{ "no-kvmclock", no_argument, NULL, OPT_NO_KVMCLOCK },
	{ "console-input", no_argument, NULL, OPT_CONSOLE_INPUT },
	{ "tap", no_argument, NULL, OPT_TAP },
	{ "accounting", required_argument, NULL, OPT_ACCOUNTING },
	{ "output", required_argument, NULL, 'o' },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "stat-group", required_argument, NULL, OPT_STAT_GROUP },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static int num(const char *what, unsigned lo, unsigned hi)
{
	return (int)cli_uint(PROG, optarg, what, lo, hi);
}

/* One option (getopt_long's c, its value in optarg) into o. */
static void option(int c, struct opts *o)
{
	switch (c) {
	case OPT_MODEL: o->model = cli_model(PROG, "--model", optarg); break;
	case OPT_CPUMODEL: o->cpumodel = num("--cpumodel", 0, 255); break;
	case OPT_STEPPING: o->stepping = num("--stepping", 0, 15); break;
	case OPT_PMU_VERSION: o->pmu_version = num("--pmu-version", 1, 255); break;
	case OPT_NR_GENERAL: o->nr_general = num("--nr-general", 0, VPMU_MAX_CTRS); break;
	case OPT_NR_FIXED: o->nr_fixed = num("--nr-fixed", 0, VPMU_MAX_CTRS); break;
	case OPT_HT: o->ht = true; break;
	case OPT_STRICT: o->strict = true; break;
	case OPT_EVENT_FILTER: {
		static struct run_filter filter;
		char err[512];
		if (run_filter_load(optarg, &filter, err, sizeof(err)) < 0)
			cli_usage_error(PROG, "--event-filter: %s", err);
		o->filter = &filter;
		break;
	}
	case OPT_BACKEND:
		if (strcmp(optarg, "perf") && strcmp(optarg, "sim"))
			cli_usage_error(PROG, "--backend must be perf or sim, not '%s'", optarg);
		o->backend = optarg;
		break;
	case OPT_NO_HOST_PMU: o->no_host_pmu = true; break;
	case OPT_NULL_PMU: o->null_pmu = true; break;
	case OPT_VCPUS: o->vcpus = (unsigned)num("--vcpus", 1, MAX_VCPUS); break;
	case OPT_MEM: o->mem_mb = (unsigned)num("--mem", 2, 3072), o->mem_given = true; break;
	case OPT_TIMEOUT: o->timeout_s = (unsigned)num("--timeout", 1, 86400); break;
	case OPT_APPEND: o->append = optarg; break;
	case OPT_KERNEL: o->kernel = optarg; break;
	case OPT_INITRD: o->initrd = optarg; break;
	case OPT_NO_KVMCLOCK: o->no_kvmclock = true; break;
	case OPT_CONSOLE_INPUT: o->console_input = true; break;
	case OPT_TAP: o->tap = true; break;
	case OPT_ACCOUNTING:
		o->accounting = (enum acct_format)cli_acct_format(PROG, "--accounting", optarg);
		break;
	case 'o': o->output = optarg; break;
	case OPT_NAME:
		if (!stat_name_valid(optarg))
			cli_usage_error(PROG, "--name must be 1 to %d letters, digits, '.', '_' or '-', "
					"not starting with '.' or '-': '%s'", STAT_NAME_MAX, optarg);
		o->name = optarg;
		break;
	case OPT_STAT_GROUP: {
		char err[160];
		if (stat_group_parse(optarg, &o->stat_group, err, sizeof(err)) < 0)
			cli_usage_error(PROG, "--stat-group: %s", err);
		o->stat_shared = true;
		break;
	}
	default:
		cli_common_option(PROG, c, OPT_VERSION, usage);
	}
}

void run_parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .model = "p6", .backend = "perf", .append = "", .vcpus = 1,
			    .mem_mb = 64, .timeout_s = 60, .cpumodel = -1, .stepping = -1,
			    .pmu_version = -1, .nr_general = -1, .nr_fixed = -1 };
	int c;
	cli_init(argv, PROG);
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1)
		option(c, o);
	if (optind < argc)
		o->image = argv[optind++];
	if (optind < argc)
		cli_usage_error(PROG, "one IMAGE only: '%s' is a second one", argv[optind]);
	/* An IMAGE, or a Linux kernel (QEMU's -kernel/-initrd/-append); kvmclock
	 * is for Linux guests only. */
	if (!o->image && !o->kernel)
		cli_usage_error(PROG, "no IMAGE given (or --kernel bzImage)");
	if (o->image && o->kernel)
		cli_usage_error(PROG, "--kernel boots Linux instead of an IMAGE: give one of "
				"them, not '%s' too", o->image);
	if (o->initrd && !o->kernel)
		cli_usage_error(PROG, "--initrd is for a Linux guest: give --kernel too");
	if (o->no_kvmclock && !o->kernel)
		cli_usage_error(PROG, "--no-kvmclock is for a Linux guest: give --kernel too");
	if (o->stat_shared && !o->name)
		cli_usage_error(PROG, "--stat-group is for the live accounting: give --name too");
	if (o->kernel && !o->mem_given)
		o->mem_mb = 256;   /* a 686 kernel needs ~48 MiB, amd64 ~96 MiB, plus the initrd */
	struct vpmu_model_info mi;
	if (o->ht && vpmu_model_info(o->model, &mi) == 0 && !mi.hyper_threading)
		cli_usage_error(PROG, "--ht: the %s model's CPUs had no hyper-threading (p4 and "
				"p4-em64t had)", o->model);
	/* --tap's standard output is the guest's TAP stream (the test harness
	 * reads it): a document cannot share it. */
	if (o->tap && o->accounting != ACCT_TEXT && !o->output)
		cli_usage_error(PROG, "--tap writes TAP to standard output: write the %s "
				"accounting to a file with --output FILE",
				o->accounting == ACCT_JSON ? "json" : o->accounting == ACCT_DOMSTATS ?
				"domstats" : "prometheus");
}

FILE *run_accounting_output(const struct opts *o)
{
	if (o->output || o->accounting == ACCT_TEXT)
		return cli_output(PROG, o->output, EXIT_VMM_ERROR);
	/* The document keeps the original standard output (a new descriptor);
	 * descriptor 1, and with it the console, the guest's reports and the
	 * TAP plan, becomes standard error. */
	fflush(stdout);
	int fd = dup(STDOUT_FILENO);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		fprintf(stderr, "%s: cannot keep standard output for the accounting: %s\n", PROG,
			strerror(errno));
		exit(EXIT_VMM_ERROR);
	}
	return f;
}
