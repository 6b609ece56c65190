/* SPDX-License-Identifier: MIT */
/*
 * vpmu-events [--json] [--decode ENCODING] [MODEL [EVENT...]]... : list the CPU
 * models libvpmu emulates, or for each MODEL its registers, generic event
 * encodings, perfctr rules and every event of its event table (docs/events.md);
 * with EVENT names, those events described; with --decode, the event an event
 * select value programs.  --json prints the same for tools.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "vpmu/backend.h"
#include "vpmu/event_table.h"
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

/* "0-3", "0,2,3": the counters of a mask. */
static void counter_list(char *buf, size_t n, uint64_t mask)
{
	size_t len = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < 64 && len < n; i++) {
		if (!((mask >> i) & 1) || (i && (mask >> (i - 1)) & 1))
			continue;
		unsigned j = i;
		while (j + 1 < 64 && (mask >> (j + 1)) & 1)
			j++;
		int w = j > i ? snprintf(buf + len, n - len, "%s%u-%u", len ? "," : "", i, j)
			      : snprintf(buf + len, n - len, "%s%u", len ? "," : "", i);
		len += w > 0 ? (size_t)w : 0;
	}
}

/* Its encoding as perf writes a raw event ("event=0xc0,umask=0x00,cmask=1,inv"),
 * its MSR value, or its fixed counter. */
static void encoding_text(char *buf, size_t n, const struct vpmu_event_info *e, bool umask)
{
	if (e->fixed_counters && !e->counters) {
		char c[64];
		counter_list(c, sizeof(c), e->fixed_counters);
		snprintf(buf, n, "fixed counter %s", c);
		return;
	}
	int w = umask ? snprintf(buf, n, "event=0x%02x,umask=0x%02x", e->event, e->umask)
		      : snprintf(buf, n, "event=0x%02x", e->event);
	size_t len = w > 0 && (size_t)w < n ? (size_t)w : 0;
	if (e->cmask)
		len += (size_t)snprintf(buf + len, n - len, ",cmask=%u", e->cmask);
	if (len < n && e->inv)
		len += (size_t)snprintf(buf + len, n - len, ",inv");
	if (len < n && e->edge)
		len += (size_t)snprintf(buf + len, n - len, ",edge");
	if (len < n && e->any_thread)
		len += (size_t)snprintf(buf + len, n - len, ",any");
	if (len < n && e->msr_index)
		snprintf(buf + len, n - len, ",msr=0x%" PRIx32 ":0x%" PRIx64, e->msr_index, e->msr_value);
}

static bool has_umask(const char *pmu)
{
	return strcmp(pmu, "p5") && strcmp(pmu, "winchip-c6") && strcmp(pmu, "winchip2") && strcmp(pmu, "p4");
}

static json_object *event_json(const struct vpmu_event_info *e)
{
	json_object *o = json_object_new_object(), *c = json_object_new_array(),
		    *f = json_object_new_array();
	json_object_object_add(o, "name", json_object_new_string(e->name));
	json_object_object_add(o, "event", json_object_new_int64(e->event));
	json_object_object_add(o, "umask", json_object_new_int64(e->umask));
	json_object_object_add(o, "cmask", json_object_new_int64(e->cmask));
	json_object_object_add(o, "inv", json_object_new_boolean(e->inv));
	json_object_object_add(o, "edge", json_object_new_boolean(e->edge));
	json_object_object_add(o, "any_thread", json_object_new_boolean(e->any_thread));
	json_object_object_add(o, "encoding", json_object_new_uint64(e->encoding));
	json_object_object_add(o, "msr_index", json_object_new_int64(e->msr_index));
	json_object_object_add(o, "msr_value", json_object_new_uint64(e->msr_value));
	for (unsigned i = 0; i < 64; i++)
		if ((e->counters >> i) & 1)
			json_object_array_add(c, json_object_new_int64(i));
	for (unsigned i = 0; i < 32; i++)
		if ((e->fixed_counters >> i) & 1)
			json_object_array_add(f, json_object_new_int64(i));
	json_object_object_add(o, "counters", c);
	json_object_object_add(o, "fixed_counters", f);
	json_object_object_add(o, "pebs", json_object_new_boolean(e->pebs));
	json_object_object_add(o, "deprecated", json_object_new_boolean(e->deprecated));
	json_object_object_add(o, "offcore", json_object_new_boolean(e->offcore));
	json_object_object_add(o, "taken_alone", json_object_new_boolean(e->taken_alone));
	json_object_object_add(o, "errata", e->errata ? json_object_new_string(e->errata) : NULL);
	json_object_object_add(o, "generic",
			       e->generic >= 0 ? json_object_new_string(vpmu_event_name(e->generic)) : NULL);
	json_object_object_add(o, "description", json_object_new_string(e->description));
	return o;
}

