/* SPDX-License-Identifier: MIT */
/*
 * The KVM glue (vmm-glue/kvm_x86.c, kvm_steps.c, kvm_pmi.c, kvm_gate.c) against
 * a fake KVM (kvm_fake.h: this test's ioctl is wrapped, and the fake answers the
 * glue's KVM calls as KVM's api.rst says and records them).  A guest is a script
 * of exits; the sim backend counts what the script ticks.
 *
 * What it checks:
 *   - the time a PMI's delivery takes (KVM_GET_LAPIC, KVM_SET_LAPIC for the
 *     auto-mask, KVM_SIGNAL_MSI: made slow here, as they are in the nested
 *     tier) is reported apart (pmi_ns/pmi_timed, vpmu-run's pmi-inject-ns/pmi)
 *     and is not in libvpmu's time per exit (msr_ns/msr_timed,
 *     libvpmu-ns/exit);
 *   - on a CPU that auto-masks, no interrupt is lost to the LVTPC mask's
 *     KVM_SET_LAPIC: neither another vCPU's IPIs, sent from inside its
 *     KVM_RUN, nor the VMM's device interrupts, raised between
 *     vpmu_kvm_irq_begin and vpmu_kvm_irq_end (the gate, kvm_gate.h);
 *   - the steps, driven as a VMM with its own run loop drives them (QEMU's
 *     kvm_cpu_exec: pre_run, KVM_RUN, post_run, handle_exit), with its own CPUID
 *     and kick: MSR exits answered, a foreign one left to the VMM, a kick
 *     landing an overflow whose PMI goes in before the next entry, pause and
 *     resume, and a reset to the power-on register values.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "kvm_fake.h"
#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/kvm_x86.h"
#include "vpmu/vpmu.h"

/* ---- a VM on the fake KVM ---- */

struct vm {
	struct vpmu_host *host;
	struct vpmu_vm *vm;
	struct vpmu_vcpu *v[NR_VCPUS];
	struct vpmu_kvm_vcpu *kv[NR_VCPUS];
};

static void fake_reset(void)
{
	memset(&calls, 0, sizeof(calls));
	for (unsigned i = 0; i < NR_VCPUS; i++) {
		memset(lapic[i], 0, sizeof(lapic[i]));
		set_reg(i, APIC_SVR, 0x1FF);                 /* software-enabled */
		set_reg(i, APIC_LVTPC, PMI_VECTOR);          /* fixed delivery, unmasked */
		set_reg(i, 0x020, i << 24);                  /* the APIC id, xAPIC style */
		step[i] = 0;
		has_run_mask[i] = false;
	}
}

/* A backend whose overflows land only when the glue polls, as the perf
 * backend's do (its overflow signal kicks the vCPU thread, and
 * vpmu_vcpu_poll reads what overflowed): the sim, with the cycles the guest
 * ran counted at the poll. */
static bool deferred;
static struct vpmu_backend_ops deferred_ops;
static uint64_t deferred_cycles[NR_VCPUS];

static void deferred_poll(void *ctx, unsigned cpu)
{
	(void)ctx;
	vpmu_sim_tick(sim, cpu, VPMU_EV_CYCLES, deferred_cycles[cpu], VPMU_MODE_KERNEL);
	deferred_cycles[cpu] = 0;
}

/* The VMM keeps its own MSR filter (vpmu_kvm_vm_init, as QEMU does). */
static bool own_filter;

static bool vm_up(struct vm *m, const char *model, int cpumodel)
{
	struct vpmu_backend be;
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	char err[VPMU_KVM_ERRLEN] = "";
	memset(m, 0, sizeof(*m));
	cfg.model = model;
	cfg.cpumodel = cpumodel;
	vpmu_sim_create(NR_VCPUS, &sim);
	vpmu_sim_backend(sim, &be);
	if (deferred) {
		deferred_ops = *be.ops;
		deferred_ops.poll = deferred_poll;
		be.ops = &deferred_ops;
	}
	vpmu_host_create(&be, NR_VCPUS, &m->host);
	vpmu_sim_attach(sim, m->host);
	int r = vpmu_vm_create(m->host, &cfg, &m->vm);
	r = r ? r : own_filter ? vpmu_kvm_vm_init(VM_FD, m->vm, err)
		  : vpmu_kvm_vm_setup(VM_FD, m->vm, err);
	if (r)
		printf("#   %s\n", err);
	return r == 0;
}

