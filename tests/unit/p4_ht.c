/* SPDX-License-Identifier: MIT */
/*
 * A hyper-threaded P4 (docs/models/p4.md, "Hyper-threading"): two vCPU threads
 * are one package's logical processors and program the shared CCCRs, ESCRs and
 * counters at once, as Linux's P4 driver does on its two CPUs (thread 0 on the
 * even ESCR with the T0 fields, thread 1 on the odd one with the T1 fields).
 * Under ThreadSanitizer (tests/tsan.t) a data race fails the run.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "vpmu/backend.h"
#include "vpmu/vpmu.h"
#include "guest_msr.h"
#include "tap.h"

#define ITERS 20000
#define FSB_ESCR0 0x3A2u
#define FSB_ESCR1 0x3A3u
#define CRU_ESCR0 0x3B8u
#define CCCR(n)   (0x360u + (n))
#define CTR(n)    (0x300u + (n))
/* GLOBAL_POWER_EVENTS (event 0x13) with EMASK `em` and the thread's OS|USR
 * fields; the CCCR: ENABLE, ESCR_SELECT 6, ACTIVE_THREAD 3. */
#define GPE(em, t)   ((0x13ull << 25) | ((uint64_t)(em) << 9) | ((t) ? 0x3u : 0xCu))
#define CCCR_GPE     0x3D000ull
#define CCCR_INSTR   0x39000ull          /* ESCR_SELECT 4: CRU_ESCR0 on counter 12 */
#define TAG(t, i)    (((uint64_t)(t) << 32) | (i))

static struct vpmu_sim *sim;

struct worker {
	struct vpmu_vcpu *v;
	unsigned t;                      /* its thread: 0 or 1 (and its host CPU) */
	pthread_barrier_t *start;
	unsigned errors, own_bad, sibling_bad, shared_bad;
	uint64_t last_bad;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	unsigned t = w->t;
	uint32_t escr = t ? FSB_ESCR1 : FSB_ESCR0, sib_escr = t ? FSB_ESCR0 : FSB_ESCR1;
	unsigned ctr = t ? 2 : 0;
	pthread_barrier_wait(w->start);
	if (vpmu_vcpu_switch_in(w->v, t))
		w->errors++;
	for (unsigned i = 0; i < ITERS; i++) {
		uint64_t e = GPE(1u + (i & 1), t);
		w->errors += wr(w->v, escr, e) != VPMU_FAULT_NONE;
		w->errors += wr(w->v, CCCR(ctr), CCCR_GPE) != VPMU_FAULT_NONE;
		w->errors += wr(w->v, CTR(ctr), i) != VPMU_FAULT_NONE;
		if (rd(w->v, escr) != e || rd(w->v, CTR(ctr)) != i)
			w->own_bad++;
		/* The sibling's ESCR: 0 before its first write, else one of its values. */
		uint64_t s = rd(w->v, sib_escr);
		if (s != 0 && s != GPE(1, t ^ 1) && s != GPE(2, t ^ 1))
			w->sibling_bad++, w->last_bad = s;
		/* Counter 12 is shared: it holds what one of the threads wrote last. */
		w->errors += wr(w->v, CTR(12), TAG(t, i)) != VPMU_FAULT_NONE;
		uint64_t c = rd(w->v, CTR(12));
		if ((c >> 32) > 1 || (c & 0xFFFFFFFFu) >= ITERS)
			w->shared_bad++, w->last_bad = c;
		if ((i & 15) == 15 && (vpmu_vcpu_switch_out(w->v) || vpmu_vcpu_switch_in(w->v, t)))
			w->errors++;
	}
	return NULL;
}

