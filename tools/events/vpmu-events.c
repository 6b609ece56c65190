/* SPDX-License-Identifier: MIT */
/*
 * vpmu-events [MODEL...] : list the CPU models libvpmu emulates, or for each MODEL
 * its registers, event encodings (with their generic events) and perfctr rules.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "vpmu/backend.h"
#include "vpmu/vpmu.h"
#include "common/cli.h"

#define PROG "vpmu-events"

static void list_models(void)
{
	for (unsigned i = 0; i < vpmu_model_count(); i++) {
		struct vpmu_model_info mi;
		if (vpmu_model_info(vpmu_model_name(i), &mi) == 0)
			printf("%-12s %s\n", mi.name, mi.description);
	}
}

/* The counters a VM of the model's default identity has: "2 x 40 bits", or
 * with a gap in their numbers "1 x 32 bits (counter 1)". */
static void print_counters(const struct vpmu_model_info *mi, const struct vpmu_pmu_info *pi)
{
	unsigned n = (unsigned)__builtin_popcountll(pi->ctr_regs);
	if (pi->nr_fixed) {
		printf("  counters: %u general x %u bits, %u fixed x %u bits, overflow interrupts: %s\n",
		       pi->nr_general, pi->general_width, pi->nr_fixed, pi->fixed_width,
		       mi->overflow_interrupts ? "yes" : "no");
		return;
	}
	printf("  counters: %u x %u bits", n, mi->ctr_width);
	if (pi->ctr_regs != (n < 64 ? (1ull << n) - 1 : ~0ull)) {
		const char *sep = " (counter";
		for (unsigned i = 0; i < 64; i++)
			if ((pi->ctr_regs >> i) & 1)
				printf("%s %u", sep, i), sep = ",";
		printf(")");
	}
	printf(", overflow interrupts: %s\n", mi->overflow_interrupts ? "yes" : "no");
}

/* What a VM of the model's default identity has (its refresh op may leave out
 * registers that the model's other CPUs have: the P4's IQ_ESCRs), on the sim
 * backend, which touches no host. */
static int show_model(const char *name)
{
	struct vpmu_model_info mi;
	if (vpmu_model_info(name, &mi))
		return 1;
	struct vpmu_sim *sim = NULL;
	struct vpmu_host *host = NULL;
	struct vpmu_vm *vm = NULL;
	struct vpmu_backend be;
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_pmu_info pi;
	cfg.model = name;
	int err = vpmu_sim_create(1, &sim);
	if (!err) {
		vpmu_sim_backend(sim, &be);
		err = vpmu_host_create(&be, 1, &host);
	}
	if (!err)
		err = vpmu_vm_create(host, &cfg, &vm);
	if (!err)
		err = vpmu_vm_pmu(vm, &pi);
	if (err) {
		fprintf(stderr, PROG ": %s: cannot make a VM of it: %s\n", name, strerror(-err));
	} else {
		const char *space = mi.regspace == VPMU_SPACE_SPR ? "SPR" : "MSR";
		printf("model %s: %s\n", mi.name, mi.description);
		printf("  cpuid: %s family %u model %u stepping %u\n", mi.vendor ? mi.vendor : "-",
		       mi.family, mi.cpumodel, mi.stepping);
		print_counters(&mi, &pi);
		if (pi.version)
			printf("  architectural performance monitoring version %u\n", pi.version);
		printf("  LVTPC masked on PMI delivery: %s; hyper-threading: %s; PMU calls: %s\n",
		       mi.pmi_automask ? "yes" : "no (default identity)",
		       mi.hyper_threading ? "yes" : "no", mi.calls ? "yes" : "no");
		printf("  registers (%s):\n", space);
		for (unsigned i = 0; i < mi.nr_regs; i++) {
			uint32_t addr;
			const char *kind;
			vpmu_model_reg(name, i, &addr, &kind);
			enum vpmu_regspace rs = !strcmp(kind, "state") ? VPMU_SPACE_STATE : mi.regspace;
			if (vpmu_vm_owns_reg(vm, rs, addr))
				printf("    0x%-10" PRIx32 " %s\n", addr, kind);
		}
		printf("  events (encoding/match -> generic):\n");
		for (unsigned i = 0; i < mi.nr_events; i++) {
			uint64_t code, match;
			const char *en;
			int gen;
			vpmu_model_event(name, i, &code, &match, &en, &gen);
			printf("    0x%04" PRIx64 "/0x%04" PRIx64 "  %-32s %s\n", code, match, en,
			       gen >= 0 ? vpmu_event_name((enum vpmu_event)gen) : "(counts zero)");
		}
		printf("  perfctr rules (strict: #GP; default: recorded):\n");
		for (unsigned i = 0; i < mi.nr_rules; i++) {
			const char *rn, *text;
			vpmu_model_rule(name, i, &rn, &text);
			printf("    %-22s %s\n", rn, text);
		}
	}
	if (vm)
		vpmu_vm_destroy(vm);
	if (host)
		vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return err ? 1 : 0;
}

static void usage(void)
{
	printf("Usage: vpmu-events [OPTION]... [MODEL]...\n"
	       "Without MODEL, lists the CPU models libvpmu emulates; with MODEL (any case:\n"
	       "P6 is p6), its CPUID identity, counters, registers, event encodings with\n"
	       "their generic events, and perfctr rules.\n"
	       "\n"
	       "  -h, --help     display this help and exit\n"
	       "      --version  output version information and exit\n"
	       "\n"
	       "Exit status: 0, or 2 on a usage error (an unknown option or MODEL).\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	cli_init(argv, PROG);
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage();
			cli_help_done(PROG);
		}
		if (c == 'V')
			cli_version(PROG);
		cli_usage_error(PROG, NULL);
	}
	/* Every name is checked before anything is printed: a typo is a usage
	 * error that lists the models, not a half-printed listing. */
	for (int i = optind; i < argc; i++)
		cli_model(PROG, NULL, argv[i]);
	if (optind == argc)
		list_models();
	int rc = 0;
	for (int i = optind; i < argc; i++)
		rc |= show_model(cli_model(PROG, NULL, argv[i]));
	return cli_output_close(PROG, stdout, NULL) < 0 || rc ? 1 : 0;
}
