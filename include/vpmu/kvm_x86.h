/* SPDX-License-Identifier: MIT */
/*
 * KVM x86 glue: what a VMM calls to put a libvpmu virtual PMU under a KVM guest
 * (docs/integration.md).  The simple way, five calls:
 *
 *   vpmu_kvm_vm_setup()    once per VM, before its vCPUs exist: KVM's own vPMU off
 *                          (KVM_CAP_PMU_CAPABILITY), user-space MSR exits on (and
 *                          RDPMC exits, where KVM has them: docs/rdpmc.md), and an
 *                          MSR filter so exactly the PMU MSRs of the models
 *                          (vpmu_pmu_regs(): IA32_MISC_ENABLE included) exit to
 *                          user space;
 *   vpmu_kvm_vcpu_setup()  once per vCPU, on its thread: the model's CPUID
 *                          (KVM_SET_CPUID2), the kick signal's mask
 *                          (KVM_SET_SIGNAL_MASK), then vpmu_kvm_vcpu_init();
 *   vpmu_kvm_vcpu_run()    instead of ioctl(KVM_RUN): switches the virtual PMU in
 *                          (once: an exit is not a switch), injects a pending PMI
 *                          through the guest's LVTPC, applies what the last exit
 *                          changed (vpmu_vcpu_enter), runs, and answers PMU MSR
 *                          exits itself with the PMU still switched in; returns for
 *                          any other exit (run->exit_reason) or a kick (-EINTR,
 *                          after landing what an overflow signal kicked for);
 *   vpmu_kvm_vcpu_pause()  when the thread stops running the vCPU (pause, migration,
 *                          exit): switches the virtual PMU out;
 *   vpmu_kvm_vcpu_destroy() (pauses first).
 *
 * A VMM that owns its run loop and its CPUID (QEMU, kvmtool, a Firecracker-style
 * VMM) calls the steps vpmu_kvm_vcpu_run() is made of instead ("The steps"
 * below; docs/integration.md, "Your own run loop").
 *
 * Kicks: the signal `signo` (the one given to the perf backend, and the one a VMM
 * sends with pthread_kill() to stop a vCPU) must end a KVM_RUN in progress or
 * about to start with EINTR.  vpmu_kvm_vcpu_setup() does it the simple way: the
 * caller blocks it on the vCPU thread (pthread_sigmask) before the call, and
 * KVM_SET_SIGNAL_MASK unblocks it only inside KVM_RUN, so a kick that arrives
 * between two runs is not lost: the next KVM_RUN returns at once.  A VMM with
 * its own mechanism (a handler that sets kvm_run.immediate_exit, api.rst) gives
 * its own kick signal.  On a CPU that auto-masks the LVTPC, the glue kicks a
 * VM's other vCPUs out of KVM_RUN while it sets one's LVTPC mask
 * (vpmu_kvm_irq_begin below): they return -EINTR as for any kick.
 *
 * Functions return 0 or a negative errno (-EINVAL for a NULL or invalid argument);
 * on failure `err` (when non-NULL) holds a message naming the ioctl and what KVM
 * said, and nothing has changed that the caller must undo.
 */
#ifndef VPMU_KVM_X86_H
#define VPMU_KVM_X86_H

#include <stddef.h>
#include <stdint.h>

#include "vpmu/vpmu.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The library is built with -fvisibility=hidden: what is declared here is its ABI. */
#pragma GCC visibility push(default)

struct kvm_run;
struct vpmu_kvm_vcpu;

#define VPMU_KVM_ERRLEN 192

/* PMI delivery outcomes, per vCPU. */
#define VPMU_KVM_TIMED_EXITS 16
struct vpmu_kvm_stats {
	uint64_t msr_exits;        /* PMU MSR exits answered (reads + writes) */
	uint64_t msr_faults;       /* of which answered with #GP */
	uint64_t msr_ns;           /* libvpmu's time on the msr_timed exits: from the exit
	                              to the next entry, the answer and what it changed
	                              (vpmu_vcpu_enter) included, a PMI's delivery before
	                              that entry not (pmi_ns) (CLOCK_MONOTONIC) */
	uint64_t msr_timed;        /* exits timed: one in VPMU_KVM_TIMED_EXITS, so that the
	                              clock readings stay off the other exits' path */
	uint64_t pmis_fixed;       /* PMIs delivered with the LVTPC's fixed vector */
	uint64_t pmis_nmi;         /* PMIs delivered as NMIs */
	uint64_t pmis_masked;      /* PMIs lost: LVTPC masked (the hardware drops them too;
	                              on the P4, pmis_held) */
	uint64_t pmis_apic_off;    /* PMIs lost: APIC software-disabled (SVR bit 8 clear) */
	uint64_t pmis_bad_mode;    /* PMIs lost: LVTPC delivery mode neither fixed nor NMI */
	uint64_t kicks;            /* KVM_RUN returns for the kick signal */
	uint64_t rdpmc_exits;      /* RDPMC exits answered (VPMU_KVM_RDPMC_EXIT), counted
	                              in msr_exits too */
	uint64_t rdpmc_syncs;      /* KVM_SET_MSRS loads of KVM's counters before an entry
	                              (VPMU_KVM_RDPMC_SYNC) */
	uint64_t pmis_held;        /* PMIs raised while the LVTPC was masked on a CPU whose
	                              PMI is a level (the P4): held, and delivered at the
	                              unmask if the guest left the status set (counted in
	                              pmis_nmi/pmis_fixed then) */
	uint64_t pmi_ns;           /* the glue's time delivering PMIs, on the pmi_timed
	                              passes: its KVM calls, the LAPIC's read and write and
	                              the injection (CLOCK_MONOTONIC) */
	uint64_t pmi_timed;        /* passes over a pending or held PMI before an entry
	                              (delivered, dropped or held), every one timed */
};

