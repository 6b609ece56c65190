/* SPDX-License-Identifier: MIT */
/*
 * The KVM glue (vmm-glue/kvm_x86.c, kvm_pmi.c) against a fake KVM: this test is
 * linked with -Wl,--wrap=ioctl (Makefile), so the glue's KVM calls on the fake
 * file descriptors below reach __wrap_ioctl, which answers them as KVM's
 * api.rst says and records them.  The guest is a script of exits; the sim
 * backend counts what the script ticks.
 *
 * What it checks: the time a PMI's delivery takes (KVM_GET_LAPIC,
 * KVM_SET_LAPIC for the auto-mask, KVM_SIGNAL_MSI: made slow here, as they
 * are in the nested tier) is reported apart (pmi_ns/pmi_timed, vpmu-run's
 * pmi-inject-ns/pmi) and is not in libvpmu's time per exit (msr_ns/msr_timed,
 * libvpmu-ns/exit).
 */
#include <errno.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdarg.h>
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
#define VCPU_FD 1001

/* The P6's registers (Intel SDM vol. 3, "Performance Monitoring Overview: P6
 * family"; docs/models/p6.md) and the LAPIC's (SDM vol. 3, "Local Vector
 * Table"). */
#define MSR_PERFCTR0  0xC1
#define MSR_EVNTSEL0  0x186
#define EVNTSEL_CYCLES_INT_EN 0x00530079u   /* CPU_CLK_UNHALTED, USR|OS, INT, EN */
#define APIC_SVR      0x0F0
#define APIC_LVTPC    0x340
#define PMI_VECTOR    0xFE

/* How long each of the fake's PMI delivery calls takes: far above what
 * libvpmu's own work on an exit can take under ASan. */
#define SLOW_US 20000

static struct kvm_run *run;
static struct vpmu_sim *sim;
static uint8_t lapic[KVM_APIC_REG_SIZE];
static unsigned step;
static struct {
	unsigned get_lapic, set_lapic, msi, nmi, runs;
	uint32_t lvtpc_at_msi;          /* the LVTPC KVM held when the PMI went in */
} calls;

static void sleep_us(unsigned us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static uint32_t reg(unsigned off)
{
	uint32_t v;
	memcpy(&v, lapic + off, sizeof(v));
	return v;
}

static void set_reg(unsigned off, uint32_t v)
{
	memcpy(lapic + off, &v, sizeof(v));
}

/* The guest: exits the script makes KVM_RUN return. */
static void msr_exit(uint32_t exit_reason, uint32_t index, uint64_t data)
{
	run->exit_reason = exit_reason;
	run->msr.reason = KVM_MSR_EXIT_REASON_FILTER;
	run->msr.index = index;
	run->msr.data = data;
	run->msr.error = 0;
}

static int (*script)(unsigned step);

static int fake_run(void)
{
	calls.runs++;
	return script(step++);
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	unsigned long argv = va_arg(ap, unsigned long);
	va_end(ap);
	void *arg = (void *)argv;
	if (fd != VM_FD && fd != VCPU_FD)
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
	case KVM_SET_SIGNAL_MASK:
		return 0;
	case KVM_GET_MSRS:
	case KVM_SET_MSRS:
		errno = EINVAL;           /* no KVM PMU to keep RDPMC in step with */
		return -1;
	case KVM_GET_LAPIC:
		sleep_us(SLOW_US);
		calls.get_lapic++;
		memcpy(arg, lapic, sizeof(lapic));
		return 0;
	case KVM_SET_LAPIC:
		sleep_us(SLOW_US);
		calls.set_lapic++;
		memcpy(lapic, arg, sizeof(lapic));
		return 0;
	case KVM_SIGNAL_MSI:
		sleep_us(SLOW_US);
		calls.msi++;
		calls.lvtpc_at_msi = reg(APIC_LVTPC);
		return 1;
	case KVM_NMI:
		sleep_us(SLOW_US);
		calls.nmi++;
		return 0;
	case KVM_RUN:
		return fake_run();
	}
	errno = ENOTTY;
	return -1;
}

/* A guest whose cycles counter (i-mode, 10 from its overflow) overflows
 * while it runs; its next exit is a PMU MSR one, the first of the run (one
 * that the glue times), and a halt ends the run. */
