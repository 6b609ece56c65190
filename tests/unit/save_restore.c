/* SPDX-License-Identifier: MIT */
/*
 * Save and restore of the virtual PMU state (include/vpmu/save.h), through the
 * public API with the sim backend: a vCPU of VM A counts, is saved, restored
 * into VM B (host CPU 1), and both count on the same; a pending PMI stays
 * pending once; every damaged or foreign blob is refused and leaves the
 * destination as it was (its own save, byte for byte).
 *
 * How each model is made to count comes from its manual (the recipes below),
 * and what a counter reads from the events ticked: nothing is taken from the
 * library's own output but the blobs the refusal tests damage.  The tests
 * that forge a blob know the format from docs/integration.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "guest_msr.h"
#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/save.h"
#include "vpmu/vpmu.h"

static struct vpmu_sim *sim;
static struct vpmu_host *host;

/* A counter that counts every `ev` at any privilege, programmed as the
 * model's manual says (and tests/traces/ replays). */
struct recipe {
	const char *models;  /* space-separated */
	uint32_t reg[2];     /* written in order, with val[] (0: none) */
	uint64_t val[2];
	uint32_t ctr;        /* the counter's register, */
	unsigned pmc;        /* its number */
	enum vpmu_event ev;
};
static const struct recipe recipes[] = {
	/* CESR 0x11: ES0 0x16 instructions executed, CC0 011 any CPL, both
	 * halves (Pentium and Cyrix 6x86MX data books; the Cyrix copies the P5
	 * layout). */
	{ " p5 p5mmx 6x86mx mii cyrix-iii ", { 0x11 }, { 0x00d600d6 }, 0x12, 0, VPMU_EV_INSTRUCTIONS },
	/* WinChip CESR: event 0x02 X86_INSTRUCTIONS (C6), 0x16 (WinChip 2/3). */
	{ " winchip-c6 ", { 0x11 }, { 0x00020002 }, 0x12, 0, VPMU_EV_INSTRUCTIONS },
	{ " winchip2 winchip3 ", { 0x11 }, { 0x00160016 }, 0x12, 0, VPMU_EV_INSTRUCTIONS },
	/* The C3 counts on EVNTSEL1/PERFCTR1 only: 0xC0 instructions, every CPL. */
	{ " c3 ", { 0x187 }, { 0xc0 }, 0xc2, 1, VPMU_EV_INSTRUCTIONS },
	/* EVNTSEL0: INST_RETIRED 0xC0 with USR, OS and EN (Intel SDM vol. 3B). */
	{ " p6 ", { 0x186 }, { 0x4300c0 }, 0xc1, 0, VPMU_EV_INSTRUCTIONS },
	/* PerfEvtSel0: retired instructions 0xC0, USR, OS, EN (AMD APM vol. 2). */
	{ " k7 k8 zen1 zen4 ", { 0xc0010000 }, { 0x4300c0 }, 0xc0010004, 0, VPMU_EV_INSTRUCTIONS },
	/* The architectural event 0xC0 on IA32_PERFEVTSEL0, and counter 0's
	 * enable in IA32_PERF_GLOBAL_CTRL (SDM vol. 3B, "Architectural
	 * Performance Monitoring"). */
	{ " core2 nehalem skylake icelake sapphirerapids ", { 0x186, 0x38f }, { 0x4300c0, 1 },
	  0xc1, 0, VPMU_EV_INSTRUCTIONS },
	/* GLOBAL_POWER_EVENTS (FSB_ESCR0, event 0x13, RUNNING, T0 OS/USR) on
	 * counter 0: CCCR ESCR_SELECT 6, ENABLE, ACTIVE_THREAD 3 (SDM vol. 3B,
	 * Pentium 4 events; Linux arch/x86/events/intel/p4.c). */
	{ " p4 p4-em64t ", { 0x3a2, 0x360 }, { 0x2600020c, 0x3d000 }, 0x300, 0, VPMU_EV_CYCLES },
	{ " generic ppc-generic ", { 0 }, { 0 }, 0, 0, VPMU_EV_CYCLES },   /* no counters */
	/* MMCR0 (SPR 952): PMC1SEL 2, instructions completed, nothing frozen
	 * (MPC7450 RISC Microprocessor Family Reference Manual, "Performance
	 * Monitor"); PMC1 is SPR 953. */
	{ " ppc604 ppc604e ppc750 ppc750fx ppc750gx ppc7400 ppc7410 ppc7450 ppc7455 ppc7447a "
	  "ppc7448 ", { 952 }, { 0x80 }, 953, 0, VPMU_EV_INSTRUCTIONS },
	/* No register write programs the SBI PMU: program() makes the calls
	 * (counter_config_matching with AUTO_START); the instret counter is
	 * counter 2, CSR 0xC02. */
	{ " riscv-sbi ", { 0 }, { 0 }, 0xC02, 2, VPMU_EV_INSTRUCTIONS },
};

