/* SPDX-License-Identifier: MIT */
/*
 * Micro-benchmarks of the hot paths a VMM runs on every trapped access and every
 * vCPU switch (bench/README.md, docs/performance.md), with the sim backend:
 *   write        guest WRMSR to event select 0 alternating between two valid values
 *                that each change the control (vCPU switched in): an event change,
 *                the models' retarget path (vpmu_txn_retarget)
 *   write-enable the same, alternating between enabled and disabled (EN cleared):
 *                the counter leaves and rejoins the control, the full derive and
 *                perfctr suspend/resume path (no target; Linux's disable_all/enable_all)
 *   read         guest RDMSR of counter 0 while it counts (vCPU switched in)
 *   switch-hit   switch-out + switch-in of one vCPU on the same host CPU, a-mode
 *                control: the per-CPU cache hits
 *   switch-miss  switch-out of one vCPU + switch-in of another with a different
 *                control on the same host CPU: the cache misses
 *   live-idle    the KVM glue's live-accounting check before each entry when no
 *                snapshot was asked for (kvm_live_serve: vmm-glue/kvm_live.h): what
 *                the live view adds to every exit
 *   live-publish one answered request: the vCPU's totals (vpmu_vcpu_totals) and
 *                glue statistics published under the sequence count, as the vCPU
 *                thread does before its next entry once per snapshot asked for
 *   save         vpmu_vcpu_save of the switched-out vCPU 1 (its event select
 *                programmed) into a buffer: a migration's or savevm's per-vCPU cost
 *   restore      vpmu_vcpu_restore of that blob into vCPU 1: the blob checked,
 *                the vCPU's own state taken (for a rollback) and every register,
 *                counter, PMI and total applied
 *   baseline     the measuring loop with an empty operation (its overhead)
 *   decode       the event table's O(1) decode of an event select image to its
 *                entry (vpmu/events.h vpmu_event_decode), per table, over the
 *                images of every event of the Sapphire Rapids table in turn
 *                (with USR|OS|INT|EN and each offcore event's MSR value): most
 *                miss on the other tables, the two-probe worst case
 *
 * Modes:
 *   bench_ops [--iters N] [--runs R]         ns/op (median of R runs of N iterations)
 *                                            and host writes/op, every model and op
 *   bench_ops --callgrind --model M --op OP [--iters N]
 *                                            one op, with callgrind collection on only
 *                                            around the loop (run under valgrind
 *                                            --tool=callgrind --collect-atstart=no)
 *   bench_ops --list                         the benchmarked models that are registered
 *   bench_ops --callgrind --op decode --table T [--iters N]
 *                                            the decode on event table T
 *   bench_ops --tables                       the event tables (vpmu-events-TABLE(7))
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include <valgrind/callgrind.h>

#include "vpmu/backend.h"
#include "vpmu/save.h"
#include "vpmu/vpmu.h"
#include "../vmm-glue/kvm_live.h"
/* Internal: the generated event tables and their inline decode (docs/events.md). */
#include "events.h"

/* Per model: the event select and counter MSRs used, and two valid a-mode event
 * select values (enabled, USR|OS, counting different events) so every write in the
 * "write" loop changes the control; the register and the two values the
 * "write-enable" loop toggles the counter's enable with; and a register written
 * once first (the P4's CCCR, which selects the ESCR the event select is). */
struct bench_model {
	const char *name;
	uint32_t evntsel0, perfctr0;
	uint64_t sel_a, sel_b;
	uint32_t enable_reg;
	uint64_t enable_on, enable_off;
	uint32_t setup_reg;
	uint64_t setup_val;
	enum vpmu_regspace space;   /* MSRs (x86), SPRs (PowerPC), CSRs (RISC-V: calls) */
	/* Interrupting (i-mode) counters in the switched vCPU's control: a switch
	 * pair that hits the cache still writes each one's image twice, as
	 * perfctr's isuspend stops it and write_control restarts it. */
	unsigned imode;
};