static int overflow_then_halt(unsigned n)
{
	switch (n) {
	case 0:
		vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 100, VPMU_MODE_KERNEL);
		msr_exit(KVM_EXIT_X86_WRMSR, MSR_EVNTSEL0, EVNTSEL_CYCLES_INT_EN);
		return 0;
	default:
		run->exit_reason = KVM_EXIT_HLT;
		return 0;
	}
}

static void timing(const char *name, const char *model, int cpumodel, bool automask)
{
	struct vpmu_backend be;
	struct vpmu_host *host = NULL;
	struct vpmu_vm *vm = NULL;
	struct vpmu_vcpu *v = NULL;
	struct vpmu_kvm_vcpu *kv = NULL;
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	char err[VPMU_KVM_ERRLEN] = "";
	enum vpmu_fault f;

	memset(&calls, 0, sizeof(calls));
	memset(lapic, 0, sizeof(lapic));
	set_reg(APIC_SVR, 0x1FF);                 /* software-enabled */
	set_reg(APIC_LVTPC, PMI_VECTOR);          /* fixed delivery, unmasked */
	step = 0;
	script = overflow_then_halt;
	cfg.model = model;
	cfg.cpumodel = cpumodel;
	vpmu_sim_create(1, &sim);
	vpmu_sim_backend(sim, &be);
	vpmu_host_create(&be, 1, &host);
	vpmu_sim_attach(sim, host);
	int r = vpmu_vm_create(host, &cfg, &vm);
	r = r ? r : vpmu_kvm_vm_setup(VM_FD, vm, err);
	r = r ? r : vpmu_vcpu_create(vm, 0, &v);
	r = r ? r : vpmu_kvm_vcpu_setup(VM_FD, VCPU_FD, run, v, SIGUSR1, &kv, err);
	ok(r == 0, "%s: the glue set up on the fake KVM%s%s", name, *err ? ": " : "", err);
	if (r)
		return;
	/* The guest's driver programs counter 0: i-mode, 10 cycles from overflow. */
	vpmu_reg_write(v, VPMU_SPACE_MSR, MSR_PERFCTR0, (uint64_t)-10 & 0xFFFFFFFFu, &f);
	vpmu_reg_write(v, VPMU_SPACE_MSR, MSR_EVNTSEL0, EVNTSEL_CYCLES_INT_EN, &f);
	r = vpmu_kvm_vcpu_run(kv, 0, err);
	const struct vpmu_kvm_stats *s = vpmu_kvm_vcpu_stats(kv);
	ok(r == 0 && run->exit_reason == KVM_EXIT_HLT && calls.runs == 2,
	   "%s: the run ends at the guest's halt, after its PMU MSR exit %s", name, err);
	ok(s->msr_exits == 1 && s->msr_timed == 1, "%s: the MSR exit answered and timed", name);
	ok(s->pmis_fixed == 1 && calls.msi == 1 && calls.get_lapic == 1 &&
	   calls.set_lapic == (automask ? 1u : 0u),
	   "%s: the PMI delivered with its vector, %s", name,
	   automask ? "the LVTPC masked first (KVM_SET_LAPIC)" : "the LVTPC left as it was");
	ok(automask == !!(calls.lvtpc_at_msi & (1u << 16)), "%s: LVTPC %s when the PMI went in", name,
	   automask ? "masked" : "unmasked");
	unsigned slow = calls.get_lapic + calls.set_lapic + calls.msi;
	uint64_t per_exit = s->msr_timed ? s->msr_ns / s->msr_timed : 0;
	ok(per_exit < SLOW_US * 1000ull,
	   "%s: libvpmu's time per exit leaves the PMI's KVM calls out (%llu ns, each call %u us)", name,
	   (unsigned long long)per_exit, SLOW_US);
	ok(s->pmi_timed == 1 && s->pmi_ns >= slow * SLOW_US * 1000ull,
	   "%s: the PMI's delivery timed apart: %llu ns for its %u KVM calls", name,
	   (unsigned long long)s->pmi_ns, slow);
	vpmu_kvm_vcpu_destroy(kv);
	vpmu_vm_destroy(vm);
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
}

int main(void)
{
	run = calloc(1, sizeof(*run));
	if (!run) {
		printf("Bail out! out of memory\n");
		return 1;
	}
	/* the glue unblocks its kick signal only inside KVM_RUN */
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	timing("p6 (Pentium III)", "p6", -1, false);              /* no auto-mask */
	timing("p6 cpumodel 13 (Pentium M)", "p6", 13, true);     /* LVTPC masked on delivery */
	free(run);
	return tap_done();
}