/* vCPU i's glue, set up on the calling thread (its vCPU thread). */
static bool vcpu_up(struct vm *m, unsigned i)
{
	char err[VPMU_KVM_ERRLEN] = "";
	int r = vpmu_vcpu_create(m->vm, i, &m->v[i]);
	r = r ? r : vpmu_kvm_vcpu_setup(VM_FD, VCPU_FD + (int)i, runs[i], m->v[i], KICK, &m->kv[i], err);
	if (r)
		printf("#   vCPU %u: %d %s\n", i, r, err);
	return r == 0;
}

static void vm_down(struct vm *m)
{
	for (unsigned i = 0; i < NR_VCPUS; i++)
		vpmu_kvm_vcpu_destroy(m->kv[i]);
	vpmu_vm_destroy(m->vm);
	vpmu_host_destroy(m->host);
	vpmu_sim_destroy(sim);
}

/* The guest's driver programs vCPU i's counter 0: i-mode, 10 cycles from overflow. */
static void program(struct vm *m, unsigned i)
{
	enum vpmu_fault f;
	vpmu_reg_write(m->v[i], VPMU_SPACE_MSR, MSR_PERFCTR0, (uint64_t)-10 & 0xFFFFFFFFu, &f);
	vpmu_reg_write(m->v[i], VPMU_SPACE_MSR, MSR_EVNTSEL0, EVNTSEL_CYCLES_INT_EN, &f);
}

/* Runs vCPU i to a halt, as a VMM's loop does (a kick: run again). */
static int run_to_halt(struct vm *m, unsigned i, unsigned *kicks)
{
	char err[VPMU_KVM_ERRLEN] = "";
	for (;;) {
		int r = vpmu_kvm_vcpu_run(m->kv[i], i, err);
		if (r == -EINTR) {
			++*kicks;
			continue;
		}
		if (r < 0)
			printf("#   vCPU %u: %d %s\n", i, r, err);
		return r;
	}
}

/* ---- libvpmu's time per exit, and the PMI's apart ---- */

/* A guest whose cycles counter (i-mode, 10 from its overflow) overflows
 * while it runs; its next exit is a PMU MSR one, the first of the run (one
 * that the glue times), and a halt ends the run. */
static int overflow_then_halt(unsigned vcpu, unsigned n)
{
	if (n == 0) {
		vpmu_sim_tick(sim, vcpu, VPMU_EV_CYCLES, 100, VPMU_MODE_KERNEL);
		msr_exit(vcpu, KVM_EXIT_X86_WRMSR, MSR_EVNTSEL0, EVNTSEL_CYCLES_INT_EN);
		return 0;
	}
	runs[vcpu]->exit_reason = KVM_EXIT_HLT;
	return 0;
}

#define SLOW_US 20000

