/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run's command line on RISC-V (docs/riscv.md, "vpmu-run on RISC-V"):
 * getopt_long(3) with the GNU conventions of tools/common/cli.h, as the x86
 * vpmu-run's (tools/run/run_args.c), for a Linux Image only.  What can be
 * decided without KVM is decided here, with exit status 2.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "riscv_run.h"

#define PROG "vpmu-run"

static void usage(void)
{
	printf(
"Usage: vpmu-run [OPTION]... --kernel Image [--initrd FILE] [--append CMDLINE]\n"
"Boots a RISC-V Linux Image under KVM with libvpmu's SBI PMU (the patched KVM\n"
"of docs/riscv.md) and prints the PMU's accounting when the guest powers off.\n"
"\n"
"      --model=M          the PMU model: riscv-sbi by default\n"
"      --strict           calls that break the model's rules are refused\n"
"      --backend=B        perf (default: what the host counts) or sim (nothing)\n"
"      --no-pmu           no libvpmu: KVM's own SBI PMU, if it has one\n"
"      --vcpus=N          1 to %d harts (default 1)\n"
"      --mem=MB           guest memory, 16 to 3072 MiB (default 256)\n"
"      --timeout=S        stop the guest after S seconds, status 124 (60)\n"
"      --kernel=Image     the Linux Image (raw, not compressed)\n"
"      --initrd=FILE      its initramfs\n"
"      --append=CMDLINE   the kernel's command line (the device tree's bootargs)\n"
"      --accounting=F     text (default), domstats or prometheus\n"
"  -o, --output=FILE      the accounting to FILE instead of standard output\n"
"  -h, --help             display this help and exit\n"
"      --version          output version information and exit\n"
"\n"
"The guest's console is the SBI debug console, on standard output (standard\n"
"error when a document of the accounting has standard output).\n"
"Exit status: 0 when the guest powers off (SBI system reset, no reason), 1 on a\n"
"system-failure reset; 124 on --timeout; 125 on a VMM or KVM error; 2 on a\n"
"usage error.\n", RV_MAX_VCPUS);
}

enum {
	OPT_MODEL = 256, OPT_STRICT, OPT_BACKEND, OPT_NO_PMU, OPT_VCPUS, OPT_MEM, OPT_TIMEOUT,
	OPT_KERNEL, OPT_INITRD, OPT_APPEND, OPT_ACCOUNTING, OPT_VERSION,
};

static const struct option longopts[] = {
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "no-pmu", no_argument, NULL, OPT_NO_PMU },
	{ "vcpus", required_argument, NULL, OPT_VCPUS },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "initrd", required_argument, NULL, OPT_INITRD },
	{ "append", required_argument, NULL, OPT_APPEND },
	{ "accounting", required_argument, NULL, OPT_ACCOUNTING },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static void option(int c, struct rv_opts *o)
{
	switch (c) {
	case OPT_MODEL: o->model = cli_model(PROG, "--model", optarg); break;
	case OPT_STRICT: o->strict = true; break;
	case OPT_BACKEND:
		if (strcmp(optarg, "perf") && strcmp(optarg, "sim"))
			cli_usage_error(PROG, "--backend must be perf or sim, not '%s'", optarg);
		o->backend = optarg;
		break;
	case OPT_NO_PMU: o->no_pmu = true; break;
	case OPT_VCPUS: o->vcpus = cli_uint(PROG, optarg, "--vcpus", 1, RV_MAX_VCPUS); break;
	case OPT_MEM: o->mem_mb = cli_uint(PROG, optarg, "--mem", 16, 3072); break;
	case OPT_TIMEOUT: o->timeout_s = cli_uint(PROG, optarg, "--timeout", 1, 86400); break;
	case OPT_KERNEL: o->kernel = optarg; break;
	case OPT_INITRD: o->initrd = optarg; break;
	case OPT_APPEND: o->append = optarg; break;
	case OPT_ACCOUNTING:
		o->accounting = (enum acct_format)cli_acct_format(PROG, "--accounting", optarg);
		/* The JSON writer is json-c's, which the static riscv64 build
		 * does not link (docs/riscv.md). */
		if (o->accounting == ACCT_JSON)
			cli_usage_error(PROG, "--accounting json is not in the RISC-V build (no "
					"json-c): use text, domstats or prometheus");
		break;
	case 'o': o->output = optarg; break;
	default:
		cli_common_option(PROG, c, OPT_VERSION, usage);
	}
}

void rv_parse_args(int argc, char **argv, struct rv_opts *o)
{
	*o = (struct rv_opts){ .model = "riscv-sbi", .backend = "perf", .append = "", .vcpus = 1,
			       .mem_mb = 256, .timeout_s = 60 };
	int c;
	cli_init(argv, PROG);
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1)
		option(c, o);
	if (optind < argc)
		cli_usage_error(PROG, "the RISC-V vpmu-run boots a Linux Image: give it with "
				"--kernel, not as '%s'", argv[optind]);
	if (!o->kernel)
		cli_usage_error(PROG, "no --kernel Image given");
	if (o->no_pmu && (o->strict || strcmp(o->backend, "perf")))
		cli_usage_error(PROG, "--no-pmu runs without libvpmu: --strict and --backend "
				"do not apply");
}
