/* SPDX-License-Identifier: MIT */
/*
 * Virtual PMI delivery (kvm_pmi.h).  KVM interfaces: KVM_GET_LAPIC,
 * KVM_SET_LAPIC, KVM_NMI, KVM_SIGNAL_MSI (Linux Documentation/virt/kvm/api.rst);
 * the LVTPC write gate, kvm_gate.h.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kvm_pmi.h"

/* LAPIC register offsets in the KVM_GET_LAPIC page and LVT fields (Intel SDM
 * vol. 3, "Local Vector Table"). */
#define APIC_ID      0x020
#define APIC_SVR     0x0F0
#define APIC_LVTPC   0x340
#define SVR_ENABLE   (1u << 8)
#define LVT_MASKED   (1u << 16)
#define LVT_DM(v)    (((v) >> 8) & 7u)
#define LVT_DM_FIXED 0u
#define LVT_DM_NMI   4u

/* How soon a held PMI is looked at again: the guest unmasks the LVTPC with an
 * APIC write KVM handles in the kernel, so no exit says when.  A guest's PMI
 * handler runs for microseconds; this bounds the delay a held PMI adds. */
#define HELD_RECHECK_NS 200000

static uint32_t lapic_reg(const struct kvm_lapic_state *s, unsigned off)
{
	uint32_t v;
	memcpy(&v, s->regs + off, sizeof(v));
	return v;
}

static int sys_fail(const char **what, const char *call)
{
	int e = errno;
	*what = call;
	return -e;
}

/* A held PMI must be looked at again even if the guest makes no exit: a
 * one-shot timer kicks the vCPU thread (created on it, at first use).  Without
 * a timer the next exit looks. */
static void recheck_later(struct kvm_pmi *p)
{
	if (!p->timer_ok) {
		struct sigevent sev;
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = p->signo;
		sev._sigev_un._tid = gettid();
		p->timer_ok = timer_create(CLOCK_MONOTONIC, &sev, &p->timer) == 0;
		if (!p->timer_ok)
			return;
	}
	struct itimerspec its = { { 0, 0 }, { 0, HELD_RECHECK_NS } };
	timer_settime(p->timer, 0, &its, NULL);
}

/* The auto-mask: the LVTPC's mask bit set in KVM's LAPIC page, s read anew.
 *
 * The CPUs that auto-mask (the P4, the Pentium M and later:
 * vpmu_vm_pmi_automask) set the mask on delivery, and the guest's handler
 * clears it (Intel SDM vol. 3, "Local Vector Table").  KVM sets it only when
 * its own PMU delivers through the LVTPC (arch/x86/kvm/lapic.c,
 * kvm_apic_local_deliver), not for an interrupt user space injects, so the
 * glue sets it.  KVM has one register's write for user space only in x2APIC
 * mode (KVM_SET_MSRS of MSR 0x834, kvm_x2apic_msr_write); the CPUs that
 * auto-mask have no x2APIC, so the write is KVM_SET_LAPIC, which copies the
 * whole page in: an interrupt that reaches the APIC between the read and the
 * write (an IPI of another vCPU, a device's) would be lost.  So the page is read
 * and written with the VM's gate closed (kvm_gate.h): no other vCPU in KVM_RUN,
 * no injection of the VMM in progress.  The MSI comes after: the write would
 * drop it too. */
static int lvtpc_mask(struct kvm_pmi *p, struct kvm_lapic_state *s, const char **what)
{
	int r = 0;
	if (p->gate)
		kvm_gate_close(p->gate, p->index);
	if (ioctl(p->vcpu_fd, KVM_GET_LAPIC, s) < 0) {
		r = sys_fail(what, "KVM_GET_LAPIC");
	} else {
		/* only this vCPU's guest writes its LVTPC, and it is not running */
		uint32_t masked = lapic_reg(s, APIC_LVTPC) | LVT_MASKED;
		memcpy(s->regs + APIC_LVTPC, &masked, sizeof(masked));
		if (ioctl(p->vcpu_fd, KVM_SET_LAPIC, s) < 0)
			r = sys_fail(what, "KVM_SET_LAPIC (LVTPC mask)");
	}
	if (p->gate)
		kvm_gate_open(p->gate);
	return r;
}

static int deliver(struct kvm_pmi *p, struct kvm_lapic_state *s, uint32_t lvtpc,
		   struct vpmu_kvm_stats *st, const char **what)
{
	if (p->automask) {
		int r = lvtpc_mask(p, s, what);
		if (r < 0)
			return r;
	}
	switch (LVT_DM(lvtpc)) {
	case LVT_DM_NMI:
		if (ioctl(p->vcpu_fd, KVM_NMI) < 0)
			return sys_fail(what, "KVM_NMI");
		st->pmis_nmi++;
		return 0;
	case LVT_DM_FIXED: {
		/* In xAPIC mode KVM's LAPIC page holds the id in bits 24-31. */
		uint32_t apic_id = lapic_reg(s, APIC_ID) >> 24;
		struct kvm_msi msi = { .address_lo = 0xFEE00000u | apic_id << 12,
				       .data = lvtpc & 0xFF };
		if (ioctl(p->vm_fd, KVM_SIGNAL_MSI, &msi) < 0)
			return sys_fail(what, "KVM_SIGNAL_MSI");
		st->pmis_fixed++;
		return 0;
	}
	default: /* SMI, INIT, ExtINT: no PMI delivery a profiler programs */
		st->pmis_bad_mode++;
		return 0;
	}
}

/* Deliver the PMI as the guest's LVTPC says (docs/principles.md §6;
 * docs/integration.md "PMIs").  One the hardware would not deliver (APIC
 * software-disabled, LVTPC masked) is dropped, as the real CPU loses it, unless
 * the CPU's PMI is a level: then it waits for the unmask while its status
 * keeps the line asserted. */
int kvm_pmi_deliver(struct kvm_pmi *p, struct vpmu_vcpu *v, struct vpmu_kvm_stats *st,
		    const char **what)
{
	bool fresh = vpmu_vcpu_pmi_pending(v, NULL);
	if (fresh)
		vpmu_vcpu_pmi_ack(v);
	bool level = vpmu_vcpu_pmi_asserted(v);
	if (!fresh && !level) {
		p->held = false;   /* the guest cleared the status: the line fell */
		return 0;
	}
	struct kvm_lapic_state s;
	if (ioctl(p->vcpu_fd, KVM_GET_LAPIC, &s) < 0)
		return sys_fail(what, "KVM_GET_LAPIC");
	uint32_t lvtpc = lapic_reg(&s, APIC_LVTPC);
	if (!(lapic_reg(&s, APIC_SVR) & SVR_ENABLE)) {
		st->pmis_apic_off += fresh;
		p->held = false;
		return 0;
	}
	if (lvtpc & LVT_MASKED) {
		if (level) {
			st->pmis_held += !p->held;
			p->held = true;
			recheck_later(p);
		} else {
			st->pmis_masked++;
		}
		return 0;
	}
	p->held = false;
	return deliver(p, &s, lvtpc, st, what);
}

void kvm_pmi_disarm(struct kvm_pmi *p)
{
	struct itimerspec off = { { 0, 0 }, { 0, 0 } };
	if (p->timer_ok)
		timer_settime(p->timer, 0, &off, NULL);
}

void kvm_pmi_destroy(struct kvm_pmi *p)
{
	if (p->timer_ok)
		timer_delete(p->timer);
	p->timer_ok = false;
}