static void timing(const char *name, int cpumodel, bool automask)
{
	struct vm m;
	unsigned kicks = 0;
	fake_reset();
	slow_us = SLOW_US;
	script[0] = overflow_then_halt;
	bool up = vm_up(&m, "p6", cpumodel) && vcpu_up(&m, 0);
	ok(up, "%s: the glue set up on the fake KVM", name);
	if (!up)
		return;
	program(&m, 0);
	int r = run_to_halt(&m, 0, &kicks);
	const struct vpmu_kvm_stats *s = vpmu_kvm_vcpu_stats(m.kv[0]);
	ok(r == 0 && runs[0]->exit_reason == KVM_EXIT_HLT && calls.runs == 2 && !kicks,
	   "%s: the run ends at the guest's halt, after its PMU MSR exit", name);
	ok(s->msr_exits == 1 && s->msr_timed == 1, "%s: the MSR exit answered and timed", name);
	/* with the auto-mask the page is read once more, inside the gate */
	ok(s->pmis_fixed == 1 && calls.msi == 1 && calls.get_lapic == (automask ? 2u : 1u) &&
	   calls.set_lapic == (automask ? 1u : 0u),
	   "%s: the PMI delivered with its vector, %s", name,
	   automask ? "the LVTPC masked first (KVM_SET_LAPIC)" : "the LVTPC left as it was");
	ok(calls.msi_masked == (automask ? 1u : 0u), "%s: LVTPC %s when the PMI went in", name,
	   automask ? "masked" : "unmasked");
	unsigned slow = calls.get_lapic + calls.set_lapic + calls.msi;
	uint64_t per_exit = s->msr_timed ? s->msr_ns / s->msr_timed : 0;
	ok(per_exit < SLOW_US * 1000ull,
	   "%s: libvpmu's time per exit leaves the PMI's KVM calls out (%llu ns, each call %u us)", name,
	   (unsigned long long)per_exit, SLOW_US);
	ok(s->pmi_timed == 1 && s->pmi_ns >= slow * SLOW_US * 1000ull,
	   "%s: the PMI's delivery timed apart: %llu ns for its %u KVM calls", name,
	   (unsigned long long)s->pmi_ns, slow);
	vm_down(&m);
}

/* ---- no interrupt lost to the auto-mask's KVM_SET_LAPIC ---- */

#define ROUNDS 24

static atomic_bool stop;
static unsigned ipis_sent, irqs_sent, ipis_seen, irqs_seen;   /* under kvm_lock */

/* vCPU 0 takes ROUNDS PMIs: each KVM_RUN, its guest takes what its IRR holds
 * (counting the IPIs and device interrupts), unmasks its LVTPC as a PMI handler
 * does, and runs until its counter overflows; its exit then reloads the
 * counter (the handler's WRMSR), and the glue delivers the PMI before the next
 * entry.  Then it halts. */
static int pmi_rounds(unsigned vcpu, unsigned n)
{
	pthread_mutex_lock(&kvm_lock);
	for (unsigned k = 0; k < NR_VECTORS; k++) {
		if (irr(vcpu, IPI_VECTOR0 + k)) {
			set_irr(vcpu, IPI_VECTOR0 + k, false);
			ipis_seen++;
		}
		if (irr(vcpu, IRQ_VECTOR0 + k)) {
			set_irr(vcpu, IRQ_VECTOR0 + k, false);
			irqs_seen++;
		}
	}
	set_irr(vcpu, PMI_VECTOR, false);
	set_reg(vcpu, APIC_LVTPC, reg(vcpu, APIC_LVTPC) & ~LVT_MASKED);
	pthread_mutex_unlock(&kvm_lock);
	if (n >= ROUNDS) {
		runs[vcpu]->exit_reason = KVM_EXIT_HLT;
		return 0;
	}
	vpmu_sim_tick(sim, vcpu, VPMU_EV_CYCLES, 100, VPMU_MODE_KERNEL);
	msr_exit(vcpu, KVM_EXIT_X86_WRMSR, MSR_PERFCTR0, (uint64_t)-10 & 0xFFFFFFFFu);
	return 0;
}

/* vCPU 1 sends vCPU 0 an IPI every 100 us while it is in KVM_RUN, each on a
 * vector vCPU 0 has not taken yet; a kick ends the KVM_RUN, the end of the
 * test halts it. */
static int ipi_sender(unsigned vcpu, unsigned n)
{
	static unsigned next;
	(void)n;
	while (!kicked && !atomic_load(&stop)) {
		pthread_mutex_lock(&kvm_lock);
		unsigned vec = IPI_VECTOR0 + next % NR_VECTORS;
		if (!irr(0, vec)) {
			set_irr(0, vec, true);
			ipis_sent++;
			next++;
		}
		pthread_mutex_unlock(&kvm_lock);
		sleep_us(100);
	}
	if (kicked) {
		errno = EINTR;
		return -1;
	}
	runs[vcpu]->exit_reason = KVM_EXIT_HLT;
	return 0;
}

