/* SPDX-License-Identifier: MIT */
/*
 * vpmu-events [MODEL...] : list the CPU models libvpmu emulates, or for each MODEL
 * its registers, event encodings (with their generic events) and perfctr rules.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "vpmu/vpmu.h"

static void list_models(void)
{
	for (unsigned i = 0; i < vpmu_model_count(); i++) {
		struct vpmu_model_info mi;
		if (vpmu_model_info(vpmu_model_name(i), &mi) == 0)
			printf("%-12s %s\n", mi.name, mi.description);
	}
}

static int show_model(const char *name)
{
	struct vpmu_model_info mi;
	if (vpmu_model_info(name, &mi)) {
		fprintf(stderr, "vpmu-events: unknown model '%s' (run without arguments for the list)\n", name);
		return 1;
	}
	const char *space = mi.regspace == VPMU_SPACE_SPR ? "SPR" : "MSR";
	printf("model %s: %s\n", mi.name, mi.description);
	printf("  cpuid: %s family %u model %u stepping %u\n", mi.vendor ? mi.vendor : "-", mi.family,
	       mi.cpumodel, mi.stepping);
	if (mi.nr_fixed)
		printf("  counters: %u general x %u bits, %u fixed x %u bits, overflow interrupts: %s\n",
		       mi.nr_general, mi.ctr_width, mi.nr_fixed, mi.fixed_width,
		       mi.overflow_interrupts ? "yes" : "no");
	else
		printf("  counters: %u x %u bits, overflow interrupts: %s\n", mi.nr_ctrs, mi.ctr_width,
		       mi.overflow_interrupts ? "yes" : "no");
	if (mi.pmu_version)
		printf("  architectural performance monitoring version %u\n", mi.pmu_version);
	printf("  LVTPC masked on PMI delivery: %s; hyper-threading: %s; PMU calls: %s\n",
	       mi.pmi_automask ? "yes" : "no (default identity)",
	       mi.hyper_threading ? "yes" : "no", mi.calls ? "yes" : "no");
	printf("  registers (%s):\n", space);
	for (unsigned i = 0; i < mi.nr_regs; i++) {
		uint32_t addr;
		const char *kind;
		vpmu_model_reg(name, i, &addr, &kind);
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
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: vpmu-events [MODEL...]\n"
		       "Without arguments, lists the models; with MODEL, its registers, events and rules.\n");
		return 0;
	}
	if (argc == 1) {
		list_models();
		return 0;
	}
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= show_model(argv[i]);
	return rc;
}