int main(void)
{
	struct vpmu_backend be;
	struct vpmu_host *host = NULL;
	struct vpmu_vm *vm = NULL;
	if (vpmu_sim_create(2, &sim) || (vpmu_sim_backend(sim, &be), vpmu_host_create(&be, 2, &host))) {
		printf("Bail out! cannot create the sim host\n");
		return 1;
	}
	vpmu_sim_attach(sim, host);
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	cfg.model = "p4";
	cfg.ht = 1;
	is_u64(vpmu_vm_create(host, &cfg, &vm), 0, "a hyper-threaded p4 VM");
	struct vpmu_cpu_identity id;
	vpmu_vm_cpu(vm, &id);
	ok(id.cpuid1_edx & (1u << 28), "its CPUID.1:EDX has HTT (0x%08" PRIx32 ")", id.cpuid1_edx);
	struct vpmu_vcpu *v[2];
	for (unsigned t = 0; t < 2; t++)
		vpmu_vcpu_create(vm, t, &v[t]);
	/* The P4's PMI is a level: asserted while a CCCR has OVF with the thread's
	 * OVF_PMI bit, for that thread only. */
	vpmu_vcpu_switch_in(v[0], 0);
	wr(v[0], FSB_ESCR0, GPE(1, 0));
	wr(v[0], CTR(0), 0xFFFFFFFFFEull);
	wr(v[0], CCCR(0), CCCR_GPE | (1u << 26));          /* OVF_PMI_T0 */
	ok(!vpmu_vcpu_pmi_asserted(v[0]), "no PMI line before the overflow");
	vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 2, VPMU_MODE_USER);
	ok(vpmu_vcpu_pmi_pending(v[0], NULL) && vpmu_vcpu_pmi_asserted(v[0]),
	   "thread 0's counter overflowed: PMI pending, line asserted (CCCR0 0x%" PRIx64 ")",
	   rd(v[0], CCCR(0)));
	ok(!vpmu_vcpu_pmi_asserted(v[1]), "thread 1's line is not: OVF_PMI_T1 is clear");
	vpmu_vcpu_pmi_ack(v[0]);
	ok(vpmu_vcpu_pmi_asserted(v[0]), "acknowledging the PMI leaves the line as the status says");
	wr(v[0], CCCR(0), CCCR_GPE | (1u << 26));          /* Linux clears OVF */
	ok(!vpmu_vcpu_pmi_asserted(v[0]), "clearing CCCR0.OVF drops the line");
	wr(v[0], CCCR(0), 0);
	vpmu_vcpu_switch_out(v[0]);

	wr(v[0], CRU_ESCR0, (0x02ull << 25) | (0x5u << 9) | 0xF);   /* INSTR_RETIRED, both threads */
	wr(v[0], CCCR(12), CCCR_INSTR);

	pthread_barrier_t start;
	pthread_barrier_init(&start, NULL, 2);
	struct worker w[2] = { { v[0], 0, &start, 0, 0, 0, 0, 0 }, { v[1], 1, &start, 0, 0, 0, 0, 0 } };
	pthread_t th[2];
	int created = 0;
	for (int i = 0; i < 2; i++)
		created += pthread_create(&th[i], NULL, worker, &w[i]) == 0;
	if (created != 2) {
		printf("Bail out! pthread_create\n");
		return 1;
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	for (unsigned t = 0; t < 2; t++) {
		ok(!w[t].errors && !w[t].own_bad && !w[t].sibling_bad && !w[t].shared_bad,
		   "thread %u: %u iterations of shared CCCR/ESCR/counter accesses, none refused or torn",
		   t, ITERS);
		if (w[t].errors || w[t].own_bad || w[t].sibling_bad || w[t].shared_bad)
			printf("#   errors %u, own %u, sibling %u, shared %u (last 0x%" PRIx64 ")\n",
			       w[t].errors, w[t].own_bad, w[t].sibling_bad, w[t].shared_bad, w[t].last_bad);
	}
	is_u64(rd(v[1], FSB_ESCR0), GPE(2, 0), "thread 1 reads thread 0's last ESCR");
	is_u64(rd(v[0], FSB_ESCR1), GPE(2, 1), "thread 0 reads thread 1's last ESCR");

	/* Counting after the threads: each thread's cycles in its counter, both
	 * threads' instructions in shared counter 12. */
	wr(v[0], FSB_ESCR0, GPE(1, 0));   /* RUNNING: cycles */
	wr(v[1], FSB_ESCR1, GPE(1, 1));
	wr(v[0], CTR(0), 0);
	wr(v[1], CTR(2), 0);
	wr(v[0], CTR(12), 0);
	vpmu_vcpu_switch_out(v[1]);
	vpmu_vcpu_switch_in(v[1], 1);   /* takes in thread 0's counter-12 write */
	vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 100, VPMU_MODE_USER);
	vpmu_sim_tick(sim, 1, VPMU_EV_CYCLES, 7, VPMU_MODE_KERNEL);
	vpmu_sim_tick(sim, 0, VPMU_EV_INSTRUCTIONS, 30, VPMU_MODE_USER);
	vpmu_sim_tick(sim, 1, VPMU_EV_INSTRUCTIONS, 12, VPMU_MODE_USER);
	for (unsigned t = 0; t < 2; t++)
		vpmu_vcpu_switch_out(v[t]);
	is_u64(rd(v[0], CTR(0)), 100, "counter 0 counted thread 0's cycles");
	is_u64(rd(v[0], CTR(2)), 7, "counter 2 counted thread 1's (kernel) cycles");
	is_u64(rd(v[1], CTR(12)), 42, "counter 12 counted both threads' instructions: 30 + 12");
	is_u64(vpmu_vm_destroy(vm), 0, "the VM is destroyed");
	/* Edge-triggered PMIs elsewhere: no line to hold. */
	struct vpmu_vm_config p6cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vcpu *p6v = NULL;
	p6cfg.model = "p6";
	vpmu_vm_create(host, &p6cfg, &vm);
	vpmu_vcpu_create(vm, 0, &p6v);
	vpmu_vcpu_switch_in(p6v, 0);
	wr(p6v, 0xC1, 0xFFFFFFFFFFull);
	wr(p6v, 0x186, 0x530079);                            /* EN|INT|OS|USR cycles */
	vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 1, VPMU_MODE_USER);
	ok(vpmu_vcpu_pmi_pending(p6v, NULL) && !vpmu_vcpu_pmi_asserted(p6v),
	   "p6: a PMI is pending, but no line is asserted (an edge: lost if masked)");
	vpmu_vm_destroy(vm);
	is_u64(vpmu_host_destroy(host), 0, "the host is destroyed");
	vpmu_sim_destroy(sim);
	return tap_done();
}