struct thread_arg {
	struct vm *m;
	unsigned index, kicks;
	int r;
	bool up;
	pthread_barrier_t *ready;
};

static void *vcpu_thread(void *p)
{
	struct thread_arg *a = p;
	a->up = vcpu_up(a->m, a->index);
	if (a->up && a->index == 0)
		program(a->m, 0);
	pthread_barrier_wait(a->ready);
	a->r = a->up ? run_to_halt(a->m, a->index, &a->kicks) : -1;
	if (a->index == 0)
		atomic_store(&stop, true);
	return NULL;
}

/* The VMM's device: an interrupt every 150 us (a KVM_IRQ_LINE that the fake
 * routes to vCPU 0), each between vpmu_kvm_irq_begin and vpmu_kvm_irq_end. */
static void *device_thread(void *p)
{
	struct vm *m = p;
	unsigned next = 0;
	while (!atomic_load(&stop)) {
		vpmu_kvm_irq_begin(m->vm);
		pthread_mutex_lock(&kvm_lock);
		unsigned vec = IRQ_VECTOR0 + next % NR_VECTORS;
		if (!irr(0, vec)) {
			set_irr(0, vec, true);
			irqs_sent++;
			next++;
		}
		pthread_mutex_unlock(&kvm_lock);
		vpmu_kvm_irq_end(m->vm);
		sleep_us(150);
	}
	return NULL;
}

static void no_lost_interrupts(void)
{
	struct vm m;
	struct thread_arg a[NR_VCPUS];
	pthread_t t[NR_VCPUS], dev;
	pthread_barrier_t ready;
	fake_reset();
	slow_us = 2000;
	ipis_sent = irqs_sent = ipis_seen = irqs_seen = 0;
	atomic_store(&stop, false);
	script[0] = pmi_rounds;
	script[1] = ipi_sender;
	/* a Pentium M: the LVTPC auto-masks */
	bool up = vm_up(&m, "p6", 13);
	ok(up, "Pentium M VM with two vCPUs on the fake KVM");
	if (!up)
		return;
	pthread_barrier_init(&ready, NULL, NR_VCPUS + 1);
	for (unsigned i = 0; i < NR_VCPUS; i++) {
		a[i] = (struct thread_arg){ .m = &m, .index = i, .ready = &ready };
		pthread_create(&t[i], NULL, vcpu_thread, &a[i]);
	}
	pthread_barrier_wait(&ready);
	pthread_create(&dev, NULL, device_thread, &m);
	for (unsigned i = 0; i < NR_VCPUS; i++)
		pthread_join(t[i], NULL);
	pthread_join(dev, NULL);
	pthread_barrier_destroy(&ready);
	/* what the guest had not taken yet is still in its IRR */
	pthread_mutex_lock(&kvm_lock);
	for (unsigned k = 0; k < NR_VECTORS; k++) {
		ipis_seen += irr(0, IPI_VECTOR0 + k);
		irqs_seen += irr(0, IRQ_VECTOR0 + k);
	}
	pthread_mutex_unlock(&kvm_lock);
	const struct vpmu_kvm_stats *s = vpmu_kvm_vcpu_stats(m.kv[0]);
	ok(a[0].up && a[1].up && a[0].r == 0 && a[1].r == 0, "both vCPUs ran to their halt");
	ok(s->pmis_fixed == ROUNDS && calls.set_lapic == ROUNDS && calls.msi_masked == ROUNDS,
	   "vCPU 0: %u PMIs delivered, each with the LVTPC masked first (%llu, %u, %u)", ROUNDS,
	   (unsigned long long)s->pmis_fixed, calls.set_lapic, calls.msi_masked);
	ok(a[1].kicks > 0, "vCPU 1 kicked out of KVM_RUN for vCPU 0's LAPIC writes (%u times)",
	   a[1].kicks);
	ok(ipis_sent > ROUNDS && ipis_seen == ipis_sent,
	   "every IPI of vCPU 1 reached vCPU 0: %u sent, %u taken", ipis_sent, ipis_seen);
	ok(irqs_sent > ROUNDS && irqs_seen == irqs_sent,
	   "every device interrupt of the VMM reached vCPU 0: %u raised, %u taken", irqs_sent,
	   irqs_seen);
	vm_down(&m);
}