static const struct recipe *recipe_of(const char *model)
{
	char key[40];
	snprintf(key, sizeof(key), " %s ", model);
	for (unsigned i = 0; i < sizeof(recipes) / sizeof(recipes[0]); i++)
		if (strstr(recipes[i].models, key))
			return &recipes[i];
	return NULL;
}

/* The register space of a vCPU's model: MSRs (x86) or SPRs (PowerPC). */
static enum vpmu_regspace space_of(struct vpmu_vcpu *v)
{
	struct vpmu_model_info mi;
	if (vpmu_model_info(vpmu_vm_model(vpmu_vcpu_vm(v)), &mi))
		return VPMU_SPACE_MSR;
	return mi.regspace;
}

/* WRMSR/RDMSR or mtspr/mfspr, as the model's CPU has them (guest_msr.h). */
static enum vpmu_fault wr_reg(struct vpmu_vcpu *v, uint32_t reg, uint64_t val)
{
	enum vpmu_fault f = VPMU_FAULT_NONE;
	return vpmu_reg_write(v, space_of(v), reg, val, &f) ? (enum vpmu_fault)-1 : f;
}

static uint64_t rd_reg(struct vpmu_vcpu *v, uint32_t reg)
{
	enum vpmu_fault f = VPMU_FAULT_NONE;
	uint64_t val = 0;
	if (vpmu_reg_read(v, space_of(v), reg, &val, &f) || f != VPMU_FAULT_NONE)
		return ~0ull;
	return val;
}

static struct vpmu_vm *vm_of(const char *model, unsigned flags, int ht)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vm *vm = NULL;
	cfg.model = model;
	cfg.flags = flags;
	cfg.ht = ht;
	return vpmu_vm_create(host, &cfg, &vm) ? NULL : vm;
}

static struct vpmu_vcpu *vcpu_of(struct vpmu_vm *vm, unsigned i)
{
	struct vpmu_vcpu *v = NULL;
	return vm && !vpmu_vcpu_create(vm, i, &v) ? v : NULL;
}

static void program(struct vpmu_vcpu *v, const struct recipe *r)
{
	for (unsigned k = 0; k < 2 && r->reg[k]; k++)
		wr_reg(v, r->reg[k], r->val[k]);
	if (space_of(v) == VPMU_SPACE_CSR) {
		/* SBI v2.0 counter_config_matching(base 0, mask: the counter,
		 * AUTO_START, SBI_PMU_HW_INSTRUCTIONS). */
		const uint64_t a[VPMU_CALL_ARGS] = { 0, 1ull << r->pmc, 0x4, 0x2, 0, 0 };
		struct vpmu_call_result res;
		vpmu_call(v, VPMU_SBI_PMU_COUNTER_CONFIG_MATCHING, a, &res);
	}
}