/* How guest RDPMC reaches the virtual PMU on this vCPU (docs/rdpmc.md), decided
 * by probing KVM at setup. */
enum vpmu_kvm_rdpmc {
	VPMU_KVM_RDPMC_EXIT = 1,   /* KVM has KVM_MSR_EXIT_REASON_RDPMC (patches/kvm-rdpmc):
	                              every RDPMC exits and the model answers it exactly */
	VPMU_KVM_RDPMC_SYNC,       /* stock kvm_amd: KVM answers RDPMC ECX 0-3 from its
	                              legacy counters, which the glue loads with the virtual
	                              PMU's values before each entry (exact at entry; other
	                              indexes read 0, not #GP) */
	VPMU_KVM_RDPMC_STOCK,      /* neither: KVM answers RDPMC itself (#GP on Intel with
	                              its PMU off), never with the virtual counters */
};

/* vm_fd: the KVM VM (with its in-kernel irqchip already created); vm: the
 * virtual PMU it presents (which records whether RDPMC exits were enabled).
 * Turns KVM's own PMU off where KVM offers that. */
int vpmu_kvm_vm_setup(int vm_fd, struct vpmu_vm *vm, char err[VPMU_KVM_ERRLEN]);
/* vpmu_kvm_vm_setup() without the MSR filter, for a VMM that keeps its own
 * (KVM has one filter per VM, and a second KVM_X86_SET_MSR_FILTER replaces the
 * first): KVM's PMU off, user-space MSR exits with KVM_MSR_EXIT_REASON_FILTER
 * (and _RDPMC where KVM has it) on.  The VMM's filter must make the MSRs
 * vpmu_vm_trapped_regs(vm, VPMU_SPACE_MSR, ...) lists exit (a clear bit in a
 * filter range: Documentation/virt/kvm/api.rst, KVM_X86_SET_MSR_FILTER), and
 * vpmu_kvm_vcpu_handle_exit() answers them. */
int vpmu_kvm_vm_init(int vm_fd, struct vpmu_vm *vm, char err[VPMU_KVM_ERRLEN]);

/* vm_fd: the KVM VM (PMIs go in as MSIs); vcpu_fd and run: the KVM vCPU and its
 * mapped kvm_run;
 * vcpu: the libvpmu vCPU; signo: the kick signal (blocked on this thread).
 * Call on the vCPU's own thread.  vpmu_kvm_vcpu_set_cpuid(), then
 * vpmu_kvm_vcpu_set_signal_mask(), then vpmu_kvm_vcpu_init(). */
int vpmu_kvm_vcpu_setup(int vm_fd, int vcpu_fd, struct kvm_run *run, struct vpmu_vcpu *vcpu,
			int signo, struct vpmu_kvm_vcpu **out, char err[VPMU_KVM_ERRLEN]);
/* One KVM_RUN with the virtual PMU switched in on host CPU slot `host_cpu`
 * (the slot must not be in use by another vCPU: one slot per vCPU thread is the
 * simple choice).  0: run->exit_reason is an exit for the VMM; -EINTR: kicked;
 * -EINVAL: kv is NULL; other -errno: KVM_RUN or an injection ioctl failed
 * (message in err).  A loop of vpmu_kvm_vcpu_resume(), then pre_run, KVM_RUN
 * (again at once on EAGAIN), post_run and handle_exit until an exit that is not
 * the vPMU's or a kick. */
int vpmu_kvm_vcpu_run(struct vpmu_kvm_vcpu *kv, unsigned host_cpu, char err[VPMU_KVM_ERRLEN]);