/* ---- a VMM with its own run loop: the glue's steps ---- */

/* The P6's other PMU registers and the VMM's own MSR (Intel SDM vol. 3,
 * "Performance Monitoring Overview: P6 family"; vol. 4, the MSR lists). */
#define MSR_EVNTSEL1      0x187
#define MSR_MISC_ENABLE   0x1A0
#define MSR_CORE_THREADS  0x35      /* MSR_CORE_THREAD_COUNT: QEMU filters it for itself */
#define UNTOUCHED         0xDEADull
#define FAST_STRINGS      0x1ull    /* IA32_MISC_ENABLE bit 0: not the PMU's */
/* IA32_MISC_ENABLE's PMU bits (bit 7 performance monitoring available, bits
 * 11 and 12 BTS and PEBS unavailable): read-only, set from power-on on a CPU
 * that has the MSR (the Pentium M) and no BTS or PEBS to offer. */
#define MISC_ENABLE_POWER_ON ((1ull << 7) | (1ull << 11) | (1ull << 12))

/* The guest of the own loop, one exit per KVM_RUN: its driver loads counter
 * 0 (10 cycles from overflow, i-mode), programs it, reads the select back, and
 * touches an MSR that is the VMM's; then it runs 100 cycles, and the backend's
 * overflow signal kicks the thread (counted at the poll: deferred_poll); then
 * it sets a bit of IA32_MISC_ENABLE that is not the PMU's, and halts. */
static int own_guest(unsigned vcpu, unsigned n)
{
	switch (n) {
	case 0:
		msr_exit(vcpu, KVM_EXIT_X86_WRMSR, MSR_PERFCTR0, (uint64_t)-10 & 0xFFFFFFFFu);
		return 0;
	case 1:
		msr_exit(vcpu, KVM_EXIT_X86_WRMSR, MSR_EVNTSEL0, EVNTSEL_CYCLES_INT_EN);
		return 0;
	case 2:
		msr_exit(vcpu, KVM_EXIT_X86_RDMSR, MSR_EVNTSEL0, UNTOUCHED);
		return 0;
	case 3:
		msr_exit(vcpu, KVM_EXIT_X86_RDMSR, MSR_CORE_THREADS, UNTOUCHED);
		return 0;
	case 4:
		deferred_cycles[vcpu] += 100;
		pthread_kill(pthread_self(), KICK);   /* unblocked here: the handler runs now */
		errno = EINTR;
		return -1;
	case 5:
		msr_exit(vcpu, KVM_EXIT_X86_WRMSR, MSR_MISC_ENABLE, MISC_ENABLE_POWER_ON | FAST_STRINGS);
		return 0;
	default:
		runs[vcpu]->exit_reason = KVM_EXIT_HLT;
		return 0;
	}
}

/* One pass of the VMM's loop up to the exit: pre_run, KVM_RUN, post_run, as
 * QEMU's kvm_cpu_exec() orders kvm_arch_pre_run, KVM_RUN and
 * kvm_arch_post_run.  KVM_RUN's result, 0 or -errno. */
static int own_pass(struct vpmu_kvm_vcpu *kv)
{
	char err[VPMU_KVM_ERRLEN] = "";
	int r = vpmu_kvm_vcpu_pre_run(kv, err);
	if (r < 0) {
		printf("#   pre_run: %d %s\n", r, err);
		return r;
	}
	r = ioctl(VCPU_FD, KVM_RUN, 0) < 0 ? -errno : 0;
	vpmu_kvm_vcpu_post_run(kv, r);
	return r;
}

