/* SPDX-License-Identifier: MIT */
/*
 * The generated event tables (vpmu/events.h, docs/events.md):
 *   1. every table's O(1) decode finds every event of its catalogue from an
 *      event select image with the non-selecting bits set (USR, OS, INT, EN),
 *      and its MSR value for offcore/matrix events; and it agrees with a linear
 *      walk of the catalogue on every event select x a set of unit masks;
 *   2. the identity map: signatures from Intel's mapfile.csv and tables.csv
 *      select their table, only among one PMU's;
 *   3. a VM's table (struct vpmu_pmu.table): by its CPUID identity, the
 *      model's own otherwise, and the generic rows stay the model's;
 *   4. the public queries (include/vpmu/event_table.h).
 */
#include <errno.h>
#include <string.h>

#include "core.h"
#include "events.h"
#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/event_table.h"
#include "vpmu/vpmu.h"

#define SEL_USR (1ull << 16)
#define SEL_OS (1ull << 17)
#define SEL_INT (1ull << 20)
#define SEL_EN (1ull << 22)

/* The first entry whose key (and MSR value) is the image's, as the hash was
 * built: exact keys first, then the event select and unit mask alone. */
static const struct vpmu_event_entry *linear(const struct vpmu_event_table *t, uint64_t image,
					     uint64_t aux)
{
	uint64_t k = image & t->key_mask;
	for (unsigned pass = 0; pass < 3; pass++)
		for (unsigned i = 0; i < t->nr; i++) {
			const struct vpmu_event_entry *e = &t->ev[i];
			if (e->fixed && !e->counters)
				continue;
			uint64_t ea = e->msr_index ? e->msr_value : 0;
			/* Its second event select (Intel's "0x2A,0x2B"). */
			uint64_t k2 = e->event2 ? (e->key & ~0xF000000FFull) | (e->event2 & 0xFF) |
							  (uint64_t)(e->event2 >> 8) << 32
						: e->key;
			bool is_k = e->key == k || k2 == k;
			uint64_t k_2 = image & t->key_mask2;
			if (pass == 0 && is_k && ea == aux)
				return e;
			if (pass == 1 && is_k && !aux)
				return e;
			if (pass == 2 && (e->key == k_2 || k2 == k_2))
				return e;
		}
	return NULL;
}

static void test_decode(void)
{
	for (unsigned ti = 0; ti < vpmu_nr_event_tables; ti++) {
		const struct vpmu_event_table *t = vpmu_event_tables[ti];
		if (!t->key_mask) {
			/* The Pentium 4: an event is its ESCR and event select, which
			 * p4_event_of_escr finds (tests/p4_events.t); nothing is hashed. */
			unsigned none = 0;
			for (unsigned i = 0; i < t->nr; i++)
				none += !vpmu_event_decode(t, t->ev[i].event | 0x530000, 0);
			ok(none == t->nr && t->nr > 0 && t->match && t->nr_match > t->nr,
			   "%s: %u events, none hashed, and its generic rows", t->name, t->nr);
			continue;
		}
		bool p5 = t->key_mask == 0x7FF;
		/* Bits outside the key (x86: the privilege, interrupt and enable bits)
		 * never change what an image decodes to. */
		uint64_t extra = p5 ? 0 : (SEL_USR | SEL_OS | SEL_INT | SEL_EN) & ~t->key_mask;
		unsigned found = 0, hashed = 0, bad = 0;
		for (unsigned i = 0; i < t->nr; i++) {
			const struct vpmu_event_entry *e = &t->ev[i];
			if (e->fixed && !e->counters)
				continue;
			hashed++;
			const struct vpmu_event_entry *d =
				vpmu_event_decode(t, e->key | extra, e->msr_index ? e->msr_value : 0);
			/* An alias (same encoding, another name) decodes to the first. */
			if (d && d->key == e->key && d->msr_value == e->msr_value)
				found++;
			else if (bad++ < 3)
				printf("# %s: %s (0x%llx) decodes to %s\n", t->name, e->name,
				       (unsigned long long)e->key, d ? d->name : "nothing");
		}
		ok(found == hashed && hashed > 0, "%s: each of its %u counter events decodes to its entry",
		   t->name, hashed);
		static const unsigned umasks[] = { 0, 1, 2, 3, 4, 8, 0x10, 0x20, 0x40, 0x80, 0xFF };
		unsigned agree = 0, tried = 0;
		for (unsigned ev = 0; ev < (p5 ? 0x800u : 0x100u); ev++)
			for (unsigned u = 0; u < (p5 ? 1u : sizeof(umasks) / sizeof(umasks[0])); u++) {
				uint64_t img = ev | (p5 ? 0 : (uint64_t)umasks[u] << 8) | extra;
				tried++;
				agree += vpmu_event_decode(t, img, 0) == linear(t, img, 0);
			}
		ok(agree == tried, "%s: decode agrees with a linear walk on %u encodings", t->name, tried);
	}
}