static const struct bench_model bench_models[] = {
	/* EN | OS | USR; events 0x79 CPU_CLK_UNHALTED and 0xC0 INST_RETIRED */
	{ "p6", 0x186, 0xC1, 0x430079, 0x4300C0, 0x186, 0x430079, 0x030079, 0, 0, VPMU_SPACE_MSR, 0 },
	/* EN | OS | USR; events 0x76 CPU_CLK_UNHALTED and 0xC0 retired instructions */
	{ "k7", 0xC0010000, 0xC0010004, 0x430076, 0x4300C0, 0xC0010000, 0x430076, 0x030076, 0, 0, VPMU_SPACE_MSR, 0 },
	/* FSB_ESCR0 (T0_OS|T0_USR): GLOBAL_POWER_EVENTS:RUNNING and
	 * FSB_DATA_ACTIVITY:DRDY_DRV|DRDY_OWN; counter 0's CCCR selects it (ENABLE,
	 * ESCR_SELECT 6, ACTIVE_THREAD 3): Linux's P4 programming. */
	{ "p4", 0x3A2, 0x300, 0x2600020C, 0x2E00060C, 0x360, 0x3D000, 0x3C000, 0x360, 0x3D000, VPMU_SPACE_MSR, 0 },
	/* Architectural perfmon v4: EN | OS | USR, UnHalted Core Cycles (0x3C) and
	 * Instruction Retired (0xC0) on counter 0 (GLOBAL_CTRL enables the general
	 * counters at reset). */
	{ "skylake", 0x186, 0xC1, 0x43003C, 0x4300C0, 0x186, 0x43003C, 0x03003C, 0, 0, VPMU_SPACE_MSR, 0 },
	/* MMCR0 (SPR 952) with PMC1SEL 1 (cycles) and 2 (instructions), nothing
	 * frozen; PMC1 is SPR 953; MMCR0[FC] freezes it (MPC7450 RISC
	 * Microprocessor Family Reference Manual, "Performance Monitor"). */
	{ "ppc7450", 952, 953, 0x40, 0x80, 952, 0x80, 0x80000080, 0, 0, VPMU_SPACE_SPR, 0 },
	/* The SBI PMU: no register programs it; bench_setup configures hpmcounter3
	 * (CSR 0xC03) with counter_config_matching, cycles or instructions (SBI
	 * event indexes 1 and 2), and the sbi-* ops make the calls. */
	{ "riscv-sbi", 0, 0xC03, 0x1, 0x2, 0, 0, 0, 0, 0, VPMU_SPACE_CSR, 1 },
};
#define NR_BENCH_MODELS (sizeof(bench_models) / sizeof(bench_models[0]))

struct bench {
	const struct bench_model *bm;
	struct vpmu_sim *sim;
	struct vpmu_host *host;
	struct vpmu_vm *vm;
	struct vpmu_vcpu *vcpu[2];
	unsigned cur;           /* switch-miss: the vCPU switched in now */
	uint64_t sink;          /* keeps reads from being optimised away */
	struct kvm_live live;   /* live-idle, live-publish: vCPU 0's */
	struct vpmu_kvm_stats stats;
};

static void die(const char *what)
{
	fprintf(stderr, "bench_ops: %s\n", what);
	exit(2);
}

/* ---------------------------------------------------------------- SBI PMU */

/* Under callgrind, a call an op needs only to repeat (the release after a
 * config_matching, the start before a stop) is left out of the count. */
static bool under_callgrind;
static void uncounted(void)
{
	if (under_callgrind)
		CALLGRIND_TOGGLE_COLLECT;
}

static struct vpmu_call_result sbi(struct vpmu_vcpu *v, unsigned long fid, uint64_t a0,
				   uint64_t a1, uint64_t a2, uint64_t a3)
{
	const uint64_t a[VPMU_CALL_ARGS] = { a0, a1, a2, a3, 0, 0 };
	struct vpmu_call_result r;
	if (vpmu_call(v, fid, a, &r))
		die("vpmu_call refused its arguments");
	return r;
}