static uint64_t get(struct vpmu_vcpu *v, uint32_t msr)
{
	uint64_t val = UNTOUCHED;
	return vpmu_reg_get(v, VPMU_SPACE_MSR, msr, &val) == 0 ? val : UNTOUCHED;
}

static uint64_t switch_ins(struct vpmu_vcpu *v)
{
	struct vpmu_totals t;
	vpmu_vcpu_totals(v, &t);
	return t.switch_ins;
}

static void *own_loop_thread(void *p)
{
	struct vm *m = p;
	struct kvm_run *run = runs[0];
	char err[VPMU_KVM_ERRLEN] = "";
	/* The VMM's own kick: the signal unblocked on the thread, its handler
	 * ending a KVM_RUN (kvmtool's way; QEMU's handler sets immediate_exit). */
	sigset_t k;
	sigemptyset(&k);
	sigaddset(&k, KICK);
	pthread_sigmask(SIG_UNBLOCK, &k, NULL);

	/* The VMM's own CPUID table, from the glue's leaves, then the glue. */
	union {
		struct kvm_cpuid2 c;
		unsigned char bytes[sizeof(struct kvm_cpuid2) +
				    VPMU_MAX_CPUID_LEAVES * sizeof(struct kvm_cpuid_entry2)];
	} cpuid;
	memset(&cpuid, 0, sizeof(cpuid));
	int n = vpmu_kvm_cpuid_entries(m->vm, 0, cpuid.c.entries, VPMU_MAX_CPUID_LEAVES);
	cpuid.c.nent = n > 0 ? (uint32_t)n : 0;
	ioctl(VCPU_FD, KVM_SET_CPUID2, &cpuid);
	int r = vpmu_vcpu_create(m->vm, 0, &m->v[0]);
	r = r ? r : vpmu_kvm_vcpu_init(VM_FD, VCPU_FD, run, m->v[0], KICK, &m->kv[0], err);
	ok(r == 0 && n > 0, "own loop: vpmu_kvm_vcpu_init after the VMM's own CPUID (%d %s)", r, err);
	if (r)
		return NULL;
	struct vpmu_kvm_vcpu *kv = m->kv[0];
	struct vpmu_vcpu *v = m->v[0];
	const struct vpmu_kvm_stats *s = vpmu_kvm_vcpu_stats(kv);
	ok(calls.set_cpuid == 1 && calls.set_signal_mask == 0,
	   "own loop: the glue set neither CPUID nor the signal mask (KVM_SET_CPUID2 %u: the "
	   "VMM's; KVM_SET_SIGNAL_MASK %u)", calls.set_cpuid, calls.set_signal_mask);

	ok(vpmu_kvm_vcpu_resume(kv, 0, err) == 0 && vpmu_kvm_vcpu_resume(kv, 0, err) == 0 &&
	   vpmu_vcpu_running(v, NULL) && switch_ins(v) == 1,
	   "own loop: resume switches the vPMU in once; again on the same slot, nothing");

	/* WRMSR PERFCTR0: a P6 counter write sign-extends bit 31 into 40 bits. */
	r = own_pass(kv);
	ok(r == 0 && vpmu_kvm_vcpu_handle_exit(kv, run) == 1 && run->msr.error == 0 &&
	   get(v, MSR_PERFCTR0) == 0xFFFFFFFFF6ull,
	   "own loop: a WRMSR exit of PERFCTR0 is the vPMU's, answered (0x%llx)",
	   (unsigned long long)get(v, MSR_PERFCTR0));
	r = own_pass(kv);
	ok(r == 0 && vpmu_kvm_vcpu_handle_exit(kv, run) == 1 && run->msr.error == 0 &&
	   get(v, MSR_EVNTSEL0) == EVNTSEL_CYCLES_INT_EN, "own loop: a WRMSR exit of EVNTSEL0 answered");
	r = own_pass(kv);
	ok(r == 0 && vpmu_kvm_vcpu_handle_exit(kv, run) == 1 && run->msr.error == 0 &&
	   run->msr.data == EVNTSEL_CYCLES_INT_EN,
	   "own loop: a RDMSR exit of EVNTSEL0 answered with what the guest wrote (0x%llx)",
	   (unsigned long long)run->msr.data);
	r = own_pass(kv);
	ok(r == 0 && vpmu_kvm_vcpu_handle_exit(kv, run) == 0 && run->msr.data == UNTOUCHED &&
	   s->msr_exits == 3,
	   "own loop: a RDMSR exit of the VMM's MSR_CORE_THREAD_COUNT left to the VMM, untouched");
	ok(vpmu_kvm_vcpu_handle_exit(kv, NULL) == -EINVAL &&
	   vpmu_kvm_vcpu_handle_exit(NULL, run) == -EINVAL,
	   "own loop: handle_exit refuses NULL and another kvm_run");
	ok(s->msr_timed == 1, "own loop: the first exit timed to the next entry (msr_timed %llu)",
	   (unsigned long long)s->msr_timed);

	/* The guest runs 100 cycles; the overflow signal kicks. */
	ok(vpmu_kvm_vcpu_pre_run(kv, err) == 0, "own loop: pre_run before the kicked run");
	r = ioctl(VCPU_FD, KVM_RUN, 0) < 0 ? -errno : 0;
	bool before = vpmu_vcpu_pmi_pending(v, NULL);
	vpmu_kvm_vcpu_post_run(kv, r);
	/* -10 + 100 cycles wraps the 40-bit counter to 90, with INT: a PMI. */
	ok(r == -EINTR && !before && vpmu_vcpu_pmi_pending(v, NULL) && s->kicks == 1 &&
	   get(v, MSR_PERFCTR0) == 90,
	   "own loop: a kick's post_run lands the overflow (PMI pending %d before, %d after; "
	   "PERFCTR0 %llu)", before, vpmu_vcpu_pmi_pending(v, NULL),
	   (unsigned long long)get(v, MSR_PERFCTR0));
	unsigned msi = calls.msi, set_lapic = calls.set_lapic;
	r = own_pass(kv);
	/* The Pentium M auto-masks: the LVTPC masked, then the fixed vector. */
	ok(r == 0 && calls.msi == msi + 1 && calls.set_lapic == set_lapic + 1 &&
	   calls.msi_masked == 1 && irr(0, PMI_VECTOR) && s->pmis_fixed == 1 &&
	   !vpmu_vcpu_pmi_pending(v, NULL),
	   "own loop: pre_run injects the PMI through the LVTPC before the entry");
	ok(vpmu_kvm_vcpu_handle_exit(kv, run) == 1 && get(v, MSR_MISC_ENABLE) ==
	   (MISC_ENABLE_POWER_ON | FAST_STRINGS), "own loop: the guest sets IA32_MISC_ENABLE bit 0");
	r = own_pass(kv);
	ok(r == 0 && run->exit_reason == KVM_EXIT_HLT && vpmu_kvm_vcpu_handle_exit(kv, run) == 0,
	   "own loop: the halt is the VMM's");

	/* Pause and resume. */
	ok(vpmu_kvm_vcpu_pause(kv) == 0 && !vpmu_vcpu_running(v, NULL) &&
	   vpmu_kvm_vcpu_pre_run(kv, err) == 0 && vpmu_kvm_vcpu_post_run(kv, 0) == 0,
	   "own loop: paused, the vPMU is switched out and pre_run/post_run pass");
	ok(vpmu_kvm_vcpu_resume(kv, 0, err) == 0 && vpmu_vcpu_running(v, NULL) && switch_ins(v) == 2 &&
	   get(v, MSR_PERFCTR0) == 90, "own loop: resumed, switched in again with its count");

	/* Reset (a reboot), with a PMI pending: 2^40 cycles wrap the counter. */
	vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 1ull << 40, VPMU_MODE_KERNEL);
	bool pending = vpmu_vcpu_pmi_pending(v, NULL);
	ok(vpmu_kvm_vcpu_reset(kv) == 0, "own loop: reset");
	ok(pending && !vpmu_vcpu_pmi_pending(v, NULL), "own loop: reset drops the pending PMI");
	is_u64(get(v, MSR_PERFCTR0), 0, "own loop: reset: PERFCTR0 0");
	is_u64(get(v, MSR_EVNTSEL0), 0, "own loop: reset: EVNTSEL0 0 (disabled)");
	is_u64(get(v, MSR_EVNTSEL1), 0, "own loop: reset: EVNTSEL1 0");
	is_u64(get(v, MSR_MISC_ENABLE), MISC_ENABLE_POWER_ON,
	       "own loop: reset: IA32_MISC_ENABLE its PMU bits only");
	vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 100, VPMU_MODE_KERNEL);
	msi = calls.msi;
	ok(get(v, MSR_PERFCTR0) == 0 && vpmu_kvm_vcpu_pre_run(kv, err) == 0 &&
	   vpmu_kvm_vcpu_post_run(kv, 0) == 0 && calls.msi == msi,
	   "own loop: after the reset the counter stays at 0 and no PMI goes in");
	ok(vpmu_kvm_vcpu_reset(NULL) == -EINVAL && vpmu_vcpu_reset(NULL) == -EINVAL,
	   "reset refuses NULL");
	return NULL;
}

