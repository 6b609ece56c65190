/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run --event-filter's files (tools/run/run_filter.c; docs/vpmu-run.md,
 * "Event filter files"): what a good file sets, each malformed line refused
 * with FILE:LINE and nothing changed, names resolved against the VM (an
 * unknown one named by its line), and the cross-tenant preset on an Intel and
 * an AMD VM with the sim backend.
 */
#include <errno.h>
#include <string.h>

#include "guest_msr.h"
#include "run/run_filter.h"
#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

static struct run_filter rf;

static int parse(const char *text, char *err, size_t errlen)
{
	return run_filter_parse(text, strlen(text), "f.flt", &rf, err, errlen);
}

static void test_good(void)
{
	char err[256] = "";
	int r = parse("# a comment\n"
		      "action deny   # trailing comment\n"
		      "\n"
		      "event 0xC0 0\n"
		      "event 0x1C0 0x3\n"
		      "fixed 1\n"
		      "fixed 0\n"
		      "name INST_RETIRED\n", err, sizeof(err));
	ok(r == 0, "a good file parses (%s)", err);
	ok(rf.action == VPMU_FILTER_DENY && rf.flags == 0 && rf.fixed == 0x3, "action deny, fixed 0 and 1");
	ok(rf.nevents == 2 && rf.events[0] == 0xC0 && rf.events[1] == (0xC0 | 0x300 | (1ull << 32)),
	   "event lines: event | umask << 8, event bits 11:8 in 35:32");
	ok(rf.event_line[1] == 5 && rf.nnames == 1 && !strcmp(rf.names[0], "INST_RETIRED") &&
	   rf.name_line[0] == 8, "entries remember their lines");
	r = parse("action allow\nmasked 0x2E 0xF0 0x40\nmasked 0x2E 0xFF 0x4F exclude\n", err, sizeof(err));
	ok(r == 0 && rf.flags == VPMU_FILTER_MASKED_EVENTS && rf.action == VPMU_FILTER_ALLOW &&
	   rf.events[0] == VPMU_FILTER_MASKED_ENTRY(0x2E, 0xF0, 0x40, 0) &&
	   rf.events[1] == VPMU_FILTER_MASKED_ENTRY(0x2E, 0xFF, 0x4F, 1), "masked lines");
}

static void test_malformed(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "event 0xC0 0\n", "f.flt: no 'action allow' or 'action deny' line" },
		{ "action maybe\n", "f.flt:1: 'action' takes allow or deny" },
		{ "action deny\naction allow\n", "f.flt:2: a second 'action'" },
		{ "action deny\n\nevent 0x1000 0\n", "f.flt:3: the event select '0x1000' is not a number" },
		{ "action deny\nevent 0xC0\n", "f.flt:2: 'event' takes EVENT UMASK" },
		{ "action deny\nevent 0xC0 0x100\n", "f.flt:2: the unit mask is not a number" },
		{ "action deny\nevent C0 0\n", "f.flt:2: the event select 'C0' is not a number" },
		{ "action deny\nmasked 0x2E 0 0 include\n", "f.flt:2: 'masked' takes EVENT MASK MATCH [exclude]" },
		{ "action deny\nevent 0xC0 0\nmasked 0x2E 0 0\n", "f.flt:3: 'event' and 'masked' lines in one filter (line 2)" },
		{ "action deny\nfixed 32\n", "f.flt:2: 'fixed' takes a counter number from 0 to 31" },
		{ "action deny\nname\n", "f.flt:2: 'name' takes one event name" },
		{ "action deny\ncount 0xC0\n", "f.flt:2: unknown directive 'count'" },
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[256] = "";
		memset(&rf, 0x5A, sizeof(rf));
		int r = parse(bad[i].text, err, sizeof(err));
		bool same = true;
		for (size_t b = 0; b < sizeof(rf); b++)
			same = same && ((unsigned char *)&rf)[b] == 0x5A;
		ok(r == -EINVAL && !strncmp(err, bad[i].want, strlen(bad[i].want)) && same,
		   "malformed %u: '%s', nothing changed", i, err);
	}
	char text[301 * 16] = "action deny\n";
	for (unsigned i = 0; i < 301; i++)
		strcat(text, "event 0xC0 0\n");
	char err[256] = "";
	ok(parse(text, err, sizeof(err)) == -EINVAL && strstr(err, "f.flt:302: more than 300 entries"),
	   "301 entries: refused at the 301st (%s)", err);
}