/* The guest memory of the snapshot page (vpmu_vm_set_guest_memory). */
#define SBI_SHMEM 0x80000000ull
static uint8_t sbi_ram[4096];
static int sbi_ram_read(void *o, uint64_t gpa, void *buf, size_t len)
{
	(void)o;
	if (gpa < SBI_SHMEM || gpa - SBI_SHMEM + len > sizeof(sbi_ram))
		return -EFAULT;
	memcpy(buf, sbi_ram + (gpa - SBI_SHMEM), len);
	return 0;
}
static int sbi_ram_write(void *o, uint64_t gpa, const void *buf, size_t len)
{
	(void)o;
	if (gpa < SBI_SHMEM || gpa - SBI_SHMEM + len > sizeof(sbi_ram))
		return -EFAULT;
	memcpy(sbi_ram + (gpa - SBI_SHMEM), buf, len);
	return 0;
}

static void wr(struct vpmu_vcpu *v, enum vpmu_regspace space, uint32_t msr, uint64_t val)
{
	enum vpmu_fault f;
	if (vpmu_reg_write(v, space, msr, val, &f) || f != VPMU_FAULT_NONE)
		die("set-up write faulted (model registers changed?)");
}

/* ---------------------------------------------------------------- operations */

/* noinline and called through a pointer: each op costs the same loop overhead,
 * which the baseline op measures. */
typedef void (*op_fn)(struct bench *b, uint64_t i);

__attribute__((noinline)) static void op_baseline(struct bench *b, uint64_t i)
{
	b->sink += i & 1;
}

__attribute__((noinline)) static void op_write(struct bench *b, uint64_t i)
{
	enum vpmu_fault f;
	vpmu_reg_write(b->vcpu[0], b->bm->space, b->bm->evntsel0,
		       (i & 1) ? b->bm->sel_a : b->bm->sel_b, &f);
}

__attribute__((noinline)) static void op_write_enable(struct bench *b, uint64_t i)
{
	enum vpmu_fault f;
	vpmu_reg_write(b->vcpu[0], b->bm->space, b->bm->enable_reg,
		       (i & 1) ? b->bm->enable_on : b->bm->enable_off, &f);
}

__attribute__((noinline)) static void op_read(struct bench *b, uint64_t i)
{
	enum vpmu_fault f;
	uint64_t val;
	(void)i;
	vpmu_reg_read(b->vcpu[0], b->bm->space, b->bm->perfctr0, &val, &f);
	b->sink += val;
}

/* Linux's riscv_pmu_sbi add: counter_config_matching over its counter mask
 * (every counter but time), SINH, a cache event that takes an hpmcounter
 * (then released, uncounted). */
__attribute__((noinline)) static void op_sbi_config(struct bench *b, uint64_t i)
{
	struct vpmu_call_result r = sbi(b->vcpu[0], VPMU_SBI_PMU_COUNTER_CONFIG_MATCHING, 0,
					0x3ffffffd, 0x40, (i & 1) ? 0x3 : 0x5);
	uncounted();
	sbi(b->vcpu[0], VPMU_SBI_PMU_COUNTER_STOP, r.value, 1, 1, 0);
	uncounted();
}

/* counter_start with SET_INIT_VALUE (the sampling period), then stopped again
 * (uncounted). */
__attribute__((noinline)) static void op_sbi_start(struct bench *b, uint64_t i)
{
	sbi(b->vcpu[0], VPMU_SBI_PMU_COUNTER_START, 4, 1, 1, -(uint64_t)(100000 + (i & 1)));
	uncounted();
	sbi(b->vcpu[0], VPMU_SBI_PMU_COUNTER_STOP, 4, 1, 0, 0);
	uncounted();
}

/* counter_stop of a started counter (started again, uncounted); with
 * TAKE_SNAPSHOT as Linux stops when it has the snapshot. */