/* One event, described (vpmu-events MODEL EVENT, --decode). */
static void describe(const char *pmu, const char *table, const struct vpmu_event_info *e)
{
	char enc[160], ctr[64];
	encoding_text(enc, sizeof(enc), e, has_umask(pmu));
	printf("%s\n  encoding: %s (event select bits 0x%04" PRIx64 ")\n", e->name, enc, e->encoding);
	counter_list(ctr, sizeof(ctr), e->counters);
	if (e->counters)
		printf("  counters: %s\n", ctr);
	if (e->fixed_counters) {
		counter_list(ctr, sizeof(ctr), e->fixed_counters);
		printf("  fixed counters: %s\n", ctr);
	}
	if (e->pebs || e->deprecated || e->offcore || e->taken_alone || e->errata)
		printf("  flags:%s%s%s%s%s%s\n", e->pebs ? " PEBS" : "", e->deprecated ? " deprecated" : "",
		       e->offcore ? " offcore" : "", e->taken_alone ? " taken-alone" : "",
		       e->errata ? " errata " : "", e->errata ? e->errata : "");
	if (e->generic >= 0)
		printf("  generic event: %s\n", vpmu_event_name(e->generic));
	if (*e->description)
		printf("  description: %s\n", e->description);
	else   /* data whose prose the library does not carry (docs/events.md) */
		printf("  description: in vpmu-events-%s(7)\n", table);
}

/* The events of MODEL's table: all of them (names NULL), the named ones, or
 * the one the --decode value programs; as text or added to the JSON object. */
static int show_events(const char *model, char **names, int nr_names, const char *decode,
		       json_object *jo)
{
	const char *table, *pmu, *source;
	unsigned nr;
	if (vpmu_events_table(model, &table, &pmu, &source, &nr))
		return 0;
	json_object *ja = NULL;
	if (jo) {
		json_object_object_add(jo, "table", json_object_new_string(table));
		json_object_object_add(jo, "pmu", json_object_new_string(pmu));
		json_object_object_add(jo, "source", json_object_new_string(source));
		ja = json_object_new_array();
		json_object_object_add(jo, "events", ja);
	}
	struct vpmu_event_info e;
	if (decode) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(decode, &end, 0);
		unsigned i;
		if (errno || end == decode || *end)
			cli_usage_error(PROG, "--decode: '%s' is not a number", decode);
		if (vpmu_events_decode(model, v, 0, &i) || vpmu_events_get(model, i, &e)) {
			fprintf(stderr, PROG ": %s: 0x%llx is no event of table %s\n", model, v, table);
			return 1;
		}
		/* The decode falls back to the event select and unit mask alone: say
		 * which modifiers (CMASK, INV, E, AnyThread) the value adds. */
		uint64_t mods = 0xFFull << 24 | 1ull << 23 | 1ull << 21 | 1ull << 18;
		bool extra = has_umask(pmu) && ((v ^ e.encoding) & mods);
		if (ja) {
			json_object *o = event_json(&e);
			json_object_object_add(o, "modifiers_not_in_data", json_object_new_boolean(extra));
			json_object_array_add(ja, o);
		} else {
			printf("%s: 0x%llx is ", model, v), describe(pmu, table, &e);
			if (extra)
				printf("  note: 0x%llx also sets modifiers the data does not list for it "
				       "(counter mask, INV, E or AnyThread: bits 0x%llx)\n",
				       v, (unsigned long long)((v ^ e.encoding) & mods));
		}
		return 0;
	}
	if (nr_names) {
		for (int k = 0; k < nr_names; k++) {
			unsigned i;
			if (vpmu_events_find(model, names[k], &i) || vpmu_events_get(model, i, &e))
				continue;
			if (ja)
				json_object_array_add(ja, event_json(&e));
			else
				printf("%s ", model), describe(pmu, table, &e);
		}
		return 0;
	}
	if (!ja)
		printf("  events (%u, table %s: %s):\n", nr, table, source);
	for (unsigned i = 0; i < nr; i++) {
		char enc[160], ctr[64];
		vpmu_events_get(model, i, &e);
		if (ja) {
			json_object_array_add(ja, event_json(&e));
			continue;
		}
		encoding_text(enc, sizeof(enc), &e, has_umask(pmu));
		counter_list(ctr, sizeof(ctr), e.counters);
		printf("    %-48s %-36s %s%s\n", e.name, enc, e.counters ? "counters " : "",
		       e.counters ? ctr : "");
	}
	return 0;
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
		printf("  generic events (encoding/match -> generic):\n");
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

/* --host: the CPU this runs on and its event table, which the perf backend
 * translates guest events into (docs/integration.md "Guest events on the
 * host").  0 with a table, 1 without. */
