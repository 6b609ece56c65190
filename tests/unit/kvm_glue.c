/* SPDX-License-Identifier: MIT */
/*
 * The KVM glue (vmm-glue/kvm_x86.c, kvm_pmi.c, kvm_gate.c) against a fake KVM:
 * this test is linked with -Wl,--wrap=ioctl (Makefile), so the glue's KVM
 * calls on the fake file descriptors below reach __wrap_ioctl, which answers
 * them as KVM's api.rst says and records them.  A guest is a script of exits;
 * the sim backend counts what the script ticks.  The fake LAPIC page is
 * KVM's as far as the glue can tell: KVM_GET_LAPIC copies it out,
 * KVM_SET_LAPIC copies the whole page in (arch/x86/kvm/lapic.c,
 * kvm_apic_set_state), and an IPI or a device interrupt sets a bit of its IRR.
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
 *     vpmu_kvm_irq_begin and vpmu_kvm_irq_end (the gate, kvm_gate.h).
 */
#include <errno.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/kvm_x86.h"
#include "vpmu/vpmu.h"

int __wrap_ioctl(int fd, unsigned long req, ...);
int __real_ioctl(int fd, unsigned long req, ...);

#define VM_FD   1000
#define VCPU_FD 1001            /* vCPU i: VCPU_FD + i */
#define NR_VCPUS 2
#define KICK SIGUSR1

/* The P6's registers (Intel SDM vol. 3, "Performance Monitoring Overview: P6
 * family"; docs/models/p6.md) and the LAPIC's (SDM vol. 3, "Advanced
 * Programmable Interrupt Controller": the register map, "Local Vector
 * Table"). */
#define MSR_PERFCTR0  0xC1
#define MSR_EVNTSEL0  0x186
#define EVNTSEL_CYCLES_INT_EN 0x00530079u   /* CPU_CLK_UNHALTED, USR|OS, INT, EN */
#define APIC_SVR      0x0F0
#define APIC_IRR      0x200     /* 8 registers of 32 vectors, 16 bytes apart */
#define APIC_LVTPC    0x340
#define LVT_MASKED    (1u << 16)
#define PMI_VECTOR    0xFE
#define IPI_VECTOR0   0x40      /* the other vCPU's IPIs: 0x40-0x7F */
#define IRQ_VECTOR0   0x80      /* the VMM's device interrupts: 0x80-0xBF */
#define NR_VECTORS    64

/* The fake KVM's state, under its lock as KVM's own is under its locks. */
static pthread_mutex_t kvm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kvm_run *runs[NR_VCPUS];
static uint8_t lapic[NR_VCPUS][KVM_APIC_REG_SIZE];
static sigset_t run_mask[NR_VCPUS];     /* KVM_SET_SIGNAL_MASK */
static unsigned slow_us;                /* each PMI delivery call of the glue takes this */
static struct {
	unsigned get_lapic, set_lapic, msi, nmi, runs;
	unsigned msi_masked;            /* MSIs that found the LVTPC masked */
} calls;

static struct vpmu_sim *sim;
static int (*script[NR_VCPUS])(unsigned vcpu, unsigned step);
static unsigned step[NR_VCPUS];
static _Thread_local volatile sig_atomic_t kicked;

static void on_kick(int sig)
{
	(void)sig;
	kicked = 1;
}