static void sbi_stop(struct bench *b, uint64_t flags)
{
	uncounted();
	sbi(b->vcpu[0], VPMU_SBI_PMU_COUNTER_START, 4, 1, 0, 0);
	uncounted();
	sbi(b->vcpu[0], VPMU_SBI_PMU_COUNTER_STOP, 4, 1, flags, 0);
}
__attribute__((noinline)) static void op_sbi_stop(struct bench *b, uint64_t i)
{
	(void)i;
	sbi_stop(b, 0);
}
__attribute__((noinline)) static void op_sbi_stop_snapshot(struct bench *b, uint64_t i)
{
	(void)i;
	sbi_stop(b, 2);
}

__attribute__((noinline)) static void op_sbi_fw_read(struct bench *b, uint64_t i)
{
	(void)i;
	b->sink += sbi(b->vcpu[0], VPMU_SBI_PMU_COUNTER_FW_READ, 19, 0, 0, 0).value;
}

__attribute__((noinline)) static void op_switch_hit(struct bench *b, uint64_t i)
{
	(void)i;
	vpmu_vcpu_switch_out(b->vcpu[0]);
	vpmu_vcpu_switch_in(b->vcpu[0], 0);
}

__attribute__((noinline)) static void op_switch_miss(struct bench *b, uint64_t i)
{
	(void)i;
	vpmu_vcpu_switch_out(b->vcpu[b->cur]);
	b->cur ^= 1;
	vpmu_vcpu_switch_in(b->vcpu[b->cur], 0);
}

__attribute__((noinline)) static void op_live_idle(struct bench *b, uint64_t i)
{
	(void)i;
	kvm_live_serve(&b->live, b->vcpu[0], &b->stats);
}

__attribute__((noinline)) static void op_live_publish(struct bench *b, uint64_t i)
{
	(void)i;
	kvm_live_request(&b->live);
	kvm_live_serve(&b->live, b->vcpu[0], &b->stats);
}

/* Linux's PMI handler on architectural perfmon (arch/x86/events/intel/core.c
 * intel_pmu_handle_irq): GLOBAL_CTRL off, GLOBAL_STATUS read, the sampling
 * counter read (RDPMC) and reloaded through its full-width alias, the status
 * cleared (GLOBAL_OVF_CTRL / STATUS_RESET), GLOBAL_CTRL on. */
__attribute__((noinline)) static void op_pmi_handler(struct bench *b, uint64_t i)
{
	enum vpmu_fault f;
	uint64_t status, val;
	(void)i;
	struct vpmu_vcpu *v = b->vcpu[0];
	/* Counter 1 samples cycles (INT) next to counter 0's counting event, as
	 * perf record beside perf stat: set up once, in the first iteration. */
	if (i == 0)
		vpmu_reg_write(v, VPMU_SPACE_MSR, 0x187, 0x53003C, &f);
	vpmu_reg_write(v, VPMU_SPACE_MSR, 0x38F, 0, &f);
	vpmu_reg_read(v, VPMU_SPACE_MSR, 0x38E, &status, &f);
	vpmu_rdpmc(v, 1, &val, &f);
	vpmu_reg_write(v, VPMU_SPACE_MSR, 0x4C2, 0xFFFFFFF00000ull, &f);
	vpmu_reg_write(v, VPMU_SPACE_MSR, 0x390, 0x2, &f);
	vpmu_reg_write(v, VPMU_SPACE_MSR, 0x38F, 0x3, &f);
	b->sink += status + val;
}

/* A GLOBAL_CTRL write that changes nothing (Linux's enable_all when the
 * counters are already on). */
__attribute__((noinline)) static void op_global_same(struct bench *b, uint64_t i)
{
	enum vpmu_fault f;
	(void)i;
	vpmu_reg_write(b->vcpu[0], VPMU_SPACE_MSR, 0x38F, 0xF, &f);
}