/* Switch in on host CPU `cpu`, count n events, switch out. */
static void run(struct vpmu_vcpu *v, unsigned cpu, enum vpmu_event ev, uint64_t n)
{
	vpmu_vcpu_switch_in(v, cpu);
	vpmu_sim_tick(sim, cpu, ev, n, VPMU_MODE_USER);
	vpmu_vcpu_switch_out(v);
}

static size_t save(struct vpmu_vcpu *v, uint8_t *buf)
{
	size_t len = 0;
	return vpmu_vcpu_save(v, buf, VPMU_STATE_MAX, &len) ? 0 : len;
}

/* Every register the guest can read reads the same on both. */
static bool same_guest_view(struct vpmu_vcpu *a, struct vpmu_vcpu *b)
{
	uint32_t regs[128];
	unsigned n = vpmu_vm_regs(vpmu_vcpu_vm(a), space_of(a), regs, 128);
	for (unsigned i = 0; i < n && i < 128; i++)
		if (rd_reg(a, regs[i]) != rd_reg(b, regs[i]))
			return false;
	return true;
}

static void test_round_trip(const char *model)
{
	const struct recipe *r = recipe_of(model);
	ok(r != NULL, "%s: the test knows how to make it count", model);
	if (!r)
		return;
	struct vpmu_vm *a = vm_of(model, 0, 0), *b = vm_of(model, 0, 0);
	struct vpmu_vcpu *va = vcpu_of(a, 0), *vb = vcpu_of(b, 0);
	static uint8_t blob[VPMU_STATE_MAX], again[VPMU_STATE_MAX];
	char err[VPMU_STATE_ERR_LEN];
	program(va, r);
	run(va, 0, r->ev, 1000);
	size_t len = save(va, blob);
	ok(len > 0 && len <= 4096, "%s: saved in %zu bytes (at most 4 KiB)", model, len);
	size_t need = 0;
	ok(!vpmu_vcpu_save(va, NULL, 0, &need) && need == len, "%s: the size query says %zu", model,
	   need);
	ok(vpmu_vcpu_save(va, again, len - 1, &need) == -ENOSPC && need == len,
	   "%s: a buffer one byte short: -ENOSPC, and the size", model);
	ok(save(va, again) == len && !memcmp(blob, again, len), "%s: a save changes nothing", model);
	int rc = vpmu_vcpu_restore(vb, blob, len, err);
	ok(rc == 0, "%s: restored into another VM (%d%s%s)", model, rc, rc ? ": " : "", err);
	ok(save(vb, again) == len && !memcmp(blob, again, len),
	   "%s: the destination saves the same blob", model);
	ok(same_guest_view(va, vb), "%s: the guest reads the same from every register", model);
	if (!r->ctr)
		goto out;
	is_u64(rd_reg(vb, r->ctr), 1000, "%s: the counter reads the 1000 events counted on A", model);
	/* Both count 234 more, on their own host CPUs. */
	run(vb, 1, r->ev, 234);
	run(va, 0, r->ev, 234);
	is_u64(rd_reg(vb, r->ctr), 1234, "%s: it counts on from there on B", model);
	is_u64(rd_reg(va, r->ctr), 1234, "%s: as on A", model);
	struct vpmu_totals ta, tb;
	vpmu_vcpu_totals(va, &ta);
	vpmu_vcpu_totals(vb, &tb);
	is_u64(tb.pmc[r->pmc], 1234, "%s: B's accounting continues A's", model);
	ok(!memcmp(ta.pmc, tb.pmc, sizeof(ta.pmc)) && !memcmp(ta.events, tb.events, sizeof(ta.events)),
	   "%s: per counter and per event, A and B account the same", model);
out:
	vpmu_vm_destroy(a);
	vpmu_vm_destroy(b);
}