static void own_loop(void)
{
	struct vm m;
	pthread_t t;
	fake_reset();
	slow_us = 0;
	script[0] = own_guest;
	deferred = true;
	memset(deferred_cycles, 0, sizeof(deferred_cycles));
	/* a Pentium M: the LVTPC auto-masks, and IA32_MISC_ENABLE exists; the
	 * VMM's own MSR filter (its kvm_filter_msr_range's, in QEMU) */
	own_filter = true;
	bool up = vm_up(&m, "p6", 13);
	own_filter = false;
	ok(up, "own loop: Pentium M VM on the fake KVM, overflows landing at the poll");
	ok(calls.set_msr_filter == 0 && calls.msr_exit_reasons == KVM_MSR_EXIT_REASON_FILTER,
	   "own loop: vpmu_kvm_vm_init leaves the MSR filter to the VMM (%u KVM_X86_SET_MSR_FILTER) "
	   "and enables the filter's exits (reasons 0x%llx; this KVM has no RDPMC exit)",
	   calls.set_msr_filter, (unsigned long long)calls.msr_exit_reasons);
	char e2[VPMU_KVM_ERRLEN];
	ok(vpmu_kvm_vm_init(-1, m.vm, e2) == -EINVAL && vpmu_kvm_vm_init(VM_FD, NULL, e2) == -EINVAL,
	   "vpmu_kvm_vm_init refuses a bad fd or a NULL VM");
	if (up) {
		pthread_create(&t, NULL, own_loop_thread, &m);
		pthread_join(t, NULL);
		vm_down(&m);
	}
	deferred = false;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_kick;
	sigaction(KICK, &sa, NULL);
	/* the glue unblocks its kick signal only inside KVM_RUN */
	sigset_t k;
	sigemptyset(&k);
	sigaddset(&k, KICK);
	pthread_sigmask(SIG_BLOCK, &k, NULL);
	for (unsigned i = 0; i < NR_VCPUS; i++) {
		runs[i] = calloc(1, sizeof(*runs[i]));
		if (!runs[i]) {
			printf("Bail out! out of memory\n");
			return 1;
		}
	}
	timing("p6 (Pentium III)", -1, false);              /* no auto-mask */
	timing("p6 cpumodel 13 (Pentium M)", 13, true);     /* LVTPC masked on delivery */
	no_lost_interrupts();
	own_loop();
	for (unsigned i = 0; i < NR_VCPUS; i++)
		free(runs[i]);
	return tap_done();
}
