/* SPDX-License-Identifier: MIT */
/*
 * The fake KVM of tests/unit/kvm_glue.c: that test is linked with
 * -Wl,--wrap=ioctl (Makefile), so the glue's KVM calls on the fake file
 * descriptors below reach __wrap_ioctl, which answers them as KVM's api.rst
 * says and records them.  A guest is a script of exits.  The fake LAPIC page is
 * KVM's as far as the glue can tell: KVM_GET_LAPIC copies it out,
 * KVM_SET_LAPIC copies the whole page in (arch/x86/kvm/lapic.c,
 * kvm_apic_set_state), and an IPI or a device interrupt sets a bit of its IRR.
 * Included by kvm_glue.c alone.
 */
#ifndef VPMU_TEST_KVM_FAKE_H
#define VPMU_TEST_KVM_FAKE_H

#include <errno.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "vpmu/backend.h"

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
static bool has_run_mask[NR_VCPUS];     /* KVM_SET_SIGNAL_MASK was called */
static struct {
	unsigned get_lapic, set_lapic, msi, nmi, runs;
	unsigned set_cpuid, set_signal_mask;
	unsigned msi_masked;            /* MSIs that found the LVTPC masked */
	unsigned set_msr_filter;
	uint64_t msr_exit_reasons;      /* KVM_CAP_X86_USER_SPACE_MSR's, as enabled */
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
	/* Without KVM_SET_SIGNAL_MASK, KVM_RUN runs with the thread's own mask. */
	if (has_run_mask[vcpu])
		pthread_sigmask(SIG_SETMASK, &run_mask[vcpu], &old);
	int r = kicked ? (errno = EINTR, -1) : script[vcpu](vcpu, step[vcpu]++);
	if (has_run_mask[vcpu])
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
		if (c->cap == KVM_CAP_X86_USER_SPACE_MSR)
			calls.msr_exit_reasons = c->args[0];
		return 0;
	}
	case KVM_X86_SET_MSR_FILTER:
		calls.set_msr_filter++;
		return 0;
	case KVM_SET_CPUID2:
		pthread_mutex_lock(&kvm_lock);
		calls.set_cpuid++;
		pthread_mutex_unlock(&kvm_lock);
		return 0;
	case KVM_SET_SIGNAL_MASK: {
		const struct kvm_signal_mask *m = arg;
		pthread_mutex_lock(&kvm_lock);
		calls.set_signal_mask++;
		pthread_mutex_unlock(&kvm_lock);
		/* the vCPU's own thread alone sets and reads its mask */
		has_run_mask[vcpu] = true;
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

#endif