/* Counter 0 interrupting from -100, then 150 events: an overflow and a PMI. */
struct pmi_recipe {
	const char *model;
	uint32_t reg[3];
	uint64_t val[3];
	uint32_t ctr, status;    /* status: the register showing the overflow (0: none) */
	uint64_t status_bit;
	enum vpmu_event ev;
};
static const struct pmi_recipe pmi_recipes[] = {
	/* EVNTSEL0 with INT (bit 20); a P6 counter write sign-extends bit 31. */
	{ "p6", { 0x186, 0xc1 }, { 0x5300c0, 0xffffff9c }, 0xc1, 0, 0, VPMU_EV_INSTRUCTIONS },
	{ "k7", { 0xc0010000, 0xc0010004 }, { 0x5300c0, 0xffffffffff9c }, 0xc0010004, 0, 0,
	  VPMU_EV_INSTRUCTIONS },
	/* The overflow sets IA32_PERF_GLOBAL_STATUS bit 0. */
	{ "skylake", { 0x186, 0xc1, 0x38f }, { 0x5300c0, 0xffffff9c, 1 }, 0xc1, 0x38e, 1,
	  VPMU_EV_INSTRUCTIONS },
	/* CCCR OVF_PMI_T0 (bit 26); the overflow sets CCCR.OVF (bit 31). */
	{ "p4", { 0x3a2, 0x360, 0x300 }, { 0x2600020c, 0x403d000, 0xffffffffffffff9c }, 0x300, 0x360,
	  1ull << 31, VPMU_EV_CYCLES },
};

static void test_pending_pmi(const struct pmi_recipe *p)
{
	struct vpmu_vm *a = vm_of(p->model, 0, 0), *b = vm_of(p->model, 0, 0);
	struct vpmu_vcpu *va = vcpu_of(a, 0), *vb = vcpu_of(b, 0);
	static uint8_t blob[VPMU_STATE_MAX];
	for (unsigned k = 0; k < 3 && p->reg[k]; k++)
		wr_reg(va, p->reg[k], p->val[k]);
	run(va, 0, p->ev, 150);
	uint64_t mask = 0;
	ok(vpmu_vcpu_pmi_pending(va, &mask) && mask == 1, "%s: counter 0's overflow is pending",
	   p->model);
	size_t len = save(va, blob);
	ok(len && !vpmu_vcpu_restore(vb, blob, len, NULL), "%s: saved and restored", p->model);
	mask = 0;
	ok(vpmu_vcpu_pmi_pending(vb, &mask) && mask == 1, "%s: the PMI is pending on B", p->model);
	ok(vpmu_vcpu_pmi_pending(va, NULL), "%s: and still on A (a save acknowledges nothing)",
	   p->model);
	is_u64(rd_reg(vb, p->ctr), 50, "%s: the counter wrapped to 50 (-100 + 150)", p->model);
	if (p->status)
		ok(rd_reg(vb, p->status) & p->status_bit, "%s: the overflow status is restored", p->model);
	is_u64(vpmu_vcpu_pmi_ack(vb), 1, "%s: B delivers it once", p->model);
	ok(!vpmu_vcpu_pmi_pending(vb, NULL), "%s: then nothing is pending", p->model);
	run(vb, 1, p->ev, 10);
	struct vpmu_totals ta, tb;
	vpmu_vcpu_totals(va, &ta);
	vpmu_vcpu_totals(vb, &tb);
	ok(!vpmu_vcpu_pmi_pending(vb, NULL) && tb.pmis == 1 && ta.pmis == 1,
	   "%s: counting on raises no second PMI (one PMI each)", p->model);
	vpmu_vm_destroy(a);
	vpmu_vm_destroy(b);
}

/* Hyper-threading (P4): the siblings share the core's registers and
 * counters, and each one's blob carries them; a restore needs both siblings
 * switched out, and a thread's state goes to the same thread. */