/* save, restore: vCPU 1 is switched out (bench_setup).  restore loads into
 * it, in turn, the blobs of vCPU 0 and of itself, saved at its first
 * iteration: another event select, counter values and totals each time, as a
 * migration's restore into a fresh vCPU changes them. */
static uint8_t state_blob[2][VPMU_STATE_MAX];
static size_t state_len[2];

__attribute__((noinline)) static void op_save(struct bench *b, uint64_t i)
{
	(void)i;
	if (vpmu_vcpu_save(b->vcpu[1], state_blob[1], sizeof(state_blob[1]), &state_len[1]))
		die("save");
}

__attribute__((noinline)) static void op_restore(struct bench *b, uint64_t i)
{
	if (i == 0) {
		vpmu_vcpu_switch_out(b->vcpu[0]);
		if (vpmu_vcpu_save(b->vcpu[0], state_blob[0], sizeof(state_blob[0]), &state_len[0]))
			die("save");
		vpmu_vcpu_switch_in(b->vcpu[0], 0);
		op_save(b, i);
	}
	if (vpmu_vcpu_restore(b->vcpu[1], state_blob[i & 1], state_len[i & 1], NULL))
		die("restore");
}

/* decode: the table measured, and the images of Sapphire Rapids' events (the
 * SBI table's own events: decode_setup). */
static const struct vpmu_event_table *decode_table;
static uint64_t decode_image[4096], decode_aux[4096];
static unsigned nr_decode;

__attribute__((noinline)) static const struct vpmu_event_entry *
bench_event_decode(const struct vpmu_event_table *t, uint64_t image, uint64_t aux)
{
	return vpmu_event_decode(t, image, aux);
}

__attribute__((noinline)) static void op_decode(struct bench *b, uint64_t i)
{
	unsigned j = (unsigned)(i % nr_decode);
	b->sink += (uintptr_t)bench_event_decode(decode_table, decode_image[j], decode_aux[j]);
}

static void decode_setup(const struct vpmu_event_table *t)
{
	const struct vpmu_event_table *spr = &vpmu_events_sapphirerapids;
	decode_table = t;
	nr_decode = 0;
	if (!strcmp(t->pmu, "riscv-sbi")) {
		/* No x86 event select is an SBI event index: the SBI table decodes
		 * what its model looks up, every event's index (riscv_sbi.c
		 * sbi_key), as a guest's configurations give them. */
		for (unsigned i = 0; i < t->nr && nr_decode < 4096; i++) {
			decode_image[nr_decode] = t->ev[i].key;
			decode_aux[nr_decode++] = 0;
		}
		return;
	}
	for (unsigned i = 0; i < spr->nr && nr_decode < 4096; i++) {
		if (!spr->ev[i].counters)
			continue;   /* a fixed counter's pseudo-encoding */
		decode_image[nr_decode] = spr->ev[i].key | 0x530000;   /* USR|OS|INT|EN */
		decode_aux[nr_decode++] = spr->ev[i].msr_index ? spr->ev[i].msr_value : 0;
	}
}

struct op {
	const char *name;
	op_fn fn;
};

static const struct op ops[] = {
	{ "baseline", op_baseline },
	{ "live-idle", op_live_idle },
	{ "live-publish", op_live_publish },
	{ "write", op_write },
	{ "write-enable", op_write_enable },
	{ "read", op_read },
	{ "switch-hit", op_switch_hit },
	{ "switch-miss", op_switch_miss },
	{ "pmi-handler", op_pmi_handler },
	{ "global-same", op_global_same },
	{ "save", op_save },
	{ "restore", op_restore },
	{ "sbi-config", op_sbi_config },
	{ "sbi-start", op_sbi_start },
	{ "sbi-stop", op_sbi_stop },
	{ "sbi-stop-snapshot", op_sbi_stop_snapshot },
	{ "sbi-fw-read", op_sbi_fw_read },
};
#define NR_OPS (sizeof(ops) / sizeof(ops[0]))