/* ---- The steps, for a VMM that owns its run loop ----
 *
 * Every step but vpmu_kvm_vcpu_reset() runs on the vCPU's thread, the one that
 * calls KVM_RUN.  The order, per vCPU:
 *
 *   vpmu_kvm_vcpu_init()             once, after the VMM's KVM_SET_CPUID2
 *   vpmu_kvm_vcpu_resume()           when the thread starts running the vCPU
 *   loop:
 *     vpmu_kvm_vcpu_pre_run()        right before KVM_RUN: nothing but KVM_RUN
 *                                    after it (it may wait for, and be waited
 *                                    for by, the VM's other vCPUs: no lock of
 *                                    the VMM may be held across the pair)
 *     ioctl(vcpu_fd, KVM_RUN, 0)
 *     vpmu_kvm_vcpu_post_run()       right after KVM_RUN, whatever it returned
 *     vpmu_kvm_vcpu_handle_exit()    for KVM_EXIT_X86_RDMSR/WRMSR (any exit
 *                                    may be passed): 1 the vPMU's, answered,
 *                                    run again; 0 the VMM's
 *   vpmu_kvm_vcpu_pause()            when the thread stops running it
 *   vpmu_kvm_vcpu_reset()            at the guest's reset (reboot)
 *   vpmu_kvm_vcpu_destroy()
 *
 * Paused (before the first resume, after a pause), pre_run and post_run do
 * only what every entry needs (the LVTPC write gate, kvm_gate.h, and the kick
 * signal's consumption): the guest runs with the vPMU switched out, and
 * neither counts nor kicks go into its statistics (vpmu-run's null handler
 * runs so, answering the PMU MSR exits itself). */

/* What every VMM needs, without touching the vCPU's CPUID or signal mask: the
 * glue's vCPU (*out), its RDPMC mode probed (after the VMM's KVM_SET_CPUID2:
 * KVM's PMU follows the CPUID), its place in the VM's LVTPC write gate.
 * Arguments as vpmu_kvm_vcpu_setup(); signo: the signal the glue sends to this
 * thread to end its KVM_RUN (the gate's kicks, a held PMI's recheck timer);
 * the VMM makes it do that, its own way.  On the vCPU's thread. */
int vpmu_kvm_vcpu_init(int vm_fd, int vcpu_fd, struct kvm_run *run, struct vpmu_vcpu *vcpu,
		       int signo, struct vpmu_kvm_vcpu **out, char err[VPMU_KVM_ERRLEN]);
/* The conveniences of vpmu_kvm_vcpu_setup(), each alone: KVM_SET_CPUID2 with
 * the glue's table (vpmu_kvm_cpuid_entries, leaf 1's APIC id the vCPU
 * index); KVM_SET_SIGNAL_MASK with the calling thread's mask less signo. */
int vpmu_kvm_vcpu_set_cpuid(int vcpu_fd, const struct vpmu_vcpu *vcpu, char err[VPMU_KVM_ERRLEN]);
int vpmu_kvm_vcpu_set_signal_mask(int vcpu_fd, int signo, char err[VPMU_KVM_ERRLEN]);

/* The thread starts (or goes on) running the vCPU on host CPU slot host_cpu:
 * the virtual PMU switches in there (out first from another slot; nothing if
 * it is in there already: an exit is not a switch).  0, -EINVAL, or the
 * switch's -errno (message in err). */
int vpmu_kvm_vcpu_resume(struct vpmu_kvm_vcpu *kv, unsigned host_cpu, char err[VPMU_KVM_ERRLEN]);
/* Before each KVM_RUN: a pending PMI injected through the guest's LVTPC (or
 * dropped or held as the CPU would), what the last exits changed applied to
 * the host counters (vpmu_vcpu_enter), KVM's RDPMC counters loaded
 * (VPMU_KVM_RDPMC_SYNC), a live-accounting request answered, and the LVTPC
 * write gate passed.  0; -EINVAL; another -errno where an injection ioctl
 * failed (message in err; the gate not passed, KVM_RUN not to be called). */
int vpmu_kvm_vcpu_pre_run(struct vpmu_kvm_vcpu *kv, char err[VPMU_KVM_ERRLEN]);
/* After each KVM_RUN; run_ret: what it returned, 0 or -errno.  On -EINTR (a
 * kick): the pending kick signals consumed and what the backend's overflow
 * signal kicked for landed (vpmu_vcpu_poll), so that its PMI goes in at the
 * next pre_run.  0, or -EINVAL for NULL. */
int vpmu_kvm_vcpu_post_run(struct vpmu_kvm_vcpu *kv, int run_ret);
/* One exit (run: kv's mapped kvm_run): a KVM_EXIT_X86_RDMSR/WRMSR of an MSR
 * the glue's filter made exit, or of RDPMC (VPMU_KVM_RDPMC_EXIT), is answered
 * in run->msr (data; error 1 for #GP, which KVM injects at the next entry):
 * returns 1, and the VMM runs the vCPU again (pre_run first).  Any other exit,
 * an MSR exit of another reason (KVM_MSR_EXIT_REASON_UNKNOWN, _INVAL) or of an
 * MSR the VMM added to the filter included: 0, untouched, the VMM's.  -EINVAL
 * for NULL or another kvm_run. */