static struct vpmu_sim *sim;
static struct vpmu_host *host;

static struct vpmu_vm *vm_of(const char *model, struct vpmu_vcpu **v, unsigned cpu)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	cfg.model = model;
	if (vpmu_vm_create(host, &cfg, &vm) || vpmu_vcpu_create(vm, 0, v) ||
	    vpmu_vcpu_switch_in(*v, cpu))
		return NULL;
	return vm;
}

static void test_apply(void)
{
	char err[256] = "";
	struct vpmu_vcpu *v;
	struct vpmu_vm *vm = vm_of("p6", &v, 0);
	ok(parse("action deny\nevent 0x79 0\n\nname NO_SUCH_EVENT\n", err, sizeof(err)) == 0, "parsed");
	ok(run_filter_apply(&rf, vm, err, sizeof(err)) == -ENOENT &&
	   !strcmp(err, "f.flt:4: no event 'NO_SUCH_EVENT' in the VM's event table (vpmu-events p6)"),
	   "an unknown name: its line (%s)", err);
	wr(v, 0x186, 0x430079);
	vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 10, VPMU_MODE_USER);
	is_u64(rd(v, 0xC1), 10, "the refused filter changed nothing: cycles count");
	vpmu_vm_destroy(vm);

	vm = vm_of("p5", &v, 1);
	ok(run_filter_load("cross-tenant", &rf, err, sizeof(err)) == 0 &&
	   run_filter_apply(&rf, vm, err, sizeof(err)) == -EOPNOTSUPP && strstr(err, "p5 model"),
	   "a p5 VM: refused (%s)", err);
	vpmu_vm_destroy(vm);

	vm = vm_of("skylake", &v, 2);
	ok(run_filter_apply(&rf, vm, err, sizeof(err)) == 0, "cross-tenant on skylake (%s)", err);
	wr(v, 0x186, 0x43412E);   /* LLC misses */
	wr(v, 0x187, 0x4300C0);   /* instructions retired */
	wr(v, 0x38F, 0x3);
	vpmu_sim_tick(sim, 2, VPMU_EV_CACHE_MISSES, 30, VPMU_MODE_USER);
	vpmu_sim_tick(sim, 2, VPMU_EV_INSTRUCTIONS, 40, VPMU_MODE_USER);
	is_u64(rd(v, 0xC1), 0, "cross-tenant, Intel: LLC misses count nothing");
	is_u64(rd(v, 0xC2), 40, "cross-tenant, Intel: instructions count");
	vpmu_vm_destroy(vm);

	vm = vm_of("zen1", &v, 3);
	ok(run_filter_apply(&rf, vm, err, sizeof(err)) == 0, "cross-tenant on zen1 (%s)", err);
	struct vpmu_totals t;
	wr(v, 0xC0010000, 0x430843);   /* LsDmndFillsFromSys, DRAM */
	wr(v, 0xC0010001, 0x4300C0);
	vpmu_vcpu_totals(v, &t);
	is_u64(t.filtered, 1, "cross-tenant, AMD: fills from the system filtered, instructions not");
	vpmu_vm_destroy(vm);
}

int main(void)
{
	struct vpmu_backend be;
	if (vpmu_sim_create(4, &sim) || (vpmu_sim_backend(sim, &be), vpmu_host_create(&be, 4, &host))) {
		printf("Bail out! cannot create the sim host\n");
		return 1;
	}
	vpmu_sim_attach(sim, host);
	test_good();
	test_malformed();
	test_apply();
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return tap_done();
}