/* ---------------------------------------------------------------- set-up */

/* The SBI PMU's vCPU k: hpmcounter3 counting cycles (vCPU 0) or instructions
 * (vCPU 1), started; hpmcounter4 configured for the start/stop ops; the first
 * firmware counter (19) for SET_TIMER, started; the snapshot page. */
static void sbi_setup(struct bench *b, unsigned k)
{
	struct vpmu_vcpu *v = b->vcpu[k];
	struct vpmu_guest_memory mem = { sbi_ram_read, sbi_ram_write, NULL };
	if (vpmu_vm_set_guest_memory(b->vm, &mem) ||
	    sbi(v, VPMU_SBI_PMU_COUNTER_CONFIG_MATCHING, 3, 1, 0x4, k ? b->bm->sel_b : b->bm->sel_a).error ||
	    sbi(v, VPMU_SBI_PMU_COUNTER_CONFIG_MATCHING, 4, 1, 0, 0x1).error ||
	    sbi(v, VPMU_SBI_PMU_COUNTER_CONFIG_MATCHING, 19, 1, 0x4, 0xf0005).error ||
	    sbi(v, VPMU_SBI_PMU_SNAPSHOT_SET_SHMEM, SBI_SHMEM, 0, 0, 0).error)
		die("SBI PMU set-up refused");
}

static void bench_setup(struct bench *b, const struct bench_model *bm)
{
	struct vpmu_backend be;
	memset(b, 0, sizeof(*b));
	b->bm = bm;
	if (vpmu_sim_create(2, &b->sim))
		die("sim create");
	vpmu_sim_backend(b->sim, &be);
	if (vpmu_host_create(&be, 2, &b->host))
		die("host create");
	vpmu_sim_attach(b->sim, b->host);
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	cfg.model = bm->name;
	if (vpmu_vm_create(b->host, &cfg, &b->vm))
		die("vm create");
	for (unsigned k = 0; k < 2; k++) {
		if (vpmu_vcpu_create(b->vm, k, &b->vcpu[k]))
			die("vcpu create");
		if (vpmu_vcpu_switch_in(b->vcpu[k], 0))
			die("switch in");
		if (bm->setup_reg)
			wr(b->vcpu[k], bm->space, bm->setup_reg, bm->setup_val);
		if (bm->space == VPMU_SPACE_CSR)
			sbi_setup(b, k);
		else
			wr(b->vcpu[k], bm->space, bm->evntsel0, k ? bm->sel_b : bm->sel_a);
		vpmu_vcpu_switch_out(b->vcpu[k]);
	}
	if (vpmu_vcpu_control_id(b->vcpu[0]) == vpmu_vcpu_control_id(b->vcpu[1]))
		die("the two event select values give the same control");
	/* Every op starts with vCPU 0 running on host CPU 0. */
	if (vpmu_vcpu_switch_in(b->vcpu[0], 0))
		die("switch in");
	/* Something to read: the counter advances. */
	vpmu_sim_tick(b->sim, 0, VPMU_EV_CYCLES, 12345, VPMU_MODE_USER);
}

static void bench_teardown(struct bench *b)
{
	vpmu_vm_destroy(b->vm);
	vpmu_host_destroy(b->host);
	vpmu_sim_destroy(b->sim);
}

static const struct bench_model *find_bench_model(const char *name)
{
	for (unsigned i = 0; i < NR_BENCH_MODELS; i++)
		if (strcmp(bench_models[i].name, name) == 0)
			return &bench_models[i];
	return NULL;
}

static const struct op *find_op(const char *name)
{
	for (unsigned i = 0; i < NR_OPS; i++)
		if (strcmp(ops[i].name, name) == 0)
			return &ops[i];
	return NULL;
}

static uint64_t total_cache_hits(struct bench *b)
{
	struct vpmu_totals t;
	vpmu_vm_totals(b->vm, &t);
	return t.cache_hits;
}