int vpmu_kvm_vcpu_handle_exit(struct vpmu_kvm_vcpu *kv, struct kvm_run *run);
/* The thread stops running the vCPU: the virtual PMU switches out (its counts
 * land; a later vpmu_kvm_vcpu_resume or vpmu_kvm_vcpu_run switches it in
 * again).  0, or -EINVAL for NULL. */
int vpmu_kvm_vcpu_pause(struct vpmu_kvm_vcpu *kv);
/* The guest resets (a reboot): the vCPU's PMU back to its power-on state
 * (vpmu_vcpu_reset: every register, a pending PMI dropped), a PMI held for
 * the LVTPC's unmask dropped.  On the vCPU's thread, or on another while that
 * thread is out of the steps (QEMU resets with the vCPUs stopped); paused or
 * not.  The statistics are kept.  0; -EINVAL for NULL; -EIO as
 * vpmu_vcpu_reset. */
int vpmu_kvm_vcpu_reset(struct vpmu_kvm_vcpu *kv);
const struct vpmu_kvm_stats *vpmu_kvm_vcpu_stats(const struct vpmu_kvm_vcpu *kv); /* NULL for NULL */
enum vpmu_kvm_rdpmc vpmu_kvm_vcpu_rdpmc(const struct vpmu_kvm_vcpu *kv);

/* Live accounting, from any thread, while the vCPU runs (docs/accounting.md,
 * "Live view").  vpmu_kvm_vcpu_snapshot_request() asks the vCPU thread for a
 * snapshot and returns the generation that will answer it (0 for NULL): the
 * vCPU thread takes it before its next entry into the guest, so one that stays
 * in the guest answers when it next exits (a kick makes it exit).
 * vpmu_kvm_vcpu_snapshot() copies the newest snapshot published, consistent in
 * itself, without stopping or waiting for the vCPU thread: the caller compares
 * its generation with the one it asked for.  A vCPU also publishes one when it
 * is set up and when it pauses.  0, or -EINVAL for NULL.  kv must outlive the
 * call (vpmu_kvm_vcpu_destroy only after the readers are done). */
struct vpmu_kvm_snapshot {
	uint64_t generation;       /* the request it answers (0: published unasked) */
	uint64_t time_ns;          /* when it was taken (CLOCK_MONOTONIC) */
	struct vpmu_totals totals; /* vpmu_vcpu_totals(), live counts included */
	struct vpmu_kvm_stats stats;
};
uint64_t vpmu_kvm_vcpu_snapshot_request(struct vpmu_kvm_vcpu *kv);
int vpmu_kvm_vcpu_snapshot(const struct vpmu_kvm_vcpu *kv, struct vpmu_kvm_snapshot *out);
const char *vpmu_kvm_rdpmc_name(enum vpmu_kvm_rdpmc mode);   /* one line, for logs */
void vpmu_kvm_vcpu_destroy(struct vpmu_kvm_vcpu *kv);

/* An interrupt the VMM raises in the VM from user space (KVM_IRQ_LINE,
 * KVM_SIGNAL_MSI, a write to an irqfd), from any thread: between these two
 * calls.  On a CPU that auto-masks the LVTPC (vpmu_vm_pmi_automask), the
 * glue writes a vCPU's LAPIC page back whole to set the mask (KVM_SET_LAPIC),
 * and an interrupt that reached the page in between would be lost: begin waits
 * while such a write is under way, and the write waits for the injections
 * begun (docs/integration.md, "The auto-mask and the LAPIC page").  Nothing to
 * wait for on the other CPUs; vm: the one given to vpmu_kvm_vm_setup (NULL:
 * nothing). */
void vpmu_kvm_irq_begin(struct vpmu_vm *vm);
void vpmu_kvm_irq_end(struct vpmu_vm *vm);

/* The CPUID leaves the glue presents for the VM (for a VMM that builds its own
 * table): vpmu_vm_cpuid()'s, with vCPU `apic_id`'s initial APIC id in leaf 1.
 * Fills `max` entries of struct kvm_cpuid_entry2 at most and returns how many
 * it filled; -ENOSPC (nothing written) when `max` is smaller than that
 * (VPMU_MAX_CPUID_LEAVES always suffices); -EINVAL for a NULL vm or entries. */
struct kvm_cpuid_entry2;
int vpmu_kvm_cpuid_entries(const struct vpmu_vm *vm, unsigned apic_id,
			   struct kvm_cpuid_entry2 *entries, unsigned max);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