static void test_map(void)
{
	static const struct {
		const char *pmu, *vendor;
		unsigned family, model, stepping;
		const struct vpmu_event_table *want;
	} cases[] = {
		{ "intel-arch", "GenuineIntel", 6, 0x5E, 3, &vpmu_events_skylake },
		{ "intel-arch", "GenuineIntel", 6, 0x4E, 0, &vpmu_events_skylake },
		{ "intel-arch", "GenuineIntel", 6, 0x8F, 8, &vpmu_events_sapphirerapids },
		{ "intel-arch", "GenuineIntel", 6, 0x7E, 5, &vpmu_events_icelake },
		{ "intel-arch", "GenuineIntel", 6, 0x1A, 5, &vpmu_events_nehalem },
		{ "intel-arch", "GenuineIntel", 6, 0x0F, 6, &vpmu_events_core2 },
		{ "intel-arch", "GenuineIntel", 6, 0x2E, 0, NULL },  /* NHM-EX: not carried */
		{ "intel-arch", "AuthenticAMD", 6, 0x5E, 3, NULL },
		{ "p6", "GenuineIntel", 6, 0x5E, 3, &vpmu_events_p6 },
		{ "zen", "AuthenticAMD", 0x17, 1, 1, &vpmu_events_zen1 },
		{ "zen", "AuthenticAMD", 0x19, 0x11, 1, &vpmu_events_zen4 },
		{ "k7", "AuthenticAMD", 15, 0x23, 2, &vpmu_events_k8 },
		{ "k7", "AuthenticAMD", 6, 6, 2, &vpmu_events_k7 },
		{ "p5", "GenuineIntel", 5, 4, 3, &vpmu_events_p5mmx },
		{ "p5", "CyrixInstead", 6, 0, 2, &vpmu_events_cyrix },
		{ "zen", "AuthenticAMD", 0x1A, 0, 0, NULL },
		{ "p4", "GenuineIntel", 15, 4, 3, &vpmu_events_p4 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct vpmu_event_table *t = vpmu_event_table_of(
			cases[i].pmu, cases[i].vendor, cases[i].family, cases[i].model, cases[i].stepping);
		ok(t == cases[i].want, "%s %s family 0x%X model 0x%X: %s", cases[i].pmu, cases[i].vendor,
		   cases[i].family, cases[i].model, cases[i].want ? cases[i].want->name : "no table");
	}
}

static void test_vm(void)
{
	struct vpmu_sim *sim = NULL;
	struct vpmu_host *host = NULL;
	struct vpmu_backend be;
	if (vpmu_sim_create(1, &sim) || (vpmu_sim_backend(sim, &be), vpmu_host_create(&be, 1, &host))) {
		ok(0, "a sim host");
		return;
	}
	static const struct {
		const char *model;
		int cpumodel;
		const struct vpmu_event_table *want, *rows;
	} cases[] = {
		{ "skylake", -1, &vpmu_events_skylake, &vpmu_events_skylake },
		{ "nehalem", 0x5E, &vpmu_events_skylake, &vpmu_events_nehalem },
		{ "sapphirerapids", -1, &vpmu_events_sapphirerapids, &vpmu_events_sapphirerapids },
		{ "skylake", 0x66, &vpmu_events_skylake, &vpmu_events_skylake },  /* unmapped: own */
		{ "p6", -1, &vpmu_events_p6, &vpmu_events_p6 },
		{ "mii", -1, &vpmu_events_cyrix, &vpmu_events_cyrix },
		{ "p5", 4, &vpmu_events_p5mmx, &vpmu_events_p5 },
		{ "zen1", -1, &vpmu_events_zen1, &vpmu_events_zen1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
		struct vpmu_vm *vm = NULL;
		cfg.model = cases[i].model;
		cfg.cpumodel = cases[i].cpumodel;
		int r = vpmu_vm_create(host, &cfg, &vm);
		ok(r == 0 && vm->pmu.table == cases[i].want && vm->pmu.events == cases[i].rows->match &&
		   vm->pmu.nr_events == cases[i].rows->nr_match,
		   "a %s VM presenting model %d: table %s, generic rows %s's", cases[i].model,
		   cases[i].cpumodel, cases[i].want->name, cases[i].rows->name);
		if (vm)
			vpmu_vm_destroy(vm);
	}
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
}

static void test_api(void)
{
	const char *name = NULL, *pmu = NULL, *src = NULL;
	unsigned nr = 0, idx = 0;
	ok(vpmu_events_table("6x86mx", &name, &pmu, &src, &nr) == 0 && !strcmp(name, "cyrix") &&
	   !strcmp(pmu, "p5") && nr == vpmu_events_cyrix.nr && strstr(src, "vpmu/cyrix.json"),
	   "vpmu_events_table: model 6x86mx has table cyrix");
	ok(vpmu_events_table("no-such", NULL, NULL, NULL, NULL) == -ENOENT &&
	   vpmu_events_table(NULL, NULL, NULL, NULL, NULL) == -EINVAL,
	   "vpmu_events_table: -ENOENT for an unknown name, -EINVAL for NULL");
	ok(vpmu_events_table_count() == vpmu_nr_event_tables &&
	   !strcmp(vpmu_events_table_name(0), vpmu_event_tables[0]->name) &&
	   !vpmu_events_table_name(vpmu_nr_event_tables), "vpmu_events_table_count/_name");
	struct vpmu_event_info ei;
	ok(vpmu_events_find("skylake", "INST_RETIRED.ANY_P", &idx) == 0 &&
	   vpmu_events_get("skylake", idx, &ei) == 0 && ei.event == 0xC0 && ei.umask == 0 &&
	   ei.counters == 0xF && !ei.fixed_counters && !strcmp(ei.name, "INST_RETIRED.ANY_P"),
	   "skylake INST_RETIRED.ANY_P: event 0xC0, umask 0, counters 0-3");
	unsigned d = ~0u;
	ok(vpmu_events_decode("skylake", 0x5300C0, 0, &d) == 0 && d == idx,
	   "skylake --decode 0x5300c0 is INST_RETIRED.ANY_P");
	ok(vpmu_events_find("skylake", "INST_RETIRED.ANY", &idx) == 0 &&
	   vpmu_events_get("skylake", idx, &ei) == 0 && ei.fixed_counters == 1 && !ei.counters,
	   "skylake INST_RETIRED.ANY: fixed counter 0");
	ok(vpmu_events_decode("p4", 0x5300C0, 0, &d) == -ENOENT &&
	   vpmu_events_get("skylake", ~0u, &ei) == -ENOENT &&
	   vpmu_events_find("skylake", "NO_SUCH_EVENT", &idx) == -ENOENT,
	   "-ENOENT: the P4's table (no catalogue), an index past the end, an unknown name");
}

int main(void)
{
	test_decode();
	test_map();
	test_vm();
	test_api();
	return tap_done();
}