/* Host writes per op, and a sanity check that each op did what it claims. */
struct op_effect {
	double ctrl_writes, ctr_writes;
	uint64_t hits;
};

static void run_loop(struct bench *b, const struct op *op, uint64_t iters)
{
	op_fn fn = op->fn;
	for (uint64_t i = 0; i < iters; i++)
		fn(b, i);
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int verify_effect(const struct bench_model *bm, const struct op *op, struct bench *b,
			 uint64_t iters, uint64_t hits_before)
{
	uint64_t hits = total_cache_hits(b) - hits_before;
	if (strcmp(op->name, "switch-hit") == 0 && hits != iters) {
		fprintf(stderr, "bench_ops: %s switch-hit: %" PRIu64 " cache hits in %" PRIu64
			" switch-ins\n", bm->name, hits, iters);
		return 1;
	}
	if (strcmp(op->name, "switch-miss") == 0 && hits != 0) {
		fprintf(stderr, "bench_ops: %s switch-miss: %" PRIu64 " cache hits\n", bm->name, hits);
		return 1;
	}
	return 0;
}

/* One op under callgrind: collection is toggled on only around the loop. */
static int run_callgrind(const struct bench_model *bm, const struct op *op, uint64_t iters)
{
	struct bench b;
	bench_setup(&b, bm);
	uint64_t c0 = vpmu_sim_ctrl_writes(b.sim), n0 = vpmu_sim_ctr_writes(b.sim);
	uint64_t h0 = total_cache_hits(&b);
	under_callgrind = true;
	CALLGRIND_TOGGLE_COLLECT;
	run_loop(&b, op, iters);
	CALLGRIND_TOGGLE_COLLECT;
	under_callgrind = false;
	printf("%s %s iters=%" PRIu64 " ctrl_writes/op=%.3f ctr_writes/op=%.3f imode=%u\n", bm->name,
	       op->name, iters, (double)(vpmu_sim_ctrl_writes(b.sim) - c0) / (double)iters,
	       (double)(vpmu_sim_ctr_writes(b.sim) - n0) / (double)iters, bm->imode);
	int rc = verify_effect(bm, op, &b, iters, h0);
	bench_teardown(&b);
	return rc;
}

static int run_timing(const struct bench_model *bm, const struct op *op, uint64_t iters,
		      unsigned runs)
{
	struct bench b;
	double *ns = calloc(runs, sizeof(*ns));
	if (!ns)
		die("out of memory");
	bench_setup(&b, bm);
	run_loop(&b, op, iters / 10 + 1);               /* warm caches and branch predictors */
	uint64_t c0 = vpmu_sim_ctrl_writes(b.sim), n0 = vpmu_sim_ctr_writes(b.sim);
	uint64_t h0 = total_cache_hits(&b);
	for (unsigned r = 0; r < runs; r++) {
		double t0 = now_ns();
		run_loop(&b, op, iters);
		ns[r] = (now_ns() - t0) / (double)iters;
	}
	uint64_t total = iters * runs;
	double ctrl = (double)(vpmu_sim_ctrl_writes(b.sim) - c0) / (double)total;
	double ctr = (double)(vpmu_sim_ctr_writes(b.sim) - n0) / (double)total;
	int rc = verify_effect(bm, op, &b, total, h0);
	qsort(ns, runs, sizeof(*ns), cmp_double);
	printf("%-6s %-12s %9.1f %9.1f %9.1f %12.3f %12.3f\n", bm->name, op->name,
	       ns[runs / 2], ns[0], ns[runs - 1], ctrl, ctr);
	bench_teardown(&b);
	free(ns);
	return rc;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_ops [--iters N] [--runs R] [--model M] [--op OP]\n"
			"       bench_ops --callgrind --model M --op OP [--iters N]\n"
			"       bench_ops --list\n");
	exit(2);
}