static void test_ht(void)
{
	const struct recipe *r = recipe_of("p4");
	struct vpmu_vm *a = vm_of("p4", 0, 1), *b = vm_of("p4", 0, 1);
	struct vpmu_vcpu *a0 = vcpu_of(a, 0), *a1 = vcpu_of(a, 1);
	struct vpmu_vcpu *b0 = vcpu_of(b, 0), *b1 = vcpu_of(b, 1);
	static uint8_t s0[VPMU_STATE_MAX], s1[VPMU_STATE_MAX];
	char err[VPMU_STATE_ERR_LEN] = "";
	size_t len = 0;
	program(a0, r);
	run(a0, 0, r->ev, 700);
	size_t n0 = save(a0, s0), n1 = save(a1, s1);
	ok(n0 && n1, "p4 HT: both siblings saved");
	ok(vpmu_vcpu_restore(b0, s1, n1, err) == -EPROTO && err[0],
	   "p4 HT: thread 1's state onto thread 0: -EPROTO (%s)", err);
	vpmu_vcpu_switch_in(b1, 1);
	ok(vpmu_vcpu_restore(b0, s0, n0, err) == -EBUSY, "p4 HT: its sibling switched in: -EBUSY (%s)",
	   err);
	ok(vpmu_vcpu_save(b0, NULL, 0, &len) == -EBUSY, "p4 HT: nor a save then");
	vpmu_vcpu_switch_out(b1);
	ok(!vpmu_vcpu_restore(b0, s0, n0, NULL) && !vpmu_vcpu_restore(b1, s1, n1, NULL),
	   "p4 HT: both siblings restored");
	ok(same_guest_view(a0, b0) && same_guest_view(a1, b1), "p4 HT: each thread reads the same");
	is_u64(rd_reg(b1, r->ctr), 700, "p4 HT: the shared counter reads 700 from thread 1");
	run(b0, 1, r->ev, 300);
	is_u64(rd_reg(b1, r->ctr), 1000, "p4 HT: thread 0 counts on into it");
	vpmu_vm_destroy(a);
	vpmu_vm_destroy(b);
}

/* A switched-in vCPU is neither saved nor restored. */
static void test_busy(void)
{
	struct vpmu_vm *a = vm_of("p6", 0, 0);
	struct vpmu_vcpu *v = vcpu_of(a, 0);
	static uint8_t blob[VPMU_STATE_MAX];
	char err[VPMU_STATE_ERR_LEN] = "";
	size_t len = save(v, blob), n = 0;
	vpmu_vcpu_switch_in(v, 0);
	ok(vpmu_vcpu_save(v, blob, sizeof(blob), &n) == -EBUSY, "p6: a switched-in vCPU: save -EBUSY");
	ok(vpmu_vcpu_restore(v, blob, len, err) == -EBUSY && err[0], "p6: restore -EBUSY (%s)", err);
	vpmu_vcpu_switch_out(v);
	ok(vpmu_vcpu_save(NULL, blob, sizeof(blob), &n) == -EINVAL &&
	   vpmu_vcpu_save(v, blob, sizeof(blob), NULL) == -EINVAL &&
	   vpmu_vcpu_restore(NULL, blob, len, NULL) == -EINVAL &&
	   vpmu_vcpu_restore(v, NULL, len, NULL) == -EINVAL, "NULL arguments: -EINVAL");
	vpmu_vm_destroy(a);
}

int main(void)
{
	struct vpmu_backend be;
	if (vpmu_sim_create(2, &sim))
		return 1;
	vpmu_sim_backend(sim, &be);
	if (vpmu_host_create(&be, 2, &host))
		return 1;
	vpmu_sim_attach(sim, host);
	for (unsigned i = 0; vpmu_model_name(i); i++)
		test_round_trip(vpmu_model_name(i));
	for (unsigned i = 0; i < sizeof(pmi_recipes) / sizeof(pmi_recipes[0]); i++)
		test_pending_pmi(&pmi_recipes[i]);
	test_ht();
	test_busy();
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return tap_done();
}