static void sleep_us(unsigned us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static uint32_t reg(unsigned vcpu, unsigned off)
{
	uint32_t v;
	memcpy(&v, lapic[vcpu] + off, sizeof(v));
	return v;
}

static void set_reg(unsigned vcpu, unsigned off, uint32_t v)
{
	memcpy(lapic[vcpu] + off, &v, sizeof(v));
}

static bool irr(unsigned vcpu, unsigned vec)
{
	return reg(vcpu, APIC_IRR + vec / 32 * 16) & (1u << (vec % 32));
}

static void set_irr(unsigned vcpu, unsigned vec, bool on)
{
	uint32_t v = reg(vcpu, APIC_IRR + vec / 32 * 16);
	v = on ? v | (1u << (vec % 32)) : v & ~(1u << (vec % 32));
	set_reg(vcpu, APIC_IRR + vec / 32 * 16, v);
}

/* The guest: exits the script makes KVM_RUN return. */
static void msr_exit(unsigned vcpu, uint32_t exit_reason, uint32_t index, uint64_t data)
{
	struct kvm_run *run = runs[vcpu];
	run->exit_reason = exit_reason;
	run->msr.reason = KVM_MSR_EXIT_REASON_FILTER;
	run->msr.index = index;
	run->msr.data = data;
	run->msr.error = 0;
}

/* KVM_RUN: the guest runs with the kick signal unblocked, as
 * KVM_SET_SIGNAL_MASK asks; a kick ends it with EINTR. */
static int fake_run(unsigned vcpu)
{
	sigset_t old;
	pthread_mutex_lock(&kvm_lock);
	calls.runs++;
	pthread_mutex_unlock(&kvm_lock);
	pthread_sigmask(SIG_SETMASK, &run_mask[vcpu], &old);
	int r = kicked ? (errno = EINTR, -1) : script[vcpu](vcpu, step[vcpu]++);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0 && errno == EINTR)
		kicked = 0;
	return r;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	unsigned long argv = va_arg(ap, unsigned long);
	va_end(ap);
	void *arg = (void *)argv;
	unsigned vcpu = (unsigned)(fd - VCPU_FD);
	if (fd != VM_FD && (fd < VCPU_FD || vcpu >= NR_VCPUS))
		return __real_ioctl(fd, req, arg);
	switch (req) {
	case KVM_CHECK_EXTENSION:
		return (int)argv == KVM_CAP_X86_USER_SPACE_MSR;
	case KVM_ENABLE_CAP: {
		const struct kvm_enable_cap *c = arg;
		if (c->cap == KVM_CAP_X86_USER_SPACE_MSR && (c->args[0] & ~KVM_MSR_EXIT_REASON_FILTER)) {
			errno = EINVAL;   /* a stock KVM: no RDPMC exit */
			return -1;
		}
		return 0;
	}
	case KVM_X86_SET_MSR_FILTER:
	case KVM_SET_CPUID2:
		return 0;
	case KVM_SET_SIGNAL_MASK: {
		const struct kvm_signal_mask *m = arg;
		sigemptyset(&run_mask[vcpu]);
		memcpy(&run_mask[vcpu], m->sigset, m->len < sizeof(sigset_t) ? m->len : sizeof(sigset_t));
		return 0;
	}
	case KVM_GET_MSRS:
	case KVM_SET_MSRS:
		errno = EINVAL;           /* no KVM PMU to keep RDPMC in step with */
		return -1;
	case KVM_GET_LAPIC:
		pthread_mutex_lock(&kvm_lock);
		calls.get_lapic++;
		memcpy(arg, lapic[vcpu], KVM_APIC_REG_SIZE);
		pthread_mutex_unlock(&kvm_lock);
		sleep_us(slow_us);
		return 0;
	case KVM_SET_LAPIC:
		sleep_us(slow_us);
		pthread_mutex_lock(&kvm_lock);
		calls.set_lapic++;
		memcpy(lapic[vcpu], arg, KVM_APIC_REG_SIZE);
		pthread_mutex_unlock(&kvm_lock);
		return 0;
	case KVM_SIGNAL_MSI: {
		const struct kvm_msi *msi = arg;
		unsigned dest = (msi->address_lo >> 12) & 0xFF;
		sleep_us(slow_us);
		pthread_mutex_lock(&kvm_lock);
		calls.msi++;
		calls.msi_masked += !!(reg(dest, APIC_LVTPC) & LVT_MASKED);
		set_irr(dest, msi->data & 0xFF, true);
		pthread_mutex_unlock(&kvm_lock);
		return 1;
	}
	case KVM_NMI:
		sleep_us(slow_us);
		pthread_mutex_lock(&kvm_lock);
		calls.nmi++;
		pthread_mutex_unlock(&kvm_lock);
		return 0;
	case KVM_RUN:
		return fake_run(vcpu);
	}
	errno = ENOTTY;
	return -1;
}

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
	}
}

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
	vpmu_host_create(&be, NR_VCPUS, &m->host);
	vpmu_sim_attach(sim, m->host);
	int r = vpmu_vm_create(m->host, &cfg, &m->vm);
	r = r ? r : vpmu_kvm_vm_setup(VM_FD, m->vm, err);
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
	for (unsigned i = 0; i < NR_VCPUS; i++)
		free(runs[i]);
	return tap_done();
}
