/* SPDX-License-Identifier: MIT */
/*
 * The LVTPC write gate of a VM (docs/integration.md "PMIs", "The auto-mask and
 * the LAPIC page").  On the CPUs that auto-mask (vpmu_vm_pmi_automask), the
 * glue sets the LVTPC mask before it injects a PMI.  For an xAPIC guest, the
 * only way KVM offers to write one LAPIC register from user space is
 * KVM_SET_LAPIC, which writes the whole page back, IRR included (Linux
 * arch/x86/kvm/lapic.c, kvm_apic_set_state: the page is copied in, and with
 * APIC virtualization the posted-interrupt requests are dropped).  An
 * interrupt that reaches the vCPU's APIC between the glue's KVM_GET_LAPIC and
 * its KVM_SET_LAPIC would be lost.
 *
 * The gate keeps every other writer out of that window that user space can
 * keep out:
 *   - the VM's other vCPUs, which send IPIs from inside KVM_RUN: a vCPU thread
 *     enters KVM_RUN only through the open gate (kvm_gate_enter), and the
 *     writer (kvm_gate_close) kicks the ones inside with their kick signal and
 *     waits until they are out;
 *   - the VMM's own interrupts (KVM_IRQ_LINE, KVM_SIGNAL_MSI, irqfd writes),
 *     which it raises between vpmu_kvm_irq_begin() and vpmu_kvm_irq_end():
 *     the writer waits for the ones in progress, and new ones wait for it.
 * One writer at a time.  A VM whose model does not auto-mask has no gate.
 */
#ifndef VPMU_GLUE_KVM_GATE_H
#define VPMU_GLUE_KVM_GATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "vpmu/vpmu.h"

struct kvm_gate_slot {
	_Atomic bool in_run;    /* from kvm_gate_enter to kvm_gate_leave (its thread) */
	bool live;              /* between register and unregister (under lock) */
	pthread_t thread;       /* the thread that runs the vCPU (written under lock) */
	int signo;              /* its kick signal */
};

struct kvm_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;    /* the gate opened, a vCPU left KVM_RUN, an injection ended */
	_Atomic bool closed;    /* a writer holds the gate */
	unsigned irq;           /* the VMM's injections in progress (under lock) */
	struct kvm_gate_slot slot[VPMU_MAX_VCPUS];
};

/* A new gate, open; NULL without memory.  kvm_gate_free() takes a void *, so
 * that the VM frees it (vm_glue.h). */
struct kvm_gate *kvm_gate_create(void);
void kvm_gate_free(void *gate);

/* vCPU index's thread (the caller) with its kick signal joins / leaves. */
void kvm_gate_register(struct kvm_gate *g, unsigned index, int signo);
void kvm_gate_unregister(struct kvm_gate *g, unsigned index);

/* vCPU index's thread, right before KVM_RUN: waits while a writer holds the
 * gate; and right after KVM_RUN. */
void kvm_gate_enter(struct kvm_gate *g, unsigned index);
void kvm_gate_leave(struct kvm_gate *g, unsigned index);

/* The writer, vCPU self's thread (outside KVM_RUN): returns once no other vCPU
 * of the VM is in KVM_RUN and no injection of the VMM is in progress, and
 * holds them off until kvm_gate_open(). */
void kvm_gate_close(struct kvm_gate *g, unsigned self);
void kvm_gate_open(struct kvm_gate *g);

/* The VMM's injection of an interrupt into the VM (vpmu_kvm_irq_begin/end). */
void kvm_gate_irq_begin(struct kvm_gate *g);
void kvm_gate_irq_end(struct kvm_gate *g);

#endif