/* The decode op on one table, or on every table (timing). */
static int run_decode(const char *table, int callgrind, uint64_t iters, unsigned runs)
{
	int rc = 1;
	for (unsigned t = 0; t < vpmu_nr_event_tables; t++) {
		const struct vpmu_event_table *tb = vpmu_event_tables[t];
		if (table && strcmp(table, tb->name) != 0)
			continue;
		decode_setup(tb);
		struct bench b = { 0 };
		unsigned hits = 0;
		for (unsigned j = 0; j < nr_decode; j++)
			hits += bench_event_decode(tb, decode_image[j], decode_aux[j]) != NULL;
		rc = 0;
		if (callgrind) {
			CALLGRIND_TOGGLE_COLLECT;
			for (uint64_t i = 0; i < iters; i++)
				op_decode(&b, i);
			CALLGRIND_TOGGLE_COLLECT;
			printf("%s decode iters=%" PRIu64 " images=%u found=%u ctrl_writes/op=0.000 "
			       "ctr_writes/op=0.000\n", tb->name, iters, nr_decode, hits);
			continue;
		}
		double best = 0;
		for (unsigned r = 0; r < runs; r++) {
			double t0 = now_ns();
			for (uint64_t i = 0; i < iters; i++)
				op_decode(&b, i);
			double ns = (now_ns() - t0) / (double)iters;
			if (!r || ns < best)
				best = ns;
		}
		printf("%-14s decode %9.1f ns (min of %u), %u of %u Sapphire Rapids images found\n",
		       tb->name, best, runs, hits, nr_decode);
	}
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t iters = 0;
	unsigned runs = 7;
	int callgrind = 0, list = 0;
	const char *model = NULL, *opname = NULL, *table = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tables")) {
			for (unsigned t = 0; t < vpmu_nr_event_tables; t++)
				printf("%s\n", vpmu_event_tables[t]->name);
			return 0;
		}
		if (!strcmp(argv[i], "--table") && i + 1 < argc)
			table = argv[++i];
		else if (!strcmp(argv[i], "--callgrind"))
			callgrind = 1;
		else if (!strcmp(argv[i], "--list"))
			list = 1;
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--model") && i + 1 < argc)
			model = argv[++i];
		else if (!strcmp(argv[i], "--op") && i + 1 < argc)
			opname = argv[++i];
		else
			usage();
	}
	if (runs == 0)
		usage();
	if (opname && !strcmp(opname, "decode"))
		return run_decode(table, callgrind, iters ? iters : (callgrind ? 100000 : 1000000), runs);
	if (model && !find_bench_model(model))
		usage();
	if (opname && !find_op(opname))
		usage();
	if (callgrind && (!model || !opname))
		usage();

	int rc = 0;
	unsigned measured = 0;
	if (!list && !callgrind)
		printf("%-6s %-12s %9s %9s %9s %12s %12s\n", "model", "op", "ns/op", "min", "max",
		       "ctrl-wr/op", "ctr-wr/op");
	for (unsigned m = 0; m < NR_BENCH_MODELS; m++) {
		const struct bench_model *bm = &bench_models[m];
		if (model && strcmp(model, bm->name) != 0)
			continue;
		/* Models are being added by other work; measure what is registered. */
		if (!vpmu_model_description(bm->name)) {
			printf("# %s is not registered in this libvpmu: not measured\n", bm->name);
			continue;
		}
		measured++;
		if (list) {
			printf("%s\n", bm->name);
			continue;
		}
		for (unsigned k = 0; k < NR_OPS; k++) {
			if (opname && strcmp(opname, ops[k].name) != 0)
				continue;
			if (callgrind)
				rc |= run_callgrind(bm, &ops[k], iters ? iters : 100000);
			else
				rc |= run_timing(bm, &ops[k], iters ? iters : 1000000, runs);
		}
	}
	if (!measured && !list)
		rc = 1;
	if (!list && !callgrind && !model && !opname)
		rc |= run_decode(NULL, 0, iters ? iters : 1000000, runs);
	return rc;
}