static int show_host(bool json)
{
	char vendor[13];
	unsigned family, model, stepping;
	const char *table = NULL;
	int r = vpmu_events_host_cpu(vendor, &family, &model, &stepping);
	if (r == 0)
		vpmu_events_host_table(vendor, family, model, stepping, &table);
	if (json) {
		json_object *o = json_object_new_object();
		if (r == 0) {
			json_object_object_add(o, "vendor", json_object_new_string(vendor));
			json_object_object_add(o, "family", json_object_new_int64(family));
			json_object_object_add(o, "model", json_object_new_int64(model));
			json_object_object_add(o, "stepping", json_object_new_int64(stepping));
		}
		json_object_object_add(o, "table", table ? json_object_new_string(table) : NULL);
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_SPACED));
		json_object_put(o);
	} else if (r < 0) {
		printf("host CPU: unknown (%s): guest events count as their generic events\n",
		       strerror(-r));
	} else if (table) {
		printf("host CPU: %s family 0x%X model 0x%X stepping %u: the %s events\n", vendor,
		       family, model, stepping, table);
	} else {
		printf("host CPU: %s family 0x%X model 0x%X stepping %u: no event table; guest "
		       "events count as their generic events\n", vendor, family, model, stepping);
	}
	return table ? 0 : 1;
}

static void usage(void)
{
	printf("Usage: vpmu-events [OPTION]... [MODEL [EVENT]...]...\n"
	       "Without MODEL, lists the CPU models libvpmu emulates; with MODEL (any case:\n"
	       "P6 is p6), its CPUID identity, counters, registers, generic event encodings,\n"
	       "perfctr rules, and every event of its event table (name, encoding, counters).\n"
	       "EVENT names after a MODEL describe those events of its table: encoding,\n"
	       "counters, flags and description.\n"
	       "\n"
	       "      --decode=VALUE  describe the event an event select VALUE programs\n"
	       "                      (USR, OS, INT, EN and the like are ignored)\n"
	       "      --host          the CPU this runs on and its event table, whose events\n"
	       "                      count a guest's events of the same name and encoding\n"
	       "      --json          print JSON: an array with one object per MODEL\n"
	       "  -h, --help          display this help and exit\n"
	       "      --version       output version information and exit\n"
	       "\n"
	       "Exit status: 0; 1 if VALUE programs no event of the table, or the host CPU\n"
	       "has no event table (--host); 2 on a usage error (an unknown option, MODEL\n"
	       "or EVENT).\n");
}

/* The model called name, in any case (NULL: none). */
static const char *model_named(const char *name)
{
	for (unsigned i = 0; i < vpmu_model_count(); i++)
		if (!strcasecmp(vpmu_model_name(i), name))
			return vpmu_model_name(i);
	return NULL;
}

static json_object *model_json(const char *name)
{
	struct vpmu_model_info mi;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "model", json_object_new_string(name));
	if (vpmu_model_info(name, &mi) == 0)
		json_object_object_add(o, "description", json_object_new_string(mi.description));
	return o;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 'j' },
		{ "decode", required_argument, NULL, 'd' },
		{ "host", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	bool json = false, host = false;
	const char *decode = NULL;
	cli_init(argv, PROG);
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'd')
			decode = optarg;
		else if (c == 'H')
			host = true;
		else
			cli_common_option(PROG, c, 'V', usage);
	}
	if (host) {
		if (optind < argc || decode)
			cli_usage_error(PROG, "--host takes no MODEL and no --decode");
		int rc = show_host(json);
		return cli_output_close(PROG, stdout, NULL) < 0 ? 1 : rc;
	}
	/* Every name is checked before anything is printed: a typo is a usage
	 * error that lists the models, not a half-printed listing.  A name that
	 * is not a model is an event of the model before it. */
	const char *model = NULL;
	for (int i = optind; i < argc; i++) {
		unsigned idx;
		const char *m = model_named(argv[i]);
		if (m)
			model = m;
		else if (!model || vpmu_events_find(model, argv[i], &idx))
			cli_model(PROG, NULL, argv[i]);
	}
	if (decode && optind == argc)
		cli_usage_error(PROG, "--decode needs a MODEL");
	json_object *ja = json ? json_object_new_array() : NULL;
	if (optind == argc) {
		if (!ja)
			list_models();
		for (unsigned i = 0; ja && i < vpmu_model_count(); i++)
			json_object_array_add(ja, model_json(vpmu_model_name(i)));
	}
	int rc = 0;
	for (int i = optind; i < argc;) {
		const char *m = model_named(argv[i]);
		int k = i + 1;
		while (k < argc && !model_named(argv[k]))
			k++;
		if (ja) {
			json_object *jo = model_json(m);
			json_object_array_add(ja, jo);
			rc |= show_events(m, argv + i + 1, k - i - 1, decode, jo);
		} else if (k > i + 1 || decode) {
			rc |= show_events(m, argv + i + 1, k - i - 1, decode, NULL);
		} else {
			rc |= show_model(m);
			rc |= show_events(m, NULL, 0, NULL, NULL);
		}
		i = k;
	}
	if (ja) {
		puts(json_object_to_json_string_ext(ja, JSON_C_TO_STRING_PRETTY |
							JSON_C_TO_STRING_SPACED |
							JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(ja);
	}
	return cli_output_close(PROG, stdout, NULL) < 0 || rc ? 1 : 0;
}
